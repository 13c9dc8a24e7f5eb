"""The generic profile loader: a system's schema in, validated values out (:mod:`.loader`).

Each game system reads its own cards with it: StarCraft TMG's roster is
:func:`mathhammer.starcraft.roster.load_roster`, Grimdark Future's units
:func:`mathhammer.grimdark.profiles.load_units`.
"""

from .loader import ProfileError, builtin_dir, load_folders, lookup, parse, toml_files

__all__ = ["ProfileError", "builtin_dir", "load_folders", "lookup", "parse", "toml_files"]
