"""Charges across elevation (rulebook 8.5.3 ELEVATION, 8.7.7, 7.2.1, part 11 ACCESS POINT / IMPASSABLE TERRAIN,
FAQ v1.0 High Ground) and split Speed values (8.5.3 "see Part 5.1 for split Speed values", the card sheets).

Golden board: tests/golden/board/charge_high_ground.toml.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer.board import Board, Model, Terrain, Unit, load_board
from mathhammer.board.charge import charge_distance, charge_probabilities, charge_probability, speed_values
from mathhammer.cli import app
from mathhammer.errors import InputError
from mathhammer.starcraft.roster import load_roster

GOLDEN = Path(__file__).parent / "golden" / "board"
HIGH = GOLDEN / "charge_high_ground.toml"
INCH = 25.4
runner = CliRunner()


def _cliff(x0: float, height: float | None = 3.0, access: bool = True, cid: str = "cliff") -> Terrain:
    aps = (((x0 + 3, 10), (x0 + 4, 10)),) if access else ()
    return Terrain(
        cid, ((x0, 10), (x0 + 6, 10), (x0 + 6, 20), (x0, 20)), size=3, surface=True, access_points=aps, height=height
    )


def test_golden_high_ground_climbs_the_ladder() -> None:
    """8.5.3: "The Leading Model cannot change elevation unless it passes through an ACCESS POINT"; 7.2.1:
    "Models on HIGH GROUND cannot Engage models on GROUND LEVEL": the Zergling cannot stop at the foot of the
    cliff, it climbs the ladder on the south face and ends on the cliff's top, Within 1" of the Marine."""
    board = load_board(HIGH)
    path = charge_distance(board, "z1", ["marines"])
    assert path.reachable and path.levels[0] is None and path.levels[-1] == "cliff"
    assert path.climb == 3.0
    assert path.length == pytest.approx(21.16, abs=0.05)
    assert (23.0, 10.0) in (path.path or ())  # the centre crosses the ACCESS POINT
    end = Model("end", *(path.end or (0, 0)), base_mm=INCH, stands_on="cliff")
    assert end.distance(board.model("m1")) <= 1 + 1e-6


def test_the_climb_counts() -> None:
    """8.5.3 "Measure the actual path travelled" / 8.7.7 step 2 "Measure along the actual path of travel" (only
    FLYING says "measuring horizontally"): the 3" climb is part of the distance; count_climb=False removes it."""
    board = load_board(HIGH)
    with_climb = charge_distance(board, "z1", ["marines"]).length
    flat = charge_distance(board, "z1", ["marines"], count_climb=False)
    assert flat.climb == 0 and with_climb - flat.length == pytest.approx(3.0, abs=1e-9)


def test_taller_cliff_longer_charge() -> None:
    """The climb is the piece's height (board data: Size is not a length)."""
    lead, target = Model("z", 10, 15, base_mm=INCH), Model("m", 21.5, 15, base_mm=INCH, stands_on="cliff")
    units = (Unit("a", "zerg", (lead,)), Unit("b", "terran", (target,)))
    lows = charge_distance(Board(44, 30, (_cliff(20, 2.0),), units), "z", ["b"]).length
    highs = charge_distance(Board(44, 30, (_cliff(20, 5.0),), units), "z", ["b"]).length
    assert highs - lows == pytest.approx(3.0, abs=1e-9)


def test_missing_height_is_refused_not_guessed() -> None:
    """The rulebook excerpt gives no inch value for a Size: a climb through a piece with no ``height`` is refused,
    naming the piece and the field."""
    lead, target = Model("z", 10, 15, base_mm=INCH), Model("m", 21.5, 15, base_mm=INCH, stands_on="cliff")
    board = Board(44, 30, (_cliff(20, None),), (Unit("a", "zerg", (lead,)), Unit("b", "terran", (target,))))
    with pytest.raises(InputError, match=r"terrain 'cliff'\.height") as err:
        charge_distance(board, "z", ["b"])
    assert "8.5.3" in str(err.value)
    assert charge_distance(board, "z", ["b"], count_climb=False).reachable  # top-down only: no height needed


