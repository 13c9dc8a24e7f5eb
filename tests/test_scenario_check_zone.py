"""8.3.3 Deployment Restrictions in ``scenario check``, the simulation and the automatic players: an arriving unit's
formation avoids the opponent's Zone of Influence.

8.3.3: "When a Unit arrives from Reserves, that Unit cannot end its arrival during that Activation inside the
opponent's Zone of Influence. This restriction applies to all forms of arrival (edge, Warp Prism, summoned) ... If all
models cannot be placed legally while maintaining Coherency, the Unit cannot be deployed in that location"; 8.5.5
Deploy: "The Leading Model enters first. Set the rest of the Unit In Coherency"; ZONE OF INFLUENCE (part 11): "Units
arriving from Reserves cannot end their deployment Within the opponent's Zone of Influence". So the player sets the
other models anywhere legal out of the zone (``World.place`` with ``arriving``): a Deploy is refused only where its
Leading Model's point is Within the zone or no formation In Coherency out of it exists. Found in the trace of an
automatic game (raynors_strike_force against kerrigans_brood, seed 51): the Hydralisks' formation pushed into red's
zone by the Marines' bases was refused, although a formation out of it was legal (a reviewer's case, below).
"""

from __future__ import annotations

import math
from pathlib import Path

from mathhammer.board.model import EPS, MM_PER_INCH
from mathhammer.scenario.checkview import in_enemy_zone, zone_gap
from mathhammer.scenario.geometry.core import GAP
from mathhammer.scenario.sim import Simulation

from . import test_scenario_summon as sm
from .scenario_kit import army, build, errors, skirmish, warnings
from .test_scenario_abilities import write_armies


def _act(unit: str, action: str, to: list[float] | None = None, target: str | None = None) -> dict:
    out: dict = {"unit": unit, "action": action}
    if to is not None:
        out["to"] = to
    if target is not None:
        out["targets"] = [target]
    return out


def scenario(
    tmp_path: Path,
    shots: tuple[int, ...],
    marines: tuple[float, float] | None = None,
    hydra: tuple[float, float] = (34.0, 12.5),
):
    """Frontier, red from the south, blue from the east: red's Marines walk up to (29.5, 14.8), by blue's Entry Edge
    (``marines``: to that point in Round 3, then hold); blue's Roaches shoot them in the Rounds ``shots``; in Round 5
    blue's Hydralisks deploy at ``hydra`` ((34, 12.5): the grid of their formation pushed south into red's Zone of
    Influence by the Marines' bases)."""
    red = army("Terran Armed Forces", ("Marine", 6), ("Marine", 6))
    blue = army("Kerrigan's Swarm", ("Hydralisk", 4), ("Roach", 3), tactical=("Hydralisk Den",))
    armies = write_armies(tmp_path, red, blue)
    rounds: list[dict] = [
        {"round": 1,
         "red": {"movement": [_act("marine-1", "deploy", [28, 3.3]), _act("marine-2", "deploy", [6, 3])]},
         "blue": {"movement": [_act("roach-1", "deploy", [34, 22])]}},
        {"round": 2,
         "red": {"movement": [_act("marine-1", "move", [29, 7.1])]},
         "blue": {"movement": [_act("roach-1", "move", [33, 19])]}},
        {"round": 3, "red": {"movement": [_act("marine-1", "move", [30, 10.9])]}, "blue": {}},
        {"round": 4,
         "red": {"movement": [_act("marine-1", "move", [29.5, 14.8])]},
         "blue": {"movement": [_act("roach-1", "hold")]}},
        {"round": 5,
         "red": {"movement": [_act("marine-1", "hold")]},
         "blue": {"movement": [_act("hydralisk-1", "deploy", list(hydra))]}},
    ]  # fmt: skip
    if marines is not None:
        rounds[2]["red"]["movement"] = [_act("marine-1", "move", list(marines))]
        rounds[3]["red"]["movement"] = [_act("marine-1", "hold")]
    for r in shots:
        rounds[r - 1]["blue"]["assault"] = [_act("roach-1", "shoot", target="marine-1")]
    data = skirmish("zone", armies=armies, rounds=rounds)
    data["deployment"]["entry_edges"] = {"red": "south", "blue": "east"}
    return build(data, "zone.toml")


def _at_deploy(
    sim: Simulation, unit: str
) -> tuple[tuple[float, float], float, list[tuple[tuple[float, float], float]]]:
    """The radius of ``unit``'s models, and the other units' bases (centre, radius) at the end of ``sim``'s game 0 (they
    hold in Round 5: where they stood as the Hydralisks deployed)."""
    w, scn = sim.world, sim.scn
    u = sim.uids.index(unit)
    bases = [
        (c, scn.units[sim.uids[v]].base_mm / MM_PER_INCH / 2)
        for v in range(sim.U)
        if v != u and sim.pos[v, 0] >= 0
        for c in w.placements[int(sim.pos[v, 0])].centres
    ]
    return (w.board.width, w.board.depth), scn.units[unit].base_mm / MM_PER_INCH / 2, bases


