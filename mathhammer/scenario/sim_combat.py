"""Charge (8.7.7) and IMPACT, the Combat Phase (8.8.1) with Close Ranks and the Fighting Ranks."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property

import numpy as np

from ..board.engagement import ENGAGEMENT_RANGE
from ..errors import MathhammerError
from ..starcraft.loadout import attack_batches
from ..starcraft.model import Batch
from . import abilities
from .basics import stream as _stream
from .fast import group_rows
from .fastcombat import BOX, EVERY, PLACEMENT, GroupsNearSplitter
from .players import cursor
from .sim_state import SimState, _Test
from .spec import PLAYERS, Activation
from .world import World

#: a group's test of the placements near (:class:`~mathhammer.scenario.fastcombat.GroupsNearSplitter`): mode, box
#: (x0, y0, x1, y1), placement, reach
NearTest = tuple[int, tuple[float, float, float, float], int, float]
_NO_BOX = (0.0, 0.0, 0.0, 0.0)


class Combat(SimState):
    """Charge and Combat (a part of :class:`~mathhammer.scenario.sim.Simulation`)."""

    def charge(self, u: int, act: Activation, trials: np.ndarray, stream: int) -> None:
        """8.7.7 CHARGE, per board state of the units it reads (:meth:`_charge_games`); then, where the unit's
        Lightning Dash is planned, its second Charge in the games where the first succeeded."""
        su = self.units[u]
        barred = self._barred(u, trials)
        self.skip(act, int(barred.sum()), "Disengaged without Tactical Mass (8.5.4)")
        trials = trials[~barred]
        for hook in self.cards.before_attack:  # "declares a Charge action while ON CREEP" (Malevolent Matriarch)
            hook([u], trials)
        targets = [self.uids.index(t) for t in act.targets]
        rolls = np.zeros(self.T, dtype=np.int64)
        rolls[trials] = self.d6(stream, trials)  # the Charge Roll, 8.7.7 step 2
        slow = np.zeros(self.T, dtype=np.int64)  # DEBUFF Speed from Reactions to the declaration (8.7.7 step 1)
        for declared in self.cards.charge_declared:
            slow = np.maximum(slow, declared(act, trials))
        for roll in self.cards.charge_roll:  # abilities used, Reactions to the roll (10.4)
            roll(act, rolls, trials, stream)
        done = self._charge_games(u, act, trials, targets, rolls, slow, abilities.impact_of(su), stream)
        dash = next((v for again in self.cards.charge_again if (v := again(act)) is not None), None)
        if dash is not None and done.size:
            # Lightning Dash: "After this Unit resolves a successful Charge action, it may declare a second Charge
            # action against a different Enemy Unit, ignoring the restriction on Charging while Engaged. The
            # Devastating Charge ability does not trigger a second time": a new Charge Roll, Speed + 1D6 (the DEBUFF
            # Speed of the declaration lasts the Round); the first target, now not declared, keeps the end out of
            # its Engagement Range (8.7.7 step 3); no IMPACT
            rolls[done] = self.d6(_stream(stream, 61), done)
            self._charge_games(u, act, done, [dash], rolls, slow, None, stream, dash=True)

    def _charge_games(
        self,
        u: int,
        act: Activation,
        trials: np.ndarray,
        targets: list[int],
        rolls: np.ndarray,
        slow: np.ndarray,
        imp: tuple[int, int] | None,
        stream: int,
        dash: bool = False,
    ) -> np.ndarray:
        """One Charge of unit ``u`` at ``targets`` in ``trials`` with the Charge Rolls ``rolls`` (per game; ``slow``:
        the DEBUFF Speed), IMPACT ``imp`` after a success; ``dash``: the unit may start Engaged. The games where
        the Charge succeeded and the unit was set.

        The charging unit (placement, models, abilities used) and its targets (placement, models) group the
        trials; the other units enter as :meth:`World.charge_length` reads them: those near the charging unit
        (within the Charge's reach + 2"), whole. Whether the unit starts Engaged is read on the models left
        (:meth:`engaged_mask`: 7.2.1, 8.7.4 step 5)."""
        su = self.units[u]
        cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), self.row_used(u)]
        for t in targets:
            cols += [self.row_pos(t), self.row_alive(t)]
        # tokens on the battlefield it cannot move across, per game (Force Fields)
        wall_card, walls = self.cards.charge_walls(u)
        if walls is not None:
            cols.append(walls)
        rest = [v for v in range(self.U) if v != u and v not in targets]
        uid = self.uids[u]
        top = max(6, int(rolls[trials].max())) if trials.size else 6
        done: list[np.ndarray] = []
        # the unit set in all its groups at the end, in one pass (each group reads only its own games), then IMPACT
        moves: list[tuple[np.ndarray, int]] = []
        impacts: list[tuple[np.ndarray, int, tuple[int, int]]] = []
        for key, ts0 in self._ordered(self.groups(trials, cols), [0, *(3 + 2 * i for i in range(len(targets)))]):
            pu, a, mask = key[0], key[1], key[2]
            tpos = {t: (key[3 + 2 * i], key[4 + 2 * i]) for i, t in enumerate(targets)}
            alive_targets = [t for t in targets if tpos[t][0] >= 0]
            if not alive_targets:
                self.skip(act, ts0.size, "no planned target on the table")
                continue
            tids = tuple(self.uids[t] for t in alive_targets)
            # an ``on_creep`` BUFF Speed (Speed on Creep, Glial Reconstitution's second) only ON CREEP (the loadout)
            speed = su.speed + sum(e.value for e in self.effects(u, mask, "speed") if not e.on_creep)
            reach = speed + top
            known = {u: (pu, a)} | {t: tpos[t] for t in alive_targets}
            near = self._near_test(pu, reach + ENGAGEMENT_RANGE + 1.0)  # World.charge_length's units
            # part 11 GRASS: the path, its end and the Engaged tests read on the board without the removed pieces
            for idx, near_pos, world in self._near_parts(ts0, rest, near):
                ts = ts0[idx]
                pos, alive = self._local_state(known, rest, near_pos, {})
                if not dash:  # 8.7.7 "An Unengaged Ground Unit": Engaged on the models left (engaged_mask, 7.2.1)
                    stuck = self.engaged_mask(ts, u)
                    self.skip(act, int(stuck.sum()), "the unit is Engaged: it cannot Charge (8.7.7)")
                    ts = ts[~stuck]
                    if ts.size == 0:
                        continue
                fields = wall_card.wall_centres(key[-1]) if wall_card is not None else ()
                try:
                    length, end = world.charge_length(pos, alive, uid, tids, reach, fields=fields, engaged_ok=dash)
                except MathhammerError:
                    if dash:
                        raise
                    # Unengaged on the models left (above) but Engaged on this board, which holds the removed models
                    # of the units not declared (the path reads them whole: charge_length's units, above)
                    length, end = world.charge_length(pos, alive, uid, tids, reach, fields=fields, engaged_ok=True)
                ok = ts[np.maximum(speed - slow[ts], 0) + rolls[ts] >= length - 1e-9] if end is not None else ts[:0]
                short = (
                    "the second Charge Roll too short (Lightning Dash, 8.7.7)"
                    if dash
                    else "Charge Roll too short (8.7.7)"
                )
                self.skip(act, ts.size - ok.size, short)
                if ok.size == 0 or end is None:
                    continue
                tx, ty = self.world.placements[tpos[alive_targets[0]][0]].centres[0]
                rear = (end[0] - tx, end[1] - ty)
                left = tuple((self.uids[t], int(tpos[t][1])) for t in alive_targets)
                placed = self.place(u, ok, end, rear, act, tids, left, moves=moves)  # 8.7.7 step 4
                ok = ok[placed]
                done.append(ok)
                if imp is not None and ok.size:  # with its IMPACT abilities (My Life for Aiur, Adrenal Overload)
                    resolved = imp
                    for change in self.cards.impact:
                        resolved = change(u, mask, resolved)
                    impacts.append((ok, alive_targets[0], resolved))
        self.set_pos_many(u, moves)
        for ok, t, resolved in impacts:
            self._impact(u, t, ok, resolved, stream)
        return np.sort(np.concatenate(done)) if done else trials[:0]

    def _near_parts(
        self, trials: np.ndarray, units: Sequence[int], near: Callable[[int], bool], ordered: bool = True
    ) -> Iterator[tuple[np.ndarray, tuple[int, ...], World]]:
        """:meth:`_near_cols` of ``trials`` (in :meth:`_ordered` order unless not ``ordered``) per World of the Grass
        removed in them (part 11 GRASS, :meth:`Grass.by_world <mathhammer.scenario.grass.Grass.by_world>`): the
        indices into ``trials`` of each part, the placements of ``units`` near, the World to read the part on."""
        for sel, world in self.grass.by_world(trials):
            part = trials if sel is None else trials[sel]
            cols = self._near_cols(part, units, near)
            for near_pos, idx in self._ordered(cols, range(len(units))) if ordered else cols:
                yield (idx if sel is None else sel[idx]), near_pos, world

    @cached_property
    def _groups_near(self) -> GroupsNearSplitter:
        return GroupsNearSplitter()

    def _as_test(self, test: NearTest) -> _Test:
        """A :data:`NearTest` as the test :meth:`_near_parts` reads."""
        mode, box, pa, reach = test
        if mode == BOX:
            return self._box_test(np.array(box[:2]), np.array(box[2:]), reach)
        if mode == PLACEMENT:
            return self._near_test(pa, reach)
        return self._box_test(None, None, reach)

    def _near_parts_of(
        self,
        groups: list[tuple[tuple[int, ...], np.ndarray]],
        units: Sequence[int],
        tests: list[NearTest],
        pids: Sequence[int],
    ) -> Iterator[tuple[int, tuple[int, ...], np.ndarray, World]]:
        """:meth:`_near_parts` of each group of ``groups`` (key, games; none empty) with its test ``tests[g]``, the
        groups in :meth:`_ordered` order (the entries ``pids`` of a key are placement ids), every group split at once
        (:class:`~mathhammer.scenario.fastcombat.GroupsNearSplitter`) where no Grass is removed in their games: per
        part, the group's index, the placements of ``units`` near, the part's games and the World to read it on."""
        if not groups:
            return
        cat = groups[0][1] if len(groups) == 1 else np.concatenate([ts for _, ts in groups])
        worlds = list(self.grass.by_world(cat))
        if len(worlds) > 1 or worlds[0][0] is not None or not units:  # part 11 GRASS removed, or nothing to split by
            yield from self._near_parts_each(groups, units, tests, pids)
            return
        world = worlds[0][1]
        bounds = np.zeros(len(groups) + 1, dtype=np.int64)
        np.cumsum([ts.size for _, ts in groups], out=bounds[1:])
        keys, out, ends = self._groups_near.split_groups(
            self.board, cat, bounds, self._board_arr, np.asarray(units), tests, self.world.near_arrays()
        )
        parts = [
            (k[0], tuple(k[1:]), cat[out[(ends[i - 1] if i else 0) : ends[i]]]) for i, k in enumerate(keys.tolist())
        ]
        if self.sharing:  # as _ordered of the groups (stable: groups of equal content in their order), then of each
            c, named = self.world.content, frozenset(pids)  # group's parts: three stable sorts, the last first

            def content(part: tuple[int, tuple[int, ...], np.ndarray]) -> tuple[int, ...]:
                return tuple(c(v) if i in named else v for i, v in enumerate(groups[part[0]][0]))

            parts.sort(key=lambda part: tuple(c(v) for v in part[1]), reverse=self.reverse)
            parts.sort(key=lambda part: part[0])
            parts.sort(key=content, reverse=self.reverse)
        for g, near_pos, ts in parts:
            yield g, near_pos, ts, world

    def _near_parts_each(
        self,
        groups: list[tuple[tuple[int, ...], np.ndarray]],
        units: Sequence[int],
        tests: list[NearTest],
        pids: Sequence[int],
    ) -> Iterator[tuple[int, tuple[int, ...], np.ndarray, World]]:
        """:meth:`_near_parts_of` group after group: :meth:`_near_parts` of each (its test as :meth:`_box_test` or
        :meth:`_near_test`)."""
        index = {id(part): g for g, part in enumerate(groups)}
        for part in self._ordered(iter(groups), pids):
            g = index[id(part)]
            ts1 = part[1]
            for idx, near_pos, world in self._near_parts(ts1, units, self._as_test(tests[g])):
                yield g, near_pos, ts1[idx], world

    def _impact(self, u: int, t: int, trials: np.ndarray, imp: tuple[int, int], stream: int) -> None:
        """IMPACT after a successful Charge: its dice at the first target, one per model of the unit in the
        Fighting or Supporting Rank (:meth:`World.strikers`, read with the enemies near the unit, whole)."""
        enemies = [v for v in range(self.U) if v != u and self.units[v].player != self.units[u].player]
        for (pu, k, a), ts in self.groups(trials, [self.row_pos(u), self.row_alive(t), self.row_alive(u)]):
            near = self._near_test(pu, ENGAGEMENT_RANGE + 2.0)
            for idx, near_pos, world in self._near_parts(ts, enemies, near, ordered=False):  # part 11 GRASS
                pos, alive = self._local_state({u: (pu, a)}, enemies, near_pos, {t: k})
                n = world.strikers(pos, alive, self.uids[u])
                if n:
                    self.resolve(
                        [Batch.impact(n, imp[0], imp[1], name="IMPACT")],
                        t,
                        "combat",
                        ts[idx],
                        _stream(stream, 99),
                        None,
                        False,
                        by=u,
                    )

    def combat_phase(self, live: np.ndarray) -> None:
        """8.8: every Engaged unit fights, alternating from the First Player.

        The planned ``fight`` entries come first, then the other Engaged units in army order.
        """
        planned = {
            p: [a for a in self.scn.activations(self.round, "combat", p) if a.action == "fight"] for p in PLAYERS
        }
        for fp, ts_fp in enumerate([live[self.first[live] == fp] for fp in (0, 1)]):
            for ts, pairs in self.engaged_with(ts_fp):
                engaged = {a for a, _ in pairs}
                lists: list[list[tuple[str, tuple[str, ...], int, Activation | None]]] = [[], []]
                for pi, p in enumerate(PLAYERS):
                    seen = set()
                    for a in planned[p]:
                        if a.unit in engaged and a.unit not in seen:
                            lists[pi].append((a.unit, a.targets, self.ordinal[a], a))
                            seen.add(a.unit)
                    for uid in self.uids:
                        if uid in engaged and uid not in seen and self.scn.units[uid].player == p:
                            lists[pi].append((uid, (), 10_000 + self.uids.index(uid), None))
                turn, idx = fp, [0, 0]
                while idx[0] < len(lists[0]) or idx[1] < len(lists[1]):
                    if idx[turn] < len(lists[turn]):
                        uid, targets, ordinal, planned_act = lists[turn][idx[turn]]
                        idx[turn] += 1
                        u = self.uids.index(uid)
                        here = ts[(self.pos[u, ts] >= 0) & ~self.over[ts]]
                        self.tally.count(u, "fight", here.size)
                        cursor.count("fight", here.size)  # among the steps counted (players/cursor.py)
                        # 10.4: Reactions to this fight (the plan's; an automatic opponent's, asked per game)
                        for part, answered in self.fight_answers(uid, pairs, ordinal, planned_act, here):
                            with abilities.reacting(self, answered, part):
                                self.fight(u, targets, part, _stream(self.round, 2, ordinal))
                    turn = 1 - turn

    def fight(self, u: int, targets: Sequence[str], trials: np.ndarray, stream: int) -> None:
        """8.8.1: the Fighting and Supporting Ranks strike the enemy units they are Engaged with.

        The striking models are counted on the board, then split between the Engaged enemy units
        (8.8.1 "Declare how Attack Dice are split between eligible targets before rolling") by
        ``[policy] fight_split``, the enemies ranked planned ``targets`` first, then army order:

        * ``first-target``: every striking model at the first of them;
        * ``even``: the striking models split as evenly as possible over all of them, the earlier
          ones getting the odd models; the first part alone rolls the Surge Dice ("The Surge Die
          cannot be split") and any HITS of the unit's abilities. Every part is declared before
          any is rolled, then resolved in that order, each with its own draw;
        * ``weakest``: every striking model at the one with the fewest models left (ties: rank).

        Before the striking models are counted, ``[policy] close_ranks = "always"`` (the default) makes the
        unit's CLOSE RANKS move (8.8.1 step 1, :meth:`close_ranks`); the models are then counted where it
        left them.
        """
        uid = self.uids[u]
        split = self.scn.policy.fight_split
        for ready in self.cards.before_fight:  # part 11 BURROWED: Close Ranks removes it, or the unit does not attack
            trials = ready(u, trials)
        if self.scn.policy.close_ranks == "always":
            self.close_ranks(u, trials)  # 8.8.1 step 1, before rolling the dice: may move the unit in some trials
        side = self.units[u].player
        enemies = [v for v in range(self.U) if self.units[v].player != side]
        for hook in self.cards.before_attack:  # ON CREEP where the Close Ranks move left them
            hook([u, *enemies], trials)
        for ts, pairs in self.engaged_with(trials):
            engaged = {b for a, b in pairs if a == uid}
            if not engaged:
                continue
            ranked = [t for t in dict.fromkeys(targets) if t in engaged]
            ranked += sorted((t for t in engaged if t not in ranked), key=self.uids.index)
            foes = [self.uids.index(t) for t in (ranked[:1] if split == "first-target" else ranked)]
            cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), *(self.row_alive(t) for t in foes)]
            groups = [(gkey, ts1) for gkey, ts1 in self.groups(ts, cols) if gkey[1] > 0]
            # 8.8.1 step 2 is read with the enemy units near the unit (World.strikers): split by those
            tests = [(PLACEMENT, _NO_BOX, gkey[0], ENGAGEMENT_RANGE + 2.0) for gkey, _ in groups]
            striking = self._striking
            striking[ts] = 0
            for g, near_pos, ts2, world in self._near_parts_of(groups, enemies, tests, [0]):  # part 11 GRASS
                pu, a, left = groups[g][0][0], groups[g][0][1], groups[g][0][2:]
                pos, alive = self._local_state({u: (pu, a)}, enemies, near_pos, dict(zip(foes, left, strict=True)))
                striking[ts2] = min(world.strikers(pos, alive, uid), a)
            # the attacks (8.8.1 steps 3-4) read the striking models, the abilities used and the models left, not
            # where the units stand: one resolve per such key (each game's dice are its own)
            for key, ts2 in self._strike_groups(u, foes, ts, striking[ts]):
                self._strike(u, key[0], foes, tuple(key[1:-1]), key[-1], split, ts2, stream)

    @cached_property
    def _striking(self) -> np.ndarray:
        """Scratch of :meth:`fight`: per game, the striking models of the unit fighting."""
        return np.zeros(self.T, dtype=np.int64)

    def _strike_groups(
        self, u: int, foes: list[int], ts: np.ndarray, n: np.ndarray
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        """The games ``ts`` (distinct) with their striking models ``n``, those with any, split by (the unit's abilities
        used, the models left of ``foes``, the striking models): the key and its games, in ascending order, the keys in
        order of their first game."""
        keep = np.flatnonzero(n > 0)
        if keep.size == 0:
            return
        ts, n = ts[keep], n[keep]
        if ts.size > 1 and not bool((ts[1:] > ts[:-1]).all()):
            by = np.argsort(ts, kind="stable")
            ts, n = ts[by], n[by]
        mat = np.stack([self.used[u, ts], *(self.alive[t, ts] for t in foes), n])
        order, bounds, keys = group_rows(mat, np.arange(ts.size))
        for g, key in enumerate(keys.tolist()):
            yield key, ts[order[bounds[g] : bounds[g + 1]]]

    def _strike(
        self,
        u: int,
        mask: int,
        foes: list[int],
        left: tuple[int, ...],
        n: int,
        split: str,
        ts2: np.ndarray,
        stream: int,
    ) -> None:
        """8.8.1 steps 3-4: ``n`` striking models of unit ``u`` attack ``foes`` (models ``left``) in ``ts2``."""
        if split == "even":
            m = len(foes)
            parts = [(t, n // m + (1 if i < n % m else 0)) for i, t in enumerate(foes)]
        elif split == "weakest":
            parts = [(foes[min(range(len(foes)), key=lambda i: (left[i], i))], n)]
        else:
            parts = [(foes[0], n)]
        plan = []  # declared before rolling (8.8.1)
        for i, (t, models) in enumerate(parts):
            if models <= 0:
                continue
            bkey = (u, mask, t, models, "combat", i > 0)
            batches = self._batches.get(bkey)  # type: ignore[assignment]
            if batches is None:
                batches = attack_batches(self.loadout(u, mask), self.units[t].unit, "combat", alive=models)
                if i > 0:  # the Surge Die (and HITS) went with the first part
                    batches = [
                        dataclasses.replace(b, weapon=dataclasses.replace(b.weapon, surge_tags=(), surge_dice=None))
                        for b in batches
                        if b.kind == "weapon"
                    ]
                self._batches[bkey] = batches
            plan.append((t, batches, stream if i == 0 else _stream(stream, i)))
        for t, batches, part_stream in plan:
            self.resolve(batches, t, "combat", ts2, part_stream, None, False, by=u)

    def close_ranks(self, u: int, trials: np.ndarray) -> None:
        """8.8.1 step 1 CLOSE RANKS: "An Engaged Ground Unit" presses into the fight before rolling the dice.

        Per board state and models left (the unit's, the Engaged enemy units'), the new placement is
        :meth:`World.close_ranks <mathhammer.scenario.world.World.close_ranks>` (the reading is in
        ``world.py``); the unit is moved with :meth:`set_pos` in those trials. No dice are rolled. A
        Flying unit takes no part in the Combat Phase; a unit a card keeps in place does not move (the
        ``stays_put`` trigger: SIEGE MODE, ``cards/siege_mode.py``). A BURROWED unit moves and loses the Status
        (:meth:`fight`).
        """
        if self.units[u].flying:
            return
        uid = self.uids[u]
        moves: list[tuple[np.ndarray, int]] = []
        old = self.grass.start(self.pos, u, trials)
        for ts, pairs in self.engaged_with(trials):
            foes = sorted({self.uids.index(b) for a, b in pairs if a == uid})
            if not foes:
                continue
            cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), self.row_used(u)]
            for t in foes:
                cols += [self.row_pos(t), self.row_alive(t)]
            rest = [v for v in range(self.U) if v != u and v not in foes]
            groups: list[tuple[tuple[int, ...], np.ndarray]] = []
            settings: list[tuple[int, int, tuple[tuple[int, int], ...], float]] = []
            tests: list[NearTest] = []
            for gkey, ts1 in self.groups(ts, cols):
                pu, a, mask = gkey[0], gkey[1], gkey[2]
                if a <= 0 or (mask and any(stay(u, mask) for stay in self.cards.stays_put)):  # SIEGE MODE
                    continue
                engaged = tuple((gkey[3 + 2 * i], gkey[4 + 2 * i]) for i in range(len(foes)) if gkey[4 + 2 * i] > 0)
                # the other units on the table matter only near the move (World.close_box): split by those
                lo, hi, reach = self.world.close_box(pu, a, engaged)
                box = _NO_BOX if lo is None or hi is None else (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
                groups.append((gkey, ts1))
                settings.append((pu, a, engaged, reach))
                tests.append((EVERY if box is _NO_BOX else BOX, box, -1, reach))
            # part 11 GRASS: the move and the Engagement of its spots read on the board without the removed pieces
            pids = [0, *(3 + 2 * i for i in range(len(foes)))]
            # the parts that reach the grid fallback, which looks farther: split again, all at once, by the units
            # near its box
            grids: list[tuple[tuple[int, ...], np.ndarray]] = []
            grid_settings: list[tuple[int, int, tuple[tuple[int, int], ...], float]] = []
            grid_tests: list[NearTest] = []
            for g, near_pos, ts2, world in self._near_parts_of(groups, rest, tests, pids):
                pu, a, engaged, reach = settings[g]
                new = world.close_ranks_near(pu, a, engaged, tuple(p for p in near_pos if p >= 0))
                if isinstance(new, tuple):
                    glo, ghi = new
                    grids.append((groups[g][0], ts2))
                    grid_settings.append(settings[g])
                    grid_tests.append((BOX, (float(glo[0]), float(glo[1]), float(ghi[0]), float(ghi[1])), -1, reach))
                elif new != pu:
                    moves.append((ts2, new))
            for g, gpos, ts3, world in self._near_parts_of(grids, rest, grid_tests, pids):
                pu, a, engaged, _ = grid_settings[g]
                moved = world.close_ranks_grid(pu, a, engaged, tuple(p for p in gpos if p >= 0))
                if moved != pu:
                    moves.append((ts3, moved))
        self.set_pos_many(u, moves)  # in one pass: the loops read the other units' placements only
        self.grass.end(self.pos, self.alive, u, old, None, False)


__all__ = ["Combat"]
