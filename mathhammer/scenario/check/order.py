"""The order the plan walk takes a Phase's activations in: the game's own turn order (rulebook 8.2).

* 8.2.1: "players alternate activating units, starting with the player holding the First Player Marker"; a player
  whose planned activations are spent (or who reaches a ``pass`` entry) Passes, "the opponent then completes their
  remaining activations"; "the first player to Pass in a Phase takes the First Player Marker for the next Phase"
  (8.4.2 for the Assault Phase, 8.6.2 for the Combat Phase), unless an ability claimed it for the Phase (Terran
  Tenacity, effect ``first_player``: "No other player may claim the First Player Marker").
* An activation that has a unit Activate right after it (Bound by the Khala's ``activate_next``, a Summoned Unit after
  its Parent Unit, 9.1.9) brings that unit's later activation forward, before the opponent's next one.
* Who holds the First Player Marker at the start of a Round is the plan's only where it says so: Round 1 with
  ``first_player = "red"`` or ``"blue"`` (8.2.2); after a Roll-Off (or ``"alternate"``: by game number), and from
  Round 2 on (8.9.6: "Award the First Player Marker to the player with fewer Victory Points"), it differs between
  games, and the walk takes it as given (:func:`phase_order`'s ``first``; :meth:`~.walk.PlanCheck.run` walks the plan
  with each player holding it).

The same order as the simulation's (``Simulation.order``, ``players.play_turns`` with ``players.scripted.Scripted``) at
full strength; a test holds the two to each other. Pure functions of the plan: no walk state.
"""

from __future__ import annotations

from ..spec import PLAYERS, Activation, Scenario
from .common import FAMILIES


def next_unit(scn: Scenario, act: Activation) -> str | None:
    """The unit that Activates right after ``act`` (Bound by the Khala, a Summoned Unit after its Parent Unit: each
    card's plan check, :meth:`~..checkview.CardCheck.activates_next`), or None."""
    return next((n for fam in FAMILIES if (n := fam.activates_next(scn, act)) is not None), None)


def claims(scn: Scenario, act: Activation) -> bool:
    """``act`` claims the First Player Marker for the Phase (Terran Tenacity: :meth:`CardCheck.claims_first`)."""
    return any(fam.claims_first(scn, act) for fam in FAMILIES)


def phase_order(scn: Scenario, rnd: int, phase: str, first: int) -> tuple[list[Activation], int | None]:
    """Phase ``phase`` of Round ``rnd``'s planned activations in the order they are made from First Player ``first``
    (0 red, 1 blue; see the module text), and the player holding the First Player Marker for the next Phase (the first
    to Pass, or the one who claimed it; None where nobody did). A ``pass`` entry is walked where the player Passes; the
    entries planned after it (never made) follow it, so the walk still reads them."""
    lists: list[list[Activation]] = []
    rest: list[list[Activation]] = []
    for p in PLAYERS:
        acts = scn.activations(rnd, phase, p)
        cut = next((j for j, a in enumerate(acts) if a.action == "pass"), len(acts))
        lists.append(acts[:cut])
        rest.append(acts[cut:])
    index, done = [0, 0], [False, False]
    out: list[Activation] = []
    passer: int | None = None
    claimed: int | None = None
    turn = first
    while not all(done):
        if done[turn]:
            turn = 1 - turn
            continue
        acts, i = lists[turn], index[turn]
        if i >= len(acts):
            done[turn] = True
            passer = turn if passer is None else passer
            out += rest[turn]
            turn = 1 - turn
            continue
        act = acts[i]
        index[turn] = i + 1
        out.append(act)
        if claimed is None and act.unit and claims(scn, act):
            claimed = turn
        nxt = next_unit(scn, act) if act.unit else None
        j = next((k for k in range(i + 1, len(acts)) if acts[k].unit == nxt), None) if nxt else None
        if j is not None:
            acts.insert(i + 1, acts.pop(j))  # the selected unit Activates at once: the same player again
        else:
            turn = 1 - turn
    return out, claimed if claimed is not None else passer


WARNING = "warning: "


def _where(line: str) -> str:
    """The activation a problem line names (``FILE: rounds[0].red.movement[2] (round 1, ...)``)."""
    return line.removeprefix(WARNING).split("): ", 1)[0]


def merge_walks(red: list[str], blue: list[str]) -> list[str]:
    """The problems of a plan walked with red (``red``), then blue (``blue``) holding the First Player Marker in every
    Phase where the plan leaves its holder to the game: an activation with an error both ways keeps red's walk's lines
    as errors; an error one way only is a ``warning:`` with that condition (the game may go either way); every warning
    once."""
    errors = [{_where(x) for x in lines if not x.startswith(WARNING)} for lines in (red, blue)]
    out: list[str] = []
    for i, lines in enumerate((red, blue)):
        for line in lines:
            if line.startswith(WARNING):
                if line not in out:
                    out.append(line)
            elif _where(line) in errors[1 - i]:
                if i == 0:
                    out.append(line)
            else:
                out.append(
                    f"{WARNING}{line}; only where {PLAYERS[i]} holds the First Player Marker in the Phases the plan "
                    "leaves to the game (8.2.1: players alternate from its holder; 8.2.2 a Round 1 Roll-Off, 8.9.6 "
                    "the player with fewer Victory Points)"
                )
    return out


__all__ = ["claims", "merge_walks", "next_unit", "phase_order"]
