"""The fast readings of the automatic players' legality (scenario/players/legal.py, auto.py) held to the plan check:
every shortcut (a unit in Reserves only Deploys and one on the table never does, 8.5.5; a Move or Run point beyond
any Speed in a straight line, 8.5.3; a Shoot target out of every Batch's Range or LONG RANGE, 8.7.3 step 1; a Charge
target beyond Speed + 6 + its additions, 8.7.7; a Shoot or Charge target not on the table) gives the check's own
answer in the states of random games; the per-decision state table and the runs of draws give the same answers and
numbers as the one-by-one reads."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from mathhammer.board.model import MM_PER_INCH
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto, EntryLegality, uniforms_of
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.players.policies import Decision
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.sim_state import uniforms
from mathhammer.scenario.spec import PLAYERS, Activation, Scenario
from tests.autoplay_kit import data, scenario


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return scenario(tmp_path_factory.mktemp("autoplay-fast"), length=3)


def run_looking(sim: Simulation, look: Callable[[Activation, np.ndarray, Auto], None]) -> None:
    """Play ``sim``'s games, calling ``look(act, games, auto)`` before each activation (``auto``: the acting player)."""
    apply = sim.activate

    def judged(act: Activation, games: np.ndarray) -> None:
        auto = sim.players[PLAYERS.index(act.player)]
        assert isinstance(auto, Auto)
        look(act, games, auto)
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()


def test_every_entry_is_the_checks_answer_in_random_games(scn: Scenario) -> None:
    """Before each activation of two random games (3 Rounds), every entry of every unit of the Phase's menu in each
    live game: ``Legality.entry`` (shortcuts first) == the plan check's walk alone (``_CheckAt.problems_of``, no
    shortcut). Each shortcut decides at least once (the test would not notice a shortcut never taken)."""
    sim = Simulation(scn, 2, 3)
    apply = sim.activate
    compared = {"shortcut": 0, "walk": 0}
    refused_by_kind: dict[str, int] = {}

    def judged(act: Activation, games: np.ndarray) -> None:
        auto = sim.players[PLAYERS.index(act.player)]
        assert isinstance(auto, Auto)
        leg = Legality(sim, auto.legality.menus)  # fresh: no memo
        leg.moves.verdict = lambda *a: None  # type: ignore[method-assign]  # the walk itself (test_autoplay_moveverdicts)
        leg.attacks.verdict = lambda *a: None  # type: ignore[method-assign]  # (test_autoplay_attackverdicts)
        leg.holds.applies = lambda *a: False  # type: ignore[method-assign]  # (test_autoplay_useholds)
        leg.holds.twin = lambda *a: None  # type: ignore[method-assign]
        walks = leg.check.problems_of
        calls = [0]

        def counted(*a: object) -> list[str]:
            calls[0] += 1
            return walks(*a)  # type: ignore[arg-type]

        leg.check.problems_of = counted  # type: ignore[method-assign]
        for g in games[~sim.over[games]].tolist():
            table, _ = leg.states(np.array([g]))
            state = table[0]
            gone = state[-1]
            for u, uid in enumerate(sim.uids):
                menu = leg.menus[uid]
                for i, e in enumerate(menu[act.phase]):
                    if e.action == "pass":
                        continue
                    calls[0] = 0
                    fast = leg.entry(u, act.phase, i, state)
                    took = calls[0] == 0
                    compared["shortcut" if took else "walk"] += 1
                    if took:
                        refused_by_kind[e.action] = refused_by_kind.get(e.action, 0) + 1
                        whole = e.activation(menu.unit, menu.player, sim.round, act.phase)
                        n = sim.U
                        errors = walks(whole, list(state[:n]), list(state[n : 2 * n]), gone)
                        assert not fast and errors, (e, g, "a shortcut admits nothing: it refuses what the check does")
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()
    assert compared["shortcut"] > 100 and compared["walk"] > 100
    assert {"move", "run", "deploy", "shoot", "charge", "hold"} <= set(refused_by_kind), refused_by_kind


