"""Drawings of the board: pictures (``render_mode="rgb_array"`` and ``"human"``, drawn with pygame-ce) and SVG
(``render_mode="svg"``, Jupyter, the HTML replays; standard library only).

Both paint the one layout and the one scene of :mod:`mancala_envs.rendering.scene`. Nothing here imports
pygame until a picture is drawn; install it with the ``render`` extra (``pip install 'mancala-envs[render]'``).
"""

from mancala_envs.rendering.picture import BoardPicture, import_pygame
from mancala_envs.rendering.scene import MAX_DOTS, PLAYER_COLOURS, BoardLayout, Scene
from mancala_envs.rendering.svg import BoardSvg, SvgDrawing, svg_of
from mancala_envs.rendering.window import BoardWindow

__all__ = [
    "MAX_DOTS",
    "PLAYER_COLOURS",
    "BoardLayout",
    "BoardPicture",
    "BoardSvg",
    "BoardWindow",
    "Scene",
    "SvgDrawing",
    "import_pygame",
    "svg_of",
]
