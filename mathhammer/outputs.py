"""Output files written all together or not at all, also when the process is killed at any instant.

Every command that writes files (``report --out``, ``compare --csv/--plot``, ``scenario run`` and ``game``'s
``--plot`` and ``--trace-dir``, ``board show --out``, ``import-opr --out``) writes through :class:`Outputs`
transactions:

1. **begin** (before the long work): a later run's leftovers in the target folders are recovered
   (below); each target is checked (its folder exists, a file target is not a folder, a folder
   target passes its command's own check); a journal ``.mathhammer-journal-<id>.json`` is written
   next to the targets (state ``prepare``); a temporary ``.<name>.mh-<id>-new<suffix>`` is created
   next to each target (with the umask's ordinary permissions); each existing target is renamed
   aside and back (``.<name>.mh-<id>-old<suffix>``), so a target that cannot be replaced is found
   now, not after the work.
2. the command writes each temporary.
3. **commit**: the journal's state becomes ``commit`` (one atomic rename: the commit point); each
   target is renamed aside, its new version renamed into place; the old versions are removed, then
   the journals.

``<id>`` is ``<pid>-<8 hex digits>``. An error or Ctrl-C before the commit point removes every
temporary and leaves the targets as they were; after it, the renames are finished. A run killed
(SIGKILL, power) at any step leaves a journal: the next run writing into that folder (any command)
finishes a committed transaction or undoes one that was not, and removes its temporaries, when the
process named by the journal is no longer running (this process's own: when it is not one of its open
transactions). Nothing else in a folder is ever touched.

Errors name the flag and the path: a path problem (a folder, permission denied, no such folder)
is an :class:`~mathhammer.errors.InputError` (exit status 2); the disk full, a quota or an I/O
error is a :class:`WriteError` (exit status 1). Nothing partial is left either way.

Fault injection, for tests: ``MATHHAMMER_FAULT_AT=<step>`` (a name of :func:`steps`) makes the process
do ``MATHHAMMER_FAULT`` at that step: ``kill`` (SIGKILL itself, the default), ``interrupt``
(KeyboardInterrupt), ``enospc`` or ``eacces`` (an OSError of that kind).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import secrets
import shutil
import signal
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError

JOURNAL_PREFIX = ".mathhammer-journal-"
KIND = "mathhammer-outputs"
#: OSError numbers that are the machine's fault, not the path's: exit status 1.
ENVIRONMENT = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.ENOMEM, errno.EFBIG})
#: the ids of this process's transactions begun and not yet finished or undone: :func:`recover` leaves their journals
#: alone (a command may hold two at once in one folder: ``game --plot DIR --trace-dir DIR``)
_OPEN: set[str] = set()


class WriteError(InputError):
    """The environment failed a write (disk full, quota, I/O error): exit status 1, nothing partial left."""

    exit_status = 1


@dataclass(frozen=True)
class Target:
    """One output: ``path`` (a ``"file"`` or a ``"dir"``), the ``flag`` that named it, what is ``allowed``
    there (for messages) and an optional ``guard(path)`` that raises when an existing target may not be
    replaced (run at begin and again just before the commit)."""

    path: Path
    flag: str
    kind: str = "file"
    allowed: str = "a file in an existing folder you can write to"
    guard: Callable[[Path], None] | None = None


def steps(n: int) -> list[str]:
    """The fault-injection steps of a transaction of ``n`` targets, in order (``probe:i`` only for a target
    that exists; ``recover:i`` when a transaction is finished or undone)."""
    out = ["journal", "temps"]
    out += [f"probe:{i}" for i in range(n)] + [f"write:{i}" for i in range(n)] + ["commit"]
    for i in range(n):
        out += [f"aside:{i}", f"place:{i}"]
    return [*out, "cleanup"]


def fault(step: str) -> None:
    """The fault-injection hook (see the module's notes); nothing unless ``MATHHAMMER_FAULT_AT`` is ``step``."""
    if os.environ.get("MATHHAMMER_FAULT_AT") != step:
        return
    del os.environ["MATHHAMMER_FAULT_AT"]  # once, as a real fault: the recovery that follows runs clean
    how = os.environ.get("MATHHAMMER_FAULT", "kill")
    if how == "interrupt":
        raise KeyboardInterrupt
    if how in ("enospc", "eacces"):
        code = errno.ENOSPC if how == "enospc" else errno.EACCES
        raise OSError(code, os.strerror(code))
    os.kill(os.getpid(), signal.SIGKILL)


def error(target: Target, exc: OSError) -> InputError:
    """The one-line error of ``exc`` met while writing ``target``."""
    reason = exc.strerror or str(exc)
    if exc.errno in ENVIRONMENT:
        return WriteError(target.flag, str(target.path), target.allowed, f"{reason}; nothing was written")
    return InputError(target.flag, str(target.path), target.allowed, reason)


class Outputs:
    """A transaction over ``targets`` (see the module's notes); ``scratch``: also a temporary work folder.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with Outputs([Target(folder / "a.txt", "--a"), Target(folder / "b.txt", "--b")]) as tx:
    ...     _ = tx.new(0).write_text("A"), tx.new(1).write_text("B")
    >>> sorted(p.name for p in folder.iterdir())
    ['a.txt', 'b.txt']
    """

    def __init__(self, targets: list[Target], scratch: bool = False) -> None:
        self.targets = [dataclasses.replace(t, path=Path(os.path.abspath(t.path))) for t in targets]
        self.shown = targets
        self.id = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.folders = list(dict.fromkeys(t.path.parent for t in self.targets))
        self.journals = [f / f"{JOURNAL_PREFIX}{self.id}.json" for f in self.folders]
        self.items = [
            {
                "target": str(t.path),
                "new": str(_sibling(t, self.id, "new")),
                "old": str(_sibling(t, self.id, "old")),
                "kind": t.kind,
            }
            for t in self.targets
        ]
        self.scratch = self.folders[0] / f".mathhammer-{self.id}-scratch" if scratch else None
        self.started = False
        self.committed = False

    def new(self, i: int) -> Path:
        """Where target ``i`` is written (its temporary)."""
        return Path(self.items[i]["new"])

    @contextlib.contextmanager
    def writing(self, i: int) -> Iterator[Path]:
        """Write target ``i``: its temporary path; an OSError becomes the error naming its flag."""
        try:
            yield self.new(i)
            fault(f"write:{i}")
        except OSError as exc:
            raise error(self.shown[i], exc) from None

    def __enter__(self) -> Outputs:
        self.begin()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        if exc is None:
            self.commit()
        else:
            self.abort()

    # ------------------------------------------------------------------------------------------- steps

    def _step(self, i: int, step: Callable[[], Any]) -> None:
        try:
            step()
        except OSError as exc:
            self.abort()
            raise error(self.shown[i], exc) from None
        except BaseException:
            self.abort()
            raise

    def begin(self) -> None:
        """Recover leftovers, check the targets, write the journals, create the temporaries, probe renames."""
        for folder in self.folders:
            recover(folder)
        for i, t in enumerate(self.targets):
            try:
                self._check(i, t)
            except OSError as exc:
                raise error(self.shown[i], exc) from None
        self.started = True
        _OPEN.add(self.id)
        for journal in self.journals:
            first = next(i for i, t in enumerate(self.targets) if t.path.parent == journal.parent)
            self._step(first, lambda journal=journal: self._journal("prepare", journal))  # type: ignore[misc]
        self._step(0, lambda: fault("journal"))
        for i, t in enumerate(self.targets):
            self._step(i, lambda t=t, i=i: _create(self.new(i), t.kind))  # type: ignore[misc]
        if self.scratch is not None:
            self._step(0, lambda: self.scratch.mkdir())  # type: ignore[union-attr]
        self._step(0, lambda: fault("temps"))
        for i, t in enumerate(self.targets):
            if os.path.lexists(t.path):
                self._step(i, lambda i=i: self._probe(i))  # type: ignore[misc]

    def _probe(self, i: int) -> None:
        target, old = self.items[i]["target"], self.items[i]["old"]
        os.rename(target, old)
        try:
            fault(f"probe:{i}")
        finally:
            os.rename(old, target)

    def _check(self, i: int, t: Target) -> None:
        shown = self.shown[i]
        if not t.path.parent.is_dir():
            raise InputError(shown.flag, str(shown.path), shown.allowed, f"no folder {str(t.path.parent)!r}")
        if t.kind == "file" and t.path.is_dir():
            raise InputError(shown.flag, str(shown.path), shown.allowed, "it is a folder")
        if t.kind == "dir" and os.path.lexists(t.path) and not t.path.is_dir():
            raise InputError(shown.flag, str(shown.path), shown.allowed, "it is a file")
        if t.guard is not None and t.path.exists():
            t.guard(t.path)

    def _journal(self, state: str, journal: Path | None = None) -> None:
        data = {
            "kind": KIND, "version": 1, "id": self.id, "pid": os.getpid(), "host": socket.gethostname(),
            "state": state, "journals": [str(j) for j in self.journals], "items": self.items,
            "scratch": None if self.scratch is None else str(self.scratch),
        }  # fmt: skip
        _write_json(journal or self.journals[0], data)

    def commit(self) -> None:
        """Check the targets again, then the commit point, the renames and the cleanup."""
        for i, t in enumerate(self.targets):
            self._step(i, lambda t=t, i=i: self._check(i, t))  # type: ignore[misc]
        for i, t in enumerate(self.targets):
            self._step(i, lambda t=t, i=i: _sync(self.new(i), t.kind))  # type: ignore[misc]
        placed: list[int] = []
        i = 0
        try:
            self._journal("commit")  # the commit point
            self.committed = True
            fault("commit")
            for i, item in enumerate(self.items):
                if os.path.lexists(item["target"]):
                    os.rename(item["target"], item["old"])
                fault(f"aside:{i}")
                os.rename(item["new"], item["target"])
                placed.append(i)
                fault(f"place:{i}")
        except OSError as exc:
            if self.committed:
                self._undo(placed)
            else:
                self.abort()
            raise error(self.shown[i], exc) from None
        except BaseException:
            self._settle()
            raise
        self._settle()

    def _settle(self) -> None:
        """Finish (committed) or undo (not) as the journal on the disk says, through a Ctrl-C too (raised
        afterwards); an OSError leaves the rest to the next run (the targets are whole either way)."""
        interrupted = False
        while os.path.lexists(self.journals[0]):
            try:
                _recover(self.journals[0], self.journals)
            except KeyboardInterrupt:
                interrupted = True
            except (OSError, ValueError):
                break
        self.started = False
        _OPEN.discard(self.id)
        if interrupted:
            raise KeyboardInterrupt

    def _undo(self, placed: list[int]) -> None:
        """A rename failed after the commit point (in this process): put every target back as it was."""
        with contextlib.suppress(OSError):
            self._journal("prepare")
        for i in reversed(placed):
            item = self.items[i]
            with contextlib.suppress(OSError):
                os.rename(item["target"], item["new"])
        self.committed = False
        self.abort()

    def abort(self) -> None:
        """Before the commit point: remove the temporaries and the journals; the targets stay as they were."""
        while self.started:
            try:
                _rollback(self.items, self.scratch, self.journals)
                self.started = False
            except KeyboardInterrupt:  # a second Ctrl-C: the first is on its way already
                continue
            except OSError:  # what is left is found by the next run
                self.started = False
        _OPEN.discard(self.id)


def _sibling(t: Target, tx: str, what: str) -> Path:
    suffix = t.path.suffix if t.kind == "file" else ""
    return t.path.with_name(f".{t.path.name}.mh-{tx}-{what}{suffix}")


def _create(path: Path, kind: str) -> None:
    if kind == "dir":
        os.mkdir(path, 0o777)
    else:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))


