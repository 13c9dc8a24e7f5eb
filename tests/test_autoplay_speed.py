"""Speed of automatic games (issue 29 point 6) without changing a game: the Phase walk in lock step
(``players.play_turns``), a weighted policy's levels read at once (``policies._windows``), the feature tables read
with a menu's fixed parts once (``features.Features._table``). Each is held to a naive reference kept here: the
game-by-game walk (each game alone), the level-by-level walk of ``Weighted.choose``, and the entry-by-entry loop the
feature tables had before."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from mathhammer.scenario.players import policies as pol
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import CHARGE_REACH, COL, COLUMNS, COVER_AT, DAMAGE, MODELS, Features
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Scenario
from mathhammer.scenario.world import CONTEST_RANGE
from tests.autoplay_kit import scenario
from tests.test_policies import masked_choice


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return scenario(tmp_path_factory.mktemp("speed"), red="objective", blue="random", length=3)


# ---------------------------------------------------------------- the walk in lock step
def test_the_lock_step_walk_decides_once_per_step_and_plays_each_game_as_alone(scn: Scenario) -> None:
    """Six games together: an automatic player decides once per step of the Phase for every game there (fewer calls
    than games times steps: the groups its answers split are joined again), and each game is the game played alone
    (offset g: its own dice and draws), snapshot for snapshot."""
    many = Simulation(scn, 6, 21)
    calls: list[int] = []
    for player in many.players:
        assert isinstance(player, Auto)
        step = player.next

        def counted(games: np.ndarray, state: int, step: Any = step) -> Any:
            calls.append(games.size)
            return step(games, state)

        player.next = counted  # type: ignore[method-assign]
    many.run()
    assert max(calls) > 1 and len(calls) < sum(calls)  # several games per decision, decisions shared
    for g in range(6):
        alone = Simulation(scn, 1, 21, offset=g)
        alone.run()
        for a, b in zip(many.snapshots, alone.snapshots, strict=True):
            for k in a:
                assert np.array_equal(a[k][..., g], b[k][..., 0]), (g, k)


# ---------------------------------------------------------------- a weighted policy's levels at once
def naive_levels(row: np.ndarray) -> list[int]:
    """The level of each entry of one game's ranked scores as ``Weighted.choose`` walks them (its anchor: the first
    entry of the level; the level holds the entries within TIE of it)."""
    out, level, anchor = [], 0, None
    for i, x in enumerate(row.tolist()):
        if anchor is None:
            anchor = x
        elif not x >= anchor - pol.TIE:
            level, anchor = level + 1, x
        out.append(level)
        assert i == len(out) - 1
    return out


def test_levels_at_once_are_the_level_walks() -> None:
    """Runs of equal scores more than TIE apart: the levels at once are the walk's (the -inf tail aside, never a
    candidate); a chain of near ties (each neighbour within TIE, the ends not): None, the walk decides."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        n, width = int(rng.integers(1, 6)), int(rng.integers(1, 40))
        values = np.sort(rng.choice([0.0, 0.5, 1.0, 1.25, 3.0, -2.0], size=(n, width)), axis=1)[:, ::-1].copy()
        values[rng.random((n, width)) < 0.1] = -np.inf
        ranked = -np.sort(-values, axis=1)
        got = pol._windows(ranked)
        assert got is not None
        for r in range(n):
            finite = np.isfinite(ranked[r])
            assert got[r][finite].tolist() == [v for v, f in zip(naive_levels(ranked[r]), finite, strict=True) if f]
    chain = np.array([[1.0, 1.0 - 0.6 * pol.TIE, 1.0 - 1.2 * pol.TIE, 0.0]])
    assert pol._windows(chain) is None
    assert naive_levels(chain[0]) == [0, 0, 1, 2]  # why: the third is within TIE of the second, not of the first


class _Scored(pol.Weighted):
    weights: ClassVar[dict[str, float] | None] = {"damage": 1.0}

    def __init__(self, score: np.ndarray, owner: np.ndarray, index: np.ndarray) -> None:
        super().__init__()
        self._s = (score, owner, index)

    def scores(self, d: pol.Decision) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._s


