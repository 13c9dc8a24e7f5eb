"""The commands that write files, under bad paths and faults (issue 27 points 1 and 2): a report replaces
only a folder it wrote itself and nothing else; a folder where a file is wanted, a folder that cannot be
replaced, a full disk: one line naming the flag, exit 2 (1 for the disk), nothing partial left; a killed
``compare --csv --plot`` is recovered by the next command writing there; ordinary file permissions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.report import output
from mathhammer.report.output import MANIFEST, legacy_leftovers, strangers

ROOT = Path(__file__).resolve().parents[1]
TERRAN = ROOT / "profiles" / "armies" / "terran_skirmish.toml"
DAELAAM = ROOT / "profiles" / "armies" / "daelaam_vanguard.toml"
OPR = ROOT / "tests" / "fixtures" / "opr" / "army_forge_list_export.json"
BOARD = ROOT / "tests" / "golden" / "board" / "facts_range.toml"
runner = CliRunner()


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _fake_report(folder: Path, manifest: bool = True) -> None:
    """A folder as a report writes it (a few of its files, the settings marker and the manifest)."""
    folder.mkdir()
    (folder / "cells.csv").write_text("a,b\n1,2\n")
    (folder / "report.html").write_text("<html></html>")
    (folder / "settings.json").write_text(json.dumps({"kind": output.MARKER}))
    if manifest:
        files = {p.name: {"size": p.stat().st_size, "sha256": output._sha256(p)} for p in sorted(folder.iterdir())}
        (folder / MANIFEST).write_text(json.dumps({"kind": output.MARKER, "files": files}))


@pytest.fixture
def no_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal must come before the sweep: the sweep fails the test."""
    import mathhammer.report as report

    def sweep(*args: object, **kwargs: object) -> None:
        raise AssertionError("the sweep ran")

    monkeypatch.setattr(report, "sweep", sweep)


# ----------------------------------------------------------------------------- report: what it may replace


def test_an_earlier_report_and_nothing_else_may_be_replaced(tmp_path: Path) -> None:
    _fake_report(tmp_path / "r")
    assert strangers(tmp_path / "r") == []
    _fake_report(tmp_path / "old", manifest=False)  # from before the manifest: report files and the marker
    assert strangers(tmp_path / "old") == []


def test_what_a_report_did_not_write_is_named(tmp_path: Path) -> None:
    r = tmp_path / "r"
    _fake_report(r)
    (r / "my_notes.txt").write_text("mine")
    (r / "drafts").mkdir()
    (r / "report.html").write_text("<html>edited</html>")
    assert strangers(r) == ["drafts/", "my_notes.txt", "report.html (changed)"]
    old = tmp_path / "old"
    _fake_report(old, manifest=False)
    (old / "thesis.txt").write_text("mine")
    assert strangers(old) == ["thesis.txt"]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "cells.csv").write_text("no marker")
    assert strangers(tmp_path / "other") == ["cells.csv"]


def test_report_over_a_report_with_the_users_files_is_refused(tmp_path: Path, no_sweep: None) -> None:
    """The issue's data loss: R/my_notes.txt and R/drafts/ next to an earlier report were deleted (exit 0)."""
    r = tmp_path / "R"
    _fake_report(r)
    (r / "my_notes.txt").write_text("mine")
    (r / "drafts").mkdir()
    (r / "drafts" / "d.txt").write_text("draft")
    before = sorted(str(p.relative_to(r)) for p in r.rglob("*"))
    res = runner.invoke(app, ["report", str(TERRAN), str(DAELAAM), "--out", str(r)])
    assert res.exit_code == 2, res.output
    assert res.stderr == (
        f"error: --out: got '{r}'; allowed: {output.ALLOWED_OUT} (it holds other files (drafts/, my_notes.txt); "
        "it is not replaced: choose another --out, or move them out of it)\n"
    )
    assert sorted(str(p.relative_to(r)) for p in r.rglob("*")) == before and _hidden(tmp_path) == []


def test_a_folder_that_cannot_be_renamed_is_refused_before_the_sweep(
    tmp_path: Path, no_sweep: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = tmp_path / "R"
    _fake_report(r)
    real = os.rename

    def rename(src: object, dst: object) -> None:
        if str(src) == str(r):
            raise PermissionError(1, "Operation not permitted")
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr("mathhammer.outputs.os.rename", rename)
    res = runner.invoke(app, ["report", str(TERRAN), str(DAELAAM), "--out", str(r)])
    assert res.exit_code == 2, res.output
    assert res.stderr == f"error: --out: got '{r}'; allowed: {output.ALLOWED_OUT} (Operation not permitted)\n"
    assert strangers(r) == [] and _hidden(tmp_path) == []


def test_a_mount_point_is_refused_before_the_sweep(tmp_path: Path, no_sweep: None) -> None:
    """A real folder that cannot be renamed (a mount point: EBUSY; needs root and mount, skipped otherwise)."""
    r = tmp_path / "R"
    r.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(r)]).returncode:
        pytest.skip("needs a tmpfs mount")
    try:
        res = runner.invoke(app, ["report", str(TERRAN), str(DAELAAM), "--out", str(r)])
        assert res.exit_code == 2, res.output
        assert res.stderr == f"error: --out: got '{r}'; allowed: {output.ALLOWED_OUT} (Device or resource busy)\n"
        assert list(r.iterdir()) == [] and _hidden(tmp_path) == []
    finally:
        subprocess.run(["umount", str(r)], check=True)


