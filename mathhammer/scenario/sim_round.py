"""The end of a Round: markers near units, the end of the game (8.9.3), Roll-Offs, Cleanup and initiative
(8.9.5, 8.9.6), the snapshot of each Round."""

from __future__ import annotations

import numpy as np

from .basics import stream as _stream
from .fastsim import _end_kernel, _keep_bits
from .sim_state import SimState
from .spec import PLAYERS


class RoundEnd(SimState):
    """The end of a Round (a part of :class:`~mathhammer.scenario.sim.Simulation`)."""

    def end_checks(self, live: np.ndarray, final: bool) -> None:
        """8.9.3: Special Winning Condition, a wiped-out army (+10 VP to the survivor), the final Round. The +10 VP is
        given also where a winning VP lead ends the game in the same Round: "The game ends immediately if" lists both,
        and "The surviving player gains +10 VP" whichever else holds."""
        players = np.array([PLAYERS.index(su.player) for su in self.units], dtype=np.int64)
        _end_kernel(
            self.alive,
            self.pos,
            np.array(self.summoned, dtype=np.bool_),
            players,
            self.vp,
            np.ascontiguousarray(live, dtype=np.int64),
            np.int64(self.scn.mission.instant_win_lead),
            bool(final),
            np.int64(self.round),
            self.over,
            self.end_round,
            self.instant,
        )

    def roll_off(self, stream: int, trials: np.ndarray) -> np.ndarray:
        """The winner of a Roll-Off (3.2) per trial (0 red, 1 blue), by ``[policy] roll_off``.

        ``random``: a fair Roll-Off drawn from ``stream``; ``red`` / ``blue``: that player wins every one.
        """
        rule = self.scn.policy.roll_off
        if rule != "random":
            return np.full(trials.size, PLAYERS.index(rule), dtype=np.int64)
        return (self.draw(stream, trials) < 0.5).astype(np.int64)

    def cleanup(self, live: np.ndarray) -> None:
        """8.9.5 Cleanup (abilities and their effects expire, cards Ready) and 8.9.6 initiative; first the effects "At
        the End of the Round" (the cards' ``end_of_round``), then the cards' own Cleanup."""
        for hook in self.cards.end_of_round:
            hook(live)
        # part 11 STATUS: "Unless stated otherwise, Statuses aren't removed during the Scoring and Cleanup Phase"
        keep = np.zeros(self.U, dtype=np.int64)
        for kept in self.cards.kept_bits:  # the Burrowed Status
            keep |= np.array([kept(u) for u in range(self.U)], dtype=np.int64)
        _keep_bits(self.used, keep, np.asarray(live, dtype=np.int64))
        for hook in self.cards.cleanup:  # 8.9.5: Tokens and Markers go; "Until the End of the Round" effects end
            hook(live)
        self.granted.clear()
        self.penalty[:, live] = False
        diff = self.vp[0, live] - self.vp[1, live]
        roll = self.roll_off(_stream(self.round, 9), live)  # 8.9.6: "If tied, conduct a Roll-Off"
        self.first[live] = np.where(diff < 0, 0, np.where(diff > 0, 1, roll))

    def snapshot(self) -> None:
        """The end of a Round, in small integer types (a million games of 12 units: ~90 MB a Round); written into
        this Round's arrays of :attr:`sink` where given (a forked worker's part of the shared result)."""
        rnd = len(self.snapshots)
        into = self.sink[rnd] if self.sink is not None and rnd < len(self.sink) else None
        parts: dict[str, tuple[np.ndarray | None, type]] = {  # None: the Current Supply Values, read into place
            "alive": (self.alive, np.int16),
            "on_table": (self.on_table(), np.bool_),
            "supply": (None, np.int16),
            "marker": (self.mark, np.int16),
            "control": (self.control, np.int8),
            "vp": (self.vp, np.int16),
            "over": (self.over, np.bool_),
        }
        snap: dict[str, np.ndarray] = {}
        for key, (src, dtype) in parts.items():
            if src is None:
                snap[key] = self.current_supply(out=np.empty((self.U, self.T), dtype) if into is None else into[key])
            elif into is None:
                snap[key] = src.astype(dtype)
            else:
                np.copyto(into[key], src, casting="unsafe")
                snap[key] = into[key]
        self.snapshots.append(snap)


__all__ = ["RoundEnd"]
