"""Why an automatic game's placements do not repeat (issue 29 point 6, docs/dev/compiled-game-loop.md): counters
patched onto the engine while ``mathhammer game`` runs in this process.

For every game in which a Move or a Run sets a unit (``Movement.move_to``), the keys its placement is read from are
counted: (unit, point), (unit, point, rear: rounded where the activation has ``headings``), (unit, point, rear, the
other units' placements near the Leading Model: what ``World.place_near_lead`` keys on), (unit, point, rear, every
other unit's placement); how often the placement differs from the one with no other unit on the table; and what set
the placement the unit left (the action that set it: ``deploy``, ``move``, ``run``, ``charge``, ``close-ranks``,
...), with the rear's distinct values per such source. The plan walks (``Legality._walk``) and the MoveVerdicts
(``MoveVerdicts.verdict``) are counted by the keys they are read under today: (unit, entry, the unit's own placement
id), and the verdicts also by (unit, entry, the unit's Leading Model point). Prints one line per count.

    python benchmarks/count_formation_keys.py [--headings N] --trials 80 [any other ``mathhammer game`` options]

``--headings N`` (first): the menus' Move and Run entries round the rear to N headings instead of
``menu.HEADINGS`` (0: not at all, the games before the rounding).

The command is bench_game's (terran_six against zerg_six, Hold Position, Gauntlet, seed 1, random against random,
one process); options after the script's name are added to it.
"""

from __future__ import annotations

import collections
import contextlib
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mathhammer.scenario import sim as sim_mod
from mathhammer.scenario import sim_combat, sim_move
from mathhammer.scenario.players import legal, menu, moveverdicts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from count_move_tables import GAME, tagged

keys: dict[str, set[Any]] = collections.defaultdict(set)
count: collections.Counter[str] = collections.Counter()
made_by: dict[int, str] = {}  # placement id -> the action that first set a unit there
doing: list[str] = ["?"]


def _r(c: tuple[float, float]) -> tuple[float, float]:
    return (round(c[0], 3), round(c[1], 3))


def patch() -> None:
    move_to = sim_move.Movement.move_to

    def counted_move_to(
        self: Any, u: int, movers: np.ndarray, to: Any, act: Any, moving: bool = True, headings: int | None = None
    ) -> Any:
        world, su = self.world, self.units[u]
        before = {int(t): tuple(int(p) for p in self.pos[:, t]) for t in movers}
        got = move_to(self, u, movers, to, act, moving, headings)
        for t in got:
            pos = before[int(t)]
            old = pos[u]
            rear = _r(world.rear_from(old, to, headings))
            others = tuple(p for v, p in enumerate(pos) if v != u and p >= 0)
            near_test = world.lead_test(su, to)
            near = tuple(p for p in others if near_test(p))
            a = act.action
            count[f"{a} placements"] += 1
            keys[f"{a} (unit, to)"].add((u, to))
            keys[f"{a} (unit, to, rear)"].add((u, to, rear))
            keys[f"{a} (unit, to, rear, near)"].add((u, to, rear, near))
            keys[f"{a} (unit, to, rear, occupied)"].add((u, to, rear, others))
            keys[f"{a} (unit, from pid, to)"].add((u, old, to))
            src = made_by.get(old, "?")
            count[f"{a} from {src}"] += 1
            keys[f"{a} rear after {src}"].add((u, to, rear))
            new = int(self.pos[u, t])
            alone = world.place(su, to, world.rear_from(old, to, headings), ())
            if alone is None or world.placements[alone].centres != world.placements[new].centres:
                count[f"{a} differs from alone"] += 1
            keys[f"{a} resulting pid"].add(new)
        return got

    sim_move.Movement.move_to = counted_move_to  # type: ignore[method-assign]

    set_many = sim_mod.Simulation.set_pos_many

    def counted_set_many(self: Any, u: int, parts: Any) -> None:
        for _, pid in parts:
            if pid >= 0:
                made_by.setdefault(int(pid), doing[-1])
        set_many(self, u, parts)

    sim_mod.Simulation.set_pos_many = counted_set_many  # type: ignore[method-assign]

    sim_mod.Simulation.activate = tagged(sim_mod.Simulation.activate, lambda a: a[0].action, doing)  # type: ignore[method-assign]
    sim_combat.Combat.close_ranks = tagged(sim_combat.Combat.close_ranks, lambda a: "close-ranks", doing)  # type: ignore[method-assign]

    walk = legal.Legality._walk

    def counted_walk(self: Any, u: int, phase: str, index: int, state: Any, taken: bool = False) -> Any:
        a = self.menus[self.view.uids[u]][phase][index].action
        count[f"walk {a}"] += 1
        keys[f"walk {a} (unit, entry, own pid)"].add((u, phase, index, int(state[u])))
        return walk(self, u, phase, index, state, taken)

    legal.Legality._walk = counted_walk  # type: ignore[method-assign]
    legal.PLAIN_AT_ONCE = False  # every verdict through ``_walk`` (the same verdicts)

    verdict = moveverdicts.MoveVerdicts.verdict

    def counted_verdict(self: Any, u: int, phase: str, index: int, state: Any) -> Any:
        got = verdict(self, u, phase, index, state)
        if got is not None:
            a = self.menus[self.view.uids[u]][phase][index].action
            count[f"verdict {a}"] += 1
            keys[f"verdict {a} (unit, entry, own pid)"].add((u, phase, index, int(state[u])))
            if state[u] >= 0:
                lead = self.view.world.placements[int(state[u])].centres[0]
                keys[f"verdict {a} (unit, entry, own Leading Model)"].add((u, phase, index, lead))
        return got

    moveverdicts.MoveVerdicts.verdict = counted_verdict  # type: ignore[method-assign]


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--headings"]:  # the menus' Move and Run entries with another rounding (0: none, as before)
        menu.HEADINGS = int(args[1]) or None  # type: ignore[assignment]
        args = args[2:]
    patch()
    from mathhammer.cli import app

    sys.argv = ["mathhammer", *GAME, *args]
    with contextlib.redirect_stdout(None), contextlib.suppress(SystemExit):
        app()
    for name in sorted(count):
        print(f"{name}: {count[name]}")
    for name in sorted(keys):
        print(f"distinct {name}: {len(keys[name])}")


if __name__ == "__main__":
    main()