def test_admits_with_the_decisions_state_table_is_admits_alone(scn: Scenario) -> None:
    """EntryLegality.admits given Legality.states of its games (as Auto.next passes it) == admits reading them itself
    == the mask's column, for every entry of every unit, in games in different states (after one Round)."""
    sim = Simulation(scn, 6, 8)
    sim.run()  # games end in different states
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    one = EntryLegality(sim, auto.legality.menus)
    other = EntryLegality(sim, auto.legality.menus)
    games = np.arange(sim.T)
    states = one.states(games)
    assert len(states[0]) > 1  # the games are in more than one state
    sim.new_phase(sim.round, "assault")
    for u, uid in enumerate(sim.uids):
        mask = Legality(sim, one.menus).mask(u, "assault", games)
        for i in range(len(one.menus[uid]["assault"])):
            a = one.admits(u, "assault", i, games, states)
            b = other.admits(u, "assault", i, games)
            assert np.array_equal(a, b) and np.array_equal(a, mask[:, i]), (uid, i)


def test_a_run_of_draws_is_the_same_numbers_as_draws_one_by_one() -> None:
    """uniforms_of (the policy's runs of draws at once) == sim_state.uniforms per draw, for large stream keys too."""
    trials = np.array([0, 1, 7, 99, 123_456_789])
    streams = [1, 3, 2**63 + 5, 12_345_678_901_234, (1 << 64) - 1]
    got = uniforms_of(11, streams, trials)
    for k, s in enumerate(streams):
        assert np.array_equal(got[k], uniforms(11, s, trials))


def test_open_entries_and_the_random_policy_with_and_without_them(scn: Scenario) -> None:
    """At every automatic decision of random games (3 Rounds): ``Legality.open`` is False only where ``admits`` refuses
    (every entry of every free unit, in every deciding game), it is False for some entries the row has not walked
    (the shortcuts prefilled: 8.5.5, 8.5.3, 8.7.3, 8.7.7), and ``random``'s choice with the Decision's ``open`` and
    runs of draws (``draws``) and its first admitted entries in one pass (``first``: ``Legality.first_admitted``) is
    its choice without ``first`` (``admits`` asked column by column) and without any of them (every entry asked in the
    shuffled order, draws one by one)."""
    sim = Simulation(scn, 4, 5)
    seen = {"decisions": 0, "closed": 0}
    for auto in sim.players:
        assert isinstance(auto, Auto)
        policy = auto.policy

        def both(d: Decision, policy: Any = policy, auto: Auto = auto) -> tuple[np.ndarray, np.ndarray]:
            assert d.open is not None and d.draws is not None
            fresh = Legality(sim, auto.legality.menus)  # no memo: the open rows from the shortcuts alone
            rows = np.arange(d.games.size)
            for j, u in enumerate(d.units):
                free = np.flatnonzero(d.free[:, j])
                if free.size == 0:
                    continue
                got = d.open(j, free)
                plain = fresh.open(u, auto.phase, d.games[free])
                seen["closed"] += int((~plain).sum())
                for e in range(got.shape[1]):
                    ok = d.admits(j, e, free)
                    assert not (ok & ~got[:, e]).any() and not (ok & ~plain[:, e]).any(), (u, e)
            seen["decisions"] += 1
            assert d.first is not None
            fast = policy.choose(d)
            loop = policy.choose(replace(d, first=None))  # admits asked column by column, entry by entry
            slow = policy.choose(replace(d, open=None, draws=None, first=None))
            for other in (loop, slow):
                assert np.array_equal(fast[0], other[0]) and np.array_equal(fast[1], other[1]), rows
            return fast

        auto.policy = SimpleNamespace(choose=both)  # type: ignore[assignment]
    sim.run()
    assert seen["decisions"] > 50 and seen["closed"] > 100, seen


