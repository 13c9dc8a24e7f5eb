"""Outputs all together or not at all (issue 27 point 1): a transaction killed, interrupted or failed at each
of its steps (the ``MATHHAMMER_FAULT_AT`` hook of :mod:`mathhammer.outputs`) leaves the old outputs whole or
the new ones whole, and the next run removes every hidden leftover."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mathhammer.errors import InputError
from mathhammer.outputs import Outputs, Target, WriteError, recover, steps

ROOT = Path(__file__).resolve().parents[1]

#: One transaction over a folder (with two files) and a file in folder A, and a file in folder B: the new
#: contents say "new", the old ones "old". Run as a separate process, so that it can be killed.
SCRIPT = f"""
import sys
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from test_outputs_atomic import _write

_write(Path(sys.argv[1]), Path(sys.argv[2]))
"""
STEPS = steps(3)


def _old(a: Path, b: Path) -> None:
    (a / "r").mkdir()
    (a / "r" / "one.txt").write_text("old")
    (a / "x.csv").write_text("old")
    (b / "y.png").write_text("old")
    (a / "notes.txt").write_text("mine")  # a user's file next to the outputs: never touched
    (b / "notes.txt").write_text("mine")


def _state(a: Path, b: Path) -> str:
    """ "old" or "new" when every output is whole and of one kind; anything else is a failure."""
    r = a / "r"
    found = {
        "r": sorted(p.name + "=" + p.read_text() for p in r.iterdir()) if r.is_dir() else None,
        "x": (a / "x.csv").read_text() if (a / "x.csv").is_file() else None,
        "y": (b / "y.png").read_text() if (b / "y.png").is_file() else None,
    }
    if found == {"r": ["one.txt=old"], "x": "old", "y": "old"}:
        return "old"
    if found == {"r": ["one.txt=new", "two.txt=new"], "x": "new", "y": "new"}:
        return "new"
    return repr(found)


def _hidden(*folders: Path) -> list[str]:
    return sorted(p.name for f in folders for p in f.iterdir() if p.name.startswith("."))


def _run(a: Path, b: Path, env: dict[str, str] | None = None, code: str = SCRIPT) -> subprocess.CompletedProcess:
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", code, str(a), str(b)], env=environ, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _old(a, b)
    return a, b


@pytest.mark.parametrize("step", STEPS)
def test_sigkill_at_each_step_then_the_next_run_recovers(folders: tuple[Path, Path], step: str) -> None:
    """SIGKILL at a step: before the commit point the old outputs stay (after recovery), from it on the new
    ones are all in place (after recovery); the user's files are untouched; nothing hidden is left."""
    a, b = folders
    res = _run(a, b, {"MATHHAMMER_FAULT_AT": step})
    assert res.returncode == -signal.SIGKILL, (step, res.stderr)  # the step is reached
    assert (a / "notes.txt").read_text() == (b / "notes.txt").read_text() == "mine"
    assert _hidden(a, b), "a killed run leaves its journal"
    # the next run writing into either folder (here: B, which holds only a copy of the journal) recovers it
    assert len(recover(b if STEPS.index(step) % 2 else a)) == 1
    assert _hidden(a, b) == []
    assert _state(a, b) == ("old" if STEPS.index(step) < STEPS.index("commit") else "new"), step
    assert (a / "notes.txt").read_text() == (b / "notes.txt").read_text() == "mine"
    _write(a, b)  # and a clean run afterwards writes the new outputs
    assert _state(a, b) == "new" and _hidden(a, b) == []


@pytest.mark.parametrize("step", ["probe:0", "write:2", "commit", "aside:0", "place:1", "aside:2"])
def test_sigkill_during_the_recovery_too(folders: tuple[Path, Path], step: str) -> None:
    """A recovery killed in the middle is itself recovered by the run after."""
    a, b = folders
    assert _run(a, b, {"MATHHAMMER_FAULT_AT": step}).returncode == -signal.SIGKILL
    code = "import sys; from mathhammer.outputs import recover; recover(sys.argv[1])"
    assert _run(a, b, {"MATHHAMMER_FAULT_AT": "recover:1"}, code).returncode == -signal.SIGKILL
    recover(a)
    assert _hidden(a, b) == []
    assert _state(a, b) == ("old" if STEPS.index(step) < STEPS.index("commit") else "new"), step


def _write(a: Path, b: Path) -> None:
    targets = [Target(a / "r", "--out", "dir"), Target(a / "x.csv", "--csv"), Target(b / "y.png", "--plot")]
    with Outputs(targets) as tx:
        for i in range(3):
            with tx.writing(i) as tmp:
                if i == 0:
                    (tmp / "one.txt").write_text("new")
                    (tmp / "two.txt").write_text("new")
                else:
                    tmp.write_text("new")


