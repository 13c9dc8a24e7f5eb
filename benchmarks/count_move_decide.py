"""The Move/Run verdicts decided from arrays with the other units (``scenario/players/movedecide.py``,
``MoveDecider.decide``) held to the walk's answer on every Move/Run verdict random games ask (issue 29 point 6, step
2 of docs/dev/compiled-game-loop.md), and its CPU against the current path's (``MoveVerdicts.verdict``).

While ``mathhammer game`` runs in this process, every Move and Run verdict the legality computes beyond its shortcuts
(``Legality._walk``: plain ones answered by ``MoveVerdicts.verdict``, the others by the walk) is kept with its state
and answer; the tables are built when the first automatic player's legality is (``build_tables``). After the game:

* **decided**: each verdict's state given to ``decide`` alone (one game), per kind the share decided (not MISS), the
  contradictions (a decision that is not the walk's answer: must be 0), the MISS classes; the same with the coarser
  test of the other units (``formation=False``: the grid's reach, ``[grid reach]``);
* **batch**: the verdicts grouped per entry (unit, Phase, entry), each group one ``decide`` call over its states: the
  same answers as one by one (counted), and the CPU seconds (``time.process_time``) of the whole pass on a fresh
  decider (its per-placement tables empty: every pair filled once) and again warm, alternately with the current path
  (a fresh ``MoveVerdicts``, one ``verdict`` per state) over the same verdicts, ``--rounds`` times each. The World's
  own memo is warm for both (the game filled it).

The game's JSON (keys sorted) is hashed: the readers change no game.

    python benchmarks/count_move_decide.py --trials 80 [--rounds 3] [any other ``mathhammer game`` options]
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mathhammer.scenario.players import legal
from mathhammer.scenario.players.movedecide import ADMIT, DECIDED, MISS, MISS_NAMES, MoveDecider
from mathhammer.scenario.players.movetables import build_tables
from mathhammer.scenario.players.moveverdicts import MoveVerdicts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from count_move_tables import run

#: per Legality: (the Legality, its decider, the verdicts asked: (u, phase, index, state, walk's answer, kind))
seen: dict[int, tuple[Any, MoveDecider, list[tuple[int, str, int, tuple[int, ...], bool, str]]]] = {}
build_cpu: list[float] = []
live_state: collections.Counter[str] = collections.Counter()


def patch() -> Callable[[], None]:
    """Keep every Move/Run verdict ``Legality._walk`` computes (and build each Legality's tables and decider); returns
    the call that takes the patch off again."""
    init = legal.Legality.__init__

    def built(self: Any, view: Any, menus: Any) -> None:
        init(self, view, menus)
        t0 = time.process_time()
        seen[id(self)] = (self, MoveDecider(build_tables(self), self), [])
        build_cpu.append(time.process_time() - t0)

    legal.Legality.__init__ = built  # type: ignore[method-assign]
    walk = legal.Legality._walk

    def kept(self: Any, u: int, phase: str, index: int, state: Any, taken: bool = False) -> Any:
        got = walk(self, u, phase, index, state, taken)
        e = self.menus[self.view.uids[u]][phase][index]
        if e.action in ("move", "run"):
            kind = e.action + (" (ability used)" if e.use else "")
            seen[id(self)][2].append((u, phase, index, tuple(int(x) for x in state), bool(got), kind))
            if self.check.down or self.check.tumors:
                live_state["a verdict asked with a unit BURROWED or a Creep Tumor in the plan"] += 1
        return got

    legal.Legality._walk = kept  # type: ignore[method-assign]
    legal.PLAIN_AT_ONCE = False  # every verdict through ``_walk`` (the same verdicts)

    def off() -> None:
        legal.Legality.__init__ = init  # type: ignore[method-assign]
        legal.Legality._walk = walk  # type: ignore[method-assign]
        legal.PLAIN_AT_ONCE = True

    return off


def arrays(states: list[tuple[int, ...]], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = np.asarray(states, dtype=np.int64).reshape(len(states), 2 * n + 1)
    return s[:, :n], s[:, n : 2 * n], s[:, 2 * n]


def grouped(asked: list[tuple[int, str, int, tuple[int, ...], bool, str]]) -> dict[tuple[int, str, int], list[int]]:
    groups: dict[tuple[int, str, int], list[int]] = collections.defaultdict(list)
    for k, (u, phase, index, *_) in enumerate(asked):
        groups[(u, phase, index)].append(k)
    return groups


def batch_pass(dec: MoveDecider, asked: list[Any], groups: dict[tuple[int, str, int], list[int]]) -> np.ndarray:
    n = dec.U
    out = np.empty(len(asked), dtype=np.int8)
    for (u, phase, index), ks in groups.items():
        pos, alive, gone = arrays([asked[k][3] for k in ks], n)
        got, _ = dec.decide(u, phase, index, pos, alive, gone)
        out[ks] = got
    return out


def verdicts_pass(leg: Any, asked: list[Any]) -> list[bool | None]:
    mv = MoveVerdicts(leg.view, leg.menus, leg.check)
    return [mv.verdict(u, phase, index, state) for u, phase, index, state, _, _ in asked]


def tally(leg: Any, asked: list[Any], count: collections.Counter[str]) -> MoveDecider:
    """Count ``decide``'s answer on each verdict of ``asked`` (one state at a time) against the walk's: decided,
    admitted or refused, the MISS classes, the contradictions; the same with the grid's reach (``[grid reach]``).
    Returns the decider (its pair tables filled)."""
    n = leg.view.U
    one = MoveDecider(seen[id(leg)][1].tables, leg)
    grid = MoveDecider(seen[id(leg)][1].tables, leg, formation=False)
    for u, phase, index, state, walked, kind in asked:
        pos, alive, gone = arrays([state], n)
        coarse, cwhy = grid.decide(u, phase, index, pos, alive, gone)
        if coarse[0] == MISS:
            count[f"{kind} [grid reach] MISS: {MISS_NAMES[int(cwhy[0])]}"] += 1
        else:
            count[f"{kind} [grid reach] decided"] += 1
            if (coarse[0] == ADMIT) != walked:
                count[f"{kind} [grid reach] CONTRADICTION (decided {int(coarse[0])}, walk {walked})"] += 1
        got, why = one.decide(u, phase, index, pos, alive, gone)
        count[f"{kind} asked"] += 1
        if got[0] == MISS:
            count[f"{kind} MISS: {MISS_NAMES[int(why[0])]}"] += 1
            continue
        assert why[0] == DECIDED
        count[f"{kind} decided"] += 1
        count[f"{kind} decided {'admit' if got[0] == ADMIT else 'refuse'}"] += 1
        if (got[0] == ADMIT) != walked:
            count[f"{kind} CONTRADICTION (decided {int(got[0])}, walk {walked})"] += 1
    return one


def main() -> None:
    argv = sys.argv[1:]
    rounds = 3
    if "--rounds" in argv:
        k = argv.index("--rounds")
        rounds = int(argv[k + 1])
        del argv[k : k + 2]
    patch()
    md5, cpu = run(argv)
    print(f"json md5 (keys sorted): {md5}")
    print(f"CPU, whole command (tables and records included): {cpu:.2f} s; tables built {len(build_cpu)}, "
          f"CPU {sum(build_cpu):.2f} s")  # fmt: skip
    count: collections.Counter[str] = collections.Counter()
    count.update(live_state)
    for leg, _, asked in seen.values():
        if not asked:
            continue
        one = tally(leg, asked, count)
        groups = grouped(asked)
        singles = batch_pass(one, asked, groups)  # warm: the same answers as one by one
        cpu_dec: list[float] = []
        cpu_warm: list[float] = []
        cpu_mv: list[float] = []
        for _ in range(rounds):
            t0 = time.process_time()
            fast = verdicts_pass(leg, asked)
            cpu_mv.append(time.process_time() - t0)
            dec = MoveDecider(seen[id(leg)][1].tables, leg)
            t0 = time.process_time()
            cold = batch_pass(dec, asked, groups)
            cpu_dec.append(time.process_time() - t0)
            t0 = time.process_time()
            warm = batch_pass(dec, asked, groups)
            cpu_warm.append(time.process_time() - t0)
            assert (cold == warm).all() and (cold == singles).all(), "the batch answers are not the single ones"
        count["batch groups (unit, Phase, entry)"] += len(groups)
        for k in range(len(asked)):
            if fast[k] is not None and singles[k] != MISS and (singles[k] == ADMIT) != fast[k]:
                count["CONTRADICTION with MoveVerdicts"] += 1
        v = len(asked)
        print(f"verdicts {v}, groups {len(groups)}, rounds {rounds} (alternately: MoveVerdicts, decide cold, warm)")
        print("CPU s MoveVerdicts.verdict (fresh, one per state): " + ", ".join(f"{c:.3f}" for c in cpu_mv)
              + f"; per verdict {1e6 * min(cpu_mv) / v:.1f} us (best)")  # fmt: skip
        print("CPU s decide, batch per entry, fresh pair tables: " + ", ".join(f"{c:.3f}" for c in cpu_dec)
              + f"; per verdict {1e6 * min(cpu_dec) / v:.1f} us (best)")  # fmt: skip
        print("CPU s decide, batch per entry, warm pair tables: " + ", ".join(f"{c:.3f}" for c in cpu_warm)
              + f"; per verdict {1e6 * min(cpu_warm) / v:.1f} us (best)")  # fmt: skip
    for name in sorted(count):
        print(f"{name}: {count[name]}")
    for kind in ("move", "run"):
        asked_n = count[f"{kind} asked"]
        if asked_n:
            dec, coarse = count[f"{kind} decided"], count[f"{kind} [grid reach] decided"]
            print(f"{kind}: decided {dec} of {asked_n} ({100 * dec / asked_n:.1f}%); "
                  f"with the grid's reach {coarse} ({100 * coarse / asked_n:.1f}%)")  # fmt: skip


if __name__ == "__main__":
    main()
