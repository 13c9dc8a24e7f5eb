"""Traces of sampled games (issue 29 point 4): a game played by automatic players written back as a scenario file whose
plan is what was played, and pictures of its Rounds.

A game's dice and choices depend on (seed, game number) only, so a sampled game is played again alone
(``Simulation(scn, 1, seed, offset=game)``, the same game as among the others, :func:`record`) with its activations
recorded in the order the engine applied them. The trace file is the scenario's own table with every player
scripted: the automatic players' ``policy`` is dropped and ``[[rounds]]`` lists, per Round, player and Phase, the
activations in the order they were made, each with ``dice``, the number that keyed its dice in the game (an
automatic activation's slot, :func:`~.auto.slot`; a planned one's place in the original plan). ``mathhammer scenario
run TRACE --seed S --game N`` plays game N of seed S of the trace (the header comment of the file says which): the
same dice, so the same game.

Pictures (:func:`round_figure`): one per Round, the board at the end of the Round (``board show``'s drawing,
:func:`mathhammer.board.plot.plot_board`), with the Round's moves as arrows from where the Leading Model stood, shots
as dotted lines to the units their Batches struck and charges as dashed arrows to their targets, the moves of other
units during an activation (a Lunge after a Shoot) as dash-dotted arrows in their player's colour, the Mission Markers
as their contest circles.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..spec import PHASES, PLAYERS, Activation, Scenario
from . import fight_act

#: the actions a picture draws as a line from the unit (moves: arrows from where it stood)
MOVES = ("deploy", "move", "run", "disengage")
#: the actions written as a Hold where the engine did nothing of them in the traced game (no attack resolved, nothing
#: changed but what its abilities used changed): a Shoot with no target it may shoot, a Charge that fell short, a Move
#: of an Engaged unit
VOIDABLE = ("deploy", "move", "run", "disengage", "shoot", "charge")


@dataclass
class Step:
    """One activation applied in the traced game: its number for the dice, and the unit's placement and models before
    and after (-1: not on the table), with every unit's placement after."""

    act: Activation
    dice: int
    before: int
    after: int
    pos: tuple[int, ...]
    #: why the engine did nothing of it in this game (its skip report), or "": it was carried out
    void: str = ""
    #: the units its attacks struck (World order, first struck first): a Shoot's Batches may fire at its ``then``
    struck: tuple[int, ...] = ()
    #: the other units it moved, on the table before and after (an opponent's Lunge after a Shoot, 10.4): (unit,
    #: placement before, placement after)
    moved: tuple[tuple[int, int, int], ...] = ()


@dataclass
class Played:
    """A traced game: its number, its activations in order, and per Round every unit's placement and models at the end
    of the Round."""

    game: int
    steps: list[Step] = field(default_factory=list)
    rounds: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    vp: tuple[int, int] = (0, 0)


def sample(trials: int, k: int) -> list[int]:
    """``k`` game numbers spread evenly over ``0 .. trials - 1`` (all of them where ``k >= trials``).

    >>> sample(10, 3)
    [0, 4, 9]
    """
    if k >= trials:
        return list(range(trials))
    return sorted({round(i * (trials - 1) / max(k - 1, 1)) for i in range(k)})


