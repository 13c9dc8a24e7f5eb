"""How often a random player's Movement step could be taken from arrays (issue 29 point 6, step 2 of
docs/dev/compiled-game-loop.md).

The random player (``policies.Random``) draws a random order of the free units and of each one's menu and takes the
first legal entry: only the entries reached in a game's orders are judged (``Decision.admits``), whole menus are not
(the shortcuts' refusals, ``Legality.open``, are skipped without asking). So two measures, per game and Movement step
(one ``Random.choose``):

* **step**: every entry the step asked (``Legality.admits`` in the Movement Phase, per game) is decided from arrays:
  a Move/Run by ``MoveDecider.decide`` (and with the fill, ``scenario/players/movefill.py``: Python places the unit
  with the units whose bases reach the formation, kept per their placement ids), a Deploy by ``DeployRefusals.judged``
  (its refusal or admission), a Hold from the plan alone (``MoveVerdicts``), any other entry a MISS;
* **mask** (the whole menu, as a policy reading every legal entry would need): per unit asked in the step, every
  entry its shortcuts leave open judged the same way (the walk's answers read after the game, ``Legality.judged``).

Every decision is checked against the walk's answer (contradictions must be 0); the fill's keys and World placements
counted; per applied plain Move/Run (``Movement.move_to``, no ability used) the fill's ADMIT placement id against the
placement the engine set (mismatches must be 0). The game's JSON (keys sorted) is hashed: the readers change no game.

    python benchmarks/count_move_masks.py --trials 80 [any other ``mathhammer game`` options]
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from mathhammer.scenario import sim_move
from mathhammer.scenario.players import legal, policies
from mathhammer.scenario.players.movedecide import ADMIT, MISS, MISS_NAMES, MoveDecider
from mathhammer.scenario.players.movefill import MISS_FILL, FilledDecider
from mathhammer.scenario.players.movetables import build_tables

sys.path.insert(0, str(Path(__file__).resolve().parent))
from count_move_tables import run

STEP_FILLS = "fill World placements, the steps' entries"
NAMES = {**MISS_NAMES, MISS_FILL: "the fill's units did not settle"}
#: per Legality: (the Legality, its decider)
seen: dict[int, tuple[Any, MoveDecider]] = {}
#: the Movement steps: per ``Random.choose``, per game number the asks (id(Legality), unit, entry, state, admitted)
steps: list[dict[int, list[tuple[int, int, int, tuple[int, ...], bool]]]] = []
recording: list[dict[int, list[tuple[int, int, int, tuple[int, ...], bool]]]] = []
#: applied plain Moves/Runs: (id(World), unit, the Leading Model's point, placements and models before, pid set)
applied: list[tuple[int, int, tuple[float, float], np.ndarray, np.ndarray, int]] = []


def patch() -> Callable[[], None]:
    """Keep every Movement step's asks and applied Move/Run (the module text); returns the call that takes it off."""
    init = legal.Legality.__init__
    admits = legal.Legality.admits
    choose = policies.Random.choose
    move_to = sim_move.Movement.move_to

    def built(self: Any, view: Any, menus: Any) -> None:
        init(self, view, menus)
        seen[id(self)] = (self, MoveDecider(build_tables(self), self))

    def asked(self: Any, u: int, phase: str, index: int, games: np.ndarray, states: Any = None) -> Any:
        got = admits(self, u, phase, index, games, states)
        if recording and phase == "movement":
            table, sid = self.states(games) if states is None else states
            free = (self.view.alive[u, games] > 0) & ~self.view.acted[u, games]
            for k, g in enumerate(games.tolist()):
                if free[k]:
                    recording[-1].setdefault(int(g), []).append(
                        (id(self), u, index, tuple(int(x) for x in table[int(sid[k])]), bool(got[k]))
                    )
        return got

    def chosen(self: Any, d: Any) -> Any:
        recording.append({})
        try:  # ``admits`` asked entry by entry (the Decision's one-pass ``first`` left out: the same choices)
            return choose(self, replace(d, first=None))
        finally:
            rec = recording.pop()
            if rec:
                steps.append(rec)

    def moved(self: Any, u: int, movers: np.ndarray, to: Any, act: Any, *args: Any, **kw: Any) -> Any:
        pos, alive = self.pos[:, movers].copy(), self.alive[:, movers].copy()
        got = move_to(self, u, movers, to, act, *args, **kw)
        if getattr(act, "action", None) in ("move", "run") and not getattr(act, "use", None):
            at = {int(t): k for k, t in enumerate(movers.tolist())}
            for t in got.tolist():
                k = at[int(t)]
                applied.append((id(self.world), u, tuple(to), pos[:, k], alive[:, k], int(self.pos[u, t])))
        return got

    legal.Legality.__init__ = built  # type: ignore[method-assign]
    legal.Legality.admits = asked  # type: ignore[method-assign]
    policies.Random.choose = chosen  # type: ignore[method-assign]
    sim_move.Movement.move_to = moved  # type: ignore[method-assign]

    def off() -> None:
        legal.Legality.__init__ = init  # type: ignore[method-assign]
        legal.Legality.admits = admits  # type: ignore[method-assign]
        policies.Random.choose = choose  # type: ignore[method-assign]
        sim_move.Movement.move_to = move_to  # type: ignore[method-assign]

    return off


