"""``mathhammer compare UNIT --vs TARGET`` and ``mathhammer matchup A B``.

No ``from __future__ import annotations`` here: typer reads the commands' annotations at every start, and
strings it would evaluate (compile) one by one; objects it reads as they are.
"""

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import PROFILES_HELP, handle_errors, run_options
from .queries import renamed

R = "Run"


def register(app: typer.Typer) -> None:
    app.command("compare", no_args_is_help=True)(compare)
    app.command("matchup", no_args_is_help=True)(matchup)


def _check_output(flag: str, path: str | None, suffix: str) -> Path | None:
    """Refuse an output path before any work: wrong suffix or a folder that cannot be written."""
    from ..errors import InputError

    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() != suffix:
        raise InputError(flag, path, f"a file name ending in {suffix}")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise InputError(flag, path, "a file in an existing folder you can write to")
    return p


def _outputs(paths: dict[str, Path | None]) -> Any:
    """The CSV and the picture as one :class:`~mathhammer.outputs.Outputs` transaction, begun before the work:
    both written or neither (a no-op context without them)."""
    from contextlib import nullcontext

    if all(p is None for p in paths.values()):
        return nullcontext()  # nothing to write: the outputs module (secrets, socket) not even imported
    from ..outputs import Outputs, Target

    targets = [
        Target(p, flag, "file", f"a {p.suffix} file in an existing folder you can write to")
        for flag, p in paths.items()
        if p is not None
    ]
    return Outputs(targets)


@handle_errors
def compare(
    unit: Annotated[str, typer.Argument(help="The unit whose loadouts are compared.")],
    vs: Annotated[list[str], typer.Option("--vs", metavar="TARGET[:MODELS]", help="A target unit, repeatable.")],
    comp: Annotated[
        list[str] | None, typer.Option("--comp", metavar="N", help="Only these compositions (models).")
    ] = None,
    upgrades: Annotated[
        str | None, typer.Option("--upgrades", metavar="A,B", help="Combine only these upgrades.")
    ] = None,
    use: Annotated[list[str] | None, typer.Option("--use", metavar="NAME", help="Ability switched on.")] = None,
    phase: Annotated[str, typer.Option("--phase", help="assault or combat.")] = "assault",
    distance: Annotated[str | None, typer.Option("--range", metavar="INCHES", help="Distance to targets.")] = None,
    rank_by: Annotated[
        str, typer.Option("--rank-by", help="kills-per-100, damage-per-100, p-destroy or damage (gf: wounds).")
    ] = "kills-per-100",
    profiles: Annotated[
        list[str] | None,
        typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP),
    ] = None,
    exact: Annotated[bool, typer.Option("--exact", help="Exact (the default).", rich_help_panel=R)] = False,
    trials: Annotated[str | None, typer.Option("--trials", metavar="N", rich_help_panel=R)] = None,
    seed: Annotated[str, typer.Option("--seed", metavar="S", rich_help_panel=R)] = "0",
    tolerance: Annotated[str | None, typer.Option("--tolerance", metavar="E", rich_help_panel=R)] = None,
    method: Annotated[str, typer.Option("--method", rich_help_panel=R)] = "count",
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
    csv: Annotated[str | None, typer.Option("--csv", metavar="FILE", help="Write the rows as CSV.")] = None,
    plot: Annotated[
        str | None, typer.Option("--plot", metavar="FILE.png", help="P(>=k) step lines, a panel per target.")
    ] = None,
    plot_top: Annotated[
        str, typer.Option("--plot-top", metavar="N", help="Loadouts drawn per target, best ranked first.")
    ] = "10",
    top: Annotated[
        str | None,
        typer.Option(
            "--top",
            metavar="N",
            help="The best N distinct loadouts printed per target (table: 15; --json: every row; --csv always every "
            "row); 0 or all: every row.",
        ),
    ] = None,
    all_loadouts: Annotated[
        bool,
        typer.Option(
            "--all-loadouts", help="List the loadouts folded into an equal, cheaper one (as '= <its label>')."
        ),
    ] = False,
    system: Annotated[str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf).")] = (
        "starcraft"
    ),
    melee: Annotated[bool, typer.Option("--melee", help="Grimdark: melee, the charge resolved both ways.")] = False,
    charging: Annotated[bool, typer.Option("--charging", help="Grimdark: the attacker charged.")] = False,
    cover: Annotated[bool, typer.Option("--cover", help="Grimdark: targets in cover.")] = False,
) -> None:
    """Every composition and upgrade combination of UNIT against each target, ranked per target.

    A loadout that makes the same attack as a cheaper one in the situation asked (an upgrade for the other
    phase, or one that acts only Within a shorter range) is folded into its row ("= 3 more"); --all-loadouts
    lists them. The table shows the best 15 per target (--top).

    Example: mathhammer compare Marine --vs Zergling --vs Roach --range 10
    """
    from .. import systems
    from ..validate import whole
    from .compare_table import TOP_DEFAULT, annotate, compare_table, range_text, top_rows

    opts = run_options(exact, trials, seed, tolerance, method)
    drawn = whole("--plot-top", plot_top, 1, 50, "loadouts per panel")
    shown = _top(top)
    csv_path = _check_output("--csv", csv, ".csv")
    png_path = _check_output("--plot", plot, ".png")
    game = systems.get(system, "--system")
    given = {"--melee": melee or None, "--charging": charging or None, "--cover": cover or None}
    query, names = _query(game, unit, vs[0] if vs else "", phase, distance, use or [], given)
    sizes = [whole("--comp", c, 1, 99, "models") for c in comp or []]
    pool = [p for p in upgrades.split(",") if p.strip()] if upgrades is not None else None
    with _outputs({"--csv": csv_path, "--plot": png_path}) as tx:
        with renamed(names):
            roster = game.load_roster(profiles or [])
            rows = game.compare(roster, unit, vs, query, opts, sizes, pool, rank_by)
        annotate(rows, game.words.cost, game.words.dealt)
        _write(tx, rows, game.words, csv_path, png_path, drawn)
    if as_json:
        typer.echo(json.dumps(top_rows(rows, shown)))
        return
    situation = {
        "range": range_text(query.distance),
        "use": "using " + ", ".join(query.use) if query.use else "no ability used",
        "options": ", ".join(f"{flag[2:]}" for flag, value in given.items() if value),
    }
    seed_used = None if opts.exact else opts.seed
    shown = TOP_DEFAULT if top is None else shown
    typer.echo(compare_table(rows, game.words, situation, shown, all_loadouts, seed_used))


