"""The Move, Run and Hold verdicts read without the plan walk (scenario/players/moveverdicts.py) held to the walk: in
the states of random games (several deployment cards and presets; Terran, Zerg with Creep, Protoss lists), every
entry they answer is answered the same by ``scenario check``'s walk (8.5.2: an Engaged unit cannot Move or Run; 8.5.3:
the way round the terrain at most Speed, not ending on terrain, on a base or Within 1" of an enemy, the unit set In
Coherency at the point; a Hold on the table); and the legality's masks are the same with and without them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario import sim_move
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.players.moveverdicts import MoveVerdicts, on_table
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import PLAYERS, Activation
from mathhammer.scenario.world import World
from tests.autoplay_kit import VILE, ZEALOTS, data, masks_alike

ROOT = Path(__file__).resolve().parents[1]
SIX = (str(ROOT / "profiles" / "armies" / "terran_six.toml"), str(ROOT / "profiles" / "armies" / "zerg_six.toml"))
PROTOSS = str(ROOT / "profiles" / "armies" / "daelaam_vanguard.toml")


def _reason(errors: list[str]) -> str:
    """The walk's first refusal of a Move or Run, named."""
    text = " ".join(errors)
    if "is Engaged" in text:
        return "engaged"
    if "Leading Model's point" in text:
        return "level"
    if "around the terrain" in text:
        return "around"
    if "Speed is" in text:
        return "far"
    return "room"


def each_state(sim: Simulation, visit: Callable[[Legality, str, tuple[int, ...], int], None]) -> None:
    """Run ``sim``; before each activation, ``visit(legality, phase, state, u)`` for every unit ``u`` on the table in
    each live game's state (a fresh ``Legality`` per activation: no memo)."""
    apply = sim.activate
    n = sim.U

    def judged(act: Activation, games: np.ndarray) -> None:
        auto = sim.players[PLAYERS.index(act.player)]
        assert isinstance(auto, Auto)
        leg = Legality(sim, auto.legality.menus)
        table, _ = leg.states(games[~sim.over[games]])
        for state in table:
            for u in range(n):
                if state[u] >= 0 and state[n + u] > 0:
                    visit(leg, act.phase, state, u)
        apply(act, games)

    sim.activate = judged  # type: ignore[method-assign]
    sim.run()


def states_at_random(
    sim: Simulation, leg: Legality, seed: int, count: int, spread: float, skip: float
) -> Iterator[tuple[list[int], list[int], tuple[int, ...]]]:
    """``count`` states drawn from ``seed``: each unit (but a share ``skip``) set near a menu's Move point picked at
    random (``spread``: the deviation, inches), models left at random, a base Within 1" of an enemy set as a Charge
    sets it; the walk's Creep Tumors set at random (one near the point, or none) before each is yielded (placements,
    models left, the state row with Grass mask 0)."""
    scn, world, n = sim.scn, sim.world, sim.U
    rng = np.random.default_rng(seed)
    points = [e.to for menu in leg.menus.values() for e in menu["movement"] if e.action == "move" and e.to is not None]
    for _ in range(count):
        pos, alive = [-1] * n, [0] * n
        hub = points[int(rng.integers(len(points)))]
        for v, vid in enumerate(sim.uids):
            if rng.random() < skip:
                continue
            su = scn.units[vid]
            at = (hub[0] + float(rng.normal(0, spread)), hub[1] + float(rng.normal(0, spread)))
            rear = world.rear_of(su.player)
            # a base Within 1" of an enemy (a Charge's end) is set as a Charge sets it
            foes = tuple(scn.units[world.placements[p].unit].id for p in pos if p >= 0)
            pid = world.place(su, at, rear, tuple(p for p in pos if p >= 0), foes)
            if pid is not None:
                pos[v], alive[v] = pid, int(rng.integers(1, su.models + 1))
        tumors = leg.check.tumors  # the walk's Creep Tumors (none in a game: the menus' uses set none)
        tumors[:] = [((hub[0] + float(rng.normal(0, 5)), hub[1] + float(rng.normal(0, 5))), "blue")]
        if rng.random() < 0.5:
            tumors.clear()
        yield pos, alive, (*pos, *alive, 0)


