"""Setting a charging unit (rulebook 8.7.7 step 4, EXECUTE THE MOVE) in the scenario simulation.

8.7.7 step 4: "Move the Leading Model into the valid position ... Set remaining models In Coherency -
Coherency Links may pass through Enemy models the Unit is Engaged with (Part 4.4). None may end Within
the Engagement Range of a Unit not declared as a target. Placement priority: Priority A: Base-to-Base
contact with declared target models (whenever physically possible). Priority B: Within the Engagement
Range of targets (if Base-to-Base is impossible). Priority C: As close as possible to the Leading Model
to maintain Coherency." ``World.place`` with ``allowed_enemies`` is the reading (``World._charge_spots``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathhammer.board.engagement import ENGAGEMENT_RANGE
from mathhammer.board.model import EPS, MM_PER_INCH, board_problems
from mathhammer.board.ranks import CONTACT
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.world import COHERENCY_SLACK, GAP, WHOLLY_WITHIN, horizontal_coherency

from .test_scenario_policy import scenario

LEAD = (10.0, 12.5)  # 0.22" from the nearest Marine of Marine-1 set around (10, 10)


def _setup(marine_2: bool = True, left: int = 6, lead: tuple[float, float] = LEAD) -> tuple[Simulation, dict[str, int]]:
    """Marine-1 around (10, 10), Marine-2 around (14.5, 10) (not a target), Zergling-1 set by a Charge at
    Marine-1 (``left`` models left) with its Leading Model at ``lead``."""
    sim = Simulation(scenario(), 1, 0)
    w, units = sim.world, sim.scn.units
    pids = {"marine-1": w.place(units["marine-1"], (10, 10), (0, -1), ())}
    if marine_2:
        pids["marine-2"] = w.place(units["marine-2"], (14.5, 10), (0, -1), (pids["marine-1"],))
    z = w.place(
        units["zergling-1"], lead, (0, 1), tuple(pids.values()), ("marine-1",), targets_left=(("marine-1", left),)
    )
    assert z is not None and all(p is not None for p in pids.values())
    pids["zergling-1"] = z
    return sim, pids


def _r(sim: Simulation, uid: str) -> float:
    return sim.scn.units[uid].base_mm / MM_PER_INCH / 2


def _gaps(sim: Simulation, pids: dict[str, int], a: str, b: str, b_left: int | None = None) -> np.ndarray:
    """Edge gaps, models of ``a`` x (live) models of ``b``."""
    ca = np.asarray(sim.world.placements[pids[a]].centres)
    cb = np.asarray(sim.world.placements[pids[b]].centres[:b_left])
    d = np.sqrt(((ca[:, None, :] - cb[None, :, :]) ** 2).sum(axis=2))
    return d - _r(sim, a) - _r(sim, b)


def _state(sim: Simulation, pids: dict[str, int], left: dict[str, int] | None = None):
    pos, alive = [-1] * sim.U, [0] * sim.U
    for uid, pid in pids.items():
        u = sim.uids.index(uid)
        pos[u], alive[u] = pid, (left or {}).get(uid, sim.scn.units[uid].models)
    return tuple(pos), tuple(alive)


def test_the_leading_model_is_where_the_charge_ended() -> None:
    """8.7.7 step 4 "Move the Leading Model into the valid position": the first centre is the end point."""
    sim, pids = _setup()
    assert sim.world.placements[pids["zergling-1"]].centres[0] == LEAD


def _free_contact_spots(sim: Simulation, pids: dict[str, int], left: int = 6) -> int:
    """Naive: spots (36 directions around each live Marine) where one more Zergling could be set in
    Base-to-Base contact, on the table, overlapping no base, Wholly Within 3" of the Leading Model and
    not Within 1" of Marine-2."""
    w = sim.world
    rz, rm = _r(sim, "zergling-1"), _r(sim, "marine-1")
    zs = w.placements[pids["zergling-1"]].centres
    bases = [(c, rz) for c in zs] + [
        (c, rm) for uid in pids if uid != "zergling-1" for c in w.placements[pids[uid]].centres
    ]
    others = w.placements[pids["marine-2"]].centres if "marine-2" in pids else ()
    n = 0
    for mc in w.placements[pids["marine-1"]].centres[:left]:
        for k in range(36):
            a = 2 * math.pi * k / 36
            c = (mc[0] + (rz + rm + CONTACT / 2) * math.cos(a), mc[1] + (rz + rm + CONTACT / 2) * math.sin(a))
            if math.dist(c, zs[0]) > horizontal_coherency(sim.world.scn.units["zergling-1"]) + EPS:
                continue
            if any(math.dist(c, oc) - rz - rm <= ENGAGEMENT_RANGE + EPS for oc in others):
                continue  # 8.7.7 step 4: not Within 1" of a unit not declared
            if all(math.dist(c, oc) - rz - orad >= CONTACT / 2 - 2e-3 for oc, orad in bases if oc != mc):
                n += 1
    return n