def _legal_spots(size, r, bases, lead, zone_depth: float, step: float = 0.05) -> list[tuple[float, float]]:
    """Naive reference (8.5.3 step 2, 8.3.3): the points of a ``step`` lattice where a model of radius ``r`` may stand
    next to the Leading Model at ``lead`` (base to base up to 2" apart: the World's In Coherency), on the table, not on
    another base, not Within 1" of an enemy (every other unit here is red's, and the unit is blue's), and out of red's
    south Zone of Influence (``y - r > zone_depth``)."""
    out = []
    lo_x, lo_y = lead[0] - 2 * r - 2.2, lead[1] - 2 * r - 2.2
    n = int((4 * r + 4.4) / step) + 1
    for i in range(n):
        for j in range(n):
            c = (lo_x + i * step, lo_y + j * step)
            d = math.dist(c, lead) - 2 * r
            if not (GAP / 2 <= d <= GAP + 2.0):
                continue
            if c[0] - r < 0 or c[1] - r < 0 or c[0] + r > size[0] or c[1] + r > size[1]:
                continue
            if c[1] - r <= zone_depth + EPS:
                continue
            if all(math.dist(c, o) - r - orad > 1.0 + EPS for o, orad in bases):
                out.append(c)
    return out


def test_the_reviewers_deploy_sets_its_models_out_of_the_zone(tmp_path: Path) -> None:
    """8.3.3, 8.5.5: the Marines stand by (29.5, 14.8); the grid of the Hydralisks' formation at (34, 12.5) reaches into
    red's Zone of Influence, but a formation out of it exists (the reviewer's: (34, 12.5), (34, 8.5), (30, 8.5), (26,
    8.5)): the check admits the Deploy, the simulation sets the unit in every game, every model out of the zone and In
    Coherency (each next a base spacing from another), none on a base or Within 1" of an enemy."""
    scn = scenario(tmp_path, ())
    assert errors(scn) == []
    assert not [p for p in warnings(scn) if "hydralisk-1" in p], warnings(scn)
    sim = Simulation(scn, 40, 1)
    sim.run()
    hydra = sim.uids.index("hydralisk-1")
    assert (sim.pos[hydra] >= 0).all() and not sim.skipped
    w, su = sim.world, scn.units["hydralisk-1"]
    _, r, bases = _at_deploy(sim, "hydralisk-1")
    for pid in set(sim.pos[hydra].tolist()):
        cs = w.placements[pid].centres
        assert (34.0, 12.5) in cs and len(cs) == su.models
        assert zone_gap(w, su, "blue", cs) > 0 and all(c[1] - r > 6.0 + EPS for c in cs)  # red's south zone: 6"
        for i, c in enumerate(cs):
            assert all(math.dist(c, o) - r - orad > 1.0 + EPS for o, orad in bases)  # 8.5.3: no enemy Within 1"
            assert all(math.dist(c, d) >= 2 * r + GAP / 2 for d in cs[:i])  # no base on another
        assert all(min(math.dist(c, d) for d in cs if d != c) <= 2 * r + GAP + 2.0 + EPS for c in cs)
    # the grid alone (as before) put a model in the zone: the test reads the arrival
    pos = {v: int(sim.pos[v, 0]) for v in range(sim.U) if v != hydra and sim.pos[v, 0] >= 0}
    old = w.place(su, (34.0, 12.5), w.rear_of("blue"), tuple(pos.values()))
    assert old is not None and in_enemy_zone(w, "hydralisk-1", "blue", old)


#: two Size 1 rectangles (x0, y0, x1, y1) by the south-east corner (8.5.3: "Cannot end movement overlapping the
#: terrain's footprint"): north of y = 10.2 from x = 26, and west of x = 31.9 from y = 6.2 to 10.2
RECTS = [(26.0, 10.2, 36.0, 18.0), (24.0, 6.2, 31.9, 10.2)]
CORNER = [
    {"id": f"piece-{i}", "size": 1, "footprint": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}
    for i, (x0, y0, x1, y1) in enumerate(RECTS)
]