def _held(sim: Simulation, counts: dict[str, int]) -> None:
    """Before each activation of ``sim``: every entry of every unit on the table in each live game's state that
    :class:`MoveVerdicts` answers (a fresh one: no memo) and no shortcut refuses (where ``Legality`` asks it) has the
    walk's verdict (``Legality.walked``), counted by kind and the walk's reason."""
    n = sim.U

    def visit(leg: Legality, phase: str, state: tuple[int, ...], u: int) -> None:
        fast = MoveVerdicts(sim, leg.menus, leg.check)
        menu = leg.menus[sim.uids[u]]
        cut = leg.shortcuts(u, phase, state)  # asked only where no shortcut refuses (``Legality._walk``)
        for i, e in enumerate(menu[phase]):
            if cut[i]:
                continue
            got = fast.verdict(u, phase, i, state)
            if got is None:
                counts["walk"] += e.action in ("move", "run", "hold")
                continue
            walked = leg.walked(u, phase, i, state)
            assert got == walked, (menu.unit, e, state)
            if e.action == "hold":
                counts["hold"] += 1
                continue
            if got:
                counts["admitted"] += 1
                continue
            whole = e.activation(menu.unit, menu.player, sim.round, phase)
            errors = leg.check.problems_of(whole, list(state[:n]), list(state[n : 2 * n]), state[2 * n])
            counts[_reason(errors)] += 1
            plain = fast.plain(u, phase, i)
            assert plain is not None
            counts["creep"] += plain[4][0] != plain[4][1]

    each_state(sim, visit)


def _scenario(folder: Path, card: str, preset: str, red: str | None, blue: str | None, length: int = 2) -> Any:
    """The kit's scenario (``length`` Rounds) on ``card``'s ``preset``, with the army lists ``red`` and ``blue`` (paths
    or list texts; None: the kit's)."""
    table: dict[str, Any] = data(folder, length=length)
    table["deployment"] = {"card": card}
    table["terrain"] = f"preset:{preset}"
    for side, army in (("red", red), ("blue", blue)):
        if army is not None and not army.endswith(".toml"):
            path = folder / f"{side}_list.toml"
            path.write_text(army)
            army = str(path)
        if army is not None:
            table["players"][side]["army"] = army
    return parse_scenario(table, "moves.toml", folder)


@pytest.mark.parametrize(
    ("card", "preset", "red", "blue", "trials", "seed"),
    [
        ("Gauntlet", "standard", *SIX, 3, 5),  # the lists
        ("Frontier", "standard", None, None, 4, 7),  # the kit's Marines, Marauders against Zerglings, Roaches
        ("Breach", "standard", ZEALOTS, VILE, 4, 5),  # Protoss against Zerg with Accelerating Creep
        ("Gauntlet", "standard", PROTOSS, SIX[1], 3, 9),
    ],
)
def test_move_run_hold_verdicts_are_the_walks(
    tmp_path: Path, card: str, preset: str, red: str | None, blue: str | None, trials: int, seed: int
) -> None:
    """8.5.2-8.5.3: in the states of random games, each verdict given without the walk is the walk's; Moves and Runs
    admitted and refused (Engaged, no room or Within 1" of an enemy, beyond Speed), Holds judged."""
    scn = _scenario(tmp_path, card, preset, red, blue)
    counts = dict.fromkeys(("hold", "admitted", "engaged", "level", "far", "around", "room", "walk", "creep"), 0)
    _held(Simulation(scn, trials, seed), counts)
    assert counts["hold"] > 20 and counts["admitted"] > 50 and counts["room"] + counts["engaged"] > 5, counts


def test_moves_round_the_terrain_are_read_as_the_walk_reads_them(tmp_path: Path) -> None:
    """8.5.3 ("Measure the actual path travelled"; "cannot move through terrain of Size 2 or larger"): on the kit's
    Frontier board, Moves and Runs refused for the way round the terrain (the straight line within Speed) occur in
    random games, and their verdicts are the walk's."""
    scn = _scenario(tmp_path, "Frontier", "standard", None, None)
    counts = dict.fromkeys(("hold", "admitted", "engaged", "level", "far", "around", "room", "walk", "creep"), 0)
    _held(Simulation(scn, 4, 7), counts)
    assert counts["around"] > 0, counts


def test_the_legality_is_the_same_without_the_move_verdicts(tmp_path: Path) -> None:
    """``Legality.mask`` with the Move, Run and Hold verdicts == with every entry judged by the walk, before each
    activation of two random games of 2 Rounds (the issue's lists)."""
    scn = _scenario(tmp_path, "Gauntlet", "standard", *SIX)

    def switch_off(leg: Legality) -> None:
        leg.moves.verdict = lambda *a: None  # type: ignore[method-assign]

    assert masks_alike(Simulation(scn, 2, 13), switch_off) > 50


