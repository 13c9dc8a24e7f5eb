"""A report's columns and headings in its system's words (:class:`~mathhammer.systems.Words` and
:class:`~mathhammer.systems.ReportFigures`), so that the report itself names no game.

What an attack deals is ``<dealt>_mean`` (``damage_mean``, ``wounds_mean``); every figure is also per
100 of the attacker's cost (``*_per_100``); a system with a slot (StarCraft TMG's Supply) adds the
slot removed (``supply_removed_mean``), figures per slot (``*_per_supply``) and the units' slots
(``attacker_supply``). A table carries its columns in ``df.attrs["report"]["words"]``.

Column keys (``supply_removed_per_100``) name the CSV columns; people read their words
(:meth:`Columns.label`: "Supply removed per 100 minerals") on the page, in the charts and on the command line.

>>> sc = Columns(system="sc", cost="minerals", dealt="damage", slot="Supply", headline="supply_removed_per_100")
>>> list(sc.figures), sc.per
(['damage', 'p_destroy', 'supply_removed'], ('100', 'supply'))
>>> sc.label("supply_removed_per_100"), sc.label("supply_removed_per_supply"), sc.label("damage_mean")
('Supply removed per 100 minerals', 'Supply removed per Supply', 'Damage')
>>> gf = Columns(system="gf", cost="points", dealt="wounds", slot=None, headline="wounds_per_100")
>>> gf.figure_columns()
['wounds_mean', 'p_destroy', 'wounds_per_100', 'p_destroy_per_100']
>>> gf.label("wounds_per_100"), gf.label("p_destroy_per_100")
('Wounds per 100 points', 'P(destroy) per 100 points')
>>> Columns.from_dict(gf.as_dict()) == gf
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..systems import GameSystem


@dataclass(frozen=True)
class Columns:
    """The columns of a system's report and how the page names them.

    Attributes:
        system: the system's name.
        cost, dealt, slot: :class:`~mathhammer.systems.Words` (``minerals``, ``damage``, ``Supply``).
        headline: the column ranked by.
        phases: the report's phases in the system's words (``assault`` -> ``Assault Phase (ranged)``).
        distance, phases_note, slot_removed: what the page says (:class:`~mathhammer.systems.ReportFigures`).
    """

    system: str
    cost: str
    dealt: str
    slot: str | None
    headline: str
    phases: Mapping[str, str] = field(default_factory=dict)
    distance: str = "distance"
    phases_note: str = "each phase on its own"
    slot_removed: str = ""

    @classmethod
    def of(cls, system: str | GameSystem) -> Columns:
        """The columns of a registered system (by name or alias)."""
        from .. import systems

        game = systems.get(system)
        w, r = game.words, game.report_figures
        return cls(
            game.name, w.cost, w.dealt, w.slot, r.headline, dict(r.phases), r.distance, r.phases_note, r.slot_removed
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Columns:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    @classmethod
    def of_table(cls, df: pd.DataFrame) -> Columns:
        """A sweep table's columns: from its ``attrs``, else from the system whose cost its ``cost_unit`` names."""
        from .. import systems

        meta = df.attrs.get("report", {})
        if "words" in meta:
            return cls.from_dict(meta["words"])
        if "system" in meta:
            return cls.of(meta["system"])
        cost = str(df["cost_unit"].iloc[0]) if len(df) else ""
        found = [n for n in systems.names() if systems.get(n).words.cost == cost]
        return cls.of(found[0] if found else systems.names()[0])

    def as_dict(self) -> dict[str, Any]:
        """For ``df.attrs`` and ``settings.json``."""
        out = asdict(self)
        out["phases"] = dict(self.phases)
        return out

    # --- names ---------------------------------------------------------------------------------------

    @property
    def slot_key(self) -> str | None:
        """The slot in column names (``supply``), None without slots."""
        return self.slot.lower() if self.slot else None

    @property
    def figures(self) -> dict[str, tuple[str, str]]:
        """The figures with a per-cost (and per-slot) version: name -> (value column, SE column)."""
        out = {self.dealt: (f"{self.dealt}_mean", f"{self.dealt}_se"), "p_destroy": ("p_destroy", "p_destroy_se")}
        if self.slot_key:
            out[f"{self.slot_key}_removed"] = (f"{self.slot_key}_removed_mean", f"{self.slot_key}_removed_se")
        return out

    @property
    def removed_columns(self) -> tuple[str, str] | None:
        """The slot removed's (value, SE) columns (``supply_removed_mean``, ``supply_removed_se``); None
        without slots."""
        return self.figures[f"{self.slot_key}_removed"] if self.slot_key else None

    @property
    def per(self) -> tuple[str, ...]:
        """The suffixes of the per-cost and per-slot versions (``_per_100``, ``_per_supply``)."""
        return ("100", self.slot_key) if self.slot_key else ("100",)

    @property
    def slot_columns(self) -> tuple[str, ...]:
        """The units' slot columns (``attacker_supply``, ``target_supply``); none without slots."""
        return (f"attacker_{self.slot_key}", f"target_{self.slot_key}") if self.slot_key else ()

    def _heading(self, name: str) -> str:
        if name == self.dealt:
            return self.dealt[:1].upper() + self.dealt[1:]
        if name == "p_destroy":
            return "P(destroy)"
        return f"{self.slot} removed"

    @property
    def labels(self) -> dict[str, tuple[str, str]]:
        """Every figure column -> (heading, SE column): the figures, then per 100, then per slot."""
        out = {value: (self._heading(n), se) for n, (value, se) in self.figures.items()}
        for p in self.per:
            shown = f"per 100 {self.cost}" if p == "100" else f"per {self.slot}"
            out.update({f"{n}_per_{p}": (f"{self._heading(n)} {shown}", f"{n}_per_{p}_se") for n in self.figures})
        return out

    def label(self, column: str) -> str:
        """A figure column's words (``Wounds per 100 points``); the key itself is for CSV headers only."""
        return self.labels[column][0]

    def se_of(self, column: str) -> str:
        """A figure column's standard-error column."""
        return self.labels[column][1]

    def figure_columns(self) -> list[str]:
        """The figures as the page shows them: each figure, then each per 100, then each per slot."""
        return list(self.labels)


__all__ = ["Columns"]
