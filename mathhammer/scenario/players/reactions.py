"""The Reactions (10.4) an automatic player declares to its opponent's activations, and to its own where an
opponent's Reaction gave its unit a DEBUFF or its unit Charges (issue 29 point 2).

Once the active player's activation is chosen (an automatic player's entry or a scripted plan's), and before it is
applied, :func:`~mathhammer.scenario.players.play_turns` asks the other player, where it is automatic, which of its
Reactions to declare, then the active player, where it is automatic, on each part: :meth:`Reactions.answer` gives
the games split by the answer, each part with the activation carrying the Reaction in ``react`` (as a plan would
declare it), so the engine applies it as it applies a planned one and a trace writes it.

Which Reactions are offered: those of the player's units and cards whose trigger the activation can make and whose
effect the scoring reads (:data:`KINDS`, :data:`OWN_KINDS`):

* Concusive Shells (``charger_debuff_speed``, Marauders): on an Enemy's Charge, a declared target Within ``within``
  (8") of the reacting unit (bases edge to edge, the engine's own test, :func:`~..abilities.near_games`).
* Lunge (``lunge``, Hydralisks): on an Enemy's Ranged Attack at another Friendly Unit (the activation's one target of
  the player) Within ``within`` (10") of the reacting unit, the reacting unit Unengaged and with room to move closer
  to the attacking unit, short of its Engagement Range (:meth:`World.toward`). The engine's move goes the maximum
  possible distance where the unit can be set, the other units where they stand (FAQ v1.0, :meth:`World.toward_end`);
  where that is nowhere, a weighted policy's score is 0 (it never declares it), ``random`` may declare it (49 of its
  2,000 games of the issue's command, seed 1) and the skip report names it. Reading the way at the legality too
  (every board apart) cost 3% of a random game's CPU for half of those.
* Hierarch's Stand (``redirect``, Artanis): on an Enemy's Ranged Attack at another Friendly Unit (the activation's one
  target of the player) Within ``within`` (8") of the reacting unit, the reacting unit a valid target of the attacking
  unit (a weapon of it in range of a Visible model: :meth:`~.features.Features.seen`); written with ``for`` = that
  unit.
* Total Damage reductions (``reduce_damage``, 8.7.4 step 5), on an Enemy's Ranged Attack or on its Charge with IMPACT
  (for the Charge's first target, the unit its IMPACT strikes, ``sim_combat._impact``): a unit's for another
  Friendly Unit of the Combat Tag it asks, the activation's one target of the player, Within ``within`` of it (Life
  Support, Medics: 1 for each of their models Within 4", plus Stabilizer Medpacks' one; Transfusion, Queen: 2); a
  Faction Card's for the Friendly Unit attacked itself (Dae'Uhl: 2, to a minimum of 1). Written with ``for`` = the
  protected unit where it is another unit.
* Zealous Round (``reduce_damage`` with ``costs_activation``, the Zealots' upgrade, Assault Phase): on an Enemy's
  Ranged Attack or Charge with IMPACT (its first target) at the reacting unit itself, where that unit has neither
  activated nor been counted as Activated in the Phase (:func:`activated`: ``acted`` and the cards' state); its use
  counts it as Activated (the engine, where a Batch dealt it Damage). Written without ``for``.
* A Tactical or Faction Card's keyword for the Armour or Evade Roll (``unit_keyword``): on an Enemy's Ranged Attack
  (or Charge with IMPACT, as above) at a Friendly Unit of the Combat Tag the card asks (Ground Armor, Infantry Armor,
  Vehicle Plating, Carapace: TOUGH (1); Guardian Shell: DODGE (2); Brood Instinct: BUFF Evade (1)), for that unit.
* Restoration (``remove_debuffs``, Medics, Queen, Sentry): on the player's own Charge, where the opponent's
  Concusive Shells gave the charging unit DEBUFF Speed (its trigger held there: a declared target Within 8" of the
  Marauders) and the charging unit is Within ``within`` (4") of the reacting unit (itself included); and on the
  player's own Ranged Attack where the opponent's Debilitating Saliva gave the attacking unit DEBUFF Hit (1) (its
  trigger held: the attacking unit Within 8" of the Vile Roaches), the attacking unit Within 4" of it.
* Debilitating Saliva (``enemy_weapon_keyword``, Vile Roaches): on an Enemy's Ranged Attack, the attacking unit Within
  ``within`` (8") of the reacting unit.
* Photon Overcharge (``hits``, Overcharged Nexus): on an Enemy's Deploy with an ability that brings it by another
  table edge (``deploy_edge``: Warp In, Armed and Ready, Timing Push; the automatic menus offer none, so it answers a
  scripted opponent), where the unit is in Reserves and not Destroyed; one option per card, written with the player's
  first unit on the table in each game (a unit in Reserves uses no abilities).
* The Charge Roll Reactions (``charge_roll``, a card's: Pneumatized Carapace, Overseer; Gravitic Boosters, Observer):
  on the player's own Charge, for the charging unit (the engine applies them as declared with the Charge, before
  the roll: paid whether the roll needed them or not).

Not offered: an ability with an effect of another kind, and the Combat Phase's fights (the Combat Phase makes no
decision and does not walk :func:`play_turns`).

Per game, a Reaction is legal (10.4) where its unit is on the table, the trigger holds, it was not declared by that
unit earlier in the Round (once per Round per unit: none of these is REPEATABLE), and its cost is paid from the
game's Ready cards (:meth:`~.spending.Spending.payable`, 10.5.1; the payment Exhausts them: a card's Reaction
Exhausts its card, 10.5.2). At most one Reaction per player per activation (10.4); none where the activation already
carries one of the player's (a plan's ``react``).

The score (the policy's weights over :data:`~.features.COLUMNS`, the same as its activations'): a row per Reaction,
what it changes against not reacting, plus its ``spend``:

* Concusive Shells: ``threat`` = - (P(the Charge reaches) - P(it reaches with DEBUFF Speed)) x the expected share of
  the target's models the charging unit's Close Combat attack removes x the target's full Supply Value (the
  ``threat`` column's own reading: Supply the enemy destroys, smooth), summed over the declared targets; the
  probabilities and the attack are :class:`~.features.Features`' (``reaches``, ``attack``, the exact engine).
* Lunge: the feature row of a Move of the reacting unit to where the Lunge ends, less the row of a Hold where it
  stands (marker, threat, cover, gaps: a Move entry's columns).
* Zealous Round: a reduction's row (below, the unit itself protected), less what it gives up where used, its own
  activation later in the Phase (:mod:`.activation_cost`): P(the reduction is used: a Batch deals the unit Damage,
  exact; on a Charge times P(it reaches)) x (the feature row of the unit's best legal entry now by the policy's
  weights ``w`` less its Hold's). A policy without ``w`` sees the row without that price.
* A reduction or a keyword: ``threat`` = - (the expected share of the protected unit's models the Ranged Attack
  removes less that with the reduction, or with the keyword on the unit) x its full Supply Value, both exact
  (``Features.attack`` with the engine's own ``Target`` fields: ``damage_reduction``, ``reduction_floor``, the
  loadout with the card's bit on); Life Support's reduction counts the Medics' models Within 4" in that state. On a
  Charge: the same of its IMPACT (``Features.attack``'s "impact" chain, every model of the charging unit striking: an
  upper bound), times P(the Charge reaches) (the Reaction is declared with the Charge, before its roll, and paid
  whether it reaches or not).
* Hierarch's Stand: ``threat`` = - (the expected share of the protected unit's models the Ranged Attack removes x its
  full Supply Value - the same of the reacting unit's, its Evade Roll on), both exact; 0 where the reacting unit is
  not a valid target of the attacking unit (no Ranged Weapon of it in range of a Visible model: the engine then
  leaves the attack where it was).
* Restoration: the Charge entry's ``damage``, ``destroy`` and ``models`` (the exact Close Combat attack at the
  declared targets) x (P(the Charge reaches) - P(it reaches with the DEBUFF Speed)): what the Charge gets back; on a
  Ranged Attack, its columns without DEBUFF Hit (1) less with it (exact, the engine's own inflicted ability on).
* Debilitating Saliva: ``threat`` = - the sum over the player's units the attack targets of (the expected share of
  their models it removes less that with DEBUFF Hit (1) on the attacking unit's Ranged Weapons) x their full Supply
  (exact; the whole attack at each target: an upper bound where it splits).
* Photon Overcharge: the ``damage``, ``destroy`` and ``models`` of HITS 3 (1) at the entering unit (exact, its models
  left and Damage Marker in Reserves); Available Supply and the 10" keep-away are not read (the Reaction is paid where
  the engine then leaves the unit in Reserves: an upper bound).
* The Charge Roll Reactions: the Charge entry's ``damage``, ``destroy`` and ``models`` x (P(it reaches with the
  Reaction's ``charge_roll``) - P(it reaches)) (``Features.reaches``: an upper bound).

A weighted policy declares the best-scoring legal Reaction where its score is above 0 (not reacting scores 0);
``random`` draws uniformly among not reacting and the legal Reactions; a policy without a ``react`` method never
reacts. The draw is the game's own, keyed by (Round, Phase, the activation's dice number) under :data:`TAG` (``TAG +
1`` for a Reaction to the player's own activation): the same choices whatever the grouping of games or the number of
workers.

An automatic player never picks a unit counted as Activated in the Phase for its next activation (``auto.Auto.next``
reads the cards' ``counted_as_activated``), so Zealous Round costs no activation of another unit.

The Zealous Round, Photon Overcharge, Debilitating Saliva and Charge Roll Reactions belong to upgrades, units and
cards in no shipped list (tests/autoplay_kit.py has small lists with them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...starcraft.schema import Effect
from ..abilities import inflicted, near_games
from ..basics import stream as _stream
from ..lookup import card_abilities, find, has_impact, needs_tag, unit_abilities, use_bits, used_effect
from ..spec import PHASES, Activation, Reaction
from .menu import Entry

#: the effect kinds of the Reactions offered, and the actions of the opponent's activation that trigger each (a Charge
#: makes an attack only with IMPACT: :meth:`Reactions._may`)
KINDS = {
    "charger_debuff_speed": ("charge",),
    "lunge": ("shoot",),
    "redirect": ("shoot",),
    "reduce_damage": ("shoot", "charge", "fight"),
    "unit_keyword": ("shoot", "charge", "fight"),
    "hits": ("deploy",),
    "enemy_weapon_keyword": ("shoot",),
}
#: the effect kinds of the Reactions offered to the player's own activation, and the action each answers: Restoration
#: removes the DEBUFF Speed an opponent's Concusive Shells gives the charging unit (the DEBUFF is its trigger)
OWN_KINDS = {"remove_debuffs": ("charge", "shoot"), "charge_roll": ("charge",)}
#: the opponent's Reaction kinds that give the acting unit a DEBUFF the player's :data:`OWN_KINDS` answer
DEBUFF_KINDS = ("charger_debuff_speed", "enemy_weapon_keyword")
#: the kinds a unit's own Reaction is offered with (with a ``within``: for another Friendly Unit Within it)
UNIT_KINDS = ("charger_debuff_speed", "lunge", "redirect", "reduce_damage", "remove_debuffs", "enemy_weapon_keyword")
#: effects an offered Reaction may carry beside its kind's: Hierarch's Stand's Evade Roll against the redirected attack
BESIDE = ("evade_eligible",)
#: the kinds a Faction or Tactical Card's Reaction is offered with (for the Friendly Unit it is used for; no ``within``)
CARD_KINDS = ("reduce_damage", "unit_keyword", "hits", "charge_roll")
#: the card kinds used by the player and for no unit of its own (Photon Overcharge: HITS at the entering enemy): one
#: option per card, written with the player's first unit on the table in each game (a unit in Reserves uses none)
ANYONE_KINDS = ("hits",)
#: the first part of the key of a Reaction's draw (``random``), apart from the activations' draws (``auto.TAG``)
TAG = 29_000_104
#: the rows kept past this many (Reaction, activation, state) keys are dropped (memory flat in games)
ROWS_LIMIT = 1 << 11


@dataclass(frozen=True)
class Option:
    """A Reaction the player may declare: unit ``u`` (World index) uses ``name``, of effect ``kind`` (:data:`KINDS`),
    ``within`` and ``value`` its effect's, in Phase ``phase`` (or "any"). ``card``: the Faction or Tactical Card it is
    printed on ("" for the unit's own; a card's is used for unit ``u`` itself). A Total Damage reduction's
    ``per_model`` (Life Support: ``value`` for each model Within, ``bonus`` models more, Stabilizer Medpacks),
    ``floor`` (Dae'Uhl: "to a minimum of 1") and ``tags`` (the protected unit's Combat Tags it asks, "Biological").
    ``costs``: its use counts unit ``u`` as Activated in the Phase (Zealous Round: for ``u`` itself, no ``within``).
    ``anyone``: a card's used for no unit of its own (:data:`ANYONE_KINDS`): ``u`` the player's first unit, the
    Reaction written with its first unit on the table in each game."""

    u: int
    name: str
    kind: str
    within: float
    value: float
    phase: str
    card: str = ""
    per_model: bool = False
    bonus: int = 0
    floor: int = 0
    tags: tuple[str, ...] = ()
    costs: bool = False
    anyone: bool = False


def options(sim: Any, player: str) -> list[Option]:
    """The Reactions of ``player``'s units that :data:`KINDS` reads (their card's and upgrades', :data:`UNIT_KINDS`),
    in World order, then those of its Faction and Tactical Cards (:data:`CARD_KINDS`), one per Friendly Unit with
    the Combat Tag the card asks ("a Friendly Ground Unit"), in card then World order. A unit's own reduction that
    counts it as Activated (Zealous Round) is offered for itself. Not offered: an ability with an effect outside these
    kinds."""
    out = []
    mine = [u for u, su in enumerate(sim.units) if su.player == player and not sim.structure[u]]
    for u in mine:
        abilities = unit_abilities(sim.scn.units[sim.uids[u]])
        bonus = sum(int(e.value) for a in abilities for e in a.effects if e.kind == "per_model_bonus")
        for a in abilities:
            e = _offered(a, UNIT_KINDS, costly=True) if a.type == "reaction" else None
            if e is not None and (e.within is not None or e.costs_activation):
                out.append(_option(u, a, e, "", bonus if e.per_model else 0))
    for found in card_abilities(sim.scn, player):
        a = found.ability
        e = _offered(a, CARD_KINDS) if a.type == "reaction" else None
        if e is None or e.within is not None:
            continue
        if e.kind in ANYONE_KINDS:
            if mine:
                out.append(dataclasses.replace(_option(mine[0], a, e, found.card, 0), anyone=True))
            continue
        tag = needs_tag(a)
        for u in mine:
            if not tag or tag in sim.scn.units[sim.uids[u]].unit.card.combat_tags:
                out.append(_option(u, a, e, found.card, 0))
    return out


def _offered(a: Any, kinds: tuple[str, ...], costly: bool = False) -> Any:
    """The effect of Reaction ``a`` of a kind of ``kinds`` where every other effect of ``a`` is of one of them or of
    :data:`BESIDE` (and none a reduction costing the unit's activation unless ``costly``: a unit's own, Zealous
    Round), else None."""
    main = [e for e in a.effects if e.kind in kinds]
    if not main or any(e.kind not in kinds + BESIDE or (e.costs_activation and not costly) for e in a.effects):
        return None
    return main[0]


def _option(u: int, a: Any, e: Any, card: str, bonus: int) -> Option:
    within = float(e.within) if e.within is not None else 0.0
    value = float(e.value or 0)
    tags, costs = tuple(e.vs_tags), bool(e.costs_activation)
    return Option(u, a.name, e.kind, within, value, a.phase, card, e.per_model, bonus, e.minimum, tags, costs)


class Reactions:
    """The Reactions of the automatic player ``player`` of Simulation ``sim`` (the module text); ``spending``: its
    :class:`~.spending.Spending` (shared with its Active abilities), ``features``: a function giving its
    :class:`~.features.Features` (its module loads at the first score read, or where Hierarch's Stand's legality
    asks whether its unit is a valid target)."""

    def __init__(
        self,
        sim: Any,
        player: str,
        spending: Any,
        features: Callable[[], Any],
        entries: Callable[[int, str, np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self.sim = sim
        self.player = player
        self.spending = spending
        self.features = features
        #: games x entries of a unit's menu in a Phase, legal now (the player's, ``Auto.entries``): what a Reaction
        #: costing the unit's activation gives up (:meth:`_lost`); None: not priced
        self.entries = entries
        self._used: dict[tuple[object, ...], float] = {}
        self.options = options(sim, player)
        self._rolls = any(o.kind == "charge_roll" for o in self.options)  # a Reaction to its own Charge Roll
        self.taken = np.zeros((len(self.options), sim.T), dtype=bool)  # declared this Round, per game
        self.rnd = 0
        self._rows: dict[tuple[object, ...], np.ndarray] = {}

    def answer(self, games: np.ndarray, act: Activation, rnd: int, policy: Any) -> list[tuple[np.ndarray, Activation]]:
        """The games ``games`` split by the Reaction declared to ``act`` (the module text): (games, the activation as
        applied there)."""
        pick = getattr(policy, "react", None)
        own = act.player == self.player
        rolls = self._rolls and act.action == "charge"
        if own and not rolls and not self._debuffs(act):  # its own activation: a DEBUFF the opponent gave, or its
            return [(games, act)]  # Charge Roll (Pneumatized Carapace, Gravitic Boosters), triggers one
        cand = [
            i
            for i, o in enumerate(self.options)
            if act.action in (OWN_KINDS if own else KINDS).get(o.kind, ())
            and o.phase in (act.phase, "any")
            and self._may(o, act)
        ]
        if not cand or pick is None or any(rx.player == self.player for rx in act.react) or games.size == 0:
            return [(games, act)]
        if rnd != self.rnd:  # a new Round: each Reaction may be declared again (10.4)
            self.rnd = rnd
            self.taken[:] = False
        sim = self.sim
        legal = np.zeros((games.size, len(cand)), dtype=bool)
        for c, i in enumerate(cand):
            legal[:, c] = self._legal(self.options[i], act, games)
        legal &= ~sim.over[games][:, None]
        if not legal.any():
            return [(games, act)]

        def rows() -> np.ndarray:
            from .features import COLUMNS

            states, inv = self.features().states(games)
            table = np.asarray([[self._row(self.options[i], act, s) for i in cand] for s in states], dtype=float)
            table = table.reshape(len(states), len(cand), len(COLUMNS))[inv]
            w = getattr(policy, "w", None)
            for c, i in enumerate(cand):
                if self.options[i].costs and w is not None and self.entries is not None:
                    table[:, c] -= self._lost(self.options[i], act, games, states, inv, w)
            return table

        key = _stream(TAG + own, rnd, PHASES.index(act.phase), sim.ordinal[act])  # own: apart from the opponent's
        u = np.asarray(sim.draw(key, games))
        chosen = np.asarray(pick(rows, legal, u), dtype=np.int64)
        out = []
        none = chosen < 0
        if none.any():
            out.append((games[none], act))
        for c in np.unique(chosen[~none]).tolist():
            o = self.options[cand[c]]
            g = games[chosen == c]
            assert legal[chosen == c, c].all(), "a policy declared a Reaction where it is not legal"
            self.spending.pay(o.u, (o.name,), g)  # 10.5.1: Exhaust the cards
            self.taken[cand[c], g] = True
            protects = o.kind in ("reduce_damage", "redirect") and not o.card and not o.costs  # another unit
            q = self._protects(o, act) if protects else None
            by = self._first_on_table(g) if o.anyone else np.full(g.size, o.u)
            for r in np.unique(by).tolist():
                rx = Reaction(sim.uids[r], o.name, self.player, "" if q is None else sim.uids[q])
                answered = dataclasses.replace(act, react=(*act.react, rx))
                sim.ordinal[answered] = sim.ordinal[act]  # the same dice as the activation declared
                out.append((g[by == r], answered))
        return out

    def _first_on_table(self, games: np.ndarray) -> np.ndarray:
        """Per game of ``games``: the player's first unit (World order) on the table (-1: none)."""
        sim = self.sim
        mine = [u for u, su in enumerate(sim.units) if su.player == self.player and not sim.structure[u]]
        on = (sim.pos[mine][:, games] >= 0) & (sim.alive[mine][:, games] > 0)
        return np.where(on.any(axis=0), np.asarray(mine)[on.argmax(axis=0)], -1)

    def _protects(self, o: Option, act: Activation) -> int | None:
        """The Friendly Unit ``o`` answers for in ``act`` (World index; :func:`~..abilities.protected`): a card's, its
        unit where ``act`` targets it; a unit's own, the activation's one target of the player, another unit (a
        Charge: its first target, the one its IMPACT strikes, for both); None where there is none."""
        sim = self.sim
        if o.costs:  # "this Unit" (Zealous Round), where the activation attacks it (a Charge: its first target)
            attacked = act.targets[:1] if act.action == "charge" else act.targets
            return o.u if sim.uids[o.u] in attacked else None
        if act.action == "charge":  # IMPACT strikes the Charge's first target (sim_combat._impact)
            first = sim.uids.index(act.targets[0]) if act.targets else -1
            mine = first >= 0 and sim.units[first].player == self.player
            return first if mine and (first == o.u if o.card else first != o.u) else None
        if o.card:
            return o.u if sim.uids[o.u] in act.targets else None
        mine = [t for t in act.targets if sim.units[sim.uids.index(t)].player == self.player]
        q = sim.uids.index(mine[0]) if len(mine) == 1 else -1
        return q if q >= 0 and q != o.u else None

    def _debuffs(self, act: Activation) -> list[tuple[int, float, float, str]]:
        """The opponent's Reactions in ``act`` giving its acting unit a DEBUFF (:data:`DEBUFF_KINDS`): (the reacting
        unit, its ``within``, the DEBUFF's value, the ability's name)."""
        sim, out = self.sim, []
        for rx in act.react:
            found = find(sim.scn, rx.unit, rx.use) if rx.player != self.player else None
            for e in found.ability.effects if found is not None else ():
                if e.kind in DEBUFF_KINDS and e.within is not None and not e.select:
                    out.append((sim.uids.index(rx.unit), float(e.within), float(e.value or 0), rx.use))
        return out

    def _may(self, o: Option, act: Activation) -> bool:
        """Whether ``o`` may answer ``act`` in any game (the game-free part of :meth:`_legal`)."""
        if o.kind == "charge_roll":  # "after a Friendly Unit rolls a D6 for Charge Distance": the charging unit's
            return self.sim.uids[o.u] == act.unit and act.player == self.player
        if o.kind == "remove_debuffs" and act.player == self.player:
            return bool(self._debuffs(act))
        if o.kind == "hits":  # an Enemy Unit entering "via a location other than its own Entry Edge" (cards/warp_in)
            return used_effect(self.sim.scn, act, "deploy_edge") is not None and bool(act.edge)
        if o.kind not in ("reduce_damage", "unit_keyword", "redirect"):
            return True
        if act.action == "charge" and not has_impact(self.sim.scn.units[act.unit]):
            return False  # a Charge without IMPACT makes no attack (8.7.7)
        q = self._protects(o, act)
        if q is None:
            return False
        tags = self.sim.scn.units[self.sim.uids[q]].unit.card.combat_tags
        return not o.tags or bool(set(o.tags) & set(tags))

    def _legal(self, o: Option, act: Activation, games: np.ndarray) -> np.ndarray:
        """Per game: may ``o`` be declared to ``act`` (the module text; all but what the state's row says)?"""
        sim, r = self.sim, o.u
        if o.anyone:  # a unit of the player on the table uses it (10.4, FAQ v1.0: none in Reserves)
            ok = (self._first_on_table(games) >= 0) & ~self.taken[self.options.index(o), games]
        else:
            ok = (sim.pos[r, games] >= 0) & (sim.alive[r, games] > 0) & ~self.taken[self.options.index(o), games]
        mine = [sim.uids.index(t) for t in act.targets if sim.units[sim.uids.index(t)].player == self.player]
        if o.kind == "charger_debuff_speed":  # a declared target Within of the reacting unit
            near = np.zeros(sim.T, dtype=bool)
            for t in mine:
                near |= near_games(sim, games[ok], r, t, o.within)
            ok &= near[games]
        elif o.kind == "lunge":  # another Friendly Unit, the one target, Within; the reacting unit Unengaged
            if len(mine) != 1 or mine[0] == r:
                return np.zeros(games.size, dtype=bool)
            ok &= near_games(sim, games[ok], r, mine[0], o.within)[games]
            ok[ok] &= ~sim.engaged_mask(games[ok], r)
            a, speed = sim.uids.index(act.unit), float(sim.units[r].speed)
            closer = np.zeros(sim.T, dtype=bool)  # it has room to move closer to the attacking unit (World.toward)
            for (ph, kh, pa, ka), ts in sim.groups(
                games[ok], [sim.row_pos(r), sim.row_alive(r), sim.row_pos(a), sim.row_alive(a)]
            ):
                closer[ts] = pa >= 0 and ka > 0 and sim.world.toward(ph, kh, pa, ka, speed) is not None
            ok &= closer[games]
        elif o.kind == "remove_debuffs":  # the acting unit Within of the reacting unit, and the DEBUFF given
            a = sim.uids.index(act.unit)
            ok &= near_games(sim, games[ok], r, a, o.within)[games]
            ok &= self._debuffed(act, games)
        elif o.kind == "redirect":  # another Friendly Unit, the one target, Within of the reacting unit (redirect.py)
            q = self._protects(o, act)
            assert q is not None  # (_may)
            ok &= near_games(sim, games[ok], r, q, o.within)[games]
            if ok.any():  # "and this Unit is a valid target": a weapon of the attacker may shoot it (8.7.3 step 1)
                feats, n, a = self.features(), sim.U, sim.uids.index(act.unit)
                states, inv = feats.states(games[ok])
                valid = np.asarray([r in feats.seen(a, s[:n], s[n : 2 * n], [r]) for s in states], dtype=bool)
                ok[ok] &= valid[inv]
        elif o.kind == "enemy_weapon_keyword":  # the attacking unit Within of the reacting unit (cards/debuffs.py)
            ok &= near_games(sim, games[ok], r, sim.uids.index(act.unit), o.within)[games]
        elif o.kind == "hits":  # the enemy unit enters: in Reserves there, not Destroyed
            a = sim.uids.index(act.unit)
            ok &= (sim.pos[a, games] < 0) & (sim.alive[a, games] > 0)
        elif o.costs:  # "When this Unit is not Activated": neither activated nor counted as Activated in the Phase
            ok &= ~activated(sim, r, games)
        elif o.kind == "reduce_damage" and not o.card:  # the protected unit suffers Damage Within of the reacting unit
            q = self._protects(o, act)
            assert q is not None  # (_may)
            near = np.zeros(sim.T, dtype=bool)
            if o.per_model:  # Life Support: no model Within, no reduction (cards/damage_reduction.reduction_for)
                for (pr, kr, pq, kq), ts in sim.groups(
                    games[ok], [sim.row_pos(r), sim.row_alive(r), sim.row_pos(q), sim.row_alive(q)]
                ):
                    near[ts] = pq >= 0 and kq > 0 and sim.world.models_within(pr, kr, pq, kq, o.within) > 0
            else:
                near = near_games(sim, games[ok], r, q, o.within)
            ok &= near[games]
        if ok.any():
            ok[ok] &= self.spending.payable(r, (o.name,), games[ok])
        return ok

    def _debuffed(self, act: Activation, games: np.ndarray) -> np.ndarray:
        """Per game of ``games``: does an opponent's Reaction in ``act`` give the acting unit its DEBUFF there (the
        engine's trigger: on a Charge a declared target Within ``within`` of the reacting unit, ``cards/charge.py``; on
        a Ranged Attack the attacking unit Within it, ``cards/debuffs.py``)?"""
        sim = self.sim
        hit = np.zeros(sim.T, dtype=bool)
        for r, within, _, _ in self._debuffs(act):
            if act.action == "shoot":  # Debilitating Saliva: the attacking unit Within of it (cards/debuffs.py)
                hit |= near_games(sim, games, r, sim.uids.index(act.unit), within)
                continue
            for t in act.targets:
                hit |= near_games(sim, games, r, sim.uids.index(t), within)
        return hit[games]

    def _row(self, o: Option, act: Activation, state: tuple[int, ...]) -> np.ndarray:
        """In ``state``: the feature row of ``o`` (the module text)."""
        key = (o, act.unit, act.action, act.targets, act.use, act.phase, act.react, state)
        hit = self._rows.get(key)
        if hit is None:
            if len(self._rows) > ROWS_LIMIT:
                self._rows.clear()
            hit = self._rows[key] = self._compute(o, act, state)
        return hit

    def _compute(self, o: Option, act: Activation, state: tuple[int, ...]) -> np.ndarray:
        from .features import COLUMNS, DAMAGE, MODELS

        sim, feats = self.sim, self.features()
        n = sim.U
        pos, alive = state[:n], state[n : 2 * n]
        mark, shielded = state[2 * n : 3 * n], state[3 * n : 4 * n]
        row = np.zeros(len(COLUMNS), dtype=float)
        row[COLUMNS.index("spend")] = feats.spend(sim.uids[o.u], (o.name,))
        a = sim.uids.index(act.unit)
        if o.kind == "hits":  # the HITS at the unit entering (its state in Reserves: models left, no marker)
            row[DAMAGE : MODELS + 1] = entry_hits(feats.resolver, o, a, alive[a], mark[a], shielded[a])
            return row
        if pos[a] < 0 or alive[a] <= 0:
            return row
        if o.kind == "charger_debuff_speed":
            saved = 0.0
            for name in act.targets:
                t = sim.uids.index(name)
                if sim.units[t].player != self.player or pos[t] < 0 or alive[t] <= 0:
                    continue
                worth = float(sim.supply(t, np.asarray([sim.full[t]]))[0])
                share = feats.attack(a, alive[a], t, alive[t], mark[t], shielded[t], "combat", act.use)[2]
                full = feats.reaches(a, pos[a], alive[a], pos[t], alive[t], act.use)
                slow = feats.reaches(a, pos[a], alive[a], pos[t], alive[t], act.use, slow=o.value)
                saved += (full - slow) * share * worth
            row[COLUMNS.index("threat")] = -saved
            return row
        if o.kind in ("reduce_damage", "unit_keyword"):
            row[COLUMNS.index("threat")] = -self._saved(o, act, state)
            return row
        if o.kind == "enemy_weapon_keyword":  # Debilitating Saliva: the attack at each of the player's units it targets
            saved = 0.0
            for t, plain, debuffed in self._with_debuffs(act, state, (debuff_name(sim, sim.uids[o.u], o.name),), True):
                saved += (plain[2] - debuffed[2]) * float(sim.supply(t, np.asarray([sim.full[t]]))[0])
            row[COLUMNS.index("threat")] = -saved
            return row
        if o.kind == "redirect":
            row[COLUMNS.index("threat")] = -self._redirected(o, act, state)
            return row
        if o.kind == "charge_roll":  # the Charge entry's attack columns x what the Reaction adds to P(it reaches)
            row[DAMAGE : MODELS + 1] = self._charge_gain(act, state, (o.name,), 0.0)
            return row
        if o.kind == "remove_debuffs" and act.action == "shoot":  # the Ranged Attack's columns without the DEBUFF Hit
            debuffs = tuple(debuff_name(sim, sim.uids[r], name) for r, _, _, name in self._debuffs(act))
            for _, plain, debuffed in self._with_debuffs(act, state, debuffs, False):  # less with it
                row[DAMAGE : MODELS + 1] += plain - debuffed
            return row
        if o.kind == "remove_debuffs":  # the Charge entry's attack columns at full Speed less with the DEBUFF
            slow = max((v for _, _, v, _ in self._debuffs(act)), default=0.0)
            row[DAMAGE : MODELS + 1] = self._charge_gain(act, state, (), slow)
            return row
        # lunge: a Move to where it ends, less a Hold where it stands
        h = o.u
        others = tuple(p for v, p in enumerate(pos) if v != h and p >= 0)
        to = sim.world.toward_end(pos[h], alive[h], pos[a], alive[a], float(sim.units[h].speed), others)
        if to is None:  # nowhere to go there (World.toward_end): it scores 0, never declared
            return row
        menu = feats.menus[sim.uids[h]][act.phase]
        covers = tuple(e for e in menu if e.label.startswith("cover-"))
        entries = (Entry("move", to=(float(to[0]), float(to[1])), label="lunge"), Entry("hold", label="hold"), *covers)
        table = feats.table_of(h, act.phase, state, entries)
        return row + table[0] - table[1]

    def _live_targets(self, act: Activation, state: tuple[int, ...], mine: bool) -> list[int]:
        """``act``'s targets on the table with models left in ``state``: the player's (``mine``) or the opponent's."""
        sim, n = self.sim, self.sim.U
        out = []
        for name in act.targets:
            t = sim.uids.index(name)
            if (sim.units[t].player == self.player) == mine and state[t] >= 0 and state[n + t] > 0:
                out.append(t)
        return out

    def _charge_gain(self, act: Activation, state: tuple[int, ...], more: tuple[str, ...], slow: float) -> np.ndarray:
        """In ``state``: the columns ``damage``, ``destroy``, ``models`` of ``act``'s Charge (its Close Combat attack at
        each opponent's target, exact) x (P(it reaches with the abilities ``more`` on) - P(it reaches with DEBUFF Speed
        ``slow``))."""
        feats, n = self.features(), self.sim.U
        pos, alive, mark, shielded = state[:n], state[n : 2 * n], state[2 * n : 3 * n], state[3 * n : 4 * n]
        a, out = self.sim.uids.index(act.unit), np.zeros(3)
        for t in self._live_targets(act, state, False):
            hit = np.asarray(feats.attack(a, alive[a], t, alive[t], mark[t], shielded[t], "combat", act.use))
            boosted = feats.reaches(a, pos[a], alive[a], pos[t], alive[t], (*act.use, *more))
            slowed = feats.reaches(a, pos[a], alive[a], pos[t], alive[t], act.use, slow=slow)
            out += (boosted - slowed) * hit
        return out

    def _with_debuffs(
        self, act: Activation, state: tuple[int, ...], debuffs: tuple[str, ...], mine: bool
    ) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """In ``state``: per target of ``act``'s Ranged Attack (the player's, ``mine``, or the opponent's), the exact
        ``Features.attack`` numbers without and with the DEBUFF abilities ``debuffs`` on the attacking unit."""
        feats, n = self.features(), self.sim.U
        alive, mark, shielded = state[n : 2 * n], state[2 * n : 3 * n], state[3 * n : 4 * n]
        a, out = self.sim.uids.index(act.unit), []
        for t in self._live_targets(act, state, mine):
            args = (a, alive[a], t, alive[t], mark[t], shielded[t], "assault")
            out.append(
                (t, np.asarray(feats.attack(*args, act.use)), np.asarray(feats.attack(*args, act.use + debuffs)))
            )
        return out

    def _lost(
        self, o: Option, act: Activation, games: np.ndarray, states: list[tuple[int, ...]], inv: np.ndarray, w: Any
    ) -> np.ndarray:
        """Games x columns: what ``o`` gives up where used, its unit's own activation later in the Phase
        (:mod:`.activation_cost`): P(the reduction is used) x (the row of the unit's best legal entry now by the
        policy's weights ``w`` less its Hold's)."""
        from .activation_cost import lost

        used = np.asarray([self._p_used(o, act, s) for s in states], dtype=float)[inv]
        out = np.zeros((games.size, len(w)), dtype=float)
        hit = used > 0
        if hit.any():
            assert self.entries is not None
            feats = self.features()
            menu = feats.menus[self.sim.uids[o.u]][act.phase]
            hold = next(i for i, e in enumerate(menu) if e.action == "hold")
            rows, legal = feats.rows(o.u, act.phase, games[hit]), self.entries(o.u, act.phase, games[hit])
            out[hit] = used[hit, None] * lost(rows, legal, np.asarray(w, dtype=float), hold)
        return out

    def _p_used(self, o: Option, act: Activation, state: tuple[int, ...]) -> float:
        """In ``state``: P(``o``'s reduction is used against ``act``'s attack): a Batch deals its unit Damage (and, on
        a Charge, the Charge reaches), the exact engine (:func:`~.activation_cost.p_used`); memoised."""
        key = (o, act.unit, act.action, act.targets, act.use, act.phase, state)
        hit = self._used.get(key)
        if hit is None:
            from .activation_cost import p_used

            if len(self._used) > ROWS_LIMIT:
                self._used.clear()
            sim, n = self.sim, self.sim.U
            a, q = sim.uids.index(act.unit), self._protects(o, act)
            pos, alive = state[:n], state[n : 2 * n]
            hit = 0.0
            if q is not None and pos[a] >= 0 and alive[a] > 0 and pos[q] >= 0 and alive[q] > 0:
                mark, shielded = state[2 * n + q], state[3 * n + q]
                chain, reach = "assault", 1.0
                if act.action == "charge":  # its IMPACT, where the Charge reaches
                    chain = "impact"
                    reach = self.features().reaches(a, pos[a], alive[a], pos[q], alive[q], act.use)
                cut = int(o.value)
                resolver = self.features().resolver
                hit = reach * p_used(resolver, a, alive[a], q, alive[q], mark, shielded, chain, act.use, cut)
            self._used[key] = hit
        return hit

    def _saved(self, o: Option, act: Activation, state: tuple[int, ...]) -> float:
        """In ``state``: the expected share of the protected unit's models that ``act``'s Ranged Attack removes, less
        that with ``o`` (its Total Damage reduction, or its keyword on the unit: TOUGH, DODGE), both exact
        (:meth:`~.features.Features.attack`), times the unit's full Supply Value (the ``threat`` column's reading:
        Supply the enemy destroys, smooth)."""
        sim, feats = self.sim, self.features()
        n = sim.U
        pos, alive = state[:n], state[n : 2 * n]
        mark, shielded = state[2 * n : 3 * n], state[3 * n : 4 * n]
        a, q = sim.uids.index(act.unit), self._protects(o, act)
        if q is None or pos[q] < 0 or alive[q] <= 0:
            return 0.0
        if o.kind == "unit_keyword":
            guard = (use_bits(sim, q, (o.name,)), 0, 0)
        else:
            cut = int(o.value)
            if o.per_model:
                got = sim.world.models_within(pos[o.u], alive[o.u], pos[q], alive[q], o.within)
                cut = int(o.value) * (got + o.bonus) if got else 0
            guard = (0, cut, o.floor)
        phase, reach = "assault", 1.0
        if act.action == "charge":  # its IMPACT, where the Charge reaches
            phase, reach = "impact", feats.reaches(a, pos[a], alive[a], pos[q], alive[q], act.use)
        elif act.action == "fight":  # 8.8.1: its Close Combat weapons, every model striking (an upper bound)
            phase = "combat"
        plain = feats.attack(a, alive[a], q, alive[q], mark[q], shielded[q], phase, act.use)[2]
        guarded = feats.attack(a, alive[a], q, alive[q], mark[q], shielded[q], phase, act.use, guard)[2]
        return reach * (plain - guarded) * float(sim.supply(q, np.asarray([sim.full[q]]))[0])

    def _redirected(self, o: Option, act: Activation, state: tuple[int, ...]) -> float:
        """In ``state``: what Hierarch's Stand saves, the Ranged Attack of ``act`` taken off the protected unit and
        onto the reacting unit, which makes an Evade Roll against it: the expected share of the protected unit's models
        the attack removes times its full Supply Value, less that of the reacting unit's (Evade Roll included, the
        Reaction's bit on it), both exact (:meth:`~.features.Features.attack`); 0 where the reacting unit is not a
        valid target of the attacking unit there (8.7.3 step 1: :meth:`~.features.Features.seen`; not legal there,
        :meth:`_legal`; the engine would leave the attack where it was). The whole attack is moved (the engine moves
        each Batch whose weapon may shoot the reacting unit)."""
        sim, feats = self.sim, self.features()
        n = sim.U
        pos, alive = state[:n], state[n : 2 * n]
        mark, shielded = state[2 * n : 3 * n], state[3 * n : 4 * n]
        a, q, g = sim.uids.index(act.unit), self._protects(o, act), o.u
        if q is None or pos[q] < 0 or alive[q] <= 0 or pos[g] < 0 or alive[g] <= 0:
            return 0.0
        if g not in feats.seen(a, pos, alive, [g]):
            return 0.0
        worth = [float(sim.supply(v, np.asarray([sim.full[v]]))[0]) for v in (q, g)]
        plain = feats.attack(a, alive[a], q, alive[q], mark[q], shielded[q], "assault", act.use)[2]
        evade = (use_bits(sim, g, (o.name,)), 0, 0)
        taken = feats.attack(a, alive[a], g, alive[g], mark[g], shielded[g], "assault", act.use, evade)[2]
        return plain * worth[0] - taken * worth[1]


