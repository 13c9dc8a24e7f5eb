"""Plain cards (issue 28 point 1): the read-only commands read a cached roster of plain frozen cards, no pydantic.

The plain cards (:mod:`mathhammer.starcraft.cards`) must be the validated ones in every respect the code reads:
the same fields and values for every built-in card, the same Batches and targets for every loadout that
``compare`` enumerates, and the same output of every command that reads them. A validated army list is
cached by its bytes too, so that ``army validate`` needs no pydantic on a second call.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from mathhammer.cli import app
from mathhammer.profiles import cache
from mathhammer.profiles.loader import builtin_dir
from mathhammer.starcraft import army as army_module
from mathhammer.starcraft import cards
from mathhammer.starcraft import roster as roster_module
from mathhammer.starcraft.compare import upgrade_sets
from mathhammer.starcraft.loadout import PHASES, as_target, attack_batches, make_loadout
from mathhammer.starcraft.roster import Roster, load_roster
from mathhammer.starcraft.system import StarCraft

ROOT = Path(__file__).resolve().parents[1]
ARMY = ROOT / "profiles" / "armies" / "terran_six.toml"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    out = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_VAR, str(out))
    monkeypatch.delenv("MATHHAMMER_PROFILES", raising=False)
    return out


@pytest.fixture(scope="module")
def rosters() -> tuple[Roster, Roster]:
    """The built-in roster validated (pydantic) and as plain cards, made from it with the cache off."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(cache.ENV_VAR, "off")
        return load_roster(), load_roster(plain=True)


def _same(plain: Any, model: Any) -> None:
    """``plain`` is ``model`` field by field, nested cards and containers alike."""
    if isinstance(model, BaseModel):
        assert isinstance(plain, cards.PlainCard)
        assert type(plain).__name__ == type(model).__name__
        assert list(vars(plain)) == list(type(model).model_fields)
        for name in type(model).model_fields:
            _same(getattr(plain, name), getattr(model, name))
    elif isinstance(model, list | tuple):
        assert type(plain) is type(model) and len(plain) == len(model)
        for p, m in zip(plain, model, strict=True):
            _same(p, m)
    elif isinstance(model, dict):
        assert type(plain) is dict and list(plain) == list(model)
        for k in model:
            _same(plain[k], model[k])
    else:
        assert type(plain) is type(model) and plain == model


def test_every_builtin_card_is_the_same_plain(rosters: tuple[Roster, Roster]) -> None:
    checked, plain = rosters
    assert list(plain.units) == list(checked.units) and plain.files == checked.files
    for name, unit in checked.units.items():
        p = plain.units[name]
        assert (p.name, p.race, p.source) == (unit.name, unit.race, unit.source)
        _same(p.card, unit.card)
        assert p.card.model_dump() == BaseModel.model_dump(unit.card)
        assert repr(p) == repr(unit)
    for pool in ("factions", "tactical", "creep"):
        assert list(getattr(plain, pool)) == list(getattr(checked, pool))
        for name, card in getattr(checked, pool).items():
            _same(getattr(plain, pool)[name], card)
            assert getattr(plain, pool)[name].model_dump() == BaseModel.model_dump(card)
    assert repr(plain) == repr(checked)
    assert sum(1 for _ in checked.units) > 20


def test_every_loadout_of_compare_gives_the_same_batches_and_targets(rosters: tuple[Roster, Roster]) -> None:
    checked, plain = rosters
    targets = [name for name in checked.units if checked.units[name].card.compositions][::5]
    count = 0
    for name, unit in checked.units.items():
        for comp in unit.card.compositions:
            for ups in upgrade_sets(unit):
                try:
                    lo = make_loadout(unit, comp.models, ups)
                except Exception as exc:  # a combination the card refuses is refused alike
                    with pytest.raises(type(exc)):
                        make_loadout(plain.units[name], comp.models, ups)
                    continue
                plo = make_loadout(plain.units[name], comp.models, ups)
                assert (plo.minerals, plo.label, plo.describe()) == (lo.minerals, lo.label, lo.describe())
                for phase in PHASES:
                    assert as_target(plo, phase) == as_target(lo, phase)
                    for t in targets:
                        for distance in (None, 3.0):
                            got = attack_batches(plo, plain.units[t], phase, distance)
                            assert got == attack_batches(lo, checked.units[t], phase, distance)
                            count += 1
    assert count > 1000


