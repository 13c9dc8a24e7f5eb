"""Numba kernel of the automatic players' Deploy verdicts: can a unit be set at each of many (state, entry) pairs, its
Leading Model at the entry's point and the other models on the first free spots of the placement grid (the grid walk
of :meth:`~mathhammer.scenario.geometry.placement.Placing._place_grid`, the other units' bases given per state)?"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT

#: a distance this near a threshold of the grid walk is not decided here (the caller asks the World instead)
TOL = 1e-9


@njit(**JIT)
def _spot_test(x, y, r, cs, rs, enemy, lo, hi, mine, k, apart, eng, tol):  # pragma: no cover - compiled
    """0 the base at (x, y) is clear of the bases ``cs[lo:hi]`` and of the first ``k`` of ``mine``, 1 it is not, -1 a
    gap too near a threshold to say."""
    unsure = False
    for j in range(lo, hi):
        dx = x - cs[j, 0]
        dy = y - cs[j, 1]
        g = np.sqrt(dx * dx + dy * dy) - r - rs[j]
        if g < apart - tol or (enemy[j] and g <= eng - tol):
            return 1
        if abs(g - apart) <= tol or (enemy[j] and abs(g - eng) <= tol):
            unsure = True
    for j in range(k):
        dx = x - mine[j, 0]
        dy = y - mine[j, 1]
        g = np.sqrt(dx * dx + dy * dy) - 2 * r
        if g < apart - tol:
            return 1
        if abs(g - apart) <= tol:
            unsure = True
    return -1 if unsure else 0


@njit(**JIT)
def _set_kernel(spots, terr, nspots, models, r, step, cs, rs, enemy, starts, apart, eng, tol):  # pragma: no cover
    """Per state ``t`` (the bases ``cs[starts[t]:starts[t+1]]``, radii ``rs``, ``enemy``: an Enemy Ground base it may
    not come Within ``eng`` of) and entry ``e`` (its grid spots ``spots[e, :nspots[e]]``, the Leading Model's first;
    ``terr``: the spot on the table and clear of terrain): 1 the unit cannot be set, 0 it can, -1 undecided."""
    n_t = starts.size - 1
    n_e = spots.shape[0]
    out = np.zeros((n_t, n_e), dtype=np.int8)
    mine = np.empty((models, 2), dtype=np.float64)
    together = step + 2.0
    for t in range(n_t):
        lo, hi = starts[t], starts[t + 1]
        for e in range(n_e):
            if not terr[e, 0]:
                out[t, e] = 1
                continue
            x0, y0 = spots[e, 0, 0], spots[e, 0, 1]
            v = _spot_test(x0, y0, r, cs, rs, enemy, lo, hi, mine, 0, apart, eng, tol)
            if v != 0:
                out[t, e] = v
                continue
            mine[0, 0], mine[0, 1] = x0, y0
            k = 1
            verdict = 0
            for s in range(1, nspots[e]):
                if k == models:
                    break
                if not terr[e, s]:
                    continue
                x, y = spots[e, s, 0], spots[e, s, 1]
                v = _spot_test(x, y, r, cs, rs, enemy, lo, hi, mine, k, apart, eng, tol)
                if v == 1:
                    continue
                if v == -1:
                    verdict = -1
                    break
                near = np.inf
                for j in range(k):
                    dx = x - mine[j, 0]
                    dy = y - mine[j, 1]
                    near = min(near, np.sqrt(dx * dx + dy * dy))
                if abs(near - together) <= tol:
                    verdict = -1
                    break
                if near > together:  # keep them together
                    continue
                mine[k, 0], mine[k, 1] = x, y
                k += 1
            if verdict == 0 and k < models:
                verdict = 1
            out[t, e] = verdict
    return out


def set_verdicts(
    spots: np.ndarray,
    terr: np.ndarray,
    nspots: np.ndarray,
    models: int,
    r: float,
    step: float,
    cs: np.ndarray,
    rs: np.ndarray,
    enemy: np.ndarray,
    starts: np.ndarray,
    apart: float,
    eng: float,
) -> np.ndarray:
    """:func:`_set_kernel` (its text) on contiguous arrays: states x entries, int8 (1 cannot be set, 0 can, -1 too
    near a threshold to say)."""
    return _set_kernel(
        np.ascontiguousarray(spots, dtype=np.float64),
        np.ascontiguousarray(terr, dtype=np.bool_),
        np.ascontiguousarray(nspots, dtype=np.int64),
        int(models),
        float(r),
        float(step),
        np.ascontiguousarray(cs, dtype=np.float64).reshape(-1, 2),
        np.ascontiguousarray(rs, dtype=np.float64),
        np.ascontiguousarray(enemy, dtype=np.bool_),
        np.ascontiguousarray(starts, dtype=np.int64),
        float(apart),
        float(eng),
        TOL,
    )


__all__ = ["TOL", "set_verdicts"]