def test_a_bounded_charge_search_gives_the_checks_verdict(scn: Scenario) -> None:
    """8.7.7: the legality's Charge walk (``bounded_charges``: the path searched only up to Speed + 6, an Engaged unit
    refused first) refuses exactly the Charges ``scenario check``'s unbounded walk refuses, before each activation of
    random games, for every Charge entry of every unit (both verdicts met, and the Engaged refusal)."""
    sim = Simulation(scn, 6, 7)
    verdicts = {"admitted": 0, "refused": 0, "engaged": 0}

    def judged(act: Activation, games: np.ndarray, auto: Auto) -> None:
        if act.phase == "assault":
            leg = Legality(sim, auto.legality.menus)
            check = leg.check
            for g in games[~sim.over[games]].tolist():
                state = leg.states(np.array([g]))[0][0]
                n = sim.U
                pos, alive, gone = list(state[:n]), list(state[n : 2 * n]), state[-1]
                for u, uid in enumerate(sim.uids):
                    menu = leg.menus[uid]
                    for e in menu["assault"]:
                        if e.action != "charge" or pos[u] < 0 or alive[u] <= 0:
                            continue
                        whole = e.activation(menu.unit, menu.player, sim.round, "assault")
                        check.bounded_charges = True
                        bounded = check.problems_of(whole, pos, alive, gone)
                        check.bounded_charges = False
                        full = check.problems_of(whole, pos, alive, gone)
                        assert bool(bounded) == bool(full), (uid, e.target, g, bounded, full)
                        verdicts["refused" if full else "admitted"] += 1
                        verdicts["engaged"] += any("Unengaged" in p for p in full)

    run_looking(sim, judged)
    assert min(verdicts.values()) > 0, verdicts


def test_a_walks_verdict_does_not_depend_on_the_walks_before(scn: Scenario) -> None:
    """The legality's plan-check walk is reused for every entry and state (``_CheckAt.problems_of``): each verdict,
    and the record of printed limits it leaves ("Once per Game", 10.1), is a fresh walk's, whatever was walked before
    (random games, every Movement and Assault Phase entry of the active unit, against a new check each time)."""
    sim = Simulation(scn, 2, 11)
    apply = sim.activate
    compared = 0

    def judged(act: Activation, games: np.ndarray) -> None:
        nonlocal compared
        auto = sim.players[PLAYERS.index(act.player)]
        assert isinstance(auto, Auto)
        if act.phase in ("movement", "assault") and compared < 400:
            leg = Legality(sim, auto.legality.menus)
            used = leg.check
            used.once = {("left", "by", "an earlier walk"): "Round 1"}
            for g in games[~sim.over[games]].tolist():
                state = leg.states(np.array([g]))[0][0]
                n = sim.U
                pos, alive, gone = list(state[:n]), list(state[n : 2 * n]), state[-1]
                menu = leg.menus[act.unit]
                for e in menu[act.phase]:
                    whole = e.activation(menu.unit, menu.player, sim.round, act.phase)
                    fresh = Legality(sim, auto.legality.menus).check
                    assert used.problems_of(whole, pos, alive, gone) == fresh.problems_of(whole, pos, alive, gone)
                    assert used.once == fresh.once
                    compared += 1
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()
    assert compared > 50, compared


def test_a_new_row_from_the_kept_shortcuts_is_the_row_made_afresh(scn: Scenario) -> None:
    """``Legality.rows`` starts a new row from the shortcuts' answer kept by what they read (the unit's and its aimed
    targets' placements and models: 8.5.5, 8.5.3's straight line, 8.7.3 and 8.7.7's gaps): before each activation of
    twenty random games, every unit's new row in each live game's state, made by one Legality that keeps those answers
    over the whole run, is the row a fresh Legality makes (its Deploy refusals included), and the kept answers are
    reused (the test would not notice a key that never repeats)."""
    sim = Simulation(scn, 20, 5)
    apply = sim.activate
    kept: dict[str, Any] = {}
    counts = {"rows": 0}

    def judged(act: Activation, games: np.ndarray) -> None:
        auto = sim.players[PLAYERS.index(act.player)]
        assert isinstance(auto, Auto)
        if "leg" not in kept:
            kept["leg"] = Legality(sim, auto.legality.menus)
        leg = kept["leg"]
        table, _ = leg.states(games[~sim.over[games]])
        for u in range(sim.U):
            fresh = Legality(sim, auto.legality.menus)
            leg._memo.clear()  # a new row each time: only the shortcuts' answers are kept
            got = leg.rows(u, act.phase, table)
            want = fresh.rows(u, act.phase, table)
            for a, b in zip(got, want, strict=True):
                assert np.array_equal(a, b), (sim.uids[u], act.phase)
            counts["rows"] += len(table)
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()
    leg = kept["leg"]
    assert counts["rows"] > 2 * len(leg._firsts), (counts, len(leg._firsts))


