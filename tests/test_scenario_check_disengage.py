"""8.5.4 Disengage and Tactical Mass in ``scenario check``.

8.5.4: "A Unit that Disengages cannot perform Ranged Attack or Charge in the following Assault Phase - unless its
Current Supply Value is greater than the Combined Supply of all enemies it was Engaged with." Casualties only lower
a Current Supply Value (glossary CURRENT SUPPLY VALUE), so the check judges the plan over the games: a Ranged
Attack or Charge after a Disengage that can never have Tactical Mass is an error, one that has it only in some
games (depending on casualties) a ``warning:`` with the condition; the simulation skips it in the other games.
"""

from __future__ import annotations

from pathlib import Path

from mathhammer.scenario.check.common import _tactical_mass

from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies


def plan(after: str = "shoot", use: tuple[str, ...] = (), zerg: bool = False) -> list[dict]:
    """The Zerglings charge the Marines in Round 4; in Round 5 the Marines Disengage (using ``use``) and then
    ``after`` (shoot the Zerglings, or charge them). With ``zerg`` the Marines charge and the Zerglings Disengage
    and charge back."""
    mover, foe, back = ("zergling-1", "marine-1", [18, 24]) if zerg else ("marine-1", "zergling-1", [18, 8])
    side, other = ("blue", "red") if zerg else ("red", "blue")
    disengage: dict = {"unit": mover, "action": "disengage", "to": back}
    if use:
        disengage["use"] = list(use)
    then: dict = {"unit": mover, "action": after, "targets": [foe]}
    return [
        {"round": 1,
         "red": {"movement": [{"unit": "marine-1", "action": "deploy", "to": [18, 4]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "deploy", "to": [18, 32]}]}},
        {"round": 2,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 8]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [18, 28]}]}},
        {"round": 3,
         "red": {"movement": [{"unit": "marine-1", "action": "move", "to": [18, 12]}]},
         "blue": {"movement": [{"unit": "zergling-1", "action": "move", "to": [18, 24]}],
                  "assault": [{"unit": "zergling-1", "action": "run", "to": [18, 20]}]}},
        {"round": 4,
         other: {"assault": [{"unit": foe, "action": "charge", "targets": [mover]}]}},
        {"round": 5,
         side: {"movement": [disengage], "assault": [then]}},
    ]  # fmt: skip


def scenario(tmp_path: Path, marines: int, after: str = "shoot", use: tuple[str, ...] = (), zerglings: int = 12):
    red = army("Terran Armed Forces", ("Marine", marines))
    zerg = army("Kerrigan's Swarm", ("Zergling", zerglings))
    armies = write_armies(tmp_path, red, zerg)
    rounds = plan(after, use, zerg=zerglings < 7)
    return build(skirmish("disengage", armies=armies, rounds=rounds), "disengage.toml")


def said(found: list[str]) -> list[str]:
    return [p for p in found if "Tactical Mass" in p]


def test_without_tactical_mass_in_any_game_it_is_an_error(tmp_path: Path) -> None:
    """8.5.4 judged over the games (``check._tactical_mass``): 6 Marines (Supply 1) against 12 Zerglings (Supply 1)
    that have stood through no Assault or Combat Phase (so no casualty can have cut their Supply) never have
    Tactical Mass: an error; once the Zerglings may have suffered casualties, only a condition."""
    scn = scenario(tmp_path, 6)
    never, why = _tactical_mass(scn, "marine-1", ["zergling-1"], set(), set()) or (False, "")
    assert never and "can never exceed the Combined Supply of 'zergling-1' (1 at least)" in why
    assert _tactical_mass(scn, "marine-1", ["zergling-1"], set(), {"zergling-1", "marine-1"}) == (
        False,
        "only in games where casualties first cut the Combined Supply of 'zergling-1' (1 at full strength) below its "
        "own (1 at full strength)",
    )
    # part 11 BURROWED: "Its Current Supply Value is treated as 0 for Disengage checks"
    assert _tactical_mass(scn, "marine-1", ["zergling-1"], {"marine-1"}, {"zergling-1"}) is not None


def test_tactical_mass_that_depends_on_casualties_is_a_warning(tmp_path: Path) -> None:
    """8.5.4: 6 Marines (Supply 1) against 12 Zerglings (Supply 1): Tactical Mass only where casualties cut the
    Zerglings below Supply 1 first (6 or more of them destroyed): a warning with the condition, no error."""
    scn = scenario(tmp_path, 6)
    assert said(errors(scn)) == []
    found = said(warnings(scn))
    assert len(found) == 1 and "rounds[4].red.assault[0]" in found[0], found
    assert "casualties first cut the Combined Supply of 'zergling-1' (1 at full strength)" in found[0]


def test_tactical_mass_at_full_strength_warns_of_its_own_casualties(tmp_path: Path) -> None:
    """8.5.4: 9 Marines (Supply 2) against 12 Zerglings (Supply 1) have Tactical Mass as written, but lose it
    where their own casualties drop them to Supply 1 or less: a warning, no error."""
    scn = scenario(tmp_path, 9)
    assert said(errors(scn)) == []
    found = said(warnings(scn))
    assert len(found) == 1 and "its own casualties leave its Supply (2 at full strength) above" in found[0], found


def test_tactical_retreat_lifts_the_penalty_in_the_check(tmp_path: Path) -> None:
    """Terran Armed Forces' Tactical Retreat: "The active Unit ignores the Disengage penalty for the remainder of
    the Round": no error and no warning on the Ranged Attack of 6 Marines against 12 Zerglings (a warning
    without it)."""
    scn = scenario(tmp_path, 6, use=("Tactical Retreat",))
    assert said(errors(scn)) == [] and said(warnings(scn)) == []
