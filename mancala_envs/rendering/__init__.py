"""Pictures of the board (``render_mode="rgb_array"`` and ``"human"``), drawn with pygame-ce.

Nothing here imports pygame until a picture is drawn; install it with the ``render`` extra
(``pip install 'mancala-envs[render]'``).
"""

from mancala_envs.rendering.picture import MAX_DOTS, PLAYER_COLOURS, BoardPicture, import_pygame
from mancala_envs.rendering.window import BoardWindow

__all__ = ["MAX_DOTS", "PLAYER_COLOURS", "BoardPicture", "BoardWindow", "import_pygame"]
