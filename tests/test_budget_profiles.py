"""Profile folders are bounded before they are read (issue 27 point 3): ``--profiles /`` is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.engine import budget
from mathhammer.profiles.loader import ProfileError, toml_files


def test_files_are_found_as_before(tmp_path):
    for rel in ("a.toml", "b/c.toml", "b/d/e.toml", "armies/x.toml", "b/notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    expected = sorted(p for p in tmp_path.rglob("*.toml") if "armies" not in p.parts)
    assert toml_files(tmp_path, "missing", skip=("armies",)) == expected
    assert len(expected) == 3


def test_too_many_files_are_refused_on_the_command_line(tmp_path):
    for i in range(budget.PROFILE_FILES_MAX + 1):
        (tmp_path / f"p{i:04}.toml").write_text("")
    r = CliRunner().invoke(app, ["attack", "Marine", "Zergling", "--profiles", str(tmp_path)])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: {tmp_path}: got more than {budget.PROFILE_FILES_MAX} .toml files; allowed:")
    assert "--profiles" in lines[0]


def test_deep_folders_are_refused(tmp_path):
    deep = tmp_path.joinpath(*["d"] * (budget.PROFILE_DEPTH_MAX + 1))
    deep.mkdir(parents=True)
    with pytest.raises(ProfileError, match="more than 6 levels deep"):
        toml_files(tmp_path, "missing")
    ok = tmp_path / "ok"
    ok.joinpath(*["d"] * budget.PROFILE_DEPTH_MAX).mkdir(parents=True)
    assert toml_files(ok, "missing") == []


def test_many_folders_are_refused_before_they_are_all_walked(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "PROFILE_DIRS_MAX", 10)
    for i in range(30):
        (tmp_path / f"f{i}").mkdir()
    with pytest.raises(ProfileError, match="got more than 10 folders"):
        toml_files(tmp_path, "missing")


def test_the_root_folder_is_refused_quickly():
    with pytest.raises(ProfileError, match="allowed: a profile folder of at most"):
        toml_files(Path("/"), "missing")
