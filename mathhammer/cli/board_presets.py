"""The Deployment Cards' layouts on the command line: ``board presets`` lists them, ``board show --deployment CARD
[--terrain NAME]`` draws one (docs/board.md, Deployment presets).

A card's markers and Zones of Influence are read off its picture; the terrain presets are our own layouts
(``profiles/missions.toml``, :mod:`mathhammer.scenario.missions.deployments`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from ..errors import InputError
from .common import handle_errors

ZONE_COLOURS = {"red": "#d62728", "blue": "#1f77b4"}
MARKER_COLOURS = {1: "#d62728", 3: "#d62728", 2: "#1f77b4", 4: "#1f77b4", 5: "#2ca02c"}


def find_deployment(card: str, flag: str = "--deployment") -> dict[str, Any]:
    """The Deployment Card named ``card`` (any case, spaces or not), or the one-line refusal naming ``flag``."""
    from ..scenario.loader import deployment_card

    dep, msg = deployment_card(card)
    if dep is None:
        raise InputError(flag, card, msg.split("allowed: ", 1)[1])
    return dep


def preset_board(card: str, preset: str) -> tuple[Any, dict[str, Any]]:
    """The battlefield of Deployment Card ``card`` with its terrain preset ``preset`` (no units), and the card."""
    from ..board.loader import BattlefieldSpec, BoardFile, TerrainSpec, build_board
    from ..scenario.missions.deployments import PRESET_PREFIX, find_preset

    dep = find_deployment(card)
    terrain, _ = find_preset(dep, PRESET_PREFIX + preset)
    if terrain is None:
        names = ", ".join(p["name"] for p in dep["presets"])
        raise InputError("--terrain", preset, f"a terrain preset of {dep['name']}: {names}")
    spec = BoardFile(
        battlefield=BattlefieldSpec(width=dep["width"], depth=dep["depth"]),
        terrain=[TerrainSpec.model_validate(t) for t in terrain],
    )
    return build_board(spec, f"{dep['name']} ({preset})"), dep


def draw_layout(ax: Any, dep: dict[str, Any]) -> None:
    """Draw the card's Zones of Influence (shaded, its Entry Edges as thick lines) and Mission Markers on ``ax``."""
    from matplotlib.patches import Circle, Rectangle

    for z in dep["zones"]:
        colour = ZONE_COLOURS[z["player"]]
        ax.add_patch(
            Rectangle((z["x0"], z["y0"]), z["x1"] - z["x0"], z["y1"] - z["y0"], facecolor=colour, alpha=0.18, lw=0)
        )
    w, d = dep["width"], dep["depth"]
    ends = {"south": ((0, 0), (w, 0)), "north": ((0, d), (w, d)), "west": ((0, 0), (0, d)), "east": ((w, 0), (w, d))}
    for player, edge in dep["entry_edges"].items():
        (x0, y0), (x1, y1) = ends[edge]
        ax.plot([x0, x1], [y0, y1], color=ZONE_COLOURS[player], lw=4, alpha=0.7, solid_capstyle="butt")
    for m in dep["markers"]:
        colour = MARKER_COLOURS[m["number"]]
        ax.add_patch(Circle((m["x"], m["y"]), 0.75, facecolor="white", edgecolor=colour, lw=2, zorder=5))
        ax.text(m["x"], m["y"], str(m["number"]), ha="center", va="center", color=colour, fontsize=8, zorder=6)


def title(dep: dict[str, Any], preset: str) -> str:
    edges = ", ".join(f"{p} {e}" for p, e in dep["entry_edges"].items())
    exact = "" if dep["edges_exact"] else " (engine's nearest whole edges; zones as drawn on the card)"
    return (
        f'{dep["name"]} ({dep["scale"]}, {dep["width"]}x{dep["depth"]}"): markers and zones from the card; '
        f"terrain preset {preset!r} is ours, not the card's\nEntry Edges: {edges}{exact}"
    )


def _summary(dep: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "name", "scale", "width", "depth", "source", "symmetry", "swaps_players", "entry_edges")
    out = {k: dep[k] for k in keys}
    out["edges_exact"] = dep["edges_exact"]
    out["markers"] = dep["markers"]
    out["zones"] = dep["zones"]
    out["presets"] = [{"name": p["name"], "note": p["note"], "terrain": p["terrain"]} for p in dep["presets"]]
    return out


@handle_errors
def presets(
    deployment: Annotated[
        str | None, typer.Option("--deployment", metavar="CARD", help="Only this Deployment Card.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Every field as one JSON object.")] = False,
) -> None:
    """List the Deployment Cards' markers and Entry Edges (from the card pictures) and their terrain presets (ours;
    a scenario asks for one with terrain = "preset:NAME", `board show --deployment CARD --terrain NAME` draws it)."""
    from ..scenario.loader import deployment_cards

    cards = [find_deployment(deployment)] if deployment is not None else deployment_cards()
    if as_json:
        typer.echo(json.dumps({"deployments": [_summary(d) for d in cards]}, indent=2))
        return
    for dep in cards:
        edges = ", ".join(f"{p} {e}" for p, e in dep["entry_edges"].items())
        marks = " ".join(f"{m['number']}@({m['x']:g},{m['y']:g})" for m in dep["markers"])
        typer.echo(f"{dep['name']} ({dep['scale']}, {dep['width']}x{dep['depth']}): {dep['symmetry']}")
        typer.echo(f"  markers: {marks}")
        typer.echo(
            f"  entry edges: {edges}" + ("" if dep["edges_exact"] else " (nearest whole edges to the card's zones)")
        )
        for p in dep["presets"]:
            typer.echo(f"  preset:{p['name']}: {len(p['terrain'])} pieces (our layout)")


__all__ = ["draw_layout", "find_deployment", "preset_board", "presets", "title"]
