"""Pictures of the battlefield: terrain, models, Line of Sight and Engagement, top-down and to scale.

:func:`plot_board` draws on a :class:`matplotlib.figure.Figure` built directly (never
``pyplot``), so no GUI backend is needed; save it with ``fig.savefig("board.png")``.

* the table outline, ``width`` x ``depth`` inches, equal aspect;
* terrain footprints filled by terrain Effective Size (own Size plus what it is stacked on,
  7.1.2) on a colour bar, labelled with id, Size and elevation (surfaces: MID GROUND for
  Effective Size 1-2, HIGH GROUND for 3+); GRASS hatched, Tokens with a dashed outline,
  ACCESS POINTs as magenta diamonds (a point) or thick magenta segments;
* models as circles of their base diameter (25.4 mm = 1"), filled by side, Flying models with a
  thick dashed cyan edge, HIDDEN units with a dotted edge (cyan and dotted: both), each labelled with its id;
* with ``attackers``: one line per attacker-target model pair -- solid green along the
  unblocked trace (:attr:`Sight.trace`) when Visible, dashed red centre to centre when not,
  with the rule and pieces at the midpoint ("direct cover: ruined-wall") when there are at most
  ``max_labels`` blocked lines;
* Engaged model pairs (7.2.1) as thick orange segments between the centres.

Every drawn item carries a ``gid`` so callers and tests can find it: ``"table"``,
``"terrain:<id>"``, ``"access-point:<id>"``, ``"model:<id>"``, ``"sight-visible"``,
``"sight-blocked"``, ``"engagement"``.

>>> from mathhammer.board import Board, Model, Terrain, Unit
>>> wall = Terrain("wall", ((10, 0), (10.5, 0), (10.5, 30), (10, 30)), size=2)
>>> a, b = Model("a", 2, 15, base_mm=50, size=3), Model("b", 11.2, 15, size=2)
>>> board = Board(44, 30, (wall,), (Unit("g", "terran", (a,)), Unit("m", "zerg", (b,))))
>>> fig = plot_board(board, attackers="g", targets="m")
>>> [line.get_gid() for line in fig.axes[0].lines]
['sight-blocked']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import matplotlib.colors as mcolors
import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Patch, Polygon, Rectangle

from .engagement import engagement
from .los import Sight, visibility
from .model import Board, Model, Terrain

#: fill colours for sides, in order of first appearance on the board.
SIDE_COLOURS = ("#1f77b4", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")
#: a side named as a scenario's player is drawn in that colour (as the scenario's own plots and the presets' zones)
NAMED_SIDE_COLOURS = {"red": "#d62728", "blue": "#1f77b4"}
VISIBLE_COLOUR = "#2ca02c"
BLOCKED_COLOUR = "#d62728"
ENGAGED_COLOUR = "#ff7f0e"
FLYING_EDGE = "#00bcd4"
ACCESS_COLOUR = "#e6007e"
GRASS_EDGE = "#2e7d32"
TABLE_COLOUR = "#f7f4ec"

_MARGIN = 0.5
# drawing order
_Z_TABLE, _Z_TERRAIN, _Z_SIGHT, _Z_MODEL, _Z_ENGAGED, _Z_TEXT = 0, 1, 3, 4, 5, 6


def side_colours(board: Board) -> dict[str, str]:
    """Each side's fill colour, the sides in order of first appearance: a side named "red" or "blue" (any case: a
    scenario's players) in that colour (:data:`NAMED_SIDE_COLOURS`), the others in :data:`SIDE_COLOURS`' order, less
    the named colours in use."""
    sides = list(dict.fromkeys(u.side for u in board.units))
    named = {s: NAMED_SIDE_COLOURS[s.lower()] for s in sides if s.lower() in NAMED_SIDE_COLOURS}
    rest = [c for c in SIDE_COLOURS if c not in named.values()]
    others = iter(rest[i % len(rest)] for i in range(len(sides)))
    return {s: named[s] if s in named else next(others) for s in sides}


class _Labels:
    """Puts text labels where they do not cover one another (estimated boxes in board inches, no renderer needed)."""

    def __init__(self, ax: Axes, inches_per_point: float) -> None:
        self.ax = ax
        self.scale = inches_per_point
        self.boxes: list[tuple[float, float, float, float]] = []

    def _box(
        self, x: float, y: float, text: str, fontsize: float, ha: str, va: str
    ) -> tuple[float, float, float, float]:
        lines = text.split("\n")
        w = max(len(line) for line in lines) * fontsize * 0.6 * self.scale + 0.1
        h = len(lines) * fontsize * 1.25 * self.scale + 0.1
        x0 = {"left": x, "center": x - w / 2, "right": x - w}[ha]
        y0 = {"bottom": y, "center": y - h / 2, "top": y - h}[va]
        return (x0, y0, x0 + w, y0 + h)

    def _overlap(self, box: tuple[float, float, float, float]) -> float:
        """The area of ``box`` covered by the boxes already placed."""
        return sum(
            max(0.0, min(box[2], b[2]) - max(box[0], b[0])) * max(0.0, min(box[3], b[3]) - max(box[1], b[1]))
            for b in self.boxes
        )

    def place(self, candidates: Sequence[tuple[float, float, str, str]], text: str, fontsize: float, **kw: Any) -> None:
        """Write ``text`` at the first candidate (x, y, ha, va) whose box is free (else the least covered one)."""
        covered = [self._overlap(self._box(c[0], c[1], text, fontsize, c[2], c[3])) for c in candidates]
        free = [c for c, o in zip(candidates, covered, strict=True) if o == 0]
        chosen = free[0] if free else candidates[covered.index(min(covered))]
        x, y, ha, va = chosen
        self.boxes.append(self._box(x, y, text, fontsize, ha, va))
        self.ax.text(x, y, text, fontsize=fontsize, ha=ha, va=va, zorder=_Z_TEXT, **kw)


def _models_of(board: Board, who: str | Iterable[str] | None) -> str | list[Model] | None:
    """A unit id or side as is (``visibility`` resolves it); several unit ids or model ids to their models."""
    if who is None or isinstance(who, str):
        return who
    out: list[Model] = []
    ids = {m.id for m in board.models}
    for name in who:
        if name in ids:
            out.append(board.model(name))
        else:
            units = [u for u in board.units if name in (u.id, u.side)]
            if not units:
                board.unit(name)  # raises InputError naming the ids
            out.extend(m for u in units for m in u.models)
    return out


def _terrain_label(board: Board, piece: Terrain) -> str:
    eff = board.terrain_effective_size(piece)
    text = f"{piece.id}\nSize {piece.size}"
    if eff != piece.size:
        text += f" (eff. {eff})"
    if piece.token:
        text += ", Token"
    if piece.grass:
        text += ", GRASS"
    if piece.surface and eff >= 1:
        text += "\nHIGH GROUND" if eff >= 3 else "\nMID GROUND"
    return text


def _draw_terrain(ax: Axes, board: Board, cmap: mcolors.Colormap, norm: mcolors.Normalize, labels: _Labels) -> None:
    # lower pieces first, so stacked pieces are drawn over what they stand on
    for piece in sorted(board.terrain, key=lambda p: len(board.stack(p.id))):
        depth = len(board.stack(piece.id))
        eff = board.terrain_effective_size(piece)
        z = _Z_TERRAIN + 0.1 * depth
        poly = Polygon(
            piece.footprint,
            closed=True,
            facecolor=cmap(norm(eff)),
            edgecolor=GRASS_EDGE if piece.grass else "#333333",
            linewidth=1.0,
            linestyle="--" if piece.token else "-",
            hatch="///" if piece.grass else None,
            alpha=0.5 if piece.token else 0.9,
            zorder=z,
            gid=f"terrain:{piece.id}",
        )
        ax.add_patch(poly)
        xs = [p[0] for p in piece.footprint]
        ys = [p[1] for p in piece.footprint]
        w, h = max(xs) - min(xs), max(ys) - min(ys)
        label = _terrain_label(board, piece)
        bbox = {"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.6, "linewidth": 0}
        cx = (min(xs) + max(xs)) / 2
        if h > 2.5 * w or w > 2.5 * h:
            # a wall: the label next to it, not over the models behind it
            label = label.replace("\n", ", ", 1)
            cands = [(cx, max(ys) + 0.2, "center", "bottom"), (cx, min(ys) - 0.2, "center", "top")]
        else:
            centre = piece.polygon.representative_point()
            cands = [
                (cx, max(ys) - 0.2, "center", "top"),
                (cx, min(ys) + 0.2, "center", "bottom"),
                (centre.x, centre.y, "center", "center"),
                (cx, max(ys) + 0.2, "center", "bottom"),
            ]
        labels.place(cands, label, 6, color="#222222", bbox=bbox)
        for ap in piece.access_points:
            gid = f"access-point:{piece.id}"
            if len(ap) == 1:
                ax.plot(
                    [ap[0][0]],
                    [ap[0][1]],
                    marker="D",
                    markersize=6,
                    color=ACCESS_COLOUR,
                    markeredgecolor="white",
                    linestyle="none",
                    zorder=z + 0.05,
                    gid=gid,
                )
            else:
                ax.plot(
                    [ap[0][0], ap[1][0]],
                    [ap[0][1], ap[1][1]],
                    color=ACCESS_COLOUR,
                    linewidth=4,
                    solid_capstyle="butt",
                    zorder=z + 0.05,
                    gid=gid,
                )


def _draw_models(ax: Axes, board: Board, labels: _Labels) -> None:
    colours = side_colours(board)
    for unit in board.units:
        for m in unit.models:
            edge, width, style = "black", 0.8, "-"
            if m.flying:
                edge, width, style = FLYING_EDGE, 2.2, "--"
            if unit.hidden:
                style, width = ":", max(width, 1.5)
            ax.add_patch(
                Circle(
                    m.centre,
                    m.radius,
                    facecolor=colours[unit.side],
                    edgecolor=edge,
                    linewidth=width,
                    linestyle=style,
                    alpha=0.9,
                    zorder=_Z_MODEL,
                    gid=f"model:{m.id}",
                )
            )
    for m in board.models:
        r = m.radius + 0.08
        labels.place(
            [
                (m.x, m.y + r, "center", "bottom"),
                (m.x, m.y - r, "center", "top"),
                (m.x + r, m.y, "left", "center"),
                (m.x - r, m.y, "right", "center"),
            ],
            m.id,
            5.5,
            bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "alpha": 0.5, "linewidth": 0},
        )


def _block_text(sight: Sight) -> str:
    rule = sight.rule.replace("-", " ")
    pieces = list(dict.fromkeys(b.piece for b in sight.blocks))
    return f"{rule}: {', '.join(pieces)}" if pieces else rule


def _draw_sight(
    ax: Axes,
    board: Board,
    attackers: str | list[Model],
    targets: str | list[Model] | None,
    max_labels: int,
    labels: _Labels,
) -> tuple[int, int]:
    vis = visibility(board, attackers, targets)
    pairs = [(a, t) for a in vis.attackers for t in vis.targets if a != t]
    blocked = [p for p in pairs if not vis.sights[p].visible]
    label = len(blocked) <= max_labels
    for a_id, t_id in pairs:
        sight = vis.sights[(a_id, t_id)]
        a, t = board.model(a_id), board.model(t_id)
        if sight.visible:
            (p, q) = sight.trace if sight.trace is not None else (a.centre, t.centre)
            ax.plot(
                [p[0], q[0]],
                [p[1], q[1]],
                color=VISIBLE_COLOUR,
                linewidth=1.2,
                alpha=0.85,
                zorder=_Z_SIGHT,
                gid="sight-visible",
            )
        else:
            ax.plot(
                [a.x, t.x],
                [a.y, t.y],
                color=BLOCKED_COLOUR,
                linewidth=1.2,
                linestyle="--",
                alpha=0.85,
                zorder=_Z_SIGHT,
                gid="sight-blocked",
            )
            if label:
                fractions = (0.5, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85)
                labels.place(
                    [(a.x + f * (t.x - a.x), a.y + f * (t.y - a.y), "center", "center") for f in fractions],
                    _block_text(sight),
                    6,
                    color=BLOCKED_COLOUR,
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.8, "linewidth": 0},
                )
    return len(pairs) - len(blocked), len(pairs)


def _draw_engagement(ax: Axes, board: Board) -> int:
    pairs = engagement(board).pairs
    for a_id, b_id in pairs:
        a, b = board.model(a_id), board.model(b_id)
        ax.plot(
            [a.x, b.x],
            [a.y, b.y],
            color=ENGAGED_COLOUR,
            linewidth=4,
            alpha=0.9,
            solid_capstyle="round",
            zorder=_Z_ENGAGED,
            gid="engagement",
        )
    return len(pairs)


def _legend(ax: Axes, fig: Figure | None, board: Board, seen: int, blocked: int, engaged: bool) -> None:
    """The legend: in the figure's right margin when we made the figure, else beside the axes."""
    handles: list[Patch | Line2D] = [
        Patch(facecolor=c, edgecolor="black", label=f"side: {s}") for s, c in side_colours(board).items()
    ]
    if any(m.flying for m in board.models):
        handles.append(Patch(facecolor="white", edgecolor=FLYING_EDGE, linewidth=2.2, linestyle="--", label="Flying"))
    if any(u.hidden for u in board.units):
        handles.append(Patch(facecolor="white", edgecolor="black", linewidth=1.5, linestyle=":", label="HIDDEN"))
    if any(p.grass for p in board.terrain):
        handles.append(Patch(facecolor="white", edgecolor=GRASS_EDGE, hatch="///", label="GRASS"))
    if any(p.token for p in board.terrain):
        handles.append(Patch(facecolor="white", edgecolor="#333333", linestyle="--", label="Token"))
    if any(p.access_points for p in board.terrain):
        handles.append(
            Line2D(
                [], [], marker="D", color=ACCESS_COLOUR, markeredgecolor="white", linestyle="none", label="ACCESS POINT"
            )
        )
    if seen:
        handles.append(Line2D([], [], color=VISIBLE_COLOUR, label="Visible (a free trace)"))
    if blocked:
        handles.append(Line2D([], [], color=BLOCKED_COLOUR, linestyle="--", label="not Visible"))
    if engaged:
        handles.append(Line2D([], [], color=ENGAGED_COLOUR, linewidth=4, label="Engaged"))
    if fig is not None:
        fig.legend(handles=handles, loc="outside right upper", fontsize=7, frameon=False)
    else:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)


