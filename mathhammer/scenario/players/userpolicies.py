"""Policies of the user's own files, for the command line (``--policies FILE``; docs/scenario.md, Writing a policy).

A policy is registered under a name (:func:`~.policies.policy`); from Python, importing the module that registers it
is enough. The command line reads such a file before the scenario, so its names may be given to ``--red-policy``,
``--blue-policy`` or a scenario file's ``policy``:

* a ``.toml`` file: tables of weights in the format of ``profiles/policies.toml`` (a table per policy, a weight per
  column of :data:`~.features.COLUMNS`), each registered as a :class:`~.policies.Weighted` policy under its table's
  name;
* a ``.py`` file: run as a module; the classes it registers with ``@policy("NAME")`` are its policies. Each must
  decide (a ``choose`` method, or derive from ``Weighted``).

A file that cannot be read, a malformed table, a name already taken (a built-in policy's, or another file's), a
module that raises, or a file that registers no policy is refused with one line naming the file, and nothing of it
stays registered. A file read once stays read: reading it again in the same process (a notebook, the tests) gives
its names again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path

from ...errors import InputError, MathhammerError
from .policies import POLICIES, Weighted, load_weights, policy

#: what ``--policies`` takes, for messages
ALLOWED = (
    "a policy file: a .toml of weight tables (the format of profiles/policies.toml) or a .py registering classes "
    'with @policy("NAME") (docs/scenario.md, Writing a policy)'
)
#: resolved path -> the policy names the file registered (a file read once stays read)
_READ: dict[str, tuple[str, ...]] = {}


def read_policies(path: Path, flag: str = "--policies") -> tuple[str, ...]:
    """Register the policies of ``path`` (the module text) and return their names, in the file's order; refused with
    one line naming ``flag`` and the file."""
    if path.suffix not in (".toml", ".py") or not path.is_file():
        raise InputError(flag, str(path), ALLOWED, "" if path.is_file() else "no such file")
    key = str(path.resolve())
    if key in _READ:
        return _READ[key]
    before = dict(POLICIES)
    try:
        names = _toml(path, flag) if path.suffix == ".toml" else _module(path, flag)
        if not names:
            raise InputError(flag, str(path), ALLOWED, "it registers no policy")
    except BaseException:
        POLICIES.clear()  # nothing of a refused file stays registered
        POLICIES.update(before)
        raise
    _READ[key] = names
    return names


def _toml(path: Path, flag: str) -> tuple[str, ...]:
    """The weight tables of ``path``, each registered as a Weighted policy under its name."""
    try:
        tables = load_weights(path)
    except InputError as exc:  # the table and column named, as the built-in file's are
        raise exc.with_field(f"{flag} {exc.field}") from None
    except MathhammerError as exc:  # a file TOML cannot read: its one line
        raise MathhammerError(f"{flag} {exc}") from None
    for name, weights in tables.items():
        doc = f"The weights of [{name}] in {path}."
        cls = type(f"{path.stem}[{name}]", (Weighted,), {"weights": dict(weights), "__doc__": doc})
        try:
            policy(name)(cls)  # registered as a class's @policy is: a taken name or auto refused
        except InputError as exc:
            raise exc.with_field(f"{flag} {path.name}: [{name}]") from None
    return tuple(tables)


def _module(path: Path, flag: str) -> tuple[str, ...]:
    """Run ``path`` as a module (its own name, from its path) and return the names its classes registered."""
    name = "mathhammer_policies_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    before = set(POLICIES)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(flag, str(path), ALLOWED)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except InputError as exc:  # @policy refused a name (taken, or "auto")
        sys.modules.pop(name, None)
        field = "@policy" if exc.field == "policy" else exc.field
        raise InputError(f"{flag} {path.name}: {field}", exc.value, exc.allowed, exc.hint) from None
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        here = path.resolve()
        lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == here]
        at = f" at line {lines[-1]}" if lines else ""
        raise InputError(flag, str(path), ALLOWED, f"running it raised {type(exc).__name__}{at}: {exc}") from None
    added = tuple(n for n in POLICIES if n not in before)
    for n in added:
        cls = POLICIES[n]
        if not (isinstance(cls, type) and (issubclass(cls, Weighted) or callable(getattr(cls, "choose", None)))):
            sys.modules.pop(name, None)
            raise InputError(
                f"{flag} {path.name}: {getattr(cls, '__name__', n)}",
                n,
                "a policy class with a choose(self, d) method, or derived from Weighted",
            )
    return added


__all__ = ["ALLOWED", "read_policies"]
