"""Start-up (issue 28 point 1): typer builds the command line's command alone, not its module's others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_command_line_builds_its_command_alone() -> None:
    """``mathhammer compare ...`` has typer build the compare command, not matchup (the same module's)."""
    code = (
        "import typer.main\n"
        "from mathhammer.cli import app\n"
        "app.only = ['compare']\n"
        "app.word = 'compare'\n"
        "alone = sorted(typer.main.get_command(app).commands)\n"
        "app.word = None\n"
        "print(alone, sorted(typer.main.get_command(app).commands))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "['compare'] ['compare', 'matchup']"
