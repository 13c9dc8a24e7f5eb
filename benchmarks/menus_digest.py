"""Every unit's menu (``scenario/players/menu.py``) on every deployment card and terrain preset, for the issue's
six-unit lists (``profiles/armies/terran_six.toml`` against ``zerg_six.toml``) and the two-unit lists of
``tests/autoplay_kit.py``: one md5 of them all (a change that keeps the menus keeps it) and the CPU of
``build_menus`` (``time.process_time``, the World built first, not counted).

    python benchmarks/menus_digest.py        # run from the tree measured (its own package first on the path)
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mathhammer.scenario.loader import deployment_cards, parse_scenario  # noqa: E402
from mathhammer.scenario.players.menu import build_menus  # noqa: E402
from mathhammer.scenario.world import World  # noqa: E402
from tests.autoplay_kit import data  # noqa: E402

LISTS = [("terran_six.toml", "zerg_six.toml"), (None, None)]


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    boards = [(c["name"], p["name"]) for c in deployment_cards() for p in c["presets"]]
    digest = hashlib.md5()
    cpu = 0.0
    menus_seen = 0
    for card, preset in boards:
        for red, blue in LISTS:
            d = data(folder)
            d["deployment"] = {"card": card}
            d["terrain"] = f"preset:{preset}"
            if red is not None and blue is not None:
                d["players"]["red"]["army"] = str(ROOT / "profiles" / "armies" / red)
                d["players"]["blue"]["army"] = str(ROOT / "profiles" / "armies" / blue)
            scn = parse_scenario(d, "menus.toml", folder)
            world = World(scn)
            start = time.process_time()
            menus = build_menus(scn, world)
            cpu += time.process_time() - start
            for uid in sorted(menus):
                digest.update(repr((card, preset, uid, menus[uid].phases)).encode())
                menus_seen += 1
    print(
        f"{len(boards) * len(LISTS)} boards, {menus_seen} menus, md5 {digest.hexdigest()}, build_menus CPU {cpu:.2f} s"
    )


if __name__ == "__main__":
    main()
