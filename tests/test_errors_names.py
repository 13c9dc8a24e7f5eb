"""Issue 27 point 4: every error names the flag, argument or file field as the user wrote it.

Each case was a wrong or missing name before (the issue lists them); bad values that were accepted
silently are refused; a UTF-8 BOM is accepted wherever TOML is read; NaN, inf and huge numbers in
board and profile files are refused naming the file and field, with no library warning.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "tests" / "golden" / "board" / "facts_range.toml"
runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("args", "starts"),
    [
        (["attack", "--distance", "-1"], "error: --distance: got '-1'"),
        (["attack", "--range", "-1"], "error: --range: got '-1'"),
        (["attack", "Marine", "Zergling", "--distance", "9999"], "error: --distance: got '9999'"),
        (["attack", "--trials", "300000000000"], "error: --trials: got '300000000000'; allowed: Monte Carlo trials"),
        (["attack", "--system", "gf", "--rule", "AP(x)"], "error: --rule: got 'AP(x)'"),
        (["attack", "--system", "gf", "--rule", "AP(1)", "--rule", "Blast(x)"], "error: --rule: got 'Blast(x)'"),
        (["attack", "--system", "gf", "--target-rule", "Nope"], "error: --target-rule: got 'Nope'"),
        (["board", "los", str(BOARD), "--attacker", "nope", "--target", "zerglings"], "error: --attacker: got 'nope'"),
        (["board", "los", str(BOARD), "--attacker", "marines", "--target", "nope"], "error: --target: got 'nope'"),
        (["board", "los", str(BOARD), "--attacker", "marines", "--target", "zerglings", "--tag", "x"], "error: --tag:"),
        (["matchup", "Marnie", "Zergling"], "error: A: got 'Marnie'"),
        (["matchup", "Marine", "Zergrling"], "error: B: got 'Zergrling'"),
        (["matchup", "Marine:9", "Zergling:"], "error: B: got ''"),
        (["compare", "Marine", "--vs", "Zergling:"], "error: --vs: got ''"),
        (["matchup", "Long Gunners", "Frenzied Raiders:3", "--system", "gf"], "error: B: got 'Frenzied Raiders:3'"),
        (["scenario", "check", ""], "error: FILE: got ''"),
        (["attack", "Marine", "Zergling", "--profiles", ""], "error: --profiles: got ''"),
        (["profiles", "list", "--profiles", ""], "error: --profiles: got ''"),
        (["profiles", "list", "--system", "gf", "--profiles", " "], "error: --profiles: got ' '"),
        (["profiles", "validate", ""], "error: FOLDER: got ''"),
        (["profiles", "validate", "", "--system", "gf"], "error: FOLDER: got ''"),
        (["compare", "Marine", "--vs", "Zergling", "--profiles", ""], "error: --profiles: got ''"),
        (["board", "los", "", "--attacker", "a", "--target", "b"], "error: FILE: got ''"),
        (
            ["board", "show", str(BOARD), "--attacker", "nope", "--target", "zerglings", "--out", "x.png"],
            "error: --attacker",
        ),
        (
            ["board", "show", str(BOARD), "--attacker", "marines", "--target", "nope", "--out", "x.png"],
            "error: --target",
        ),
        (
            ["compare", "Long Gunners", "--vs", "Frenzied Raiders", "--system", "gf", "--rank-by", "kills"],
            "error: --rank-by",
        ),
        (
            ["compare", "Long Gunners", "--vs", "Frenzied Raiders", "--system", "gf", "--rank-by", "damage"],
            "error: --rank-by",
        ),
    ],
)
def test_error_names_the_flag_as_written(args: list[str], starts: str) -> None:
    code, err = _run(*args)
    assert code == 2
    assert err.startswith(starts), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_trials_limit_is_the_flag_s_own() -> None:
    """The limit in the message is the one --trials checks (the largest count accepted is the one stated)."""
    code, err = _run("attack", "--trials", "300000000000")
    limit = int(re.search(r"from 1 to (\d+)", err)[1])  # type: ignore[index]
    assert code == 2 and limit < 300000000000
    code, err = _run("attack", "--trials", str(limit + 1))
    assert code == 2 and f"from 1 to {limit}" in err


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["attack", "--trails", "5"], "error: --trails: no such option; allowed: the options of "),
        (["board", "los", "x.toml", "--attacker"], "error: --attacker: requires an argument"),
        (["board", "los"], "error: FILE: missing; required by "),
        (["board", "los", "x.toml", "--target", "b"], "error: --attacker: missing; required by "),
        (["attack", "--exact=3"], "error: --exact: does not take a value"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], line: str) -> None:
    code, err = _run(*args)
    assert code == 2
    assert err.startswith(line), err
    assert len(err.strip().splitlines()) == 1 and "Usage:" not in err


def test_unknown_option_keeps_the_suggestion() -> None:
    code, err = _run("attack", "--trails", "5")
    assert code == 2 and err.strip().endswith("(did you mean --trials?)"), err
    code, err = _run("compare", "Marine", "--vs", "Zergling", "--rank_by", "damage")
    assert code == 2 and "(did you mean --rank-by?)" in err, err


def test_grimdark_rank_by_in_its_own_words() -> None:
    args = ["compare", "Long Gunners", "--vs", "Frenzied Raiders", "--system", "gf", "--json"]
    for rank in ("wounds", "wounds-per-100", "kills-per-100", "p-destroy"):
        assert _run(*args, "--rank-by", rank)[0] == 0


BOM = b"\xef\xbb\xbf"


def _bom_copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(BOM + src.read_bytes())
    return dst


def test_a_utf8_bom_is_accepted_everywhere_toml_is_read(tmp_path: Path) -> None:
    board = _bom_copy(BOARD, tmp_path / "board.toml")
    assert _run("board", "los", str(board), "--attacker", "marines", "--target", "zerglings")[0] == 0
    sc = _bom_copy(ROOT / "profiles" / "starcraft" / "terran.toml", tmp_path / "sc" / "terran.toml")
    assert _run("profiles", "validate", str(sc.parent)) == (0, "")
    gf = _bom_copy(ROOT / "profiles" / "grimdark" / "samples.toml", tmp_path / "gf" / "samples.toml")
    assert _run("profiles", "validate", str(gf.parent), "--system", "gf")[0] == 0
    army = _bom_copy(ROOT / "profiles" / "armies" / "terran_six.toml", tmp_path / "terran_six.toml")
    assert _run("army", "validate", str(army))[0] == 0
    scn_src = ROOT / "profiles" / "scenarios" / "standard_clash.toml"
    scn = _bom_copy(scn_src, tmp_path / "scn" / "standard_clash.toml")
    for item in scn_src.parent.iterdir():  # the files the scenario names, next to it
        if item.name != scn.name and item.is_file():
            shutil.copy(item, scn.parent / item.name)
    code, err = _run("scenario", "check", str(scn))
    assert "not valid TOML" not in err and code in (0, 2), err


def _board_with(tmp_path: Path, old: str, new: str) -> Path:
    text = BOARD.read_text(encoding="utf-8")
    assert old in text
    out = tmp_path / "bad.toml"
    out.write_text(text.replace(old, new, 1), encoding="utf-8")
    return out


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300"])
def test_board_footprint_nan_inf_huge_named(tmp_path: Path, value: str) -> None:
    """A footprint corner of NaN raised shapely's GEOSException; 1e300 printed a RuntimeWarning (overflow)."""
    board = _board_with(tmp_path, "[[8, 22]", f"[[{value}, 22]")
    code, err = _run("board", "los", str(board), "--attacker", "marines", "--target", "zerglings")
    assert code == 2
    assert err.startswith("error: bad.toml: terrain[0].footprint: got "), err
    assert "finite numbers of inches" in err


