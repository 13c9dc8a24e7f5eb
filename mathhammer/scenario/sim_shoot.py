"""Attacks: a chain of Batches resolved from its exact distribution (8.7.4) and the Ranged Attack (8.7.3)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ..board.engagement import ENGAGEMENT_RANGE
from ..board.facts import weapon_reach
from ..starcraft.compiled import attack_key, banded_distances, compile_attack
from ..starcraft.exact import exact_states
from ..starcraft.loadout import as_target, attack_batches
from ..starcraft.model import Attack, Batch
from . import abilities
from .basics import draw_base as _draw_base
from .basics import stream as _stream
from .fastsim import DRAW_KEY, _apply_kernel
from .sim_state import SimState, _Test
from .simview import PoolCut
from .spec import Activation

#: no per-game column (the kernel reads 0), and no row of games counted as Activated
_NO_STEPS = np.zeros(0, dtype=np.int64)
_NONE_COUNTED = np.zeros(0, dtype=np.bool_)


#: what :meth:`Shooting._fire` reads of its Shoot: the guards, locks, cuts and HIDDEN tags by target, stream, side
_Kit = tuple[
    dict[int, tuple[int, np.ndarray]],
    dict[int, np.ndarray],
    list[PoolCut],
    dict[int, Callable[[int], str | None]],
    int,
    str,
]


class Draws:
    """The transitions of one chain of Batches at one unit (:meth:`Shooting.resolve`), by a game's key (the fields of
    :data:`~mathhammer.scenario.fastsim.DRAW_KEY`), as :func:`~mathhammer.scenario.fastsim._apply_kernel` reads
    them: key ``e``'s rows ``arrs[lo[e]:lo[e] + nrows[e]]`` with their cumulative probabilities ``cdfs``."""

    __slots__ = ("arrs", "cdfs", "costs", "keys", "lo", "n", "nrows")

    def __init__(self) -> None:
        self.keys = np.zeros((4, DRAW_KEY), dtype=np.int64)
        self.lo = np.zeros(4, dtype=np.int64)
        self.nrows = np.zeros(4, dtype=np.int64)
        self.costs = np.zeros(4, dtype=np.bool_)
        self.n = 0
        self.arrs = np.zeros((0, 4), dtype=np.int64)
        self.cdfs = np.zeros(0, dtype=np.float64)

    def room(self, rank: np.ndarray) -> np.ndarray:
        """Room for one more key; ``rank`` (a call's rank per key, then the next rank) grown with the keys."""
        cap = self.keys.shape[0]
        if self.n < cap:
            return rank
        self.keys = np.concatenate([self.keys, np.zeros_like(self.keys)])
        self.lo, self.nrows = np.concatenate([self.lo, self.lo]), np.concatenate([self.nrows, self.nrows])
        self.costs = np.concatenate([self.costs, self.costs])
        return np.concatenate([rank[:-1], np.full(cap, -1, dtype=np.int64), rank[-1:]])

    def apply(
        self,
        state: np.ndarray,
        rows: np.ndarray,
        cut: np.ndarray,
        better: np.ndarray,
        trials: np.ndarray,
        base: np.uint64,
        offset: int,
        k: int,
        counted: np.ndarray,
        health: np.ndarray,
        taken: np.ndarray,
        dealt: np.ndarray,
        by: bool,
        transition: Callable[[tuple[int, ...]], tuple[np.ndarray, np.ndarray, bool]],
    ) -> np.ndarray:
        """Each game of ``trials`` (``k`` models left) drawn and applied (:func:`~mathhammer.scenario.sim_state.
        _apply_kernel`, whose arguments these are), ``transition(key)`` asked for each key met the first time: its
        rows, cumulative probabilities, and whether it counts the unit as Activated. Returns the Destroyed games key
        after key (in order of their key's first game), in order within a key: as a split of ``trials`` by key gives
        them."""
        trials = np.ascontiguousarray(trials, dtype=np.int64)
        dead = np.empty((2, trials.size), dtype=np.int64)
        rank = np.full(self.keys.shape[0] + 1, -1, dtype=np.int64)
        rank[-1] = 0
        i = nd = 0
        while True:
            rank = self.room(rank)
            i, nd, self.n = _apply_kernel(
                state,
                rows,
                cut,
                better,
                trials,
                i,
                nd,
                dead,
                rank,
                self.keys,
                self.n,
                self.lo,
                self.nrows,
                self.costs,
                self.arrs,
                self.cdfs,
                base,
                offset,
                k,
                counted,
                health,
                taken,
                dealt,
                by,
            )
            if i == trials.size:
                break
            self.put(self.n - 1, *transition(tuple(self.keys[self.n - 1].tolist())))  # the key just met
        if rank[-1] <= 1:
            return dead[0, :nd]
        return dead[0, :nd][np.argsort(dead[1, :nd], kind="stable")]

    def put(self, e: int, arr: np.ndarray, cdf: np.ndarray, costly: bool) -> None:
        """Key ``e``'s transition: outcome rows ``arr`` (models lost, Damage Marker, SHIELDED, the Reaction used),
        cumulative ``cdf``; ``costly``: its use counts the unit as Activated."""
        self.lo[e], self.nrows[e], self.costs[e] = self.cdfs.size, cdf.size, costly
        self.arrs = np.concatenate([self.arrs, arr])
        self.cdfs = np.concatenate([self.cdfs, cdf])