def record(sim: Any) -> Played:
    """Play the one game of ``sim`` (a Simulation of one game, ``Simulation(scn, 1, seed, offset=game)``: the very
    game ``game`` is among others), recording its activations and Rounds. The caller builds the Simulation: the
    players decide and record, they do not reach into the engine's modules (the import contracts)."""
    played = Played(sim.offset)
    apply, snap, resolve, use, answer = sim.activate, sim.snapshot, sim.resolve, sim._use, sim.fight_answers
    attacks = [0]
    struck: list[int] = []  # the units the activation's attacks resolve at
    was: list[tuple[object, ...]] = []  # the state before the action proper: after the abilities used, not a Deploy

    def resolving(*args: Any, **kw: Any) -> None:
        attacks[0] += 1
        struck.append(int(args[1]))  # Shooting.resolve(batches, t, ...)
        resolve(*args, **kw)

    def using(u: int, act: Activation, here: np.ndarray) -> None:
        use(u, act, here)
        if act.action != "deploy":  # a Deploy's abilities act once it is set (the Deploy is done)
            was[0] = _state(sim)

    def activate(act: Activation, trials: np.ndarray) -> None:
        u = sim.uids.index(act.unit) if act.unit else -1
        before = int(sim.pos[u, 0]) if u >= 0 else -1
        live = trials.size > 0 and not bool(sim.over[0])
        was[:], skips, rolled = [_state(sim)], dict(sim.skipped), attacks[0]
        struck.clear()
        old = sim.pos[:, 0].tolist()
        apply(act, trials)
        if live:
            after = int(sim.pos[u, 0]) if u >= 0 else -1
            now = sim.pos[:, 0].tolist()
            moved = tuple(
                (t, b, a)
                for t, (b, a) in enumerate(zip(old, now, strict=True))
                if t != u and b >= 0 and a >= 0 and b != a
            )
            why = [k.split(": ", 1)[1] for k, v in sim.skipped.items() if v != skips.get(k, 0)]
            void = ""
            # void: the action itself changed nothing (what its abilities used changed is kept: :func:`entry`)
            if act.action in VOIDABLE and _state(sim) == was[0] and attacks[0] == rolled:
                void = "; ".join(why) or "no attack was made"
            hit = tuple(dict.fromkeys(struck))
            played.steps.append(Step(act, sim.ordinal[act], before, after, tuple(now), void, hit, moved))

    def snapshot() -> None:
        snap()
        played.rounds.append((tuple(sim.pos[:, 0].tolist()), tuple(sim.alive[:, 0].tolist())))

    def answering(
        uid: str, pairs: Collection[tuple[str, str]], ordinal: int, planned: Activation | None, here: np.ndarray
    ) -> list[tuple[np.ndarray, Activation | None]]:
        # every fight is written, with its dice, in the order fought: a planned fight goes first among its player's
        # (Simulation.combat_phase), so writing only those with a Reaction would change the order
        parts = answer(uid, pairs, ordinal, planned, here)
        u = sim.uids.index(uid)
        for _, act in parts[:1] if not bool(sim.over[0]) else ():
            act = act or fight_act(sim.round, sim.scn.units[uid].player, uid, sim.foes(uid, pairs), planned)
            at = int(sim.pos[u, 0])
            played.steps.append(Step(act, ordinal, at, at, tuple(sim.pos[:, 0].tolist())))
        return parts

    sim.activate = activate  # type: ignore[method-assign]
    sim.fight_answers = answering  # type: ignore[method-assign]
    sim._use = using  # type: ignore[method-assign]
    sim.resolve = resolving  # type: ignore[method-assign]
    sim.snapshot = snapshot  # type: ignore[method-assign]
    sim.run()
    played.vp = (int(sim.vp[0, 0]), int(sim.vp[1, 0]))
    return played


def _state(sim: Any) -> tuple[object, ...]:
    """Everything of the traced game an activation may change (its column of the state matrix, VP, markers)."""
    return (sim.state[:, 0].tolist(), sim.vp[:, 0].tolist(), sim.control[:, 0].tolist(), sim.penalty[:, 0].tolist())


