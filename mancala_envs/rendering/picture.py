"""The board as a picture: an ``(H, W, 3)`` ``uint8`` image drawn with pygame-ce.

:class:`BoardPicture` draws any game of the library from its engine state and the
last move (the ``last_move`` entry of the infos). pygame is imported the first
time a picture is drawn, never when the package is imported or an env is reset,
and the fonts are loaded once per process.

What the picture shows:

- every pit as a bowl with its seed count, and up to :data:`MAX_DOTS` seeds drawn
  as dots; the pit's number under each bowl (``game.pit_label``: the global index, or for Omweso each player's
  own 0-15, as the moves' words name them);
- the stores at the ends of the board (two-row games) or the captured tallies
  (Omweso), and each player's name in their colour, with a marker on the player
  to move;
- the last move: the pit played ringed in gold, the path of the sown seeds as a
  line ending in an arrowhead at the last seed, ``+k`` on each pit that received
  seeds and ``-k`` in red on each pit captured; a caption says what happened
  (for Omweso also the direction; for the relay games, the number of laps);
- Omweso's pending mid-turn choice (the pit ringed in violet) and Rio Kadalis's
  closed pits (dark, crossed out).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from mancala_envs.games.game import Game
from mancala_envs.rendering.scene import (
    BACKGROUND,
    BOWL,
    BOWL_SHADE,
    CAPTURED,
    CLOSED,
    FAINT_INK,
    INK,
    LABEL,
    LEGEND,
    MAX_DOTS,
    PATH,
    PENDING,
    PLAYED,
    PLAYER_COLOURS,
    SEED,
    SEED_SHINE,
    WOOD,
    WOOD_EDGE,
    BoardLayout,
    Scene,
)

__all__ = [
    "BACKGROUND",
    "CAPTURED",
    "CLOSED",
    "MAX_DOTS",
    "PATH",
    "PENDING",
    "PLAYED",
    "PLAYER_COLOURS",
    "BoardPicture",
    "import_pygame",
]

_fonts: dict[int, Any] = {}
_pygame: Any = None


def import_pygame() -> Any:
    """Imports pygame-ce and readies its fonts (once per process).

    Raises:
        ImportError: pygame-ce is missing; the message says how to install it.
    """
    global _pygame
    if _pygame is not None:
        return _pygame
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no greeting on stdout
    try:
        import pygame
    except ImportError as error:  # pragma: no cover - the test extra installs it
        raise ImportError(
            "drawing the board needs pygame-ce; install it with: pip install 'mancala-envs[render]'"
        ) from error
    if not pygame.font.get_init():
        pygame.font.init()
    _pygame = pygame
    return pygame


def _font(size: int) -> Any:
    """pygame's bundled font at ``size`` pixels, loaded once."""
    pygame = import_pygame()
    if not pygame.font.get_init():  # someone called pygame.quit(): the old fonts are dead
        _fonts.clear()
        pygame.font.init()
    font = _fonts.get(size)
    if font is None:
        font = pygame.font.Font(None, size)
        _fonts[size] = font
    return font


def _fitted(words: str, size: int, width: int, colour: tuple[int, int, int]) -> Any:
    """``words`` rendered at ``size`` pixels, or smaller until they fit in ``width`` pixels."""
    while True:
        text = _font(size).render(words, True, colour)
        if text.get_width() <= width or size <= 10:
            return text
        size -= 2


