"""What an automatic player's resources buy (issue 29 point 2; scenario/players/policies.py ``forgone``,
``ability_gain``; features.py ``deny``): a Command Point spent now is one a later use this Phase cannot have (10.5:
a Ready card's resources are spent once a Round, 10.5.2; 8.9.5: readied only in the Cleanup), and the race to a
Mission Marker (8.9.1: Sticky Control; the first to contest it takes it) read with the enemy's BUFF Speed where its
cards pay for it."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players import menu as menu_module
from mathhammer.scenario.players.features import COL, marker_worth
from mathhammer.scenario.players.menu import Entry
from mathhammer.scenario.players.policies import Decision, Weighted, ability_gain, forgone
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS
from mathhammer.scenario.world import CONTEST_RANGE
from tests.autoplay_kit import data

STIM = ("Stimpack",)


def naive_forgone(gain: list[float], cost: list[float], spare: float, c: float) -> float:
    """The other units' uses bought best gain first, one at a time, while the resources last: with ``spare`` and with
    ``spare - c`` (the same greedy rule, written as a loop)."""

    def bought(budget: float) -> float:
        total, left = 0.0, budget
        for g, k in sorted(zip(gain, cost, strict=True), key=lambda x: -x[0]):
            if g <= 0:
                continue
            left -= k
            if left < -1e-9:
                break
            total += g
        return total

    return bought(spare) - bought(spare - c)


def test_a_use_pays_what_its_resources_would_buy_for_the_other_units() -> None:
    """Hand-picked: three other units whose Stimpack would add 3, 2 and 1 to their scores (1 CP each). With 2 CP left,
    spending 1 now leaves only the best of them bought: the price is the second best (2); with 3 CP, the third (1);
    with 4 CP or more all are bought either way: 0; a 2-CP use with 3 CP left takes the second and third (3). Random
    cases against the naive loop."""
    gain = np.asarray([[3.0, 2.0, 1.0]])
    cost = np.ones((1, 3))
    for spare, c, want in ((2, 1, 2.0), (3, 1, 1.0), (4, 1, 0.0), (5, 1, 0.0), (1, 1, 3.0), (3, 2, 3.0)):
        assert forgone(gain, cost, np.asarray([float(spare)]), c)[0] == pytest.approx(want), (spare, c)
    rng = random.Random(5)
    for _ in range(300):
        k = rng.randint(0, 5)
        g = [rng.choice([0.0, rng.uniform(-1, 4)]) for _ in range(k)]
        ks = [float(rng.randint(1, 2)) for _ in range(k)]
        spare, c = float(rng.randint(0, 5)), float(rng.randint(1, 2))
        got = forgone(np.asarray([g]).reshape(1, k), np.asarray([ks]).reshape(1, k), np.asarray([spare]), c)[0]
        assert got == pytest.approx(naive_forgone(g, ks, spare, c)), (g, ks, spare, c)


def test_an_abilitys_gain_is_its_entry_over_the_same_entry_without_it() -> None:
    """``ability_gain``: per game, the most a Stimpack entry scores above its twin without it (the same action, point
    and label), never below 0, and the resources of that entry."""
    menu = (Entry("hold"), Entry("hold", use=STIM), Entry("move", (1.0, 2.0), label="marker-1"),
            Entry("move", (1.0, 2.0), label="marker-1", use=STIM), Entry("pass"))  # fmt: skip
    s = np.asarray([[1.0, 1.5, 4.0, 3.0, -np.inf], [1.0, 0.0, 4.0, 6.5, -np.inf], [1.0, 0.5, 4.0, 3.0, -np.inf]])
    cost = np.asarray([0.0, 1.0, 0.0, 2.0, 0.0])
    gain, paid = ability_gain(menu, s, cost)
    assert gain.tolist() == [0.5, 2.5, 0.0] and paid.tolist() == [1.0, 2.0, 0.0]


def _decision(scores: list[list[float]], spare: float) -> tuple[Decision, list[tuple[Entry, ...]]]:
    """A one-game Decision of units each with a Hold and a Hold with Stimpack (1 CP), their rows the ``scores`` as a
    single column weighted 1 (``damage``), the player's Ready resources ``spare``."""
    menus = [(Entry("hold"), Entry("hold", use=STIM), Entry("pass")) for _ in scores]

    def features(j: int, rows: np.ndarray) -> np.ndarray:
        f = np.zeros((rows.size, 3, len(COL)))
        f[:, :2, COL["damage"]] = scores[j]
        f[:, 1, COL["spend"]] = 1.0
        return f

    d = Decision(
        games=np.asarray([0]),
        units=list(range(len(scores))),
        free=np.ones((1, len(scores)), dtype=bool),
        legal=lambda j, rows: np.ones((rows.size, 3), dtype=bool),
        admits=lambda j, e, rows: np.ones(rows.size, dtype=bool),
        entries=lambda j: menus[j],
        draw=lambda i, rows: np.zeros(rows.size),
        features=features,
        spare=lambda rows: np.full(rows.size, spare),
    )
    return d, menus