class Judge:
    """One legality's entries judged from arrays (plain and with the fill), each answer kept per (unit, entry,
    state) and checked against the walk's."""

    def __init__(self, leg: Any, dec: MoveDecider, count: collections.Counter[str]) -> None:
        self.leg, self.dec, self.count = leg, dec, count
        self.fill = FilledDecider(dec)
        self.n = leg.view.U
        self._memo: dict[tuple[str, int, int, tuple[int, ...]], tuple[bool, bool]] = {}
        self._deploy: dict[tuple[int, tuple[int, ...]], dict[int, tuple[bool, bool]]] = {}

    def entry(self, u: int, i: int, state: tuple[int, ...], walked: bool, what: str) -> tuple[bool, bool]:
        """(decided, decided with the fill) for entry ``i`` of unit ``u``'s Movement menu in ``state``; counted
        under ``what`` (each (unit, entry, state) once per ``what``). ``walked``: the walk's answer without the
        per-game reads (8.3.2 Supply: ``Legality.judged``)."""
        key = (what, u, i, state)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        leg, n, count = self.leg, self.n, self.count
        e = leg.menus[leg.view.uids[u]]["movement"][i]
        s = np.asarray(state, dtype=np.int64)
        pos, alive, gone = s[None, :n], s[None, n : 2 * n], s[None, 2 * n]
        if e.action in ("move", "run"):
            kind = e.action + (" (ability used)" if e.use else "")
            got, why = self.dec.decide(u, "movement", i, pos, alive, gone)
            fgot, fwhy, _ = self.fill.decide(u, "movement", i, pos, alive, gone)
            count[f"{what} verdict {kind} asked"] += 1
            if got[0] == MISS:
                count[f"{what} verdict {kind} MISS: {NAMES[int(why[0])]}"] += 1
            elif (got[0] == ADMIT) != walked:
                count[f"{what} verdict {kind} CONTRADICTION (decide)"] += 1
            if fgot[0] == MISS:
                count[f"{what} verdict {kind} filled MISS: {NAMES[int(fwhy[0])]}"] += 1
            elif (fgot[0] == ADMIT) != walked:
                count[f"{what} verdict {kind} CONTRADICTION (filled)"] += 1
            hit = (bool(got[0] != MISS), bool(fgot[0] != MISS))
        elif e.action == "deploy":
            d = self._deploy.get((u, state))
            if d is None:
                idx, no, yes = leg.deploys.judged(u, "movement", [state])
                d = self._deploy[(u, state)] = {
                    int(k): (bool(a), bool(b)) for k, a, b in zip(idx.tolist(), no[0], yes[0], strict=True)
                }
            refused, admitted = d.get(i, (False, False))
            count[f"{what} verdict deploy asked"] += 1
            if not (refused or admitted):
                count[f"{what} verdict deploy MISS: DeployRefusals does not answer"] += 1
            elif admitted != walked:
                count[f"{what} verdict deploy CONTRADICTION"] += 1
            hit = (refused or admitted, refused or admitted)
        elif e.action == "hold":
            count[f"{what} verdict hold asked"] += 1
            ok = leg.view.uids[u] not in leg.check.down  # MoveVerdicts: True from the plan alone
            hit = (ok, ok)
        else:
            count[f"{what} verdict other ({e.action}) asked"] += 1
            hit = (False, False)
        for k, v in (("decided", hit[0]), ("filled decided", hit[1])):
            count[f"{what} verdict {e.action} {k}"] += v
        self._memo[key] = hit
        return hit