@pytest.mark.parametrize("step", STEPS)
def test_ctrl_c_at_each_step(folders: tuple[Path, Path], step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (KeyboardInterrupt) at a step: nothing hidden is left at once; before the commit point the old
    outputs stay, from it on the renames are finished."""
    a, b = folders
    monkeypatch.setenv("MATHHAMMER_FAULT_AT", step)
    monkeypatch.setenv("MATHHAMMER_FAULT", "interrupt")
    with pytest.raises(KeyboardInterrupt):
        _write(a, b)
    assert _hidden(a, b) == []
    assert _state(a, b) == ("old" if STEPS.index(step) < STEPS.index("commit") else "new"), step


@pytest.mark.parametrize("step", [s for s in STEPS if s != "cleanup"])
def test_disk_full_at_each_step(folders: tuple[Path, Path], step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk full at a step: a WriteError (exit status 1) naming the flag and the path, the old outputs
    whole (a rename failing after the commit point is undone), nothing hidden left."""
    a, b = folders
    monkeypatch.setenv("MATHHAMMER_FAULT_AT", step)
    monkeypatch.setenv("MATHHAMMER_FAULT", "enospc")
    with pytest.raises(WriteError) as caught:
        _write(a, b)
    assert caught.value.exit_status == 1
    assert str(caught.value).startswith(("--out: got '", "--csv: got '", "--plot: got '"))
    assert "No space left on device; nothing was written" in str(caught.value)
    assert _hidden(a, b) == [] and _state(a, b) == "old", step


def test_permission_denied_is_a_path_problem(folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = folders
    monkeypatch.setenv("MATHHAMMER_FAULT_AT", "probe:2")
    monkeypatch.setenv("MATHHAMMER_FAULT", "eacces")
    with pytest.raises(InputError) as caught:
        _write(a, b)
    assert not isinstance(caught.value, WriteError)
    assert str(caught.value) == (
        f"--plot: got '{b / 'y.png'}'; allowed: a file in an existing folder you can write to (Permission denied)"
    )
    assert _hidden(a, b) == [] and _state(a, b) == "old"


def test_a_file_target_that_is_a_folder_is_refused_and_kept(tmp_path: Path) -> None:
    (tmp_path / "d.csv").mkdir()
    (tmp_path / "d.csv" / "keep.txt").write_text("mine")
    with pytest.raises(InputError, match="it is a folder"), Outputs([Target(tmp_path / "d.csv", "--csv")]):
        pass
    assert (tmp_path / "d.csv" / "keep.txt").read_text() == "mine" and _hidden(tmp_path) == []


def test_two_open_transactions_in_one_folder_both_commit(tmp_path: Path) -> None:
    """One process may hold two transactions in one folder (``game --plot DIR --trace-dir DIR``): the second's
    recovery of leftovers leaves the first's journal and temporaries alone (this process's own journal is a leftover
    only once its transaction is closed)."""
    with Outputs([Target(tmp_path / "a.txt", "--plot")]) as first:
        first.new(0).write_text("A")
        with Outputs([Target(tmp_path / "d", "--trace-dir", "dir")]) as second:
            (second.new(0) / "b.txt").write_text("B")
    assert (tmp_path / "a.txt").read_text() == "A" and (tmp_path / "d" / "b.txt").read_text() == "B"
    assert _hidden(tmp_path) == []


def test_ordinary_permissions(tmp_path: Path) -> None:
    """The umask's permissions (0644 and 0755 under umask 022), not mkstemp's 0600."""
    old = os.umask(0o022)
    try:
        with Outputs([Target(tmp_path / "f.csv", "--csv"), Target(tmp_path / "d", "--out", "dir")]) as tx:
            with tx.writing(0) as tmp:
                tmp.write_text("x")
            with tx.writing(1) as tmp:
                (tmp / "g").write_text("y")
    finally:
        os.umask(old)
    assert (tmp_path / "f.csv").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o755


def test_a_running_transaction_is_not_recovered(tmp_path: Path) -> None:
    """A journal of a process still running (here: this one) is another run's, left alone."""
    tx = Outputs([Target(tmp_path / "f.csv", "--csv")])
    tx.begin()
    try:
        journal = next(p for p in tmp_path.iterdir() if p.name.startswith(".mathhammer-journal-"))
        text = journal.read_text().replace(f'"pid": {os.getpid()}', f'"pid": {os.getppid()}')
        journal.write_text(text)
        assert recover(tmp_path) == [] and len(_hidden(tmp_path)) == 2
    finally:
        tx.abort()
    assert _hidden(tmp_path) == []


def test_a_real_full_disk(tmp_path: Path) -> None:
    """A 32 KiB tmpfs (needs root and mount; skipped otherwise): WriteError, nothing left, the old file kept."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", str(disk)]).returncode:
        pytest.skip("needs a tmpfs mount")
    try:
        (disk / "f.csv").write_text("old")
        tx = Outputs([Target(disk / "f.csv", "--csv")])
        with pytest.raises(WriteError, match=r"^--csv: .*No space left on device"), tx, tx.writing(0) as tmp:
            tmp.write_bytes(b"x" * 200_000)
        assert sorted(p.name for p in disk.iterdir()) == ["f.csv"] and (disk / "f.csv").read_text() == "old"
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_errno_kinds() -> None:
    from mathhammer.outputs import error

    t = Target(Path("x.csv"), "--csv")
    assert isinstance(error(t, OSError(errno.EDQUOT, "Disk quota exceeded")), WriteError)
    assert not isinstance(error(t, OSError(errno.EROFS, "Read-only file system")), WriteError)
