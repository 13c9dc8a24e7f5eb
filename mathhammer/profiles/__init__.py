"""Unit, faction and tactical cards from TOML profiles (``profiles/README.md``).

>>> from mathhammer.profiles import load_roster
>>> roster = load_roster()
>>> roster.unit("marine").card.hp
2
"""

from .loader import ProfileError, Roster, Unit, builtin_dir, load_file, load_roster, validate_dir

__all__ = ["ProfileError", "Roster", "Unit", "builtin_dir", "load_file", "load_roster", "validate_dir"]