def _top(text: str | None) -> int | None:
    """``--top``: None (not given), 0 (``all``: every row) or a number of rows per target."""
    from ..validate import whole

    if text is None:
        return None
    if str(text).strip().lower() == "all":
        return 0
    return whole("--top", text, 0, 100_000, "rows per target (0 or all: every row)")


#: How compare's and matchup's errors name their flags.
COMPARE_FIELDS = {
    "unit": "UNIT", "attacker": "UNIT", "target": "--vs", "vs": "--vs", "compositions": "--comp", "models": "--comp",
    "upgrades": "--upgrades", "use": "--use", "phase": "--phase", "distance": "--range", "range": "--range",
    "rank_by": "--rank-by", "cover": "--cover", "charging": "--charging", "a": "A", "b": "B",
    "a_models": "A", "b_models": "B", "a_upgrades": "--a-upgrade", "b_upgrades": "--b-upgrade",
    "target_upgrades": "--b-upgrade", "target_models": "B", "a_use": "--a-use", "b_use": "--b-use",
    "target_use": "--b-use",
}  # fmt: skip


def _query(
    game: Any, unit: str, target: str, phase: str, distance: str | None, use: list[str], given: dict[str, Any]
) -> tuple[Any, dict[str, str]]:
    """A query of compare or matchup: the phase (``--melee`` for a system with a melee phase), the range and
    the situation flags the system knows; any other is refused, naming the flag."""
    from ..errors import InputError
    from ..systems import Query
    from ..validate import number
    from .queries import OPTION_FLAGS, melee_phase

    fields: dict[str, Any] = {"phase": None if phase == "assault" else phase}
    options: dict[str, Any] = {}
    for flag, value in given.items():
        if value is None:
            continue
        if flag == "--melee":
            fields["phase"] = melee_phase(game, fields["phase"])
        elif OPTION_FLAGS[flag] not in game.options:
            raise InputError(flag, value, f"not with --system {game.name} ({game.title} has no such situation)")
        else:
            options[OPTION_FLAGS[flag]] = value
    dist = None if distance is None else number("--range", distance, 0, 999, "distance in inches")
    return Query(unit, target, use=tuple(use), phase=fields["phase"], distance=dist, options=options), COMPARE_FIELDS


def _write(
    tx: Any, rows: list[dict[str, Any]], words: Any, csv_path: Path | None, png_path: Path | None, top: int
) -> None:
    """Write the CSV and the plot into the transaction's temporaries (committed together when it ends)."""
    i = 0
    if csv_path is not None:
        import pandas as pd

        with tx.writing(i) as tmp:
            pd.DataFrame(rows).to_csv(tmp, index=False)
        i += 1
    if png_path is not None:
        fig = _plot(rows, words, top)
        with tx.writing(i) as tmp:
            fig.savefig(tmp, dpi=110, format="png")


