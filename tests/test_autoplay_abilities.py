"""Abilities an automatic player uses (issue 29 point 2; scenario/players/menu.py, features.py, spending.py): the Active
abilities that change a Shoot or a Charge as menu entries (10.1, 10.5), scored by the exact engine's gain and their
price in resources, paid per game from the player's Ready cards (10.5.1, 10.5.2) once per Round per unit (10.2), and
every one the plan check accepts."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer.scenario import check_scenario
from mathhammer.scenario.loader import load_scenario, parse_scenario
from mathhammer.scenario.lookup import use_bits
from mathhammer.scenario.players import menu as menu_module
from mathhammer.scenario.players.auto import Auto
from mathhammer.scenario.players.features import COL, COLUMNS, DAMAGE, MODELS, Features
from mathhammer.scenario.players.menu import attack_abilities, build_menus
from mathhammer.scenario.players.policies import Weighted, load_weights
from mathhammer.scenario.players.spending import Spending
from mathhammer.scenario.players.trace import record, write_trace
from mathhammer.scenario.sim import Simulation
from mathhammer.scenario.spec import Activation, Scenario
from mathhammer.starcraft.loadout import as_target, attack_batches
from mathhammer.starcraft.model import Attack
from tests.autoplay_kit import data
from tests.autoplay_kit import judged as judge
from tests.naive import naive_trial

#: a Zerg list with the cards whose abilities change an attack: Hydralisk Den (Missile Attacks: the first Ranged Weapon
#: used gains PRECISION (1)), Lair (Predation: Close Combat Weapons gain INSTANT), Zerglings (Metabolic Boost, 1 BM)
DEN = """name = "Zerg with a Den"
scale = "Skirmish"
faction = "Kerrigan's Swarm"
tactical = ["Spawning Pool", "Lair", "Hydralisk Den", "Accelerating Creep"]

[[units]]
unit = "Zergling"
models = 12

