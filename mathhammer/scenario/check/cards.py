"""The walk's trigger points for the cards' plan checks (``Card.plan_check``, :func:`~..cards.plan_checks`: each a
:class:`~..checkview.CardCheck` in its card's module), and the checks every card shares: the token a use sets
(``token_at``), the selected unit (``select``, 10.1), the plan fields only a card reads, and the End of the Round
(8.9.4)."""

from __future__ import annotations

from ..abilities import (
    TOKEN_RADIUS,
    Found,
    find,
    on_selected_weapons,
    select_reach,
)
from ..checkview import within_now as _within_now
from ..spec import PLAYERS, Activation
from .attacks import AttackChecks
from .common import (
    FAMILIES,
    _collect,
)


class CardChecks(AttackChecks):
    """The walk's trigger points for the cards' plan checks (:data:`FAMILIES`), and the checks all cards share:
    methods of :class:`~.walk.PlanCheck`."""

    def round_start(self, rnd: int) -> None:
        for fam in FAMILIES:
            fam.round_start(self, rnd)

    def activation_ok(self, act: Activation) -> bool:
        return all(fam.activation_ok(self, act) for fam in FAMILIES)

    def use_ok(self, act: Activation, found: Found) -> None:
        for fam in FAMILIES:
            fam.use_ok(self, act, found)

    def after_select(self, act: Activation, acted: set[str], again: set[str]) -> None:
        for fam in FAMILIES:
            fam.after_select(self, act, acted, again)

    def after_reactions(self, act: Activation, engaged: bool) -> bool:
        moved = False
        for fam in FAMILIES:
            moved = fam.after_reactions(self, act, engaged) or moved
        return moved

    def before_action(self, act: Activation, engaged: bool) -> bool:
        moved = False
        for fam in FAMILIES:
            moved = fam.before_action(self, act, engaged) or moved
        return moved

    def after_shoot(self, act: Activation) -> None:
        for fam in FAMILIES:
            fam.after_shoot(self, act)

    def instead_of_action(self, act: Activation, on: bool, engaged: bool) -> bool:
        return any(fam.instead_of_action(self, act, on, engaged) for fam in FAMILIES)

    def card_checks(self, act: Activation) -> bool:
        """The fields only a card reads, then ``on_use`` of each family whose kinds ``act``'s abilities use, in
        :data:`FAMILIES` order. True where one ends the activation (Mass Recall returned the unit itself to Reserves);
        the later ones are then not called."""
        self._stray_fields(act)
        return any(fam.used(self, act) and fam.on_use(self, act) for fam in FAMILIES)

    def _check_token(self, act: Activation) -> None:
        """The token or Faction Indicator an ability of ``use`` sets at the plan's ``token_at`` (Creep Tumors,
        Scanner Sweep, Mass Recall, Ready for Dust-Off, a Shade, Force Field): on the battlefield; then each setting
        family's own check of it (:meth:`CardCheck.token`)."""
        say = self.say
        setting = [fam for fam in FAMILIES if fam.sets_token(self, act)]
        if act.token_at is None:
            if setting:
                self.warn(
                    act, "use: the ability sets a token or Faction Indicator: give token_at = [x, y] (its centre)"
                )
            return
        if not setting:
            say(
                act,
                "token_at: no ability of use sets a token (Creep Spread, Excrete Creep, Spawn "
                "Creep Tumor, Scanner Sweep, Surveillance, Oversight Mode, Mass Recall, Psionic "
                "Transfer, Ready for Dust-Off, Ventral Sacs, Force Field)",
            )
            return
        x, y = act.token_at
        w, d = self.scn.board.width, self.scn.board.depth
        if not (TOKEN_RADIUS <= x <= w - TOKEN_RADIUS and TOKEN_RADIUS <= y <= d - TOKEN_RADIUS):
            say(act, f'token_at: ({x:g}, {y:g}) puts the token off the battlefield ({w:g}" x {d:g}")')
            return
        for fam in setting:
            fam.token(self, act, (x, y))

    def _end_of_round(self) -> None:
        """The End of the Round (8.9.4): "The holder of the First Player Marker resolves their first. If a player has
        multiple "End of the Round" effects to resolve, that player chooses the order": a player's own in plan order
        (``CardCheck.end_of_round``: Rapid Ingress's removals first, then the tokens of ``ending``), as the simulation.
        Who holds the Marker is read per game, so where both players have effects the round is walked with each
        player first: a problem in both orders is an error, one in a single order a warning naming that order. The
        plan goes on from the walk with ``scn.first_player`` (red on a roll-off or alternating) first; ``ending`` is
        emptied."""
        scn, pos, ending = self.scn, self.pos, self.ending
        has = {p for p in PLAYERS if any(fam.has_end_of_round(self, pos, p) for fam in FAMILIES)}
        first = scn.first_player if scn.first_player in PLAYERS else PLAYERS[0]
        orders = [(first, *(p for p in PLAYERS if p != first))]
        if len(has) > 1:
            orders.append(tuple(reversed(orders[0])))
        found: list[list[tuple[Activation, str]]] = []
        walked: list[dict[str, int]] = []
        for order in orders:
            now = dict(pos)
            out: list[tuple[Activation, str]] = []
            for player in order:
                for fam in FAMILIES:
                    fam.end_of_round(self, _collect(out), now, player)
            found.append(out)
            walked.append(now)
        for act, msg in found[0]:
            if len(found) == 1 or (act, msg) in found[1]:
                self.say(act, msg)
            else:
                self.warn(act, f"{msg} (when {orders[0][0]} holds the First Player Marker and resolves first, 8.9.4)")
        if len(found) > 1:
            for act, msg in found[1]:
                if (act, msg) not in found[0]:
                    self.warn(
                        act, f"{msg} (when {orders[1][0]} holds the First Player Marker and resolves first, 8.9.4)"
                    )
        after = walked[0]
        pos.clear()
        pos.update(after)
        ending.clear()

    def _check_select(self, act: Activation) -> None:
        """10.1: an Active ability of ``use`` that selects a unit ("Select one Enemy Unit Within 12\"") names it in
        ``select``: a unit of the side its text asks for, on the table and Within range at this point of the plan.
        Its effects on the selected unit's weapons (Optical Flare) go into ``on_unit`` for the unit's shots."""
        scn, say = self.scn, self.say
        chosen = dict(act.select)
        for name in act.use:
            found = find(scn, act.unit, name)
            if found is None:
                continue  # the use check names it
            a = found.ability
            picks = [e for e in a.effects if e.select]
            unit = next((u for n, u in chosen.items() if n.strip().lower() == name.strip().lower()), None)
            if not picks:
                if unit is not None:
                    say(act, f"select: {a.name!r} selects no unit (its modelled effects are for {act.unit!r} itself)")
                continue
            side = picks[0].select
            mine = scn.units[act.unit].player
            ok = sorted(
                u for u, su in scn.units.items() if (su.player == mine) == (side == "friendly") and u != act.unit
            )
            if unit is None:
                say(
                    act,
                    f"select: {a.name!r} selects a{'n' if side == 'enemy' else ''} {side.title()} Unit (its text: "
                    f"{a.text!r}); name it: select = {{ {a.name!r} = one of {', '.join(ok) or 'none'} }}",
                )
                continue
            tags = {t for e in picks for t in e.vs_tags}
            if tags:  # "Select another Friendly Biological Unit"
                ok = [u for u in ok if tags & set(scn.units[u].unit.card.combat_tags)]
            if unit not in ok:
                say(act, f"select.{a.name}: got {unit!r}; allowed: {', '.join(ok) or 'none'} (its text: {a.text!r})")
                continue
            if any(fam.picked(self, act, a, picks, unit) for fam in FAMILIES):
                continue  # a family's own check of the pick (Ready for Dust-Off, Bound by the Khala)
            if unit not in self.pos:
                say(act, f"select.{a.name}: {unit!r} is not on the table at this point of the plan (10.1)")
                continue
            reach, _ = select_reach(scn, act.unit, a)
            if act.unit in self.pos and not _within_now(scn, self.world, self.pos, act.unit, unit, reach):
                say(
                    act,
                    f'select.{a.name}: {unit!r} is not Within {reach:g}" of {act.unit!r} at this point of the plan '
                    "(10.1: the target is in range)",
                )
                continue
            weapons = on_selected_weapons(found, act.unit, act.options)
            if weapons is not None:
                self.on_unit[(unit, weapons.name)] = weapons

    def _stray_fields(self, act: Activation) -> None:
        """Fields of the plan that only a card's effect reads (:meth:`CardCheck.reads`), given without one: ``edge``
        (Comsat Station, or a Deploy by another table edge) and ``summon_to`` (a summon)."""
        reads = frozenset[str]().union(*(fam.reads(self, act) for fam in FAMILIES))
        if act.edge is not None and "edge" not in reads:
            self.say(
                act,
                "edge: only with an ability that Deploys from another table edge (Warp In, Armed and Ready) or "
                "closes one (Comsat Station)",
            )
        if act.summon_to is not None and "summon_to" not in reads:
            self.say(
                act, "summon_to: no ability of use sets a unit anywhere (Pylon Warp-In, Omega Network, Rapid Ingress)"
            )
