"""The 双扣 AI's move model: what a move gains over the heuristic's choice, in points, is
SK_MOVE_BASE plus one leaf of every tree, found from the move's inputs (SK_MOVE_FEATURES in
shuangkou_moves). No trees yet: the heuristic decides (``bench/train_shuangkou.py`` fits them).
"""

from bot.game.players.paowang_bomb_model import Tree

#: the mean gain before any tree (points)
SK_MOVE_BASE = 0.0
SK_MOVE_TREES: tuple[Tree, ...] = ()
