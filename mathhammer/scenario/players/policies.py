"""The automatic players' policies, registered by name: how a player picks one activation per game among the legal
entries of its units' menus (:mod:`.menu`, :mod:`.legal`; the player that asks is :class:`~.auto.Auto`).

A policy is a class with a ``choose(decision)`` method (:class:`Decision`: the games deciding, the units that may
still activate, their legal entries, the game's own uniforms), registered under a name with :func:`policy`::

    @policy("mine")
    class Mine:
        def choose(self, d: Decision) -> tuple[np.ndarray, np.ndarray]:
            ...  # per game: the unit's index in d.units (-1: Pass) and the entry's index in its menu

A policy may also declare Reactions (10.4) to the opponent's activations with a ``react(rows, legal, u)`` method
(:mod:`.reactions`; ``Weighted.react``, ``Random.react``); a policy without one declares none.

A choice must depend on each game alone (its state and its draws ``d.draw``), never on which other games are
deciding with it: then a game plays the same whatever the grouping or the number of workers.

Built in (step 4 of ``docs/dev/automatic-players.md``): ``random``, the floor any policy must beat.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from ...errors import InputError, MathhammerError
from .menu import Entry


@dataclass(frozen=True)
class Decision:
    """One decision of a player in the games ``games`` (the same Round, Phase and slot in each).

    ``units``: the player's unit indices (World order); ``free``: games x units, the unit may still activate in this
    Phase (alive, not activated, on the table in the Assault Phase; a pre-filter: ``legal`` is the rule);
    ``legal(j, rows)``: games ``games[rows]`` x entries of unit ``units[j]``'s menu, the entries :mod:`.legal` admits
    (Pass left out); ``admits(j, e, rows)``: the same for entry ``e`` alone (judging one entry, not the menu);
    ``entries(j)``: that menu; ``draw(i, rows)``: the ``i``-th uniform of this decision in games ``games[rows]``, a
    function of (seed, game number, Round, Phase, slot, i) only; ``features(j, rows)``: games ``games[rows]`` x
    entries x :data:`~.features.COLUMNS`, the numbers :mod:`.features` gives (read only when asked);
    ``draws(i, size, rows)``: size x rows, draws ``i`` to ``i + size - 1`` at once (:meth:`uniforms`);
    ``open(j, rows)``: games ``games[rows]`` x entries of unit ``units[j]``'s menu, False where the entry is already
    known to be refused (``admits`` would refuse it: :meth:`~.legal.Legality.open`; Pass False), so a policy seeking
    the first legal entry in some order skips those without asking; ``spare(rows)``: per game of ``games[rows]``,
    the resources the player's Ready cards still give this Round (:meth:`~.spending.Spending.spare`);
    ``first(j, rows, keys)``: per game of ``games[rows]``, the first entry of unit ``units[j]``'s menu in the order of
    its row of ``keys`` (a stable sort) that ``admits`` admits (-1: none), in one pass (the same answers as ``open``,
    then ``admits`` asked column by column: :meth:`~.legal.Legality.first_drawn`).
    """

    games: np.ndarray
    units: list[int]
    free: np.ndarray
    legal: Callable[[int, np.ndarray], np.ndarray]
    admits: Callable[[int, int, np.ndarray], np.ndarray]
    entries: Callable[[int], tuple[Entry, ...]]
    draw: Callable[[int, np.ndarray], np.ndarray]
    features: Callable[[int, np.ndarray], np.ndarray] | None = None
    draws: Callable[[int, int, np.ndarray], np.ndarray] | None = None
    open: Callable[[int, np.ndarray], np.ndarray] | None = None
    spare: Callable[[np.ndarray], np.ndarray] | None = None
    first: Callable[[int, np.ndarray, np.ndarray], np.ndarray] | None = None

    def uniforms(self, i: int, size: int, rows: np.ndarray) -> np.ndarray:
        """``size`` x ``rows``: draws ``i`` to ``i + size - 1`` (``draw``'s numbers; ``draws`` where given: a run at
        once)."""
        if self.draws is not None:
            return self.draws(i, size, rows)
        return np.stack([self.draw(i + k, rows) for k in range(size)]) if size else np.zeros((0, rows.size))


class Policy(Protocol):
    def choose(self, d: Decision) -> tuple[np.ndarray, np.ndarray]:
        """Per game of ``d.games``: the index in ``d.units`` of the unit to activate (-1: Pass) and its entry."""
        ...


#: name -> policy class (:func:`policy`)
POLICIES: dict[str, type] = {}
#: ``policy = "auto"`` in a scenario file, ``--red-policy auto``: an automatic player with the policy that ``mathhammer
#: game`` takes when none is named, :data:`DEFAULT_POLICY` (issue 29 point 1); no policy may be registered under it
AUTO = "auto"
DEFAULT_POLICY = "random"


def policy(name: str) -> Callable[[type], type]:
    """Register a policy class under ``name`` (a second class under the same name is refused, and :data:`AUTO`)."""

    def register(cls: type) -> type:
        if name == AUTO:
            raise InputError("policy", name, f"a name other than {AUTO!r} (it names the default policy)")
        if name in POLICIES and POLICIES[name] is not cls:
            raise InputError("policy", name, f"a name not yet registered (taken: {', '.join(sorted(POLICIES))})")
        POLICIES[name] = cls
        return cls

    return register


def block_games(name: str, default: int) -> int:
    """The most games of one block where policy ``name`` plays (:func:`~mathhammer.scenario.parallel.auto_block`): its
    class's ``block_games``, ``default`` where it sets none; a value that is not a whole number of at least 1 is
    refused, naming the class."""
    cls = POLICIES.get(name)
    value = getattr(cls, "block_games", default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        where = f"{getattr(cls, '__name__', name)}.block_games"
        raise InputError(where, value, "a whole number of games, at least 1")
    return value


def allowed() -> str:
    """What a policy name may be, for messages."""
    return f"a policy: {', '.join(sorted(POLICIES))}, or {AUTO} ({DEFAULT_POLICY})"


def resolve(name: str) -> str | None:
    """The registered policy ``name`` names (:data:`AUTO`: :data:`DEFAULT_POLICY`), None for an unknown name."""
    chosen = DEFAULT_POLICY if name == AUTO else name
    return chosen if chosen in POLICIES else None


def make_policy(name: str, field: str = "policy") -> Policy:
    """The policy registered under ``name`` (:func:`resolve`); an unknown name is refused naming ``field``."""
    chosen = resolve(name)
    if chosen is None:
        raise InputError(field, name, allowed())
    made: Policy = POLICIES[chosen]()
    return made


#: the draws of a decision that shuffle unit ``j``'s entries start at ``SHUFFLE * (j + 1)`` (one per entry; the units'
#: order takes draws 1 to the number of units)
SHUFFLE = 1000


@policy("random")
class Random:
    """A uniformly random legal action: the unit uniformly among the units with a legal entry (per game, a random order
    of the free units, the first with one), then its entry uniformly among its legal ones (per game, a random order of
    its menu, the first legal entry: Hold included, Pass only where no unit has any, 8.2.1). Only the entries reached
    in a game's orders are judged (``Decision.admits``), not whole menus.

    Its games are played in blocks of up to ``block_games`` (:func:`~mathhammer.scenario.parallel.auto_block`): a
    random game adds about a quarter of the board answers a weighted one does, and a longer block takes each
    activation for more games at once (benchmarks/RESULTS.md, issue 29 point 6, sessions 24, 29 and 31: 10,000 games in
    blocks of 5,000 took 13% less CPU than in blocks of 2,000, for 692 MB of peak memory instead of 489; in one block of
    10,000, 10% less than in blocks of 5,000, for about 1.2 GB a process)."""

    block_games = 10000

    def choose(self, d: Decision) -> tuple[np.ndarray, np.ndarray]:
        n, width = d.games.size, len(d.units)
        unit = np.full(n, -1, dtype=np.int64)
        entry = np.full(n, -1, dtype=np.int64)
        if n == 0 or width == 0:
            return unit, entry
        every = np.arange(n)
        keys = d.uniforms(1, width, every).T
        keys[~d.free] = np.inf
        order = np.argsort(keys, axis=1, kind="stable")
        for col in range(width):
            cand = order[:, col]
            todo = (unit < 0) & d.free[every, cand]
            if not todo.any():  # the free units come first in every order: none is left to try
                break
            for j in np.unique(cand[todo]).tolist():
                rows = np.flatnonzero(todo & (cand == j))
                got = self.first_legal(d, j, rows)
                ok = got >= 0
                unit[rows[ok]] = j
                entry[rows[ok]] = got[ok]
        return unit, entry

    @staticmethod
    def react(rows: Callable[[], np.ndarray], legal: np.ndarray, u: np.ndarray) -> np.ndarray:
        """A Reaction (10.4; :mod:`.reactions`) per game, uniformly among none and the legal ones (``legal``: games x
        Reactions; ``u``: the game's uniform): the index of the Reaction declared, -1 for none."""
        k = legal.sum(axis=1)
        pick = np.minimum((u * (k + 1)).astype(np.int64), k)  # 0: none, else the pick-th legal Reaction
        hit = (np.cumsum(legal, axis=1) == pick[:, None]) & legal
        return np.where(pick > 0, hit.argmax(axis=1), -1)

    @staticmethod
    def first_legal(d: Decision, j: int, rows: np.ndarray) -> np.ndarray:
        """Per game of ``d.games[rows]``: the first legal entry of unit ``d.units[j]`` in a random order of its menu
        (-1: none), a uniform draw among its legal entries."""
        size = len(d.entries(j))
        keys = d.uniforms(SHUFFLE * (j + 1), size, rows).T
        if d.first is not None:  # the reading below in one pass
            return d.first(j, rows, keys)
        maybe = d.open(j, rows) if d.open is not None else np.ones(keys.shape, dtype=bool)
        keys = np.where(maybe, keys, np.inf)  # entries known refused go last: the first legal entry is the same
        order = np.argsort(keys, axis=1, kind="stable")
        got = np.full(rows.size, -1, dtype=np.int64)
        for col in range(int(maybe.sum(axis=1).max()) if rows.size else 0):
            todo = np.flatnonzero(got < 0)
            cand = order[todo, col]
            keep = maybe[todo, cand]
            todo, cand = todo[keep], cand[keep]
            if todo.size == 0:
                break
            for e in np.unique(cand).tolist():
                r = todo[cand == e]
                got[r[d.admits(j, e, rows[r])]] = e
        return got


#: a score this close to the best is a tie (broken by the game's own draw)
TIE = 1e-9


class Weighted:
    """A policy scoring each legal entry of each free unit by ``features @ weights`` and taking the best (the unit to
    activate is the one whose best entry scores highest); ties broken by the game's own uniform (draw 0: the
    ``floor(u * k)``-th of the ``k`` tied legal entries, in units' then menu order). ``weights``: column name ->
    weight (:data:`~.features.COLUMNS`; a column left out weighs 0), or ``profile``: the name of a table of
    ``profiles/policies.toml``.

    An entry using an ability (``use``) also pays what its resources could buy elsewhere this Phase (10.5: a Ready
    card's resources are spent once a Round): :meth:`forgone`, from the other free units' scores, where the
    Decision gives ``spare``."""

    weights: dict[str, float] | None = None
    profile: str = ""

    def __init__(self) -> None:
        from .features import COLUMNS

        if self.weights is not None:
            given = self.weights
            where = f"{type(self).__name__}.weights"
        else:
            tables = load_weights()
            where = f"{WEIGHTS_FILE}: {self.profile}"
            if self.profile not in tables:
                raise InputError(WEIGHTS_FILE, self.profile, f"a table [{self.profile}] of weights (docs/scenario.md)")
            given = tables[self.profile]
        for col, w in given.items():
            if col not in COLUMNS:
                raise InputError(f"{where}.{col}", col, f"a column: {', '.join(COLUMNS)}")
            if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w):
                raise InputError(f"{where}.{col}", w, "a finite number")
        self.w = np.asarray([float(given.get(c, 0.0)) for c in COLUMNS], dtype=float)

    def scores(self, d: Decision) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Games x (every unit's entries, units' then menu order): ``features @ weights`` (-inf for a unit that may not
        activate and for Pass); and per column its unit's index in ``d.units`` and its entry's index in the menu."""
        from .features import COLUMNS

        n = d.games.size
        assert d.features is not None, "a weighted policy needs the Decision's features"
        parts, owner, index = [], [], []
        gain, cost = np.zeros((n, len(d.units))), np.zeros((n, len(d.units)))
        costs: list[np.ndarray] = []
        for j in range(len(d.units)):
            menu = d.entries(j)
            s = np.full((n, len(menu)), -np.inf)
            rows = np.flatnonzero(d.free[:, j])
            costs.append(np.zeros(len(menu)))
            if rows.size:
                f = d.features(j, rows)
                assert f.shape == (rows.size, len(menu), len(COLUMNS))
                s[rows] = f @ self.w
                s[:, [e.action == "pass" for e in menu]] = -np.inf
                costs[j] = f[0, :, COLUMNS.index("spend")]  # the same in every state
                gain[rows, j], cost[rows, j] = ability_gain(menu, s[rows], costs[j])
            parts.append(s)
            owner += [j] * len(menu)
            index += list(range(len(menu)))
        if d.spare is not None and gain.any():
            spare = d.spare(np.arange(n))
            for j, s in enumerate(parts):
                for c in np.unique(costs[j][costs[j] > 0]).tolist():
                    s[:, costs[j] == c] -= forgone(np.delete(gain, j, axis=1), np.delete(cost, j, axis=1), spare, c)[
                        :, None
                    ]
        return np.concatenate(parts, axis=1), np.asarray(owner, dtype=np.int64), np.asarray(index, dtype=np.int64)

    def react(self, rows: Callable[[], np.ndarray], legal: np.ndarray, u: np.ndarray) -> np.ndarray:
        """A Reaction (10.4; :mod:`.reactions`) per game: the legal one of the best score ``rows() @ weights`` (games x
        Reactions x columns: what it changes against not reacting), where that score is above 0 (not reacting); the
        first of tied ones. -1: none."""
        score = np.where(legal, rows() @ self.w, -np.inf)
        best = score.argmax(axis=1)
        return np.where(score[np.arange(score.shape[0]), best] > TIE, best, -1)

    def choose(self, d: Decision) -> tuple[np.ndarray, np.ndarray]:
        """The best legal entry per game (the class text), judging legality level by level: the entries of the best
        score first (``Decision.admits``), the next score only in the games where none of those is legal. The same
        choice as masking every entry first (a test holds the two to each other), judging far fewer entries."""
        n = d.games.size
        unit = np.full(n, -1, dtype=np.int64)
        entry = np.full(n, -1, dtype=np.int64)
        if n == 0 or not d.units:
            return unit, entry
        score, owner, index = self.scores(d)
        order = np.argsort(-score, axis=1, kind="stable")
        ranked = np.take_along_axis(score, order, axis=1)
        width = score.shape[1]
        ptr = np.zeros(n, dtype=np.int64)
        every = np.arange(n)
        # the entries not known refused (Decision.open): the others are refused without asking (the same choice)
        maybe = (
            np.concatenate([d.open(j, every) for j in range(len(d.units))], axis=1)
            if d.open is not None
            else np.ones(score.shape, dtype=bool)
        )
        todo = np.isfinite(ranked[:, 0])
        u = d.draw(0, every)
        wid = _windows(ranked)
        if wid is not None:
            return self._by_windows(d, ranked, order, owner, index, maybe, wid, u)
        cols = np.arange(width)
        while todo.any():
            rows = np.flatnonzero(todo)
            at = ptr[rows]
            level = ranked[rows, at]
            # each row's entries of its current score: from its pointer, those within TIE of it (ranked descends)
            run = (cols[None, :] >= at[:, None]) & (ranked[rows] >= (level - TIE)[:, None]) & np.isfinite(ranked[rows])
            ends = at + run.sum(axis=1)
            i, k = np.nonzero(run)  # (row, column) pairs, row by row, each row's in ranked order
            pairs = np.stack([rows[i], order[rows[i], k]], axis=1)
            found = _pick(d, pairs[maybe[pairs[:, 0], pairs[:, 1]]], owner, index, u, unit, entry)
            todo[found] = False
            none = rows[~np.isin(rows, found)]
            if none.size:
                nxt = ends[~np.isin(rows, found)]
                ptr[none] = nxt
                more = nxt < width
                todo[none] = more
                todo[none[more]] = np.isfinite(ranked[none[more], nxt[more]])
        return unit, entry

    @staticmethod
    def _by_windows(
        d: Decision,
        ranked: np.ndarray,
        order: np.ndarray,
        owner: np.ndarray,
        index: np.ndarray,
        maybe: np.ndarray,
        wid: np.ndarray,
        u: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`choose` where each game's levels are known at once (:func:`_windows`): per game, the first level
        holding an entry not known refused, its entries judged (``Decision.admits``, one call per entry for all the
        games at that level), the next such level only in the games where none is legal. The same choice as the
        level-by-level walk (the levels without such an entry judge nothing there either)."""
        n = d.games.size
        unit = np.full(n, -1, dtype=np.int64)
        entry = np.full(n, -1, dtype=np.int64)
        cand = maybe[np.arange(n)[:, None], order] & np.isfinite(ranked)  # in each game's ranked order
        big = np.iinfo(np.int64).max
        after = np.full(n, -1, dtype=np.int64)  # the levels judged so far in each game
        while True:
            w = np.where(cand & (wid > after[:, None]), wid, big).min(axis=1)
            rows = np.flatnonzero((unit < 0) & (w < big))
            if rows.size == 0:
                return unit, entry
            i, k = np.nonzero(cand[rows] & (wid[rows] == w[rows, None]))
            _pick(d, np.stack([rows[i], order[rows[i], k]], axis=1), owner, index, u, unit, entry)
            after[rows] = w[rows]