def test_priority_a_base_to_base_wherever_possible() -> None:
    """Priority A: Zerglings are set touching a Marine (bases at most CONTACT = 0.05" apart) while there is
    room Wholly Within 3" of the Leading Model: a model is set elsewhere only once no such spot is left
    (checked naively, 36 directions around each Marine). The old reading (a block behind the Leading
    Model) touched none."""
    sim, pids = _setup()
    touching = _gaps(sim, pids, "zergling-1", "marine-1").min(axis=1) <= CONTACT + EPS
    assert touching.sum() >= 3
    assert touching[1:].all() or _free_contact_spots(sim, pids) == 0


def test_priority_b_when_base_to_base_is_impossible() -> None:
    """Priority B: once no spot touching a Marine is left, Zerglings are set Within the Engagement Range
    (not touching) before any is set farther off (Priority C)."""
    sim, pids = _setup()
    g = _gaps(sim, pids, "zergling-1", "marine-1").min(axis=1)[1:]  # the Leading Model aside
    touching, near = g <= CONTACT + EPS, g <= ENGAGEMENT_RANGE + EPS
    assert (near & ~touching).sum() >= 1
    assert _free_contact_spots(sim, pids) == 0


def test_every_model_wholly_within_the_horizontal_coherency_of_the_leading_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """4.4 (8.7.7 step 4 "Set remaining models In Coherency"): "set each remaining model one at a time,
    Wholly Within 3" of the Leading Model" (one base size: centres at most 3" apart); the Zerglings' Squadron ("This
    Unit's Horizontal Coherency is 4\"") makes it 4", and with 3" the same Charge sets them all within 3"."""
    from mathhammer.scenario.geometry import charge as world_module  # where the Charge reads it

    sim, pids = _setup()
    su = sim.world.scn.units["zergling-1"]
    assert horizontal_coherency(su) == 4.0 and horizontal_coherency(sim.world.scn.units["marine-1"]) == WHOLLY_WITHIN
    cs = sim.world.placements[pids["zergling-1"]].centres
    wide = max(math.dist(cs[0], c) for c in cs)
    assert wide <= 4.0 + EPS
    monkeypatch.setattr(world_module, "horizontal_coherency", lambda su: WHOLLY_WITHIN)
    sim, pids = _setup()
    cs = sim.world.placements[pids["zergling-1"]].centres
    assert max(math.dist(cs[0], c) for c in cs) <= WHOLLY_WITHIN + EPS < wide


def test_no_model_within_1_inch_of_a_unit_not_declared() -> None:
    """8.7.7 step 4 "None may end Within the Engagement Range of a Unit not declared as a target": Marine-2
    stands 4.5" east of Marine-1 and is not a target."""
    sim, pids = _setup()
    assert _gaps(sim, pids, "zergling-1", "marine-2").min() > ENGAGEMENT_RANGE + EPS


