"""The file formats documented in ``docs/`` (issue 28 point 6): each page's commented example loads with the real
reader and passes the real command, and every field a reader accepts is named on its page.

The accepted field names are read from the readers' own schemas (pydantic models, the Grimdark effect
dataclass), so a field added later without a word in ``docs/`` fails here.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from mathhammer.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
runner = CliRunner()


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def examples(name: str) -> list[str]:
    """The ```toml blocks of a page, in order."""
    return re.findall(r"^```toml\n(.*?)^```$", page(name), flags=re.S | re.M)


def schema_fields(model: type[BaseModel], skip: tuple[type[BaseModel], ...] = ()) -> set[str]:
    """Every key a pydantic file schema accepts, nested models included (aliases as written in the file)."""
    names: set[str] = set()
    seen: set[type] = set()

    def walk(m: type[BaseModel]) -> None:
        if m in seen or m in skip:
            return
        seen.add(m)
        for field_name, info in m.model_fields.items():
            names.add(info.alias or field_name)
            visit(info.annotation)

    def visit(annotation: object) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            walk(annotation)
        for arg in typing.get_args(annotation):
            visit(arg)
        if isinstance(annotation, types.UnionType):
            for arg in annotation.__args__:
                visit(arg)

    walk(model)
    return names


def named_on(text: str, field: str) -> bool:
    """A field is named on a page as `field` in the prose, as ``field =`` in an example (commented or not) or as a
    table header (``[battlefield]``, ``[[units]]``, ``[units."Marine".weapons]``)."""
    if f"`{field}`" in text or re.search(rf"(^|[\s{{,#.`]){re.escape(field)} =", text, flags=re.M):
        return True
    return re.search(rf"^\[\[?([^\]\n]*\.)?{re.escape(field)}[.\]]", text, flags=re.M) is not None


def unnamed(name: str, fields: set[str]) -> list[str]:
    text = page(name)
    return sorted(f for f in fields if not named_on(text, f))


def test_every_page_has_its_complete_example() -> None:
    """One complete example per format (the army page: a StarCraft list and a Grimdark Future list)."""
    counts = {n: len(examples(n)) for n in ("board.md", "scenario.md", "army.md", "profiles.md", "grimdark.md")}
    assert counts == {"board.md": 1, "scenario.md": 1, "army.md": 2, "profiles.md": 1, "grimdark.md": 1}


def test_named_on_reads_prose_and_examples() -> None:
    """The check itself can fail: a field absent from a text is reported."""
    assert named_on("the `width` of the table", "width")
    assert named_on("  # stands_on = 'x'", "stands_on")
    assert named_on("models = [{ id = 'a', x = 1 }]", "x") and named_on("red.movement = []", "movement")
    assert not named_on("widths and a max_x = 3", "x")
    assert named_on("[[units.Marine.weapons]]", "weapons") and named_on("[battlefield]", "battlefield")
    assert not named_on("nothing here", "hidden")
    assert not named_on("[battlefields]", "battlefield")


# -- board -------------------------------------------------------------------------------------------------------------


def test_board_example_loads_and_names_every_field(tmp_path: Path) -> None:
    from mathhammer.board.loader import BoardFile, load_board

    path = tmp_path / "board.toml"
    path.write_text(examples("board.md")[0], encoding="utf-8")
    board = load_board(path)
    assert board.terrain and board.units
    # the levels the page explains: HIGH GROUND on the ridge and on the tower stacked on it, a Flying model
    levels = {m.id: board.elevation(m) for m in board.models}
    assert levels["marine-a"] == levels["marine-b"] == "high" and levels["marine-c"] == "ground"
    assert board.effective_size(board.model("marine-b")) == 2 + 3 + 2  # its Size, the ridge's and the tower's
    assert board.effective_size(board.model("mutalisk-a")) == float("inf")
    assert unnamed("board.md", schema_fields(BoardFile)) == []


