"""PLACE (X) (``place``; part 11: "Remove it and set it Wholly Within X\\" of its starting position ... not moved
along a path"; Blink, Phase, Ready for Pickup?) to the plan's ``place_to``, before the action; then a Reaction that
answers it (``heal_after_place``; Veil of Shadows: "That Unit immediately resolves the HEAL (2) effect") in the games
where it was set."""

from __future__ import annotations

import math

import numpy as np

from ...board.model import EPS
from ...starcraft.schema import Ability, Effect
from ..checkview import CardCheck, CheckView, ReactionCheck, trigger
from ..lookup import Found, find, use_bits, used_effects
from ..spec import Activation, Reaction, Scenario
from .registry import Card, register


@register
class Place(Card):
    kinds = ("place", "heal_after_place")
    order = 90  # after an extra Move

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, ("place",))

    def before_action(self, u: int, act: Activation, here: np.ndarray) -> bool:
        sim = self.sim
        if act.place_to is None or not sim.effects(u, use_bits(sim, u, act.use), "place"):
            return False
        if any(a.text.lower().startswith("if unengaged") for a, _ in used_effects(sim.scn, act, "place")):
            engaged = sim.engaged_mask(here, u)  # Leaping Strike: "If Unengaged, resolve the PLACE (6) effect"
            sim.skip(act, int(engaged.sum()), "the unit is Engaged: no PLACE (its text: If Unengaged)")
            here = here[~engaged]
        placed = sim.move_to(u, here, act.place_to, act, moving=False)
        for rx in act.react:
            found = find(sim.scn, rx.unit, rx.use)
            for e in found.ability.effects if found and rx.unit == act.unit else []:
                if e.kind == "heal_after_place":  # "That Unit immediately resolves the HEAL (2) effect"
                    sim.mark[u, placed] = np.maximum(0, sim.mark[u, placed] - e.value)
        return False


# ----------------------------------------------------------------------------------------------------------------------
# PLACE (X), part 11: Blink, Phase, Ready for Pickup? (``place_to``).
class PlaceCheck(CardCheck):
    order = 100
    kinds = ("place",)

    @staticmethod
    def before_action(chk: CheckView, act: Activation, engaged: bool) -> bool:
        """PLACE (X) of an ability of ``use`` (Blink, Phase, Ready for Pickup?) to the plan's ``place_to``: the Leading
        Model set Wholly Within X" of where it stands (its centre at most X away; part 11 PLACE), on the playmat, a
        legal end, not Within 1" of an enemy; "instead of performing a standard action" (Ready for Pickup?): the
        activation holds. True where the unit was set (``pos`` updated)."""
        scn, world, say, warn, pos = chk.scn, chk.world, chk.say, chk.warn, chk.pos
        places = [(a, e.value) for a, e in used_effects(scn, act, "place")]
        if act.place_to is None:
            if places and act.action != "deploy":
                warn(
                    act,
                    "use: a PLACE effect with no place_to = [x, y] (where its Leading Model is set): the unit stays",
                )
            return False
        if not places:
            say(act, "place_to: no ability of use resolves a PLACE effect (Blink, Phase, Ready for Pickup?)")
            return False
        for a, _ in places:
            if "instead of performing a standard action" in a.text.lower() and act.action != "hold":
                say(act, f"{a.name!r} resolves instead of a standard action (its text): the action must be hold")
            if a.text.lower().startswith("if unengaged") and engaged:
                say(act, f"place_to: the unit is Engaged; {a.name!r} resolves its PLACE only If Unengaged (its text)")
                return False
        if act.unit not in pos:
            return False
        reach = max(v for _, v in places)
        d = math.dist(world.placements[pos[act.unit]].centres[0], act.place_to)
        if d > reach + EPS:
            say(
                act,
                f'place_to: {d:.1f}" from the Leading Model; PLACE ({reach}) sets it Wholly Within {reach}" (part 11)',
            )
        return chk.set_unit(act, act.place_to, None, "place_to")


Place.plan_check = PlaceCheck


# ----------------------------------------------------------------------------------------------------------------------
# A heal after a Friendly Unit's PLACE effect (Veil of Shadows).
class HealAfterPlaceReaction(ReactionCheck):
    order = 80

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return next((e for e in a.effects if e.kind == "heal_after_place"), None)

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        if not own or rx.unit != act.unit or act.place_to is None:
            where = f"the activation of {rx.unit!r} with place_to"
            trigger(chk.say, act, at, found.ability, "a Friendly Unit's PLACE effect", where)


Place.reaction_check = HealAfterPlaceReaction
