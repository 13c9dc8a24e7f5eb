"""Write a report folder: CSV of every figure, PNG charts and one self-contained ``report.html``.

The folder is built next to its final place (a hidden sibling) and renamed
into place only when complete, through a :class:`mathhammer.outputs.Outputs`
transaction: a run that fails, is interrupted or killed leaves nothing behind
(a killed one's leftovers are recovered by the next run), and an earlier report
is replaced only by a complete one, and only when the folder holds that report
and nothing else (``manifest.json``: each file's name, size and SHA-256).

Files written:

- ``cells.csv``: one row per (side, attacker, target, phase), every figure with its standard error;
- ``figures.csv``: the same figures in long form (one row per cell and figure: value, se);
- ``ranking.csv``: each attacker averaged over its targets, ranked;
- ``settings.json``: the settings, seed, sources and versions;
- ``heatmap_*.png`` (attackers x targets) and ``ranking_*.png`` (ranked bars with error bars);
- ``report.html``: all of it on one page, images embedded, tables sortable;
- ``manifest.json``: the files above with their sizes and SHA-256.
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..outputs import Outputs, Target
from .columns import Columns
from .runner import ranking

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

MARKER = "mathhammer-report"
MANIFEST = "manifest.json"
TEXT_COLUMNS = ("side", "phase", "attacker", "target", "engine")
ALLOWED_OUT = "a new folder, an empty one, or the folder of an earlier report, in a folder you can write to"


def label(metric: str, cols: Columns) -> str:
    """A figure's heading, in the system's words (:class:`~mathhammer.report.columns.Columns`).

    >>> label("supply_removed_per_100", Columns.of("starcraft")), label("wounds_per_100", Columns.of("gf"))
    ('Supply removed per 100 minerals', 'Wounds per 100 points')
    """
    return cols.label(metric)


def check_out(out: str | Path) -> Path:
    """Refuse an output folder before any work: its parent must exist and be writable, and an
    existing folder must be empty or hold an earlier report and nothing else (:func:`strangers`).

    Raises:
        InputError: naming ``--out``, the path and what is allowed.
    """
    p = Path(out)
    parent = p.parent if str(p.parent) else Path(".")
    if p.exists() and not p.is_dir():
        raise InputError("--out", str(out), ALLOWED_OUT, "it is a file")
    if not parent.is_dir():
        raise InputError("--out", str(out), ALLOWED_OUT, f"no folder {str(parent)!r}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError("--out", str(out), ALLOWED_OUT, f"cannot write to {str(parent)!r}")
    if p.is_dir():
        _replaceable(p, str(out))
    return p


def _replaceable(p: Path, shown: str) -> None:
    others = strangers(p)
    if others:
        names = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise InputError(
            "--out", shown, ALLOWED_OUT,
            f"it holds other files ({names}); it is not replaced: choose another --out, or move them out of it",
        )  # fmt: skip


def strangers(folder: Path) -> list[str]:
    """What in ``folder`` no report wrote (a folder shown with ``/``, a changed file with ``(changed)``): a
    report replaces only a folder that is empty or holds exactly the files its ``manifest.json`` lists
    (name, size and SHA-256), or, from before the manifest, only report files with a report's
    ``settings.json``."""
    names = sorted(os.listdir(folder))
    try:
        listed = json.loads((folder / MANIFEST).read_text())
        files = listed["files"] if listed.get("kind") == MARKER and isinstance(listed["files"], dict) else None
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        files = None
    legacy = files is None and _is_report(folder)
    out = []
    for name in names:
        path = folder / name
        plain = path.is_file() and not path.is_symlink()
        if not plain:
            out.append(name + "/" if path.is_dir() else name)
        elif files is not None and name != MANIFEST:
            entry = files.get(name)
            if not isinstance(entry, dict):
                out.append(name)
            elif entry.get("size") != path.stat().st_size or entry.get("sha256") != _sha256(path):
                out.append(f"{name} (changed)")
        elif files is None and not (legacy and _REPORT_FILE.fullmatch(name)):
            out.append(name)
    return out


_REPORT_FILE = re.compile(
    r"(cells|figures|ranking)\.csv|settings\.json|report\.html|heatmap_\d+_[a-z]+_[a-z0-9-]+\.png|ranking_\d+_[a-z]+\.png"
)
#: The hidden folders of an interrupted report of mathhammer before its outputs journal.
_LEGACY = r"\.{}\.(tmp|old)-[A-Za-z0-9_]{{8}}"


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_report(p: Path) -> bool:
    try:
        return json.loads((p / "settings.json").read_text()).get("kind") == MARKER
    except (OSError, ValueError, AttributeError):
        return False


def legacy_leftovers(out: Path) -> None:
    """Leftovers of a report interrupted under an older mathhammer (``.OUT.tmp-XXXXXXXX`` and
    ``.OUT.old-XXXXXXXX`` next to ``OUT``): with no ``OUT``, the old report comes back; then each such folder
    holding only report files is removed (any other is left alone)."""
    parent = out.parent if str(out.parent) else Path(".")
    pattern = re.compile(_LEGACY.format(re.escape(out.name)))
    try:
        found = sorted(p for p in parent.iterdir() if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink())
    except OSError:
        return
    for p in found:
        if not os.path.lexists(out) and ".old-" in p.name and _is_report(p):
            os.rename(p, out)
        elif all(_REPORT_FILE.fullmatch(q.name) and q.is_file() for q in p.iterdir()):
            shutil.rmtree(p, ignore_errors=True)


def outputs_for(out: str | Path) -> Outputs:
    """The transaction that writes a report into ``out`` (begun before the sweep, so a folder that cannot be
    replaced is found then): :func:`check_out`, older leftovers recovered, then :class:`~mathhammer.outputs.Outputs`
    with :func:`strangers` checked again just before the old folder is replaced."""
    p = check_out(out)
    legacy_leftovers(p)
    return Outputs([Target(p, "--out", "dir", ALLOWED_OUT, guard=lambda path: _replaceable(path, str(out)))])


def write_report(df: pd.DataFrame, out: str | Path, title: str | None = None) -> Path:
    """Write the report of a :func:`~mathhammer.report.sweep` table into the folder ``out``, atomically.

    Args:
        df: the table from :func:`~mathhammer.report.sweep` (its ``attrs["report"]`` holds the settings).
        out: the folder; created, or replaced when it holds an earlier report and nothing else.
        title: the page's title (default: from the sides compared).

    Returns:
        The folder.

    Raises:
        InputError: ``out`` cannot be written (see :func:`check_out`); :class:`~mathhammer.outputs.WriteError`
            when the disk is full.

    >>> import tempfile, pathlib
    >>> from mathhammer.report import sweep
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "gf"
    >>> _ = write_report(sweep(roster=True, system="gf"), folder)
    >>> sorted(p.name for p in folder.iterdir() if not p.name.endswith(".png"))
    ['cells.csv', 'figures.csv', 'manifest.json', 'ranking.csv', 'report.html', 'settings.json']
    """
    with outputs_for(out) as tx:
        write_into(tx, df, title)
    return Path(out)


def write_into(tx: Outputs, df: pd.DataFrame, title: str | None = None) -> None:
    """Write the report into the transaction of :func:`outputs_for` (committed when its ``with`` ends)."""
    with tx.writing(0) as folder:
        _write_all(df, folder, title)
        files = {p.name: {"size": p.stat().st_size, "sha256": _sha256(p)} for p in sorted(folder.iterdir())}
        manifest = {"kind": MARKER, "note": "the files this report wrote; it replaces only a folder of these"}
        (folder / MANIFEST).write_text(json.dumps({**manifest, "files": files}, indent=1) + "\n")


# ----------------------------------------------------------------------------- files


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "x"


def long_form(df: pd.DataFrame) -> pd.DataFrame:
    """One row per cell and figure: the cell's identifying columns, ``figure``, ``value``, ``se``."""
    import pandas as pd

    ids = ["side", "phase", "attacker", "target", "engine", "trials", "seed", "cost_unit"]
    parts = []
    columns = {"destroyed_mean": ("models destroyed", "destroyed_se"), **Columns.of_table(df).labels}
    for col, (_name, se) in columns.items():
        part = df[ids].copy()
        part["figure"] = col
        part["value"] = df[col]
        part["se"] = df[se]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _write_all(df: pd.DataFrame, folder: Path, title: str | None) -> None:
    import matplotlib

    matplotlib.use("Agg", force=False)
    meta = dict(df.attrs.get("report", {}))
    cols = Columns.of_table(df)
    meta.setdefault("system", cols.system)
    meta.setdefault("sides", list(dict.fromkeys(df["side"])))
    meta.setdefault("words", cols.as_dict())
    head = meta.get("headline") or cols.headline
    meta.setdefault("headline", head)
    rank = ranking(df, head)
    df.to_csv(folder / "cells.csv", index=False)
    long_form(df).to_csv(folder / "figures.csv", index=False)
    rank.to_csv(folder / "ranking.csv", index=False)
    settings = {"kind": MARKER, **meta}
    (folder / "settings.json").write_text(json.dumps(settings, indent=2, default=str) + "\n")
    images: list[tuple[str, str, str, str]] = []  # (side, phase, caption, file)
    for i, side in enumerate(meta["sides"], 1):
        for phase in ("assault", "combat"):
            block = df[(df["side"] == side) & (df["phase"] == phase)]
            ranked = rank[(rank["side"] == side) & (rank["phase"] == phase)]
            if block.empty:
                continue
            phase_name = str(block["phase_name"].iloc[0])
            for metric in dict.fromkeys((head, "p_destroy")):
                name = f"heatmap_{i}_{phase}_{_slug(metric)}.png"
                fig = heatmap(block, metric, f"{side}: {phase_name}", cols)
                fig.savefig(folder / name, dpi=90)
                images.append((side, phase, f"{label(metric, cols)}: attackers × targets", name))
            name = f"ranking_{i}_{phase}.png"
            fig = bars(ranked, head, f"{side}: {phase_name}", cols)
            fig.savefig(folder / name, dpi=90)
            images.append((side, phase, f"ranked by {label(head, cols)} (mean over targets, ± 1 SE)", name))
    page = render_html(df, rank, meta, folder, images, title)
    (folder / "report.html").write_text(page, encoding="utf-8")


