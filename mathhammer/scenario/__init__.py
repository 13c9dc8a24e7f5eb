"""Scenario simulation (rulebook part 8): two armies, a board, a mission and a plan, over whole rounds.

>>> from mathhammer.scenario import builtin_scenarios, load_scenario, simulate
>>> scn = load_scenario(builtin_scenarios()[0])
>>> res = simulate(scn, trials=200, seed=1)
>>> round(sum(v["p"] for v in res.outcome().values()), 9)
1.0
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .. import jit
from ..engine.options import check_seed
from ..errors import InputError
from ..starcraft.roster import Roster
from ..validate import whole
from .check import check_scenario
from .counts import winners
from .loader import builtin_scenarios, load_scenario
from .result import ScenarioResult
from .spec import Scenario, ScenarioError

#: Most trials one run takes (memory, where the games are kept: a few bytes per unit, marker and round per trial).
MAX_TRIALS = 10_000_000


def simulate(
    scenario: Scenario | str | Path,
    trials: int = 10_000,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    roster: Roster | None = None,
    workers: int | None = None,
    game: int | None = None,
    per_game: bool = True,
) -> ScenarioResult:
    """Play ``trials`` games of the scenario's plan (see :mod:`mathhammer.scenario.sim`).

    The plan is checked (:func:`check_scenario`) before any game is counted: a plan with errors raises
    :class:`ScenarioError` (a run on forked workers whose kernels are all in numba's cache checks it in a forked
    process while its pilot games play, :func:`mathhammer.scenario.parallel.play`). The same ``seed`` gives the
    same games for any ``trials`` prefix and any number of ``workers`` (default: every core this process may use; see
    :mod:`mathhammer.scenario.parallel`). ``game``: play only game number ``game`` of the seed (``trials`` must be
    1), the very game it is among others (a trace's replay, :mod:`mathhammer.scenario.players.trace`). The kernels
    missing from numba's cache are compiled after the check, on as many processes
    (:func:`mathhammer.jit.compile_ahead`).

    ``per_game``: keep every game's arrays in the result (:attr:`ScenarioResult.rounds`, ``winner``, ``end_round``,
    ``instant``: a few bytes per unit, marker and Round a game); ``False``: only their counts
    (:class:`~mathhammer.scenario.counts.Counts`), which every figure of the result is read from, so a run of automatic
    players, counted block by block, holds memory flat in the number of games (the command line's runs).
    """
    from .parallel import forks, play

    scn = scenario if isinstance(scenario, Scenario) else load_scenario(scenario, roster)
    trials = whole("--trials", trials, 1, MAX_TRIALS, "a number of games")
    seed = check_seed(seed, "--seed")
    if game is None and scn.first_player == "alternate" and trials % 2:
        raise InputError(
            "--trials",
            str(trials),
            f'an even number of games with first_player = "alternate" ({scn.file}: half the games with each First '
            "Player), or --game N",
        )
    processes = jit.cores() if workers is None else max(1, int(workers))
    jit.announce("scenario", processes)
    if game is not None:
        game = whole("--game", game, 0, MAX_TRIALS - 1, "a game number, 0 or more")

    def errors() -> list[str]:
        return [p for p in check_scenario(scn) if not p.startswith("warning")]

    # with every kernel in numba's cache, a forked run checks the plan while its first games play (parallel.play);
    # else the plan is checked before anything is compiled
    later = forks(scn, trials, workers, game or 0) and not jit.missing("scenario")
    if not later and (problems := errors()):
        raise ScenarioError(problems)
    if game is not None and trials != 1:
        raise ScenarioError([f"{scn.file}: game {game}: got {trials} trials; allowed: 1 (one chosen game)"])
    jit.compile_ahead(["scenario"], processes)  # the kernels still missing, on as many processes as the games
    games, sim = play(
        scn, trials, seed, progress, workers, offset=game or 0, check=errors if later else None, per_game=per_game
    )
    return ScenarioResult(
        scenario=scn.name,
        file=scn.file,
        trials=trials,
        seed=seed,
        units=[{"id": u.id, "player": u.player, "card": u.unit.name, "models": u.models} for u in sim.units],
        markers=list(sim.marker_numbers),
        rounds=games.snapshots,
        end_round=games.end_round,
        winner=None if games.vp is None else winners(games.vp),
        instant=games.instant,
        counts=games.counts,
        skipped=games.skipped,
        tally=games.tally,
        why=bool(scn.policies),
        game=game,
        description=scn.description,
    )


__all__ = [
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "builtin_scenarios",
    "check_scenario",
    "load_scenario",
    "simulate",
]
