"""The 刨王 AI's move model: what a move gains over the heuristic's choice, in points, is
MOVE_BASE plus one leaf of every tree, found from the move's inputs (MOVE_FEATURES in
paowang_moves). Not fitted yet: no trees, so the heuristic decides alone.
"""


from bot.game.players.paowang_bomb_model import Tree

#: the mean gain before any tree (points)
MOVE_BASE = 0.0
MOVE_TREES: tuple[Tree, ...] = ()
