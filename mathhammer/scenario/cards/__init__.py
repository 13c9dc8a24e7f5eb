"""Ability cards as plug-ins: one module per card or effect family, each registering itself by effect kind
(:mod:`.registry`). Importing this package registers every card below; the Simulation keeps the cards present in
its scenario (:class:`~.registry.CardSet`) and calls them at named trigger points (:class:`~.registry.Trigger`)."""

from __future__ import annotations

from . import (
    burrow,
    charge,
    creep,
    deploy_place,
    deploy_via,
    detection,
    edge_block,
    end_of_round,
    extra_move,
    force_field,
    lunge,
    on_itself,
    place,
    recall,
    regeneration,
    respawn,
    selected,
    structure,
    summon,
    supply,
    warp_in,
)
from .registry import Card, CardSet, Trigger, card_for, register, registered

__all__ = [
    "Card",
    "CardSet",
    "Trigger",
    "burrow",
    "card_for",
    "charge",
    "creep",
    "deploy_place",
    "deploy_via",
    "detection",
    "edge_block",
    "end_of_round",
    "extra_move",
    "force_field",
    "lunge",
    "on_itself",
    "place",
    "recall",
    "regeneration",
    "register",
    "registered",
    "respawn",
    "selected",
    "structure",
    "summon",
    "supply",
    "warp_in",
]
