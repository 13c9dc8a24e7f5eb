"""The game-system registry and `attack --system` (one CLI, one JSON contract, several games)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mathhammer import systems
from mathhammer.cli import app
from mathhammer.errors import InputError

runner = CliRunner()


def test_starcraft_is_registered_with_aliases() -> None:
    assert "starcraft" in systems.names()
    for alias in ("sc", "StarCraft", "sctmg", "tmg"):
        assert systems.get(alias).name == "starcraft"


def test_unknown_system_is_refused_with_advice() -> None:
    with pytest.raises(InputError, match="did you mean 'starcraft'"):
        systems.get("starcarft")


def test_a_name_cannot_be_registered_twice() -> None:
    sc = systems.get("starcraft")
    with pytest.raises(ValueError, match="taken"):
        systems.register(sc)


def test_default_system_is_starcraft_and_same_contract() -> None:
    a = json.loads(runner.invoke(app, ["attack", "--models", "3", "--roa", "2", "--json"]).stdout)
    b = json.loads(runner.invoke(app, ["attack", "--system", "sc", "--models", "3", "--roa", "2", "--json"]).stdout)
    assert a == b and a["engine"] == "exact"


def test_flags_of_another_system_are_refused() -> None:
    res = runner.invoke(app, ["attack", "--models", "3", "--quality", "4"])
    assert res.exit_code == 2
    assert res.stderr.startswith("error: --quality: got '4'; allowed: not with --system starcraft")
    res = runner.invoke(app, ["attack", "--system", "warhammer"])
    assert res.exit_code == 2 and res.stderr.startswith("error: --system: got 'warhammer'")
