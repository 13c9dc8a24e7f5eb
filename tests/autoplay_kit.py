"""Small games for the automatic players' tests (tests/test_autoplay_*.py): two-unit army lists a side on the Frontier
card's preset (Skirmish), a short game, so a whole game with two random players takes about a second."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.spec import Scenario

RED = """name = "Two Terran units"
scale = "Skirmish"
faction = "Terran Armed Forces"
tactical = ["Barracks"]

[[units]]
unit = "Marine"
models = 6

[[units]]
unit = "Marauder"
models = 2
"""

BLUE = """name = "Two Zerg units"
scale = "Skirmish"
faction = "Kerrigan's Swarm"
tactical = ["Spawning Pool", "Accelerating Creep"]

[[units]]
unit = "Zergling"
models = 12

[[units]]
unit = "Roach"
models = 3
"""

#: Zealots with Zealous Round (Protoss card sheet, Zealot upgrade: a Reaction that counts the unit as Activated) and
#: without, and Stalkers; the Khalai Faction Card has no Reaction of its own (issue 29 point 2, h-zealous)
ZEALOTS = """name = "Zealots, Stalkers"
scale = "Skirmish"
faction = "Khalai"
tactical = ["Gateway"]

[[units]]
unit = "Zealot"
models = 3
upgrades = ["Zealous Round"]

[[units]]
unit = "Zealot"
models = 3

[[units]]
unit = "Stalker"
models = 2
"""

#: Stalkers and Zealots with the Overcharged Nexus (Photon Overcharge: HITS 3 (1) at an Enemy Unit entering from
#: Reserves elsewhere than its Entry Edge), against Marines that may enter by another edge (Barracks (Proxy): Armed
#: and Ready)
NEXUS = """name = "Stalkers, Zealots, Overcharged Nexus"
scale = "Skirmish"
faction = "Khalai"
tactical = ["Gateway", "Overcharged Nexus"]

[[units]]
unit = "Stalker"
models = 2

[[units]]
unit = "Zealot"
models = 3
"""

PROXY = """name = "Marines by another edge"
scale = "Skirmish"
faction = "Terran Armed Forces"
tactical = ["Barracks (Proxy)"]

[[units]]
unit = "Marine"
models = 6

[[units]]
unit = "Marine"
models = 6
"""

#: Vile Roaches (Debilitating Saliva: DEBUFF Hit (1) on the Ranged Weapons of an Enemy Unit Within 8" that declares a
#: Ranged Attack) and Hydralisks
VILE = """name = "Vile Roaches, Hydralisks"
scale = "Skirmish"
faction = "Kerrigan's Swarm"
tactical = ["Hydralisk Den", "Hatchery", "Accelerating Creep"]

[[units]]
unit = "Vile (Roach)"
models = 3

[[units]]
unit = "Hydralisk"
models = 2
"""

#: Zerglings with the Overseer (Pneumatized Carapace: a second D6 for a Friendly Unit's Charge Distance, the higher
#: used) and Zealots with the Observer (Gravitic Boosters: +1 to it): the Charge Roll Reactions
OVERSEER = """name = "Zerglings, Overseer"
scale = "Skirmish"
faction = "Kerrigan's Swarm"
tactical = ["Spawning Pool", "Overseer", "Accelerating Creep"]

[[units]]
unit = "Zergling"
models = 12
"""

OBSERVER = """name = "Zealots, Observer"
scale = "Skirmish"
faction = "Khalai"
tactical = ["Gateway", "Observer"]