def _names(who: str | Iterable[str] | list[Model]) -> str:
    if isinstance(who, str):
        return who
    return ", ".join(m.id if isinstance(m, Model) else m for m in who)


def plot_board(
    board: Board,
    attackers: str | Sequence[str] | None = None,
    targets: str | Sequence[str] | None = None,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    max_labels: int = 12,
) -> Figure:
    """Draw the battlefield top-down, to scale in inches; see the module text for what is shown.

    Args:
        board: the battlefield.
        attackers: a unit id or side (or several unit / model ids) whose models draw Line of
            Sight; None draws no sight lines.
        targets: the same for the targets; None means every model of the other sides.
        ax: draw into these axes (their figure is returned); by default a new figure.
        title: the figure title; by default the table size and the Line of Sight summary.
        max_labels: write the blocking rule on the blocked lines only when there are at most this many.

    Returns:
        The figure (``matplotlib.figure.Figure``, no pyplot).
    """
    own = ax is None
    if ax is None:
        fig = Figure(figsize=(10, max(4.0, 7.4 * board.depth / board.width + 1.4)), layout="constrained")
        ax = fig.add_subplot()
    else:
        root = ax.get_figure(root=True)
        if not isinstance(root, Figure):
            raise ValueError("ax must belong to a matplotlib Figure")
        fig = root

    ax.add_patch(
        Rectangle(
            (0, 0),
            board.width,
            board.depth,
            facecolor=TABLE_COLOUR,
            edgecolor="black",
            linewidth=1.5,
            zorder=_Z_TABLE,
            gid="table",
        )
    )
    top = max((board.terrain_effective_size(p) for p in board.terrain), default=0)
    top = max(top, 3)
    cmap = mcolors.ListedColormap(colormaps["YlOrBr"](np.linspace(0.05, 0.7, top + 1)))
    norm = mcolors.BoundaryNorm([i - 0.5 for i in range(top + 2)], top + 1)
    ax.set_xlim(-_MARGIN, board.width + _MARGIN)
    ax.set_ylim(-_MARGIN, board.depth + _MARGIN)
    pos = ax.get_position()
    axes_points = (
        min(
            pos.width * fig.get_figwidth() / (board.width + 2 * _MARGIN),
            pos.height * fig.get_figheight() / (board.depth + 2 * _MARGIN),
        )
        * 72
    )
    labels = _Labels(ax, 1.0 / axes_points)
    for m in board.models:  # labels keep off the bases
        labels.boxes.append((m.x - m.radius, m.y - m.radius, m.x + m.radius, m.y + m.radius))
    _draw_terrain(ax, board, cmap, norm, labels)
    _draw_models(ax, board, labels)

    heading = f'Battlefield {board.width:g}" x {board.depth:g}"'
    n_sight = seen = 0
    if attackers is not None:
        att = _models_of(board, attackers)
        tgt = _models_of(board, targets)
        assert att is not None
        seen, n_sight = _draw_sight(ax, board, att, tgt, max_labels, labels)
        heading += f" -- Line of Sight {_names(att)} → {_names(tgt) if tgt is not None else 'enemies'}"
        heading += f": {seen} of {n_sight} pairs Visible"
    n_engaged = _draw_engagement(ax, board)
    if n_engaged:
        heading += f" -- {n_engaged} Engaged pair" + ("s" if n_engaged > 1 else "")

    if board.terrain:
        bar = fig.colorbar(
            ScalarMappable(norm=norm, cmap=cmap), ax=ax, location="bottom", shrink=0.5, aspect=40, pad=0.02
        )
        bar.set_ticks(list(range(top + 1)))
        bar.set_label("terrain Effective Size (own Size + Size stacked on)", fontsize=8)
        bar.ax.tick_params(labelsize=7)
    _legend(ax, fig if own else None, board, seen, n_sight - seen, n_engaged > 0)

    ax.set_aspect("equal")
    ax.set_xlabel("x (inches)")
    ax.set_ylabel("y (inches)")
    ax.grid(True, color="#cccccc", linewidth=0.4, zorder=-1)
    ax.set_axisbelow(True)
    ax.set_title(title if title is not None else heading, fontsize=10)
    return fig


__all__ = ["NAMED_SIDE_COLOURS", "SIDE_COLOURS", "plot_board", "side_colours"]