def entry(act: Activation, dice: int, void: str = "", comment: bool = False) -> dict[str, Any]:
    """The plan entry (a scenario file's table) of ``act``, keyed ``dice``; ``void``: the engine did nothing of it
    in the game (the reason), so it is written as a Hold of the unit, with what was declared as a comment (key ``#``,
    :func:`to_toml`) where ``comment``, and the abilities used (``use``, ``select``): paid for and on all the same
    (a Charge with Predation that fell short Exhausted the Lair)."""
    out: dict[str, Any] = {}
    if void:
        said = " ".join([act.action, *act.targets]) + (f" to {list(act.to)}" if act.to else "")
        note = {"#": f"declared {said}; not done in this game: {void}"} if comment else {}
        # the abilities used were paid and are on all the same (10.5: used as the unit activates)
        kept = {"use": list(act.use), **({"select": dict(act.select)} if act.select else {})} if act.use else {}
        return {**note, "unit": act.unit, "action": "hold", **kept, "dice": dice}
    if act.unit:
        out["unit"] = act.unit
    out["action"] = act.action
    for name in ("to", "extra_to", "token_at", "place_to", "summon_to"):
        value = getattr(act, name)
        if value is not None:
            out[name] = [float(value[0]), float(value[1])]
    for name in ("on", "via", "edge"):
        value = getattr(act, name)
        if value is not None:
            out[name] = value
    for name in ("targets", "then", "weapons", "use", "options"):
        value = getattr(act, name)
        if value:
            out[name] = list(value)
    if act.select:
        out["select"] = dict(act.select)
    if act.react:
        out["react"] = [
            {"unit": r.unit, "use": r.use, **({"for": r.for_unit} if r.for_unit else {})} for r in act.react
        ]
    if act.when:
        out["if"] = [c.text for c in act.when]
    if act.unless:
        out["unless"] = [c.text for c in act.unless]
    if act.headings is not None:
        out["headings"] = act.headings
    out["dice"] = int(dice)
    return out


def trace_data(data: dict[str, Any], played: Played, comments: bool = False) -> dict[str, Any]:
    """The scenario table ``data`` (the file's, army paths absolute) with every player scripted by ``played``'s
    activations (with ``comments``: what a Hold written for a void activation declared, :func:`entry`)."""
    out = {k: v for k, v in data.items() if k != "rounds"}
    out["players"] = {
        p: {k: v for k, v in spec.items() if k != "policy"} for p, spec in data.get("players", {}).items()
    }
    rounds: dict[int, dict[str, dict[str, list[dict[str, Any]]]]] = {}
    for step in played.steps:
        a = step.act
        side = rounds.setdefault(a.round, {}).setdefault(a.player, {})
        side.setdefault(a.phase, []).append(entry(a, step.dice, step.void, comments))
    out["rounds"] = [
        {"round": r, **{p: {ph: side[p][ph] for ph in PHASES if ph in side[p]} for p in PLAYERS if p in side}}
        for r, side in sorted(rounds.items())
    ]
    return out


# ------------------------------------------------------------------ TOML
def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else "nan"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"a trace cannot write {type(v).__name__} values: {v!r}")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else _value(k)


def _table(data: dict[str, Any], path: str, lines: list[str]) -> None:
    """``data`` as TOML under the table ``path`` ("" the top): scalars first, then sub-tables and arrays of tables."""
    scalars = {k: v for k, v in data.items() if not _is_table(v) and not _is_tables(v)}
    if path and (scalars or not data):
        lines.append(f"\n[{path}]")
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    for k, v in data.items():
        sub = f"{path}.{_key(k)}" if path else _key(k)
        if _is_table(v):
            _table(v, sub, lines)
        elif _is_tables(v):
            for item in v:
                lines.append(f"\n[[{sub}]]")
                _array_item(item, sub, lines)


def _array_item(item: dict[str, Any], path: str, lines: list[str]) -> None:
    """One ``[[path]]`` item: its scalars, then its tables (and their arrays of tables) under ``path``."""
    scalars = {k: v for k, v in item.items() if not _is_table(v) and not _is_tables(v) and k != "#"}
    if "#" in item:
        lines.append(f"# {item['#']}")
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    for k, v in item.items():
        if _is_table(v):
            _table(v, f"{path}.{_key(k)}", lines)
        elif _is_tables(v):
            for sub in v:
                lines.append(f"\n[[{path}.{_key(k)}]]")
                _array_item(sub, f"{path}.{_key(k)}", lines)


def _is_table(v: Any) -> bool:
    return isinstance(v, dict)


