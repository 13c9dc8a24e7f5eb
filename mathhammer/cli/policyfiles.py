"""``--policies FILE`` (repeatable) of ``game``, ``scenario check`` and ``scenario run``: policies of the user's own
files (:mod:`mathhammer.scenario.players.userpolicies`), read before the players' policies are named.

A file none of whose policies a player plays is refused (the flag would change nothing), as is the flag where the
scenario has no automatic player."""

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError

POLICIES_HELP = (
    "A file of your own policies, repeatable: a .toml of weight tables (the format of profiles/policies.toml) or a "
    '.py registering classes with @policy("NAME") (docs/scenario.md, Writing a policy).'
)
PoliciesOpt = Annotated[
    list[str] | None,
    typer.Option("--policies", metavar="FILE", help=POLICIES_HELP, show_default=False),
]


def read_files(files: list[str] | None) -> dict[str, tuple[str, ...]]:
    """Register the policies of each ``--policies`` file: file as given -> its policy names."""
    from ..scenario.players.userpolicies import read_policies

    out: dict[str, tuple[str, ...]] = {}
    for f in files or []:
        if not str(f).strip():  # "" would be the current folder
            raise InputError("--policies", f, "a policy file (.toml or .py)")
        out[f] = read_policies(Path(f))
    return out


def check_played(read: dict[str, tuple[str, ...]], played: list[str]) -> None:
    """Refuse a ``--policies`` file none of whose policies is among ``played`` (the players' policies)."""
    for f, names in read.items():
        if not played:
            raise InputError("--policies", f, "nothing: the scenario has no automatic player")
        if not set(names) & set(played):
            has, plays = ", ".join(names), ", ".join(dict.fromkeys(played))
            raise InputError("--policies", f, f"a file with a policy a player plays (it has {has}; they play {plays})")


__all__ = ["POLICIES_HELP", "PoliciesOpt", "check_played", "read_files"]