def _sync(path: Path, kind: str) -> None:
    """Flush a temporary to the disk before the commit point (a power loss keeps whole files)."""
    files = [p for p in path.rglob("*") if p.is_file()] if kind == "dir" else [path]
    for p in files:
        _fsync(p)
    for p in [path, path.parent] if kind == "dir" else [path.parent]:
        with contextlib.suppress(OSError):  # a folder cannot be opened for fsync on every system
            _fsync(p)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        try:
            os.write(fd, (json.dumps(data, indent=1) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _remove(path: str | Path | None) -> None:
    if path is None or not os.path.lexists(path):
        return
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _remove_journals(journals: list[Any]) -> None:
    for journal in [*journals[1:], *journals[:1]]:  # the first (it holds the state) last
        with contextlib.suppress(FileNotFoundError):
            os.unlink(journal)


def _rollback(items: list[dict[str, str]], scratch: Any, journals: list[Any]) -> None:
    """Not committed: every target back (one set aside by a probe), every temporary removed."""
    for i, item in enumerate(items):
        if os.path.lexists(item["old"]) and not os.path.lexists(item["target"]):
            os.rename(item["old"], item["target"])
        _remove(item["new"])
        fault(f"recover:{i}")
    _remove(scratch)
    _remove_journals(journals)


def _finish(items: list[dict[str, str]], scratch: Any, journals: list[Any]) -> None:
    """Committed: every new version into place, then the old versions and the journals removed."""
    for i, item in enumerate(items):
        if os.path.lexists(item["new"]):
            if os.path.lexists(item["target"]):
                if os.path.lexists(item["old"]):
                    continue  # not a state this module leaves: keep all three for a person to look at
                os.rename(item["target"], item["old"])
            os.rename(item["new"], item["target"])
        fault(f"recover:{i}")
    for item in items:
        if not os.path.lexists(item["new"]):
            _remove(item["old"])
    fault("cleanup")
    _remove(scratch)
    _remove_journals(journals)


def _alive(pid: int, host: str) -> bool:
    if host != socket.gethostname():
        return True  # another machine's run (a shared folder): never touched
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _recover(journal: Path, journals: list[Path] | None = None) -> None:
    """Finish (committed) or undo (not committed) the transaction of ``journal``."""
    data = json.loads(Path(journal).read_text())
    copies = [Path(j) for j in data["journals"]] if journals is None else journals
    try:
        state = json.loads(copies[0].read_text()).get("state")
    except (OSError, ValueError):
        state = "prepare"
    if state == "commit":
        _finish(data["items"], data.get("scratch"), copies)
    else:
        _rollback(data["items"], data.get("scratch"), copies)


def recover(folder: Path) -> list[str]:
    """Recover the transactions left in ``folder`` by runs no longer running; their ids.

    A journal that cannot be read or is not this module's is left alone.
    """
    done: list[str] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return done
    for name in names:
        if not name.startswith(JOURNAL_PREFIX):
            continue
        path = Path(folder) / name
        if name.endswith(".json.tmp"):  # a journal killed while written: its run made nothing else yet
            pid = name[len(JOURNAL_PREFIX) :].split("-")[0]
            if pid.isdigit() and not _alive(int(pid), socket.gethostname()):
                with contextlib.suppress(OSError):
                    path.unlink()
            continue
        try:
            data = json.loads(path.read_text())
            if data.get("kind") != KIND or data.get("id") in _OPEN or _alive(int(data["pid"]), str(data["host"])):
                continue
            _recover(path)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        done.append(str(data["id"]))
    return done


__all__ = ["Outputs", "Target", "WriteError", "error", "fault", "recover", "steps"]
