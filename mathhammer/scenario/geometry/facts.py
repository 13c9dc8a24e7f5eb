"""Board facts read off a board state: Engagement (7.2.1), Line of Sight, distances, Fighting Ranks."""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ...board.engagement import ENGAGEMENT_RANGE, EngagedPairs
from ...board.facts import AttackFacts, weapon_eligible, weapon_facts
from ...board.fastsight import sees, sees_many
from ...board.model import EPS
from ...board.ranks import Ranks, fighting_ranks, ranks_of, striker_count
from ...starcraft.loadout import indomitable
from ...starcraft.model import Weapon
from .core import (
    GAP,
    Coord,
)
from .routes import Routes


def pair_key(pa: int, pb: int) -> int:
    """The key of a pair of placements in :meth:`Facts.near`'s tables: the smaller id in the high bits."""
    return pa << 32 | pb if pa <= pb else pb << 32 | pa


class Facts(Routes):
    """Board facts read off a board state: Engagement (7.2.1), Line of Sight, distances, Fighting Ranks."""

    def near(self, pa: int, pb: int, gap: float = ENGAGEMENT_RANGE) -> bool:
        """Could a model of placement ``pa`` be within ``gap`` of one of ``pb`` (bases edge to edge)?

        A cheap superset test on the whole placements: units that fail it cannot be Engaged with
        each other (7.2.1 needs Within 1"), so the geometry below never looks at them.
        """
        table = self._near_table(gap)
        key = pair_key(pa, pb)
        hit = table.get(key)
        if hit is None:  # compiled (:meth:`near_many`: numpy's nearest centres to the last bit)
            hit = table[key] = bool(self.near_many(pa, np.array([pb], dtype=np.int64), gap)[0])
        return hit

    def _near_table(self, gap: float) -> dict[int, bool]:
        """:meth:`near`'s answers at ``gap`` (one table per gap; gaps equal to 6 places share one), keyed by the pair of
        placements (the smaller id in the high bits)."""
        table = self._near.get(gap)
        if table is None:
            table = self._near[gap] = self._near.setdefault(("rounded", round(gap, 6)), {})
        return table

    def within(self, pa: int, ka: int, pb: int, kb: int, inches: float) -> bool:
        """Is a live model of placement ``pa`` (its first ``ka`` centres) Within ``inches`` of a live model of
        ``pb`` (its first ``kb``): the closest points of the two bases, measured horizontally (as the
        Engagement Range, 7.2.1)?

        >>> from mathhammer.scenario import builtin_scenarios, load_scenario
        >>> from mathhammer.scenario.world import World
        >>> w = World(load_scenario(next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")))
        >>> su = w.scn.units[w.uids[0]]
        >>> a = w.place(su, (10.0, 10.0), (0.0, -1.0), ())
        >>> b = w.place(su, (10.0, 20.0), (0.0, -1.0), ())
        >>> gap = float(np.hypot(*np.subtract(w.placements[b].centres[0], w.placements[a].centres[0])))
        >>> gap -= 2 * w._radius(a)  # the two Leading Models' bases, edge to edge
        >>> w.within(a, 1, b, 1, gap + 0.01), w.within(a, 1, b, 1, gap - 0.01)
        (True, False)
        """
        return self.models_within(pa, ka, pb, kb, inches) > 0

    def toward(self, pid: int, alive: int, qid: int, kq: int, inches: float) -> Coord | None:
        """Where the Leading Model of placement ``pid`` ends moving Directly Towards the nearest live model of
        placement ``qid`` (its first ``kq``): at most ``inches``, and short of Within 1" of it (8.5.3: a Move
        "cannot end Within 1\" (Engagement Range) of an Enemy Ground Unit"); None where it cannot move closer."""
        lead = self.placements[pid].centres[0]
        targets = self.placements[qid].centres[:kq]
        if alive <= 0 or not targets:
            return None
        aim = min(targets, key=lambda c: math.dist(lead, c))
        d = math.dist(lead, aim)
        gap = d - self._radius(pid) - self._radius(qid)
        step = min(float(inches), gap - ENGAGEMENT_RANGE - GAP)
        if step <= EPS or d <= 0:
            return None
        return (lead[0] + (aim[0] - lead[0]) * step / d, lead[1] + (aim[1] - lead[1]) * step / d)

    def point_gap(self, pid: int, alive: int, point: Coord, radius: float) -> float:
        """The least gap, edge to edge, between a live model of placement ``pid`` (its first ``alive`` centres) and
        a base of ``radius`` centred at ``point`` (a token: "Always measure to the closest base edge of a Token",
        7.3); inf where none is left."""
        centres = self.placements[pid].centres[:alive]
        if not centres:
            return math.inf
        r = self._radius(pid)
        return min(math.dist(c, point) for c in centres) - r - radius

    def in_sight(self, pa: int, ka: int, pb: int, kb: int) -> bool:
        """Does a live model of placement ``pa`` (its first ``ka``) have Line of Sight (7.1) to a live model of
        ``pb`` (its first ``kb``)? Terrain blocks it, models never do: the two units alone on the table."""
        key = (pa, ka, pb, kb)
        hit = self._sight.get(key)
        if hit is None:
            a, b = self.placements[pa].unit, self.placements[pb].unit
            pos = tuple(pa if u == a else pb if u == b else -1 for u in self.uids)
            alive = tuple(ka if u == a else kb if u == b else 0 for u in self.uids)
            board = self.board_for(pos, alive)
            hit = any(sees(board, x, y) for x in self._models_of(pa)[:ka] for y in self._models_of(pb)[:kb])
            self._sight[key] = hit
        return hit

    def models_within(self, pa: int, ka: int, pb: int, kb: int, inches: float) -> int:
        """How many live models of placement ``pa`` (its first ``ka``) are Within ``inches`` of a live model of
        ``pb`` (its first ``kb``), bases edge to edge (Life Support: "each model in this Unit that is Within 4\"
        of the damaged Unit")."""
        key = (pa, ka, pb, kb, inches)
        hit = self._within.get(key)
        if hit is None:
            a, b = self._centres(pa)[:ka], self._centres(pb)[:kb]
            if a.size == 0 or b.size == 0:
                hit = 0
            else:
                d = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)).min(axis=1)
                hit = int((d - self._radius(pa) - self._radius(pb) <= inches + EPS).sum())
            self._within[key] = hit
        return hit

    def _sub(
        self, pos: tuple[int, ...], alive: tuple[int, ...], keep: set[int]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The board state with only the units ``keep`` on the table."""
        return (
            tuple(p if u in keep else -1 for u, p in enumerate(pos)),
            tuple(k if u in keep else 0 for u, k in enumerate(alive)),
        )

    def _foes_near(
        self, pos: tuple[int, ...], alive: tuple[int, ...], u: int, gap: float = ENGAGEMENT_RANGE
    ) -> set[int]:
        pu = pos[u]
        table = self._near_table(gap)  # :meth:`near`'s own answers, read here without a call per unit
        out = set()
        missed: list[int] = []
        for v in self._enemy_units[u]:
            p = pos[v]
            if p >= 0 and alive[v] > 0:
                hit = table.get(pair_key(pu, p))
                if hit is None:
                    missed.append(v)
                elif hit:
                    out.add(v)
        if missed:  # :meth:`near` of the pairs not read yet, in one compiled pass (the same answers), kept as it keeps
            ps = [pos[v] for v in missed]
            near = self.near_many(pu, np.array(ps, dtype=np.int64), gap).tolist()
            for v, p, yes in zip(missed, ps, near, strict=True):
                table[pair_key(pu, p)] = bool(yes)
                if yes:
                    out.add(v)
        return out

    @cached_property
    def _enemy_units(self) -> list[tuple[int, ...]]:
        """Per unit (World order): the units of the other players, in order (:meth:`_foes_near` reads them)."""
        sides = [self.scn.units[uid].player for uid in self.uids]
        return [tuple(v for v, s in enumerate(sides) if s != side) for side in sides]

    def engaged_pairs(self, pos: tuple[int, ...], alive: tuple[int, ...]) -> frozenset[tuple[str, str]]:
        """Unit pairs (a, b) Engaged with each other (7.2.1), both orders.

        Engagement of two units depends on their models and the terrain only, so each pair is read
        once, on a board holding the two of them.
        """
        state = (pos, alive)
        known = self._pair_sets.get(state)
        if known is not None:
            return known
        out: set[tuple[str, str]] = set()
        on = [u for u, p in enumerate(pos) if p >= 0 and alive[u] > 0]
        for i, u in enumerate(on):
            for v in on[i + 1 :]:
                if self.scn.units[self.uids[u]].player == self.scn.units[self.uids[v]].player:
                    continue
                if self.pair_engaged(pos[u], alive[u], pos[v], alive[v]):
                    out.add((self.uids[u], self.uids[v]))
                    out.add((self.uids[v], self.uids[u]))
        if len(self._pair_sets) > 65536:
            self._pair_sets.clear()
        known = self._pair_sets[state] = frozenset(out)
        return known

    def unit_engaged(self, pos: tuple[int, ...], alive: tuple[int, ...], u: int) -> bool:
        """Is unit ``u`` (World order) in a pair of :meth:`engaged_pairs` of ``pos``, ``alive`` (7.2.1)? Its own pairs
        only, each read as that method reads it (:meth:`pair_engaged`, the unit first of the two in World order)."""
        known = self._pair_sets.get((pos, alive))
        if known is not None:
            return any(a == self.uids[u] for a, _ in known)
        pu, ku = pos[u], alive[u]
        if pu < 0 or ku <= 0:
            return False
        table = self._near_table(ENGAGEMENT_RANGE)  # :meth:`near`'s answers, read here first
        foes: list[int] = []  # the enemy units on the table not known to be far, in World order
        ask: list[int] = []  # their placements :meth:`near` has not read
        for v in self._enemies[u]:
            pv = pos[v]
            if pv < 0 or alive[v] <= 0:
                continue
            hit = table.get(pair_key(pu, pv))
            if hit is False:
                continue  # not near: pair_engaged's first test
            if hit is None:
                ask.append(pv)
            foes.append(v)
        if ask:  # :meth:`near` of each in one compiled call (the same answers: the test reads the pair either way)
            got = self.near_many(pu, np.array(ask, dtype=np.int64), ENGAGEMENT_RANGE).tolist()
            for pv, g in zip(ask, got, strict=True):
                table[pair_key(pu, pv)] = bool(g)
        for v in foes:
            pv, kv = pos[v], alive[v]
            if self.pair_engaged(pu, ku, pv, kv) if u < v else self.pair_engaged(pv, kv, pu, ku):
                return True
        return False

    @cached_property
    def _enemies(self) -> tuple[tuple[int, ...], ...]:
        """Per unit (World order): the units of the other side, in World order."""
        units, uids = self.scn.units, self.uids
        side = [units[uid].player for uid in uids]
        return tuple(tuple(v for v in range(len(uids)) if side[v] != side[u]) for u in range(len(uids)))

    def pair_engaged(self, pa: int, ka: int, pb: int, kb: int) -> bool:
        """Are the first ``ka`` models of placement ``pa`` and the first ``kb`` of ``pb`` (enemy units)
        Engaged with each other (7.2.1)? Read on a board holding the two of them."""
        if not self.near(pa, pb):
            return False
        key = (pa, ka, pb, kb)
        hit = self._pairs.get(key)
        if hit is None:

            def read() -> bool:  # as engaged() on the board of the two units (EngagedPairs: the same answers)
                ua = self.scn.units[self.placements[pa].unit]
                ub = self.scn.units[self.placements[pb].unit]
                if ua.player == ub.player:
                    return False
                pairs = self._engaged_memo
                return any(pairs.models(ma, mb) for ma in self._models_of(pa)[:ka] for mb in self._models_of(pb)[:kb])

            hit = self._pairs[key] = self.memo.ask(lambda: ("pair", self.content(pa), ka, self.content(pb), kb), read)
        return hit

    def strikers(self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> int:
        """Models in the Fighting or Supporting Rank (8.8.1 step 2), read with the enemies near the unit."""
        seen = self._strikers_seen.get((pos, alive, uid))  # the same board state again: no enemies to re-test
        if seen is not None:
            return seen
        u = self.index[uid]
        sub = self._sub(pos, alive, {u} | self._foes_near(pos, alive, u, ENGAGEMENT_RANGE + 2.0))
        key = (sub, uid)
        hit = self._strikers.get(key)
        if hit is None:
            hit = self._strikers[key] = self.memo.ask(
                lambda: ("strikers", tuple(self.content(p) for p in sub[0]), sub[1], uid),
                lambda: self._striker_count(*sub, uid),
            )
        if len(self._strikers_seen) > 1 << 20:
            self._strikers_seen.clear()
        self._strikers_seen[(pos, alive, uid)] = hit
        return hit

    @cached_property
    def _strikers_seen(self) -> dict[tuple[tuple[int, ...], tuple[int, ...], str], int]:
        """:meth:`strikers` by the board state asked (placement ids are this process's own: never shared)."""
        return {}

    def _striker_count(self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> int:
        """``len(self._ranks(pos, alive, uid).attackers)``, counted by :func:`~mathhammer.board.ranks.striker_count`."""
        u = self.index[uid]
        if pos[u] < 0 or alive[u] <= 0:
            return len(self._ranks(pos, alive, uid).attackers)
        side = self.scn.units[uid].player
        enemies = [
            m
            for v, (p, k) in enumerate(zip(pos, alive, strict=True))
            if p >= 0 and k > 0 and self.scn.units[self.uids[v]].player != side
            for m in self._models_of(p)[:k]
        ]
        return striker_count(self._models_of(pos[u])[: alive[u]], enemies, self._engaged_memo.models)

    def _ranks(self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str) -> Ranks:
        """:func:`~mathhammer.board.ranks.fighting_ranks` of ``uid`` on :meth:`board_for` ``(pos, alive)``, read off
        the placements' models (:func:`~mathhammer.board.ranks.ranks_of`: the same answers, no board built)."""
        u = self.index[uid]
        if pos[u] < 0 or alive[u] <= 0:  # not on that board: fighting_ranks names the unit missing
            return fighting_ranks(self.board_for(pos, alive), uid)
        side = self.scn.units[uid].player
        enemies = [
            m
            for v, (p, k) in enumerate(zip(pos, alive, strict=True))
            if p >= 0 and k > 0 and self.scn.units[self.uids[v]].player != side
            for m in self._models_of(p)[:k]
        ]
        return ranks_of(uid, self._models_of(pos[u])[: alive[u]], enemies, self._engaged_memo.models)

    def facts(
        self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str, tid: str, weapon: Weapon, tags: tuple[str, ...]
    ) -> AttackFacts:
        """:func:`~mathhammer.board.facts.attack_facts` for one weapon, cached by board state."""
        key = self._facts_key(pos, alive, uid, tid, weapon, tags)
        hit = self._facts.get(key)
        if hit is None:
            both = (uid in self._indomitable, tid in self._indomitable)
            hit = weapon_facts(self.board_for(key[0], key[1]), uid, tid, weapon, tags, both, sees, sees_many)
            if len(self._facts) > 65536:
                self._facts.clear()
            self._facts[key] = hit
        return hit  # type: ignore[return-value]

    def eligible(
        self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str, tid: str, weapon: Weapon, tags: tuple[str, ...]
    ) -> bool:
        """:meth:`facts` ``(...).eligible`` (8.7.3 step 1) by :func:`~mathhammer.board.facts.weapon_eligible`: Line of
        Sight traced only until one attacking model has a Visible target model Within Range; cached by board state
        (the facts themselves where they are known)."""
        key = self._facts_key(pos, alive, uid, tid, weapon, tags)
        hit = self._facts.get(key)
        if hit is not None:
            return hit.eligible  # type: ignore[attr-defined, no-any-return]
        ok = self._eligible.get(key)
        if ok is None:
            both = (uid in self._indomitable, tid in self._indomitable)
            ok = weapon_eligible(self.board_for(key[0], key[1]), uid, tid, weapon, tags, both, sees)
            if len(self._eligible) > 65536:
                self._eligible.clear()
            self._eligible[key] = ok
        return ok

    def _facts_key(
        self, pos: tuple[int, ...], alive: tuple[int, ...], uid: str, tid: str, weapon: Weapon, tags: tuple[str, ...]
    ) -> tuple[tuple[int, ...], tuple[int, ...], str, str, Weapon, tuple[str, ...]]:
        """The board state an attack's facts read (the two units and the enemies near either: the Engaged restrictions
        and casualty tiers of 8.7.3, 8.7.5; models never block Line of Sight), with the attack."""
        u, t = self.index[uid], self.index[tid]
        keep = {u, t} | self._foes_near(pos, alive, u) | self._foes_near(pos, alive, t)
        pos, alive = self._sub(pos, alive, keep)
        return pos, alive, uid, tid, weapon, tags

    @cached_property
    def _eligible(self) -> dict[tuple[object, ...], bool]:
        """:meth:`eligible` answers by :meth:`_facts_key` (placement ids are this process's own: never shared)."""
        return {}

    @cached_property
    def _engaged_memo(self) -> EngagedPairs:
        """:func:`~mathhammer.board.engagement.engaged` answers on this battlefield's terrain, by the two bases: shared
        by the boards of every state read without Force Field tokens (:meth:`board_for` without ``fields``)."""
        return EngagedPairs(self.board)

    @cached_property
    def _indomitable(self) -> frozenset[str]:
        """The units with Indomitable, a passive of the card or upgrades
        (:func:`~mathhammer.starcraft.loadout.indomitable`)."""
        return frozenset(uid for uid, su in self.scn.units.items() if indomitable(su.loadout))
