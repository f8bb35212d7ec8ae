"""The 刨王 AI's 亮王 model: what revealing gains over not revealing, in points, is
REVEAL_BASE plus one leaf of every tree, found from the hand's inputs (REVEAL_FEATURES in
paowang_reveal). No trees yet: the hand-written rule answers (``bench/train_reveal.py`` fits
them).
"""

from bot.game.players.paowang_bomb_model import Tree

#: the mean gain before any tree (points)
REVEAL_BASE = 0.0
REVEAL_TREES: tuple[Tree, ...] = ()