@pytest.mark.parametrize(("card", "red", "blue"), [("Gauntlet", *SIX), ("Frontier", ZEALOTS, VILE)])
def test_move_verdicts_among_bases_set_at_random(tmp_path: Path, card: str, red: str, blue: str) -> None:
    """8.5.2 (an Engaged unit cannot Move or Run) and 8.5.3 (not ending on a base or Within 1" of an enemy; the way
    at most Speed): states with the units set at random near the menus' Move points, models left at random, and Creep
    Tumors at random (Accelerating Creep: BUFF Speed ON CREEP, read by the cards' ``on_creep`` hook as the walk reads
    it): each verdict given without the walk where no shortcut refuses is the walk's, and each reason occurs
    (Engaged, no room, beyond Speed, admitted; a verdict that ON CREEP changes)."""
    scn = _scenario(tmp_path, card, "standard", red, blue)
    sim = Simulation(scn, 1, 3)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    leg = Legality(sim, auto.legality.menus)
    counts = dict.fromkeys(("hold", "admitted", "engaged", "level", "far", "around", "room", "walk", "creep"), 0)
    tumors = leg.check.tumors
    for pos, alive, state in states_at_random(sim, leg, 29, 60, 4.0, 0.2):
        for u, uid in enumerate(sim.uids):
            if pos[u] < 0:
                continue
            menu = leg.menus[uid]
            for phase in ("movement", "assault"):
                cut = leg.shortcuts(u, phase, state)
                for i, e in enumerate(menu[phase]):
                    got = None if cut[i] else leg.moves.verdict(u, phase, i, state)
                    if got is None or e.action == "hold":
                        continue
                    assert got == leg.walked(u, phase, i, state), (uid, e, state)
                    if tumors:
                        kept = list(tumors)
                        tumors.clear()
                        counts["creep"] += leg.moves.verdict(u, phase, i, state) != got
                        tumors[:] = kept
                    if got:
                        counts["admitted"] += 1
                    else:
                        whole = e.activation(menu.unit, menu.player, 1, phase)
                        counts[_reason(leg.check.problems_of(whole, pos, alive, 0))] += 1
    assert min(counts["admitted"], counts["engaged"], counts["far"], counts["room"]) > 5, counts
    assert counts["creep"] > 0, counts


#: a Grass band across the middle of the table (part 11 GRASS: it blocks Line of Sight, not movement; removed where a
#: unit crosses it), so the engine's Engaged words are read with Grass on
BAND = {"id": "band", "footprint": [[0, 21.9], [44, 21.9], [44, 22.1], [0, 22.1]], "size": 2, "grass": True}


@pytest.mark.parametrize(
    ("card", "preset", "red", "blue", "trials", "seed"),
    [
        ("Gauntlet", "standard", *SIX, 40, 5),  # the lists
        ("Frontier", "standard", None, None, 40, 7),  # the kit's Marines, Marauders against Zerglings, Roaches
        ("Gauntlet", "grass", *SIX, 40, 3),  # a Grass band: the engine's words read with Grass on
    ],
)
def test_engaged_read_from_a_game_of_the_state_is_the_worlds(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    card: str,
    preset: str,
    red: str | None,
    blue: str | None,
    trials: int,
    seed: int,
) -> None:
    """8.5.2, 8.7.7 (an Engaged unit cannot Move, Run or Charge; 7.2.1 on the models left): within an automatic
    player's decision, the Move verdicts read whether a unit is Engaged from a game of the state (the engine's words,
    ``SimView.engaged_one``, or ``engaged_mask`` of every state's game at once in a decision of many states); in random
    games of 5 Rounds that answer is ``World.unit_engaged``'s on the state, the game is in that state, and both answers
    occur, units short of models among them."""
    if preset == "grass":
        table: dict[str, Any] = data(tmp_path, length=5)
        table["deployment"] = {"card": card}
        table["terrain"] = [BAND]
        for side, army in (("red", red), ("blue", blue)):
            table["players"][side]["army"] = army
        scn = parse_scenario(table, "moves.toml", tmp_path)
    else:
        scn = _scenario(tmp_path, card, preset, red, blue, length=5)
    sim = Simulation(scn, trials, seed)
    n = sim.U
    counts = dict.fromkeys(("engaged", "free", "short", "grass", "outside"), 0)
    read = MoveVerdicts.engaged_in

    def checked(self: MoveVerdicts, u: int, state: tuple[int, ...], world: Any) -> Any:
        got = read(self, u, state, world)
        g = self._game(state)
        if g is None:
            counts["outside"] += 1
            return got
        gone = int(sim.grass.gone[g]) if sim.grass.gone.size else 0
        assert (*sim.pos[:, g].tolist(), *sim.alive[:, g].tolist(), gone) == state
        assert got == world.unit_engaged(*on_table(state, n), u), (u, state)
        counts["engaged" if got else "free"] += 1
        counts["short"] += got and any(0 < k < f for k, f in zip(state[n : 2 * n], sim.full.tolist(), strict=True))
        counts["grass"] += sim.grass.on
        return got

    monkeypatch.setattr(MoveVerdicts, "engaged_in", checked)
    sim.run()
    assert counts["engaged"] > 3 and counts["free"] > 100 and counts["short"] > 0, counts
    assert preset != "grass" or counts["grass"] > 100, counts


