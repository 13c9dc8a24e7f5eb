"""The automatic players' scored policies (issue 29 points 2, 3 and 5; scenario/players/features.py, policies.py):
the features from the exact engine against a naive Monte Carlo, the weights file and its refusals, a user's policy
class, legality of every action taken, and the strength checks of point 5.

Sizes, and why they still mean what the issue asks. A whole game costs about 0.2-0.4 s of CPU with two units a side
(the h-legal speed-up is still to come), so the games are small: the two-unit lists of ``tests/autoplay_kit.py`` on
the Abandoned Camp card (Skirmish, 36" x 36", markers 1, 5 and 2 on the middle line; the card's symmetry maps each
player's half onto the other's, and its ``standard`` preset terrain too) with Hold Position (markers score from Round
2: three Rounds give two scorings). The thresholds are the issue's; each check states the exact binomial (Clopper-
Pearson) bound of what it saw, with fixed seeds: the same games every run.
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from mathhammer.errors import MathhammerError
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players import policies as pol
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COLUMNS, Features
from mathhammer.scenario.players.policies import Weighted, load_weights, make_policy, policy
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Scenario
from mathhammer.starcraft.loadout import as_target, attack_batches
from mathhammer.starcraft.model import Attack
from tests.autoplay_kit import RED, data
from tests.autoplay_kit import judged as judge
from tests.naive import naive_trial
from tests.scenario_kit import assert_same_games

CARD = "Abandoned Camp"


def camp(folder: Path, red: str, blue: str, length: int = 3, **kw: Any) -> Scenario:
    """The two-unit lists on Abandoned Camp with Hold Position; ``mirror``: red's list on both sides; ``double``:
    red's list with each of its units twice (twice the minerals of the same units); ``first``: the First Player."""
    d = data(folder, red=red, blue=blue, length=length)
    d["deployment"] = {"card": CARD}
    if kw.get("mirror"):
        d["players"]["blue"]["army"] = d["players"]["red"]["army"]
    if kw.get("double"):
        big = folder / "red_double.toml"
        big.write_text(RED + RED[RED.index("[[units]]") :])  # each unit twice
        d["players"]["red"]["army"] = str(big)
        d["players"]["blue"]["army"] = d["players"]["blue"]["army"].replace("blue_two", "red_two")
    if "first" in kw:
        d["first_player"] = kw["first"]
    return parse_scenario(d, "camp.toml", folder)


def played(scn: Scenario, games: int, seed: int) -> Simulation:
    sim = Simulation(scn, games, seed)
    sim.run()
    return sim


def lower_bound(wins: int, n: int, level: float = 0.95) -> float:
    """The one-sided exact (Clopper-Pearson) lower bound of a binomial proportion."""
    return 0.0 if wins == 0 else float(stats.beta.ppf(1 - level, wins, n - wins + 1))


# ---------------------------------------------------------------- features
def test_attack_features_match_a_naive_monte_carlo(tmp_path: Path) -> None:
    """damage and destroy of a Shoot entry (8.7.3-8.7.4, the exact engine on the chain against the target in its
    state) against the naive resolver of tests/naive.py: 3,000 naive attacks, means within 5 SE. Marines (6) at
    Zerglings left with 8 models (Supply 1 until 6 are left) and no Damage Marker, and Marauders (2) in Close
    Combat at a Roach unit left with 2 of its 3 models."""
    sim = Simulation(camp(tmp_path, "objective", "random"), 1, 0)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    auto.legality  # noqa: B018 (builds the menus)
    assert auto._menus is not None
    feats = Features(sim, auto._menus)
    rng = random.Random(7)
    seen = []
    for a_id, t_id, k, phase in (("marine-1", "zergling-1", 8, "assault"), ("marauder-1", "roach-1", 2, "combat")):
        u, t = sim.uids.index(a_id), sim.uids.index(t_id)
        damage, destroy, share = feats.attack(u, int(sim.full[u]), t, k, 0, 0, phase)
        batches = attack_batches(sim.loadout(u, 0), sim.units[t].unit, phase, alive=int(sim.full[u]))
        target = as_target(sim.loadout(t, 0), phase, alive=k, marker=0, shielded=False)
        supply = sim.supply(t, np.arange(sim.full[t] + 1))
        lost, dead, gone = [], [], []
        for _ in range(3000):
            removed = naive_trial(Attack(tuple(batches), target), rng)[1]
            left = max(k - removed, 0)
            lost.append(float(supply[k] - supply[left]))
            dead.append(left == 0)
            gone.append((k - left) / float(sim.full[t]))
        for exact, sample in ((damage, lost), (destroy, dead), (share, gone)):
            mean, se = float(np.mean(sample)), float(np.std(sample)) / math.sqrt(len(sample))
            assert abs(exact - mean) <= 5 * max(se, 1e-3), (a_id, exact, mean, se)
        assert damage > 0 and share > 0, a_id  # not a vacuous comparison
        seen.append(0 < destroy < 1)
    assert any(seen)