def test_board_example_answers_a_board_command(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text(examples("board.md")[0], encoding="utf-8")
    result = runner.invoke(app, ["board", "los", str(path), "--attacker", "marines", "--target", "zerglings"])
    assert result.exit_code == 0, result.output


# -- scenario ----------------------------------------------------------------------------------------------------------


def test_scenario_example_passes_scenario_check(tmp_path: Path) -> None:
    """The example names its armies relative to itself, as the files of profiles/scenarios/ do."""
    (tmp_path / "scenarios").mkdir()
    shutil.copytree(ROOT / "profiles" / "armies", tmp_path / "armies")
    path = tmp_path / "scenarios" / "example.toml"
    path.write_text(examples("scenario.md")[0], encoding="utf-8")
    result = runner.invoke(app, ["scenario", "check", str(path)])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output


def test_scenario_page_names_every_field() -> None:
    """Terrain tables are the board file's (checked on docs/board.md)."""
    from mathhammer.board.loader import TerrainSpec
    from mathhammer.scenario.spec import ScenarioFile

    assert unnamed("scenario.md", schema_fields(ScenarioFile, skip=(TerrainSpec,))) == []


def test_scenario_page_names_every_action_and_policy() -> None:
    from mathhammer.scenario.spec import ACTIONS, POLICIES

    text = page("scenario.md")
    actions = {a for phase in ACTIONS.values() for a in phase}
    values = {v for vs in POLICIES.values() for v in vs}
    assert sorted(a for a in actions | values if f"`{a}`" not in text and f'"{a}"' not in text) == []


# -- army lists --------------------------------------------------------------------------------------------------------


def test_starcraft_army_example_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "army.toml"
    path.write_text(examples("army.md")[0], encoding="utf-8")
    result = runner.invoke(app, ["army", "validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "valid" in result.output


def test_grimdark_army_example_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "army.toml"
    path.write_text(examples("army.md")[1], encoding="utf-8")
    result = runner.invoke(app, ["army", "validate", str(path), "--system", "gf"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok:")


def test_army_page_names_every_field() -> None:
    from mathhammer.grimdark.army import _ArmyFile as GFArmyFile
    from mathhammer.starcraft.army import _ArmyFile

    assert unnamed("army.md", schema_fields(_ArmyFile) | schema_fields(GFArmyFile)) == []


# -- profiles ----------------------------------------------------------------------------------------------------------


def test_starcraft_profile_example_validates(tmp_path: Path) -> None:
    (tmp_path / "cards.toml").write_text(examples("profiles.md")[0], encoding="utf-8")
    result = runner.invoke(app, ["profiles", "validate", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "1 units, 3 other cards" in result.output


def test_starcraft_profile_page_names_every_field_and_effect_kind() -> None:
    from mathhammer.starcraft.schema import EffectKind, ProfileFile

    kinds = set(typing.get_args(EffectKind))
    assert kinds
    assert unnamed("profiles.md", schema_fields(ProfileFile) | kinds) == []


def test_grimdark_profile_example_validates(tmp_path: Path) -> None:
    path = tmp_path / "units.toml"
    path.write_text(examples("grimdark.md")[0], encoding="utf-8")
    result = runner.invoke(app, ["profiles", "validate", str(path), "--system", "gf"])
    assert result.exit_code == 0, result.output
    from mathhammer.grimdark.profiles import load_units

    units = load_units([path])
    assert units["Robot Warriors"].effects and units["Field Commander"].hero


def test_grimdark_page_names_every_field() -> None:
    from mathhammer.grimdark.effects import KINDS, Effect
    from mathhammer.grimdark.profiles import UnitFile

    effect_keys = {"effect" if f.name == "kind" else f.name for f in dataclasses.fields(Effect)}
    assert unnamed("grimdark.md", schema_fields(UnitFile) | effect_keys | set(KINDS)) == []


# -- pointers ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("readme", "doc"),
    [
        ("profiles/README.md", "docs/profiles.md"),
        ("profiles/armies/README.md", "docs/army.md"),
        ("profiles/grimdark/README.md", "docs/grimdark.md"),
        ("profiles/scenarios/README.md", "docs/scenario.md"),
    ],
)
def test_each_format_readme_points_to_its_page(readme: str, doc: str) -> None:
    """The READMEs keep no copy of the format: each points to its docs/ page, which exists."""
    assert (ROOT / doc).is_file()
    assert doc.split("/")[-1] in (ROOT / readme).read_text(encoding="utf-8")


def _commands():
    """Every command of the CLI (click objects), with its path."""
    import typer.main

    from mathhammer.cli import app

    root = typer.main.get_command(app)
    todo = [("mathhammer", root)]
    while todo:
        path, cmd = todo.pop()
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            todo.append((f"{path} {name}", sub))


def test_help_points_to_the_format_pages() -> None:
    """Issue 28 point 6, "every --help points there": each --profiles option names docs/profiles.md, and the help of
    the commands reading a board, a scenario or an army list names its docs/ page."""
    profiles, pages = [], {}
    for path, cmd in _commands():
        for param in cmd.params:
            if "--profiles" in getattr(param, "opts", []):
                profiles.append((path, getattr(param, "help", "") or ""))
        pages[path] = " ".join([cmd.help or "", *(getattr(p, "help", "") or "" for p in cmd.params)])
    assert len(profiles) >= 7
    assert [path for path, text in profiles if "docs/profiles.md" not in text] == []
    assert "docs/board.md" in pages["mathhammer board"]
    assert "docs/scenario.md" in pages["mathhammer scenario"]
    assert "docs/army.md" in pages["mathhammer army validate"]