class Shooting(SimState):
    """Attacks and the Ranged Attack (a part of :class:`~mathhammer.scenario.sim.Simulation`)."""

    # ------------------------------------------------------------ attacks
    def resolve(
        self,
        batches: Sequence[Batch],
        t: int,
        phase: str,
        trials: np.ndarray,
        stream: int,
        visible: int | None,
        evade: bool,
        by: int = -1,
    ) -> None:
        """Resolve a chain of Batches at unit ``t`` for ``trials`` (all with the same models left); ``by``: the
        attacking unit (-1: none), for the damage dealt and taken (:mod:`.tally`)."""
        if not batches or trials.size == 0:
            return
        k = int(self.alive[t, trials[0]])
        reducing = None  # a Reaction reduces the Total Damage (Life Support, Transfusion, Dae'Uhl): the first card's
        for hook in self.cards.damage_reduction:
            if (reducing := hook(t)) is not None:
                break
        # the steps its Armour is better, per game (Veteran of Tarsonis)
        steps = [b for hook in self.cards.armour if (b := hook(t, trials)) is not None]
        floor = reducing[1] if reducing is not None else 0
        # Zealous Round: its use counts the unit as Activated, so the games must say where it was used
        counted = reducing[2] if reducing is not None and reducing[2] is not None else _NONE_COUNTED
        chain = tuple(batches)
        draws = self._draws.get(ctx := (chain, t, k, phase, visible, evade, floor, counted.size > 0))
        if draws is None:
            draws = self._draws[ctx] = Draws()
        # every game's key, draw and transition in one pass (a game's draw is its own: the grouping changes nothing),
        # the damage dealt and taken (:mod:`.tally`) counted in it
        rows = np.array([self.row_alive(t), self.row_mark(t), self.row_shielded(t), self.row_used(t)], dtype=np.int64)

        def transition(key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
            mark, shielded, tmask, cut, better = key
            costly = counted.size > 0 and cut > 0
            lessened = floor if cut else 0
            asked = (chain, t, tmask, k, mark, shielded, phase, visible, evade, cut, lessened, costly, better)
            tr = self._asked.get(asked)
            if tr is None:
                tr = self._asked[asked] = self._transition(*asked)
            return tr[0], tr[1], costly

        tally = self.tally
        dead = draws.apply(
            self.state,
            rows,
            reducing[0] if reducing is not None else _NO_STEPS,
            np.sum(steps, axis=0) if steps else _NO_STEPS,
            trials,
            _draw_base(self.seed, stream),
            self.offset,
            k,
            counted,
            tally.health[t],
            tally.taken[t],
            tally.dealt[by if by >= 0 else t],
            by >= 0,
            transition,
        )
        if dead.size:
            self.set_pos(t, dead, -1)
        self.trim(t, trials)  # the models removed leave the table

    def _transition(
        self,
        chain: tuple[Batch, ...],
        t: int,
        tmask: int,
        k: int,
        mark: int,
        shielded: int,
        phase: str,
        visible: int | None,
        evade: bool,
        cut: int,
        floor: int,
        costly: bool,
        better: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The exact outcomes of ``chain`` at unit ``t`` (:func:`exact_states`): rows (models lost, Damage Marker,
        SHIELDED, the Reaction used) and their cumulative probabilities."""
        tlo = self.loadout(t, tmask)
        target = as_target(
            tlo, phase, alive=k, marker=mark, shielded=bool(shielded), visible=visible, evade_eligible=evade
        )
        if k < self.full[t]:
            target = dataclasses.replace(target, shield=0, shielded=False)  # the SHIELDED model is gone
        if cut:
            target = dataclasses.replace(target, damage_reduction=cut, reduction_floor=floor)
        if better:  # "its Armour characteristic is increased by 1": one step better, never below 2+
            target = dataclasses.replace(target, armour=max(2, target.armour - better))
        compiled, tc = compile_attack(Attack(chain, target))
        key = (*attack_key(compiled, tc), costly)
        tr = self._transitions.get(key)
        if tr is None:
            states = exact_states(compiled, tc, spent=costly)  # keys end with "used" where costly
            rows = [(st[0], st[1], int(st[2]), int(costly and st[3])) for st in states]
            arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
            cdf = np.cumsum(np.array(list(states.values())))
            cdf /= cdf[-1]
            tr = self._transitions[key] = (arr, cdf)
        return tr

    def shoot(self, u: int, act: Activation, trials: np.ndarray, stream: int) -> None:
        barred = self._barred(u, trials)
        self.skip(act, int(barred.sum()), "Disengaged without Tactical Mass (8.5.4)")
        trials = trials[~barred]
        # each Batch at the first planned target it may shoot, else the first of ``then`` (8.7.3 step 2, SIDEARM)
        primary = [self.uids.index(t) for t in act.targets]
        later = [self.uids.index(t) for t in act.then]
        targets = primary + later
        for hook in self.cards.before_attack:  # ON CREEP for the weapons and the targets (Lurking)
            hook([u, *targets], trials)
        names = list(act.weapons)
        if not names:  # every Assault Phase weapon the unit fires (8.7.3 step 2), in the card's Batch order
            fired = self._fired.get((u, tuple(targets)))
            if fired is None:  # read once per unit and targets: the loadout and the targets' cards are the Simulation's
                base, fired = self.loadout(u, 0), []
                for t in targets:
                    batches = attack_batches(base, self.units[t].unit, "assault")
                    fired += [b.name for b in batches if b.name not in fired]
                self._fired[(u, tuple(targets))] = fired
            names = list(fired)
        side = self.units[u].player
        # weapon effects at a target an ability of this side selected this Round (Target Lock), per game
        locks: dict[int, np.ndarray] = {}
        for t in targets:
            for bit, games in abilities.locked_by(self, u, t):
                locks.setdefault(t, np.zeros(self.T, dtype=np.int64))[games] |= bit
        # dice taken out of each Batch's Attack Pool at a target (Guardian Shield, Point Defense Laser), per game
        cuts = [c for hook in self.cards.attack_pool for c in hook(act, targets, trials)]
        # an attack at a Friendly Unit goes to the reacting unit (Hierarch's Stand), per game
        guards: dict[int, tuple[int, np.ndarray]] = {}
        for redirect in self.cards.redirect:
            guards.update(redirect(act, trials))
        # HIDDEN targets (part 11: not Visible beyond 4"; BURROWED has HIDDEN), per game, unless detected
        tags: dict[int, Callable[[int], str | None]] = {}
        for hiding in self.cards.hiders:
            tags.update(hiding(list(dict.fromkeys([*targets, *(g for g, _ in guards.values())]))))
        for hook in self.cards.before_targeting:  # DETECTED
            hook(list(tags), trials)
        kit = (guards, locks, cuts, tags, stream, side)
        for wi, wname in enumerate(names):
            ts_all = trials[(self.alive[u, trials] > 0) & ~self.over[trials]]
            left = self._fire(u, names, wi, ts_all, primary, kit)
            if later and left.size:  # the games where it may shoot none of ``targets``: grouped by ``then`` alone
                left = self._fire(u, names, wi, left, later, kit)
            self.skip(act, left.size, f"{wname}: no planned target it may shoot")

    def _fire(
        self,
        u: int,
        names: list[str],
        wi: int,
        trials: np.ndarray,
        targets: list[int],
        kit: _Kit,
    ) -> np.ndarray:
        """Weapon ``names[wi]``'s Batch in ``trials``, grouped by what it reads, at the first of ``targets`` it may
        shoot (:meth:`shoot`'s guards, locks, cuts, HIDDEN tags, stream and side in ``kit``); the trials where it may
        shoot none of them."""
        every_guard, every_lock, cuts, tags, stream, side = kit
        guards = {t: every_guard[t] for t in targets if t in every_guard}
        locks = {t: every_lock[t] for t in targets if t in every_lock}
        hiders = [t for t in dict.fromkeys([*targets, *(g for g, _ in guards.values())]) if t in tags]
        cols: list[np.ndarray | int] = [self.row_pos(u), self.row_alive(u), self.row_used(u)]
        for t in targets:
            cols += [self.row_pos(t), self.row_alive(t)]
        for g, _ in guards.values():
            cols += [self.row_pos(g), self.row_alive(g), self.row_used(g)]
        cols += [*locks.values(), *(c.dice for c in cuts), *(self.row_used(t) for t in hiders)]
        out = []
        for key, ts in self.groups(trials, cols):
            pu, a, mask = key[0], key[1], key[2]
            at = 3 + 2 * len(targets)
            guard_state = {t: key[at + 3 * i : at + 3 * i + 3] for i, t in enumerate(guards)}
            extra = key[at + 3 * len(guards) :]
            lock = dict(zip(locks, extra[: len(locks)], strict=True))
            cut = [(c, n) for c, n in zip(cuts, extra[len(locks) : len(locks) + len(cuts)], strict=True) if n]
            at_hide = len(locks) + len(cuts)
            hide = {t: tags[t](m) for t, m in zip(hiders, extra[at_hide : at_hide + len(hiders)], strict=True)}
            left = ts  # the trials whose Batch has no target yet (the first planned target it may shoot)
            for ti, t in enumerate(targets):
                pt, k = key[3 + 2 * ti], key[4 + 2 * ti]
                if k <= 0 or pt < 0 or left.size == 0:
                    continue
                if t in guards:  # redirected: where the guard is a valid target, the attack goes to it
                    g, games = guards[t]
                    pg, kg, _ = guard_state[t]
                    moved = left[games[left]] if pg >= 0 and kg > 0 else left[:0]
                    fewer = [(c, n) for c, n in cut if c.target == g and c.redirected]
                    hit = self._shoot_at(
                        u, g, pu, a, mask, pg, kg, names, wi, moved, stream, side, lock, fewer, hide.get(g)
                    )
                    left = left[~np.isin(left, moved[hit])]
                fewer = [(c, n) for c, n in cut if c.target == t]
                shot = self._shoot_at(u, t, pu, a, mask, pt, k, names, wi, left, stream, side, lock, fewer, hide.get(t))
                left = left[~shot]
            out.append(left)
        return np.concatenate(out) if len(out) > 1 else out[0] if out else trials[:0]

    def _shoot_at(
        self,
        u: int,
        t: int,
        pu: int,
        a: int,
        mask: int,
        pt: int,
        k: int,
        names: list[str],
        wi: int,
        left: np.ndarray,
        stream: int,
        side: str,
        lock: dict[int, int],
        cuts: list[tuple[PoolCut, int]],
        hidden: str | None = None,
    ) -> np.ndarray:
        """Weapon ``names[wi]`` of unit ``u`` (placement ``pu``, ``a`` models, abilities ``mask``) at unit ``t``
        (``pt``, ``k`` models) in the games ``left``, where the board facts let it (8.7.3); which games shot. The
        first weapon used is ``names[0]`` (the plan's Batch order: a ``first_weapon`` effect goes to it). ``cuts``: the
        cards' dice out of the Attack Pool at ``t`` in these games, each with its count (spent where a Batch it
        applies to resolves)."""
        shot = np.zeros(left.size, dtype=bool)
        if left.size == 0:
            return shot
        wname = names[wi]
        tmask = mask | lock.get(t, 0)
        bkey = (u, tmask, t, a, wname, names[0])
        batches = self._batches.get(bkey)  # type: ignore[assignment]
        if batches is None:
            lo = self.loadout(u, tmask)
            batches = self._batches[bkey] = [
                b for b in attack_batches(lo, self.units[t].unit, "assault", alive=a, first=names[0]) if b.name == wname
            ]
        if not batches:
            return shot
        w = batches[0].weapon
        reach = weapon_reach(w)
        if reach is not None and not self.world.near(pu, pt, reach):  # no base of ``t`` Within its Range (8.7.3)
            return shot
        tags = tuple(self.units[t].unit.card.combat_tags) + ((hidden,) if hidden else ())  # not Visible beyond 4"
        # the facts are read with the enemies near either unit (World.facts): split by those
        rest = [v for v in range(self.U) if v not in (u, t)]
        for near_pos, idx, world in self.grass.split(
            left, self._near_cols_by(left, rest, self._facts_test(pu, side, pt, t))
        ):
            pos, alive = self._local_state({u: (pu, a), t: (pt, k)}, rest, near_pos, {})
            f = world.facts(pos, alive, self.uids[u], self.uids[t], w, tags)
            if not f.eligible:
                continue
            distances = f.distances[: batches[0].models]
            if not distances:
                continue
            distances = banded_distances(w, distances)  # the same Batch compiled: one chain for many boards
            applied = [(c, n) for c, n in cuts if c.instant or not abilities.instant(w)]
            fewer = sum(n for _, n in applied)
            batch = Batch(w, models=len(distances), distances=distances, name=wname, fewer=fewer)
            self.resolve([batch], t, "assault", left[idx], _stream(stream, wi), f.removable, f.evade_eligible, by=u)
            for c, _ in applied:
                if c.spent is not None:
                    c.spent(left[idx])
            shot[idx] = True
        return shot

    def _facts_test(self, pu: int, side: str, pt: int, t: int) -> _Test:
        """Does a unit's placement count for :meth:`World.facts` of a Ranged Attack from ``pu`` (player
        ``side``) at unit ``t`` at ``pt``: an enemy of either unit near it (``World._foes_near``: :meth:`World.near`
        at Engagement Range, read for every placement at once by :meth:`World.near_many`, the same answers)?"""
        tside = self.units[t].player
        foe_u = np.array([su.player != side for su in self.units], dtype=bool)
        foe_t = np.array([su.player != tside for su in self.units], dtype=bool)
        world = self.world

        def many(ps: np.ndarray) -> np.ndarray:
            own = self.owners()[ps]
            near_u = world.near_many(pu, ps, ENGAGEMENT_RANGE)
            return (foe_u[own] & near_u) | (foe_t[own] & world.near_many(pt, ps, ENGAGEMENT_RANGE))

        return _Test(many)


__all__ = ["Shooting"]