def test_feature_rows_depend_on_the_state_only(tmp_path: Path) -> None:
    """Rows looked up for games in the same state are the same table (memoised per unit, Phase and state), and a game's
    rows do not depend on which other games are asked with it; marker and take are the card's points (Hold Position:
    1 VP for a marker of the player's colour or Neutral, 2 for the opponent's; menu spots ``marker-N``)."""
    sim = Simulation(camp(tmp_path, "objective", "random"), 4, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    auto.legality  # noqa: B018
    assert auto._menus is not None
    feats = Features(sim, auto._menus)
    u = sim.uids.index("marine-1")
    all4 = feats.rows(u, "movement", np.arange(4))
    one = feats.rows(u, "movement", np.array([2]))
    assert all4.shape == (4, len(auto._menus["marine-1"]["movement"]), len(COLUMNS))
    assert np.array_equal(all4[2], one[0]) and np.array_equal(all4[0], all4[3])  # nothing on the table yet
    menu = auto._menus["marine-1"]["movement"]
    col = {c: i for i, c in enumerate(COLUMNS)}
    for i, e in enumerate(menu):
        if e.label.startswith("marker-"):
            n = int(e.label.split("-")[1])
            want = {1: 1.0, 5: 1.0, 2: 2.0}[n]  # red: marker 1 its colour, 5 Neutral, 2 blue's
            assert all4[0, i, col["marker"]] == want and all4[0, i, col["take"]] == want, e
            assert all4[0, i, col["marker_moves"]] == 0, e


# ---------------------------------------------------------------- the weights file, user policies
def test_the_weights_file_names_the_three_policies_over_known_columns() -> None:
    w = load_weights()
    assert {"objective", "aggressive", "cautious"} <= set(w)
    assert all(set(row) <= set(COLUMNS) for row in w.values())
    for name in ("objective", "aggressive", "cautious"):
        made = make_policy(name)
        assert isinstance(made, Weighted) and made.w.shape == (len(COLUMNS),)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[objective]\nmarkers = 1.0\n", "objective.markers"),
        ('[objective]\nmarker = "much"\n', "objective.marker"),
        ("[objective]\nmarker = true\n", "objective.marker"),
        ("[objective]\nmarker = inf\n", "objective.marker"),
        ("objective = 3\n", "objective"),
        ("[objective\n", "bad.toml"),
    ],
)
def test_a_malformed_weights_file_is_refused_in_one_line(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(MathhammerError) as err:
        load_weights(path)
    assert field in str(err.value) and "\n" not in str(err.value)


def test_a_policy_class_with_a_wrong_column_or_a_missing_table_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's weights naming no column (or not a number), a built-in policy whose table the file lacks: one line."""

    class Typo(Weighted):
        weights = {"markers": 1.0}  # noqa: RUF012

    class NotANumber(Weighted):
        weights = {"marker": "high"}  # type: ignore[dict-item]  # noqa: RUF012

    class Missing(Weighted):
        profile = "sneaky"

    with pytest.raises(MathhammerError, match=r"^Typo.weights.markers: got 'markers'; allowed: a column: damage"):
        Typo()
    with pytest.raises(MathhammerError, match=r"^NotANumber.weights.marker: got 'high'; allowed: a finite number"):
        NotANumber()
    with pytest.raises(MathhammerError, match=r"^policies.toml: got 'sneaky'; allowed: a table \[sneaky\]"):
        Missing()


def doc_block(title: str) -> str:
    """The code block of docs/scenario.md with that title."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "scenario.md").read_text(encoding="utf-8")
    found = re.findall(rf'^```\w+ title="{re.escape(title)}"\n(.*?)^```$', text, flags=re.S | re.M)
    assert len(found) == 1, title
    return str(found[0])


def test_the_documented_weights_are_the_shipped_objective(tmp_path: Path) -> None:
    path = tmp_path / "doc.toml"
    path.write_text(doc_block("profiles/policies.toml"))
    assert load_weights(path)["objective"] == load_weights()["objective"]


def test_the_documented_users_policy_is_registered_and_plays(tmp_path: Path) -> None:
    """docs/scenario.md's example, run as written: a Weighted subclass with its own weights registered under
    ``markers-only`` plays a whole game (two games of two Rounds) and comes on the table; a second class under the
    same name is refused."""
    space: dict[str, Any] = {}
    exec(compile(doc_block("markers_only.py"), "markers_only.py", "exec"), space)
    try:
        sim = played(camp(tmp_path, "markers-only", "random", length=2), 2, 4)
        assert isinstance(sim.players[0], Auto) and isinstance(sim.players[0].policy, space["MarkersOnly"])
        assert (sim.pos[[sim.uids.index("marine-1"), sim.uids.index("marauder-1")]] >= 0).all()
        with pytest.raises(MathhammerError, match="markers-only"):
            policy("markers-only")(type("Other", (Weighted,), {}))
    finally:
        pol.POLICIES.pop("markers-only", None)


# ---------------------------------------------------------------- legality and determinism
@pytest.mark.parametrize("name", ["objective", "aggressive", "cautious"])
def test_a_scored_policy_takes_only_admitted_entries(tmp_path: Path, name: str) -> None:
    """Every activation a policy takes is judged again by a fresh Legality (no memo; legal.py is held to ``scenario
    check`` by tests/test_menus_legal.py) in the games it is applied to: admitted in every one of them. Three games of
    three Rounds, the policy against itself (both sides' decisions checked)."""
    scn = camp(tmp_path, name, name)
    sim = Simulation(scn, 3, 21)
    apply = sim.activate
    taken: list[str] = []

    def judged(act: Activation, games: np.ndarray) -> None:
        _, mask, cols, _ = judge(sim, act, games)
        assert any(mask[:, i].all() for i in cols), act
        taken.append(act.action)
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()
    assert len(sim.snapshots) == scn.mission.game_length
    assert "deploy" in taken and {"move", "run", "shoot", "charge", "hold"} & set(taken)


def masked_choice(policy: Weighted, d: pol.Decision) -> tuple[np.ndarray, np.ndarray]:
    """The reference of Weighted.choose: every entry of every free unit masked by legal.py first (Decision.legal),
    then the best score per game, ties broken by the same draw."""
    score, owner, index = policy.scores(d)
    for j in range(len(d.units)):
        rows = np.flatnonzero(d.free[:, j])
        cols = np.flatnonzero(owner == j)
        legal = np.zeros((d.games.size, cols.size), dtype=bool)
        if rows.size:
            legal[rows] = d.legal(j, rows)
        score[:, cols] = np.where(legal, score[:, cols], -np.inf)
    unit = np.full(d.games.size, -1, dtype=np.int64)
    entry = np.full(d.games.size, -1, dtype=np.int64)
    u = d.draw(0, np.arange(d.games.size))
    for r in range(d.games.size):
        best = score[r].max()
        if np.isfinite(best):
            tied = np.flatnonzero(score[r] >= best - pol.TIE)
            c = tied[min(int(u[r] * tied.size), tied.size - 1)]
            unit[r], entry[r] = owner[c], index[c]
    return unit, entry


def test_the_level_by_level_choice_is_the_masked_one(tmp_path: Path) -> None:
    """Weighted.choose judges legality only down to the best score with a legal entry: at every decision of an
    objective-against-cautious game (4 games, 3 Rounds), the same unit and entry as masking every entry first."""
    sim = Simulation(camp(tmp_path, "objective", "cautious"), 4, 13)
    seen = 0
    for player in sim.players:
        assert isinstance(player, Auto) and isinstance(player.policy, Weighted)
        policy_ = player.policy
        lazy = policy_.choose

        def both(d: pol.Decision, lazy: Any = lazy, policy_: Weighted = policy_) -> tuple[np.ndarray, np.ndarray]:
            nonlocal seen
            got = lazy(d)
            want = masked_choice(policy_, d)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), (got, want)
            seen += int((got[0] >= 0).sum())
            return got

        policy_.choose = both  # type: ignore[method-assign]
    sim.run()
    assert seen > 20


def test_a_scored_game_is_the_same_alone_or_among_others(tmp_path: Path) -> None:
    """Game 2 played alone (offset 2) and among games 0-3: the same game (ties broken by the game's own draw)."""
    scn = camp(tmp_path, "objective", "aggressive", length=2)
    many = played(scn, 4, 9)
    alone = Simulation(scn, 1, 9, offset=2)
    alone.run()
    for a, b in zip(many.snapshots, alone.snapshots, strict=True):
        for k in a:
            assert np.array_equal(a[k][..., 2], b[k][..., 0]), k


def test_a_scored_policy_plays_the_same_games_on_two_workers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Serial, and 2 forked workers (a 1-game pilot, then two blocks; each worker tabulates its own features): the
    same arrays, objective against cautious, 3 games of 2 Rounds."""
    from mathhammer.scenario import parallel, simulate

    monkeypatch.setattr(parallel, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "PILOT", 1)
    scn = camp(tmp_path, "objective", "cautious", length=2)
    one = simulate(scn, trials=3, seed=5, workers=1)
    two = simulate(scn, trials=3, seed=5, workers=2)
    assert_same_games(one, two)


# ---------------------------------------------------------------- point 5: strength
def outcome(sim: Simulation) -> tuple[np.ndarray, np.ndarray]:
    """Per game: red won, blue won (VP; a tie is a draw)."""
    return sim.vp[0] > sim.vp[1], sim.vp[1] > sim.vp[0]


@pytest.mark.parametrize(
    ("card", "games", "seed", "army"),
    [("Char Plains", 400, 31, None), ("Abandoned Camp", 200, 31, None), ("Breach", 400, 31, "zerg_skirmish.toml")],
)
def test_a_mirror_match_is_even_when_the_first_player_alternates(
    tmp_path: Path, card: str, games: int, seed: int, army: str | None
) -> None:
    """The same list both sides (objective against objective), ``first_player = "alternate"`` (8.2.2: red first in
    the even games, blue in the odd; tests/test_first_player.py): P(red wins) - P(blue wins) = 0 within 3 SE (a draw
    counts for neither: with draws P(red wins) = 0.5 reads as P(red wins) = P(blue wins)), and the mean VP difference
    0 within 3 SE. Games of 5 Rounds on Char Plains (mirror-y) and Abandoned Camp (rotate-180): the players swapped,
    the preset terrain, the menus and the units' formations mapped onto themselves (tests/test_menus_mirror.py).
    Before the formations were laid in the unit's own frame Abandoned Camp failed it: blue won more (1,000 games:
    red 0.320, blue 0.455, z = -4.90; VP 3.41 / 3.62, z = -2.09); now red 0.380, blue 0.349, z = +1.15; VP z = +0.52
    (benchmarks/RESULTS.md, h-mirror2). Abandoned Camp's size: 200 games, about 15-20 s CPU; at that size the old
    bias shows at z = -2.57 (seed 31), short of 3 SE: the sharp check of the cause is
    tests/test_menus_mirror.py::test_formations_map_onto_each_other (308 of 408 points differed before). Breach
    (mirror-x) with ``army`` both sides (profiles/armies/zerg_skirmish.toml: two Zergling units and Roaches) is a match
    of Charges and Close Ranks (404 successful Charges and 630 Close Ranks moves in the 400 games), whose placement
    ties are broken in the unit's own frame (h-mirror3, h-mirror4; tests/test_mirror_map.py): red 0.307, blue 0.340,
    z = -0.81 (at c405050, ties by the table's axes: red 0.302, blue 0.360, z = -1.41)."""
    d = data(tmp_path, red="objective", blue="objective", length=5)
    d["deployment"] = {"card": card}
    if army is not None:
        d["players"]["red"]["army"] = str(Path(__file__).resolve().parents[1] / "profiles" / "armies" / army)
    d["players"]["blue"]["army"] = d["players"]["red"]["army"]
    d["first_player"] = "alternate"
    sim = played(parse_scenario(d, "mirror.toml", tmp_path), games, seed)
    red, blue = outcome(sim)
    diff = red.astype(float) - blue.astype(float)
    se = diff.std(ddof=1) / math.sqrt(diff.size)
    assert abs(diff.mean()) <= 3 * se, (red.mean(), blue.mean(), diff.mean(), se)
    assert se > 0.02  # games were decided both ways: not all draws
    vp = (sim.vp[0] - sim.vp[1]).astype(float)
    vp_se = vp.std(ddof=1) / math.sqrt(vp.size)
    assert abs(vp.mean()) <= 3 * vp_se, (vp.mean(), vp_se)


def test_objective_beats_random_in_at_least_90_percent_of_games(tmp_path: Path) -> None:
    """``objective`` against ``random``, 20 games with objective as red and 20 as blue (First Player by Roll-Off):
    objective wins at least 90% of the 40 (a draw is not a win)."""
    wins = 0
    for red, blue, seed in (("objective", "random", 41), ("random", "objective", 42)):
        r, b = outcome(played(camp(tmp_path, red, blue), 20, seed))
        wins += int((r if red == "objective" else b).sum())
    assert wins / 40 >= 0.9, (wins, lower_bound(wins, 40))


def test_twice_the_minerals_wins_at_least_80_percent_of_games(tmp_path: Path) -> None:
    """The red list with each unit twice (twice the minerals) against the red list, both
    ``objective``, 30 games of 5 Rounds (a whole game, 8.9.6): the larger list wins at least 80% (a draw is not a
    win). Not 3 Rounds: there the last Round's race to the middle markers, which only Stimpack's BUFF Speed reaches,
    decides most games, and it helps the smaller list as much as the larger (the larger list's extra units stand
    behind; 200 games, seed 52: 82.5% without Stimpack, 80.0% with; seed 53: 87.5%, 77.0%; 5 Rounds, seed 52: 93.5%,
    91.5%; benchmarks/RESULTS.md, h-stim). Stimpack is on the menus since session 13 (``menu.MOVE_ABILITIES``; 200
    games: 89.0/86.5/87.5% on seeds 52-54); before, it was off: with formations laid in
    the unit's own frame (h-mirror2) and Stimpack on, 5 Rounds, 200 games: 80.0% (seed 52), 76.0% (seed 53); off:
    95.5%, 96.0%. Priced over every enemy attack that reaches (h-stim2): 79.5%, 74.0%, 79.0% (seed 54; off 93.5%).
    With the enemy's BUFF Speed read, a CP's opportunity cost and ``deny`` weighed 2 (h-stim3): 85.5%, 84.5%, 81.0%."""
    r, _ = outcome(played(camp(tmp_path, "objective", "objective", length=5, double=True), 30, 51))
    assert r.mean() >= 0.8, (int(r.sum()), lower_bound(int(r.sum()), 30))
