"""Warp In (``deploy_edge``): a Deploy from another table edge (the plan's ``edge``), no model Within ``within`` of an
Enemy model; and the opponent's Reactions to a unit entering that way (Photon Overcharge, a Reaction's ``hits``: "That
Unit immediately suffers HITS 3 (1)"). An edge closed this Round (Comsat Station, ``cards/edge_block.py``) is read
before (``before_deploy``)."""

from __future__ import annotations

import re

import numpy as np

from ...starcraft.model import Batch
from ...starcraft.schema import Ability, Effect
from ..abilities import far_from_enemies
from ..basics import stream as _stream
from ..checkview import CardCheck, CheckView, ReactionCheck, trigger
from ..lookup import Found, find, used_effect
from ..spec import Activation, Reaction, Scenario
from ..world import EDGE_REAR
from .registry import Card, register


@register
class WarpIn(Card):
    kinds = ("deploy_edge",)
    order = 30  # after a Deploy through a base or by PLACE

    @classmethod
    def present(cls, scn: Scenario) -> bool:
        return cls.anywhere(scn, cls.kinds)

    def deploy(self, u: int, act: Activation, games: np.ndarray) -> np.ndarray | None:
        """Set unit ``u`` from the table edge ``act.edge`` (its rear that edge's way) in ``games``: which were set;
        then those Within ``within`` of an Enemy model go back to Reserves, and the opponent's Reactions hit it."""
        sim = self.sim
        away = used_effect(sim.scn, act, "deploy_edge")
        if away is None or not act.edge:
            return None
        assert act.to is not None
        got = games[sim.place(u, games, act.to, EDGE_REAR[act.edge], act, arriving=True)]
        if got.size:
            got = far_from_enemies(sim, u, act, got, float(away.within or 0))
            self._entered_elsewhere(u, act, got)
        return got

    def _entered_elsewhere(self, u: int, act: Activation, games: np.ndarray) -> None:
        """The opponent's Reactions to a unit entering the battlefield from Reserves other than by its own Entry Edge
        (Photon Overcharge: "That Unit immediately suffers HITS 3 (1)"; a ``hits`` effect of a Reaction), in
        ``games``."""
        sim = self.sim
        for i, rx in enumerate(act.react):
            found = find(sim.scn, rx.unit, rx.use) if rx.player != act.player else None
            if found is None or found.ability.type != "reaction":
                continue
            for e in found.ability.effects:
                if e.kind == "hits" and games.size:
                    batch = Batch.hits(e.value, e.damage, name=found.ability.name)
                    stream = _stream(sim.round, 7, sim.ordinal[act], i)  # its own draws
                    sim.resolve([batch], u, "assault", games, stream, None, False)


# ----------------------------------------------------------------------------------------------------------------------
# The Deploy by another table edge (8.5.5): Warp In, Armed and Ready, Timing Push (the plan's ``edge``).
_ALREADY = re.compile(r"cannot (?:use this ability|be used) if another Friendly (\w+) Unit has already", re.I)


class WarpInCheck(CardCheck):
    order = 140

    @staticmethod
    def reads(chk: CheckView, act: Activation) -> frozenset[str]:
        deploys = act.action == "deploy" and used_effect(chk.scn, act, "deploy_edge") is not None
        return frozenset({"edge"}) if deploys else frozenset()

    @staticmethod
    def keep_away(chk: CheckView, act: Activation) -> float | None:
        away = used_effect(chk.scn, act, "deploy_edge")
        return None if away is None or away.within is None else float(away.within)

    @staticmethod
    def deploy_edge(chk: CheckView, act: Activation) -> str | None:
        """A deploy by another table edge (``edge``, with Warp In, Armed and Ready or Timing Push: "Deploys from any
        table edge that is not a player's Entry Edge"): the edge named and not an Entry Edge, and no other Friendly
        unit of the kind the text names deployed earlier this Round ("cannot use this ability if another Friendly
        Ground Unit has already Deployed this Round"). The edge it enters by, or None (the player's Entry Edge)."""
        scn, world, say = chk.scn, chk.world, chk.say
        if used_effect(scn, act, "deploy_edge") is None:
            return None  # (an edge without such an ability: the walk's ``reads`` check)
        entry = set(world.edges.values())
        if act.edge is None or act.edge in entry:
            allowed = [e for e in ("north", "south", "east", "west") if e not in entry]
            say(
                act,
                f"edge: got {act.edge!r}; allowed: a table edge that is not a player's Entry Edge: "
                f"{', '.join(allowed)}",
            )
            return None
        if any(edge == act.edge and p != act.player for edge, p in chk.closed):
            chk.warn(
                act,
                f"edge: an enemy's Comsat Station closes the {act.edge} edge this Round: in the games where it "
                "resolves first (the order of activations, 8.2.1) the unit stays in Reserves",
            )
        for name in act.use:
            found = find(scn, act.unit, name)
            m = _ALREADY.search(found.ability.text) if found else None
            if m is None:
                continue
            tag = m.group(1).title()
            before = [u for u, p in chk.deployed if p == act.player and tag in scn.units[u].unit.card.combat_tags]
            if before:
                say(
                    act,
                    f"use: {name!r}: another Friendly {tag} Unit ({before[0]}) "
                    "has already Deployed this Round (its text)",
                )
        return act.edge

    @staticmethod
    def deploys(a: Ability) -> bool:
        return any(e.kind == "deploy_edge" for e in a.effects)


WarpIn.plan_check = WarpInCheck


# ----------------------------------------------------------------------------------------------------------------------
# Photon Overcharge: hits (a Reaction's ``hits``) on an Enemy Unit entering from Reserves other than by its Entry Edge.
class EntryHitsReaction(ReactionCheck):
    order = 70

    @staticmethod
    def match(a: Ability) -> Effect | None:
        return next((e for e in a.effects if e.kind == "hits"), None) if a.type == "reaction" else None

    @staticmethod
    def check(chk: CheckView, act: Activation, rx: Reaction, found: Found, at: str, own: bool, e: Effect) -> None:
        if own or act.action != "deploy" or used_effect(chk.scn, act, "deploy_edge") is None:
            trigger(
                chk.say,
                act,
                at,
                found.ability,
                "an Enemy Unit entering from Reserves other than by its Entry Edge",
                "the opponent's `deploy` with Warp In, Armed and Ready or Timing Push",
            )


WarpIn.reaction_check = EntryHitsReaction
