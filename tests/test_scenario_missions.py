"""Mission Cards as data (issue 26 point 2): each scoring kind of ``profiles/missions.toml`` is one registered class
(``mathhammer/scenario/missions/kinds.py``), its numbers are the card's data, and a bad value is refused.

The kinds are tried on hand-made games through a small stand-in of :class:`~mathhammer.scenario.missions.Play`
(markers' control and state set by hand), each citing its card (9.2.1 Mission Cards, 8.9.2 Score Victory Points);
one test runs a kind through the simulation's own scoring step.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from mathhammer.profiles.loader import builtin_dir
from mathhammer.scenario import ScenarioError
from mathhammer.scenario import mission as missions
from mathhammer.scenario.loader import _catalog
from mathhammer.scenario.missions import KINDS, CatalogError, Points, ScoringKind, load, register
from mathhammer.scenario.missions.kinds import SupplyDrop
from mathhammer.scenario.sim import Simulation

from .test_scenario import DEPLOY, base, scenario

#: markers 1 (Red), 2 (Blue), 5 (Neutral), 7.3.2
NUMBERS = (1, 2, 5)
COLOURS = ("red", "blue", "neutral")


class FakePlay:
    """One game per column; control, gained, activation set by hand; no battlefield."""

    def __init__(self, games: int = 1, round_no: int = 2) -> None:
        m = len(NUMBERS)
        self.sim = SimpleNamespace(
            T=games,
            M=m,
            U=2,
            vp=np.zeros((2, games), dtype=np.int64),
            control=np.full((m, games), -1, dtype=np.int64),
            gained=np.zeros((m, games), dtype=bool),
            active=np.ones((m, games), dtype=bool),
            activated_round=np.zeros((m, games), dtype=np.int64),
            removed_marker=np.zeros((m, games), dtype=bool),
            marker_numbers=list(NUMBERS),
            engaged_mask=lambda trials, u: np.zeros(trials.size, dtype=bool),
        )
        self.live = np.arange(games)
        self.round = round_no
        self.table = np.zeros((2, m, games), dtype=bool)  # unit 0 red, unit 1 blue
        self.destroyed = np.zeros((2, games), dtype=np.int64)
        self.supply = np.zeros((2, games), dtype=np.int64)
        self.quarters: dict[int, int] = {}  # unit -> the quarter it is Wholly Within
        self.gaps: list[float] = [99.0] * m
        self.u = 0.0

    def player(self, u: int) -> int:
        return u

    def colour(self, m: int) -> str:
        return COLOURS[m]

    def holders(self) -> Iterator[tuple[int, int, np.ndarray]]:
        for m in range(self.sim.M):
            held = self.sim.control[m, self.live]
            for p in (0, 1):
                mine = self.live[held == p]
                if mine.size:
                    yield m, p, mine

    def score_held(self, points: list[list[int]], bonus: list[list[int]] | None = None) -> None:
        """mission.Play.score_held read naively: per marker and player holding it, the points, and the bonus where
        the player gained it this Round."""
        for m, p, mine in self.holders():
            extra = 0 if bonus is None else bonus[m][p] * self.sim.gained[m, mine]
            self.sim.vp[p, mine] += points[m][p] + extra

    def draw(self, salt: int) -> np.ndarray:
        return np.full(self.live.size, self.u)

    def destroyed_supply(self) -> np.ndarray:
        return self.destroyed

    def objective_supply(self) -> np.ndarray:
        return self.supply

    def quarter_groups(self, u: int) -> Iterator[tuple[int, np.ndarray]]:
        if u in self.quarters:
            yield self.quarters[u], self.live

    def marker_gaps(self, u: int, trials: np.ndarray) -> Iterator[tuple[np.ndarray, list[float]]]:
        yield trials, self.gaps


def card(name: str, scale: str = "skirmish") -> Any:
    return next(c for c in _catalog().cards.values() if c.name == name and c.scale == scale)


def rule(name: str, scale: str = "skirmish") -> ScoringKind:
    c = card(name, scale)
    return next(r for r in c.rules if r.key == c.scoring)


# ----------------------------------------------------------------- each kind, citing its card
def test_enemy_supply_destroyed_scores_every_round() -> None:
    """Every card: "Score VPs equal to Enemy Supply destroyed this Round" (before "FROM THE START OF THE SECOND
    ROUND": scored in Round 1 too)."""
    c = card("Hold Position")
    assert c.every_round == ("enemy-supply-destroyed",)
    play = FakePlay(round_no=1)
    play.destroyed[:, 0] = (3, 1)
    for r in c.rules:
        r.before_control(play)
        if c.scores_now(r, 1):
            r.score(play)
    play.sim.control[:, 0] = 0  # held markers do not score in Round 1
    assert play.sim.vp[:, 0].tolist() == [3, 1]


def test_hold_position() -> None:
    """Hold Position: "Gain 1 VP for each Controlled Mission Marker that is Neutral or associated with your colour.
    Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour." Red holds 1 (Red), 2 (Blue)
    and 5 (Neutral): 1 + 2 + 1."""
    play = FakePlay()
    play.sim.control[:, 0] = 0
    rule("Hold Position").score(play)
    assert play.sim.vp[:, 0].tolist() == [4, 0]


def test_frontlines() -> None:
    """Frontlines: "Gain 1 VP for each Controlled Mission Marker. Gain an additional 2 VPs for a Marker if you gained
    Control of it from the Opponent this Round." Blue holds 1 and 2, taking 1 from Red this Round: 3 + 1."""
    play = FakePlay()
    play.sim.control[:2, 0] = 1
    play.sim.gained[0, 0] = True
    rule("Frontlines").score(play)
    assert play.sim.vp[:, 0].tolist() == [0, 4]


def test_gather_the_resources_markers_and_gather_action() -> None:
    """Gather the Resources: "Gain 2 VPs for each Controlled Mission Marker associated with the Opponent colour"
    (red holds 1, its own: 0; and 2, Blue: 2). GATHER ACTION: "If an Unengaged Unit is Within 3" of a Controlled
    Neutral Mission Marker or associated with the Opponent ... Gain 1 VP": red's unit 3" from marker 2 scores,
    3.1" away or at its own marker 1 it does not."""
    kind = rule("Gather the Resources")
    assert kind.gather_action and card("Gather the Resources").gather_action
    assert not card("Hold Position").gather_action
    play = FakePlay()
    play.sim.control[:2, 0] = 0
    kind.score(play)
    assert play.sim.vp[:, 0].tolist() == [2, 0]
    for gaps, gained in (([0.0, 3.0, 99.0], 1), ([0.0, 3.1, 99.0], 0)):
        play.gaps = gaps
        before = int(play.sim.vp[0, 0])
        kind.gather(play, 0, play.live)
        assert play.sim.vp[0, 0] - before == gained


def test_divide_and_conquer() -> None:
    """Divide and Conquer: "Gain 1 VP for each quarter where your Total Current Supply is higher than the
    Opponent's. ... If a Unit controls a Mission Marker, that Unit is worth 1 extra Supply for controlling quarters.
    Gain 2 VP for Controlling Mission Marker 5." Both units Supply 2 in quarter 0; blue's contests marker 5, which
    blue Controls: 3 > 2, blue takes the quarter (1) and marker 5 (2)."""
    play = FakePlay()
    play.supply[:, 0] = (2, 2)
    play.quarters = {0: 0, 1: 0}
    play.sim.control[2, 0] = 1
    play.table[1, 2, 0] = True
    rule("Divide and Conquer").score(play)
    assert play.sim.vp[:, 0].tolist() == [0, 3]
    play.table[1, 2, 0] = False  # no marker: a tie, nobody takes the quarter
    rule("Divide and Conquer").score(play)
    assert play.sim.vp[:, 0].tolist() == [0, 5]


def test_supply_drop_scores_the_activation_round_and_removes_the_marker() -> None:
    """Supply Drop: "For each activated Controlled Mission Marker, gain VPs equal to the Game Round number in which
    that Mission Marker was Activated and remove it." Red holds marker 2, Activated in Round 3: 3 VP, then gone."""
    play = FakePlay(round_no=4)
    play.sim.active[:, 0] = (False, True, False)
    play.sim.activated_round[1, 0] = 3
    play.sim.control[:2, 0] = 0
    rule("Supply Drop").score(play)
    assert play.sim.vp[:, 0].tolist() == [3, 0]
    assert (play.sim.removed_marker[1, 0], play.sim.control[1, 0], play.sim.active[1, 0]) == (True, -1, False)


def test_supply_drop_activation_schedule_by_scale() -> None:
    """Supply Drop (standard): "START OF THE ROUND (1-4): Randomly determine one Deactivated Mission Marker (1-4) ...
    START OF THE ROUND 5: Mission Marker 5 is automatically Activated." (skirmish): "START OF THE ROUND (2-4): ...
    (1,2,5)": nothing in Round 1, no marker 5 in Round 5."""
    assert not card("Supply Drop").markers_activated
    for scale, round_no, activated in (("standard", 5, [False, False, True]), ("skirmish", 1, [False] * 3)):
        play = FakePlay(round_no=round_no)
        play.sim.active[:] = False
        rule("Supply Drop", scale).start_of_round(play)
        assert play.sim.active[:, 0].tolist() == activated, scale
    play = FakePlay(round_no=2)
    play.sim.active[:] = False
    play.u = 0.99  # the last of the three Deactivated markers (1, 2, 5) is drawn
    rule("Supply Drop").start_of_round(play)
    assert play.sim.active[:, 0].tolist() == [False, False, True]
    assert play.sim.activated_round[2, 0] == 2


def test_scoring_starts_in_the_round_of_the_card() -> None:
    """Hold Position: "FROM THE START OF THE SECOND ROUND": a marker held in Round 1 scores nothing, in Round 2 it
    scores (through the simulation's own scoring step, ``mission.score``)."""
    sim = Simulation(scenario([DEPLOY]), 2, 1)
    missions.setup(sim)
    red = sim.uids.index("marine-1")
    pid = sim.world.place(sim.scn.units["marine-1"], (9, 11), (0, -1), ())
    assert pid is not None
    sim.set_pos(red, np.arange(sim.T), pid)
    marker = next(m for m in sim.scn.deployment.markers if abs(m.x - 9) < 4 and abs(m.y - 11) < 4)
    sim.round = 1
    missions.score(sim, np.arange(sim.T))
    assert sim.control[sim.marker_numbers.index(marker.number)].tolist() == [0, 0]
    assert sim.vp[0].tolist() == [0, 0]
    sim.round = 2
    missions.score(sim, np.arange(sim.T))
    assert sim.vp[0].tolist() == [1, 1] if marker.side != "blue" else [2, 2]


# ----------------------------------------------------------------- the data
def test_card_numbers_match_the_card_text() -> None:
    """9.2.1: the numbers in ``profiles/missions.toml`` say what the verbatim card text says: the lead of the
    SPECIAL WINNING CONDITIONS, the Round scoring starts, the markers' state of the Mission Parameters."""
    rounds = {"FIRST": 1, "SECOND": 2}
    for c in _catalog().cards.values():
        assert int(re.search(r"leads by (\d+)\+ VPs", c.additional)[1]) == c.instant_win_lead, c.id  # type: ignore[index]
        assert rounds[re.search(r"FROM THE START OF THE (\w+) ROUND", c.scoring_text)[1]] == c.scoring_from_round  # type: ignore[index]
        assert ("are Activated" in c.parameters) == c.markers_activated, c.id
        assert c.scoring_text.startswith("Score VPs equal to Enemy Supply destroyed this Round") == (
            "enemy-supply-destroyed" in c.every_round
        )


@pytest.fixture
def catalog_copy(tmp_path: Path) -> Path:
    path = tmp_path / "missions.toml"
    shutil.copy(builtin_dir() / "missions.toml", path)
    return path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("opponent = 2", "opponent = -1", "missions.toml: missions[0].points.opponent: got -1; allowed: greater than"),
        ("opponent = 2", "opponent = 2\nbonus = 1", "missions.toml: missions[0].points.bonus: unknown key"),
        ("own = 1", "own = 1.5", "missions.toml: missions[0].points.own: got 1.5; allowed: a valid integer"),
        (
            'scoring = "hold-position"',
            'scoring = "hold-the-line"',
            "missions.toml: missions[0].scoring: got 'hold-the-line'; allowed: a registered scoring kind: ",
        ),
        ("game_length = 5", "game_length = 0", "missions.toml: missions[0].game_length: got 0; allowed: greater than"),
        ("markers_activated = true", 'markers_activated = "yes"', "missions[0].markers_activated: got 'yes'"),
        ("scoring_from_round = 2", "scoring_from_round = 11", "missions[0].scoring_from_round: got 11; allowed: less"),
        ("instant_win_lead = 10", "instant_win_lead = 0", "missions[0].instant_win_lead: got 0; allowed: greater"),
        ("width = 36", "width = -36", "missions.toml: deployments[0].width: got -36; allowed: greater than 0"),
        ("activation_markers = [1, 2, 3, 4]", "activation_markers = [1, 6]", "points.activation_markers[1]: got 6"),
    ],
)
def test_bad_card_data_is_refused_naming_file_field_value(catalog_copy: Path, old: str, new: str, message: str) -> None:
    _edit(catalog_copy, old, new)
    with pytest.raises(CatalogError) as err:
        load(catalog_copy)
    assert message in str(err.value)
    assert len(err.value.problems) == 1


