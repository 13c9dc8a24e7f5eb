"""Answers of costly geometry shared between forked workers: one append-only log per block in shared memory.

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

import hashlib
import mmap
import pickle
import struct
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
        if self.me < 0:
            return []
        self._read_others()
        return self.local.get(_digest(key), [])

    def put(self, key: object, answer: Any) -> None:
        """Publish ``answer`` for ``key`` in this block's log (one more under the key), where there is room."""
        if self.me < 0:
            return
        log = self.logs[self.me]
        body = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        end, hits = _HEADER.unpack_from(log, 0)
        if end + _RECORD.size + len(body) > len(log):
            return
        _RECORD.pack_into(log, end, len(body), _digest(key), _check(body))
        log[end + _RECORD.size : end + _RECORD.size + len(body)] = body
        _HEADER.pack_into(log, 0, end + _RECORD.size + len(body), hits)  # after the record: readers see it whole


__all__ = ["LOG_BYTES", "SharedAnswers"]