def _is_tables(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def to_toml(data: dict[str, Any], header: str = "") -> str:
    """``data`` as a TOML document (the subset a scenario file uses), with ``header`` as comment lines first."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    _table(data, "", lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def write_trace(data: dict[str, Any], played: Played, seed: int, path: Path, command: str) -> None:
    """Write the trace file of ``played`` (game ``played.game`` of ``seed``) at ``path``."""
    path.write_text(trace_text(data, played, seed, path.name, command))


def trace_text(data: dict[str, Any], played: Played, seed: int, name: str, command: str) -> str:
    """The trace file of ``played`` (game ``played.game`` of ``seed``), to be saved as ``name``."""
    header = (
        f"Trace of game {played.game} of seed {seed} ({command}): the automatic players' activations as a plan, each\n"
        f"with the dice it was played with. Final VP: red {played.vp[0]}, blue {played.vp[1]}.\n"
        f"Replay it: mathhammer scenario run {name} --seed {seed} --game {played.game}"
    )
    return to_toml(trace_data(data, played, comments=True), header)


# ------------------------------------------------------------------ pictures
def round_figure(scn: Scenario, played: Played, world: Any, r: int) -> Any:
    """The picture of Round ``r`` of ``played`` (a matplotlib Figure, see the module text): the board at its end, and
    its activations carried out (not the void ones, written as Holds) as lines with ``gid`` ``move``, ``shoot`` or
    ``charge``, the other units an activation moved ``react``; the markers' contest circles ``marker``."""
    import matplotlib
    from matplotlib.patches import Circle

    matplotlib.use("Agg")
    from ...board.plot import plot_board, side_colours

    pos, alive = played.rounds[r - 1]
    board = world.board_for(pos, alive)
    fig = plot_board(board, title=f"{scn.name}: game {played.game}, round {r}")
    colours = side_colours(board)  # the players' lines in their models' colours
    ax = fig.axes[0]
    for m in scn.deployment.markers:
        ax.add_patch(Circle((m.x, m.y), 3.0, fill=False, ls=":", color="#555555", gid="marker"))
        ax.text(m.x, m.y, f"M{m.number}", ha="center", va="center", fontsize=7, color="#555555")
    for step in (s for s in played.steps if s.act.round == r):
        for t, was, now in step.moved:  # another unit it moved (a Lunge): from where its Leading Model stood
            start, end = _lead(world, was), _lead(world, now)
            if start is not None and end is not None and start != end:
                style = {"arrowstyle": "->", "ls": "-.", "color": colours.get(scn.units[world.uids[t]].player, "black")}
                ax.annotate("", end, start, arrowprops={**style, "lw": 1.2}, gid="react")
        if step.void:
            continue
        a = step.act
        colour = colours.get(a.player, "black")
        start, end = _lead(world, step.before), _lead(world, step.after)
        if a.action in MOVES:
            if start is not None and end is not None and start != end:
                ax.annotate("", end, start, arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.2}, gid="move")
        elif a.action in ("shoot", "charge") and (end or start) is not None and a.targets:
            # a Shoot to each enemy unit its Batches struck (its ``then`` too), a Charge to its first target
            foes = [t for t in step.struck if scn.units[world.uids[t]].player != a.player]
            aimed = foes if a.action == "shoot" and foes else [world.uids.index(a.targets[0])]
            style = {"arrowstyle": "->", "ls": "--"} if a.action == "charge" else {"arrowstyle": "-", "ls": ":"}
            for t in aimed:
                there = _lead(world, step.pos[t])
                if there is not None:
                    ax.annotate("", there, end or start, arrowprops={**style, "color": colour, "lw": 1.0}, gid=a.action)
    return fig


def _lead(world: Any, pid: int) -> tuple[float, float] | None:
    """The Leading Model's centre of placement ``pid`` (None: not on the table)."""
    if pid < 0:
        return None
    x, y = world.placements[pid].centres[0]
    return float(x), float(y)


__all__ = [
    "Played",
    "Step",
    "entry",
    "record",
    "round_figure",
    "sample",
    "to_toml",
    "trace_data",
    "trace_text",
    "write_trace",
]