[[units]]
unit = "Hydralisk"
models = 2
"""


def table(folder: Path, red: str = "objective", blue: str = "objective", length: int = 3) -> dict[str, Any]:
    d = data(folder, red=red, blue=blue, length=length)
    den = folder / "zerg_den.toml"
    den.write_text(DEN)
    d["players"]["blue"]["army"] = str(den)
    return d


def scenario(folder: Path, **kw: Any) -> Scenario:
    return parse_scenario(table(folder, **kw), "den.toml", folder)


def menus_of(sim: Simulation) -> dict[str, Any]:
    auto = sim.players[1]
    assert isinstance(auto, Auto)
    auto.legality  # noqa: B018 (builds the menus)
    assert auto._menus is not None
    return auto._menus


def test_menus_offer_the_attack_abilities_of_the_unit_and_its_cards(tmp_path: Path) -> None:
    """10.1, 10.5: a Shoot entry once more with Missile Attacks (Hydralisk Den, Assault Phase, the first Ranged Weapon)
    per enemy; a Charge once more with Metabolic Boost (the Zerglings' card) and with Predation (Lair, any Phase: the
    Close Combat Weapons that follow the Charge, 8.8.1). Not offered: Wild Mutation (only ON CREEP), Creep Spread (a
    token, no attack), Feral Rage (Combat Phase: the Combat Phase has no decision), Stimpack (Movement Phase: on the
    Moves and the Hold, below), and an ability reaching no weapon of the unit (Missile Attacks for Zerglings: no
    Ranged Weapon)."""
    scn = scenario(tmp_path)
    units = scn.units
    assert attack_abilities(scn, units["hydralisk-1"], "shoot") == ["Missile Attacks"]
    assert attack_abilities(scn, units["zergling-1"], "charge") == ["Metabolic Boost", "Predation"]
    assert attack_abilities(scn, units["zergling-1"], "shoot") == []
    assert attack_abilities(scn, units["marine-1"], "shoot") == attack_abilities(scn, units["marine-1"], "charge") == []
    menus = menus_of(Simulation(scn, 1, 0))
    shots = [(e.target, e.use) for e in menus["hydralisk-1"]["assault"] if e.action == "shoot"]
    assert shots == [(t, u) for u in ((), ("Missile Attacks",)) for t in ("marine-1", "marauder-1")]
    charges = {e.use for e in menus["zergling-1"]["assault"] if e.action == "charge"}
    assert charges == {(), ("Metabolic Boost",), ("Predation",)}
    act = next(e for e in menus["hydralisk-1"]["assault"] if e.use).activation("hydralisk-1", "blue", 2, "assault")
    assert act.use == ("Missile Attacks",)


def test_an_ability_entry_scores_the_attack_with_it_on_against_a_naive_monte_carlo(tmp_path: Path) -> None:
    """damage, destroy and models of a Shoot with Missile Attacks (PRECISION (1) on the Hydralisks' first Ranged
    Weapon) against the naive resolver of tests/naive.py on the same loadout (3,000 attacks, means within 5 SE), and
    above the plain Shoot's (PRECISION turns a failed Hit into a success)."""
    sim = Simulation(scenario(tmp_path), 1, 0)
    feats = Features(sim, menus_of(sim))
    u, t = sim.uids.index("hydralisk-1"), sim.uids.index("marine-1")
    use = ("Missile Attacks",)
    with_it = feats.attack(u, 2, t, 6, 0, 0, "assault", use)
    without = feats.attack(u, 2, t, 6, 0, 0, "assault")
    assert with_it[0] > without[0] and with_it[2] > without[2]
    batches = attack_batches(sim.loadout(u, use_bits(sim, u, use)), sim.units[t].unit, "assault", alive=2)
    assert any("PRECISION" in str(k).upper() for b in batches for k in b.weapon.keywords)  # the ability is on
    target = as_target(sim.loadout(t, 0), "assault", alive=6, marker=0, shielded=False)
    supply = sim.supply(t, np.arange(sim.full[t] + 1))
    rng = random.Random(11)
    lost, dead, gone = [], [], []
    for _ in range(3000):
        left = max(6 - naive_trial(Attack(tuple(batches), target), rng)[1], 0)
        lost.append(float(supply[6] - supply[left]))
        dead.append(left == 0)
        gone.append((6 - left) / float(sim.full[t]))
    for exact, sample in zip(with_it, (lost, dead, gone), strict=True):
        mean, se = float(np.mean(sample)), float(np.std(sample)) / math.sqrt(len(sample))
        assert abs(exact - mean) <= 5 * max(se, 1e-3), (exact, mean, se)


def naive_reach(speed: float, gap: float, dice: int) -> float:
    """P(Speed + the highest of ``dice`` D6 >= the gap less 1"), by listing every roll (8.7.7)."""
    rolls = list(itertools.product(range(1, 7), repeat=dice))
    return sum(speed + max(r) >= gap - 1.0 for r in rolls) / len(rolls)