#: a menu's entries with abilities and their twins without (:func:`ability_gain`), by the menu's id (the menu kept,
#: so an id is not reused while its entry stands); at most :data:`TWINS_LIMIT` menus
TWINS_LIMIT = 256
_TWINS: dict[int, tuple[tuple[Entry, ...], list[tuple[int, int]]]] = {}


def ability_gain(menu: tuple[Entry, ...], s: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game (rows of ``s``: the scores of ``menu``'s entries): the most an ability adds to an entry of the menu
    over the same entry without it (its score less its twin's: the attack's gain less the price, not the reach a BUFF
    Speed adds, the twin may be illegal), at least 0, and that entry's resources (``cost``: the ``spend`` column)."""
    hit = _TWINS.get(id(menu))
    if hit is None or hit[0] is not menu:
        if len(_TWINS) >= TWINS_LIMIT:  # bounded: menus come and go with their Worlds
            _TWINS.clear()
        at = {e: i for i, e in enumerate(menu)}
        hit = _TWINS[id(menu)] = (
            menu,
            [(i, at[replace(e, use=())]) for i, e in enumerate(menu) if e.use and replace(e, use=()) in at],
        )
    pairs = hit[1]
    if not pairs:
        return np.zeros(s.shape[0]), np.zeros(s.shape[0])
    with_, plain = np.asarray(pairs).T
    more = s[:, with_] - s[:, plain]
    best = more.argmax(axis=1)
    top = np.maximum(more[np.arange(s.shape[0]), best], 0.0)
    return top, np.where(top > 0, cost[with_][best], 0.0)


def forgone(gain: np.ndarray, cost: np.ndarray, spare: np.ndarray, c: float) -> np.ndarray:
    """Per game: the score that spending ``c`` of the ``spare`` resources now takes from the other units' uses this
    Phase (``gain``, ``cost``: games x units, :func:`ability_gain`): those uses bought best first while the resources
    last, with ``spare`` and with ``spare - c``, the difference of their gains (10.5; 0 where the resources pay for
    all of them either way)."""
    order = np.argsort(-gain, axis=1, kind="stable")
    g = np.take_along_axis(gain, order, axis=1)
    k = np.cumsum(np.take_along_axis(cost, order, axis=1), axis=1)
    live = g > 0
    before = (g * (live & (k <= spare[:, None] + TIE))).sum(axis=1)
    after = (g * (live & (k <= spare[:, None] - c + TIE))).sum(axis=1)
    return before - after


def _pick(
    d: Decision,
    pairs: np.ndarray,
    owner: np.ndarray,
    index: np.ndarray,
    u: np.ndarray,
    unit: np.ndarray,
    entry: np.ndarray,
) -> np.ndarray:
    """``pairs`` (game row, column): the entries of each game's current level not known refused. Each column judged
    once for its games (``Decision.admits``); in each game with a legal one, the ``floor(u * k)``-th of its ``k``
    legal columns (in column order) set in ``unit`` and ``entry``; returns those games' rows."""
    ok = np.zeros(len(pairs), dtype=bool)
    for c in np.unique(pairs[:, 1]).tolist():
        at = np.flatnonzero(pairs[:, 1] == c)
        ok[at] = d.admits(int(owner[c]), int(index[c]), pairs[at, 0])
    legal = pairs[ok]
    legal = legal[np.lexsort((legal[:, 1], legal[:, 0]))]  # by game, then column
    found, start, count = np.unique(legal[:, 0], return_index=True, return_counts=True)
    if found.size:
        pick = legal[start + np.minimum((u[found] * count).astype(np.int64), count - 1), 1]
        unit[found], entry[found] = owner[pick], index[pick]
    return found


def _windows(ranked: np.ndarray) -> np.ndarray | None:
    """Games x ranked entries: the level of each entry in :meth:`Weighted.choose`'s walk (a level: the entries from
    its first within :data:`TIE` of that first's score), where every two neighbours of a game's finite scores are
    equal or more than TIE apart: then a level is a run of equal scores, its first's score the score of each entry
    in it, and a new level starts where the score drops by more than TIE. None where two neighbours differ by TIE or
    less (a chain of near ties: the walk's levels then depend on where each starts)."""
    if ranked.shape[1] < 2:
        return np.zeros(ranked.shape, dtype=np.int64)
    a, b = ranked[:, :-1], ranked[:, 1:]
    finite = np.isfinite(a) & np.isfinite(b)
    drop = ~(b >= a - TIE)  # as the walk compares: b is below the level that a starts (or shares with equals)
    if (finite & (b != a) & ~drop).any():
        return None
    out = np.zeros(ranked.shape, dtype=np.int64)
    np.cumsum(drop & finite, axis=1, out=out[:, 1:])
    return out


#: the weights file of the built-in policies (the repository's ``profiles/policies.toml``)
WEIGHTS_FILE = "policies.toml"
_WEIGHTS: dict[str, dict[str, dict[str, float]]] = {}


def load_weights(path: Path | None = None) -> dict[str, dict[str, float]]:
    """The policies' weights (``profiles/policies.toml``, or ``path``): policy name -> column -> weight; a malformed
    file is refused with one line naming the field (``docs/scenario.md``, Automatic players)."""
    from ...profiles.loader import builtin_dir
    from ...validate import read_toml
    from .features import COLUMNS

    path = path if path is not None else builtin_dir() / WEIGHTS_FILE
    key = str(path)
    if key in _WEIGHTS:
        return _WEIGHTS[key]
    allowed = f"a table per policy of weights over {', '.join(COLUMNS)} (docs/scenario.md, Automatic players)"
    data, problem = read_toml(path, allowed)
    if data is None:
        raise MathhammerError(problem)
    out: dict[str, dict[str, float]] = {}
    for name, table in data.items():
        if name == "meta":
            continue
        if not isinstance(table, dict):
            raise InputError(f"{path.name}: {name}", table, allowed)
        row: dict[str, float] = {}
        for col, w in table.items():
            if col not in COLUMNS:
                raise InputError(f"{path.name}: {name}.{col}", col, f"a column: {', '.join(COLUMNS)}")
            if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w) or abs(w) > 1e6:
                raise InputError(f"{path.name}: {name}.{col}", w, "a finite number, at most 1e6 in size")
            row[col] = float(w)
        out[name] = row
    _WEIGHTS[key] = out
    return out


@policy("objective")
class Objective(Weighted):
    """Markers first (``profiles/policies.toml`` [objective])."""

    profile = "objective"


@policy("aggressive")
class Aggressive(Weighted):
    """Damage first (``profiles/policies.toml`` [aggressive])."""

    profile = "aggressive"


@policy("cautious")
class Cautious(Weighted):
    """Cover and threat first (``profiles/policies.toml`` [cautious])."""

    profile = "cautious"


__all__ = [
    "POLICIES",
    "SHUFFLE",
    "TIE",
    "Aggressive",
    "Cautious",
    "Decision",
    "Objective",
    "Policy",
    "Random",
    "Weighted",
    "allowed",
    "block_games",
    "load_weights",
    "make_policy",
    "policy",
]
