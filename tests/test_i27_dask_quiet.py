"""A report cell that refuses itself on a Dask worker prints only the command's one line (issue 27 point 2: "No
traceback, ever, from user input": distributed's worker logged "Compute Failed" with a traceback for each such
task before the command's ``error:`` line). The refusal comes back as the task's result
(:class:`mathhammer.report.runner.Refused`) and is raised on the client; a bug in a cell still raises (and its
worker logs it with its traceback)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from mathhammer.engine import budget
from mathhammer.engine.budget import BudgetError
from mathhammer.errors import InputError
from mathhammer.profiles.loader import ProfileError
from mathhammer.report import runner


@pytest.mark.parametrize(
    "exc",
    [
        BudgetError("--trials", 10**12, "at most about 5,000,000 here", "needs ~12 days here"),
        InputError("--range", "-1", "a distance in inches, 0 or more"),
        ProfileError(["a.toml: units.X.models: got 0; allowed: 1 to 999", "b.toml: source: missing; required"]),
    ],
)
def test_a_refusal_crosses_to_the_client_as_it_was_raised(exc: Exception) -> None:
    back = pickle.loads(pickle.dumps(runner.Refused(exc))).error()  # as a worker's result travels
    assert type(back) is type(exc) and str(back) == str(exc) and back.__dict__ == exc.__dict__


def test_a_cell_refusing_is_a_result_and_a_bug_still_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(cell: object, opts: object) -> dict[str, object]:
        raise BudgetError("--exact", "this attack", "an exact run within the budget")

    monkeypatch.setattr(runner, "compute", refuse)
    result = runner.compute_chunk([SimpleNamespace(key="k")], None)  # type: ignore[list-item, arg-type]
    assert isinstance(result, runner.Refused) and result.error().field == "--exact"

    def crash(cell: object, opts: object) -> dict[str, object]:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(runner, "compute", crash)
    with pytest.raises(ZeroDivisionError):
        runner.compute_chunk([SimpleNamespace(key="k")], None)  # type: ignore[list-item, arg-type]


#: ``mathhammer report ...`` with the exact sweep's price left out (as for a system that does not price its exact
#: runs), so that the cells themselves refuse, on the workers.
UNPRICED = (
    "import sys; from mathhammer.report import runner; runner.exact_seconds = lambda todo: None; "
    "from mathhammer.cli import app; sys.argv[0] = 'mathhammer'; app()"
)


def test_report_on_a_local_cluster_prints_one_line_when_a_cell_refuses(tmp_path: Path) -> None:
    """Every exact cell past a budget of a nanosecond: refused on the workers; exit 2, one ``error:`` line
    naming --exact, nothing else on stderr (was 3 "Compute Failed" logs with tracebacks, 22 lines), no report."""
    out = tmp_path / "rep"
    cmd = [sys.executable, "-c", UNPRICED, "report", "--roster", "--system", "gf", "--scheduler", "local"]
    cmd += ["--out", str(out)]
    env = {**os.environ, budget.BUDGET_ENV: "0.000000001"}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False, env=env, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --exact: got 'this attack'"), proc.stderr
    assert proc.stdout == "" and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no hidden temporary folder either


def test_a_local_cluster_works_in_its_users_own_scratch_folder() -> None:
    """Issue 27 point 2 (one line on stderr, whoever runs it): the workers' scratch folder is the OS user's own,
    private where it is made, not Dask's ``<tmp>/dask-scratch-space`` that every user of the machine shares (found
    running the quick start as a second user after root's: the lock files root's workers left there made each of the
    second user's workers log permission errors, 52 lines on stderr instead of 1)."""
    own = runner.scratch_folder()
    assert Path(own).parent == Path(tempfile.gettempdir()) and Path(own).name != "dask-scratch-space"
    assert os.name != "posix" or os.stat(own).st_mode & 0o077 == 0
    with runner.local_cluster(1, processes=False) as cluster:
        dirs = [cluster.scheduler.local_directory, *(w.local_directory for w in cluster.workers.values())]
    assert len(dirs) == 2 and all(Path(d).is_relative_to(Path(own) / "dask-scratch-space") for d in dirs), dirs
