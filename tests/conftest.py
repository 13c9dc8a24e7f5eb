"""Shared test setup: a private numba cache unless the caller chose one."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="mathhammer-numba-"))