[[units]]
unit = "Zealot"
models = 3
"""


def armies(folder: Path) -> tuple[Path, Path]:
    """The two army lists written into ``folder``."""
    red, blue = folder / "red_two.toml", folder / "blue_two.toml"
    red.write_text(RED)
    blue.write_text(BLUE)
    return red, blue


def data(folder: Path, red: str | None = "random", blue: str | None = "random", length: int = 3) -> dict[str, Any]:
    """A scenario table of the two lists (a player with ``None`` has no policy: scripted, by the file's rounds)."""
    a, b = armies(folder)
    players: dict[str, Any] = {"red": {"army": str(a)}, "blue": {"army": str(b)}}
    for side, name in (("red", red), ("blue", blue)):
        if name is not None:
            players[side]["policy"] = name
    return {
        "name": "two a side",
        "first_player": "roll-off",
        "mission": {"card": "Hold Position", "game_length": length},
        "deployment": {"card": "Frontier"},
        "terrain": "preset:standard",
        "players": players,
    }


def red_deploys(folder: Path, length: int = 2) -> dict[str, Any]:
    """A scenario table with red scripted (First Player, its two units deployed in Round 1) and blue random."""
    d = data(folder, red=None, length=length)
    d["first_player"] = "red"
    deploys = [
        {"unit": "marine-1", "action": "deploy", "to": [9, 3]},
        {"unit": "marauder-1", "action": "deploy", "to": [18, 3]},
    ]
    d["rounds"] = [{"round": 1, "red": {"movement": deploys}}]
    return d


def place(sim: Any, unit: str, at: tuple[float, float], games: Any, occupied: tuple[int, ...]) -> int:
    """Set ``unit`` of Simulation ``sim`` on the table in ``games``, its Leading Model at ``at`` and the formation
    facing its player's table edge, clear of the placements ``occupied``; returns the placement."""
    su = sim.scn.units[unit]
    rear = (at[0], 0.0) if su.player == "red" else (at[0], 36.0)
    pid = sim.world.place(su, at, rear, occupied)
    assert pid is not None, (unit, at)
    sim.set_pos(sim.uids.index(unit), games, pid)
    return int(pid)


def replays(table: dict[str, Any], scn: Scenario, played: Any, seed: int, g: int, folder: Path) -> Scenario:
    """The trace of game ``g`` (``played``: :func:`~mathhammer.scenario.players.trace.record` of it alone) of the
    scenario table ``table`` (parsed: ``scn``): ``scenario check`` accepts it (warnings aside) and it replays to the
    same game for seed ``seed``; returns it."""
    import numpy as np

    from mathhammer.scenario import check_scenario
    from mathhammer.scenario.players.trace import trace_data
    from mathhammer.scenario.sim import Simulation

    trace = parse_scenario(trace_data(table, played), "trace.toml", folder)
    assert [p for p in check_scenario(trace) if not p.startswith("warning")] == []
    sim, again = Simulation(scn, 1, seed, offset=g), Simulation(trace, 1, seed, offset=g)
    sim.run()
    again.run()
    for a, b in zip(sim.snapshots, again.snapshots, strict=True):
        for k in a:
            assert np.array_equal(a[k], b[k]), k
    return trace


def declared(scn: Scenario, use: str, seed: int, n: int) -> tuple[int, Any]:
    """A game of ``scn`` (seed ``seed``) where Reaction ``use`` was declared on an activation that was not void (a
    Charge too short is written as a Hold), found in a batch of ``n`` games then recorded alone (the same game
    whatever the grouping): its number and :func:`~mathhammer.scenario.players.trace.record` of it."""
    return first_game(scn, seed, n, lambda a: any(rx.use == use for rx in a.react), use)


def first_game(scn: Scenario, seed: int, n: int, wanted: Any, what: str = "one") -> tuple[int, Any]:
    """The first game of ``scn`` (seed ``seed``, games 0 to ``n - 1``) with an activation ``wanted(act)`` that was
    not void, and :func:`~mathhammer.scenario.players.trace.record` of it alone: the game a loop recording games 0,
    1, ... one by one would stop at, found by playing the ``n`` games as one batch (a game is the same alone or among
    others: tests/test_autoplay_game.py) and recording only the games where such an activation was applied, on the
    batch's World (``Simulation``'s ``world``, as a forked worker plays on the pilot's: the same games)."""
    import numpy as np

    from mathhammer.scenario.players.trace import record
    from mathhammer.scenario.sim import Simulation

    batch = Simulation(scn, n, seed)
    said: list[int] = []
    plain = batch.activate

    def activate(a: Any, gs: np.ndarray) -> None:
        if wanted(a):
            said.extend(gs.tolist())
        plain(a, gs)

    batch.activate = activate  # type: ignore[method-assign]
    batch.run()
    assert said, f"no game of {n} declared {what}"
    for g in sorted(set(said)):  # on the batch's World: its menus already built
        played = record(Simulation(scn, 1, seed, offset=g, world=batch.world))
        if any(wanted(s.act) for s in played.steps if not s.void):
            return g, played
    raise AssertionError(f"every activation with {what} was void")


def scenario(folder: Path, card: str | None = None, **kw: Any) -> Scenario:
    """The kit's scenario (:func:`data`'s arguments), on the Deployment Card ``card`` where given."""
    table = data(folder, **kw)
    if card is not None:
        table["deployment"] = {"card": card}
    return parse_scenario(table, "two.toml", folder)


def judged(sim: Any, act: Any, games: Any) -> tuple[Any, Any, list[int], Any]:
    """A fresh Legality's judgement (no memo) of automatic activation ``act`` about to be applied to ``games``: the
    games still playing, the mask of its unit's ``act.phase`` menu there, the menu columns that are ``act`` and the
    unit's index (tests/test_autoplay_game.py, tests/test_policies.py)."""
    import numpy as np

    from mathhammer.scenario.players.legal import Legality
    from mathhammer.scenario.spec import PLAYERS

    menus = sim.players[PLAYERS.index(act.player)]._menus
    assert menus is not None
    u = sim.uids.index(act.unit)
    cols = [
        i
        for i, e in enumerate(menus[act.unit][act.phase])
        if (e.action, e.to, () if e.target is None else (e.target,)) == (act.action, act.to, act.targets)
    ]
    live = games[~sim.over[games]]
    return live, np.asarray(Legality(sim, menus).mask(u, act.phase, live)), cols, u


def counted(name: str, scn: Scenario, trials: int, seed: int) -> Any:
    """The counter ``benchmarks/NAME.py`` loaded, with its ``patch()`` on while ``trials`` games of ``scn`` on seed
    ``seed`` are played (taken off after); returns the module, its counts kept (tests/test_move_*.py)."""
    import importlib.util

    from mathhammer.scenario.sim import Simulation

    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    off = mod.patch()
    try:
        Simulation(scn, trials, seed).run()
    finally:
        off()
    return mod


def before_each(sim: Any, judge: Any) -> None:
    """Make ``sim`` (automatic players) call ``judge(act, games, legality)`` before it applies each activation (its
    player's Legality); where ``judge`` returns a function, call it once the activation is applied."""
    from mathhammer.scenario.players.auto import Auto
    from mathhammer.scenario.spec import PLAYERS

    apply = sim.activate

    def judged(act: Any, games: Any) -> None:
        auto = sim.players[PLAYERS.index(act.player)]
        assert isinstance(auto, Auto)
        after = judge(act, games, auto.legality)
        apply(act, games)
        if after is not None:
            after()

    sim.activate = judged


def masks_alike(sim: Any, switch_off: Any) -> int:
    """Run ``sim`` (random players); before each activation, every unit's ``Legality.mask`` of the Phase in the live
    games == the mask of a Legality with ``switch_off(legality)`` applied (a fast reading switched off: the walk judges
    instead). Returns how many masks had a legal entry (test_autoplay_placings.py, test_autoplay_moveverdicts.py)."""
    import numpy as np

    from mathhammer.scenario.players.legal import Legality

    seen = [0]

    def judge(act: Any, games: Any, legality: Any) -> None:
        fast, slow = Legality(sim, legality.menus), Legality(sim, legality.menus)
        switch_off(slow)
        live = games[~sim.over[games]]
        for u in range(sim.U):
            a, b = fast.mask(u, act.phase, live), slow.mask(u, act.phase, live)
            assert np.array_equal(a, b), (sim.uids[u], act.phase)
            seen[0] += int(a.any())

    before_each(sim, judge)
    sim.run()
    return seen[0]