class _Damage(Weighted):
    weights: ClassVar[dict[str, float]] = {"damage": 1.0, "spend": 0.0}


def test_the_larger_list_stims_the_unit_that_gains_most_when_the_cp_runs_short() -> None:
    """Four units, Stimpack adding 0.5, 2.0, 1.0 and 0.2 to their Holds (1 CP each, its gain the exact engine's in a
    game). With 4 CP left all four would be bought: no price, each Hold with Stimpack scores its gain. With 1 CP left
    only the best use is bought: each entry pays the best of the others' (the unit gaining 2.0 pays 1.0, the others
    2.0): only the best unit's Stimpack scores above its plain Hold, and the policy picks it."""
    gains = [0.5, 2.0, 1.0, 0.2]
    scores = [[1.0, 1.0 + g] for g in gains]
    policy = _Damage()
    d, _ = _decision(scores, 4.0)
    s, _, _ = policy.scores(d)
    assert s[0, [1, 4, 7, 10]].tolist() == pytest.approx([1.0 + g for g in gains])
    d, _ = _decision(scores, 1.0)
    s, _, _ = policy.scores(d)
    price = [2.0, 1.0, 2.0, 2.0]
    assert s[0, [1, 4, 7, 10]].tolist() == pytest.approx([1.0 + g - p for g, p in zip(gains, price, strict=True)])
    assert s[0, [0, 3, 6, 9]].tolist() == [1.0] * 4  # the plain Holds pay nothing
    unit, entry = policy.choose(d)
    assert (unit[0], entry[0]) == (1, 1)


def _camp(folder: Path, stim: bool, monkeypatch: pytest.MonkeyPatch) -> Simulation:
    """The two-unit Terran list against itself on Abandoned Camp (markers 1, 5, 2 on the middle line), Stimpack on
    the menus or not."""
    monkeypatch.setattr(menu_module, "MOVE_ABILITIES", stim)
    d = data(folder, red="objective", blue="objective", length=5)
    d["deployment"] = {"card": "Abandoned Camp"}
    d["players"]["blue"]["army"] = d["players"]["red"]["army"]
    return Simulation(parse_scenario(d, "camp.toml", folder), 1, 0)


