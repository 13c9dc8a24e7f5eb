"""The tables of ``mathhammer compare`` and ``mathhammer matchup``, read at a glance (issue 28 points 4 and 7).

A compare table per target: one header line saying the situation (phase, range, abilities used, the target's
state, the engine), the best ``--top`` distinct loadouts, and a last line saying what was left out. A loadout
whose compiled attack equals a cheaper (or same-cost, better-ranked) one's makes the same attack, so it has the
same distribution of results in either engine: it is folded into that row ("= 2 more") and listed on request
("= <base label>"). Labels are whole: long ones wrap at " + ", never cut.

Standard library only (and :mod:`mathhammer.numbers`): every compare imports it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from ..numbers import probability, share

#: Rows per target in the human table unless ``--top`` says otherwise.
TOP_DEFAULT = 15

#: Width a loadout label wraps at (a single upgrade name longer than this stays whole).
LABEL_WIDTH = 48


def label(row: dict[str, Any]) -> str:
    """The loadout of a compare row, whole: models, unit and every upgrade.

    >>> label({"models": 9, "unit": "Marine", "upgrades": "Bayonet + Grenades - Frag"})
    '9 Marine + Bayonet + Grenades - Frag'
    >>> label({"models": 6, "unit": "Marine", "upgrades": "-"})
    '6 Marine'
    """
    ups = row["upgrades"]
    return f"{row['models']} {row['unit']}" + ("" if ups in ("-", "") else f" + {ups}")


def annotate(rows: list[dict[str, Any]], cost: str, dealt: str) -> None:
    """Add to every row (in place) its ``label``, the ``same_as`` label of the row it equals (None: its own row)
    and the standard errors of the per-100 columns.

    Two rows against one target are equal when the system says they make the same compiled attack (one
    ``attack_id``): the same Batches against the same target, so the same distribution of results, exact or
    Monte Carlo (the same run). The one kept is the cheapest, then the best ranked. A row without an
    ``attack_id`` equals no other.
    """
    for r in rows:
        r["label"] = label(r)
        per = 100.0 / r[cost] if r[cost] else math.nan
        r[f"{dealt}_per_100_se"] = r[f"{dealt}_se"] * per
        r["kills_per_100_se"] = r["destroyed_se"] * per
    for target in dict.fromkeys(r["target"] for r in rows):
        groups: dict[Any, list[dict[str, Any]]] = {}
        for r in (x for x in rows if x["target"] == target):
            key = r.get("attack_id")
            groups.setdefault(("row", id(r)) if key is None else key, []).append(r)
        for group in groups.values():
            base = min(group, key=lambda r: (r[cost], r["rank"]))
            for r in group:
                r["same_as"] = None if r is base else base["label"]


def top_rows(rows: list[dict[str, Any]], top: int | None) -> list[dict[str, Any]]:
    """The rows of the best ``top`` distinct loadouts per target and the rows equal to them (None or 0: all)."""
    if not top:
        return rows
    out = []
    for target in dict.fromkeys(r["target"] for r in rows):
        block = sorted((r for r in rows if r["target"] == target), key=lambda r: r["rank"])
        bases = [r for r in block if r.get("same_as") is None][:top]
        kept = {r["label"] for r in bases}
        out += [r for r in block if (r.get("same_as") or r["label"]) in kept]
    return out


def wrap(parts: Sequence[str], width: int) -> list[str]:
    """``parts`` joined by spaces into lines of at most ``width`` (a part longer than that on a line of its own).

    >>> wrap(["9 Marine", "+ Rocket Launcher", "+ Grenades - Frag"], 26)
    ['9 Marine + Rocket Launcher', '+ Grenades - Frag']
    """
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += " " + part
        else:
            lines.append(part)
    return lines


def _parts(text: str) -> list[str]:
    """A label cut only before each " + " (the pieces a wrapped label is made of)."""
    head, *rest = text.split(" + ")
    return [head, *(f"+ {p}" for p in rest)]


def mean_cell(v: float, se: float, n: int | None, d: int = 3) -> str:
    """A mean, ± its standard error under Monte Carlo (``n`` trials; None: exact).

    >>> mean_cell(10.3571, 0.0462, 2000)
    '10.357 ± 0.046'
    >>> mean_cell(0.0, 0.0, 2000)
    '0.000 (every trial)'
    >>> mean_cell(4.8125, 0.0, None)
    '4.812'
    """
    if n is None or math.isnan(v):
        return f"{v:.{d}f}"
    if se <= 0.0:
        return f"{v:.{d}f} (every trial)"
    return f"{v:.{d}f} ± {se:.{d}f}"


def p_cell(p: float, se: float, n: int | None) -> str:
    """A probability as a percentage with 2 decimals, one format for the whole column (issue 28 point 5): a
    chance that is not 0 but rounds to 0.00% prints "<0.01%" (never "0.00%"), a standard error likewise; an
    estimate of 0 or 1 from ``n`` Monte Carlo trials prints its one-sided 95% bound.

    >>> p_cell(0.2867, 0.0045, 2000)
    '28.67% ± 0.45%'
    >>> p_cell(2.0e-5, 1.4e-5, 100_000)
    '<0.01% ± <0.01%'
    >>> p_cell(4.8e-5, 0.0, None)
    '<0.01%'
    >>> p_cell(0.0, 0.0, 2000)
    '< 0.15% (95%)'
    >>> p_cell(1.0, 0.0, None)
    '100.00%'
    """
    if n is not None and (p <= 0.0 or p >= 1.0):
        return share(p, se, n)
    text = _percent(p)
    return text if n is None else f"{text} ± {_percent(se)}"


def _percent(p: float) -> str:
    if 0.0 < p < 0.00005:
        return "<0.01%"
    if 0.99995 < p < 1.0:
        return ">99.99%"
    return f"{p:.2%}"


def result_cells(row: dict[str, Any], dealt: str, n: int | None) -> list[str]:
    """Mean dealt, mean models destroyed and P(destroy), each ± its standard error under Monte Carlo (an estimate
    of 0 or 1 as its one-sided 95% bound)."""
    return [
        mean_cell(row[f"{dealt}_mean"], row[f"{dealt}_se"], n),
        mean_cell(row["destroyed_mean"], row["destroyed_se"], n),
        p_cell(row["p_destroy"], row["p_destroy_se"], n),
    ]


def engine_text(trials: Iterable[int], seed: int | None) -> str:
    """``exact`` or ``Monte Carlo, N trials, seed S`` (a range of trials when ``--tolerance`` chose them).

    >>> engine_text([0, 0], 0)
    'exact'
    >>> engine_text([20000, 20000], 7)
    'Monte Carlo, 20,000 trials, seed 7'
    >>> engine_text([2000, 8000], 0)
    'Monte Carlo, 2,000 to 8,000 trials (--tolerance), seed 0'
    """
    ns = sorted({int(t or 0) for t in trials} - {0})  # 0: a row without a run (no weapon)
    if not ns:
        return "exact"
    many = f"{ns[0]:,} trials" if len(ns) == 1 else f"{ns[0]:,} to {ns[-1]:,} trials (--tolerance)"
    return f"Monte Carlo, {many}, seed {seed}"


def range_text(distance: float | None) -> str:
    """The ``--range`` as a header says it.

    >>> range_text(10.0)
    'range 10"'
    >>> range_text(None)
    'no --range (in range, beyond every "Within")'
    """
    if distance is None:
        return 'no --range (in range, beyond every "Within")'
    return f'range {distance:g}"'


def _grid(lines: list[tuple[list[str], list[str]]], right: set[int]) -> list[str]:
    """Rows of cells as aligned text: each row is (cells of its first line, label lines after the first).

    The second cell is the label (left-aligned, its other lines below it); the cells in ``right`` right-aligned.
    """
    widths = [max(len(cells[i]) for cells, _ in lines) for i in range(len(lines[0][0]))]
    out = []
    for cells, more in lines:
        text = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        out.append("  ".join(text).rstrip())
        out += [(" " * (widths[0] + 2) + m).rstrip() for m in more]
    return out


def compare_table(
    rows: list[dict[str, Any]],
    words: Any,
    situation: dict[str, str],
    top: int | None,
    equal: bool,
    seed: int | None,
) -> str:
    """The human table of ``compare``: per target, the situation line, the best ``top`` distinct loadouts
    (None or 0: all), their equal loadouts when ``equal``; then one line saying what was left out."""
    dealt, cost = words.dealt, words.cost
    out: list[str] = []
    below = folded = 0
    for target in dict.fromkeys(r["target"] for r in rows):
        block = sorted((r for r in rows if r["target"] == target), key=lambda r: r["rank"])
        first = block[0]
        state = first.get("target_state") or target
        head = [f"{first['phase']} phase", situation["range"], situation["use"], f"target: {state}"]
        head += [situation["options"]] if situation["options"] else []
        head.append(engine_text((r["trials"] for r in block), seed))
        out.append(f"vs {target}: " + "; ".join(head))
        bases = [r for r in block if r["same_as"] is None]
        shown = bases[:top] if top else bases
        below += len(bases) - len(shown)
        width = max(LABEL_WIDTH, *(len(p) for r in block for p in _parts(r["label"])))
        grid: list[tuple[list[str], list[str]]] = [
            (["#", "loadout", cost, dealt, "destroyed", "P(destroy)", f"{dealt}/100", "kills/100"], [])
        ]
        for i, base in enumerate(shown, 1):
            same = [r for r in block if r["same_as"] == base["label"]]
            extra = [f"(= {len(same)} more)"] if same else []
            grid.append(_line(str(i), _parts(base["label"]) + extra, base, dealt, cost, width))
            if equal:
                for r in same:
                    parts = [*_parts(r["label"]), f"= {base['label']}"]
                    grid.append(_line("=", parts, r, dealt, cost, width))
            else:
                folded += len(same)
        out += _grid(grid, {0, 2, 3, 4, 5, 6, 7})
        out.append("")
    left = []
    if below:
        rows_ = "row" if below == 1 else "rows"
        left.append(f"{below} {rows_} below the top {top} per target (--top N or --top all shows them)")
    if folded:
        left.append(f"{folded} equal to a cheaper loadout, folded into its row (--all-loadouts lists them)")
    if left:
        out.append("Left out: " + "; ".join(left) + "; --json and --csv hold every row.")
    return "\n".join(out).rstrip()


def _line(
    rank: str, parts: list[str], r: dict[str, Any], dealt: str, cost: str, width: int
) -> tuple[list[str], list[str]]:
    n = r["trials"] or None
    first, *more = wrap(parts, width)
    cells = [
        rank,
        first,
        str(r[cost]),
        *result_cells(r, dealt, n),
        mean_cell(r[f"{dealt}_per_100"], r[f"{dealt}_per_100_se"], n),
        mean_cell(r["kills_per_100"], r["kills_per_100_se"], n),
    ]
    return cells, more


def _who_wins(row: dict[str, Any]) -> str:
    """P(win/draw/lose) of a melee, each ± its standard error under Monte Carlo (0 or 1: its 95% bound).

    >>> _who_wins({"p_win": 0.9, "p_draw": 0.1, "p_lose": 0.0, "trials": 0})
    '0.900/0.100/0.000'
    >>> _who_wins({"p_win": 0.9, "p_draw": 0.1, "p_lose": 0.0, "trials": 1000})
    '0.900 ± 0.009 / 0.100 ± 0.009 / < 0.0030 (95%)'
    """
    ps = [row["p_win"], row["p_draw"], row["p_lose"]]
    n = row.get("trials") or None
    if n is None:
        return "/".join(f"{p:.3f}" for p in ps)
    return " / ".join(probability(p, math.sqrt(p * (1 - p) / n), n, 3) for p in ps)


def matchup_table(rows: list[dict[str, Any]], dealt: str, situation: str, engine: str) -> str:
    """The human table of ``matchup``: a header line naming side A and side B whole (upgrades, abilities used),
    the situation and the engine, then both directions in every phase, each side as A or B and its unit."""
    side = -1  # each direction's rows begin with the first phase: A attacks B, then B attacks A
    names: list[tuple[str, str]] = []
    for row in rows:
        side += row["phase"] == rows[0]["phase"]
        names.append(("AB"[side % 2], "AB"[(side + 1) % 2]))
    full = {ab: row["attacker"] for (ab, _), row in zip(names, rows, strict=True)}
    head = " and ".join(f"{ab}: {label}" for ab, label in full.items())
    melee = any("p_win" in row for row in rows)  # a melee resolved both ways: who wins it
    titles = ["attacker", "target", "phase", dealt, "destroyed", "P(destroy)"]
    grid: list[tuple[list[str], list[str]]] = [(titles + (["P(win/draw/lose melee)"] if melee else []), [])]
    for (a, b), row in zip(names, rows, strict=True):
        cells = [f"{a}: {row['attacker'].split(' (')[0]}", f"{b}: {row['target'].split(' (')[0]}", row["phase"]]
        if not row["batches"]:
            cells += ["(no weapon)", "", ""]
        else:
            cells += result_cells(row, dealt, row.get("trials") or None)
        if melee:
            cells.append(_who_wins(row) if "p_win" in row else "")
        grid.append((cells, []))
    return "\n".join(["; ".join([head, situation, engine]), *_grid(grid, {3, 4, 5, 6})])