@pytest.mark.parametrize(
    "args",
    [
        ["attack", "Marine", "Zergling", "--json"],
        ["attack", "Marauder", "Roach", "--upgrade", "Concussive Shells", "--use", "Stimpack"],
        ["compare", "Marine", "--vs", "Zergling", "--comp", "6", "--upgrades", "AGG-12", "--json"],
        ["compare", "Zealot", "--vs", "Marine", "--vs", "Roach"],
        ["matchup", "Marine", "Zergling"],
        ["matchup", "Zealot", "Hydralisk", "--json"],
        ["profiles", "list"],
        ["profiles", "show", "Raynor", "--json"],
        ["army", "validate", str(ARMY), "--json"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_a_command_prints_the_same_from_plain_and_validated_cards(
    args: list[str], folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    plain = runner.invoke(app, args)
    checked_load = roster_module.load_roster

    def validated(extra: Any = (), builtin: bool = True, plain: bool = False) -> Roster:
        return checked_load(extra, builtin)

    monkeypatch.setattr(roster_module, "load_roster", validated)
    monkeypatch.setattr(StarCraft, "load_roster", lambda self, profiles=(): validated(list(profiles)))
    checked = runner.invoke(app, args)
    assert plain.exit_code == checked.exit_code
    assert plain.exit_code in (0, 2), plain.output
    assert plain.stdout == checked.stdout


def test_the_plain_roster_is_cached_and_read_without_pydantic(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_roster(plain=True)
    assert isinstance(first.unit("Marine").card, cards.UnitCard)
    assert len(list(folder.glob("sc-plain-roster-*.pickle"))) == 1
    assert len(list(folder.glob("sc-roster-*.pickle"))) == 1  # the validated one, for the other commands

    def refuse(*args: object) -> None:
        raise AssertionError("converted again")

    monkeypatch.setattr(roster_module, "as_plain", refuse)
    monkeypatch.setattr(roster_module, "_validated", refuse)
    again = load_roster(plain=True)
    assert again.unit("Marine").card == first.unit("Marine").card
    assert isinstance(load_roster().unit("Marine").card, BaseModel)  # the default stays pydantic


def test_a_changed_file_is_read_again_as_plain_cards(folder: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(builtin_dir() / "starcraft" / "terran.toml", mine / "terran.toml")
    assert load_roster([mine], plain=True).unit("Marine").card.hp == 2
    text = (mine / "terran.toml").read_text()
    at = text.index("hp = 2", text.index("[units.Marine]"))
    (mine / "terran.toml").write_text(text[:at] + "hp = 3" + text[at + 6 :])
    assert load_roster([mine], plain=True).unit("Marine").card.hp == 3


def test_a_plain_card_is_frozen_and_copies_like_pydantic(rosters: tuple[Roster, Roster]) -> None:
    checked, plain = rosters
    card, model = plain.unit("Marine").card, checked.unit("Marine").card
    with pytest.raises(AttributeError):
        card.hp = 3
    with pytest.raises(AttributeError):
        del card.hp
    assert card.model_copy(update={"hp": 3}).model_dump() == model.model_copy(update={"hp": 3}).model_dump()
    assert card.model_copy(update={"hp": 3}) != card and card.model_copy() == card
    assert card.model_copy(deep=True) == card
    assert card.model_dump(exclude={"weapons"}) == model.model_dump(exclude={"weapons"})
    assert card.model_dump(include={"hp", "armour"}) == model.model_dump(include={"hp", "armour"})
    assert card != model  # a plain card equals plain cards only, as a pydantic model equals its own class
    weapon = card.weapons[0]
    assert weapon == cards.plain(model.weapons[0])
    for unhashable in (weapon, model.weapons[0]):  # lists inside: neither hashes
        with pytest.raises(TypeError):
            hash(unhashable)
    assert hash(cards.Source(document="d", version="v")) == hash(cards.Source(document="d", version="v"))


def test_a_validated_army_list_is_cached_by_its_bytes(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "army.toml"
    shutil.copy(ARMY, mine)
    first = army_module.load_army(mine)
    assert len(list(folder.glob("sc-army-*.pickle"))) == 1

    from mathhammer.starcraft import army_file

    def refuse(*args: object) -> None:
        raise AssertionError("validated again")

    with monkeypatch.context() as mp:
        mp.setattr(army_file, "parse", refuse)
        assert army_module.load_army(mine) == first
        mine.write_text(mine.read_text().replace("[[units]]", "[[units]]\nbogus = 1", 1))
        with pytest.raises(AssertionError, match="validated again"):
            army_module.load_army(mine)
    for _ in range(2):  # a bad list is never cached: reported every time
        with pytest.raises(army_module.ArmyError, match="bogus"):
            army_module.load_army(mine)
    assert dataclasses.replace(first, file="x").file == "x"


def test_the_army_file_models_are_still_reachable() -> None:
    from mathhammer.starcraft.army import _ArmyFile, _UnitEntryFile

    assert "faction" in _ArmyFile.model_fields and "unit" in _UnitEntryFile.model_fields
    with pytest.raises(AttributeError):
        army_module.no_such_name  # noqa: B018


def test_a_weapon_built_once_is_the_one_built_anew(
    rosters: tuple[Roster, Roster], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``compare`` builds the same weapon for many loadouts: kept by the identity of the profile and effects."""
    from mathhammer.starcraft import loadout

    _, plain = rosters
    marine, roach = plain.unit("Marine"), plain.unit("Roach")
    los = [make_loadout(marine, 6, ups) for ups in upgrade_sets(marine)]
    kept = [attack_batches(lo, roach, "assault", 3.0) for lo in los]
    assert [attack_batches(lo, roach, "assault", 3.0) for lo in los] == kept
    monkeypatch.setattr(loadout, "_WEAPONS", {})
    monkeypatch.setattr(loadout, "_WEAPONS_MAX", 3)
    assert [attack_batches(lo, roach, "assault", 3.0) for lo in los] == kept  # built anew, bounded
    assert 0 < len(loadout._WEAPONS) <= 3