def test_only_the_live_models_of_a_target_are_touched() -> None:
    """Priority A counts the target's live models (its first ``left`` centres): with 2 Marines left the
    Zerglings touch those two wherever there is room (checked naively), and the removed Marines' spots
    stay clear (no base overlaps)."""
    sim, pids = _setup(left=2)
    live = _gaps(sim, pids, "zergling-1", "marine-1", 2)
    everyone = _gaps(sim, pids, "zergling-1", "marine-1")
    touching = live.min(axis=1) <= CONTACT + EPS
    assert touching.sum() >= 1
    assert touching[1:].all() or _free_contact_spots(sim, pids, left=2) == 0
    assert everyone.min() >= CONTACT / 2 - 2e-3  # touching, never overlapping


def test_the_unit_is_in_coherency_and_the_board_is_legal() -> None:
    """Set In Coherency (as ``place`` reads 4.4: every model within a base spacing + 2" of one set before
    it), no overlapping bases or models off the table (``board_problems``), and the unit Engaged."""
    sim, pids = _setup()
    cs = sim.world.placements[pids["zergling-1"]].centres
    step = 2 * _r(sim, "zergling-1") + GAP
    assert all(any(math.dist(c, p) <= step + COHERENCY_SLACK + EPS for p in cs[:i]) for i, c in enumerate(cs) if i)
    pos, alive = _state(sim, pids)
    assert board_problems(sim.world.board_for(pos, alive)) == []
    assert ("zergling-1", "marine-1") in sim.world.engaged_pairs(pos, alive)


def test_the_strikers_after_the_charge() -> None:
    """8.8.1 step 2 after 8.7.7 step 4: the models in the Fighting Rank (Within 1" of a Marine) and the
    Supporting Rank (Base-to-Base with a Zergling in the Fighting Rank), counted naively, strike; most
    of the twelve do."""
    sim, pids = _setup()
    cs = sim.world.placements[pids["zergling-1"]].centres
    rz = _r(sim, "zergling-1")
    fighting = _gaps(sim, pids, "zergling-1", "marine-1").min(axis=1) <= ENGAGEMENT_RANGE + EPS
    supporting = [
        not fighting[i] and any(fighting[j] and math.dist(c, cs[j]) - 2 * rz <= CONTACT + EPS for j in range(len(cs)))
        for i, c in enumerate(cs)
    ]
    naive = int(fighting.sum()) + sum(supporting)
    assert sim.world.strikers(*_state(sim, pids), "zergling-1") == naive
    assert naive >= 9


def test_the_survivors_are_the_engaged_models() -> None:
    """8.7.5 after 8.7.7 step 4: the placement order (survivors first) keeps the Leading Model, then the
    models in Base-to-Base contact, then those Within the Engagement Range, then the rest."""
    sim, pids = _setup()
    g = _gaps(sim, pids, "zergling-1", "marine-1").min(axis=1)
    tier = np.where(g <= CONTACT + EPS, 3, np.where(g <= ENGAGEMENT_RANGE + EPS, 2, 1))
    assert list(tier[1:]) == sorted(tier[1:], reverse=True)


def test_placements_read_through_the_memo_equal_those_computed_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """8.7.7 step 4 placements are kept with the box of the spots they tested (``World._charge_spots_memo``):
    every charging unit set in 1,500 games of the 6-a-side example, read through that memo, is set where
    the placement computed afresh with every other base on the table sets it, and many were reused."""
    from mathhammer.scenario import builtin_scenarios, load_scenario
    from mathhammer.scenario.world import World

    calls: list[tuple[object, ...]] = []
    memo = World._charge_spots_memo

    def spy(self: World, su, lead, r, level, others, live, back, seen=None):  # type: ignore[no-untyped-def]
        got = memo(self, su, lead, r, level, others, live, back, seen)
        calls.append((self, su, lead, r, level, list(others), list(live), back, got))
        return got

    def unkept(self: World, su, lead, rear, occupied, allowed, targets_left=()):  # type: ignore[no-untyped-def]
        box = [math.inf, math.inf, -math.inf, -math.inf]
        return self.charge_place(su, lead, rear, occupied, allowed, targets_left, box=box), box

    monkeypatch.setattr(World, "_charge_spots_memo", spy)
    # every placement reaches this memo (``World.charge_place_kept``, which answers most repeated ones before it, has
    # its test in test_scenario_local.py)
    monkeypatch.setattr(World, "charge_place_kept", unkept)
    path = next(p for p in builtin_scenarios() if p.name == "standard_clash.toml")
    Simulation(load_scenario(path), 1500, 6).run()
    assert len(calls) >= 400
    fresh = sum(len(entries) for entries in calls[0][0]._spots_memo.values())  # type: ignore[attr-defined]
    assert len(calls) - fresh > 150  # the memo was used (500 calls, 230 computed at the time of writing)
    for w, su, lead, r, level, others, live, back, got in calls:
        assert World._charge_spots(w, su, lead, r, level, others, live, back) == got  # type: ignore[arg-type]