def test_a_charge_scores_its_probability_of_reaching_and_metabolic_boost_raises_it(tmp_path: Path) -> None:
    """8.7.7: a Charge's attack columns are the Close Combat attack times P(Speed + the Charge Roll reaches Within 1"
    of the target), the least base gap of the charger's Leading Model (8.7.7 step 2: the placement's first model, the
    one the engine moves) and the target's models read in a straight line; Metabolic Boost ("roll 2D6 instead of D6 and
    use the higher") raises it: against the listing of every roll, at gaps from sure to out of reach."""
    sim = Simulation(scenario(tmp_path), 1, 0)
    feats = Features(sim, menus_of(sim))
    world = sim.world
    z = sim.uids.index("zergling-1")
    zpid = world.place(sim.scn.units["zergling-1"], (5.0, 6.0), (5.0, 0.0), ())
    assert zpid is not None
    seen = set()
    for y in (12.0, 15.0, 17.0, 19.0, 21.0, 26.0):
        mpid = world.place(sim.scn.units["marine-1"], (5.0, y), (5.0, 30.0), (zpid,))
        assert mpid is not None
        a = np.asarray(world.placements[zpid].centres[:1], dtype=float)  # the Leading Model
        b = np.asarray(world.placements[mpid].centres, dtype=float)
        radii = (sim.scn.units["zergling-1"].base_mm + sim.scn.units["marine-1"].base_mm) / 25.4 / 2
        gap = min(math.dist(p, q) for p in a.tolist() for q in b.tolist()) - radii
        speed = float(sim.units[z].speed)
        plain = feats.reaches(z, zpid, 12, mpid, 6, ())
        boost = feats.reaches(z, zpid, 12, mpid, 6, ("Metabolic Boost",))
        assert plain == pytest.approx(naive_reach(speed, gap, 1)) and boost == pytest.approx(naive_reach(speed, gap, 2))
        assert boost >= plain
        seen.add((plain == 1.0, 0 < plain < 1 and boost > plain, boost == 0.0))
    assert (True, False, False) in seen and (False, True, False) in seen and (False, False, True) in seen


def test_spending_pays_from_the_ready_cards_of_each_game_once_per_round(tmp_path: Path) -> None:
    """10.5.2: an ability printed on a card Exhausts it (Missile Attacks: the one Hydralisk Den) and a cost is paid by
    Exhausting Ready cards (Metabolic Boost, 1 BM: Kerrigan's Swarm, Spawning Pool, Lair, Hydralisk Den, each 1 BM);
    per game; 10.2:
    once per Round per unit (the engine's ``used`` bits); a new Round Readies every card (8.9.5)."""
    sim = Simulation(scenario(tmp_path), 3, 0)
    pay = Spending(sim, "blue")
    pay.begin(1)
    h, z = sim.uids.index("hydralisk-1"), sim.uids.index("zergling-1")
    missile, boost, predation = ("Missile Attacks",), ("Metabolic Boost",), ("Predation",)
    games = np.arange(3)
    assert pay.affords(h, missile, games).all()
    pay.pay(h, missile, np.array([1]))
    assert pay.affords(h, missile, games).tolist() == [True, False, True]  # the Den Exhausted in game 1 only
    for _ in range(2):  # two of the four BM cards
        assert pay.affords(z, boost, np.array([0])).all()
        pay.pay(z, boost, np.array([0]))
    assert pay.affords(z, predation, np.array([0])).all()  # Lair, still Ready, Exhausted by its own ability
    pay.pay(z, predation, np.array([0]))
    assert pay.affords(z, boost, np.array([0])).all() and pay.affords(h, missile, np.array([0])).all()
    pay.pay(z, boost, np.array([0]))  # the last BM card Ready: the Den
    assert not pay.affords(z, boost, np.array([0])).any() and not pay.affords(h, missile, np.array([0])).any()
    assert pay.affords(h, missile, games).tolist() == [False, False, True]
    sim.used[h, 2] |= use_bits(sim, h, missile)  # used this Round in game 2, its Den still Ready (10.2)
    assert pay.affords(h, missile, games).tolist() == [False, False, False]
    pay.begin(2)
    sim.used[h, 2] = 0  # the engine's Cleanup clears the abilities used
    assert pay.affords(h, missile, games).all() and pay.affords(z, boost, games).all()


class _Miser(Weighted):
    """aggressive with a price no gain pays."""

    def __init__(self) -> None:
        self.weights = {**load_weights()["aggressive"], "spend": -100.0}
        super().__init__()