def test_the_shipped_file_is_valid_and_has_every_kind() -> None:
    cards = load(builtin_dir() / "missions.toml").cards
    assert {c.scoring for c in cards.values()} | {k for c in cards.values() for k in c.every_round} == set(KINDS)


# ----------------------------------------------------------------- a new kind: one class and a data entry
TOY = """
[[missions]]
id = "mission.toy.skirmish"
name = "Toy Hill"
scale = "skirmish"
every_round = ["enemy-supply-destroyed"]
scoring = "toy-hill"
scoring_from_round = 1
markers_activated = true
starting_supply = 3
supply_escalation = 1
game_length = 3
instant_win_lead = 8

[missions.points]
per_marker = 5
"""


def test_a_new_kind_is_one_class_and_one_data_entry(catalog_copy: Path) -> None:
    """A toy card "Gain 5 VPs for each Controlled Mission Marker" registered from a test, read from a temporary
    file, and scored by the simulation's own scoring step without a line of the engine naming it."""

    class ToyPoints(Points):
        per_marker: int

    @register("toy-hill")
    class ToyHill(ScoringKind):
        """Toy Hill: "Gain 5 VPs for each Controlled Mission Marker." (``per_marker``)"""

        Points = ToyPoints
        points: ToyPoints

        def score(self, play: Any) -> None:
            for _m, p, mine in play.holders():
                play.sim.vp[p, mine] += self.points.per_marker

    try:
        catalog_copy.write_text(catalog_copy.read_text() + TOY)
        toy = load(catalog_copy).cards["mission.toy.skirmish"]
        assert isinstance(toy.rules[-1], ToyHill) and toy.rules[-1].points.per_marker == 5
        _edit(catalog_copy, "per_marker = 5", "per_marker = 'five'")
        with pytest.raises(CatalogError, match=r"missions\[10\]\.points\.per_marker: got 'five'"):
            load(catalog_copy)

        scn = dataclasses.replace(scenario([DEPLOY]), mission=toy)
        sim = Simulation(scn, 2, 1)
        missions.setup(sim)
        sim.control[0] = 1  # blue holds one marker
        sim.round = 1
        missions.score(sim, np.arange(sim.T))
        assert sim.vp[1].tolist() == [5, 5]
    finally:
        KINDS.pop("toy-hill", None)