@pytest.mark.parametrize("stim", [False, True])
def test_deny_is_the_opponents_marker_where_an_enemy_can_reach_it_next_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stim: bool
) -> None:
    """Red's Marines on the table, blue's Marauders at three distances from marker 1 (red's colour: 2 VP a Round to
    blue, Hold Position). A red Move to marker 1's contest spot scores ``deny`` = blue's 2 VP where the Marauders'
    Leading Model can reach within 3" of it (8.9.1) by the end of next Round: a Move and a Run at Speed, plus BUFF
    Speed (3) where Stimpack is on their menu (their cards pay 1 CP a Round: Terran Armed Forces); else 0. Blue
    Controlling the marker: 2 at any distance. Each distance checked against the exact reach 2 x (4 + 3) + 3."""
    sim = _camp(tmp_path, stim, monkeypatch)
    auto = sim.players[0]
    feats = auto.features()
    menus = auto._menus
    marker = next(m for m in sim.scn.deployment.markers if m.number == 1)
    mi = [m.number for m in sim.scn.deployment.markers].index(1)
    worth = marker_worth(getattr(sim.scn.mission, "rules", ()), 1, marker.side, "blue")
    assert worth == 2.0
    speed = sim.units[sim.uids.index("blue-marauder-1")].speed
    reach = 2 * (speed + (3 if stim else 0)) + CONTEST_RANGE
    assert (
        feats.dash[sim.uids.index("blue-marauder-1")] + CONTEST_RANGE
        == reach
        == 2 * feats.fast[sim.uids.index("blue-marauder-1")] + CONTEST_RANGE
    )
    moves = menus["marine-1"]["movement"]
    spot = next(i for i, e in enumerate(moves) if e.action == "move" and e.label == "marker-1" and not e.use)
    m, b, n = sim.uids.index("marine-1"), sim.uids.index("blue-marauder-1"), sim.U
    seen = []
    for gap in (2 * speed + CONTEST_RANGE - 1.0, 2 * speed + CONTEST_RANGE + 2.0, 2 * (speed + 3) + CONTEST_RANGE + 1):
        pos, alive = [-1] * n, [0] * n
        mpid = sim.world.place(sim.scn.units["marine-1"], (18.0, 4.0), (18.0, 0.0), ())
        bpid = None
        for deg in range(0, 90, 5):  # the first clear point that far from the marker, towards blue's side
            there = (marker.x + gap * math.cos(math.radians(deg)), marker.y + gap * math.sin(math.radians(deg)))
            bpid = sim.world.place(sim.scn.units["blue-marauder-1"], there, (there[0], 36.0), (mpid,))
            if bpid is not None:
                break
        assert mpid is not None and bpid is not None
        pos[m], pos[b], alive[m], alive[b] = mpid, bpid, 6, 2
        lead = feats._lead(b, bpid)
        for owner, want_any in ((-1, None), (1, 2.0)):
            control = [-1] * len(sim.scn.deployment.markers)
            control[mi] = owner
            rows = feats.table(m, "movement", (*pos, *alive, *([0] * n), *([0] * n), *control))
            near = math.dist(lead, (marker.x, marker.y)) <= reach
            seen.append(near)
            want = want_any if want_any is not None else (worth if near else 0.0)
            assert rows[spot, COL["deny"]] == want, (gap, owner, stim)
            assert rows[spot, COL["marker"]] == marker_worth(sim.scn.mission.rules, 1, marker.side, PLAYERS[0])
    assert seen[::2] == [True, stim, False]  # the three distances: within a plain reach, a stimmed one, neither


@pytest.mark.parametrize("stim", [False, True])
def test_threat_reads_the_enemys_buff_speed_where_its_cards_pay_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stim: bool
) -> None:
    """The blue Marauders 1.5" beyond their Speed plus the Quad K12's range of red's Marines: with Stimpack on their
    menu (BUFF Speed (3) for 1 CP, paid from Terran Armed Forces next Round) they reach them next Round, so the
    Marines' Hold scores ``threat`` = the Marauders' Shoot's expected share of the Marines' models (the exact engine)
    times their full Supply (the Charge too where Speed + 3 + 7" reaches); without it, 0."""
    sim = _camp(tmp_path, stim, monkeypatch)
    feats = sim.players[0].features()
    m, b, n = sim.uids.index("marine-1"), sim.uids.index("blue-marauder-1"), sim.U
    speed, (rng, charge) = sim.units[b].speed, feats.reach[b]
    assert feats.fast[b] == speed + (3 if stim else 0)
    mpid = sim.world.place(sim.scn.units["marine-1"], (6.0, 4.0), (6.0, 0.0), ())
    assert mpid is not None
    lead = feats._lead(m, mpid)
    gap = speed + rng + 1.5
    bpid = None
    for deg in range(10, 90, 5):
        there = (lead[0] + gap * math.cos(math.radians(deg)), lead[1] + gap * math.sin(math.radians(deg)))
        bpid = sim.world.place(sim.scn.units["blue-marauder-1"], there, (there[0], 36.0), (mpid,))
        if bpid is not None:
            break
    assert bpid is not None
    pos, alive = [-1] * n, [0] * n
    pos[m], pos[b], alive[m], alive[b] = mpid, bpid, 6, 2
    state = (*pos, *alive, *([0] * n), *([0] * n), *([-1] * len(sim.scn.deployment.markers)))
    hold = next(i for i, e in enumerate(sim.players[0]._menus["marine-1"]["movement"]) if e.action == "hold")
    far = math.dist(lead, feats._lead(b, bpid))
    worth = float(sim.supply(m, np.asarray([sim.full[m]]))[0])
    want = 0.0
    if far <= speed + 3 + rng and stim:
        want = feats.attack(b, 2, m, 6, 0, 0, "assault")[2] * worth
    if charge and stim and far <= speed + 3 + 7:
        want = max(want, feats.attack(b, 2, m, 6, 0, 0, "combat")[2] * worth)
    assert far > speed + rng and (want > 0) == stim
    assert feats.table(m, "movement", state)[hold, COL["threat"]] == pytest.approx(want)
