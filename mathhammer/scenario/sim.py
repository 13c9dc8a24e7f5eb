"""Simulate a whole scenario: N trials of the plan, round by round (rulebook part 8).

The state of every trial is a few integer arrays (units x trials): models left, Damage Marker,
SHIELDED, placement, Disengage penalty, abilities used; markers' control and state; Victory
Points; the First Player Marker. Each activation is applied to all trials at once, grouped by
the state the step reads: the placements and models left of the units concerned, then only the
placements of the other units near what is read (Close Ranks, the Fighting Ranks, a Ranged
Attack's facts), so each local board state is read once. Every trial carries the id of its whole
placement vector (``board``), and each board id its Engaged pairs (7.2.1, read once per pair of
placements).

Dice come from the engines' contract: an attack on a unit in state (models left, Damage Marker,
SHIELDED) is resolved by :func:`mathhammer.starcraft.exact.exact_states`, the exact joint distribution of
the unit's next state under the 8.7.4 procedure, and each trial draws its outcome from it with a
uniform number. Uniforms, Charge Rolls (1D6), Roll-Offs and Supply Drop markers come from a
counter-based generator keyed by (seed, trial, what is rolled), so a trial's game is the same for
any number of trials, any grouping and any order of evaluation. Sampling a Batch's outcome from
its exact distribution is equivalent in law to rolling its dice; the test suite holds the two
to each other.

Rules applied (the reading where the rules leave room is said in the code):

* 8.2.1 / 8.4.2 / 8.6.2: players alternate activations, the holder of the First Player Marker
  first (policy: the holder chooses to go first); a player whose planned activations are spent
  Passes; the first to Pass takes the First Player Marker for the next Phase.
* 8.3.1 / 8.3.2: Supply Pool = starting Supply + Escalation per Round, unlimited in the final
  Round; a Deploy needs the unit's Current Supply Value <= Available Supply (else it is skipped
  in that trial: the unit stays in Reserves).
* 8.5.2-8.5.5, 8.7.1: Move, Run, Disengage, Deploy set the unit at the planned point (the check
  command validates distances); an Engaged unit cannot Move or Run (it Holds). 8.5.4 Tactical
  Mass: a unit that Disengages cannot Ranged Attack or Charge in the following Assault Phase
  unless its Current Supply Value exceeds the Combined Supply of the enemies it was Engaged with.
* 8.7.3 / 8.7.4: Ranged Attacks weapon by weapon (Batch sequence), each Batch at the first
  planned target still on the table that it may shoot (board facts: range, visibility, Engaged
  restrictions; a HIDDEN or BURROWED target not detected is not Visible beyond 4", part 11);
  "if the target unit is destroyed, shoot the next one instead".
* Part 11 STATUS and BURROWED: the Burrowed Status stays through Cleanup; while BURROWED a unit
  makes no Ranged Attack, Charge or Gather, and a Move, Run or Disengage (Close Ranks in the
  Combat Phase) removes it. Part 11 ON CREEP is read per game from Creep Tumor tokens (7.3).
* 8.7.7: Charge: Speed (+ BUFF Speed of abilities used) + 1D6 (more D6, the highest used, and
  additions: the ``charge_roll`` abilities used and Reactions) against the board's charge
  distance; success sets the unit Engaged at the path's end; IMPACT (X) Y of the unit's abilities
  resolves immediately after a successful Charge (``impact_dice`` and ``impact_hit`` abilities: more
  dice per model, a Modifier to the Impact Hit Roll).
* 8.8.1: in the Combat Phase every Engaged unit fights (planned ``fight`` entries first, then the
  others, alternating), with the models in its Fighting and Supporting Ranks, the dice split
  between the enemy units it is Engaged with by ``[policy] fight_split`` (default
  ``first-target``: all at the first planned one; ``even``; ``weakest``; see :meth:`Simulation.fight`;
  8.8.1 "Declare how Attack Dice are split"); before counting, each makes its CLOSE RANKS move (8.8.1
  step 1) when ``[policy] close_ranks`` is ``always`` (default; the reading is in ``world.py``).
* 8.9.1: mission marker control by Current Supply of contesting units (Flying excluded), ties
  never transfer, sticky; 8.9.2 Victory Points per the Mission Card (``mission.py``); 8.9.3 end
  of game: Special Winning Condition (lead), a player with nothing on the table and nothing in
  Reserves (+10 VP to the survivor), the final Round; 8.9.5 Cleanup (abilities used and their
  effects expire, cards Ready again); 8.9.6 the First Player Marker to the player with fewer VP,
  a Roll-Off on a tie. Every Roll-Off (also 8.2.2 for Round 1) follows ``[policy] roll_off``:
  ``random``, or ``red`` / ``blue`` winning them all. ``first_player = "alternate"`` gives Round 1's First
  Player Marker by game number instead (even: red, odd: blue; half the games each way, a mirror match's test).
* Damage Markers persist between Rounds (8.9.5: "Remove all Tokens and Markers except ... Damage
  Markers").
* 8.5.5 UNITS RETURNED TO RESERVES: a unit an ability takes off the table is not Destroyed, its Supply is
  released and it may Deploy again; 9.1.9: a Summoned Unit is set only by its ability and is never in
  Reserves; effects "At the End of the Round" resolve before the Cleanup, the First Player's first (8.9.4,
  the cards' ``end_of_round`` hooks, ``cards/``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Collection
from functools import cached_property

import numpy as np

from . import abilities, conditions
from . import mission as missions
from .basics import stream as _stream
from .fastsim import _enter_kernel, _live_kernel, _placed_kernel, _planned_bits
from .players import Player, cursor, fight_act, play_turns
from .players.scripted import Scripted
from .sim_combat import Combat
from .sim_move import Movement
from .sim_round import RoundEnd
from .sim_shoot import Shooting
from .sim_state import uniforms
from .spec import PHASES, PLAYERS, Activation


class Simulation(Combat, Shooting, Movement, RoundEnd):
    """The state of ``trials`` games of one scenario and the rules that move it (see the module text): the
    activation walk here, the state in :mod:`.sim_state`, the actions in :mod:`.sim_move`, :mod:`.sim_shoot`,
    :mod:`.sim_combat`, the end of a Round in :mod:`.sim_round`."""

    # ------------------------------------------------------------ actions
    def run(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Play every Round of the games, with Python's cyclic garbage collector paused: the geometry caches hold
        millions of objects that every full collection would walk again (standard_clash.toml, 1,000,000 games in one
        process: 4,718 collections took 1.91 s of 30.0 s; paused, 5 took 0.17 s). After each Round the objects made
        in it are frozen (``gc.freeze``: moved out of the collector's generations without being walked; the Round's
        cycles, a few dozen objects, wait for the next full collection) and at the end put back in the oldest
        generation (``gc.unfreeze``), where the next full collection reads them as it did; where objects were frozen
        before the run (another caller's), the young generations are collected after each Round instead
        (``gc.collect(1)``: every object the Round made walked once). The collector is left as it was found."""
        was = gc.isenabled()
        freeze = gc.get_freeze_count() == 0  # no one else's frozen objects to put back at the end
        gc.disable()
        try:
            self._run(progress, freeze)
        finally:
            if freeze:
                gc.unfreeze()
            if was:
                gc.enable()

    def _run(self, progress: Callable[[int, int], None] | None, freeze: bool) -> None:
        scn = self.scn
        length = scn.mission.game_length
        everyone = np.arange(self.T)
        if scn.first_player == "roll-off":  # 8.2.2: the Roll-Off winner takes the First Player Marker
            self.first[:] = self.roll_off(_stream(0, 0), everyone)
        elif scn.first_player == "alternate":  # by game number: even red, odd blue (a mirror match's fair split)
            self.first[:] = (everyone + self.offset) % 2
        else:
            self.first[:] = PLAYERS.index(scn.first_player)
        missions.setup(self)
        for rnd in range(1, length + 1):
            self.round = rnd
            live = everyone[~self.over]
            self.current_supply(out=self.ref_supply)
            missions.start_of_round(self, live)
            for phase in PHASES:
                live = everyone[~self.over]
                if live.size == 0:
                    break
                self.play_phase(rnd, phase, live)
            live = everyone[~self.over]
            missions.score(self, live)
            self.end_checks(live, rnd == length)
            self.cleanup(live)
            self.snapshot()
            if freeze:
                gc.freeze()  # the Round's objects out of the young generations, unwalked (:meth:`run`)
            else:
                gc.collect(1)  # the cycles made this Round (young); the long-lived caches are not walked
            if progress is not None:
                progress(rnd, length)

    def play_phase(self, rnd: int, phase: str, live: np.ndarray) -> None:
        """One Phase of Round ``rnd`` in the games ``live`` (8.4, 8.6, 8.8)."""
        self.new_phase(rnd, phase)
        self.claimed[:] = -1
        if phase == "combat":
            self.combat_phase(live)
            return
        # 8.2.1 "A player must Pass if they have no eligible Units left": planned activations of
        # units Destroyed (or, in the Assault Phase, not on the table) at the start of the Phase
        # are dropped, games grouped by which planned units are left and by the First Player
        planned = sorted(
            {self.uids.index(a.unit) for p in PLAYERS for a in self.scn.activations(rnd, phase, p) if a.unit}
        )
        bits = _planned_bits(self.alive, self.pos, np.asarray(planned, dtype=np.int64), phase != "movement", live)
        starts = [
            (ts, fp, {u for i, u in enumerate(planned) if mask >> i & 1})
            for (fp, mask), ts in self.groups(live, [self.first, bits])
        ]
        if self.by_nodes:  # the nodes' walk (players/cursor.py)
            parts = [
                pt
                for ts, fp, left in starts
                for pt in play_turns(self.players, rnd, phase, fp, left, ts, self.activate)
            ]
        else:  # the per-game cursors' (players/cursor.py)
            games, passers = cursor.walk(self.players, rnd, phase, starts, self.activate)
            parts = [(games[passers == p], p) for p in (0, 1)]
        for games, passer in parts:
            if passer is not None and games.size:
                # the first to Pass takes the First Player Marker, unless a player claimed it for the rest of
                # the Phase (Terran Tenacity: "No other player may claim the First Player Marker")
                claimed = self.claimed[games]
                self.first[games] = np.where(claimed >= 0, claimed, passer)

    @cached_property
    def by_nodes(self) -> bool:
        """Are this Simulation's Phases walked by the nodes (:func:`~.players.play_turns`) rather than by the
        per-game cursors? The environment's switches (:func:`.players.cursor.switches`), read once, at the first
        Phase walked."""
        return cursor.switches(all(isinstance(p, Scripted) for p in self.players))

    @cached_property
    def players(self) -> tuple[Player, Player]:
        """Red's and blue's decisions (:mod:`.players`): the plan of the scenario file, or a policy's (``Auto``: its
        modules are imported only where a player has a policy)."""

        def player(p: str) -> Player:
            if p in self.scn.policies:
                from .players.auto import Auto

                return Auto(self, p, self.scn.policies[p])
            return Scripted(self.scn, p, self.uids, self.cards.activates_next)

        red, blue = (player(p) for p in PLAYERS)
        return red, blue

    def order(self, rnd: int, phase: str, fp: int, left: set[int] | None = None) -> tuple[list[Activation], int | None]:
        """The activations of Phase ``phase`` of Round ``rnd`` in the order they are made from First Player ``fp``
        (:func:`~.players.play_turns` with the plan's players), and the first player to Pass (8.2.1).

        ``left``: the units that may still activate (None: all); the others' entries are dropped, so a player with
        no eligible unit left Passes at once. An activation that uses Bound by the Khala (``activates_next``) is
        followed at once by the selected unit's later activation of the same player, before the opponent's next one
        (where that unit is in ``left``; the order is read once per Phase, so a unit destroyed later in the Phase
        still passes its turn on).
        """
        out: list[Activation] = []
        ((_, passer),) = play_turns(
            self.players, rnd, phase, fp, left, np.zeros(0, dtype=np.int64), lambda act, _games: out.append(act)
        )
        return out, passer

    def new_phase(self, rnd: int, phase: str) -> None:
        """Phase ``phase`` of Round ``rnd`` begins: no unit has activated in it; the cards' state "in this Phase" goes
        (their ``begin_phase``)."""
        self._phase_of_acted = (rnd, phase)
        self.acted[:] = False
        for hook in self.cards.begin_phase:
            hook()

    def activate(self, act: Activation, trials: np.ndarray) -> None:
        trials = _live_kernel(np.ascontiguousarray(trials, dtype=np.int64), self.over)
        u = self.uids.index(act.unit)
        if self._phase_of_acted != (self.round, act.phase):  # a new Phase (also when activations are driven one
            self.new_phase(self.round, act.phase)  # by one, not by play_phase): nobody has activated
        for counted in self.cards.counts_activated:  # counted as Activated in this Phase (Zealous Round, Crushing Grip)
            trials = counted(u, act, trials)
        # a second activation in the Phase: only where a card removed the Activation Marker (Orders); every game's
        # unit is marked activated in the same pass (those refused were already)
        twice = _enter_kernel(trials, self.acted[u])
        if twice.size:
            games = trials[twice]
            allowed = np.zeros(games.size, dtype=bool)
            for again in self.cards.activate_again:
                allowed[~allowed] = again(u, act, games[~allowed])
            self.skip(act, int((~allowed).sum()), "the unit has already activated in this Phase (8.4.1)")
            trials = np.delete(trials, twice[~allowed])
        if act.when or act.unless:  # issue 6 point 1: where a condition fails the unit holds (conditions.py)
            trials = conditions.admit(self, act, trials)
        if trials.size == 0:
            return
        stream = _stream(self.round, PHASES.index(act.phase), self.ordinal[act])
        for admit in self.cards.admit:  # a unit that cannot be Activated (Structure), or not Deployed (SUMMON)
            trials = admit(u, act, trials)
            if trials.size == 0:
                return
        if act.action == "deploy":
            # an ability a unit may use as it enters (FAQ v1.0: e.g. Raiders Roll!) acts once it is set
            old = self.grass.start(self.pos, u, trials)
            got = self.deploy(u, act, trials)
            self.tally.count(u, "deploy", got.size)
            self.grass.end(self.pos, self.alive, u, old, act, self.units[u].flying)
            self._use(u, act, got)
            for hook in self.cards.after_action:  # the Deploy has ended (Creep Removal)
                hook(u, act, got)
            return
        here = _placed_kernel(trials, self.pos[u])
        self.skip(act, trials.size - here.size, "the unit is destroyed or still in Reserves")
        if here.size == 0:
            return
        self.tally.count(u, act.action, here.size)
        for hook in self.cards.begin_activation:  # "When this Unit becomes Activated" (Regeneration)
            hook(u, act, here)
        self._use(u, act, here)
        if act.use:  # an ability used may have returned the active unit itself to Reserves (Mass Recall)
            here = here[self.pos[u, here] >= 0]
        for before in self.cards.before_action:  # an extra Move, PLACE; Strap In!: "instead of performing an action"
            if before(u, act, here):
                return
        for may in self.cards.may_act:  # a Status that bars the action (BURROWED)
            here = may(u, act, here)
        abilities.react_begin(self, act, here)  # 10.4: Reactions to this activation
        old = self.grass.start(self.pos, u, here) if act.action in ("move", "run", "disengage", "charge") else None
        if act.action in ("move", "run", "disengage"):
            self.move(u, act, here)
        elif act.action == "shoot":
            self.shoot(u, act, here, stream)
        elif act.action == "charge":
            self.charge(u, act, here, stream)
        elif act.action == "gather":
            missions.gather(self, u, here)
        elif act.action == "fight":
            self.fight(u, act.targets, here, stream)
        if act.action in ("move", "run", "disengage", "charge"):
            self.grass.end(self.pos, self.alive, u, old, act, self.units[u].flying)
            for hook in self.cards.after_action:  # the action has ended (Creep Removal)
                hook(u, act, here)
        elif act.action == "shoot" and act.react:
            for hook in self.cards.after_attack:  # "after the attack is fully resolved" (Lunge)
                hook(u, act, here)
        abilities.react_end(self, here)

    def fight_answers(
        self, uid: str, pairs: Collection[tuple[str, str]], ordinal: int, planned: Activation | None, here: np.ndarray
    ) -> list[tuple[np.ndarray, Activation | None]]:
        """The games ``here`` of unit ``uid``'s fight (8.8.1; ``pairs``: the units Engaged with each other there, as
        :meth:`engaged_with` gives them; its dice number ``ordinal``) split by the Reactions the opponent declares to
        it (10.4), each with the activation carrying them (``None``: an unplanned fight that carries none): the plan's
        ``fight`` entry ``planned`` as it is where the opponent is scripted; else the opponent, an automatic player, is
        asked (its ``react``) about the fight as :func:`fight_act` writes it (with :meth:`foes`, read only then). A
        trace records every fight here (``players/trace.py``)."""
        player = self.scn.units[uid].player
        react = getattr(self.players[1 - PLAYERS.index(player)], "react", None)
        if react is None or here.size == 0:
            return [(here, planned)]
        act = fight_act(self.round, player, uid, self.foes(uid, pairs), planned)
        self.ordinal.setdefault(act, ordinal)
        return [(g, a if a.react or planned is not None else None) for g, a in react(here, act)]

    def foes(self, uid: str, pairs: Collection[tuple[str, str]]) -> tuple[str, ...]:
        """The enemy units unit ``uid`` is Engaged with among ``pairs`` (both orders), in army order."""
        return tuple(v for v in self.uids if (uid, v) in pairs)

    def _use(self, u: int, act: Activation, here: np.ndarray) -> None:
        """The activation's Active abilities (``use``): on until Cleanup; their effects on the units they select, then
        the cards' effects of the abilities used (their first use this Round)."""
        if not act.use or here.size == 0:
            return
        bits = abilities.use_bits(self, u, act.use)
        fresh = here[(self.used[u, here] & bits) == 0]
        self.used[u, here] |= bits
        if act.select:
            for select in self.cards.select:  # effects for the unit an ability selects (Orders, Crushing Grip)
                select(u, act, here)
        for hook in self.cards.use:  # the cards' effects of the abilities used, in their order
            hook(u, act, fresh)


__all__ = ["Simulation", "uniforms"]
