"""The counter-based random streams of :mod:`mathhammer.engine.rng` without numba: seeds, and numpy arrays of trials.

:func:`seed_stream` turns a user seed into its stream ``(base, gamma)``; :func:`trial_states` and
:func:`mix64` are :func:`~mathhammer.engine.rng.trial_state` and :func:`~mathhammer.engine.rng.mix64` on an
array holding one uint64 state per trial, so a numpy engine vectorised over the trials of a block draws the
very numbers the numba kernels draw (numpy's uint64 arithmetic on arrays wraps, as numba's does). Importing
this module imports no numba.

>>> base, gamma = seed_stream(0)
>>> hex(base), gamma % 2
('0xe220a8397b1dcdaf', 1)
>>> [int(s) == (base + i * (gamma << 26)) % 2**64 for i, s in enumerate(trial_states(base, gamma, 0, 3))]
[True, True, True]
"""

from __future__ import annotations

import numpy as np

from ..config import TRIAL_BITS

_MASK64 = (1 << 64) - 1
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)

__all__ = ["mix64", "seed_stream", "trial_states"]


def _mix_py(z: int) -> int:
    """SplitMix64's output function on Python ints (for the driver)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _mix_gamma_py(z: int) -> int:
    """SplittableRandom's ``mixGamma``: an odd increment with enough bit transitions."""
    z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & _MASK64
    z = ((z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53) & _MASK64
    z = (z ^ (z >> 33)) | 1
    if bin(z ^ (z >> 1)).count("1") < 24:
        z ^= 0xAAAAAAAAAAAAAAAA
    return z


def seed_stream(seed: int) -> tuple[int, int]:
    """``(base, gamma)`` of a user seed (0 <= seed < 2**64): the stream is ``mix64(base + n * gamma)``."""
    base = _mix_py((seed + 0x9E3779B97F4A7C15) & _MASK64)
    gamma = _mix_gamma_py((seed + 2 * 0x9E3779B97F4A7C15) & _MASK64)
    return base, gamma


def trial_states(base: int, gamma: int, first: int, n: int) -> np.ndarray:
    """uint64 states before the first draw of trials ``first .. first + n - 1`` (``rng.trial_state`` of each)."""
    step = np.uint64((int(gamma) << TRIAL_BITS) & _MASK64)
    index = np.arange(first, first + n, dtype=np.uint64)
    return index * step + np.uint64(int(base) & _MASK64)


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function on a uint64 array (a new array)."""
    z = z ^ (z >> _S30)
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z
