"""Units set on the table: Deploy (8.3.2, 8.5.5), Move, Run, Disengage (8.5.2-8.5.4), PLACE, RESPAWN, units
returned to Reserves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from . import abilities, disengage
from .basics import split_by as _split_by
from .fastmove import add_supply, in_reserve
from .fastmove import supply_fits as _fits
from .sim_state import SimState, _group_of
from .spec import PLAYERS, Activation, ScenarioUnit

if TYPE_CHECKING:
    from .world import Zone

#: The skip report's note where a Charge's models find no spot (4.4, :meth:`Movement._lost_unset`).
LOST_UNSET = "models that cannot find a legal position maintaining the Coherency Link, removed as casualties (4.4)"

#: a unit set in one game alone is set with every other unit's placement (``World.place_among``: an automatic player's
#: Move verdict read it already) instead of split by the units near it (the tests turn this off to compare)
ONE_GAME = True
#: so many games or fewer are set as one game is, each with its own board (more: split by the units near the Leading
#: Model, whose answers serve many boards)
FEW_GAMES = 16


class Movement(SimState):
    """Deploy, moves, PLACE, RESPAWN, Reserves (a part of :class:`~mathhammer.scenario.sim.Simulation`)."""

    def available(self, u: int, act: Activation, reserve: np.ndarray) -> np.ndarray:
        """The games of ``reserve`` where unit ``u``'s Current Supply Value fits the Available Supply
        (:meth:`supply_fits`); the others are counted in the skip report."""
        ok = self.supply_fits(u, reserve)
        self.skip(act, int((~ok).sum()), "not enough Available Supply (8.3.2)")
        return reserve[ok]

    def supply_fits(self, u: int, reserve: np.ndarray) -> np.ndarray:
        """Per game of ``reserve``: unit ``u``'s Current Supply Value fits the Available Supply (8.3.2: the Supply Pool
        less the Supply of the Friendly Units on the table; unlimited in the final Round)."""
        pool = self.scn.mission.supply_pool(self.round)
        if pool is None:
            return np.ones(reserve.size, dtype=bool)
        su = self.units[u]
        player = PLAYERS.index(su.player)
        # Advanced Medic Facilities: a unit whose Supply "counts as 0 when calculating the Supply Pool"
        own = [
            v
            for v in range(self.U)
            if PLAYERS.index(self.units[v].player) == player and v != u and abilities.counts_for_pool(self.units[v])
        ]
        counts = abilities.counts_for_pool(su)
        return _fits(self.pos, self.alive, self._supply_grid, self.full, own, u, counts, pool, reserve)

    def deploy(self, u: int, act: Activation, trials: np.ndarray) -> np.ndarray:
        """8.5.5 Deploy; returns the trials where the unit was set on the table."""
        su = self.units[u]
        reserve = self.available(u, act, in_reserve(self.pos[u], self.alive[u], trials))
        assert act.to is not None
        for check in self.cards.before_deploy:  # an edge closed this Round (Comsat Station)
            reserve = check(u, act, reserve)
        # a card's own way (through a base, by PLACE, from another table edge), else from the player's Entry Edge
        got = next((g for how in self.cards.deploy if (g := how(u, act, reserve)) is not None), None)
        if got is None:
            got = reserve[self.place(u, reserve, act.to, self.world.rear_of(su.player), act, arriving=True)]
        # Supply destroyed this Round is counted from the units on the table (a unit left in Reserves has none; one
        # returned to Reserves this Round took its Supply off its reference, :mod:`.cards.recall`)
        add_supply(self.ref_supply[u], self.alive[u], self._supply_grid[u], int(self.full[u]), got)  # supply()
        return got

    def place(
        self,
        u: int,
        trials: np.ndarray,
        lead: tuple[float, float],
        rear: tuple[float, float],
        act: Activation,
        allowed: tuple[str, ...] = (),
        targets_left: tuple[tuple[str, int], ...] = (),
        quiet: bool = False,
        moves: list[tuple[np.ndarray, int]] | None = None,
        arriving: bool = False,
    ) -> np.ndarray:
        """Set unit ``u`` with its Leading Model at ``lead`` (:meth:`World.place`) in ``trials``; which were set
        (``quiet``: no skip report for the others, which the caller tries elsewhere; ``moves``: where given, a
        charging unit's moves, (trials, placement), are appended to it for the caller to set, not set here).
        ``arriving``: the unit arrives from Reserves (a Deploy by any way, a summons, a token's Deploy): its models are
        set out of the opponent's Zone of Influence (:meth:`World.place`), and where its Leading Model's point is
        Within it, the arrival is refused (8.3.3).

        The answer depends on the other units only through the Charge targets' placements and those near
        ``lead`` (:meth:`World.place_test`): the trials are split by those, not by the whole board."""
        su = self.units[u]
        zone = self.world.arrival_zone(su.player) if arriving else None
        if allowed and not su.flying:
            assert zone is None, "a Charge is no arrival"
            return self._charge_place(u, trials, lead, rear, act, allowed, targets_left, moves)
        if not allowed:  # each count of models left sets its own formation (the removed models are off the table)
            left = self.alive[u, trials]
            if not trials.size or int(left.min()) >= su.models or int(left.min()) <= 0:
                return self._free_place(u, trials, lead, rear, act, quiet, zone)
            placed = np.zeros(trials.size, dtype=bool)
            for k in np.unique(left).tolist():
                sel = np.flatnonzero(left == k)
                unit = self.world.models_left(su, k)
                placed[sel] = self._free_place(u, trials[sel], lead, rear, act, quiet, zone, unit)
            return placed
        placed = np.zeros(self.T, dtype=bool)
        tgt = [v for v in range(self.U) if v != u and self.uids[v] in allowed]
        rest = [v for v in range(self.U) if v != u and v not in tgt]
        for tkey, ts0 in self.groups(trials, [self.row_pos(t) for t in tgt]) if tgt else [((), trials)]:
            tpos = dict(zip(tgt, tkey, strict=True))
            test = self.world.place_test(su, lead, [p for p in tkey if p >= 0], targets_left)
            # the games of each answer together (many boards near the Leading Model, few answers), set at the end
            # in one pass
            answers: dict[int | None, list[np.ndarray]] = {}
            for near_pos, idx in self._near_cols(ts0, rest, test):
                if tgt:
                    at = tpos | dict(zip(rest, near_pos, strict=True))
                    occupied = tuple(at[v] for v in range(self.U) if v != u and at[v] >= 0)
                else:  # ``rest`` is every other unit, in order
                    occupied = tuple(p for p in near_pos if p >= 0)
                pid = self.world.place(su, lead, rear, occupied, allowed, targets_left=targets_left, arriving=zone)
                answers.setdefault(pid, []).append(idx)
            here = np.zeros(ts0.size, dtype=bool)
            self._set_answers(u, ts0, answers, act, quiet, here, zone)
            placed[ts0[here]] = True
        return placed[trials]

    def _free_place(
        self,
        u: int,
        trials: np.ndarray,
        lead: tuple[float, float],
        rear: tuple[float, float],
        act: Activation,
        quiet: bool,
        zone: Zone | None = None,
        unit: ScenarioUnit | None = None,
    ) -> np.ndarray:
        """:meth:`place` without Charge targets: which of ``trials`` were set (``unit``: the unit as set there,
        :meth:`World.models_left`; by default unit ``u`` at full strength).

        The trials are split first by the units near the Leading Model (:meth:`World.lead_test`), whose answer
        (:meth:`World.place_near_lead`) holds for every board with those units there; only where it needs the
        others (-1) are its trials split again by every unit that may change :meth:`World.place`
        (:meth:`World.place_test`)."""
        su = self.units[u] if unit is None else unit
        placed = np.zeros(trials.size, dtype=bool)
        world = self.world
        if ONE_GAME and trials.size == 1 and zone is None:  # one game: its board (as a Move verdict read it)
            board = self._board_arr[int(self.board[trials[0]])].tolist()
            pid = world.place_among(su, lead, rear, tuple(p for v, p in enumerate(board) if v != u and p >= 0))
            if pid is None:  # :meth:`_set_answers` of the one answer
                if not quiet:
                    self.skip(act, 1, self._no_room(u, act))
            else:
                self.set_pos_many(u, [(trials, pid)])
                placed[0] = True
            return placed
        if ONE_GAME and trials.size <= FEW_GAMES and zone is None:  # a few games: each its board, as above
            return self._each_board(u, trials, lead, rear, act, quiet)
        rest = [v for v in range(self.U) if v != u]
        test = None
        # the games of each answer together, set at the end in one pass
        answers: dict[int | None, list[np.ndarray]] = {}
        for near_pos, idx in self._near_cols(trials, rest, world.lead_test(su, lead)):
            pid = world.place_near_lead(su, lead, rear, tuple(p for p in near_pos if p >= 0), zone)
            if pid != -1:
                answers.setdefault(pid, []).append(idx)
                continue
            test = world.place_test(su, lead) if test is None else test
            for far_pos, sub in self._near_cols(trials[idx], rest, test):
                pid = world.place(su, lead, rear, tuple(p for p in far_pos if p >= 0), arriving=zone)
                answers.setdefault(pid, []).append(idx[sub])
        self._set_answers(u, trials, answers, act, quiet, placed, zone)
        return placed

    def _set_answers(
        self,
        u: int,
        trials: np.ndarray,
        answers: dict[int | None, list[np.ndarray]],
        act: Activation,
        quiet: bool,
        placed: np.ndarray,
        zone: Zone | None = None,
    ) -> None:
        """Set unit ``u`` in the games ``trials[idx]`` of each answer (placement id: the parts ``idx``; None: no
        room, counted in the skip report unless ``quiet``), in one pass; ``placed`` (one per game of ``trials``)
        marks the games set. ``zone``: an arriving unit's (:meth:`place`): a placement Within it (its Leading Model's
        point, the others are set out of it) is refused, counted unless ``quiet`` (8.3.3)."""
        moves: list[tuple[np.ndarray, int]] = []
        for pid, parts in answers.items():
            idx = parts[0] if len(parts) == 1 else np.concatenate(parts)
            if pid is None:
                if not quiet:
                    self.skip(act, idx.size, self._no_room(u, act))
                continue
            if zone is not None and self.world.zone_gap(self.units[u], zone, self.world.placements[pid].centres) <= 0:
                if not quiet:  # 8.3.3 (the plan check names it)
                    self.skip(act, idx.size, "it would end Within the opponent's Zone of Influence (8.3.3)")
                continue
            moves.append((trials[idx], pid))
            placed[idx] = True
        self.set_pos_many(u, moves)

    def _no_room(self, u: int, act: Activation) -> str:
        """The skip report's reason where unit ``u`` finds no room: the activation's own unit is "the unit"; another
        one set during it (an opponent's Lunge after a Shoot, a card moving another unit) is named."""
        uid = self.uids[u]
        return disengage.NO_ROOM if uid == act.unit else f"no room to set {uid} there"

    def _charge_place(
        self,
        u: int,
        trials: np.ndarray,
        lead: tuple[float, float],
        rear: tuple[float, float],
        act: Activation,
        allowed: tuple[str, ...],
        targets_left: tuple[tuple[str, int], ...],
        moves: list[tuple[np.ndarray, int]] | None = None,
    ) -> np.ndarray:
        """:meth:`place` for a charging unit in ``trials``: which were set (``moves``: see :meth:`place`).

        One trial's board is set (:meth:`World.charge_place`), and the box that setting looked at names the
        units that mattered to it: every other trial with the same placements of those units (the others' bases
        are too far from the box to change a test) gets the same answer. Repeated on the trials left."""
        su = self.units[u]
        placed = np.zeros(trials.size, dtype=bool)
        rest = [v for v in range(self.U) if v != u]
        todo = np.arange(trials.size)
        alike = self._alike(trials, rest)
        mine: list[tuple[np.ndarray, int]] = []  # set at the end, in one pass (the loop reads other trials)
        while todo.size:
            first = int(trials[todo[0]])
            occupied = tuple(p for v, p in enumerate(self.pos[:, first].tolist()) if v != u and p >= 0)
            pid, box = self.world.charge_place_kept(su, lead, rear, occupied, allowed, targets_left)
            same = alike(todo, self.world.bases_many(su, box))
            done, todo = todo[same], todo[~same]
            if pid is None:
                self.skip(act, done.size, self._no_room(u, act))
                continue
            placed[done] = True
            games = trials[done]
            self._lost_unset(u, games, len(self.world.placements[pid].centres), act)
            # the models left only, set first to last by the Placement priority (the others are off the table)
            left = self.alive[u, games]
            for k in np.unique(left).tolist():
                mine.append((games[left == k], self.world.trimmed(pid, k)))
        if moves is None:
            self.set_pos_many(u, mine)
        else:
            moves += mine
        return placed

    def _lost_unset(self, u: int, games: np.ndarray, room: int, act: Activation) -> None:
        """4.4 ("Any model that cannot find a legal position maintaining the Coherency Link is immediately removed as
        a casualty"): in ``games``, where unit ``u`` has more live models than its new placement holds (``room``: the
        models set, :meth:`World.charge_place`), the others are removed (their Supply is lost, as any Supply destroyed;
        SHIELDED ends with the first model removed, part 11)."""
        if room >= self.units[u].models:
            return
        lost = games[self.alive[u, games] > room]
        if lost.size:
            self.skip(act, lost.size, LOST_UNSET)
            self.alive[u, lost] = room
            self.shielded[u, lost] = False

    def _alike(
        self, trials: np.ndarray, units: Sequence[int]
    ) -> Callable[[np.ndarray, Callable[[np.ndarray], np.ndarray]], np.ndarray]:
        """``same(idx, matters)``: per trial of ``trials[idx]``, are the placements of ``units`` for which
        ``matters`` holds (``matters(pids)``: one bool a placement; the others read as off the table) those of the
        first one? (Each unit's placements in ``trials`` are listed once, here, and tested in one call.)"""
        # per trial its board (IdGrouper: no hashing, linear in the trials), per board and unit the placement
        if trials.size == 1 or bool((self.board[trials] == self.board[trials[0]]).all()):
            return lambda idx, _matters: np.ones(idx.size, dtype=bool)  # one board (common): every trial alike
        order, bounds, bids = self._by_board.split(self.board, trials, self._boards.n)
        board_of = _group_of(order, bounds, trials.size)
        placed = self._board_arr[bids][:, np.asarray(units, dtype=np.int64)]
        # the units whose placement differs between the boards (a unit placed alike everywhere never tells games
        # apart): their placements (one list) and each board's, as an index into it
        differ = np.flatnonzero((placed != placed[0]).any(axis=0))
        vals, inv = np.unique(placed[:, differ], return_inverse=True)
        inv = inv.reshape(placed.shape[0], differ.size)
        on = np.flatnonzero(vals >= 0)

        def same(idx: np.ndarray, matters: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
            kept = np.full(vals.size, -1, dtype=np.int64)
            kept[on] = np.where(matters(vals[on]), vals[on], -1)
            mapped = kept[inv[board_of[idx]]]
            return np.asarray((mapped == mapped[0]).all(axis=1))

        return same

    def move(self, u: int, act: Activation, trials: np.ndarray) -> None:
        if trials.size == 1 and act.action != "disengage" and not self.engaged_one(int(trials[0]), u):
            engaged = np.zeros(1, dtype=bool)  # one game, not Engaged (common once games part): no mask read
        else:
            engaged = self.engaged_mask(trials, u)
        if act.action == "disengage":
            mine = trials[engaged]
            if mine.size:
                self._tactical_mass(u, mine)
            movers = trials
        else:
            self.skip(act, int(np.count_nonzero(engaged)), "the unit is Engaged: it cannot Move or Run (8.5.2, 8.7.1)")
            movers = trials[~engaged]
        assert act.to is not None
        # a Move or Run that keeps the unit's Statuses (Tunneling Claws; not a Disengage)
        keeps = act.action != "disengage" and any(keep(u, act) for keep in self.cards.keeps_status)
        placed = (
            disengage.move(self, u, act, trials, engaged)  # 8.5.4: models lost, or the Disengage fails
            if act.action == "disengage"
            else self.move_to(u, movers, act.to, act, moving=not keeps, headings=act.headings)
        )
        for hook in self.cards.moved:  # Omega Network: in Base-to-Base contact with the Omega Worm, back to Reserves
            hook(u, act, placed)

    def move_to(
        self,
        u: int,
        movers: np.ndarray,
        to: tuple[float, float],
        act: Activation,
        moving: bool = True,
        headings: int | None = None,
    ) -> np.ndarray:
        """Set unit ``u``'s Leading Model at ``to`` in the games ``movers``, the others behind it (8.5.3); which
        were set. ``moving``: a Move, Run or Disengage (not a PLACE), which ends the Burrowed Status. ``headings``:
        the rear rounded to the nearest of so many compass headings (the plan's, :meth:`World.rear_from`)."""
        if moving:
            for end in self.cards.end_status:  # part 11 BURROWED: a Move, Run or Disengage removes it
                end(u, movers)
        if movers.size == 1:  # one game: its own placement (``groups``' one key)
            pid = int(self.state[self.row_pos(u), int(movers[0])])
            return movers[self.place(u, movers, to, self.world.rear_from(pid, to, headings), act)]
        if ONE_GAME and movers.size <= FEW_GAMES:  # a few games: each as one game is, all set in one pass
            return movers[self._each_board(u, movers, to, None, act, False, headings)]
        got = [
            ts[self.place(u, ts, to, self.world.rear_from(pid[0], to, headings), act)]
            for pid, ts in self.groups(movers, [self.row_pos(u)])
        ]
        if len(got) == 1:  # one group: the games of ``movers`` in their order (``groups`` keeps it within a group)
            return got[0]
        placed = np.zeros(self.T, dtype=bool)
        for ts in got:
            placed[ts] = True
        return movers[placed[movers]]

    def _each_board(
        self,
        u: int,
        trials: np.ndarray,
        lead: tuple[float, float],
        rear: tuple[float, float] | None,
        act: Activation,
        quiet: bool,
        headings: int | None = None,
    ) -> np.ndarray:
        """:meth:`place` in a few games (at most :data:`FEW_GAMES`), not arriving, no Charge targets, each as in one
        game (:meth:`World.place_among` with its board's other units), then all set in one pass (:meth:`_set_answers`);
        which were set. ``rear``: every game's, or None: each game's from the placement the unit leaves there (a
        Move's, :meth:`World.rear_from` with ``headings``), so a Move in games the unit left from different placements
        is set in one pass, not one per placement."""
        su, world = self.units[u], self.world
        by_pid: dict[int | None, list[int]] = {}
        left = self.alive[u, trials].tolist()
        for i, board in enumerate(self._board_arr[self.board[trials]].tolist()):
            occupied = tuple(p for v, p in enumerate(board) if v != u and p >= 0)
            back = world.rear_from(board[u], lead, headings) if rear is None else rear
            unit = world.models_left(su, left[i]) if 0 < left[i] < su.models else su
            by_pid.setdefault(world.place_among(unit, lead, back, occupied), []).append(i)
        placed = np.zeros(trials.size, dtype=bool)
        few = {pid: [np.asarray(idx, dtype=np.int64)] for pid, idx in by_pid.items()}
        self._set_answers(u, trials, few, act, quiet, placed)
        return placed

    def to_reserves(self, u: int, back: np.ndarray) -> None:
        """Unit ``u`` leaves the battlefield for Reserves in the games ``back`` (8.5.5 UNITS RETURNED TO RESERVES, as
        :mod:`.cards.recall` reads it)."""
        if back.size == 0:
            return
        self.ref_supply[u, back] -= self.supply(u, self.alive[u, back])
        for end in self.cards.end_status:  # part 11 BURROWED
            end(u, back)
        self.set_pos(u, back, -1)

    def _tactical_mass(self, u: int, trials: np.ndarray) -> None:
        """8.5.4: no Ranged Attack or Charge in the next Assault Phase unless Tactical Mass.

        Tactical Mass: Current Supply above the Combined Supply of the enemies it was Engaged with; a Commander
        counts 1 more on either side ("resolving Disengage checks"). The cards change either side's Supply through
        the ``supply_for_mass`` trigger (part 11 BURROWED: "Its Current Supply Value is treated as 0 for Disengage
        checks"; Commander: ``disengage_supply``).
        """
        uid = self.uids[u]
        for ts, pairs in self.engaged_with(trials):
            foes = [self.uids.index(b) for a, b in pairs if a == uid]
            combined = sum(self._mass_supply(v, ts) for v in foes)
            self.penalty[u, ts] = ~(self._mass_supply(u, ts) > combined)

    def _mass_supply(self, u: int, ts: np.ndarray) -> np.ndarray:
        """Unit ``u``'s Current Supply Value per game of ``ts`` for Disengage checks (8.5.4): the cards' changes."""
        supply = np.asarray(self.supply(u, self.alive[u, ts]))
        for change in self.cards.supply_for_mass:
            supply = change(u, ts, supply)
        return supply

    def _barred(self, u: int, trials: np.ndarray) -> np.ndarray:
        """Per trial of ``trials``: the Disengage penalty (8.5.4) bars unit ``u``'s Ranged Attack or Charge, unless a
        card lifts it for the abilities used on it this Round (the ``lifts_penalty`` trigger: Tactical Retreat)."""
        barred = self.penalty[u, trials].copy()
        if barred.any() and self.cards.lifts_penalty:
            hit = trials[barred]
            for mask, ts in _split_by(hit, self.used[u, hit]):
                if any(lift(u, mask) for lift in self.cards.lifts_penalty):
                    barred[np.isin(trials, ts)] = False
        return barred


__all__ = ["Movement"]