def test_the_shortcuts_of_many_states_are_each_states_own(scn: Scenario) -> None:
    """``Legality.shortcuts_many`` (one pass over a decision's new states, the least gaps by one compiled call) gives
    each state's row as read alone and by a naive reading: before each activation of forty random games, for every
    unit and the live games' states together, a Shoot or Charge entry is refused exactly where its target is off the
    table or its models left are all farther than the entry's reach, base edge to base edge (8.7.3 step 1, 8.7.7; the
    least centre distance by ``math.hypot`` less the two base radii), and every row equals the one-state reading. Each
    state is read after a copy of it with the unit off the table (the test would not notice a row read from another
    state's units)."""
    sim = Simulation(scn, 40, 7)
    seen = {"aimed": 0, "refused": 0, "mixed": 0}

    def judged(act: Activation, games: np.ndarray, auto: Auto) -> None:
        leg = Legality(sim, auto.legality.menus)
        table, _ = leg.states(games[~sim.over[games]])
        n, world = sim.U, sim.world
        for u, uid in enumerate(sim.uids):
            # each state after a copy with the unit off the table: rows of units off and on the table interleaved
            both = [v for s in table for v in ((*s[:u], -1, *s[u + 1 :]), s)]
            rows = leg.shortcuts_many(u, act.phase, both)
            for k, state in enumerate(both):
                assert np.array_equal(rows[k], leg.shortcuts(u, act.phase, state)), (uid, act.phase, k)
            many = rows[1::2]
            on = [s[u] >= 0 and s[n + u] > 0 for s in table]
            seen["mixed"] += len(set(on)) > 1
            aim = leg._aimed_reach(u, act.phase)
            for k, state in enumerate(table):
                if aim is None or not on[k]:
                    continue
                targets, entries, of, reach = aim
                mine = world.placements[state[u]].centres[: state[n + u]]
                for i, t, far in zip(entries.tolist(), of.tolist(), reach.tolist(), strict=True):
                    tu = targets[t]
                    if state[tu] < 0 or state[n + tu] <= 0:
                        want = True
                    else:
                        theirs = world.placements[state[tu]].centres[: state[n + tu]]
                        d = min(math.hypot(a[0] - b[0], a[1] - b[1]) for a in mine for b in theirs)
                        mm = sim.scn.units[uid].base_mm + sim.scn.units[sim.uids[tu]].base_mm
                        want = d - mm / MM_PER_INCH / 2 > far
                    assert bool(many[k, i]) == want, (uid, sim.uids[tu], act.phase, k)
                    seen["aimed"] += 1
                    seen["refused"] += want

    run_looking(sim, judged)
    assert seen["aimed"] > 1000 and 100 < seen["refused"] < seen["aimed"] - 100 and seen["mixed"] > 10, seen


SIX = tuple(
    str(Path(__file__).resolve().parents[1] / "profiles" / "armies" / f) for f in ("terran_six.toml", "zerg_six.toml")
)


