"""The Monte Carlo engines' shared layout: sampling methods and the columns of the per-Batch parameter table.

:func:`mathhammer.starcraft.montecarlo.pack` writes ``params[b, P_*]``; both engines read it: the numba
kernels (:mod:`mathhammer.starcraft.kernels`, which import them from here) and the numpy engine
(:mod:`mathhammer.starcraft.mcnumpy`). Importing this module imports no numba, so the typed layer can pack a
chain and run the numpy engine without it.
"""

from __future__ import annotations

METHOD_COUNT = 0
METHOD_DIE = 1

# Columns of the per-Batch parameter table ``params[b, :]`` (all int64).
P_GROUP_START = 0  # first Hit group of the Batch in g_dice / g_target
P_GROUP_STOP = 1
P_AUTO_HITS = 2
P_PRECISION = 3
P_SURGE_SIZE = 4  # values 0 .. size - 1 in the Surge alias table surge_alias[b, 0, :size]
P_SURGE_N = 5  # S Dice: N dice of M sides + K (N == 0: the fixed result K)
P_SURGE_SIDES = 6
P_SURGE_BONUS = 7
P_CRITICAL = 8
P_DODGE = 9
P_ARMOUR = 10
P_TOUGH = 11
P_EVADE = 12  # 1: Evade Rolls
P_EVADE_TARGET = 13
P_DAMAGE = 14
P_NONLETHAL = 15
P_CONCENTRATED = 16
P_VISIBLE = 17
P_REDUCE = 18  # the target's Total Damage reduction (used once a chain, at the first Batch dealing Damage)
P_FLOOR = 19  # its minimum
N_PARAMS = 20
