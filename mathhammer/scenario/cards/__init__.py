"""Ability cards as plug-ins: one module per card or effect family, each registering itself by effect kind
(:mod:`.registry`). Importing this package registers every card below; the Simulation keeps the cards present in
its scenario (:class:`~.registry.CardSet`) and calls them at named trigger points (:class:`~.registry.Trigger`)."""

from __future__ import annotations

from . import (
    charge,
    creep,
    damage_reduction,
    debuffs,
    detection,
    dice_removal,
    edge_block,
    end_of_round,
    force_field,
    impact,
    lunge,
    recall,
    redirect,
    regeneration,
    respawn,
    summon,
    target_effects,
    veteran,
)
from .registry import Card, CardSet, Trigger, card_for, reaction_checks, register, registered

__all__ = [
    "Card",
    "CardSet",
    "Trigger",
    "card_for",
    "charge",
    "creep",
    "damage_reduction",
    "debuffs",
    "detection",
    "dice_removal",
    "edge_block",
    "end_of_round",
    "force_field",
    "impact",
    "lunge",
    "reaction_checks",
    "recall",
    "redirect",
    "regeneration",
    "register",
    "registered",
    "respawn",
    "summon",
    "target_effects",
    "veteran",
]