@pytest.mark.parametrize("seed", range(6))
def test_a_weighted_choice_is_the_same_by_levels_at_once(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Random scores with ties, entries known refused (``open``) and refused on asking (``admits``): the choice by the
    levels at once is the level-by-level walk's (``_windows`` made to answer None), game for game, and it asks only
    about entries not known refused."""
    rng = np.random.default_rng(seed)
    n, units, size = 30, 3, 12
    width = units * size
    score = rng.choice([0.0, 1.0, 2.0, 2.5, -np.inf], size=(n, width), p=[0.3, 0.3, 0.2, 0.1, 0.1])
    owner = np.repeat(np.arange(units), size)
    index = np.tile(np.arange(size), units)
    known = rng.random((n, width)) < 0.5  # not known refused
    legal = known & (rng.random((n, width)) < 0.3)
    legal[:4] = False  # games with no legal entry: they Pass
    asked: list[tuple[int, int]] = []

    def admits(j: int, e: int, rows: np.ndarray) -> np.ndarray:
        c = j * size + e
        assert known[rows, c].all()
        asked.append((j, e))
        return legal[rows, c]

    d = pol.Decision(
        np.arange(n),
        list(range(units)),
        np.ones((n, units), dtype=bool),
        lambda j, rows: legal[rows][:, j * size : (j + 1) * size],
        admits,
        lambda j: tuple(range(size)),  # type: ignore[arg-type, return-value]
        lambda i, rows: np.linspace(0.01, 0.99, n)[rows],
        open=lambda j, rows: known[rows][:, j * size : (j + 1) * size],
    )
    policy_ = _Scored(score, owner, index)
    fast = policy_.choose(d)
    monkeypatch.setattr(pol, "_windows", lambda ranked: None)
    slow = policy_.choose(d)
    assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
    want = masked_choice(policy_, d)  # exact ties only: the masked reference's choice too
    assert np.array_equal(fast[0], want[0]) and np.array_equal(fast[1], want[1])
    assert (fast[0] >= 0).sum() > n // 3 and (fast[0] < 0).any()  # choices made, and Passes
    # near ties (chains): the level-by-level walk against its entry-by-entry form
    near = score + rng.choice([0.0, 0.4, 0.8, 1.2], size=score.shape) * pol.TIE
    chained = _Scored(near, owner, index)
    assert pol._windows(-np.sort(-near, axis=1)) is None
    got, ref = chained.choose(d), naive_level_walk(d, near, owner, index, known)
    assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])


def naive_level_walk(
    d: pol.Decision, score: np.ndarray, owner: np.ndarray, index: np.ndarray, known: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``Weighted.choose``'s level-by-level walk game by game, entry by entry (the reference)."""
    n = d.games.size
    unit = np.full(n, -1, dtype=np.int64)
    entry = np.full(n, -1, dtype=np.int64)
    u = d.draw(0, np.arange(n))
    for r in range(n):
        order = np.argsort(-score[r], kind="stable")
        ranked = score[r][order]
        k = 0
        while k < len(ranked) and np.isfinite(ranked[k]):
            level, cols = ranked[k], []
            while k < len(ranked) and np.isfinite(ranked[k]) and ranked[k] >= level - pol.TIE:
                c = int(order[k])
                if known[r, c] and d.admits(int(owner[c]), int(index[c]), np.array([r]))[0]:
                    cols.append(c)
                k += 1
            if cols:
                cols.sort()
                c = cols[min(int(u[r] * len(cols)), len(cols) - 1)]
                unit[r], entry[r] = owner[c], index[c]
                break
    return unit, entry


# ---------------------------------------------------------------- the feature tables
def naive_table(f: Features, u: int, phase: str, state: tuple[int, ...]) -> np.ndarray:
    """``Features._table`` as it was (entry by entry): the reference."""
    sim = f.sim
    n = sim.U
    pos, alive = state[:n], state[n : 2 * n]
    mark, shielded, control = state[2 * n : 3 * n], state[3 * n : 4 * n], state[4 * n :]
    p = f.player[u]
    menu = f.menus[sim.uids[u]][phase]
    enemies = [v for v in range(n) if f.player[v] != p and pos[v] >= 0 and alive[v] > 0]
    leads = {v: f._lead(v, pos[v]) for v in range(n) if pos[v] >= 0 and alive[v] > 0}
    here = leads.get(u, f.home[p])
    out = np.zeros((len(menu), len(COLUMNS)), dtype=float)
    ends = np.zeros((len(menu), 2), dtype=float)
    bare = np.zeros(len(menu), dtype=float)
    for i, e in enumerate(menu):
        end = here
        if e.to is not None:
            end = e.to
        elif e.action == "charge" and e.target is not None:
            end = leads.get(sim.uids.index(e.target), here)
        ends[i] = end
        if e.use:
            out[i, COL["spend"]] = f.spend(sim.uids[u], e.use)
        if e.action in ("shoot", "charge") and e.target is not None:
            t = sim.uids.index(e.target)
            if t in leads and u in leads and e.action == "shoot":  # each weapon in its Range (shotscore's tests)
                then = tuple(sim.uids.index(o) for o in e.then)
                out[i, DAMAGE : MODELS + 1] = f.shot(u, pos, alive, mark, shielded, (t, *then), e.use)
            elif t in leads and u in leads:
                out[i, DAMAGE : MODELS + 1] = f.attack(u, alive[u], t, alive[t], mark[t], shielded[t], "combat", e.use)
                if e.action == "charge":
                    out[i, DAMAGE : MODELS + 1] *= f._reach_p(u, pos[u], alive[u], pos[t], alive[t], e.use, 0.0)
        elif e.use and e.action in ("move", "hold") and u in leads:  # Stimpack (h-stim)
            out[i, DAMAGE : MODELS + 1], bare[i] = f.later(u, end, e.use, enemies, leads, alive, mark, shielded)
        elif e.action == "fight" and u in leads and enemies:
            t = min(enemies, key=lambda v: math.dist(here, leads[v]))
            out[i, DAMAGE : MODELS + 1] = f.attack(u, alive[u], t, alive[t], mark[t], shielded[t], "combat")
    covers = np.asarray([e.to for e in menu if e.to is not None and e.label.startswith("cover-")], dtype=float)
    if covers.size:
        near = np.hypot(*(ends[:, None, :] - covers.reshape(-1, 2)[None, :, :]).transpose(2, 0, 1)).min(axis=1)
        out[:, COL["cover"]] = near <= COVER_AT
    if alive[u] > 0:
        out[:, COL["threat"]] = naive_threat(f, u, ends, mark[u], enemies, leads, alive, shielded)
    if f.markers.size:
        gap = np.hypot(*(ends[:, None, :] - f.markers[None, :, :]).transpose(2, 0, 1))
        near = gap.argmin(axis=1)
        within = gap[np.arange(len(menu)), near] <= CONTEST_RANGE
        friends = [leads[v] for v in leads if v != u and f.player[v] == p]
        others = [any(math.dist(x, m) <= CONTEST_RANGE for x in friends) for m in f.markers.tolist()]
        for i, e in enumerate(menu):
            m = int(e.label.split("-")[1]) if e.label.startswith("marker-") else None
            idx = sim.marker_numbers.index(m) if m is not None else (int(near[i]) if within[i] else None)
            if idx is None or e.action in ("pass", "charge"):
                continue
            held = control[idx] == p
            if not held or not others[idx]:
                out[i, COL["marker"]] = f.worth[p, idx]
                # the race: the opponent holds it, or an enemy unit reaches within 3" of it by next Round's end
                mk = f.markers[idx].tolist()
                raced = any(math.dist(leads[v], mk) <= f.dash[v] + CONTEST_RANGE for v in enemies)
                if control[idx] == 1 - p or raced:
                    out[i, COL["deny"]] = f.worth[1 - p, idx]
            out[i, COL["take"]] = 0.0 if held else f.worth[p, idx]
        out[:, COL["marker"]] *= 1.0 - bare
        out[:, COL["take"]] *= 1.0 - bare
        out[:, COL["deny"]] *= 1.0 - bare
        free = np.asarray([c != p and not o for c, o in zip(control, others, strict=True)], dtype=bool)
        if free.any():
            ways = f.ways(u, ends, gap)  # along the way round the terrain (tests/test_ways.py)
            out[:, COL["marker_moves"]] = ways[:, free, 1].min(axis=1)
            out[:, COL["marker_gap"]] = ways[:, free, 0].min(axis=1)
    if enemies:
        them = np.asarray([leads[v] for v in enemies], dtype=float)
        out[:, COL["enemy_gap"]] = np.hypot(*(ends[:, None, :] - them[None, :, :]).transpose(2, 0, 1)).min(axis=1)
    return out


def naive_threat(
    f: Features,
    u: int,
    ends: np.ndarray,
    mark_u: int,
    enemies: list[int],
    leads: dict[int, tuple[float, float]],
    alive: tuple[int, ...],
    shielded: tuple[int, ...],
) -> np.ndarray:
    """``Features.threat`` as it was (enemy by enemy): the reference."""
    sim = f.sim
    worth = float(sim.supply(u, np.asarray([sim.full[u]]))[0])
    out = np.zeros(len(ends), dtype=float)
    for v in enemies:
        rng, charge = f.reach[v]
        gap = np.hypot(*(ends - np.asarray(leads[v])).T)
        ranged = f.attack(v, alive[v], u, alive[u], mark_u, shielded[u], "assault")[2] * worth
        melee = f.attack(v, alive[v], u, alive[u], mark_u, shielded[u], "combat")[2] * worth
        speed = f.fast[v]
        hits = np.where(gap <= speed + rng, ranged, 0.0)
        if charge:
            hits = np.maximum(hits, np.where(gap <= speed + CHARGE_REACH, melee, 0.0))
        out += hits
    return out


@pytest.mark.parametrize(
    ("red", "blue"), [("objective", "random"), ("aggressive", "cautious"), ("cautious", "aggressive")]
)
def test_feature_tables_are_the_entry_by_entry_ones(tmp_path: Path, red: str, blue: str) -> None:
    """Every table the weighted players read in 4 games of 3 Rounds (every Phase, units on and off the table, Shoots,
    Charges and Fights scored; objective, aggressive and cautious weights) is the entry-by-entry loop's, bit for bit:
    the end-point geometry read once per menu and point (``fastfeatures.Ends``), the enemies' numbers memoised
    (``Features.threat``), the attacks' parts memoised apart (``fastfeatures.Resolver``). A Reaction's table of
    entries given (``Features.table_of``: nothing of the menu memoised) is the same loop's too."""
    sim = Simulation(scenario(tmp_path, red=red, blue=blue, length=3), 4, 8)
    sim.run()
    tables, phases = 0, set()
    for auto in sim.players:
        assert isinstance(auto, Auto)
        feats = auto._features
        if feats is None:
            continue
        for (u, phase, state), table in list(feats._rows.items()):
            want = naive_table(feats, u, phase, state)
            assert np.array_equal(table, want), (u, phase)
            entries = tuple(feats.menus[sim.uids[u]][phase])
            assert np.array_equal(feats.table_of(u, phase, state, entries), want), (u, phase)
            phases.add(phase)
            tables += 1
        assert any(t[:, DAMAGE].any() for t in feats._rows.values())  # attacks scored: not a vacuous comparison
        assert any(t[:, COL["threat"]].any() for t in feats._rows.values())
    assert tables > 20 and phases >= {"movement", "assault"}


def test_feature_tables_are_the_same_with_the_memos_cleared(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """Memos cleared past one answer (``fastfeatures``' limits): the tables are the loop's all the same (the memos
    only save work)."""
    from mathhammer.scenario.players import fastfeatures

    monkeypatch.setattr(fastfeatures, "EXACT_LIMIT", 1)
    monkeypatch.setattr(fastfeatures, "POINTS_LIMIT", 1)
    sim = Simulation(scn, 2, 9)
    sim.run()
    auto = sim.players[0]
    assert isinstance(auto, Auto) and auto._features is not None
    feats = auto._features
    assert len(feats._rows) > 10
    for (u, phase, state), table in list(feats._rows.items()):
        assert np.array_equal(table, naive_table(feats, u, phase, state)), (u, phase)


def test_exact_answers_are_memoised_by_content(scn: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact engine's answer of an attack (``fastfeatures.exact_outcomes``) is ``exact_states``' own, and a
    second Simulation's Features (the same games) reuse the first's answers (keyed by the frozen Batches and Target:
    the same question, the same answer): none is computed again."""
    from mathhammer.scenario.players import fastfeatures
    from mathhammer.starcraft.compiled import compile_attack
    from mathhammer.starcraft.model import Attack

    calls: list[int] = []
    real = fastfeatures.exact_states

    def counted(compiled: Any, tc: Any) -> Any:
        calls.append(1)
        return real(compiled, tc)

    monkeypatch.setattr(fastfeatures, "exact_states", counted)
    fastfeatures._EXACT.clear()
    Simulation(scn, 2, 3).run()
    first = len(calls)
    assert first > 5 and len(fastfeatures._EXACT) == first
    Simulation(scn, 2, 3).run()
    assert len(calls) == first  # every attack of the second run was known by content
    for (batches, target), got in list(fastfeatures._EXACT.items())[:20]:
        assert got == tuple(real(*compile_attack(Attack(batches, target))).items())