def test_leftovers_of_an_older_version_are_restored_or_removed(tmp_path: Path) -> None:
    """Killed between the two renames of the old code: no R, the old report at .R.old-*, the new at .R.tmp-*."""
    _fake_report(tmp_path / ".R.old-ab_12345", manifest=False)
    _fake_report(tmp_path / ".R.tmp-xy_98765", manifest=False)
    (tmp_path / ".R.tmp-keep0000").mkdir()  # a hidden folder of the same shape holding someone's file
    (tmp_path / ".R.tmp-keep0000" / "mine.txt").write_text("mine")
    legacy_leftovers(tmp_path / "R")
    assert strangers(tmp_path / "R") == [] and (tmp_path / "R" / "cells.csv").exists()
    assert _hidden(tmp_path) == [".R.tmp-keep0000"]


# ----------------------------------------------------------------------------- compare, scenario: paths and faults


@pytest.mark.parametrize("flag", ["--csv", "--plot"])
def test_compare_to_a_folder(tmp_path: Path, flag: str) -> None:
    folder = tmp_path / ("d.csv" if flag == "--csv" else "d.png")
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    res = runner.invoke(app, ["compare", "Marine", "--vs", "Zergling", flag, str(folder)])
    assert (res.exit_code == 2 and res.exception is None) or isinstance(res.exception, SystemExit)
    suffix = folder.suffix
    assert res.stderr == (
        f"error: {flag}: got '{folder}'; allowed: a {suffix} file in an existing folder you can write to "
        "(it is a folder)\n"
    )
    assert (folder / "keep.txt").read_text() == "mine" and _hidden(tmp_path) == []


def test_compare_disk_full_keeps_both_old_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    csv, png = tmp_path / "a.csv", tmp_path / "a.png"
    csv.write_text("old")
    png.write_text("old")
    monkeypatch.setenv("MATHHAMMER_FAULT_AT", "write:1")
    monkeypatch.setenv("MATHHAMMER_FAULT", "enospc")
    res = runner.invoke(app, ["compare", "Marine", "--vs", "Zergling", "--csv", str(csv), "--plot", str(png)])
    assert res.exit_code == 1, res.output
    assert res.stderr == (
        f"error: --plot: got '{png}'; allowed: a .png file in an existing folder you can write to "
        "(No space left on device; nothing was written)\n"
    )
    assert res.stdout == "" and csv.read_text() == png.read_text() == "old" and _hidden(tmp_path) == []


def test_compare_killed_between_its_renames_is_finished_by_the_next_command(tmp_path: Path) -> None:
    """SIGKILL of the real command after the CSV is in place and before the picture is: the next command
    writing into the folder (here import-opr --out) finishes the renames; both files are the new ones."""
    csv, png = tmp_path / "a.csv", tmp_path / "a.png"
    csv.write_text("old")
    png.write_text("old")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MATHHAMMER_FAULT_AT": "aside:1"}
    args = ["compare", "Marine", "--vs", "Zergling", "--csv", str(csv), "--plot", str(png)]
    proc = subprocess.run([sys.executable, "-m", "mathhammer", *args], env=env, capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert csv.read_text().startswith("unit,") and not png.exists()  # the moment the issue describes
    res = runner.invoke(app, ["import-opr", str(OPR), "--out", str(tmp_path / "army.toml")])
    assert res.exit_code == 0, res.output
    assert png.read_bytes().startswith(b"\x89PNG") and csv.read_text().startswith("unit,")
    assert _hidden(tmp_path) == []


@pytest.mark.parametrize("step", ["write:1", "place:0"])
def test_scenario_plots_are_replaced_together(tmp_path: Path, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the two pictures are written (before the commit point: both old) or while they are put in
    place (after it: both new); exit 130; the folder's other files untouched; nothing hidden left."""
    from mathhammer.scenario import builtin_scenarios

    plots = tmp_path / "plots"
    plots.mkdir()
    for name in ("vp.png", "markers.png", "mine.txt"):
        (plots / name).write_text("old")
    monkeypatch.setenv("MATHHAMMER_FAULT_AT", step)
    monkeypatch.setenv("MATHHAMMER_FAULT", "interrupt")
    args = ["scenario", "run", str(builtin_scenarios()[0]), "--trials", "20", "--workers", "1", "--plot", str(plots)]
    res = runner.invoke(app, args)
    assert res.exit_code == 130, res.output
    kinds = {(plots / n).read_bytes()[:4] for n in ("vp.png", "markers.png")}
    assert kinds == ({b"old"} if step == "write:1" else {b"\x89PNG"})
    assert (plots / "mine.txt").read_text() == "old" and _hidden(plots) == [] and _hidden(tmp_path) == []


# ----------------------------------------------------------------------------- permissions (issue 28)


def test_written_files_get_ordinary_permissions(tmp_path: Path) -> None:
    """compare --csv/--plot, board show --out and import-opr --out: 0644 under umask 022, not mkstemp's 0600."""
    old = os.umask(0o022)
    try:
        res = runner.invoke(app, ["compare", "Marine", "--vs", "Zergling", "--csv", str(tmp_path / "c.csv")])
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["compare", "Marine", "--vs", "Zergling", "--plot", str(tmp_path / "c.png")])
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["board", "show", str(BOARD), "--out", str(tmp_path / "b.png")])
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["import-opr", str(OPR), "--out", str(tmp_path / "army.toml")])
        assert res.exit_code == 0, res.output
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert modes == {"c.csv": 0o644, "c.png": 0o644, "b.png": 0o644, "army.toml": 0o644}
