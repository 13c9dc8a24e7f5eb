"""Ranged Attack and Charge checks of the plan walk (8.7.3, 8.7.7), HIDDEN targets and the Disengage penalty (8.5.4
Tactical Mass)."""

from __future__ import annotations

import math
from collections.abc import Callable

from ...board.model import EPS
from ...errors import MathhammerError
from ...starcraft.loadout import Loadout, attack_batches
from ..spec import Activation
from .common import (
    FAMILIES,
)
from .moves import MoveChecks


class AttackChecks(MoveChecks):
    """Ranged Attack and Charge checks of the plan walk: methods of :class:`~.walk.PlanCheck`."""

    #: a Charge's path searched only up to the longest it may be (Speed + 6 + additions, ``World.charge_length``'s
    #: ``reach``): the same verdict, faster, but a refusal's "needs" is then a length beyond that, not the path's
    #: own; set by the automatic players' legality (players/legal.py), which reads verdicts only
    bounded_charges = False
    #: a Ranged Attack judged by its verdict alone (``World.eligible``: Line of Sight traced only until a Visible target
    #: model Within Range is found), a refusal named without the facts' reasons; set by the automatic players'
    #: legality (players/legal.py), which reads verdicts only
    verdicts_only = False

    def _hidden_now(self, act: Activation) -> dict[str, str]:
        """The planned targets of ``act`` HIDDEN at this point of the plan, with their facts tag, as the simulation
        reads them: HIDDEN by a card (:meth:`CardCheck.hidden`: BURROWED, or by an ability used on them this Round, Path
        of Shadows; the first card's tag), not where a card reveals them (:meth:`CardCheck.detected`: an enemy Faction
        Indicator of detection or an enemy unit with Detection Within its range)."""
        out: dict[str, str] = {}
        for t in act.targets:
            if t not in self.pos:
                continue
            tag = next((tag for fam in FAMILIES if (tag := fam.hidden(self, t)) is not None), None)
            if tag is not None and not any(fam.detected(self, t) for fam in FAMILIES):
                out[t] = tag
        return out

    def _check_shoot(
        self,
        act: Activation,
        p_now: tuple[int, ...],
        a_now: tuple[int, ...],
        lo: Loadout | None = None,
        hidden: dict[str, str] | None = None,
    ) -> None:
        """8.7.3: the planned shot has a target it may shoot at this point of the plan; ``hidden``: the targets HIDDEN
        or BURROWED then, not detected (their facts tag: not Visible beyond 4", part 11)."""
        scn, say = self.scn, self.say
        world = self.grass.update(self.pos, act)  # part 11 GRASS: the board without the pieces removed so far
        su = scn.units[act.unit]
        lo = su.loadout if lo is None else lo
        names = [w.name for w in su.unit.card.weapons] + [w.name for up in su.loadout.upgrades for w in up.weapons]
        for w in act.weapons:
            if w not in names:
                say(act, f"weapons: got {w!r}; allowed: weapons of {su.unit.name}: {', '.join(names)}")
                return
        reasons: list[str] = []
        auto = self._auto_targets(act, lambda t: True)
        for t in act.targets:
            tu = scn.units[t]
            if t in auto:
                continue
            if a_now[world.uids.index(t)] <= 0:
                reasons.append(f"{t}: not on the table at this point of the plan")
                continue
            for b in attack_batches(lo, tu.unit, "assault", first=act.weapons[0] if act.weapons else None):
                if act.weapons and b.name not in act.weapons:
                    continue
                tags = tuple(tu.unit.card.combat_tags) + ((hidden[t],) if hidden and t in hidden else ())
                if self.verdicts_only:
                    if world.eligible(p_now, a_now, act.unit, t, b.weapon, tags):
                        return
                    reasons.append(f"{t} with {b.name}: not eligible (8.7.3 step 1)")
                    continue
                f = world.facts(p_now, a_now, act.unit, t, b.weapon, tags)
                if f.eligible:
                    return
                reasons.extend(f"{t} with {b.name}: {r}" for r in f.refusals)
            if not attack_batches(lo, tu.unit, "assault"):
                reasons.append(
                    f"{t}: no Assault Phase weapon of {su.unit.name} may target it (8.7.3 step 1, Combat Tag)"
                )
        if auto:
            self._at_auto(act, auto, "shoots in the games where a planned target may be shot", reasons)
            return
        problem = "no planned target can be shot: " + "; ".join(reasons)
        gone, p_s, a_s = self.spared((act.unit, *act.targets))
        # units the plan attacked cut to their Leading Model (the models removed first, 8.7.5): none Engaged by a
        # model casualties removed
        cut = sorted(u for u in self.pos if u in self.attacked and u not in gone and scn.units[u].models > 1)
        a_c = tuple(1 if u in cut and k > 0 else k for u, k in zip(self.world.uids, a_s, strict=True))
        if gone and any(self._may_shoot(act, t, p_s, a_s, lo, hidden) for t in act.targets):
            self.if_destroyed(act, problem, gone)  # Engaged restrictions (8.7.3 step 1) with units destroyed
        elif cut and any(self._may_shoot(act, t, p_s, a_c, lo, hidden) for t in act.targets):
            self.warn(
                act,
                f"{problem} at the walk's full-strength placements; legal only in games where casualties first "
                f"removed models of {', '.join(map(repr, cut))}"
                + (f" or destroyed {', '.join(map(repr, gone))}" if gone else "")
                + " (8.7.5: destroyed models are removed); the simulation skips it in the other games",
            )
        elif self.loose_by(units := (act.unit, *act.targets)) or self.formed.intersection(units):
            set_by = [
                *(f"the Leading Model of {u!r}" for u in units if u in self.loose),
                *(
                    f"the models of {u!r} behind its Leading Model (it moved from there)"
                    for u in units
                    if u in self.formed
                ),
            ]
            self.warn(
                act,
                f"{problem} at the walk's placements; the game set {', '.join(set_by)} (a Charge's end, 8.7.7; "
                "CLOSE RANKS, 8.8.1 step 1): legal only in games where the models stand otherwise; the simulation "
                "skips it in the other games",
            )
        else:
            say(act, problem)

    def _may_shoot(
        self,
        act: Activation,
        t: str,
        p: tuple[int, ...],
        a: tuple[int, ...],
        lo: Loadout,
        hidden: dict[str, str] | None,
    ) -> bool:
        """A Batch of ``act`` may shoot planned target ``t`` in state ``(p, a)`` (8.7.3 step 1)."""
        world, tu = self.grass.update(self.pos, act), self.scn.units[t]
        if a[world.uids.index(t)] <= 0:
            return False
        tags = tuple(tu.unit.card.combat_tags) + ((hidden[t],) if hidden and t in hidden else ())
        return any(
            world.eligible(p, a, act.unit, t, b.weapon, tags)
            for b in attack_batches(lo, tu.unit, "assault", first=act.weapons[0] if act.weapons else None)
            if not act.weapons or b.name in act.weapons
        )

    def _auto_targets(self, act: Activation, keep: Callable[[str], bool]) -> list[str]:
        """A scripted player's targets among the automatic player's units (``keep`` those the rule reads). An
        automatic player's own activation has none: it is judged in a game's state (``players/legal.py``), where
        every unit's place is known."""
        scn = self.scn
        if act.player in scn.policies:
            return []
        return [t for t in act.targets if scn.units[t].player in scn.policies and keep(t)]

    def _at_auto(self, act: Activation, auto: list[str], where: str, reasons: list[str]) -> None:
        """A scripted player's Shoot or Charge at units of an automatic player (issue 29): the plan cannot know where
        they stand, so the check warns with the condition and the simulation acts where it can and skips the rest
        (counted in its report)."""
        scn = self.scn
        owner = scn.units[auto[0]].player
        more = f" (the other targets: {'; '.join(reasons)})" if reasons else ""
        self.warn(
            act,
            f"targets {auto} belong to the automatic player {owner} (policy {scn.policies[owner]!r}): where they stand "
            f"is chosen in play; the simulation {where} and skips the {act.action} in the other games{more}",
        )

    def _spared_charge(
        self,
        act: Activation,
        p: tuple[int, ...],
        a: tuple[int, ...],
        reach: float | None,
        fields: tuple[tuple[float, float], ...],
        dash: bool,
    ) -> tuple[float, tuple[float, float]] | None:
        """The Charge's length and end in state ``(p, a)`` (units casualties may have destroyed off the table), or
        None: no end there either."""
        try:
            length, end = self.world.charge_length(p, a, act.unit, act.targets, reach, fields=fields, engaged_ok=dash)
        except MathhammerError:
            return None
        return None if end is None else (length, end)

    def _check_charge(
        self,
        act: Activation,
        p_now: tuple[int, ...],
        a_now: tuple[int, ...],
        speed: int | None = None,
        more: int = 0,
        fields: tuple[tuple[float, float], ...] = (),
        dash: bool = False,
    ) -> bool:
        """8.7.7: the Charge can reach its targets at all: at most Speed (``speed``: with BUFF Speed) + 6 + the
        additions of the abilities used (``more``: Leap); ``fields``: the Force Fields it cannot move across;
        ``dash``: Lightning Dash's second Charge, from an Engaged start. Whether the unit was set at the end."""
        scn, world, say, pos = self.scn, self.world, self.say, self.pos
        su = scn.units[act.unit]
        label = "Lightning Dash's second Charge: " if dash else ""
        speed = su.speed if speed is None else speed
        if su.flying:
            say(act, "a Flying unit cannot Charge (8.7.7)")
            return False
        auto = self._auto_targets(act, lambda t: not scn.units[t].flying)
        if auto and not dash:
            self._at_auto(act, auto, "charges in the games where it can reach them (8.7.7)", [])
            return False
        bad = [t for t in act.targets if scn.units[t].flying or t not in pos]
        if bad:
            say(act, f"{label}targets {bad}: Charge targets must be Ground units on the table (8.7.7)")
            return False
        try:
            reach = None
            if self.bounded_charges:  # the bounded search sets the Leading Model alone: the unit's Engagement here
                reach = speed + 6 + more + EPS
                if not dash and world.unit_engaged(p_now, a_now, world.index[act.unit]):
                    say(act, f"{label}an Engaged unit cannot Charge (8.7.7: 'An Unengaged Ground Unit')")
                    return False
            length, end = world.charge_length(
                p_now, a_now, act.unit, act.targets, reach, fields=fields, engaged_ok=dash
            )
        except MathhammerError as exc:  # 8.7.7 "An Unengaged Ground Unit": Engaged at the walk's placements
            surely, foes = self.engaged_surely(act.unit)
            if surely or not foes:
                say(act, f"{label}{exc}")
                return False
            self.if_destroyed(act, f"{label}{exc}", foes)
            p_s, a_s = self.without([f for f in foes if f not in act.targets])  # the games where it is not Engaged
            try:
                length, end = world.charge_length(
                    p_s, a_s, act.unit, act.targets, reach, fields=fields, engaged_ok=dash
                )
            except MathhammerError:
                return False  # Engaged with its target at the walk's placements: no path to judge there
        limit = speed + 6 + more
        if end is None or length > limit + EPS:
            shown = "no legal end position" if end is None else f'{length:.1f}"'
            plus = f" + {more}" if more else ""
            problem = f"{label}cannot reach: needs {shown}, at most Speed {speed} + 6{plus} (8.7.7)"
            gone, p_s, a_s = self.spared((act.unit, *act.targets))
            spared = self._spared_charge(act, p_s, a_s, reach, fields, dash) if gone else None
            if spared is not None and spared[0] <= limit + EPS:  # the bases in the way destroyed in some games
                self.if_destroyed(act, problem, gone)
                end = spared[1]
            elif end is None:
                say(act, problem)
                return False
            elif not self._too_far(act, problem, length - limit, act.targets):
                return False
            # legal in the games where the game set the Leading Models near enough: the walk goes on with the Charge
            # made there (every Charge successful), its end by the walk's placement of the target, as far from the
            # game's as that is (below)
        assert end is not None
        tx, ty = world.placements[pos[act.targets[0]]].centres[0]
        rear = (end[0] - tx, end[1] - ty)
        pid = world.place(su, end, rear, tuple(p for u, p in pos.items() if u != act.unit), act.targets)
        gone, _, _ = self.spared((act.unit, *act.targets))
        if pid is None and gone:  # set by the game where casualties destroyed the units in the way (8.7.5)
            rest = tuple(p for u, p in pos.items() if u != act.unit and u not in gone)
            pid = world.place(su, end, rear, rest, act.targets)
        if pid is not None:
            # the game sets the Leading Model's end from the targets' models left (8.7.7 step 4): anywhere along
            # the first target's models in some games
            centres = world.placements[pos[act.targets[0]]].centres
            spread = max((math.dist(a, b) for a in centres for b in centres), default=0.0)
            self.loose[act.unit] = self.loose_by((act.unit, act.targets[0])) + spread
            pos[act.unit] = pid
            self.formed.discard(act.unit)  # its Leading Model ``loose``, its models behind it
        return pid is not None

    def _penalty(self, act: Activation, mass: tuple[bool, str]) -> None:
        """8.5.4 Disengage penalty on a Ranged Attack or Charge of ``act``'s unit after it Disengaged this Round
        (:func:`_tactical_mass`), unless an ability used on it "ignores the Disengage penalty" (Tactical Retreat)."""
        say, warn = self.say, self.warn
        effects = self._loadout_now(act.unit).effects()
        if any(fam.lifts_penalty(self, act, effects) for fam in FAMILIES):
            return
        never, why = mass
        rule = '8.5.4: "cannot perform Ranged Attack or Charge in the following Assault Phase" without Tactical Mass'
        if never:
            say(act, f"{act.unit!r} Disengaged this Round and has no Tactical Mass: {why} ({rule})")
        else:
            warn(
                act,
                f"{act.unit!r} Disengaged this Round: it has Tactical Mass {why} ({rule}); the simulation skips the "
                f"{act.action} in the other games",
            )
