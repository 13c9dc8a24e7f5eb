"""Small scenario files for the scenario tests: Hold Position (Skirmish) on Frontier (36" x 36").

Red, the Terran patrol, enters from the south; blue, the Zerg vanguard, from the north. Each test
file picks its markers (and armies, terrain, plan) and builds the scenario with :func:`build`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from mathhammer.scenario import check_scenario
from mathhammer.scenario.loader import parse_scenario
from mathhammer.scenario.spec import Scenario
from mathhammer.starcraft.army import CREEP_RULE
from mathhammer.starcraft.roster import Roster, load_roster

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
#: the Creep Card :func:`army` adds to a Zerg list that names none (0 Vespene Gas, Faction Tag Zerg)
DEFAULT_CREEP = "Accelerating Creep"
#: Markers 1 (Red) and 2 (Blue) on the west half, 5 (Neutral) in the centre.
THREE_MARKERS = [{"number": 1, "x": 9, "y": 10}, {"number": 2, "x": 9, "y": 26}, {"number": 5, "x": 18, "y": 18}]
#: Markers 1 and 2 far apart.
TWO_MARKERS = [{"number": 1, "x": 9, "y": 13}, {"number": 2, "x": 27, "y": 30}]


def army(faction: str, *units: tuple[str, int] | tuple[str, int, list[str]], tactical: tuple[str, ...] = ()) -> str:
    """A Skirmish army list (TOML): ``faction``, ``tactical`` cards, ``units`` as (unit, models[, upgrades]).

    A Zerg Faction Card asks for exactly one Creep Card (9.1; ZERG CREEP: "During Army Building, you must select
    exactly one Creep Card"): where ``tactical`` names none, Accelerating Creep (0 Vespene Gas) is added, so the list
    stays legal.

    >>> print(army("Kerrigan's Swarm", ("Zergling", 12)))  # doctest: +NORMALIZE_WHITESPACE
    name = "test army" scale = "Skirmish" faction = "Kerrigan's Swarm" tactical = ["Accelerating Creep"]
    [[units]] unit = "Zergling" models = 12 upgrades = []
    """
    card = roster().factions.get(faction)
    creep = {n.casefold() for n in roster().creep}
    if (
        card is not None
        and any(a.name.strip().casefold() == CREEP_RULE for a in card.abilities)
        and not any(t.casefold() in creep for t in tactical)
    ):
        tactical = (*tactical, DEFAULT_CREEP)
    lines = ['name = "test army"', 'scale = "Skirmish"', f'faction = "{faction}"']
    lines.append("tactical = [" + ", ".join(f'"{t}"' for t in tactical) + "]")
    for unit in units:
        ups = unit[2] if len(unit) == 3 else []  # type: ignore[misc]
        lines += ["", "[[units]]", f'unit = "{unit[0]}"', f"models = {unit[1]}"]
        lines.append("upgrades = [" + ", ".join(f'"{u}"' for u in ups) + "]")
    return "\n".join(lines) + "\n"


@cache
def roster() -> Roster:
    return load_roster()


def skirmish(
    name: str = "test",
    markers: list[dict] | None = None,
    armies: dict[str, str] | None = None,
    **over: object,
) -> dict:
    """The scenario data (plan empty); ``over`` replaces top-level keys (``rounds``, ``policy``, ``terrain`` ...)."""
    armies = armies or {"red": str(ARMIES / "terran_skirmish.toml"), "blue": str(ARMIES / "zerg_skirmish.toml")}
    data: dict = {
        "name": name,
        "first_player": "red",
        "mission": {"card": "Hold Position"},
        "deployment": {
            "card": "Frontier",
            "entry_edges": {"red": "south", "blue": "north"},
            "markers": markers if markers is not None else THREE_MARKERS,
        },
        "players": {p: {"army": a} for p, a in armies.items()},
        "rounds": [],
    }
    data.update(over)
    return data


def build(data: dict, file: str = "test.toml") -> Scenario:
    return parse_scenario(data, file, ROOT, roster())


def errors(scn: Scenario) -> list[str]:
    return [p for p in check_scenario(scn) if not p.startswith("warning")]


def warnings(scn: Scenario) -> list[str]:
    return [p for p in check_scenario(scn) if p.startswith("warning")]


def assert_same_games(one: Any, two: Any) -> None:
    """Two :class:`~mathhammer.scenario.result.ScenarioResult` of the same games: every per-Round array and the
    winners equal."""
    for a, b in zip(one.rounds, two.rounds, strict=True):
        for k in a:
            assert np.array_equal(a[k], b[k]), k
    assert np.array_equal(one.winner, two.winner)
