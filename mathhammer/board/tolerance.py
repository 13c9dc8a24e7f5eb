"""The tolerance of the battlefield's tests, in a module of its own: compiled kernels read it (:mod:`.fastsight`), and
a module whose text reaches compiled code names the kernels' cache folder
(:data:`mathhammer.kernelcache.KERNEL_SOURCES`), so it is kept apart from :mod:`.model`'s Python."""

from __future__ import annotations

#: tolerance for "Within" and contact tests, in inches (floating point only, far below any real measurement).
EPS = 1e-7