def test_a_kind_is_registered_once() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register("supply-drop")(type("Other", (ScoringKind,), {}))
    assert KINDS["supply-drop"] is SupplyDrop


def test_toml_points_are_the_kind_numbers() -> None:
    """Every number a kind uses is in the card's ``[missions.points]`` (none left at a default in code)."""
    data = tomllib.loads((builtin_dir() / "missions.toml").read_text())
    for entry in data["missions"]:
        kind = KINDS[entry["scoring"]]
        required = {n for n, f in kind.Points.model_fields.items() if f.is_required()}
        assert required <= set(entry["points"]), entry["id"]
    assert base()["mission"]["card"] == "Hold Position"


def test_unknown_deployment_card_is_one_problem() -> None:
    """9.2.1: a Deployment Card not in the file is named with the cards allowed; the rest of the file is checked on
    the largest battlefield of the cards, so the markers of a standard (54" x 36") layout raise nothing more."""
    dep = dict(base()["deployment"], card="Frontyer", markers=[{"number": 5, "x": 50, "y": 18}])
    with pytest.raises(ScenarioError) as err:
        scenario([DEPLOY], deployment=dep)
    assert [p for p in err.value.problems if "deployment" in p] == [
        p for p in err.value.problems if "deployment.card: got 'Frontyer'; allowed: a Deployment Card: " in p
    ]
    assert len([p for p in err.value.problems if "deployment" in p]) == 1


def test_divide_and_conquer_through_the_simulation() -> None:
    """Divide and Conquer (skirmish), "FROM THE START OF THE FIRST ROUND: ... Gain 1 VP for each quarter where your
    Total Current Supply is higher than the Opponent's. Only Units Wholly Within a quarter contribute": the Marines
    (Supply 1+) alone, Wholly Within the south-west quarter of the 36" battlefield and on no marker, score 1 in
    Round 1; on the centre line (in no quarter wholly) they score nothing."""
    for at, expected in (((5, 5), 1), ((18, 5), 0)):
        sim = Simulation(scenario([DEPLOY], mission={"card": "Divide and Conquer"}), 2, 1)
        missions.setup(sim)
        red = sim.uids.index("marine-1")
        pid = sim.world.place(sim.scn.units["marine-1"], at, (0, -1), ())
        assert pid is not None
        sim.set_pos(red, np.arange(sim.T), pid)
        sim.round = 1
        sim.ref_supply[:] = sim.current_supply()  # nothing destroyed this Round
        missions.score(sim, np.arange(sim.T))
        assert sim.vp[:, 0].tolist() == [expected, 0], at
