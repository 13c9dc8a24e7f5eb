"""``--trace K`` and ``--trace-dir DIR`` of ``game`` and ``scenario run``: the traced games' files (docs/scenario.md,
Traces) written as one :class:`~mathhammer.outputs.Outputs` transaction, begun before the games are played, as the
plots' is. A folder that cannot be written is then refused before any work, with one ``error:`` line and nothing
printed or written; a run that fails or is interrupted leaves no trace file behind.

The files are known before the games: ``game-N.toml`` per traced game and ``game-F-round-R.png`` per Round of the
first, F, which is played (alone, as its replay plays it) when the transaction begins, to count its Rounds. A new
DIR appears whole; in an existing one, those files are replaced together and nothing else is touched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..outputs import Outputs, Target

#: what ``--trace-dir`` allows (the messages)
ALLOWED = "a folder you may write to, or a new one in an existing folder"


class TraceFiles:
    """The trace files of games ``games`` of ``scn`` with ``seed`` in ``folder``: a context manager (the
    transaction); :meth:`write` writes them inside it, :meth:`listing` names them."""

    def __init__(self, scn: Any, seed: int, games: list[int], folder: Path) -> None:
        from ..scenario.players.trace import record
        from ..scenario.sim import Simulation

        self.scn, self.seed, self.games, self.folder = scn, seed, games, folder
        self.first_sim = Simulation(scn, 1, seed, offset=games[0])
        self.first = record(self.first_sim)
        rounds = range(1, len(self.first.rounds) + 1)
        self.names = [f"game-{g}.toml" for g in games] + [f"game-{games[0]}-round-{r}.png" for r in rounds]
        self.whole = not folder.is_dir()  # a new folder: made whole, else each file replaced
        if self.whole:
            targets = [Target(folder, "--trace-dir", "dir", ALLOWED)]
        else:
            targets = [Target(folder / name, "--trace-dir", "file", ALLOWED) for name in self.names]
        self.tx = Outputs(targets)

    def __enter__(self) -> TraceFiles:
        self.tx.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        self.tx.__exit__(kind, exc, tb)

    def _writing(self, i: int) -> Any:
        """The transaction's writing of file ``i`` of :attr:`names` (its errors named by ``--trace-dir``)."""
        return self.tx.writing(0 if self.whole else i)

    def _path(self, i: int) -> Path:
        """Where file ``i`` of :attr:`names` is written before the commit."""
        return self.tx.new(0) / self.names[i] if self.whole else self.tx.new(i)

    def write(self, data: dict[str, Any], command: str) -> None:
        """Play each traced game again alone (the first was played at the start), write its trace file (``data``: the
        scenario's table; ``command``: what the header names), then the first one's pictures."""
        from ..scenario.players.trace import record, round_figure, trace_text
        from ..scenario.sim import Simulation

        for i, g in enumerate(self.games):
            played = self.first if i == 0 else record(Simulation(self.scn, 1, self.seed, offset=g))
            with self._writing(i):
                self._path(i).write_text(trace_text(data, played, self.seed, self.names[i], command))
        for r in range(1, len(self.first.rounds) + 1):
            i = len(self.games) + r - 1
            with self._writing(i):
                figure = round_figure(self.scn, self.first, self.first_sim.world, r)
                figure.savefig(self._path(i), dpi=100, format="png")

    def listing(self) -> str:
        """The lines that name the files written and how to replay them."""
        head = f"\ntraces ({len(self.games)} games; replay: mathhammer scenario run FILE --seed {self.seed} --game N):"
        return "\n".join([head, *(f"  {self.folder / name}" for name in self.names)])


def check_apart(plan: tuple[list[int], Path] | None, plot: Path | None) -> None:
    """``--trace-dir`` and ``--plot`` naming one folder that does not exist yet: refused (each would make it whole);
    an existing folder takes both."""
    from ..errors import InputError

    if plan is None or plot is None:
        return
    folder = plan[1]
    if folder.resolve() == plot.resolve() and not folder.exists():
        raise InputError("--trace-dir", str(folder), "a folder other than --plot's new one, or an existing folder")


def trace_files(scn: Any, seed: int, plan: tuple[list[int], Path] | None) -> Any:
    """:class:`TraceFiles` of ``plan`` (``trace_plan``'s games and folder), or a context giving None (no trace)."""
    from contextlib import nullcontext

    if plan is None:
        return nullcontext()
    games, folder = plan
    return TraceFiles(scn, seed, games, folder)


__all__ = ["ALLOWED", "TraceFiles", "check_apart", "trace_files"]
