"""How often the Movement tables built ahead (``scenario/players/movetables.py``) answer the Movement steps of random
games (issue 29 point 6, step 2 of docs/dev/compiled-game-loop.md): counters patched onto the engine while
``mathhammer game`` runs in this process (as benchmarks/count_formation_keys.py does).

The tables are built when the first automatic player's legality is (one build per World; its CPU seconds printed).
Then, for every Move, Run and Deploy step:

* **verdicts** (each entry's verdict the legality computes beyond its shortcuts: ``Legality._walk``, whose plain
  Moves and Runs ``MoveVerdicts.verdict`` answers, and the Deploys ``DeployRefusals.judged`` answers): (a) is its key
  in the tables (the unit's Leading Model on one of its menu points, the entry's point, the heading of the one from
  the other; a Deploy: the unit and the point)? (b) is the verdict the tables' empty-table answer
  (``MoveTables.move_alone``, ``deploy_ok``)? (c) does the answer need the other units at all (refused on the table's
  parts alone: a point over a terrain top, the way too long for every Speed the unit may have, no room on an empty
  table; else the Engaged test, ON CREEP and the units near the Leading Model's point are read)?
* **placements** (each game in which the engine sets a unit for a Move or Run, ``Movement.move_to``, or a Deploy,
  ``Movement.deploy``): (a) the key (unit, point, heading) in the tables, (b) the placement set is the tables' (no
  other unit changed it).

Misses are counted by class (the first few hundred are named with their unit, point and what was near; the classes
cover them all). The game's JSON (keys sorted) is hashed: building the tables ahead must change no game.

    python benchmarks/count_move_tables.py --trials 80 [any other ``mathhammer game`` options]

The command is bench_game's (terran_six against zerg_six, Hold Position, Gauntlet, seed 1, random against random,
one process); options after the script's name are added to it.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import json
import shlex
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from mathhammer.scenario import sim as sim_mod
from mathhammer.scenario import sim_combat, sim_move
from mathhammer.scenario.players import legal, placings
from mathhammer.scenario.players.movetables import MoveTables, build_tables, heading_index

GAME = shlex.split(
    'game profiles/armies/terran_six.toml profiles/armies/zerg_six.toml --mission "Hold Position" '
    "--deployment Gauntlet --seed 1 --json --workers 1"
)
#: misses named one by one up to this many, and up to PER_CLASS of each class
NAMED = 300
PER_CLASS = 8

count: collections.Counter[str] = collections.Counter()
named: dict[str, list[str]] = collections.defaultdict(list)
tables: dict[int, tuple[Any, MoveTables]] = {}  # id(World) -> (the World, its tables)
made_by: dict[int, str] = {}  # placement id -> the action that first set a unit there
doing: list[str] = ["?"]
build_cpu: list[float] = []
_INHERITED = object()  # an attribute patched on a class that only inherited it


def table_of(world: Any) -> MoveTables | None:
    hit = tables.get(id(world))
    return None if hit is None or hit[0] is not world else hit[1]


def miss(kind: str, why: str, detail: str) -> None:
    count[f"{kind} miss: {why}"] += 1
    cls = named[f"{kind}: {why}"]
    if sum(len(v) for v in named.values()) < NAMED and len(cls) < PER_CLASS:
        cls.append(detail)


def near_units(world: Any, su: Any, to: Any, state_pos: Any, u: int) -> tuple[int, int, bool]:
    """How many other units (friendly, enemy) have a placement near the Leading Model's point ``to``
    (``World.lead_test``: what ``place_near_lead`` reads), and whether each of those placements is one of the tables'
    own (a unit's empty-table placement at one of its points: a pair table of table placements would answer)."""
    test = world.lead_test(su, to)
    friends = foes = 0
    tabled = True
    tb = table_of(world)
    for v, p in enumerate(state_pos):
        if v == u or p < 0 or not test(int(p)):
            continue
        if world.scn.units[world.placements[int(p)].unit].player == su.player:
            friends += 1
        else:
            foes += 1
        tabled = tabled and tb is not None and int(p) in table_pids(tb, v)
    return friends, foes, tabled


_pids: dict[tuple[int, int], set[int]] = {}


def table_pids(tb: MoveTables, v: int) -> set[int]:
    """The placement ids the tables hold for unit ``v`` (its Moves' and Deploys' on an empty table)."""
    key = (id(tb), v)
    hit = _pids.get(key)
    if hit is None:
        got = np.concatenate([tb.place[v].ravel(), tb.deploy_place[v]])
        hit = _pids[key] = set(got[got >= 0].tolist())
    return hit


def near_label(friends: int, foes: int, tabled: bool) -> str:
    f = f"{min(friends, 2)}{'+' if friends > 2 else ''}"
    e = f"{min(foes, 2)}{'+' if foes > 2 else ''}"
    return f"friends {f}, foes {e}, " + ("all on table placements" if tabled else "one off the tables")


def on_table_state(state: Any, n: int) -> list[int]:
    return [int(p) if p >= 0 and k > 0 else -1 for p, k in zip(state[:n], state[n : 2 * n], strict=True)]


def move_verdict(leg: Any, tb: MoveTables, u: int, phase: str, index: int, state: Any, got: bool) -> None:
    view = leg.view
    n = view.U
    uid = view.uids[u]
    e = leg.menus[uid][phase][index]
    kind = f"verdict {e.action}" + (" (ability used)" if e.use else "")
    count[f"{kind} asked"] += 1
    gone = int(state[2 * n])
    if gone:
        miss(kind, "Grass removed (another World)", f"{uid} mask {gone}")
        return
    world = view.world
    pid = int(state[u])
    lead = world.placements[pid].centres[0]
    i = tb.point_of(u, lead)
    if i < 0:
        miss(kind, f"from a placement set by {made_by.get(pid, '?')}", f"{uid} lead {lead} to {e.to}")
        return
    assert e.to is not None
    j = tb.point_of(u, e.to)
    h = heading_index(world.rear_from(pid, e.to, e.headings))
    count[f"{kind} (a) key in tables"] += 1
    su = view.units[u]
    speeds = tb.speeds[u]
    far = [tb.too_far(u, i, j, float(s)) for s in speeds]
    alone_refused = (not tb.level_ok[u, j]) or all(far) or tb.place[u, j, h] < 0
    if e.use:
        # the Speed an ability gives is the walk's (and its price the Spending's): only the point's parts are checked
        if (not tb.level_ok[u, j] or tb.place[u, j, h] < 0) and got:
            count[f"{kind} CONTRADICTION: refused alone, admitted"] += 1
        return
    p = on_table_state(state, n)
    creep = bool(speeds[0] != speeds[1]) and leg.moves.on_creep(world, uid, tuple(p))
    alone = tb.move_alone(u, i, j, creep)
    if alone == got:
        count[f"{kind} (b) answer is the tables' alone"] += 1
    if alone_refused:
        count[f"{kind} (c) decided by the tables alone (refused)"] += 1
        if got:
            count[f"{kind} CONTRADICTION: refused alone, admitted"] += 1
        return
    friends, foes, tabled = near_units(world, su, e.to, p, u)
    engaged = leg.moves.engaged(
        world, u, tuple(p), tuple(k if q >= 0 else 0 for q, k in zip(p, state[n : 2 * n], strict=True))
    )
    why = []
    if bool(far[0]) != bool(far[1]):
        why.append("ON CREEP")
    if engaged:
        why.append("Engaged")
    if friends or foes:
        why.append("units near the point (" + ("on table placements" if tabled else "one off the tables") + ")")
    elif not tb.near_only[u, j, h]:  # the empty-table grid looked past the near spots: any unit in its reach may count
        why.append("a formation wider than the near test")
    if not why:
        count[f"{kind} (c) needs others: read, none there (answer the tables')"] += 1
        if alone != got:
            count[f"{kind} CONTRADICTION: none near, answer differs"] += 1
        return
    label = " + ".join(why)
    count[f"{kind} (c) needs others: {label}"] += 1
    if alone != got:
        miss(kind, f"answer changed by {label}", f"{uid} {lead}->{e.to} h{h} friends {friends} foes {foes}")


def deploy_verdict(leg: Any, tb: MoveTables, u: int, index: int, state: Any, got: bool) -> None:
    view = leg.view
    n = view.U
    uid = view.uids[u]
    e = leg.menus[uid]["movement"][index]
    kind = "verdict deploy" + (" (ability used)" if e.use else "")
    count[f"{kind} asked"] += 1
    gone = int(state[2 * n])
    if gone:
        miss(kind, "Grass removed (another World)", f"{uid} mask {gone}")
        return
    assert e.to is not None
    j = tb.point_of(u, e.to)
    count[f"{kind} (a) key in tables"] += 1
    alone = bool(tb.deploy_ok[u, j] == 1)
    if alone == got:
        count[f"{kind} (b) answer is the tables' alone"] += 1
    if not alone:
        count[f"{kind} (c) decided by the tables alone (refused)"] += 1
        if got:
            count[f"{kind} CONTRADICTION: refused alone, admitted"] += 1
        return
    p = on_table_state(state, n)
    friends, foes, tabled = near_units(view.world, view.units[u], e.to, p, u)
    if not (friends or foes) and not tb.deploy_near_only[u, j]:
        count[f"{kind} (c) needs others: a formation wider than the near test"] += 1
        if alone != got:
            miss(kind, "answer changed by a formation wider than the near test", f"{uid} {e.to}")
        return
    if not (friends or foes):
        count[f"{kind} (c) needs others: read, none there (answer the tables')"] += 1
        if alone != got:
            count[f"{kind} CONTRADICTION: none near, answer differs"] += 1
        return
    label = near_label(friends, foes, tabled)
    count[f"{kind} (c) needs others: units near the point"] += 1
    if alone != got:
        miss(kind, f"answer changed by units near the point ({label})", f"{uid} {e.to}")


def placement(
    sim: Any, tb: MoveTables, kind: str, u: int, to: Any, h: int | None, before: list[int], new: int, old: int
) -> None:
    count[f"{kind} set"] += 1
    world = sim.world
    uid = sim.uids[u]
    j = tb.point_of(u, to)
    if h is None or j < 0:
        miss(kind, "no headings" if h is None else "not a menu point", f"{uid} to {to}")
        return
    count[f"{kind} (a) key in tables"] += 1
    want = int(tb.deploy_place[u, j] if kind == "placement deploy" else tb.place[u, j, h])
    if want == new:
        count[f"{kind} (b) placement is the tables'"] += 1
        return
    friends, foes, tabled = near_units(world, sim.units[u], to, before, u)
    src = made_by.get(old, "?") if old >= 0 else "-"
    label = near_label(friends, foes, tabled)
    wide = not (tb.deploy_near_only[u, j] if kind == "placement deploy" else tb.near_only[u, j, h])
    if not (friends or foes):
        label = "none near the point, " + (
            "a formation wider than the near test" if wide else "NOT WIDE: CONTRADICTION"
        )
    miss(kind, f"formation changed by near units ({label})", f"{uid} to {to} h{h} from {src} table {want} set {new}")


def tagged(fn: Any, tag: Any, stack: list[str]) -> Any:
    """``fn`` (a method) with ``tag(args)`` on top of ``stack`` while it runs: the action setting placements meanwhile
    (also benchmarks/count_formation_keys.py's)."""

    def run(self: Any, *args: Any) -> None:
        stack.append(tag(args))
        try:
            fn(self, *args)
        finally:
            stack.pop()

    return run


def patch() -> Callable[[], None]:
    """Patch the counters onto the engine; returns the call that takes them off again."""
    undo: list[tuple[Any, str, Any]] = []

    def _set(owner: Any, name: str, new: Any) -> None:
        undo.append((owner, name, owner.__dict__.get(name, _INHERITED)))
        setattr(owner, name, new)

    init = legal.Legality.__init__
    owner: dict[int, Any] = {}  # id(DeployRefusals) -> its Legality

    def built(self: Any, view: Any, menus: Any) -> None:
        init(self, view, menus)
        owner[id(self.deploys)] = self
        if table_of(view.world) is None:
            t0 = time.process_time()
            tables[id(view.world)] = (view.world, build_tables(self))
            build_cpu.append(time.process_time() - t0)

    _set(legal.Legality, "__init__", built)

    walk = legal.Legality._walk

    def counted_walk(self: Any, u: int, phase: str, index: int, state: Any, taken: bool = False) -> Any:
        got = walk(self, u, phase, index, state, taken)
        e = self.menus[self.view.uids[u]][phase][index]
        tb = table_of(self.view.world)
        if tb is not None and e.action in ("move", "run"):
            move_verdict(self, tb, u, phase, index, state, bool(got))
        elif tb is not None and e.action == "deploy":
            deploy_verdict(self, tb, u, index, state, bool(got))
        return got

    _set(legal.Legality, "_walk", counted_walk)
    _set(legal, "PLAIN_AT_ONCE", False)  # every verdict through ``_walk`` (the same verdicts)

    judged = placings.DeployRefusals.judged

    def counted_judged(self: Any, u: int, phase: str, states: Any) -> Any:
        idx, refused, admitted = out = judged(self, u, phase, states)
        leg = owner.get(id(self))
        tb = table_of(self.view.world)
        if leg is not None and tb is not None:
            for state, no, yes in zip(states, refused, admitted, strict=True):
                for k, r, a in zip(idx.tolist(), no.tolist(), yes.tolist(), strict=True):
                    if r or a:
                        deploy_verdict(leg, tb, u, k, state, bool(a))
        return out

    _set(placings.DeployRefusals, "judged", counted_judged)

    move_to = sim_move.Movement.move_to

    def counted_move_to(
        self: Any, u: int, movers: np.ndarray, to: Any, act: Any, moving: bool = True, headings: int | None = None
    ) -> Any:
        before = {int(t): [int(p) if k > 0 else -1 for p, k in zip(self.pos[:, t], self.alive[:, t], strict=True)]
                  for t in movers}  # fmt: skip
        got = move_to(self, u, movers, to, act, moving, headings)
        tb = table_of(self.world)
        if tb is not None and act.action in ("move", "run"):
            for t in got.tolist():
                old = before[t][u]
                h = None if headings is None else heading_index(self.world.rear_from(old, to, headings))
                placement(self, tb, f"placement {act.action}", u, to, h, before[t], int(self.pos[u, t]), old)
        return got

    _set(sim_move.Movement, "move_to", counted_move_to)

    deploy = sim_move.Movement.deploy

    def counted_deploy(self: Any, u: int, act: Any, trials: np.ndarray) -> Any:
        before = {int(t): [int(p) if k > 0 else -1 for p, k in zip(self.pos[:, t], self.alive[:, t], strict=True)]
                  for t in trials}  # fmt: skip
        got = deploy(self, u, act, trials)
        tb = table_of(self.world)
        if tb is not None:
            for t in np.asarray(got).tolist():
                h = int(tb.own_rear[u])
                placement(self, tb, "placement deploy", u, act.to, h, before[t], int(self.pos[u, t]), -1)
        return got

    _set(sim_move.Movement, "deploy", counted_deploy)

    set_many = sim_mod.Simulation.set_pos_many

    def counted_set_many(self: Any, u: int, parts: Any) -> None:
        by = doing[-1]
        if by not in ("move", "run", "deploy", "charge", "close-ranks"):  # what sets it: the caller named
            by = f"{by} (" + " < ".join(sys._getframe(k).f_code.co_name for k in (8, 9, 10)) + ")"
        for _, pid in parts:
            if pid >= 0:
                made_by.setdefault(int(pid), by)
        set_many(self, u, parts)

    _set(sim_mod.Simulation, "set_pos_many", counted_set_many)

    _set(sim_mod.Simulation, "activate", tagged(sim_mod.Simulation.activate, lambda a: a[0].action, doing))
    _set(sim_combat.Combat, "close_ranks", tagged(sim_combat.Combat.close_ranks, lambda a: "close-ranks", doing))

    def off() -> None:
        for owner, name, old in reversed(undo):
            if old is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, old)

    return off