class BoardPicture(BoardLayout):
    """Draws one game's positions (the geometry of :class:`~mancala_envs.rendering.scene.BoardLayout`, what is
    shown from :class:`~mancala_envs.rendering.scene.Scene`, as the SVG drawing).

    Args:
        game: The game (its rows, stores and captions come from it).
        cell: Width of one pit's cell in pixels (the picture scales with it).

    Raises:
        ValueError: ``cell`` is not an int >= 48.

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", render_mode="rgb_array")
        >>> env.reset(seed=0)
        >>> env.render().shape
        (384, 768, 3)
    """

    def __init__(self, game: Game, cell: int = 88) -> None:
        super().__init__(game, cell)
        self._background: Any = None

    # --- public -------------------------------------------------------------------------
    def draw(self, state: np.ndarray, last_move: dict[str, Any] | None = None) -> np.ndarray:
        """The picture of ``state`` with ``last_move`` highlighted.

        Args:
            state: An engine state of this picture's game (``env.unwrapped.state_array``); it is checked with
                ``game.check_state`` before anything reads it, and never changed.
            last_move: ``{"player", "action", "sown", "captures"}`` as in the env's infos, or None.

        Returns:
            A new ``(height, width, 3)`` ``uint8`` array.

        Raises:
            TypeError: ``state`` is not a state array of this game (another type, dtype, shape or layout).
            ValueError: ``state`` is one no game reaches; the message names the part.
        """
        pygame = import_pygame()
        surface = self.surface(state, last_move)
        pixels = bytearray(pygame.image.tobytes(surface, "RGB"))  # row by row, as (H, W, 3) wants
        return np.frombuffer(pixels, dtype=np.uint8).reshape(self.height, self.width, 3)

    def surface(self, state: np.ndarray, last_move: dict[str, Any] | None = None) -> Any:
        """Like :meth:`draw`, as a pygame ``Surface`` (for a window); ``state`` is checked the same way."""
        scene = Scene.of(self.game, state, last_move)
        pygame = import_pygame()
        if self._background is None:
            self._background = self._draw_background(pygame)
        surface = self._background.copy()
        closed = scene.closed
        played = scene.played
        for pit, centre in self.centres.items():
            self._draw_pit(pygame, surface, centre, scene.board[pit], pit in closed)
        if played is not None or scene.sown_order:
            self._draw_path(pygame, surface, played, list(scene.sown_order))
        count_font = _font(self.count_size)
        for pit, centre in self.centres.items():
            seeds = scene.board[pit]
            if seeds and pit not in closed:  # written over the path, so the path never hides a count
                text = count_font.render(str(seeds), True, INK)
                surface.blit(text, text.get_rect(center=centre))
            if pit == played:
                pygame.draw.circle(surface, PLAYED, centre, self.radius + 3, width=5)
            if pit in scene.captured:  # outside the gold ring when the pit played was captured too
                pygame.draw.circle(surface, CAPTURED, centre, self.radius + (8 if pit == played else 3), width=5)
                self._badge(surface, centre, f"-{scene.captured[pit]}", CAPTURED, left=True)
            if scene.sown.get(pit):
                self._badge(surface, centre, f"+{scene.sown[pit]}", PATH, left=False)
        if scene.pending_pit is not None:
            pygame.draw.circle(surface, PENDING, self.centres[scene.pending_pit], self.radius + 7, width=4)
        self._draw_stores(pygame, surface, scene)
        for store, centre in self.store_centres.items():
            if scene.sown.get(store):
                self._badge(surface, centre, f"+{scene.sown[store]}", PATH, left=False)
        self._draw_names(pygame, surface, scene)
        self._draw_header(surface, scene)
        return surface

    # --- pieces ---------------------------------------------------------------------------
    def _draw_background(self, pygame: Any) -> Any:
        surface = pygame.Surface((self.width, self.height))
        surface.fill(BACKGROUND)
        _, y, w, h = self.board_rect
        rect = pygame.Rect(self.board_x, y, w, h)
        pygame.draw.rect(surface, WOOD, rect, border_radius=self.cell // 3)
        pygame.draw.rect(surface, WOOD_EDGE, rect, width=3, border_radius=self.cell // 3)
        if len(self.rows) == 4:  # Omweso: a line between the two players' halves
            middle = self.omweso_divider_y
            pygame.draw.line(surface, WOOD_EDGE, (rect.left + 12, middle), (rect.right - 12, middle), 3)
        self._draw_legend(pygame, surface)
        small = _font(self.small_size)
        for pit in self.centres:
            label = small.render(self.game.pit_label(pit), True, LABEL)
            surface.blit(label, label.get_rect(center=self.label_centre(pit)))
        return surface

    def _draw_legend(self, pygame: Any, surface: Any) -> None:
        """A key to the highlights, at the right under the board: played, sown, captured."""
        font = _font(self.small_size)
        x, centre_y = self.legend_anchor()
        dot = self.legend_dot
        for words, colour, kind in LEGEND:
            text = font.render(words, True, FAINT_INK)
            x -= text.get_width()
            surface.blit(text, text.get_rect(midleft=(x, centre_y)))
            x -= dot + 6
            if kind == "ring":
                pygame.draw.circle(surface, colour, (x, centre_y), dot, width=3)
            else:
                pygame.draw.line(surface, colour, (x - dot, centre_y), (x + dot, centre_y), 3)
            x -= dot + 14

    def _draw_pit(self, pygame: Any, surface: Any, centre: tuple[int, int], seeds: int, closed: bool) -> None:
        radius = self.radius
        if closed:
            pygame.draw.circle(surface, CLOSED, centre, radius)
            d = int(radius * 0.55)
            cx, cy = centre
            pygame.draw.line(surface, BOWL_SHADE, (cx - d, cy - d), (cx + d, cy + d), 4)
            pygame.draw.line(surface, BOWL_SHADE, (cx - d, cy + d), (cx + d, cy - d), 4)
            return
        pygame.draw.circle(surface, BOWL_SHADE, centre, radius)
        pygame.draw.circle(surface, BOWL, (centre[0], centre[1] + 2), radius - 3)
        dot = self.seed_radius
        for x, y in self.seed_dots(centre, seeds):
            pygame.draw.circle(surface, SEED, (round(x), round(y)), dot)
            pygame.draw.circle(surface, SEED_SHINE, (round(x - dot / 3), round(y - dot / 3)), max(1, dot // 3))

    def _draw_path(self, pygame: Any, surface: Any, played: int | None, sown: list[int]) -> None:
        """A line from the pit played through every sown pit in order, with an arrowhead on the last."""
        points = self.path_points(played, sown)
        if len(points) < 2:
            return
        # drawn translucent on a surface just big enough for the path, then laid over the board
        pad = self.cell // 4
        left = min(x for x, _ in points) - pad
        top = min(y for _, y in points) - pad
        size = (max(x for x, _ in points) - left + pad, max(y for _, y in points) - top + pad)
        points = [(x - left, y - top) for x, y in points]
        overlay = pygame.Surface(size, pygame.SRCALPHA)
        pygame.draw.lines(overlay, (*PATH, 150), False, points, self.path_width)
        pygame.draw.polygon(overlay, (*PATH, 220), self.arrow_head(points))
        surface.blit(overlay, (left, top))

    def _badge(
        self, surface: Any, centre: tuple[int, int], text: str, colour: tuple[int, int, int], left: bool
    ) -> None:
        pygame = import_pygame()
        label = _font(self.badge_size).render(text, True, (255, 255, 255))
        box = label.get_rect()
        box.inflate_ip(8, 2)
        box.center = self.badge_centre(centre, left)
        pygame.draw.rect(surface, colour, box, border_radius=box.height // 2)
        surface.blit(label, label.get_rect(center=box.center))

    def _draw_stores(self, pygame: Any, surface: Any, scene: Scene) -> None:
        big = _font(self.store_size)
        for player, (x, y, w, h) in self.store_rects.items():
            rect = pygame.Rect(x, y, w, h)
            pygame.draw.rect(surface, BOWL_SHADE, rect, border_radius=self.store_width // 2)
            pygame.draw.rect(surface, PLAYER_COLOURS[player], rect, width=3, border_radius=self.store_width // 2)
            text = big.render(str(scene.stores[player]), True, INK)
            surface.blit(text, text.get_rect(center=rect.center))

    def _draw_names(self, pygame: Any, surface: Any, scene: Scene) -> None:
        """Each player's name on their side, the captured seeds, and a marker on the player to move."""
        font = _font(self.name_size)
        for player in (1, 0):
            text = font.render(scene.names[player], True, PLAYER_COLOURS[player])
            rect = text.get_rect(midleft=self.name_anchor(player))
            surface.blit(text, rect)
            if scene.to_move == player:
                cy = rect.centery
                x = rect.left - 8
                pygame.draw.polygon(surface, PLAYER_COLOURS[player], [(x, cy), (x - 12, cy - 8), (x - 12, cy + 8)])

    def _draw_header(self, surface: Any, scene: Scene) -> None:
        line = _fitted(scene.status, self.status_size, self.text_room, INK)
        surface.blit(line, (self.margin, self.status_top))
        if scene.caption is not None:
            text = _fitted(scene.caption, self.caption_size, self.text_room, FAINT_INK)
            surface.blit(text, (self.margin, self.caption_top))
