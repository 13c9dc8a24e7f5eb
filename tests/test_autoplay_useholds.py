"""A Hold with one ability no card's plan check reads (scenario/players/useholds.py: Stimpack, 10.2, 10.5) judged by the
walk once a Round, held to the walk in every state: before each activation of random games, every such entry of every
unit on the table in each live game's state is answered by one Legality kept over the whole run (the first state's
walk, per entry and Round) as the walk answers it in that state; the masks are the same with and without the reading;
and what is not inert is left to the walk (an ability a card family checks, a Burrowed Status change, a cost the cards
cannot pay, another field set). A Move or Run with such an ability (Stimpack's: 8.5.3 at its BUFF Speed) is judged by
its Hold twin's verdict and the Move's own reading at the Speed with the ability, held to the walk the same way."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.board.model import EPS
from mathhammer.scenario.lookup import find
from mathhammer.scenario.players import useholds
from mathhammer.scenario.players.legal import Legality
from mathhammer.scenario.players.useholds import CHECKED_KINDS
from mathhammer.scenario.sim import Simulation
from tests.autoplay_kit import before_each, masks_alike
from tests.test_autoplay_moveverdicts import SIX, _scenario


@pytest.fixture(scope="module")
def scn(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return _scenario(tmp_path_factory.mktemp("useholds"), "Gauntlet", "standard", *SIX, length=3)


def _each_entry(sim: Simulation, entry: Any) -> Legality:
    """Run ``sim`` (random players); before each activation, ``entry(leg, phase, u, i, state)`` for every entry ``i``
    of every unit ``u`` on the table in each live game's state, ``leg`` one Legality kept over the whole run."""
    kept: dict[str, Legality] = {}
    n = sim.U

    def judge(act: Any, games: np.ndarray, legality: Any) -> None:
        leg = kept.setdefault("leg", Legality(sim, legality.menus))
        table, _ = leg.states(games[~sim.over[games]])
        for state in table:
            for u, uid in enumerate(sim.uids):
                if state[u] < 0 or state[n + u] <= 0:
                    continue
                for i in range(len(leg.menus[uid][act.phase])):
                    entry(leg, act.phase, u, i, state)

    before_each(sim, judge)
    sim.run()
    return kept["leg"]


def test_a_use_hold_is_the_walks_verdict_in_every_state(scn: Any) -> None:
    sim = Simulation(scn, 40, 7)
    counts = {"held": 0, "rounds": 0}
    rounds: set[int] = set()

    def entry(leg: Legality, phase: str, u: int, i: int, state: Any) -> None:
        e = leg.menus[sim.uids[u]][phase][i]
        if not e.use or not leg.holds.applies(u, phase, i, state):
            return
        assert leg._walk(u, phase, i, state) == leg.walked(u, phase, i, state), (sim.uids[u], e, state)
        counts["held"] += 1
        rounds.add(sim.round)

    leg = _each_entry(sim, entry)
    assert counts["held"] > 200 and len(rounds) == 3, (counts, rounds)
    assert leg._held and all(leg._held.values())  # Stimpack's Holds: legal wherever the unit stands


def test_a_use_move_is_its_twins_verdict_and_the_move_at_the_speed_with_the_ability(scn: Any) -> None:
    """8.5.3 ("No part of a base of the Leading Model can move more than its unit Speed value") at Stimpack's BUFF
    Speed (3): every Move and Run with Stimpack answered through its Hold twin (``UseHolds.twin``) is the walk's verdict
    in that state, and some are legal only at that Speed (the Move at the bare Speed is refused): a reading at the bare
    Speed fails this test."""
    sim = Simulation(scn, 40, 7)
    counts = {"judged": 0, "legal": 0, "buffed": 0}

    def entry(leg: Legality, phase: str, u: int, i: int, state: Any) -> None:
        uid = sim.uids[u]
        e = leg.menus[uid][phase][i]
        twin = leg.holds.twin(u, phase, i) if phase == "movement" else None
        if twin is None or not leg.holds.applies(u, phase, twin, state):
            return
        assert e.use == ("Stimpack",) and e.action in ("move", "run"), e
        got = leg._walk(u, phase, i, state)
        assert got == leg.walked(u, phase, i, state), (uid, e, state)
        counts["judged"] += 1
        counts["legal"] += got
        read = leg.moves.used(u, phase, i)
        assert read is not None
        su = read[3]
        bare = (*read[:4], (leg.moves._speed(uid, su, False), leg.moves._speed(uid, su, True)), read[5])
        assert bare[4][0] + 3 == read[4][0]  # BUFF Speed (3)
        counts["buffed"] += got and not leg.moves.judge(bare, u, state)

    _each_entry(sim, entry)
    assert counts["judged"] > 500 and counts["legal"] > 100 and counts["buffed"] > 20, counts