def test_no_formation_out_of_the_zone_refuses_the_deploy(tmp_path: Path) -> None:
    """8.3.3: "If all models cannot be placed legally while maintaining Coherency, the Unit cannot be deployed in that
    location": the Hydralisks' Leading Model at (34, 8.1), its base just out of red's south zone, between the table's
    east edge and two terrain pieces; a naive lattice search finds no spot for a second model next to it (the World's
    In Coherency: base to base up to 2" apart) out of the zone, and spots into the zone: the check refuses the Deploy
    naming 8.3.3, the simulation never sets the unit (the World sets it only into the zone)."""
    red = army("Terran Armed Forces", ("Marine", 6))
    blue = army("Kerrigan's Swarm", ("Hydralisk", 4), tactical=("Hydralisk Den",))
    rounds = [{"round": 1, "red": {"movement": [_act("marine-1", "deploy", [6, 3])]},
               "blue": {"movement": [_act("hydralisk-1", "deploy", [34.0, 8.1])]}}]  # fmt: skip
    data = skirmish("corner", armies=write_armies(tmp_path, red, blue), rounds=rounds, terrain=CORNER)
    data["deployment"]["entry_edges"] = {"red": "south", "blue": "east"}
    scn = build(data, "corner.toml")
    found = [p for p in errors(scn) if "hydralisk-1 deploy" in p]
    assert len(found) == 1 and "no formation In Coherency out of the opponent's Zone of Influence (8.3.3" in found[0]
    sim = Simulation(scn, 40, 1)
    sim.run()
    hydra = sim.uids.index("hydralisk-1")
    assert (sim.pos[hydra] < 0).all()
    assert sim.skipped == {"rounds[0].blue.movement[0]: no room to set the unit there": 40}, sim.skipped
    w, su = sim.world, scn.units["hydralisk-1"]
    r = su.base_mm / MM_PER_INCH / 2
    size = (w.board.width, w.board.depth)

    def off_terrain(c: tuple[float, float]) -> bool:  # the base's distance to each rectangle more than its radius
        return all(
            math.hypot(max(x0 - c[0], 0, c[0] - x1), max(y0 - c[1], 0, c[1] - y1)) > r for x0, y0, x1, y1 in RECTS
        )

    free = [c for c in _legal_spots(size, r, [], (34.0, 8.1), -100.0) if off_terrain(c)]
    assert free and all(c[1] - r <= scn.deployment.zone_depth + EPS for c in free)  # spots, each Within the zone
    occupied = tuple(int(sim.pos[v, 0]) for v in range(sim.U) if v != hydra and sim.pos[v, 0] >= 0)
    assert w.place(su, (34.0, 8.1), w.rear_of("blue"), occupied) is not None  # it fits, only into the zone
    assert w.place(su, (34.0, 8.1), w.rear_of("blue"), occupied, arriving=w.arrival_zone("blue")) is None


def test_a_leading_model_in_the_zone_is_refused(tmp_path: Path) -> None:
    """8.3.3: the Leading Model's point Within red's zone (its base reaches y = 6"): no formation helps; the check
    says the zone, the simulation skips it naming 8.3.3."""
    scn = scenario(tmp_path, (), hydra=(34.0, 7.9))
    found = [p for p in errors(scn) if "hydralisk-1 deploy" in p]
    assert any("ends Within the opponent's Zone of Influence (8.3.3)" in p for p in found), found
    sim = Simulation(scn, 40, 1)
    sim.run()
    assert (sim.pos[sim.uids.index("hydralisk-1")] < 0).all()
    assert [v for k, v in sim.skipped.items() if "Zone of Influence (8.3.3)" in k] == [40], sim.skipped


def test_a_summoned_units_formation_avoids_the_zone(tmp_path: Path) -> None:
    """8.3.3 ("This restriction applies to all forms of arrival ... or is summoned"), SUMMON (part 11: "The Summoned
    Unit cannot be set Within the opponent's Zone of Influence"): red enters from the east, so its zone is x >= 30";
    the Corpsers (from the north) at (28.5, 33) summon the Roachlings in contact with their Leading Model, whose grid
    formation reaches into the zone: the check admits it, the simulation sets them in every game, every model out of
    the zone (the grid alone put one in it)."""
    plan = [
        {"round": 1, "blue": {"movement": [sm.deploy("corpser-1", 28.5, sm.CORPSER_Y)]}},
        {"round": 2, "blue": {"movement": [sm.hold("corpser-1", use=[sm.INFEST])]}},
    ]
    mission = {"card": "Hold Position", "starting_supply": 20}
    data = skirmish("summon", armies=write_armies(tmp_path, sm.TERRAN, sm.CORPSER), rounds=plan, mission=mission)
    data["deployment"]["entry_edges"] = {"red": "east", "blue": "north"}
    scn = build(data, "summon.toml")
    assert errors(scn) == []
    sim = sm.play(scn, 8, [(1, "movement"), (2, "movement")])
    v = sim.uids.index("roachling-1")
    assert (sim.pos[v] >= 0).all() and not sim.skipped
    w, su = sim.world, scn.units["roachling-1"]
    r = su.base_mm / MM_PER_INCH / 2
    for pid in set(sim.pos[v].tolist()):
        cs = w.placements[pid].centres
        assert len(cs) == su.models and all(36.0 - c[0] - r > 6.0 + EPS for c in cs)
        assert zone_gap(w, su, "blue", cs) > 0
        lead = cs[0]
        occupied = tuple(int(sim.pos[k, 0]) for k in range(sim.U) if k != v and sim.pos[k, 0] >= 0)
        old = w.place(su, lead, w.rear_of("blue"), occupied)
        assert old is not None and in_enemy_zone(w, "roachling-1", "blue", old)