def debuff_name(sim: Any, unit: str, name: str) -> str:
    """The ability standing for the DEBUFF Reaction ``name`` of ``unit`` gives the attacking unit's weapons
    (Debilitating Saliva's DEBUFF Hit (1)), as the engine names it (``cards/debuffs.attacker_debuffs``:
    ``abilities.inflicted``)."""
    found = find(sim.scn, unit, name)
    assert found is not None
    e = next(e for e in found.ability.effects if e.kind == "enemy_weapon_keyword")
    return inflicted(sim, found, [Effect(kind="weapon_keyword", keyword=e.keyword, weapons=list(e.weapons))], unit)


def entry_hits(resolver: Any, o: Option, t: int, k: int, mark: int, shielded: int) -> tuple[float, float, float]:
    """The ``damage``, ``destroy`` and ``models`` columns of ``o``'s HITS X (Y) at unit ``t`` (``k`` models left,
    Damage Marker ``mark``, ``shielded``): the expected Supply destroyed, P(destroyed), the expected share of its full
    strength removed; the exact engine on the Batch the engine resolves (``cards/warp_in.py``: ``Batch.hits``, no
    Evade) at the Target the engine makes (``resolver``: a :class:`~.fastfeatures.Resolver`; no SHIELDED model once
    one is lost)."""
    from ...starcraft.model import Batch
    from .fastfeatures import exact_outcomes

    if k <= 0:
        return 0.0, 0.0, 0.0
    sim = resolver.sim
    found = find(sim.scn, sim.uids[o.u], o.name)
    assert found is not None
    e = next(e for e in found.ability.effects if e.kind == "hits")
    target = resolver.target(t, k, mark, shielded, "assault", (0, 0, 0))
    supply = sim.supply(t, np.arange(sim.full[t] + 1))
    damage = destroy = models = 0.0
    for key, p in exact_outcomes([Batch.hits(e.value, e.damage, name=found.ability.name)], target):
        left = max(k - int(key[0]), 0)
        damage += p * float(supply[k] - supply[left])
        destroy += p * (left == 0)
        models += p * (k - left) / float(sim.full[t])
    return damage, destroy, models


def activated(sim: Any, u: int, games: np.ndarray) -> np.ndarray:
    """Per game of ``games``: has unit ``u`` activated in this Phase, or does it count as Activated in it (its cards'
    state: Zealous Round, an enemy's Crushing Grip)?"""
    out = sim.acted[u, games].copy()
    for counted in sim.cards.counted_as_activated:
        out |= counted(u, games)
    return out


__all__ = ["KINDS", "TAG", "Option", "Reactions", "activated", "options"]