# ----------------------------------------------------------------------------- charts


def decimals(values: list[float]) -> int:
    """The fixed decimals of every number of one heatmap: two significant digits of the largest (at most 6).

    >>> decimals([4.8e-05, 0.31]), decimals([0.98, 0.0]), decimals([12.5, 3.0]), decimals([0.0, float("nan")])
    (2, 2, 0, 0)
    """
    top = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    return 0 if top == 0 else min(6, max(0, 1 - math.floor(math.log10(top))))


def heatmap(block: pd.DataFrame, metric: str, title: str, words: Columns | None = None) -> Any:
    """Attackers (rows) × targets (columns) of one figure; blank where there is no number.

    ``words``: the table's columns (default: :meth:`Columns.of_table` of ``block``).
    """
    import numpy as np
    from matplotlib.figure import Figure

    words = words or Columns.of_table(block)
    grid = block.pivot_table(index="attacker", columns="target", values=metric, aggfunc="first", sort=False)
    rows, cols = grid.shape
    width = max(len(str(r)) for r in grid.index) * 0.07 + 0.5 * cols + 2.5
    fig = Figure(figsize=(min(width, 24), min(2.5 + 0.4 * rows, 22)), layout="constrained")
    ax = fig.subplots()
    data = grid.to_numpy(dtype=float)
    masked = np.ma.masked_invalid(data)
    image = ax.imshow(masked, aspect="auto", cmap="viridis")
    ax.set_xticks(
        range(cols), [str(c) for c in grid.columns], rotation=50, ha="right", rotation_mode="anchor", fontsize=7
    )
    ax.set_yticks(range(rows), [str(r) for r in grid.index], fontsize=7)
    ax.set_xlabel("target")
    ax.set_ylabel("attacker")
    ax.set_title(f"{title}\n{label(metric, words)}", fontsize=9)
    if rows * cols <= 400:
        top = np.nanmax(data) if np.isfinite(data).any() else 0.0
        digits = decimals(data.ravel().tolist())  # one format for the whole heatmap
        for (r, c), v in np.ndenumerate(data):
            if math.isfinite(v):
                color = "black" if top and v > 0.6 * top else "white"
                ax.text(c, r, f"{v:.{digits}f}", ha="center", va="center", fontsize=6, color=color)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def bars(ranked: pd.DataFrame, metric: str, title: str, cols: Columns) -> Any:
    """Attackers ranked by ``metric`` (mean over targets), with ± 1 standard error bars; ``cols``: the
    table's columns."""
    from matplotlib.figure import Figure

    shown = ranked.dropna(subset=[metric])
    n = max(len(shown), 1)
    fig = Figure(figsize=(8, min(1.5 + 0.3 * n, 20)), layout="constrained")
    ax = fig.subplots()
    labels = [str(a) for a in shown["attacker"]][::-1]
    values = shown[metric].to_numpy(dtype=float)[::-1]
    errors = shown[cols.se_of(metric)].to_numpy(dtype=float)[::-1]
    ax.barh(range(len(values)), values, xerr=errors, color="#4c72b0", ecolor="#dd8452", capsize=3)
    ax.set_yticks(range(len(values)), labels, fontsize=7)
    ax.set_xlabel(f"{label(metric, cols)} (mean over targets)")
    ax.set_title(title, fontsize=9)
    if not len(values):
        ax.text(0.5, 0.5, "no attacker with a cost", ha="center", va="center", transform=ax.transAxes)
    return fig


