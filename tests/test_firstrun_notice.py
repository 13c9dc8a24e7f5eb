"""Issue 28 point 2: a first run says on stderr, in one line, that it compiles; ``mathhammer warmup``.

The cache check (:mod:`mathhammer.jit`) is tested against numba's own cache paths without compiling anything;
one subprocess test compiles StarCraft TMG's single-thread Monte Carlo kernel from an empty ``NUMBA_CACHE_DIR``
(about 5 s on an idle 2-core machine, 10-20 s under load) to see the notice on stderr and clean JSON on stdout.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathhammer import jit

ROOT = Path(__file__).resolve().parents[1]
# --method die: a run only the numba kernels cover (the count method runs on numpy in a fresh process, nothing
# to compile: tests/test_mcnumpy_equal.py)
ADHOC = [
    "attack", "--models", "5", "--roa", "2", "--hit", "3", "--target-models", "6",
    "--trials", "1000", "--method", "die",
]  # fmt: skip


def _dispatcher(module: str, function: str):
    name = "mathhammer." + module.removesuffix(".py").replace("/", ".")
    return getattr(importlib.import_module(name), function)


@pytest.mark.parametrize("kernel", [k for group in jit.KERNELS.values() for k in group], ids=lambda k: k[1])
def test_each_kernel_is_cached_where_jit_looks(kernel: tuple[str, str]) -> None:
    """jit's mirror of numba's cache locator names the very folder and index file numba uses for the kernel."""
    disp = _dispatcher(*kernel)
    assert disp._cache is not None, "every kernel is compiled with cache=True"
    index = disp._cache._cache_file._index_path
    folder = jit.cache_folder(str(jit.PACKAGE / kernel[0]))
    assert folder == os.path.dirname(index)
    stem = Path(kernel[0]).stem
    assert fnmatch.fnmatch(
        os.path.basename(index), f"{stem}.{kernel[1]}-*.py{sys.version_info[0]}{sys.version_info[1]}*.nbi"
    )
    assert f"{kernel[0]}:{kernel[1]}" in jit.COMPILE_SECONDS


def _index(tmp: Path, module: str, function: str, stamp: bytes, version: str = "0.68.1") -> None:
    folder = Path(jit.cache_folder(str(jit.PACKAGE / module)))
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    with open(folder / f"{Path(module).stem}.{function}-12.{tag}.nbi", "wb") as f:
        pickle.dump(version, f, protocol=-1)
        f.write(pickle.dumps((stamp, {}), protocol=-1))


def test_an_index_counts_only_for_this_source_and_this_numba(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(jit.NOTICE_ENV, "0")
    jit.cache_folder.cache_clear()
    try:
        module, function = "starcraft/kernels.py", "_run_slot"
        version = jit._numba_version().decode()
        assert version
        assert not jit.cached(module, function)
        assert jit.notice("starcraft") is not None
        _index(tmp_path, module, function, hashlib.sha256(b"another source").digest(), version)
        assert not jit.cached(module, function)
        stamp = hashlib.sha256((jit.PACKAGE / module).read_bytes()).digest()
        _index(tmp_path, module, function, stamp, "0.1.0")
        assert not jit.cached(module, function)
        _index(tmp_path, module, function, stamp, version)
        assert jit.cached(module, function)
        assert jit.missing("starcraft") == [] and jit.notice("starcraft") is None
    finally:
        jit.cache_folder.cache_clear()


def test_a_short_compile_is_not_announced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(jit.NOTICE_ENV, raising=False)  # the default threshold (conftest.py turns notices off)
    monkeypatch.setattr(jit, "_load_factor", lambda: 1.0)
    monkeypatch.setitem(jit.COMPILE_SECONDS, "starcraft/kernels.py:_run_slot", jit.NOTICE_SECONDS / 2)
    jit.cache_folder.cache_clear()
    try:
        assert jit.notice("starcraft") is None
        monkeypatch.setitem(jit.COMPILE_SECONDS, "starcraft/kernels.py:_run_slot", 6.4)
        line = jit.notice("starcraft")
        assert line is not None and "\n" not in line
        assert line.startswith("note: compiling the Monte Carlo kernels once, about 6 s")
        monkeypatch.setattr(jit, "_load_factor", lambda: 3.0)  # a busy machine: the compile takes longer
        assert "about 19 s" in (jit.notice("starcraft") or "")
        monkeypatch.setenv(jit.NOTICE_ENV, "100")
        assert jit.notice("starcraft") is None
    finally:
        jit.cache_folder.cache_clear()


def test_a_notice_is_given_once_for_kernels_a_run_does_not_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28 point 2, "a first run only": a run announces its group's missing kernels and compiles only those its
    games call (a game on Gauntlet calls no Control kernel); the next run, with the others still missing, gives no
    notice, and a new source of a kernel (another stamp) is announced again."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(jit.NOTICE_ENV, "0")
    monkeypatch.setattr(jit, "_announced", set())
    jit.cache_folder.cache_clear()
    try:
        assert jit.missing("scenario") == list(jit.KERNELS["scenario"])
        jit.announce("scenario")
        assert capsys.readouterr().err.startswith("note: compiling the scenario kernels once, about ")
        assert all(jit.announced(*k) for k in jit.KERNELS["scenario"])
        monkeypatch.setattr(jit, "_announced", set())  # a new run
        jit.announce("scenario")
        assert capsys.readouterr().err == "" and jit.notice("scenario") is None
        module, function = jit.KERNELS["scenario"][0]
        mark = jit._marker(module, function)
        assert mark is not None
        Path(mark[0]).write_bytes(hashlib.sha256(b"another source").digest() + jit._numba_version())
        assert not jit.announced(module, function)
        line = jit.notice("scenario")
        assert line is not None and line.startswith("note: compiling the scenario kernels once, about ")
    finally:
        jit.cache_folder.cache_clear()


def test_the_cache_check_imports_no_numba() -> None:
    code = "import sys; from mathhammer import jit; jit.notice('scenario'); print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_first_run_says_it_compiles_on_stderr_and_keeps_json_clean(tmp_path: Path) -> None:
    """Empty cache: one notice line on stderr, JSON alone on stdout; the second run (nothing to compile): no
    notice, the same JSON."""
    # every compile announced: the count kernel's estimate is under the 2 s of the notice on an idle machine
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), jit.NOTICE_ENV: "0"}
    runs = [
        subprocess.run([sys.executable, "-m", "mathhammer", *ADHOC, "--json"], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=600)
        for _ in range(2)
    ]  # fmt: skip
    first, second = runs
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("note: compiling the Monte Carlo kernels once, about "), lines
    assert second.returncode == 0 and second.stderr == ""
    assert json.loads(first.stdout) == json.loads(second.stdout)


def test_warmup_prints_each_step_and_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import mathhammer.warmup as warmup
    from mathhammer.cli import app

    done: list[str] = []
    steps = (("one", ("starcraft",), lambda: done.append("one")), ("two", ("scenario",), lambda: done.append("two")))
    monkeypatch.setattr(warmup, "STEPS", steps)
    ahead: list[jit.Ahead] = [jit.Ahead(3, 2, (1.0, 1.5)), jit.Ahead(0, 0)]

    def compile_ahead(groups: list[str], processes: int | None = None) -> jit.Ahead:
        done.append(f"ahead {groups} {processes}")
        return ahead.pop(0)

    monkeypatch.setattr(jit, "compile_ahead", compile_ahead)
    result = CliRunner().invoke(app, ["warmup"])
    assert result.exit_code == 0, result.output
    assert done == ["ahead ['starcraft', 'scenario'] None", "one", "two"]  # every group ahead, on every core
    lines = result.output.splitlines()
    assert lines[0].startswith("compiling 2 groups of kernels")
    assert lines[1].startswith("  every kernel, 2 processes at once: ") and lines[1].endswith(" (3 kernels compiled)")
    assert lines[2].startswith("  one: ") and lines[3].startswith("  two: ") and " s (" in lines[2]
    assert lines[-1].startswith("done in ")
    again = CliRunner().invoke(app, ["warmup"]).output.splitlines()  # nothing compiled ahead: no line for it
    assert again[1].startswith("  one: ") and again[2].startswith("  two: ")


def test_warmup_steps_cover_every_kernel_group() -> None:
    from mathhammer.warmup import STEPS

    assert {g for _, groups, _ in STEPS for g in groups} == set(jit.KERNELS)


PRUNED = """
from dataclasses import replace
from mathhammer.starcraft import kernels as kn, montecarlo as mc
from mathhammer.starcraft.compiled import compile_attack
from mathhammer.starcraft.model import Attack, Batch, Target, Weapon
rifle = Weapon.build("C-14 Rifle", roa=2, hit=3, damage=2)
batches, target = compile_attack(Attack((Batch(rifle, models=5),), Target.build(6, 2, armour=5, shield=1)))
mc.simulate(batches, target, 100, seed=1)
print(len(kn._dice.signatures), len(kn._casualties.signatures), len(kn._surge.signatures))
mc.simulate(batches, replace(target, reduce=1), 100, seed=1)
print(len(kn._dice.signatures), len(kn._casualties.signatures), len(kn._surge.signatures))
"""


def test_the_count_kernel_compiles_only_its_own_paths(tmp_path: Path) -> None:
    """From an empty cache, the count kernel with the casualty table compiles no per-die pool (``_dice``) and no
    casualty function; without the table the casualty function compiles once (not also for a literal 0).
    About 2 compiles of the single-thread kernel: 5-10 s on an idle 2-core machine."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", PRUNED], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900, check=True
    )
    assert out.stdout.split("\n")[:2] == ["0 0 1", "0 1 1"], out.stdout