def test_the_memo_looks_at_every_base_that_can_change_a_tested_spot() -> None:
    """The same Charge set beside 300 random single other bases (an enemy Ground unit not declared,
    or a friendly base), one World keeping the memo: each placement equals the one computed afresh.
    A base within 1" of a tested spot (8.7.7 step 4: "None may end Within the Engagement Range of a
    Unit not declared as a target") or overlapping one changes the answer; one farther does not."""
    sim, _ = _setup(marine_2=False)
    w = sim.world
    su = sim.scn.units["zergling-1"]
    r = _r(sim, "zergling-1")
    m1 = w.placements[w.place(sim.scn.units["marine-1"], (10, 10), (0, -1), ())]  # type: ignore[index]
    rm = _r(sim, "marine-1")
    live = [(c, rm) for c in m1.centres]
    base = [(c, rm, False) for c in m1.centres]
    rng = np.random.default_rng(3)
    changed = 0
    for _ in range(300):
        x, y = LEAD[0] + rng.uniform(-5, 5), LEAD[1] + rng.uniform(-2, 6)
        other = ((float(x), float(y)), float(rng.choice([0.3, 0.5, 0.98])), bool(rng.random() < 0.7))
        if math.dist(other[0], LEAD) < other[1] + r + 0.05 or min(math.dist(other[0], c) for c in m1.centres) < 1.6:
            continue  # on the Leading Model or on the target: not a board the simulation makes
        others = [*base, other]
        got = w._charge_spots_memo(su, LEAD, r, None, others, live, (0.0, 1.0))
        assert got == w._charge_spots(su, LEAD, r, None, others, live, (0.0, 1.0))
        changed += got != w._charge_spots(su, LEAD, r, None, base, live, (0.0, 1.0))
    assert changed > 30  # the other base mattered in many of them


def test_units_away_from_the_box_a_charge_setting_looked_at_do_not_change_it() -> None:
    """The simulation gives a Charge's setting (8.7.7 step 4) to every trial whose units near the box
    ``World.charge_place`` looked at are placed alike (``World.bases_test``). Marine-2 (an enemy Ground unit
    not declared) set at 250 random points around the Charge: where the test says it cannot matter, the
    setting equals the one without it; where it says it may (a base overlapping a spot tested, or Within 1"
    of one: "None may end Within the Engagement Range of a Unit not declared as a target"), it often differs."""
    sim, pids = _setup(marine_2=False)
    w = sim.world
    su, m2 = sim.scn.units["zergling-1"], sim.scn.units["marine-2"]
    args = (("marine-1",), (("marine-1", 6),))
    box = [math.inf, math.inf, -math.inf, -math.inf]
    alone = w.charge_place(su, LEAD, (0, 1), (pids["marine-1"],), *args, box=box)
    assert alone is not None
    matters = w.bases_test(su, box)
    rng = np.random.default_rng(5)
    far = changed = 0
    for _ in range(250):
        at = (float(LEAD[0] + rng.uniform(-9, 9)), float(LEAD[1] + rng.uniform(-4, 9)))
        pid = w.place(m2, at, (0, -1), (pids["marine-1"],))
        if pid is None:
            continue
        got = w.charge_place(su, LEAD, (0, 1), (pids["marine-1"], pid), *args)
        if matters(pid):
            changed += got != alone
        else:
            far += 1
            assert got == alone, at
    assert far > 30 and changed > 30
