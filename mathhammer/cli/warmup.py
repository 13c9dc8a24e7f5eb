"""``mathhammer warmup``: compile every numba kernel ahead (:mod:`mathhammer.warmup`), one line a step."""

import time

import typer

from .common import handle_errors


def register(root: typer.Typer) -> None:
    root.command("warmup")(warmup)


@handle_errors
def warmup() -> None:
    """Compile every Monte Carlo and scenario kernel now, so no later command waits for it (a first run
    otherwise compiles the kernels it needs; numba keeps them on disk, NUMBA_CACHE_DIR to choose where)."""
    from ..warmup import STEPS
    from ..warmup import warmup as steps

    start = time.perf_counter()
    typer.echo(f"compiling {len(STEPS)} groups of kernels (each loads from the cache when already compiled)")
    for what, missing, seconds in steps():
        state = f"{missing} kernel{'s' * (missing != 1)} compiled" if missing else "from the cache"
        typer.echo(f"  {what}: {seconds:.1f} s ({state})")
    typer.echo(f"done in {time.perf_counter() - start:.1f} s")
