"""Counter-based random numbers: a stream per (seed, trial index).

SplitMix64 (Steele, Lea and Flood 2014, the generator of Java's
``SplittableRandom`` and the usual seeder of xoshiro256**): output ``n`` of a
stream is ``mix64(base + n * gamma)``. A seed gives ``base`` and an odd
``gamma`` (:func:`seed_stream`; different seeds get different gammas, as
``SplittableRandom.split`` does). Trial ``i`` owns the block of positions
``i * 2**TRIAL_BITS ..`` of its seed's stream, so the numbers a trial sees
depend on the seed and the trial index only, never on threads or chunking.

Starting a trial costs one multiply-add, not a hash: a hash of (seed, trial)
sits on the critical path of every trial and cost ~10% of the count kernel's
time. Limits: a trial may draw up to ``2**TRIAL_BITS`` numbers, and a run may
have up to ``2**(64 - TRIAL_BITS)`` trials (checked by the driver).

>>> base, gamma = seed_stream(0)
>>> hex(base), gamma % 2
('0xe220a8397b1dcdaf', 1)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT, TRIAL_BITS
from .streams import seed_stream as seed_stream  # re-exported: the numba-free half of the streams

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TRIAL_BITS = np.uint64(TRIAL_BITS)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(**JIT)
def mix64(z):
    """SplitMix64's output function (a bijection of uint64)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(**JIT)
def trial_state(base, gamma, trial):
    """State before the first draw of trial ``trial`` (position ``trial * 2**TRIAL_BITS``)."""
    return base + np.uint64(trial) * (gamma << _TRIAL_BITS)


@njit(**JIT)
def next_u64(state, gamma):
    """``(new_state, 64 random bits)``."""
    state = state + gamma
    return state, mix64(state)


@njit(**JIT)
def below(bits32, m):
    """Map 32 random bits to 0..m-1 by multiply-shift (bias < m / 2**32)."""
    return np.int64((bits32 * np.uint64(m)) >> _S32)


@njit(**JIT)
def low32(x):
    return x & _LOW32


@njit(**JIT)
def high32(x):
    return x >> _S32