def tally(count: collections.Counter[str]) -> dict[int, Judge]:
    """Count the steps and the masks of the units they asked (the module text); the judges per legality."""
    judges: dict[int, Judge] = {}
    masks_seen: set[tuple[int, int, tuple[int, ...]]] = set()
    asked_units: list[dict[tuple[int, int], tuple[int, ...]]] = []
    missed: dict[str, set[int]] = {"plain": set(), "filled": set()}
    for step in steps:  # the steps first: the fill's placements they cost counted apart
        for game, asks in step.items():
            plain = filled = True
            units: dict[tuple[int, int], tuple[int, ...]] = {}
            for lid, u, i, state, _ in asks:
                leg, dec = seen[lid]
                judge = judges.get(lid)
                if judge is None:
                    judge = judges[lid] = Judge(leg, dec, count)
                a, b = judge.entry(u, i, state, leg.judged(u, "movement", i, state), "step")
                plain &= a
                filled &= b
                units[(lid, u)] = state
            count["steps"] += 1
            count["steps: entries asked"] += len(asks)
            count["steps decided"] += plain
            count["steps decided with the fill"] += filled
            if not plain:
                missed["plain"].add(game)
            if not filled:
                missed["filled"].add(game)
            asked_units.append(units)
    count["games with an undecided step"] = len(missed["plain"])
    count["games with an undecided step, with the fill"] = len(missed["filled"])
    count[STEP_FILLS] = sum(j.fill.placements for j in judges.values())
    count["fill keys, the steps' entries"] = sum(len(j.fill.fills) for j in judges.values())
    for units in asked_units:
        for (lid, u), state in units.items():  # the whole menu of each unit asked
            judge = judges[lid]
            leg = judge.leg
            cut = np.asarray(leg.shortcuts(u, "movement", state), dtype=bool)
            mp = mf = True
            entries = leg.menus[leg.view.uids[u]]["movement"]
            width = deploys = 0
            for i, e in enumerate(entries):
                if e.action == "pass" or cut[i]:
                    continue
                width += 1
                deploys += e.action == "deploy"
                a, b = judge.entry(u, i, state, leg.judged(u, "movement", i, state), "mask")
                mp &= a
                mf &= b
            label = "masks in Reserves (Deploys open)" if deploys else "masks on the table"
            for tag, fresh in (("", True), (" (distinct)", (lid, u, state) not in masks_seen)):
                if fresh:
                    count[f"{label}{tag}"] += 1
                    count[f"{label}{tag} decided"] += mp
                    count[f"{label}{tag} decided with the fill"] += mf
                    count[f"{label}{tag} entries open"] += width
            masks_seen.add((lid, u, state))
    return judges


def check_applied(judges: dict[int, Judge], count: collections.Counter[str]) -> None:
    """Each applied plain Move/Run: the fill's ADMIT placement against the engine's."""
    by_world = {id(j.dec.world): j for j in judges.values()}
    for wid, u, to, pos, alive, set_pid in applied:
        judge = by_world.get(wid)
        count["applied Move/Run"] += 1
        if judge is None:
            count["applied: no legality on this World"] += 1
            continue
        leg, fill = judge.leg, judge.fill
        j = fill.dec.tables.point_of(u, to)
        points = fill.dec.tables.entry_point[(u, "movement")]
        index = next(
            (
                i
                for i, e in enumerate(leg.menus[leg.view.uids[u]]["movement"])
                if e.action in ("move", "run") and not e.use and int(points[i]) == j
            ),
            None,
        )
        if j < 0 or index is None:
            count["applied: no plain entry at the point"] += 1
            continue
        got, why, pid = fill.decide(u, "movement", index, pos[None, :], alive[None, :])
        if got[0] == MISS:
            count[f"applied MISS: {NAMES[int(why[0])]}"] += 1
        elif got[0] != ADMIT:
            count["applied REFUSED by the fill (a contradiction)"] += 1
        elif int(pid[0]) == set_pid:
            count["applied placement equal"] += 1
        else:
            count["applied placement MISMATCH"] += 1


def main() -> None:
    patch()
    md5, cpu = run(sys.argv[1:])
    games = next((int(a) for k, a in enumerate(sys.argv) if k and sys.argv[k - 1] == "--trials"), 0)
    print(f"json md5 (keys sorted): {md5}")
    print(f"CPU, whole command (tables and records included): {cpu:.2f} s")
    count: collections.Counter[str] = collections.Counter()
    t0 = time.process_time()
    judges = tally(count)
    check_applied(judges, count)
    print(f"CPU, the tally after the game: {time.process_time() - t0:.2f} s")
    for judge in judges.values():
        count["fill keys"] += len(judge.fill.fills)
        count["fill keys, no room"] += sum(v < 0 for v in judge.fill.fills.values())
        count["fill World placements"] += judge.fill.placements
    for name in sorted(count):
        print(f"{name}: {count[name]}")
    s = count["steps"]
    if s:
        print(f"steps {s}: decided {100 * count['steps decided'] / s:.1f}%, "
              f"with the fill {100 * count['steps decided with the fill'] / s:.1f}%")  # fmt: skip
    for label in ("masks on the table", "masks in Reserves (Deploys open)"):
        for tag in ("", " (distinct)"):
            m = count[f"{label}{tag}"]
            if m:
                a, b = count[f"{label}{tag} decided"], count[f"{label}{tag} decided with the fill"]
                print(f"{label}{tag}: {m}, decided {100 * a / m:.1f}%, with the fill {100 * b / m:.1f}%, "
                      f"entries open per mask {count[f'{label}{tag} entries open'] / m:.1f}")  # fmt: skip
    if games:
        print(f"per game: steps {s / games:.1f}, undecided steps {(s - count['steps decided']) / games:.1f}, "
              f"with the fill {(s - count['steps decided with the fill']) / games:.1f}; "
              f"fill World placements {count['fill World placements'] / games:.1f} (the steps' entries alone "
              f"{count[STEP_FILLS] / games:.1f})")  # fmt: skip


if __name__ == "__main__":
    main()