def run(args: list[str]) -> tuple[str, float]:
    """Play ``mathhammer game`` with ``args`` added in this process; the md5 of its JSON (keys sorted) and its CPU
    seconds."""
    from mathhammer.cli import app

    sys.argv = ["mathhammer", *GAME, *args]
    out = io.StringIO()
    t0 = time.process_time()
    status: int | str | None = 0
    with contextlib.redirect_stdout(out):
        try:
            app()
        except SystemExit as done:
            status = done.code
    cpu = time.process_time() - t0
    try:
        found = json.loads(out.getvalue())
    except json.JSONDecodeError:
        found = None
    if status not in (0, None) or found is None:  # ``--help``, or the game refused its options: what it said
        sys.stdout.write(out.getvalue())
        raise SystemExit(status)
    text = json.dumps(found, sort_keys=True)
    return hashlib.md5((text + "\n").encode()).hexdigest(), cpu


def main() -> None:
    patch()
    md5, cpu = run(sys.argv[1:])
    print(f"json md5 (keys sorted): {md5}")
    print(f"CPU, whole command (tables and counters included): {cpu:.2f} s")
    for world, tb in tables.values():
        del world
        print(f"tables built: {len(build_cpu)}, CPU {sum(build_cpu):.2f} s; parts: "
              + ", ".join(f"{k} {v:.2f} s" for k, v in tb.seconds.items()))  # fmt: skip
        for k, v in tb.size().items():
            print(f"table size, {k}: {v}")
    for name in sorted(count):
        print(f"{name}: {count[name]}")
    print(f"misses named ({sum(len(v) for v in named.values())}, at most {PER_CLASS} a class):")
    for cls in sorted(named):
        print(f"  {cls}:")
        for line in named[cls]:
            print(f"    {line}")


if __name__ == "__main__":
    main()