def test_no_access_point_no_way_up() -> None:
    """IMPASSABLE TERRAIN: "A terrain piece is Impassable if it has no Access Point connecting it to an adjacent
    elevation level. Models cannot move through, onto, or across" it."""
    lead, target = Model("z", 10, 15, base_mm=INCH), Model("m", 21.5, 15, base_mm=INCH, stands_on="cliff")
    board = Board(44, 30, (_cliff(20, access=False),), (Unit("a", "zerg", (lead,)), Unit("b", "terran", (target,))))
    path = charge_distance(board, "z", ["b"])
    assert not path.reachable and path.length == math.inf


def test_charging_down_from_high_ground() -> None:
    """8.5.3: changing elevation down also goes through the ACCESS POINT, and the climb down counts."""
    lead = Model("z", 23.5, 12, base_mm=INCH, stands_on="cliff")
    target = Model("m", 23.5, 6, base_mm=INCH)
    board = Board(44, 30, (_cliff(20),), (Unit("a", "zerg", (lead,)), Unit("b", "terran", (target,))))
    path = charge_distance(board, "z", ["b"])
    assert path.reachable and path.levels[0] == "cliff" and path.levels[-1] is None and path.climb == 3.0
    # from (23.5, 12) to the ladder at y = 10 (2"), down 3", then to Within 1" of the Marine: 10 - 6 - 2 = 2"
    assert path.length == pytest.approx(2 + 3 + 2, abs=0.02)


def test_unconnected_high_ground_is_not_crossed() -> None:
    """FAQ v1.0: "Ground Units cannot move directly between unconnected areas of High Ground": two cliffs 0.2"
    apart, no ACCESS POINTs: the Leading Model on one cannot reach a target far across the other; with a ladder
    on each, it goes down and up (two climbs)."""
    lead = Model("z", 21, 15, base_mm=INCH, stands_on="west")
    target = Model("m", 31.5, 15, base_mm=INCH, stands_on="east")
    units = (Unit("a", "zerg", (lead,)), Unit("b", "terran", (target,)))
    closed = Board(44, 30, (_cliff(20, access=False, cid="west"), _cliff(26.2, access=False, cid="east")), units)
    assert not charge_distance(closed, "z", ["b"]).reachable
    open_ = Board(44, 30, (_cliff(20, cid="west"), _cliff(26.2, cid="east")), units)
    path = charge_distance(open_, "z", ["b"])
    assert path.reachable and path.climb == 6.0 and set(path.levels) == {"west", None, "east"}


def test_same_level_charge_on_the_top_ignores_the_ladder() -> None:
    """A charge along the top of one piece changes no elevation: no climb, the straight distance."""
    lead = Model("z", 21, 12, base_mm=INCH, stands_on="cliff")
    target = Model("m", 21, 18, base_mm=INCH, stands_on="cliff")
    board = Board(44, 30, (_cliff(20),), (Unit("a", "zerg", (lead,)), Unit("b", "terran", (target,))))
    path = charge_distance(board, "z", ["b"])
    assert path.climb == 0 and path.length == pytest.approx(6 - 1 - 1, abs=0.01)


# -- split Speed values ------------------------------------------------------------------------


def test_speed_values_as_printed() -> None:
    """The card sheets print "4/7" (Marine), "7" (Goliath) and "-" (Pylon); profiles store [4, 7], [7], "-"."""
    roster = load_roster()
    assert speed_values(roster.unit("Marine").card.speed) == (4, 7)
    assert speed_values(roster.unit("Goliath").card.speed) == (7,)
    with pytest.raises(InputError, match="never moves"):
        speed_values(roster.unit("Pylon").card.speed)
    with pytest.raises(InputError):
        speed_values([4, 7, 9])


def test_split_speed_is_not_a_ground_flying_pair() -> None:
    """The cards refute a ground/flying reading of a split Speed: every unit printing two Speeds is Ground."""
    for unit in load_roster().units.values():
        card = unit.card
        if isinstance(card.speed, list) and len(set(card.speed)) == 2:
            assert "Ground" in card.combat_tags and "Flying" not in card.combat_tags, unit.name


