"""The validated roster is cached, keyed by the contents of its files (issue 28 point 1).

A second load with the same files reads the roster back instead of validating it; a changed file is a
new key; a cache that cannot be read or written is skipped without a word.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.profiles import cache
from mathhammer.profiles.loader import ProfileError, builtin_dir
from mathhammer.starcraft import roster as roster_module
from mathhammer.starcraft.roster import load_roster


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache folder for the test."""
    out = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_VAR, str(out))
    monkeypatch.delenv("MATHHAMMER_PROFILES", raising=False)
    return out


def _no_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(roster_module, "_validated", refuse)


def _my_cards(tmp_path: Path) -> Path:
    """A user folder with a copy of the Terran cards (a Marine of 2 HP)."""
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(builtin_dir() / "starcraft" / "terran.toml", mine / "terran.toml")
    return mine


def test_a_second_load_reads_the_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_roster()
    assert len(list(folder.glob("sc-roster-*.pickle"))) == 1
    _no_validation(monkeypatch)
    again = load_roster()
    assert again == first
    assert again.unit("Marine").card == first.unit("Marine").card
    assert repr(again) == repr(first)


def test_a_changed_file_is_validated_again(folder: Path, tmp_path: Path) -> None:
    mine = _my_cards(tmp_path)
    assert load_roster([mine]).unit("Marine").card.hp == 2
    text = (mine / "terran.toml").read_text()
    marine = text.index("[units.Marine]")
    hp = text.index("hp = 2", marine)
    (mine / "terran.toml").write_text(text[:hp] + "hp = 3" + text[hp + len("hp = 2") :])
    assert load_roster([mine]).unit("Marine").card.hp == 3
    assert len(list(folder.glob("sc-roster-*.pickle"))) == 2


def test_a_broken_file_is_reported_every_time(folder: Path, tmp_path: Path) -> None:
    mine = _my_cards(tmp_path)
    (mine / "terran.toml").write_text((mine / "terran.toml").read_text().replace("hp = 2", "hp = 0", 1))
    for _ in range(2):
        with pytest.raises(ProfileError) as err:
            load_roster([mine])
        assert "hp" in str(err.value)
    assert not list(folder.glob("sc-roster-*.pickle"))


def test_a_corrupt_entry_is_a_miss(folder: Path) -> None:
    want = load_roster()
    for entry in folder.glob("sc-roster-*.pickle"):
        entry.write_bytes(b"not a pickle")
    assert load_roster() == want
    assert load_roster() == want  # written again, whole


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(cache.ENV_VAR, str(blocker / "cache"))  # a folder inside a file: mkdir fails
    assert load_roster().unit("Marine").card.hp == 2
    assert cache.store(cache.key("x", [], []), 1) is False


def test_the_cache_can_be_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV_VAR, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() is None
    assert cache.key("sc-roster", [], []) is None
    load_roster()
    assert not list(tmp_path.rglob("*.pickle"))


def test_the_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "mathhammer"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "mathhammer"
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "mine"))
    assert cache.cache_dir() == tmp_path / "mine"


def test_the_key_is_the_contents(tmp_path: Path) -> None:
    a = tmp_path / "a.toml"
    a.write_text("x = 1")
    code = ["mathhammer.starcraft.schema"]
    one = cache.key("k", [a], code, folder=tmp_path)
    assert one == cache.key("k", [a], code, folder=tmp_path)
    a.write_text("x = 2")
    assert cache.key("k", [a], code, folder=tmp_path) != one
    assert cache.key("k", [a], [*code, "mathhammer.dice"], folder=tmp_path) != cache.key(
        "k", [a], code, folder=tmp_path
    )
    assert cache.key("k", [tmp_path / "missing.toml"], code, folder=tmp_path) is None


def test_writes_are_whole_and_old_entries_pruned(tmp_path: Path) -> None:
    for i in range(cache.KEEP + 3):
        assert cache.store(f"kind-{i:040d}", list(range(i)), folder=tmp_path)
    entries = list(tmp_path.glob("kind-*.pickle"))
    assert len(entries) == cache.KEEP
    assert f"kind-{cache.KEEP + 2:040d}.pickle" in {p.name for p in entries}  # the newest is kept
    assert not list(tmp_path.glob(".tmp-*"))
    assert cache.load(f"kind-{cache.KEEP + 2:040d}", folder=tmp_path) == list(range(cache.KEEP + 2))


def test_profiles_list_is_the_same_from_the_cache(folder: Path) -> None:
    runner = CliRunner()
    fresh = runner.invoke(app, ["profiles", "show", "Marine", "--json"])
    cached = runner.invoke(app, ["profiles", "show", "Marine", "--json"])
    assert fresh.exit_code == cached.exit_code == 0
    assert cached.stdout == fresh.stdout
    assert list(folder.glob("sc-roster-*.pickle"))


def test_a_cards_plain_dump_is_pydantics() -> None:
    """``model_dump()`` without arguments reads the fields itself (no serializer to build): the same data."""
    from pydantic import BaseModel

    roster = load_roster()
    cards = [u.card for u in roster.units.values()]
    cards += [*roster.factions.values(), *roster.tactical.values(), *roster.creep.values()]
    assert len(cards) > 50
    for card in cards:
        assert card.model_dump() == BaseModel.model_dump(card)
    assert cards[0].model_dump(exclude={"source"}) == {
        k: v for k, v in BaseModel.model_dump(cards[0]).items() if k != "source"
    }