@pytest.mark.parametrize(("old", "new", "field"), [
    ("x = 2, y = 5", "x = nan, y = 5", "units[0].models[0]"),
    ("width = 44", "width = inf", "battlefield.width"),
    ("size = 3", "size = nan", "terrain[0].size"),
    ("size = 3", "size = true", "terrain[0].size"),
    ("x = 2, y = 5", "x = true, y = 5", "units[0].models[0].x"),
])  # fmt: skip
def test_board_numbers_nan_inf_named(tmp_path: Path, old: str, new: str, field: str) -> None:
    board = _board_with(tmp_path, old, new)
    code, err = _run("board", "los", str(board), "--attacker", "marines", "--target", "zerglings")
    assert code == 2 and err.startswith(f"error: bad.toml: {field}"), err


def _profile_with(tmp_path: Path, src: Path, pattern: str, new: str) -> Path:
    text = src.read_text(encoding="utf-8")
    changed = re.sub(pattern, new, text, count=1)
    assert changed != text
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "t.toml").write_text(changed, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("system", "src", "pattern", "new", "line"),
    [
        ("sc", "starcraft/terran.toml", r"\bhit = 3\b", "hit = true", "units.Marine.weapons[0].hit: got True"),
        (
            "sc",
            "starcraft/terran.toml",
            r'(cost = \{ "\d+" = )\d+',
            r"\g<1>" + "1" + "0" * 30,
            "units.Marine.upgrades[0].cost",
        ),
        ("sc", "starcraft/terran.toml", r"\brange = 12\b", "range = 100000", "range"),
        (
            "sc",
            "starcraft/terran.toml",
            r"slots = \{ Core = 1 \}",
            "slots = { Core = " + "1" + "0" * 30 + " }",
            "slots",
        ),
        ("sc", "starcraft/terran.toml", r"models = \[1, 3\]", "models = [1, " + "1" + "0" * 30 + "]", "supply"),
        ("gf", "grimdark/samples.toml", r"(?m)^points = 110", "points = true", '"Robot Warriors".points: got True'),
        ("gf", "grimdark/samples.toml", r"(?m)^points = 110", "points = " + "1" + "0" * 30, '"Robot Warriors".points'),
        ("gf", "grimdark/samples.toml", r"(?m)^points = 110", "points = nan", '"Robot Warriors".points: got nan'),
        ("gf", "grimdark/samples.toml", r"range = 24", "range = inf", ".range: got inf"),
    ],
)
def test_profile_numbers_bounded_and_named(
    tmp_path: Path, system: str, src: str, pattern: str, new: str, line: str
) -> None:
    folder = _profile_with(tmp_path, ROOT / "profiles" / src, pattern, new)
    code, err = _run("profiles", "validate", str(folder), "--system", system)
    assert code == 2
    first = err.splitlines()[0]
    assert first.startswith("error: t.toml: ") and line in first, err