def test_charge_probabilities_under_both_numbers() -> None:
    """8.7.7 step 2: "Roll 1D6 and add it to the Unit's Speed"; a split Speed is given under both numbers."""
    assert charge_probabilities(10.5, [4, 7]) == {4: 0.0, 7: 0.5}
    assert charge_probabilities(8, [7]) == {7: charge_probability(8, 7)}


def test_board_charge_cli() -> None:
    """`mathhammer board charge`: the distance (climb included) and P(success) for each printed Speed."""
    res = runner.invoke(app, ["board", "charge", str(HIGH), "--leading", "z1", "--target", "marines", "--speed", "16"])
    assert res.exit_code == 0, res.output
    assert 'Charge distance 21.16" (climb 3")' in res.stdout and "P(success) = 0.1667" in res.stdout  # 16 + 6 only
    out = json.loads(
        runner.invoke(
            app, ["board", "charge", str(GOLDEN / "charge_wall.toml"), "--leading", "z1", "--target", "marines",
                  "--card", "Marine", "--json"],
        ).stdout
    )  # fmt: skip
    assert out["speed_printed"] == [4, 7] and [p["printed"] for p in out["probabilities"]] == ["first", "second"]
    assert out["reachable"] and out["climb"] == 0


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        ([], "--speed"),
        (["--speed", "x"], "--speed"),
        (["--card", "Pylon"], "--card"),
        (["--card", "Nobody"], "--card"),
    ],
)
def test_board_charge_bad_input(extra: list[str], flag: str) -> None:
    res = runner.invoke(app, ["board", "charge", str(HIGH), "--leading", "z1", "--target", "marines", *extra])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"error: {flag}:") and res.stderr.count("\n") == 1 and not res.stdout


def test_board_charge_bad_ids() -> None:
    for extra, flag in ((["--leading", "zz", "--target", "marines"], "--leading"),
                        (["--leading", "z1", "--target", "lings"], "--target"),
                        (["--leading", "z1", "--target", "nobody"], "--target")):  # fmt: skip
        res = runner.invoke(app, ["board", "charge", str(HIGH), *extra, "--speed", "6"])
        assert res.exit_code == 2 and res.stderr.startswith(f"error: {flag}:"), res.output


def test_height_in_board_file() -> None:
    """The board file's terrain ``height`` (inches) is validated like every other field."""
    from mathhammer.board import parse_board
    from mathhammer.board.model import BoardError

    text = HIGH.read_text().replace("height = 3", "height = -1")
    with pytest.raises(BoardError, match="height"):
        parse_board(text)


def test_mid_ground_engaged_from_the_foot_of_its_access_point() -> None:
    """7.2.1: "Models on MID GROUND can Engage models on HIGH GROUND or GROUND LEVEL only if both models are
    adjacent to the same ACCESS POINT": a Marine on a Size 2 platform by its door is charged from the playmat,
    no climb; one far from the door needs the climb (2" up)."""
    plat = Terrain(
        "plat", ((20, 10), (26, 10), (26, 20), (20, 20)), size=2, surface=True,
        access_points=(((20, 14.5), (20, 15.5)),), height=2.0,
    )  # fmt: skip
    lead = Model("z", 10, 15, base_mm=INCH)
    near = Model("m", 20.7, 15, base_mm=INCH, stands_on="plat")
    path = charge_distance(
        Board(44, 30, (plat,), (Unit("a", "zerg", (lead,)), Unit("b", "terran", (near,)))), "z", ["b"]
    )
    assert path.levels[-1] is None and path.climb == 0 and path.length == pytest.approx(8.7, abs=0.01)
    far = Model("m", 24, 18, base_mm=INCH, stands_on="plat")
    path = charge_distance(
        Board(44, 30, (plat,), (Unit("a", "zerg", (lead,)), Unit("b", "terran", (far,)))), "z", ["b"]
    )
    assert path.levels[-1] == "plat" and path.climb == 2.0
