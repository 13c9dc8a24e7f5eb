"""The automatic players' score of a Shoot entry reads each weapon's Range (8.7.3 step 1: "Only models with a Visible
target model Within Range contribute dice"; step 2: "If a Unit has multiple Weapon Profiles, it may fire at different
targets", the entry's ``then``): ``mathhammer/scenario/players/shotscore.py``.

The reference is :meth:`Features.attack` (held to a naive Monte Carlo in tests/test_policies.py): the chain of ``a``
models at the target, every one firing. Six Marines (C-14 Rifle, Range 12") stand in a line across the table, one
model every 2"; a target's models stand where exactly the wanted Marines are within 12" of one (edge to edge, counted
here with shapely). Before session 57 the score was the six-model chain whatever the Range.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from mathhammer.board.model import MM_PER_INCH
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COLUMNS, Features
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import Placement

from .test_policies import camp

R = 32 / MM_PER_INCH / 2  # Marines and Zerglings
LINE = tuple((4.0 + 2.0 * i, 10.0) for i in range(6))  # the Marines, west to east


@pytest.fixture(scope="module")
def feats(tmp_path_factory: pytest.TempPathFactory) -> tuple[Simulation, Features]:
    sim = Simulation(camp(tmp_path_factory.mktemp("shot"), "objective", "random"), 1, 0)
    auto = sim.players[0]
    assert isinstance(auto, Auto)
    auto.legality  # noqa: B018 (builds the menus)
    assert auto._menus is not None
    return sim, Features(sim, auto._menus)


def put(sim: Simulation, uid: str, centres: tuple[tuple[float, float], ...]) -> int:
    return sim.world._intern(Placement(uid, centres, None))


def in_range(marines: tuple[tuple[float, float], ...], theirs: tuple[tuple[float, float], ...], r: float) -> int:
    """How many Marines have a base within 12" of one of ``theirs`` (radius ``r``), edge to edge: shapely."""
    return sum(
        min(shapely.Point(m).buffer(R, 256).distance(shapely.Point(t).buffer(r, 256)) for t in theirs) <= 12.0
        for m in marines
    )


def state(sim: Simulation, placed: dict[str, tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    """(pos, alive, mark, shielded) with the units of ``placed`` (id: (placement, models left)) on the table."""
    pos = [-1] * sim.U
    alive = [int(k) for k in sim.full]
    for uid, (pid, k) in placed.items():
        pos[sim.uids.index(uid)], alive[sim.uids.index(uid)] = pid, k
    return tuple(pos), tuple(alive), (0,) * sim.U, (0,) * sim.U


def zerglings(wanted: int) -> tuple[tuple[float, float], ...]:
    """Twelve Zerglings: one 11.99" (edge to edge) north of each of the ``wanted`` Marines farthest east, the others
    1.5" farther north (out of range of every Marine), 1.5" apart."""
    dy = 12.0 + 2 * R - 0.01
    front = [(x, y + dy) for x, y in LINE[6 - wanted :]]
    back = [(4.0 + 1.5 * (i % 8), 10.0 + dy + 1.5 * (1 + i // 8)) for i in range(12 - wanted)]
    return (*front, *back)


@pytest.mark.parametrize("wanted", [6, 4, 1])
def test_only_the_marines_in_range_fire(feats: tuple[Simulation, Features], wanted: int) -> None:
    """Zerglings (12) of which one stands just within 12" of each of the ``wanted`` Marines: the score is the chain of
    those Marines (6, 4 or 1), not of all six."""
    sim, f = feats
    m, z = sim.uids.index("marine-1"), sim.uids.index("zergling-1")
    zerg = zerglings(wanted)
    n = in_range(LINE, zerg, R)
    assert n == wanted
    placed = {"marine-1": (put(sim, "marine-1", LINE), 6), "zergling-1": (put(sim, "zergling-1", zerg), 12)}
    pos, alive, mark, shielded = state(sim, placed)
    got = f.shot(m, pos, alive, mark, shielded, (z,))
    want = f.attack(m, n, z, 12, 0, 0, "assault")
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    if n < 6:
        assert got[0] < f.attack(m, 6, z, 12, 0, 0, "assault")[0]  # the reading before session 57 scored more


def test_a_target_out_of_range_scores_nothing_and_the_then_unit_takes_the_shots(
    feats: tuple[Simulation, Features],
) -> None:
    """The entry's target (Roaches) 20" away, the Zerglings of its ``then`` within range of every Marine: the rifles
    fire at the Zerglings (8.7.3 step 2), so the score is the six-model chain there; with the Zerglings out of range
    too, nothing."""
    sim, f = feats
    m, z, roach = (sim.uids.index(u) for u in ("marine-1", "zergling-1", "roach-1"))
    roaches = ((14.0, 34.0), (16.0, 34.0), (18.0, 34.0))
    near = tuple((5.0 + 1.5 * i, 14.0) for i in range(12))
    placed = {
        "marine-1": (put(sim, "marine-1", LINE), 6),
        "roach-1": (put(sim, "roach-1", roaches), 3),
        "zergling-1": (put(sim, "zergling-1", near), 12),
    }
    pos, alive, mark, shielded = state(sim, placed)
    assert in_range(LINE, roaches, 50 / MM_PER_INCH / 2) == 0 and in_range(LINE, near, R) == 6
    assert f.shot(m, pos, alive, mark, shielded, (roach,)) == (0.0, 0.0, 0.0)
    got = f.shot(m, pos, alive, mark, shielded, (roach, z))
    assert got == pytest.approx(f.attack(m, 6, z, 12, 0, 0, "assault"), rel=1e-12, abs=1e-15)
    assert got[0] > 0
    far = tuple((x, y + 20.0) for x, y in near)
    placed["zergling-1"] = (put(sim, "zergling-1", far), 12)
    pos, alive, mark, shielded = state(sim, placed)
    assert f.shot(m, pos, alive, mark, shielded, (roach, z)) == (0.0, 0.0, 0.0)


def test_the_shoot_rows_read_the_range(feats: tuple[Simulation, Features]) -> None:
    """A feature table of the Marines' Assault Phase menu: the Shoot entry at the Zerglings scores what
    :meth:`Features.shot` gives for its target and ``then`` (one Marine in range: the one-model chain)."""
    sim, f = feats
    m, z = sim.uids.index("marine-1"), sim.uids.index("zergling-1")
    zerg = zerglings(1)
    assert in_range(LINE, zerg, R) == 1
    placed = {"marine-1": (put(sim, "marine-1", LINE), 6), "zergling-1": (put(sim, "zergling-1", zerg), 12)}
    pos, alive, mark, shielded = state(sim, placed)
    control = tuple(-1 for _ in sim.scn.deployment.markers)
    table = f.table(m, "assault", (*pos, *alive, *mark, *shielded, *control))
    menu = f.menus["marine-1"]["assault"]
    i = next(i for i, e in enumerate(menu) if e.action == "shoot" and e.target == "zergling-1" and not e.use)
    damage = table[i, COLUMNS.index("damage")]
    assert damage == pytest.approx(f.attack(m, 1, z, 12, 0, 0, "assault")[0], rel=1e-12, abs=1e-15)
    assert np.isfinite(table).all()