def test_first_admitted_is_admits_column_by_column_in_the_issues_games(tmp_path: Path) -> None:
    """``Legality.first_admitted`` (``random``'s first legal entry in one pass) == ``admits`` asked column by column of
    the shuffled order, entry by entry (``Random.first_legal``'s loop), at every decision of random games of the
    issue's lists (Hold Position, Gauntlet, 3 Rounds), both players; a Deploy beyond the Available Supply refused in
    some (8.3.2, read per game) and entries using an ability read per game (10.5: Stimpack)."""
    table = data(tmp_path, length=3)
    table["deployment"] = {"card": "Gauntlet"}
    table["players"]["red"]["army"], table["players"]["blue"]["army"] = SIX
    sim = Simulation(parse_scenario(table, "six.toml", tmp_path), 24, 17)
    reads = {"deploy": 0, "deploy refused": 0, "use": 0}
    seen = {"decisions": 0}
    for auto in sim.players:
        assert isinstance(auto, Auto)
        leg, policy = auto.legality, auto.policy
        game_reads = leg.game_reads

        def counted(
            u: int, phase: str, index: int, games: np.ndarray, leg: Any = leg, game_reads: Any = game_reads
        ) -> Any:
            got = game_reads(u, phase, index, games)
            e = leg.menus[leg.view.uids[u]][phase][index]
            kind = "use" if e.use else e.action
            reads[kind] = reads.get(kind, 0) + got.size
            reads[f"{kind} refused"] = reads.get(f"{kind} refused", 0) + int((~got).sum())
            return got

        leg.game_reads = counted  # type: ignore[method-assign]

        def both(d: Decision, policy: Any = policy) -> tuple[np.ndarray, np.ndarray]:
            fast = policy.choose(d)
            loop = policy.choose(replace(d, first=None))
            assert np.array_equal(fast[0], loop[0]) and np.array_equal(fast[1], loop[1])
            seen["decisions"] += 1
            return fast

        auto.policy = SimpleNamespace(choose=both)  # type: ignore[assignment]
    sim.run()
    assert seen["decisions"] > 50 and reads["deploy refused"] > 0 and reads["use"] > 0, str((seen, reads))


def test_first_admitted_is_each_games_first_admitted_entry(scn: Scenario) -> None:
    """``Legality.first_admitted`` == per game, the first entry of its order (a stable sort of its keys) that ``maybe``
    leaves open and ``admits`` admits for that game alone (Pass never), for every unit and Phase in games in different
    states, with random keys (a third of them tied) and open masks; an ability's payment refused in the odd games
    (10.5, read per game) and the Fight of a unit not Engaged (8.8.1) each change some answer."""
    sim = Simulation(scn, 8, 21)
    sim.run()  # games end in different states
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    rng = np.random.default_rng(5)
    games = np.arange(sim.T)
    refused = {"use": 0, "fight": 0}
    for phase in ("movement", "assault", "combat"):
        sim.new_phase(sim.round, phase)
        for u, uid in enumerate(sim.uids):
            leg, naive = EntryLegality(sim, auto.legality.menus), EntryLegality(sim, auto.legality.menus)
            for each in (leg, naive):
                each.spending = SimpleNamespace(affords=lambda u, use, g: g % 2 == 0)  # type: ignore[assignment]
            entries = leg.menus[uid][phase]
            maybe = rng.random((games.size, len(entries))) < rng.uniform(0.2, 0.9, (games.size, 1))  # rows unalike
            keys = np.where(maybe, rng.random(maybe.shape), np.inf)  # the open entries first
            keys[:, ::3] = np.where(maybe[:, ::3], 0.0, np.inf)  # ties, tried first: the first of equal keys first
            order = np.argsort(keys, axis=1, kind="stable")
            got = leg.first_admitted(u, phase, games, leg.states(games), keys.copy(), maybe)
            for g in games.tolist():
                want = -1
                for e in order[g].tolist():
                    if maybe[g, e] and entries[e].action != "pass" and naive.admits(u, phase, e, games[g : g + 1])[0]:
                        want = e
                        break
                    if maybe[g, e] and entries[e].action in ("fight",) and sim.alive[u, g] > 0:
                        refused["fight"] += 1
                    if maybe[g, e] and entries[e].use and g % 2 and sim.alive[u, g] > 0:
                        refused["use"] += 1
                assert got[g] == want, (uid, phase, g)
    assert refused["use"] > 0 and refused["fight"] > 0, refused