def _plot(rows: list[dict[str, Any]], words: Any, top: int) -> Any:
    """P(>= k models destroyed) step lines: the ``top`` best-ranked distinct loadouts, one panel per target (a
    loadout folded into an equal one would draw the same line)."""
    from matplotlib.figure import Figure

    targets = list(dict.fromkeys(r["target"] for r in rows))
    fig = Figure(figsize=(6 * len(targets), 4.5), layout="constrained")
    axes = fig.subplots(1, len(targets), squeeze=False)[0]
    for ax, target in zip(axes, targets, strict=True):
        block = sorted((x for x in rows if x["target"] == target and x.get("same_as") is None), key=lambda x: x["rank"])
        for r in block[:top]:
            ks = sorted(int(k[5:]) for k in r if k.startswith("p_ge_"))
            ax.step([0, *ks], [1.0] + [r[f"p_ge_{k}"] for k in ks], where="post", label=_label(r, words))
        ax.set_title(f"vs {target} (best {top} by rank)")
        ax.set_xlabel("models destroyed, k")
        ax.set_ylabel("P(≥ k)")
        ax.set_ylim(0, 1.02)
        ax.legend(fontsize=7)
    return fig


def _label(r: dict[str, Any], words: Any) -> str:
    return f"{r['label']} ({r[words.cost]} {words.cost})"


@handle_errors
def matchup(
    a: Annotated[str, typer.Argument(help="First unit (NAME or NAME:MODELS).")],
    b: Annotated[str, typer.Argument(help="Second unit (NAME or NAME:MODELS).")],
    a_upgrade: Annotated[
        list[str] | None, typer.Option("--a-upgrade", metavar="NAME", help="An upgrade side A buys, repeatable.")
    ] = None,
    b_upgrade: Annotated[
        list[str] | None, typer.Option("--b-upgrade", metavar="NAME", help="An upgrade side B buys, repeatable.")
    ] = None,
    a_use: Annotated[
        list[str] | None, typer.Option("--a-use", metavar="NAME", help="An ability side A switches on, repeatable.")
    ] = None,
    b_use: Annotated[
        list[str] | None, typer.Option("--b-use", metavar="NAME", help="An ability side B switches on, repeatable.")
    ] = None,
    distance: Annotated[str | None, typer.Option("--range", metavar="INCHES", help="Distance between units.")] = None,
    profiles: Annotated[list[str] | None, typer.Option("--profiles", metavar="DIR", help=PROFILES_HELP)] = None,
    exact: Annotated[bool, typer.Option("--exact", rich_help_panel=R)] = False,
    trials: Annotated[str | None, typer.Option("--trials", metavar="N", rich_help_panel=R)] = None,
    seed: Annotated[str, typer.Option("--seed", metavar="S", rich_help_panel=R)] = "0",
    tolerance: Annotated[str | None, typer.Option("--tolerance", metavar="E", rich_help_panel=R)] = None,
    method: Annotated[str, typer.Option("--method", rich_help_panel=R)] = "count",
    as_json: Annotated[bool, typer.Option("--json")] = False,
    system: Annotated[str, typer.Option("--system", help="Game system: starcraft (sc) or grimdark (gf).")] = (
        "starcraft"
    ),
    cover: Annotated[bool, typer.Option("--cover", help="Grimdark: both units in cover against shooting.")] = False,
) -> None:
    """Both directions, side by side, in every phase (StarCraft TMG: Assault Phase ranged, Combat Phase).

    Example: mathhammer matchup Marine:9 Zergling:18 --range 8
    """
    import dataclasses

    from .. import systems

    opts = run_options(exact, trials, seed, tolerance, method)
    game = systems.get(system, "--system")
    query, names = _query(game, a, b, "assault", distance, [], {"--cover": cover or None})
    query = dataclasses.replace(
        query,
        upgrades=tuple(a_upgrade or ()),
        target_upgrades=tuple(b_upgrade or ()),
        use=tuple(a_use or ()),
        target_use=tuple(b_use or ()),
    )
    with renamed(names):
        rows = game.matchup(game.load_roster(profiles or []), query, opts)
    if as_json:
        typer.echo(json.dumps(rows))
        return
    from .compare_table import engine_text, matchup_table, range_text

    situation = range_text(query.distance) + ("; cover" if cover else "")
    engine = engine_text((row.get("trials", 0) for row in rows), None if opts.exact else opts.seed)
    typer.echo(matchup_table(rows, game.words.dealt, situation, engine))
