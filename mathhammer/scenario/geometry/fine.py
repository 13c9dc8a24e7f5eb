"""The fine grid a charging model is looked for on where the spot lists of 8.7.7 step 4 find it none (4.4: Wholly
Within the Horizontal Coherency of the Leading Model, else removed as a casualty), read by cells first
(:meth:`Charges._charge_spots <.charge.Charges._charge_spots>`)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ...board.model import EPS

#: The step of the square grid a model is looked for on, Wholly Within the Horizontal Coherency of the Leading Model,
#: where the spot lists find it no spot there (4.4: a model that finds none is removed as a casualty)
FINE = 0.02


#: The cells the fine grid is read by first, inches: a fine spot is at most ``COARSE / sqrt(2)`` from its cell's centre
COARSE = 0.1
#: Read the fine grid by cells first (:func:`cell_slack`; the tests compare it with the spots read one by one)
CELLS = True


def cell_slack(r: float) -> float:
    """How much nearer a base or terrain a cell's centre may be than a free fine spot of the cell, for a base of
    radius ``r``: half the cell's diagonal, and the most by which the base's 32-gon (the terrain test's disc) falls
    inside its circle, ``r (1 - cos(pi / 32))``, with a margin."""
    return COARSE / math.sqrt(2) + r * (1 - math.cos(math.pi / 32)) + 1e-6


@lru_cache(maxsize=16)
def fine_cells(reach: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per spot of :func:`fine_arrays` its cell of :data:`COARSE` (an index), and the cells' centres (lateral, ahead),
    kept per reach."""
    lat, fwd = fine_arrays(reach)
    cells, inv = np.unique(
        np.stack([np.rint(lat / COARSE), np.rint(fwd / COARSE)], axis=1), axis=0, return_inverse=True
    )
    clat, cfwd = np.ascontiguousarray(cells[:, 0] * COARSE), np.ascontiguousarray(cells[:, 1] * COARSE)
    return np.ascontiguousarray(inv.ravel()), clat, cfwd


@lru_cache(maxsize=16)
def fine_arrays(reach: float) -> tuple[np.ndarray, np.ndarray]:
    """The square grid of :data:`FINE` within ``reach`` of its centre (lateral, ahead), kept per reach."""
    k = np.arange(-math.floor(reach / FINE), math.floor(reach / FINE) + 1) * FINE
    lat, fwd = (a.ravel() for a in np.meshgrid(k, k))
    inside = np.hypot(lat, fwd) <= reach + EPS
    lat, fwd = np.ascontiguousarray(lat[inside]), np.ascontiguousarray(fwd[inside])
    lat.flags.writeable = fwd.flags.writeable = False
    return lat, fwd
