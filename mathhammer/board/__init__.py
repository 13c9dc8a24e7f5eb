"""The battlefield model: terrain, models and units on a table; Line of Sight (7.1) and Engagement (7.2).

>>> from mathhammer.board import Board, Model, Unit, line_of_sight
>>> a, b = Model("a", 5, 5), Model("b", 20, 5)
>>> board = Board(44, 30, units=(Unit("x", "p1", (a,)), Unit("y", "p2", (b,))))
>>> line_of_sight(board, a, b).visible
True
"""

from .combat import CombatFacts, combat_facts
from .engagement import Engagement, engaged, engagement
from .loader import load_board, parse_board
from .los import Block, Sight, Visibility, line_of_sight, visibility
from .model import Board, BoardError, Model, Terrain, Unit

__all__ = [
    "Block",
    "Board",
    "BoardError",
    "CombatFacts",
    "Engagement",
    "Model",
    "Sight",
    "Terrain",
    "Unit",
    "Visibility",
    "combat_facts",
    "engaged",
    "engagement",
    "line_of_sight",
    "load_board",
    "parse_board",
    "visibility",
]