# ----------------------------------------------------------------------------- HTML

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{border-bottom:2px solid #4c72b0;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.8em;margin:.5em 0 1em}
th,td{border:1px solid #ccc;padding:.2em .45em;text-align:right}
th{background:#eef2f8;position:sticky;top:0}
td.t,th.t{text-align:left}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th[aria-sort=ascending]::after{content:" ▲"}
table.sortable th[aria-sort=descending]::after{content:" ▼"}
.figs{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
figure{margin:0}figcaption{font-size:.8em;color:#555}
img{max-width:100%;border:1px solid #ddd}
.warn{color:#a33}.note{color:#555;font-size:.9em}
"""

_JS = """
(function () {
  function key(td) {
    var v = td.getAttribute("data-v");
    if (v === null) { return td.textContent.trim().toLowerCase(); }
    if (v === "") { return null; }
    return parseFloat(v);
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asc = th.getAttribute("aria-sort") !== "ascending";
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (x === null && y === null) { return 0; }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      if (x < y) { return asc ? -1 : 1; }
      if (x > y) { return asc ? 1 : -1; }
      return 0;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.title = "click to sort";
      th.addEventListener("click", function () { sortBy(table, col, th); });
    });
  });
})();
"""


def _num(v: Any, se: Any = None, digits: int = 4, n: int | None = None) -> str:
    """A table cell: the value (sortable by ``data-v``) with ``digits`` decimals (0: a whole number as is) and
    ``± se`` when there is one; a probability estimated as exactly 0 or 1 from ``n`` Monte Carlo trials as its
    one-sided 95% bound (:func:`mathhammer.numbers.probability`).

    >>> _num(0.0, 0.0, 4, 1000)
    "<td data-v='0.0'>&lt; 0.0030 (95%)</td>"
    >>> _num(0.0, 0.0), _num(0.25, 0.01)
    ("<td data-v='0.0'>0.0000</td>", "<td data-v='0.25'>0.2500 ± 0.0100</td>")
    """
    from ..numbers import probability

    try:
        x = float(v)
    except (TypeError, ValueError):
        return f"<td class='t'>{html.escape(str(v))}</td>"
    if not math.isfinite(x):
        return "<td data-v=''>–</td>"
    if n and (x <= 0.0 or x >= 1.0):
        return f"<td data-v='{x!r}'>{html.escape(probability(x, 0.0, n, digits))}</td>"
    text = f"{x:.{digits}f}" if digits else f"{int(x)}" if x.is_integer() else f"{x:g}"
    if se is not None:
        try:
            s = float(se)
        except (TypeError, ValueError):
            s = 0.0
        if math.isfinite(s) and s > 0:
            text += f" ± {s:.{digits}f}"
    return f"<td data-v='{x!r}'>{text}</td>"


def _table(
    frame: pd.DataFrame, columns: list[tuple[str, str, str | None]], table_id: str, trials: str | None = None
) -> str:
    """``columns``: (column, heading, SE column or None); figures with 4 decimals, other numbers as they are.
    ``trials``: the column of the Monte Carlo trials behind each row's probabilities (P(destroy) of 0 or 1
    is printed as its bound); None or 0: exact."""
    head = "".join(f"<th class='{'t' if c in TEXT_COLUMNS else ''}'>{html.escape(h)}</th>" for c, h, _se in columns)
    body = []
    for _, row in frame.iterrows():
        cells = []
        n = int(row[trials]) if trials and math.isfinite(float(row[trials])) and row[trials] > 0 else None
        for c, _h, se in columns:
            v = row[c]
            if isinstance(v, str):
                cells.append(f"<td class='t'>{html.escape(v)}</td>")
            else:
                cells.append(_num(v, row[se] if se else None, 4 if se else 0, n if c == "p_destroy" else None))
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"<table class='sortable' id='{table_id}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _bound_trials(ranked: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """``ranked`` with ``bound_trials``: the trials behind a ranked mean of P(destroy) over its targets, for
    its bound when every cell saw 0 (or 1): targets x the fewest trials of a cell. With independent cells,
    P(nothing in any) = prod (1 - p_i) ** n_i <= (1 - mean p) ** (targets x min n_i), so the bound of
    that many trials holds for the mean (0: exact)."""
    fewest: dict[Any, Any] = df.groupby(["side", "phase", "attacker"], sort=False)["trials"].min().to_dict()
    rows: list[tuple[Any, ...]] = list(ranked[["side", "phase", "attacker", "targets"]].itertuples(index=False))
    n = [int(fewest.get((side, phase, who)) or 0) * int(targets) for side, phase, who, targets in rows]
    return ranked.assign(bound_trials=n)


def _kv(items: list[tuple[str, Any]]) -> str:
    rows = "".join(
        f"<tr><th class='t'>{html.escape(k)}</th><td class='t'>{html.escape(str(v))}</td></tr>" for k, v in items
    )
    return f"<table>{rows}</table>"


def _img(folder: Path, name: str, caption: str) -> str:
    data = base64.b64encode((folder / name).read_bytes()).decode("ascii")
    alt = html.escape(caption)
    return f"<figure><img src='data:image/png;base64,{data}' alt='{alt}'><figcaption>{alt}</figcaption></figure>"


def render_html(
    df: pd.DataFrame,
    rank: pd.DataFrame,
    meta: dict[str, Any],
    folder: Path,
    images: list[tuple[str, str, str, str]],
    title: str | None = None,
) -> str:
    """The page: settings, sources, ranked tables and charts per side and phase, every cell, in the words of
    the table's system (``meta["words"]``)."""
    cols = Columns.from_dict(meta["words"]) if "words" in meta else Columns.of_table(df)
    system, cost, slot = meta.get("system", cols.system), cols.cost, cols.slot
    names = [str(a.get("name", "?")) for a in meta.get("armies", [])]
    subject = " vs ".join(names) if names else f"the {system} roster" if meta.get("mode") == "roster" else ""
    title = title or f"mathhammer report: {subject or ', '.join(meta['sides'])}"
    engine = meta.get("engine", "?")
    if engine == "exact":
        how = "exact (standard errors 0)"
    elif meta.get("trials"):
        how = f"Monte Carlo, {meta['trials']:,} trials per cell"
    else:
        how = f"Monte Carlo per cell until SE(P(destroy)) ≤ {meta.get('tolerance')}"
    settings = [
        ("system", system),
        ("mode", meta.get("mode", "?")),
        ("engine", how),
        ("seed", f"{meta.get('seed')} (each cell's seed: BLAKE2b of this seed and the cell's key; in cells.csv)"),
        (cols.distance, "in range" if meta.get("distance") is None else f'{meta["distance"]}"'),
        ("cells", f"{meta.get('cells', len(df))} ({meta.get('distinct_cells', '?')} distinct matchups run)"),
        ("ran on", f"{meta.get('scheduler', '?')}, {meta.get('elapsed_s', '?')} s"),
        ("created", meta.get("created", "?")),
        ("versions", ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())),
        ("per 100", f"figures × 100 / the attacker's {cost}"),
    ]
    if slot:
        settings.append((f"per {slot}", f"figures / the attacker's starting {slot} (blank for 0 {slot})"))
        settings.append((f"{slot} removed", cols.slot_removed))
    phases = cols.phases_note
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<link rel='icon' href='data:,'>",
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p class='note'>Every unit against every enemy unit, {phases}, from full units. ± is one standard error.</p>",
        "<h2 id='settings'>Settings</h2>",
        _kv(settings),
    ]
    if meta.get("armies"):
        parts.append("<h2 id='armies'>Armies</h2>")
        for army in meta["armies"]:
            items = [(k, army[k]) for k in ("name", "file", "sha256", "faction", cost) if k in army]
            parts.append(_kv(items))
            for problem in army.get("problems", []):
                parts.append(f"<p class='warn'>army-building: {html.escape(problem)}</p>")
    if meta.get("sources"):
        parts.append("<h2 id='sources'>Profile sources</h2>")
        keys = ("file", "document", "version", "sha256")
        rows = "".join(
            "<tr>" + "".join(f"<td class='t'>{html.escape(str(s.get(k, '')))}</td>" for k in keys) + "</tr>"
            for s in meta["sources"]
        )
        parts.append(
            "<table><thead><tr><th class='t'>file</th><th class='t'>document</th><th class='t'>version</th>"
            f"<th class='t'>sha256</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    fig_cols = cols.figure_columns()
    rank_cols: list[tuple[str, str, str | None]] = [
        ("rank", "#", None),
        ("attacker", "attacker", None),
        ("attacker_cost", cost, None),
    ]
    if slot:
        rank_cols.append((cols.slot_columns[0], slot, None))
    rank_cols += [(c, label(c, cols), cols.se_of(c)) for c in fig_cols]
    n = 0
    for side in meta["sides"]:
        parts.append(f"<h2>{html.escape(side)}</h2>")
        for phase in ("assault", "combat"):
            ranked = rank[(rank["side"] == side) & (rank["phase"] == phase)]
            if ranked.empty:
                continue
            n += 1
            parts.append(f"<h3>{html.escape(str(ranked['phase_name'].iloc[0]))}</h3>")
            parts.append(
                f"<p class='note'>Ranked by {html.escape(label(meta.get('headline') or cols.headline, cols))}; "
                f"each attacker's figures are means over the {int(ranked['targets'].iloc[0])} targets.</p>"
            )
            parts.append(_table(_bound_trials(ranked, df), rank_cols, f"rank-{n}", "bound_trials"))
            parts.append("<div class='figs'>")
            parts.extend(_img(folder, f, cap) for s, p, cap, f in images if s == side and p == phase)
            parts.append("</div>")
    cell_cols: list[tuple[str, str, str | None]] = [
        ("side", "side", None),
        ("phase", "phase", None),
        ("attacker", "attacker", None),
        ("target", "target", None),
        ("engine", "engine", None),
        ("trials", "trials", None),
    ] + [(c, label(c, cols), cols.se_of(c)) for c in fig_cols]
    parts.append("<h2 id='cells'>Every cell</h2>")
    parts.append(f"<details><summary>{len(df)} rows (also in cells.csv)</summary>")
    parts.append(_table(df, cell_cols, "cells-table", "trials"))
    parts.append("</details>")
    parts.append("<h2 id='csv-columns'>Columns of the CSV files</h2>")
    parts.append(
        "<p class='note'>cells.csv, figures.csv (its <code>figure</code> column) and ranking.csv name each figure "
        "by its key; <code>KEY_se</code> is its standard error. The keys in words:</p>"
    )
    parts.append(_kv([("destroyed_mean", "Models destroyed"), *((c, label(c, cols)) for c in fig_cols)]))
    for w in meta.get("warnings", []):
        parts.append(f"<p class='warn'>{html.escape(w)}</p>")
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)


__all__ = ["check_out", "label", "long_form", "outputs_for", "strangers", "write_into", "write_report"]
