"""Pictures of the battlefield (mathhammer.board.plot): to scale, no pyplot, one artist per model / sight line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Polygon

from mathhammer.board import Board, Model, Terrain, Unit, engagement, load_board, visibility
from mathhammer.board.plot import FLYING_EDGE, NAMED_SIDE_COLOURS, SIDE_COLOURS, plot_board, side_colours
from mathhammer.errors import InputError, MathhammerError

GOLDEN = sorted((Path(__file__).parent / "golden" / "board").glob("*.toml"))


def _gids(ax: Axes, prefix: str) -> list[str]:
    return [str(a.get_gid()) for a in ax.get_children() if str(a.get_gid()).startswith(prefix)]


def _lines(ax: Axes, gid: str) -> list[Line2D]:
    return [line for line in ax.lines if line.get_gid() == gid]


def _circles(ax: Axes) -> list[Circle]:
    return [p for p in ax.patches if isinstance(p, Circle)]


def _att_side(board: Board) -> str:
    return board.units[0].side


def _load(path: Path) -> Board:
    """A golden board; a file that is not a valid board (an input-error case) is skipped here."""
    try:
        return load_board(path)
    except MathhammerError as exc:
        pytest.skip(f"{path.name} is not a valid board: {exc}")


def test_golden_boards_found() -> None:
    assert len(GOLDEN) >= 4
    assert any(p.stem == "goliath_marines_wall" for p in GOLDEN)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_board_picture_saves_and_counts(path: Path, tmp_path: Path) -> None:
    board = _load(path)
    fig = plot_board(board)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    models = list(board.models)
    circles = _circles(ax)
    assert len(circles) == len(models)
    by_gid = {c.get_gid(): c for c in circles}
    for m in models:
        c = by_gid[f"model:{m.id}"]
        assert c.center == pytest.approx(m.centre)
        assert c.radius == pytest.approx(m.base_mm / 25.4 / 2)  # to scale: 25.4 mm = 1"
    assert sorted(_gids(ax, "terrain:")) == sorted(f"terrain:{t.id}" for t in board.terrain)
    n_access = sum(len(t.access_points) for t in board.terrain)
    n_engaged = len(engagement(board).pairs)
    assert len(ax.lines) == n_access + n_engaged  # no sight lines without attackers
    assert len(_lines(ax, "engagement")) == n_engaged
    assert not _lines(ax, "sight-visible") and not _lines(ax, "sight-blocked")
    assert ax.get_aspect() == 1.0
    assert "inches" in ax.get_xlabel() and "inches" in ax.get_ylabel()
    assert ax.get_title()
    out = tmp_path / f"{path.stem}.png"
    fig.savefig(out, dpi=80)
    image = mpimg.imread(str(out))
    assert image.ndim == 3 and image.shape[0] >= 300 and image.shape[1] >= 500
    assert image.std() > 0.01  # not a blank image


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_sight_lines_match_visibility_matrix(path: Path, tmp_path: Path) -> None:
    board = _load(path)
    side = _att_side(board)
    matrix = visibility(board, side).matrix()
    if matrix.size == 0:
        pytest.skip("one side only: no attacker-target pairs")
    fig = plot_board(board, attackers=side)
    ax = fig.axes[0]
    assert len(_lines(ax, "sight-visible")) == int(matrix.sum())
    assert len(_lines(ax, "sight-blocked")) == int((~matrix).sum())
    n_other = sum(len(t.access_points) for t in board.terrain) + len(engagement(board).pairs)
    assert len(ax.lines) == matrix.size + n_other
    assert len(_circles(ax)) == len(list(board.models))
    for line in _lines(ax, "sight-blocked"):
        assert line.get_linestyle() == "--"
    fig.savefig(tmp_path / "sight.png", dpi=60)
    assert mpimg.imread(str(tmp_path / "sight.png")).shape[0] >= 200


def test_goliath_marines_wall_picture() -> None:
    board = load_board(Path(__file__).parent / "golden" / "board" / "goliath_marines_wall.toml")
    fig = plot_board(board, attackers="goliath", targets="marines")
    ax = fig.axes[0]
    visible, blocked = _lines(ax, "sight-visible"), _lines(ax, "sight-blocked")
    assert (len(visible), len(blocked)) == (3, 2)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("direct cover: ruined-wall") == 2
    assert "3 of 5 pairs Visible" in ax.get_title()
    # the visible lines run along the free trace, which ends on the bases, not at the centres
    goliath = board.model("goliath")
    for line in visible:
        x0, y0 = (float(v) for v in np.asarray(line.get_xydata())[0])
        assert ((x0 - goliath.x) ** 2 + (y0 - goliath.y) ** 2) ** 0.5 <= goliath.radius + 1e-6
    # no labels when there are too many lines
    quiet = plot_board(board, attackers="goliath", targets="marines", max_labels=1).axes[0]
    assert not any("cover" in t.get_text() for t in quiet.texts)
    assert len(_lines(quiet, "sight-blocked")) == 2


def test_unit_and_model_id_lists_and_given_axes() -> None:
    board = load_board(Path(__file__).parent / "golden" / "board" / "goliath_marines_wall.toml")
    fig = Figure()
    ax = fig.add_subplot()
    out = plot_board(board, attackers=["goliath"], targets=["marine-1", "marine-4"], ax=ax, title="two")
    assert out is fig
    assert len(_lines(ax, "sight-visible")) == 1 and len(_lines(ax, "sight-blocked")) == 1
    assert ax.get_title() == "two"
    with pytest.raises(InputError):
        plot_board(board, attackers="nobody")
    with pytest.raises(InputError):
        plot_board(board, attackers=["goliath"], targets=["nobody"])


def test_engagement_flying_grass_token_access() -> None:
    high = Terrain(
        "deck", ((20, 0), (30, 0), (30, 10), (20, 10)), size=2, surface=True, access_points=(((20, 4), (20, 6)),)
    )
    grass = Terrain("grass", ((0, 20), (6, 20), (6, 26), (0, 26)), size=2, grass=True)
    token = Terrain("token", ((10, 20), (12, 20), (12, 22), (10, 22)), token=True)
    a, b = Model("a", 5, 5), Model("b", 6.5, 5)
    c, d = Model("c", 21, 5, stands_on="deck", size=2), Model("d", 19.3, 5)
    f = Model("f", 35, 25, base_mm=60, flying=True, size=3)
    units = (
        Unit("u1", "p1", (a, c)),
        Unit("u2", "p2", (b, d)),
        Unit("air", "p2", (f,), hidden=True),
    )
    board = Board(44, 30, (high, grass, token), units)
    pairs = engagement(board).pairs
    assert pairs == (("a", "b"), ("c", "d"))
    ax = plot_board(board).axes[0]
    assert len(_lines(ax, "engagement")) == 2
    assert len(_lines(ax, "access-point:deck")) == 1
    circles = {c.get_gid(): c for c in _circles(ax)}
    assert len(circles) == 5
    assert circles["model:f"].get_edgecolor()[:3] == pytest.approx((0.0, 188 / 255, 212 / 255))
    assert FLYING_EDGE == "#00bcd4"
    assert circles["model:a"].get_facecolor()[:3] != circles["model:b"].get_facecolor()[:3]
    polys = {p.get_gid(): p for p in ax.patches if isinstance(p, Polygon)}
    assert polys["terrain:grass"].get_hatch() == "///"
    assert polys["terrain:token"].get_linestyle() == "--"
    assert polys["terrain:deck"].get_facecolor() != polys["terrain:token"].get_facecolor()
    assert "2 Engaged pairs" in ax.get_title()


def _fills(board: Board) -> tuple[dict[str, str], dict[str, str]]:
    """Each model's fill and each legend entry's (``side: NAME``), as hex colours."""
    ax = plot_board(board).axes[0]
    models = {
        str(c.get_gid())[6:]: to_hex(c.get_facecolor()) for c in _circles(ax) if str(c.get_gid()).startswith("model:")
    }
    legend = ax.figure.legends[0] if ax.figure.legends else ax.get_legend()
    sides = {
        t.get_text()[6:]: to_hex(h.get_facecolor())
        for t, h in zip(legend.get_texts(), legend.legend_handles, strict=True)
        if t.get_text().startswith("side: ")
    }
    return models, sides


def test_a_side_named_red_or_blue_is_drawn_in_that_colour() -> None:
    """A scenario's players are the sides "red" and "blue" (a trace's round pictures): each is drawn in its own colour,
    whichever comes first on the board, as the scenario's plots draw them; other names keep the palette's order."""
    a, b, c = Model("a", 5, 5), Model("b", 15, 5), Model("c", 25, 5)
    blue_first = Board(30, 20, (), (Unit("zerg", "blue", (a,)), Unit("terran", "red", (b,))))
    models, sides = _fills(blue_first)
    assert models == {"a": "#1f77b4", "b": "#d62728"}
    assert sides == {"blue": "#1f77b4", "red": "#d62728"}
    red_first = Board(30, 20, (), (Unit("terran", "Red", (a,)), Unit("zerg", "BLUE", (b,))))
    assert _fills(red_first) == ({"a": "#d62728", "b": "#1f77b4"}, {"Red": "#d62728", "BLUE": "#1f77b4"})
    # other names: the palette in order of first appearance, less the named colours in use
    assert side_colours(Board(30, 20, (), (Unit("u", "p1", (a,)), Unit("v", "p2", (b,))))) == {
        "p1": SIDE_COLOURS[0],
        "p2": SIDE_COLOURS[1],
    }
    mixed = Board(30, 20, (), (Unit("u", "p1", (a,)), Unit("v", "red", (b,)), Unit("w", "p3", (c,))))
    assert side_colours(mixed) == {"p1": "#1f77b4", "red": "#d62728", "p3": SIDE_COLOURS[2]}
    assert NAMED_SIDE_COLOURS == {"red": "#d62728", "blue": "#1f77b4"}


def test_module_does_not_import_pyplot(tmp_path: Path) -> None:
    code = f"""
import sys
from pathlib import Path
from mathhammer.board import load_board
from mathhammer.board.plot import plot_board
board = load_board(Path({str(GOLDEN[0])!r}))
fig = plot_board(board, attackers=board.units[0].side)
fig.savefig(Path({str(tmp_path)!r}) / "x.png")
assert "matplotlib.pyplot" not in sys.modules, "pyplot imported"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_board_package_does_not_import_matplotlib() -> None:
    code = "import sys, mathhammer.board; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_the_board_picture_is_plot_board_not_a_board_method() -> None:
    """Issue 5 item 8 asked for ``board.plot()``; the picture is ``plot_board(board, ...)`` (a function of
    the plotting module taking a Board), so that the model module imports no drawing code and the board
    package has no import cycle (tests/test_architecture.py)."""
    board = load_board(Path(__file__).parent / "golden" / "board" / "goliath_marines_wall.toml")
    fig = plot_board(board, "goliath", "marines")
    assert len([a for a in fig.axes[0].get_children() if (a.get_gid() or "").startswith("model:")]) == 6