def _played(sim: Simulation) -> tuple[np.ndarray, ...]:
    """The arrays a run leaves: VP, models left, Damage Markers, and each unit's placement by where its models stand."""
    sim.run()
    cells = [sim.world.placements[p].centres if p >= 0 else None for p in sim.pos.ravel().tolist()]
    ids = {c: i for i, c in enumerate(dict.fromkeys(cells))}
    return sim.vp, sim.alive, sim.mark, np.array([ids[c] for c in cells]).reshape(sim.pos.shape)


@pytest.mark.parametrize(("card", "red", "blue", "seed"), [("Gauntlet", *SIX, 5), ("Frontier", None, None, 7)])
def test_a_unit_set_in_one_game_alone_is_set_as_the_split_by_near_units_sets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, card: str, red: str | None, blue: str | None, seed: int
) -> None:
    """8.5.3 (In Coherency at the point, not on a base nor Within 1" of an enemy): a unit set in one game alone, or in a
    few (``sim_move.FEW_GAMES``), is set with every other unit's placement in each game (``World.place_among``, which a
    Move verdict read first) instead of split by the units near its Leading Model (``sim_move.ONE_GAME`` off): 40
    random games of 5 Rounds end the same, placements, models, Damage Markers and VP, with hundreds of units set that
    way. Each such setting is compared where it is made: the unit's models in each game of the call, the few games of
    one call set at different places in some calls."""
    scn = _scenario(tmp_path, card, "standard", red, blue, length=5)
    calls = {"n": 0, "depth": 0}
    among = World.place_among
    free_place, move_to = sim_move.Movement._free_place, sim_move.Movement.move_to
    settings: list[list[tuple[int, tuple[int, ...], tuple[object, ...]]]] = []

    def counted(self: World, *a: Any) -> Any:
        calls["n"] += 1
        return among(self, *a)

    def recorder(how: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        # each setting where it is made: a Move's games together (a few games are set in one pass, not per placement
        # the unit left), a Deploy's and any other
        def recorded(self: Simulation, u: int, trials: np.ndarray, *a: Any, **k: Any) -> np.ndarray:
            calls["depth"] += 1
            try:
                got = how(self, u, trials, *a, **k)
            finally:
                calls["depth"] -= 1
            if calls["depth"] == 0:
                at = tuple(self.world.placements[p].centres if p >= 0 else None for p in self.pos[u, trials].tolist())
                settings[-1].append((u, tuple(trials.tolist()), at))
            return got

        return recorded

    monkeypatch.setattr(World, "place_among", counted)
    monkeypatch.setattr(sim_move.Movement, "_free_place", recorder(free_place))
    monkeypatch.setattr(sim_move.Movement, "move_to", recorder(move_to))
    settings.append([])
    alone = _played(Simulation(scn, 40, seed))
    with_alone = calls["n"]
    monkeypatch.setattr(sim_move, "ONE_GAME", False)
    settings.append([])
    split = _played(Simulation(scn, 40, seed))
    for a, b in zip(alone, split, strict=True):
        assert np.array_equal(a, b)
    assert settings[0] == settings[1]
    few = [at for _, ts, at in settings[0] if 1 < len(ts) <= sim_move.FEW_GAMES]
    assert sum(len(set(at)) > 1 for at in few) >= 1, len(few)
    verdicts = calls["n"] - with_alone  # the second run's calls: the verdicts' alone (the same in both runs)
    assert with_alone - verdicts > 300, (with_alone, verdicts)
