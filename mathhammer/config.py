"""Numba flags and engine sizes, in one flat module at the bottom: any layer may read it, kernels never hard-code them.

- ``cache=True`` so a new process loads compiled kernels from disk (~0.2 s)
  instead of compiling them (several seconds). Numba honours
  ``NUMBA_CACHE_DIR``; when no cache folder is writable, caching is switched
  off here rather than failing at import.
- ``fastmath`` off: nothing to gain (the kernels are integer code) and no
  reassociation to worry about.
- ``error_model="numpy"``: no Python-style zero-division checks in loops.

The package's kernels are cached in a folder named by a digest of the files numba compiles into them, this one
among them: :mod:`mathhammer.kernelcache` (imported when a kernel module first reads the flags).
"""

from __future__ import annotations

from typing import Any

#: Cache compiled kernels on disk (found out on first use: see :func:`__getattr__`).
CACHE: bool

#: Flags of every single-thread kernel.
JIT: dict[str, Any]

#: Flags of the helpers of one trial: inlined in numba's IR. A call that
#: passes arrays costs atomic reference counts on the shared arrays (cache-line
#: ping-pong between threads) and blocks LLVM's optimisation across pools.
INLINE: dict[str, Any]

#: Flags of the ``prange`` drivers.
PARALLEL: dict[str, Any]

_KERNEL_FLAGS = ("CACHE", "JIT", "INLINE", "PARALLEL")


def __getattr__(name: str) -> Any:
    """:data:`CACHE` and the kernels' flags, made when a kernel module first reads them: finding out whether
    numba's cache folder is writable creates that folder and a file in it, which a command that compiles no
    kernel (an exact attack, ``profiles list``) has no business doing."""
    if name not in _KERNEL_FLAGS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import kernelcache

    cache = kernelcache.cache_available()
    if cache:
        kernelcache.use_kernel_folders()
    jit: dict[str, Any] = {"cache": cache, "fastmath": False, "nogil": True, "error_model": "numpy"}
    flags = {"CACHE": cache, "JIT": jit, "INLINE": {**jit, "inline": "always"}, "PARALLEL": {**jit, "parallel": True}}
    globals().update(flags)
    return flags[name]


#: Runs of at most this many trials per super-block go to the single-thread
#: kernel: they take tens of milliseconds, and a first run then skips the
#: parallel driver's compile. The counts are the same either way.
SERIAL_MAX: int = 2**22

#: Trials per call of the parallel kernel; the driver loops over super-blocks.
SUPER_BLOCK: int = 2**24

#: Largest pool of the binomial alias tables; larger pools are drawn in pieces.
BINOMIAL_TABLE_MAX: int = 256

#: StarCraft TMG's numpy Monte Carlo engine runs while numba is not loaded and its work in the process
#: (trials x draws per trial) stays within this: about the time numba and its cached kernels take to load.
NUMPY_WORK_MAX: int = 20_000_000

#: Casualty transition tables up to this many entries are always built (a
#: few ms); larger ones only when the run is 200 or more trials per entry.
TRANSITIONS_ALWAYS: int = 4096

#: Default trials per chunk (the scheduling unit inside a super-block).
CHUNK_SIZE: int = 65536

#: A Monte Carlo trial owns ``2**TRIAL_BITS`` consecutive positions of its seed's random stream
#: (:mod:`mathhammer.engine.rng`): the most random numbers one trial may draw.
TRIAL_BITS: int = 26

#: Most trials one seed can number without reusing stream positions.
MAX_TRIALS: int = 2 ** (64 - TRIAL_BITS)