def test_a_use_attack_is_its_hold_walks_verdict_and_the_attack_with_the_ability(scn: Any) -> None:
    """8.7.7 (a Charge: Metabolic Boost's and Predation's) and 8.7.3 (a Ranged Attack: Missile Attacks'), each with
    one inert ability (10.5): every such entry answered through its walk as a Hold (``UseHolds.attack_twin``,
    ``Legality.use_walk``) and the attack's own reading with the ability used is the walk's verdict in that state, both
    ways (legal and refused), for Charges and Shoots."""
    sim = Simulation(scn, 40, 7)
    counts: dict[tuple[str, bool], int] = {}

    def entry(leg: Legality, phase: str, u: int, i: int, state: Any) -> None:
        e = leg.menus[sim.uids[u]][phase][i]
        if not leg.holds.attack_twin(u, phase, i) or not leg.holds.usable(u, state):
            return
        assert len(e.use) == 1 and e.action in ("charge", "shoot") and leg.holds.twin(u, phase, i) is None, e
        got = leg._walk(u, phase, i, state)
        assert got == leg.walked(u, phase, i, state), (sim.uids[u], e, state)
        counts[e.action, got] = counts.get((e.action, got), 0) + 1

    leg = _each_entry(sim, entry)
    assert min(counts.get((a, g), 0) for a in ("charge", "shoot") for g in (True, False)) > 20, counts
    assert leg._uses and all(leg._uses.values())  # the abilities are paid with the cards all Ready


def test_a_use_charge_reads_the_charge_distance_with_the_ability(tmp_path: Path) -> None:
    """8.7.7 with Leap ("When determining Charge Distance for this Unit, add 2 to the Charge Distance", Kerrigan Swarm
    Raptor): every Charge with Leap answered through ``UseHolds.attack_twin`` is the walk's verdict, and some are legal
    only with the 2 added (the plain reading, at Speed + 6 with no addition, refuses them): a reading of the loadout
    without the ability fails this test."""
    brood = str(Path(__file__).resolve().parents[1] / "profiles" / "armies" / "kerrigans_brood.toml")
    sim = Simulation(_scenario(tmp_path, "Gauntlet", "standard", SIX[0], brood, length=3), 30, 5)
    counts = {"judged": 0, "legal": 0, "added": 0}

    def entry(leg: Legality, phase: str, u: int, i: int, state: Any) -> None:
        e = leg.menus[sim.uids[u]][phase][i]
        if e.use != ("Leap",) or not leg.holds.attack_twin(u, phase, i) or not leg.holds.usable(u, state):
            return
        got = leg._walk(u, phase, i, state)
        assert got == leg.walked(u, phase, i, state), (sim.uids[u], e, state)
        read = leg.attacks.used(u, phase, i)
        assert read is not None and all(more == 2 for _, more in read[6]), read[6]
        bare = (*read[:6], tuple((speed, 0) for speed, _ in read[6]), read[7])
        counts["judged"] += 1
        counts["legal"] += got
        counts["added"] += got and not leg.attacks.judge(bare, u, state)

    _each_entry(sim, entry)
    assert counts["judged"] > 1000 and counts["legal"] > 50 and counts["added"] > 20, counts


def test_a_move_whose_twin_is_not_inert_is_left_to_the_walk(scn: Any) -> None:
    """``UseHolds.twin``: a Stimpack Move's twin is the Stimpack Hold; a plain Move has none; nor has a Stimpack Move
    whose Hold is not inert, or a Move with two abilities."""
    sim = Simulation(scn, 1, 3)
    leg = Legality(sim, sim.players[0].legality.menus)
    u, uid = next((u, uid) for u, uid in enumerate(sim.uids) if any(e.use for e in leg.menus[uid]["movement"]))
    entries = leg.menus[uid]["movement"]
    hold = next(i for i, e in enumerate(entries) if e.action == "hold" and e.use == ("Stimpack",))
    stim = next(i for i, e in enumerate(entries) if e.action == "move" and e.use == ("Stimpack",))
    plain = next(i for i, e in enumerate(entries) if e.action == "move" and not e.use)
    assert leg.holds.twin(u, "movement", stim) == hold
    assert leg.holds.twin(u, "movement", plain) is None and leg.holds.twin(u, "movement", hold) is None
    fresh = Legality(sim, leg.menus)
    fresh.holds.inert = lambda *a: False  # type: ignore[method-assign]
    assert fresh.holds.twin(u, "movement", stim) is None
    other = Legality(sim, leg.menus)
    menu = other.holds.menus[uid]
    moved = replace(entries[stim], use=("Stimpack", "Stimpack"))
    phases = {**menu.phases, "movement": (*entries[:stim], moved, *entries[stim + 1 :])}
    other.holds.menus = {**other.holds.menus, uid: replace(menu, phases=phases)}
    assert other.holds.twin(u, "movement", stim) is None


def test_the_masks_are_the_same_without_the_reading(scn: Any) -> None:
    def switch_off(leg: Legality) -> None:
        leg.holds.applies = lambda *a: False  # type: ignore[method-assign]

    assert masks_alike(Simulation(scn, 3, 11), switch_off) > 50


