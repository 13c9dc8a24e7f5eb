"""The scenario's speed machinery behind one boundary: one memo for the geometry, its answers shared with forked
workers, and the memory settings of a run (the heap of a run on every core, numpy's huge-page advice).

Every geometry part of :class:`~mathhammer.scenario.world.World` (:mod:`mathhammer.scenario.geometry`) answers
through one :class:`Memo`:

* :meth:`Memo.table`: a plain table of answers for one kind of question (``Memo.tables`` holds them all, by name);
  the key is the question (placement ids, models left, coordinates), the same question the same answer.
* :meth:`Memo.ask`: an answer that is a function of its question's *content* alone (coordinates, unit ids, numbers,
  :meth:`~mathhammer.scenario.geometry.core.BoardState.content` digests for placements), read from or published to
  the other forked workers (:class:`SharedAnswers`) where answers are shared.
* :meth:`Memo.boxed`: an answer kept with the box of every point it tested against the other units' bases (a Charge
  path, the placement of a charging unit, a Close Ranks move): a base farther than its reach from that box changes
  none of those tests, so a later question with the same bases near the box gets the same answer without computing
  it again; shared with the other workers like :meth:`Memo.ask` (by content; the bases compared as content too).

Measurements of these choices are in ``benchmarks/RESULTS.md`` (scenario section), not here.

Shared answers (:class:`SharedAnswers`): answers of costly geometry shared between forked workers, one append-only
log per block in shared memory.

The workers of :mod:`~mathhammer.scenario.parallel` meet most board states again, each on its own (the
geometry of a state is read once per process). A :class:`SharedAnswers` made before the fork lets a worker
publish an answer it computed (keyed by the *content* of the question: coordinates, unit ids, numbers; never
a process's own placement ids) and read those the other workers published, so a state's costly geometry is
computed about once in all.

Each block writes only its own log (one writer: no lock); a log is a header (the committed end and the
answers taken from the others, two int64) and records ``[length u32][question digest 16 bytes][answer digest
8 bytes][pickled answer]``. A record is written before the header moves past it, so a reader never sees a part
of one on x86 (which keeps the order of stores); elsewhere a record whose bytes do not match its digest yet is
left for the next reading. A full log takes no more records; answers stay correct, they are computed again.

An answer is a pure function of its key: whichever process computed it, it is the same, so the games do not
depend on who read what first (the test suite holds parallel runs equal to serial ones).

>>> shared = SharedAnswers(2, size=4096)
>>> shared.start(0)
>>> shared.put(("charge", 1.5), (3.0, None))
>>> shared.put(("charge", 1.5), (4.0, (1.0, 2.0)))
>>> shared.start(1)  # as the other worker (a fork would have its own copy of the local dict)
>>> shared.local.clear()
>>> shared.get(("charge", 1.5)), shared.get(("charge", 2.5))
([(3.0, None), (4.0, (1.0, 2.0))], [])
>>> shared.hit()
>>> shared.published(), shared.hits()
([2, 0], [0, 1])
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import mmap
import pickle
import struct
import sys
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

_HEADER = struct.Struct("<qq")  # the committed end; the answers this block took from the others
_RECORD = struct.Struct("<I16s8s")  # the answer's length, the question's digest, the answer's digest

#: Bytes of each block's log (records of about 100 bytes: some 160,000 answers).
LOG_BYTES = 16 << 20


def _digest(key: object) -> bytes:
    return hashlib.blake2b(repr(key).encode(), digest_size=16).digest()


def _check(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=8).digest()


class SharedAnswers:
    """One log per block (``blocks``), in anonymous shared memory mapped before the fork."""

    def __init__(self, blocks: int, size: int = LOG_BYTES) -> None:
        self.logs = [mmap.mmap(-1, size) for _ in range(blocks)]
        for log in self.logs:
            _HEADER.pack_into(log, 0, _HEADER.size, 0)
        self.me = -1
        self.read_to = [_HEADER.size] * blocks
        self.local: dict[bytes, list[Any]] = {}

    def hit(self) -> None:
        """Count one answer taken from another block (in this block's header: :meth:`hits`)."""
        if self.me >= 0:
            end, hits = _HEADER.unpack_from(self.logs[self.me], 0)
            _HEADER.pack_into(self.logs[self.me], 0, end, hits + 1)

    def hits(self) -> list[int]:
        """Per block: the answers it took from the others."""
        return [_HEADER.unpack_from(log, 0)[1] for log in self.logs]

    def published(self) -> list[int]:
        """Per block: the answers it published."""
        out = []
        for log in self.logs:
            end, at, n = _HEADER.unpack_from(log, 0)[0], _HEADER.size, 0
            while at < end:
                at += _RECORD.size + _RECORD.unpack_from(log, at)[0]
                n += 1
            out.append(n)
        return out

    def start(self, me: int) -> None:
        """This process writes block ``me``'s log (the others it only reads)."""
        self.me = me

    def _read_others(self) -> None:
        for b, log in enumerate(self.logs):
            if b == self.me:
                continue
            end = _HEADER.unpack_from(log, 0)[0]
            at = self.read_to[b]
            while at < end:
                length, digest, check = _RECORD.unpack_from(log, at)
                body = at + _RECORD.size
                data = log[body : body + length]
                if body + length > end or _check(data) != check:  # pragma: no cover - not yet whole: read it later
                    break  # (weakly ordered memory can show the header before the record)
                self.local.setdefault(digest, []).append(pickle.loads(data))
                at = body + length
            self.read_to[b] = at

    def get(self, key: object) -> list[Any]:
        """The answers the other blocks published for ``key`` (in the order read)."""
        return self.get_digest(_digest(key))

    def get_digest(self, digest: bytes) -> list[Any]:
        """:meth:`get` of the key whose :func:`_digest` is ``digest`` (a caller that also puts digests it once)."""
        if self.me < 0:
            return []
        self._read_others()
        return self.local.get(digest, [])

    def put(self, key: object, answer: Any) -> None:
        """Publish ``answer`` for ``key`` in this block's log (one more under the key), where there is room."""
        self.put_digest(_digest(key), answer)

    def put_digest(self, digest: bytes, answer: Any) -> None:
        """:meth:`put` of the key whose :func:`_digest` is ``digest``."""
        if self.me < 0:
            return
        log = self.logs[self.me]
        body = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        end, hits = _HEADER.unpack_from(log, 0)
        if end + _RECORD.size + len(body) > len(log):
            return
        _RECORD.pack_into(log, end, len(body), digest, _check(body))
        log[end + _RECORD.size : end + _RECORD.size + len(body)] = body
        _HEADER.pack_into(log, 0, end + _RECORD.size + len(body), hits)  # after the record: readers see it whole


def _same(x: Any) -> Any:
    return x


#: One entry of a box memo: the box examined, the bases found near it (as the memo's ``near`` returns them), the answer.
BoxEntry = tuple[list[float], Any, Any]


class Memo:
    """The answers of one World's geometry (the module text); ``shared``: the answers of the other forked workers."""

    def __init__(self, variant: Hashable = None) -> None:
        self.shared: SharedAnswers | None = None
        self.tables: dict[str, dict[Any, Any]] = {}
        #: what besides the question the answers depend on (a variant of the board: the removed Grass pieces,
        #: :mod:`~mathhammer.scenario.grass`); part of every shared question's content key where not None
        self.variant = variant

    def derive(self, variant: Hashable, keep: frozenset[str]) -> Memo:
        """A memo for a variant of this one's board: the tables named in ``keep`` (answers the variant does not
        change: placements and their ids) shared, every other table its own; the same shared answers, keyed apart by
        ``variant``."""
        out = Memo(variant)
        out.shared = self.shared
        out.tables = {name: table for name, table in self.tables.items() if name in keep}
        return out

    def _keyed(self, asked: Hashable) -> Hashable:
        return asked if self.variant is None else ("variant", self.variant, asked)

    def table(self, name: str) -> dict[Any, Any]:
        """The table of answers named ``name`` (made empty on first use)."""
        hit = self.tables.get(name)
        if hit is None:
            hit = self.tables[name] = {}
        return hit

    def share(self, blocks: int) -> SharedAnswers:
        """Share answers between ``blocks`` forked workers from now on (before the fork)."""
        self.shared = SharedAnswers(blocks)
        return self.shared

    def ask(self, question: Callable[[], Hashable], compute: Callable[[], Any]) -> Any:
        """``compute()``, or the answer another forked worker published for ``question()`` (the question by content;
        read only where answers are shared), publishing a computed one (for answers that are a function of the
        question alone)."""
        shared = self.shared
        if shared is None:
            return compute()
        asked = _digest(self._keyed(question()))
        found = shared.get_digest(asked)
        if found:
            shared.hit()
            return found[0]
        answer = compute()
        shared.put_digest(asked, answer)
        return answer

    def boxed(
        self,
        name: str,
        key: Hashable,
        near: Callable[[list[float]], Any],
        compute: Callable[[], tuple[list[float], Any]],
        shared_key: Callable[[], Hashable] | None = None,
        content: Callable[[Any], Any] = _same,
        to_shared: Callable[[Any], Any] = _same,
        from_shared: Callable[[Any], Any] = _same,
    ) -> tuple[list[float], Any]:
        """The answer to question ``key`` of kind ``name`` and the box it examined: kept with the bases near that box
        (``near(box)``); an entry whose bases near its box are the ones here answers, else another forked worker's
        published for ``(name, *shared_key())`` whose bases, as ``content(...)``, are the ones here (its answer read
        by ``from_shared``), else ``compute()`` (box, answer), published as ``to_shared(answer)``."""
        entries: list[BoxEntry] = self.table(name).setdefault(key, [])
        read: dict[tuple[float, ...], Any] = {}  # mostly one box: read it once
        for box, relevant, answer in entries:
            at = tuple(box)
            here = read.get(at)
            if here is None:
                here = read[at] = near(box)
            if here == relevant:
                return box, answer
        shared = self.shared
        asked = None
        if shared is not None and shared_key is not None:
            asked = _digest(self._keyed((name, *shared_key())))  # type: ignore[misc]
            for box, there, answer in shared.get_digest(asked):
                here = near(box)
                if content(here) == there:
                    shared.hit()
                    answer = from_shared(answer)
                    entries.append((box, here, answer))
                    return box, answer
        box, answer = compute()
        relevant = near(box)
        entries.append((box, relevant, answer))
        if shared is not None and asked is not None:
            shared.put_digest(asked, (box, content(relevant), to_shared(answer)))
        return box, answer


#: The glibc heap of a run on every core (:func:`reuse_freed_memory`): blocks below this many bytes come from the heap,
#: not from fresh mappings (glibc's own most: 32 MiB on 64 bits) ...
HEAP_MMAP_THRESHOLD = 32 << 20
#: ... and the heap keeps up to this many free bytes at its top for reuse instead of handing them back.
HEAP_TRIM_THRESHOLD = 1 << 30


def reuse_freed_memory() -> bool:
    """Set this process's glibc heap, which the forked workers inherit, to keep freed memory for reuse
    (``mallopt``; a run on every core only, and it stays so in this process): a worker allocates and frees arrays
    of its games' size (1-32 MB) thousands of times, and glibc's default serves the larger ones from fresh mappings,
    each page faulted in again. Both the mapping and the trim thresholds are set (the trim threshold alone would
    also fix the mapping threshold at its 128 KiB start; see ``benchmarks/RESULTS.md``). True where set (glibc on
    Linux); elsewhere nothing changes."""
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # malloc.h
    return bool(mallopt(m_mmap_threshold, HEAP_MMAP_THRESHOLD)) and bool(mallopt(m_trim_threshold, HEAP_TRIM_THRESHOLD))


def release_freed_memory() -> bool:
    """Hand the free pages of this process's glibc heap back to the system (``malloc_trim(0)``): between two blocks of
    automatic players' games, whose answers are freed with their Simulation, so a long run's resident size follows
    the memory in use instead of the freed fragments kept between live ones (measured: ``benchmarks/RESULTS.md``,
    issue 29 point 6, session 22). True where done (glibc on Linux); elsewhere nothing changes."""
    trim = _glibc("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True


def _glibc(name: str) -> Any:
    """glibc's function ``name`` (Linux), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return None


def _huge_page_switch() -> Callable[[bool], bool] | None:
    """numpy's switch of its huge-page advice (``_set_madvise_hugepage``: numpy 2's ``numpy._core``, numpy 1's
    ``numpy.core``), or None where this numpy has none."""
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            switch: Callable[[bool], bool] = importlib.import_module(name)._set_madvise_hugepage
        except (ImportError, AttributeError):
            continue
        return switch
    return None  # pragma: no cover - every numpy this project supports has it


def huge_pages(on: bool) -> bool | None:
    """Whether numpy advises the kernel to back the arrays it makes from now on (those of 4 MiB or more) with
    transparent huge pages (``madvise(MADV_HUGEPAGE)``), in this process and the processes forked after; returns the
    setting it replaced (None where this numpy has no such switch: nothing changes)."""
    switch = _huge_page_switch()
    return None if switch is None else bool(switch(bool(on)))


@contextmanager
def many_games() -> Iterator[None]:
    """The memory setting of a run of games, for its length (the forked workers inherit it), then the one found:
    numpy's huge-page advice off (:func:`huge_pages`). A run makes and frees arrays of its games' size thousands of
    times, and the memory it keeps (the state, the snapshots) is touched once: faulted in as huge pages, that memory
    cost two to three times the kernel time of small pages (``benchmarks/RESULTS.md``, issue 26 point 6, session 9).
    The games are the same either way (the setting decides how memory is backed, never what it holds)."""
    was = huge_pages(False)
    try:
        yield
    finally:
        if was is not None:
            huge_pages(was)


__all__ = [
    "HEAP_MMAP_THRESHOLD",
    "HEAP_TRIM_THRESHOLD",
    "LOG_BYTES",
    "Memo",
    "SharedAnswers",
    "huge_pages",
    "many_games",
    "release_freed_memory",
    "reuse_freed_memory",
]
