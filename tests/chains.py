"""Random compiled Batches for property tests of the StarCraft engines (hypothesis strategies)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from mathhammer.dice import SDice
from mathhammer.starcraft.compiled import ALL_VISIBLE, CompiledBatch


@st.composite
def compiled_batches(draw, min_groups: int = 1, max_dice: int = 4, casualties: bool = False) -> CompiledBatch:
    """A Batch of 1-3 Hit groups (``min_groups`` up) of 0-``max_dice`` dice each, with every step-1-4 keyword drawn;
    ``casualties``: NON-LETHAL, CONCENTRATED and a Visible limit drawn too (else none)."""
    groups = draw(st.integers(min_groups, 3))
    surge = draw(
        st.one_of(
            st.none(),
            st.builds(SDice, st.integers(1, 2), st.sampled_from([3, 6]), st.integers(0, 1)),
            st.builds(SDice, st.just(0), st.just(1), st.integers(0, 4)),
        )
    )
    return CompiledBatch(
        "test",
        np.array(draw(st.lists(st.integers(0, max_dice), min_size=groups, max_size=groups)), dtype=np.int64),
        np.array(draw(st.lists(st.integers(2, 6), min_size=groups, max_size=groups)), dtype=np.int64),
        auto_hits=draw(st.integers(0, 2)),
        precision=draw(st.integers(0, 2)),
        surge=surge,
        critical=draw(st.integers(0, 2)),
        dodge=draw(st.integers(0, 2)),
        armour_target=draw(st.integers(2, 6)),
        tough=draw(st.integers(0, 2)),
        evade=draw(st.booleans()),
        evade_target=draw(st.integers(2, 6)),
        damage=draw(st.integers(1, 3)),
        nonlethal=draw(st.sampled_from([0, 0, 1, 2])) if casualties else 0,
        concentrated=draw(st.sampled_from([0, 0, 1, 2])) if casualties else 0,
        visible=draw(st.sampled_from([ALL_VISIBLE, ALL_VISIBLE, 0, 1, 2])) if casualties else ALL_VISIBLE,
    )