def test_the_masks_are_the_same_without_the_attack_reading(scn: Any) -> None:
    """The same for Charges and Shoots with an inert ability (``UseHolds.attack_twin`` switched off: the walk judges
    them in each state)."""

    def switch_off(leg: Legality) -> None:
        leg.holds.attack_twin = lambda *a: False  # type: ignore[method-assign]

    assert masks_alike(Simulation(scn, 3, 11), switch_off) > 50


def test_what_is_not_inert_is_left_to_the_walk(scn: Any) -> None:
    """Stimpack's Hold is inert (its effects: NON-LETHAL DAMAGE on itself, BUFF Speed, a weapon keyword); the same entry
    is not with another field set, with an effect of a kind a card family checks, with a Burrowed Status change, or
    with a cost the player's cards cannot pay (10.5)."""
    sim = Simulation(scn, 1, 3)
    leg = Legality(sim, sim.players[0].legality.menus)
    u, i = next(
        (u, i)
        for u, uid in enumerate(sim.uids)
        for i, e in enumerate(leg.menus[uid]["movement"])
        if e.action == "hold" and e.use == ("Stimpack",)
    )
    uid = sim.uids[u]
    assert leg.holds.inert(u, "movement", i)
    entries = leg.menus[uid]["movement"]
    hold = entries[i]
    found = find(scn, uid, "Stimpack")
    assert found is not None
    kinds = {x.kind for x in found.ability.effects}
    assert kinds == {"non_lethal_self", "speed", "weapon_keyword"} and not kinds & CHECKED_KINDS

    def inert_with(entry: Any, ability: Any = None) -> bool:
        """``UseHolds.inert`` of the entry with ``entry`` in its place (and ``ability`` found for its use), on a copy
        of the menus (the kept ones are shared)."""
        holds = leg.holds
        menu = holds.menus[uid]
        old = menu.phases["movement"]
        phases = {**menu.phases, "movement": (*old[:i], entry, *old[i + 1 :])}
        menus = holds.menus
        holds.menus = {**menus, uid: replace(menu, phases=phases)}
        real = useholds.find
        if ability is not None:
            useholds.find = lambda *a: replace(found, ability=ability)  # type: ignore[assignment]
        try:
            return holds.inert(u, "movement", i)
        finally:
            useholds.find = real  # type: ignore[assignment]
            holds.menus = menus

    assert inert_with(hold)
    assert not inert_with(replace(hold, action="move", to=(10.0, 10.0)))
    assert not inert_with(replace(hold, use=("Stimpack", "Stimpack")))
    ab = found.ability  # a pydantic model: model_copy
    checked = sorted(CHECKED_KINDS)[0]
    first = ab.effects[0]
    assert not inert_with(
        hold, ab.model_copy(update={"effects": [*ab.effects, first.model_copy(update={"kind": checked})]})
    )
    burrow = first.model_copy(update={"kind": "unit_keyword", "keyword": "BURROWED"})
    assert not inert_with(hold, ab.model_copy(update={"effects": [*ab.effects, burrow]}))
    assert not inert_with(hold, ab.model_copy(update={"cost": 99}))
    assert not inert_with(hold, ab.model_copy(update={"type": "reaction"}))
    assert inert_with(hold, ab.model_copy())  # the copy itself: still inert


def test_a_move_point_beyond_its_entrys_speed_is_refused_by_the_walk(scn: Any) -> None:
    """8.5.3: the shortcut refusing a Move or Run point beyond the most Speed its own entry can have in a straight line
    (``Legality._entry_speeds``: a plain entry's Speeds, ON CREEP or not; any other entry's the unit's most, every
    ability its menus use) refuses only what the walk refuses, in every state of random games; it refuses plain
    entries the unit's most Speed would leave to the readings, and the walk admits Stimpack Moves beyond the bare
    Speed (a cap without Stimpack's BUFF Speed for them fails this test)."""
    sim = Simulation(scn, 12, 7)
    counts = {"tighter": 0, "stimpack beyond bare": 0}

    def entry(leg: Legality, phase: str, u: int, i: int, state: Any) -> None:
        uid = sim.uids[u]
        e = leg.menus[uid][phase][i]
        if e.action not in ("move", "run") or e.to is None:
            return
        lead = sim.world.placements[state[u]].centres[0]
        d = float(np.hypot(e.to[0] - lead[0], e.to[1] - lead[1]))
        cap = float(leg._entry_speeds(u, phase)[i])
        bare = max(leg.moves.bare_speeds(u))
        if d > leg._bounds(u)[0] + EPS or (d <= cap + EPS and not (e.use and d > bare + EPS)):
            return  # refused by the unit's most Speed already, or neither beyond its cap nor a Stimpack entry past bare
        legal = leg.walked(u, phase, i, state)
        if d > cap + EPS:
            assert not legal, (uid, e, state, d, cap)
            counts["tighter"] += 1
        else:
            counts["stimpack beyond bare"] += legal

    _each_entry(sim, entry)
    assert counts["tighter"] > 1000, counts
    assert counts["stimpack beyond bare"] > 100, counts