@pytest.mark.parametrize("price", ["aggressive", "miser"])
def test_the_score_takes_an_ability_when_its_gain_beats_its_price(
    tmp_path: Path, price: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most Shoots of the Hydralisks (at least 80%) carry Missile Attacks under ``aggressive`` (its exact gain in
    Supply is worth more than the resource's small price; the Den is Ready at each of their Shoots, one Hydralisk unit
    and one Shoot a Round, so a plain Shoot is one where PRECISION (1) adds less than the price at that target in its
    state) and none under a policy that prices it beyond any gain; both shoot. Red's Stimpack is off here: with it,
    the Marauders' NON-LETHAL DAMAGE (2) leaves them at one model in Round 3 of 4 of the 6 games, where PRECISION (1)
    adds nothing (no model to pick) and the plain Shoot is the right choice (8 of 12 Shoots with it)."""
    monkeypatch.setattr(menu_module, "MOVE_ABILITIES", False)
    scn = scenario(tmp_path, blue="aggressive", length=4)
    sim = Simulation(scn, 6, 5)
    if price == "miser":
        auto = sim.players[1]
        assert isinstance(auto, Auto)
        auto.policy = _Miser()
    shots: list[tuple[str, ...]] = []
    apply = sim.activate

    def act(a: Activation, games: np.ndarray) -> None:
        if a.unit == "hydralisk-1" and a.action == "shoot":
            shots.extend([a.use] * len(games))
        apply(a, games)

    sim.activate = act  # type: ignore[method-assign]
    sim.run()
    assert shots
    share = shots.count(("Missile Attacks",)) / len(shots)
    assert set(shots) <= {(), ("Missile Attacks",)}
    assert share >= 0.8 if price == "aggressive" else share == 0.0


def test_every_ability_used_passes_the_plan_check(tmp_path: Path, stim_on: None) -> None:
    """Traces of games where both players pick uniformly among the legal entries (random: abilities on about half the
    Shoot and Charge entries taken), written as plans: ``scenario check`` finds nothing wrong with a ``use`` (its
    Phase, its unit, its payment from the Ready cards, once per Round) in any of them, and abilities were used."""
    d = table(tmp_path, red="random", blue="random")
    scn = parse_scenario(d, "den.toml", tmp_path)
    used, world = 0, None
    for g in range(6):  # on the first game's World: the menus built once (the same games)
        sim = Simulation(scn, 1, 3, offset=g, world=world)
        world = sim.world
        game = record(sim)
        path = tmp_path / f"game-{g}.toml"
        write_trace(d, game, 3, path, "test")
        plan = load_scenario(path).plan
        used += sum(bool(a.use) for a in plan)
        problems = [p for p in check_scenario(load_scenario(path)) if not p.startswith("warning:")]
        named = ("use:", "Metabolic", "Missile", "Predation", "Stimpack")
        assert not [p for p in problems if any(n in p for n in named)]
    assert used > 0


# ------------------------------------------------------------ Stimpack: a Movement Phase ability for the later Shoot
STIM = ("Stimpack",)
PHASES = ("assault", "combat")


@pytest.fixture
def stim_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stimpack on the menus (``menu.MOVE_ABILITIES``, on by default since session 13: kept explicit here)."""
    monkeypatch.setattr(menu_module, "MOVE_ABILITIES", True)


def test_movement_abilities_are_on_the_menus_by_default(tmp_path: Path) -> None:
    """``menu.MOVE_ABILITIES`` is on (session 13: the gate its text gives holds): the Marines' and Marauders' Hold
    carries Stimpack, and no other Movement Phase ability is offered (no Zerg unit here has one)."""
    d = table(tmp_path, red="random", blue="random")
    scn = parse_scenario(d, "den.toml", tmp_path)
    menus = build_menus(scn, Simulation(scn, 1, 3).world)
    used = {(uid, e.use) for uid, m in menus.items() for e in m["movement"] if e.use}
    assert used == {("marine-1", ("Stimpack",)), ("marauder-1", ("Stimpack",))}
    assert all(any(e.action == "hold" and e.use for e in menus[u]["movement"]) for u in ("marine-1", "marauder-1"))


def test_stimpack_is_on_the_hold_and_the_markers_contest_spots(tmp_path: Path, stim_on: None) -> None:
    """Stimpack (Marine, Marauder card: Movement Phase, ACTIVE, 1 CP; its PRECISION reaches the C-14 Rifle / Quad K12,
    10.1) is offered as a Move or Hold ability: once more on the Hold and on each Move to a marker's contest spot
    (where the unit stops to shoot or reaches a marker only the BUFF Speed reaches), not on the lanes and cover spots;
    no Zerg unit has a Movement Phase ability of that kind."""
    scn = scenario(tmp_path)
    units = scn.units
    assert attack_abilities(scn, units["marine-1"], "move") == ["Stimpack"]
    assert attack_abilities(scn, units["marauder-1"], "move") == ["Stimpack"]
    assert attack_abilities(scn, units["zergling-1"], "move") == []
    assert attack_abilities(scn, units["hydralisk-1"], "move") == []
    menus = menus_of(Simulation(scn, 1, 0))
    for uid in ("marine-1", "marauder-1"):
        moves = menus[uid]["movement"]
        stim = [(e.action, e.to) for e in moves if e.use == STIM]
        stops = [(e.action, e.to) for e in moves if not e.use and (e.action == "hold" or e.label.startswith("marker-"))]
        assert stim == stops and len(stim) > 1
        assert all(e.use in ((), STIM) for e in moves)
    assert not any(e.use for e in menus["zergling-1"]["movement"])


def _face_off(sim: Simulation, marine: tuple[float, float], zergling: tuple[float, float]) -> tuple[int, ...]:
    """A state of ``sim`` with the Marines (6) and the Zerglings (12) at those points, the others in Reserves."""
    world = sim.world
    mpid = world.place(sim.scn.units["marine-1"], marine, (marine[0], 0.0), ())
    assert mpid is not None
    zpid = world.place(sim.scn.units["zergling-1"], zergling, (zergling[0], 30.0), (mpid,))
    assert zpid is not None
    m, z, n = sim.uids.index("marine-1"), sim.uids.index("zergling-1"), sim.U
    pos, alive = [-1] * n, [0] * n
    pos[m], pos[z], alive[m], alive[z] = mpid, zpid, 6, 12
    return (*pos, *alive, *([0] * n), *([0] * n), *([-1] * len(sim.scn.deployment.markers)))


def test_stimpack_scores_the_later_shoot_less_the_price_of_its_non_lethal_damage(tmp_path: Path, stim_on: None) -> None:
    """Stimpack's Hold with the Zerglings in range: ``damage``, ``destroy``, ``models`` are the Assault Phase Shoot
    with PRECISION (3) less without (the exact engine), less the next Zergling attack on the Marines with their Damage
    Marker 2 higher (NON-LETHAL DAMAGE (2), part 11: it stays on the Marker, 8.7.4 step 5) less with it as it is;
    ``spend`` is its 1 CP; ``threat`` is the plain Hold's (the price is not counted twice); a Move to a marker with it
    scores the marker times one less how much more likely that attack leaves the Marines without Supply (8.9.1)."""
    sim = Simulation(scenario(tmp_path), 1, 0)
    menus = menus_of(sim)
    feats = Features(sim, menus)
    moves = menus["marine-1"]["movement"]
    m, z = sim.uids.index("marine-1"), sim.uids.index("zergling-1")
    rows = feats.table(m, "movement", _face_off(sim, (5.0, 6.0), (5.0, 16.0)))
    hold = next(i for i, e in enumerate(moves) if e.action == "hold" and not e.use)
    boost = next(i for i, e in enumerate(moves) if e.action == "hold" and e.use == STIM)
    gain = np.subtract(feats.attack(m, 6, z, 12, 0, 0, "assault", STIM), feats.attack(m, 6, z, 12, 0, 0, "assault"))
    loss = [np.subtract(feats.attack(z, 12, m, 6, 2, 0, ph), feats.attack(z, 12, m, 6, 0, 0, ph)) for ph in PHASES]
    price = np.maximum(np.maximum(*loss), 0.0)
    assert gain[0] > 0 and gain[2] > 0 and price[2] > 0  # PRECISION adds hits; the Marker costs models
    assert rows[boost, DAMAGE : MODELS + 1] == pytest.approx(gain - price)
    assert rows[hold, DAMAGE : MODELS + 1].tolist() == [0.0, 0.0, 0.0]
    assert rows[hold, COL["spend"]] == 0.0 and rows[boost, COL["spend"]] == 1.0
    assert rows[boost, COL["threat"]] == rows[hold, COL["threat"]] > 0.0
    # a Move to a marker with it: the marker scaled by one less the more likely loss of all Supply (8.9.1)
    go = next(i for i, e in enumerate(moves) if e.use == STIM and e.action == "move")
    twin = next(i for i, e in enumerate(moves) if not e.use and (e.action, e.to) == (moves[go].action, moves[go].to))
    bare = max(feats.outcome(z, 12, m, 6, 2, 0, ph)[3] - feats.outcome(z, 12, m, 6, 0, 0, ph)[3] for ph in PHASES)
    assert 0.0 < bare < 1.0 and rows[twin, COL["marker"]] > 0.0
    assert rows[go, COL["marker"]] == pytest.approx(rows[twin, COL["marker"]] * (1.0 - bare))
    assert rows[go, COL["take"]] == pytest.approx(rows[twin, COL["take"]] * (1.0 - bare))


def test_stimpack_is_not_worth_its_damage_where_it_adds_no_shot(tmp_path: Path, stim_on: None) -> None:
    """With no enemy unit in the C-14 Rifle's range of the Hold (the Zerglings 30" away), Stimpack adds nothing to a
    Shoot and its NON-LETHAL DAMAGE still costs the Marines a model at the next attack: its columns are negative and
    every shipped policy scores its Hold below the plain Hold (it would kill models for nothing)."""
    sim = Simulation(scenario(tmp_path), 1, 0)
    menus = menus_of(sim)
    feats = Features(sim, menus)
    moves = menus["marine-1"]["movement"]
    rows = feats.table(sim.uids.index("marine-1"), "movement", _face_off(sim, (5.0, 3.0), (30.0, 33.0)))
    hold = next(i for i, e in enumerate(moves) if e.action == "hold" and not e.use)
    boost = next(i for i, e in enumerate(moves) if e.action == "hold" and e.use == STIM)
    assert rows[boost, DAMAGE] <= 0.0 and rows[boost, MODELS] < 0.0
    for name, w in load_weights().items():
        weights = np.asarray([w.get(c, 0.0) for c in COLUMNS])
        assert rows[boost] @ weights < rows[hold] @ weights, name


def test_stimpack_is_taken_where_only_its_speed_reaches_a_marker(tmp_path: Path, stim_on: None) -> None:
    """``objective`` against ``objective`` (the two-unit Terran lists, Abandoned Camp, 3 Rounds): Stimpack is used, and
    each Stimpack Move an automatic player takes goes to a marker's contest spot that the plain Move to the same
    point could not reach in that game's state (BUFF Speed (3), 8.5.3: the legality refuses the plain entry there), or
    is a Hold; every use paid from the game's Ready cards, once per Round (10.2, 10.5)."""
    d = data(tmp_path, red="objective", blue="objective", length=3)
    d["deployment"] = {"card": "Abandoned Camp"}
    d["players"]["blue"]["army"] = d["players"]["red"]["army"]
    sim = Simulation(parse_scenario(d, "camp.toml", tmp_path), 8, 52)
    apply = sim.activate
    seen: list[tuple[int, str, str]] = []

    def act(a: Activation, games: np.ndarray) -> None:
        if a.use == STIM and a.action == "move":
            live, mask, cols, _ = judge(sim, a, games)
            menus = sim.players[0 if a.player == "red" else 1]._menus
            assert menus is not None
            entries = menus[a.unit][a.phase]
            plain = [c for c in cols if not entries[c].use]
            stim = [c for c in cols if entries[c].use == STIM]
            assert plain and stim and entries[stim[0]].label.startswith("marker-")
            assert not mask[:, plain].any() and mask[:, stim].any(axis=1).all(), (a.unit, a.to)
            seen.extend([(a.round, a.player, a.unit)] * int(live.size))
        apply(a, games)

    sim.activate = act  # type: ignore[method-assign]
    sim.run()
    assert seen


def _placed(sim: Simulation, where: dict[str, tuple[tuple[float, float], tuple[float, float]]]) -> tuple[int, ...]:
    """A state of ``sim`` with the units of ``where`` (uid: (point, the point their formation faces)) at full strength
    on the table, in that order, the others in Reserves."""
    n, pids = sim.U, []
    pos, alive = [-1] * n, [0] * n
    for uid, (pt, face) in where.items():
        pid = sim.world.place(sim.scn.units[uid], pt, face, tuple(pids))
        assert pid is not None, uid
        pids.append(pid)
        u = sim.uids.index(uid)
        pos[u], alive[u] = pid, int(sim.full[u])
    return (*pos, *alive, *([0] * n), *([0] * n), *([-1] * len(sim.scn.deployment.markers)))


def _chain_sample(
    sim: Simulation, u: int, mark: int, chain: tuple[tuple[int, int, str], ...], rng: random.Random, trials: int
) -> np.ndarray:
    """``trials`` naive resolutions (tests/naive.py) of the attacks of ``chain`` one after another on unit ``u`` at
    full strength with Damage Marker ``mark``, the models left and the marker carried from each to the next: per
    trial its Supply lost, destroyed, share of its models removed, no Supply left."""
    full = int(sim.full[u])
    supply = sim.supply(u, np.arange(full + 1))
    out = np.zeros((trials, 4))
    for i in range(trials):
        k, m = full, mark
        for v, a, ph in chain:
            if k == 0:
                break
            batches = attack_batches(sim.loadout(v, 0), sim.units[u].unit, ph, alive=a)
            target = as_target(sim.loadout(u, 0), ph, alive=k, marker=m, shielded=False)
            _, removed, m, _ = naive_trial(Attack(tuple(batches), target), rng)
            k = max(k - removed, 0)
        out[i] = (supply[full] - supply[k], k == 0, (full - k) / full, supply[k] <= 0)
    return out


def test_stimpack_prices_its_damage_over_every_enemy_attack_that_reaches(tmp_path: Path, stim_on: None) -> None:
    """NON-LETHAL DAMAGE (2) stays on the Damage Marker until an attack turns it into casualties (8.7.4 step 5; part
    11), whichever attack that is: Stimpack's price on the Marauders' Hold, with the Zerglings (a Charge) and the
    Hydralisks (a Shoot) both able to reach them, is every one of those attacks in turn with the Marker 2 higher less
    as it is (models left and Marker carried from one to the next), held to a naive Monte Carlo of the two attacks in
    turn (4,000 each way, means within 5 SE). The price of one attack alone (the worst) is farther from it than 5 SE:
    the test fails if the price reads one attack."""
    sim = Simulation(scenario(tmp_path), 1, 0)
    menus = menus_of(sim)
    feats = Features(sim, menus)
    state = _placed(sim, {"marauder-1": ((5.0, 8.0), (5.0, 0.0)), "zergling-1": ((5.0, 17.0), (5.0, 36.0)),
                          "hydralisk-1": ((14.0, 21.0), (14.0, 36.0))})  # fmt: skip
    m, z, h = (sim.uids.index(x) for x in ("marauder-1", "zergling-1", "hydralisk-1"))
    n = sim.U
    leads = {v: feats._lead(v, state[v]) for v in (m, z, h)}
    alive = state[n : 2 * n]
    chain = feats.attackers(m, leads[m], [z, h], leads, alive, 0, 0)
    assert sorted(v for v, _, _ in chain) == [z, h]
    rng = random.Random(11)
    worse, now = _chain_sample(sim, m, 2, chain, rng, 4000), _chain_sample(sim, m, 0, chain, rng, 4000)
    sampled = worse.mean(axis=0) - now.mean(axis=0)
    se = np.sqrt(worse.var(axis=0) / len(worse) + now.var(axis=0) / len(now))
    exact = np.subtract(feats.after(m, 2, 2, 0, chain), feats.after(m, 2, 0, 0, chain))
    assert np.all(np.abs(exact - sampled) <= 5 * np.maximum(se, 1e-3)), (exact, sampled, se)
    assert exact[2] > 0  # the Marker costs models
    one = np.max([np.subtract(feats.outcome(v, a, m, 2, 2, 0, ph), feats.outcome(v, a, m, 2, 0, 0, ph))
                  for v, a, ph in chain], axis=0)  # fmt: skip
    assert abs(one[2] - sampled[2]) > 5 * se[2], (one, sampled, se)
    # the Hold's row: the later Shoot's gain less that price; the marker scaling is the chain's P(no Supply) rise
    moves = menus["marauder-1"]["movement"]
    boost = next(i for i, e in enumerate(moves) if e.action == "hold" and e.use == STIM)
    rows = feats.table(m, "movement", state)
    gain = max((np.subtract(feats.attack(m, 2, v, int(sim.full[v]), 0, 0, "assault", STIM),
                            feats.attack(m, 2, v, int(sim.full[v]), 0, 0, "assault")) for v in (z, h)
                if math.dist(leads[m], leads[v]) <= feats.reach[m][0]), key=lambda g: g[0] + g[2])  # fmt: skip
    assert rows[boost, DAMAGE : MODELS + 1] == pytest.approx(gain - exact[:3])


def test_stimpack_on_a_hold_adds_no_shot_at_an_enemy_it_cannot_see(tmp_path: Path, stim_on: None) -> None:
    """A Hold shoots from where the unit stands: Stimpack's gain on the Hold counts only an enemy unit the Marauders
    may shoot at from there (8.7.3 step 1: a Ranged Weapon in range of a Visible model). The Hydralisks 6.5" away
    behind the Size 3 ridge (7.1.1: it blocks Line of Sight) are in the Quad K12's range, PRECISION would add to a Shoot
    at them, but none is possible: the row is the price alone; from the open (the ridge not between them) the gain
    counts."""
    sim = Simulation(scenario(tmp_path), 1, 0)
    menus = menus_of(sim)
    feats = Features(sim, menus)
    m, h, n = sim.uids.index("marauder-1"), sim.uids.index("hydralisk-1"), sim.U
    boost = next(i for i, e in enumerate(menus["marauder-1"]["movement"]) if e.action == "hold" and e.use == STIM)
    gain = np.subtract(feats.attack(m, 2, h, 2, 0, 0, "assault", STIM), feats.attack(m, 2, h, 2, 0, 0, "assault"))
    assert gain[0] > 0 and gain[2] > 0
    for hydra, visible in (((30.5, 15.5), False), ((20.0, 20.0), True)):
        state = _placed(sim, {"marauder-1": ((24.0, 14.5), (0.0, 14.5)), "hydralisk-1": (hydra, (36.0, hydra[1]))})
        pos, alive = state[:n], state[n : 2 * n]
        assert math.dist((24.0, 14.5), hydra) <= feats.reach[m][0]
        assert feats.seen(m, pos, alive, [h]) == ({h} if visible else set())
        leads = {v: feats._lead(v, pos[v]) for v in (m, h)}
        chain = feats.attackers(m, leads[m], [h], leads, alive, 0, 0)
        price = np.subtract(feats.after(m, 2, 2, 0, chain), feats.after(m, 2, 0, 0, chain))[:3]
        rows = feats.table(m, "movement", state)
        want = gain - price if visible else -price
        assert rows[boost, DAMAGE : MODELS + 1] == pytest.approx(want), hydra
