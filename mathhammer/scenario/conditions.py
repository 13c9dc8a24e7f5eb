"""Conditions on planned activations (issue 6 point 1): ``if`` and ``unless`` lists of a plan entry.

An activation of the Movement or Assault Phase may carry ``if = [...]`` (every condition must
hold) and ``unless = [...]`` (none may hold)::

    red.assault = [
        { unit = "marine-1", action = "shoot", targets = ["zergling-1"] },
        { unit = "marine-2", action = "shoot", targets = ["zergling-1"], unless = ["zergling-1 destroyed"] },
        { unit = "marauder-1", action = "charge", targets = ["roach-1"], if = ["marauder-1 unengaged"] },
    ]

The grammar, one condition a string, words separated by spaces (exact, lower case):

=================================  ======================================================================
``UNIT destroyed``                 every model of the unit removed (8.7.4 step 5)
``UNIT on table``                  the unit is on the battlefield
``UNIT in reserves``               the unit is in Reserves (not yet deployed, 8.5.5)
``UNIT engaged``                   on the table and Engaged with an enemy unit (7.2.1)
``UNIT unengaged``                 on the table and not Engaged
``marker N red|blue|uncontrolled`` who Controls Mission Marker N (8.9.1; sticky, so as of the last
                                   Scoring Phase; a Deactivated marker is controlled too, FAQ v1.0;
                                   a scored Supply Drop marker is removed: uncontrolled)
``red|blue ahead|behind``          that player has more (fewer) Victory Points than the other
``vp tied``                        both players have the same Victory Points
=================================  ======================================================================

``UNIT`` is a unit id of either player (``marine-1``), ``N`` the number of a marker of the
deployment. Each trial evaluates the conditions on its own state at the moment the activation
comes up in the alternation (8.2.1); in a trial where they fail the activation is skipped and
counted in the run's ``skipped`` lines with the first condition that failed. A skipped activation
behaves like the unit Holding: the activation keeps its place in the alternation (the order of
activations is the plan's, the same in every trial, and the opponent gets no extra activation;
a player who runs out of planned activations Passes as before), and nothing of it happens: no
Deploy, Move, attack, ability (``use``) or Reaction (``react``).

Combat Phase entries take no condition: every Engaged unit fights (8.8.1), a ``fight`` entry only
orders the fights and their targets. A ``pass`` takes none either (it is not an activation).
``scenario check`` walks the plan as written, every conditional activation happening at full
strength; a condition naming an unknown unit or marker is a file error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .spec import Activation, Condition

if TYPE_CHECKING:  # pragma: no cover
    from .simview import SimView

PLAYER_NAMES = ("red", "blue")
UNIT_STATES = ("destroyed", "on table", "in reserves", "engaged", "unengaged")
CONTROLLERS = ("red", "blue", "uncontrolled")
#: The allowed forms, for messages.
FORMS = (
    '"UNIT destroyed", "UNIT on table", "UNIT in reserves", "UNIT engaged", "UNIT unengaged", '
    '"marker N red", "marker N blue", "marker N uncontrolled", "red ahead", "red behind", "blue ahead", '
    '"blue behind", "vp tied" (UNIT: a unit id; N: a marker number of the deployment; '
    "to negate one, list it in `unless`)"
)


def parse_condition(text: str, units: dict[str, str], markers: list[int]) -> Condition | str:
    """A condition, or the ``allowed: ...`` part of the problem (``units``: unit id -> player).

    >>> parse_condition("marine-1 on table", {"marine-1": "red"}, [1, 5])
    Condition(text='marine-1 on table', kind='on table', subject='marine-1', marker=0)
    >>> parse_condition("marker 3 red", {}, [1, 5])
    'allowed: a marker of the deployment: marker 1, marker 5'
    """
    words = text.split()
    if len(words) >= 2:
        head, rest = words[0], " ".join(words[1:])
        if head == "marker" and len(words) == 3:
            if not words[1].isdigit() or int(words[1]) not in markers:
                return f"allowed: a marker of the deployment: {', '.join(f'marker {n}' for n in markers)}"
            if words[2] not in CONTROLLERS:
                return f"allowed: marker {words[1]} {' | '.join(CONTROLLERS)} (8.9.1 control)"
            return Condition(text, "marker", words[2], int(words[1]))
        if head in PLAYER_NAMES and rest in ("ahead", "behind"):
            return Condition(text, rest, head)
        if words == ["vp", "tied"]:
            return Condition(text, "tied")
        if rest in UNIT_STATES and head not in ("marker", "vp", *PLAYER_NAMES):
            if head not in units:
                return f"allowed: UNIT {rest} with UNIT a unit id of either player: {', '.join(sorted(units))}"
            return Condition(text, rest, head)
    return f"allowed: {FORMS}"


def parse_conditions(
    field: str, texts: list[str], units: dict[str, str], markers: list[int]
) -> tuple[tuple[Condition, ...], list[str]]:
    """Parse ``texts`` (the ``field`` list of one entry, ``where.if``): the conditions and the problems."""
    out: list[Condition] = []
    problems: list[str] = []
    for i, text in enumerate(texts):
        got = parse_condition(text, units, markers)
        if isinstance(got, str):
            problems.append(f"{field}[{i}]: got {text!r}; {got}")
        else:
            out.append(got)
    return tuple(out), problems


def holds(sim: SimView, cond: Condition, trials: np.ndarray) -> np.ndarray:
    """Per trial of ``trials``: does ``cond`` hold on the current state?"""
    if cond.kind == "marker":
        m = sim.marker_numbers.index(cond.marker)
        want = -1 if cond.subject == "uncontrolled" else PLAYER_NAMES.index(cond.subject)
        return np.asarray(sim.control[m, trials] == want)
    if cond.kind in ("ahead", "behind", "tied"):
        p = PLAYER_NAMES.index(cond.subject) if cond.subject else 0
        lead = sim.vp[p, trials] - sim.vp[1 - p, trials]
        return np.asarray(lead > 0 if cond.kind == "ahead" else lead < 0 if cond.kind == "behind" else lead == 0)
    u = sim.uids.index(cond.subject)
    on = sim.pos[u, trials] >= 0
    if cond.kind == "destroyed":
        return np.asarray(sim.alive[u, trials] <= 0)
    if cond.kind == "on table":
        return np.asarray(on)
    if cond.kind == "in reserves":
        return np.asarray(~on & (sim.alive[u, trials] > 0))
    engaged = np.zeros(trials.size, dtype=bool)
    if on.any():
        engaged[on] = sim.engaged_mask(trials[on], u)
    return engaged if cond.kind == "engaged" else on & ~engaged


def admit(sim: SimView, act: Activation, trials: np.ndarray) -> np.ndarray:
    """The trials of ``trials`` where every ``if`` of ``act`` holds and no ``unless`` does.

    The others are counted in ``sim.skipped`` with the first condition that failed.
    """
    keep = np.ones(trials.size, dtype=bool)
    checks = [(c, True) for c in act.when] + [(c, False) for c in act.unless]
    for cond, wanted in checks:
        if not keep.any():
            break
        idx = np.flatnonzero(keep)
        fail = holds(sim, cond, trials[idx]) != wanted
        if fail.any():
            why = f"if {cond.text!r} does not hold" if wanted else f"unless {cond.text!r} holds"
            sim.skip(act, int(fail.sum()), f"{why}: the unit holds (a conditional activation)")
            keep[idx[fail]] = False
    return trials[keep]


__all__ = ["FORMS", "Condition", "admit", "holds", "parse_condition", "parse_conditions"]
