"""The board as a picture: an ``(H, W, 3)`` ``uint8`` image drawn with pygame-ce.

:class:`BoardPicture` draws any game of the library from its engine state and the
last move (the ``last_move`` entry of the infos). pygame is imported the first
time a picture is drawn, never when the package is imported or an env is reset,
and the fonts are loaded once per process.

What the picture shows:

- every pit as a bowl with its seed count, and up to :data:`MAX_DOTS` seeds drawn
  as dots; the global pit number under each bowl;
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

import math
import os
from collections import Counter
from typing import Any

import numpy as np

from mancala_envs.engine.state import BOARD, PLAYER, PLY, RUNNING, STATUS, STORE
from mancala_envs.games.game import Game

__all__ = ["MAX_DOTS", "PLAYER_COLOURS", "BoardPicture", "import_pygame"]

#: at most this many seeds are drawn as dots in a pit; the number is always written
MAX_DOTS = 12
#: player 0 blue, player 1 red (names, stores, the to-move marker)
PLAYER_COLOURS = ((37, 99, 195), (196, 52, 44))

BACKGROUND = (246, 241, 231)
WOOD = (150, 101, 62)
WOOD_EDGE = (98, 62, 34)
BOWL = (226, 200, 156)
BOWL_SHADE = (196, 166, 120)
SEED = (62, 52, 46)
SEED_SHINE = (150, 138, 128)
INK = (38, 34, 30)
FAINT_INK = (110, 100, 90)
PLAYED = (245, 180, 0)
PATH = (0, 150, 136)
CAPTURED = (211, 47, 47)
PENDING = (142, 36, 170)
CLOSED = (84, 58, 38)

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


def _even(value: float, multiple: int = 16) -> int:
    """``value`` rounded up to a multiple of 16 (video encoders want even sizes, most want 16)."""
    return int(math.ceil(value / multiple) * multiple)


class BoardPicture:
    """Draws one game's positions.

    Args:
        game: The game (its rows, stores and captions come from it).
        cell: Width of one pit's cell in pixels (the picture scales with it).

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", render_mode="rgb_array")
        >>> env.reset(seed=0)
        >>> env.render().shape
        (384, 768, 3)
    """

    def __init__(self, game: Game, cell: int = 88) -> None:
        if isinstance(cell, (bool, np.bool_)) or not isinstance(cell, (int, np.integer)) or cell < 48:
            raise ValueError(f"cell must be an int >= 48 pixels (got {cell!r}).")
        cell = int(cell)
        self.game = game
        self.cell = cell
        self.rows = game.board_rows()
        self.columns = max(len(row) for row in self.rows)
        self.radius = int(cell * 0.40)
        self.row_height = int(cell * 1.12)
        self.margin = cell // 5
        self.store_width = int(cell * 0.9) if game.has_stores else 0
        self.header = int(cell * 0.78)
        self.name_band = int(cell * 0.36)
        board_width = self.columns * cell + 2 * self.store_width + 2 * self.margin
        self.board_rect = (
            self.margin,
            self.header + self.name_band,
            board_width,
            len(self.rows) * self.row_height + self.margin,
        )
        self.width = _even(board_width + 2 * self.margin)
        self.legend_band = int(cell * 0.3)
        self.height = _even(
            self.board_rect[1] + self.board_rect[3] + self.name_band + self.legend_band + self.margin // 2
        )
        # centre of every pit, global pit -> (x, y)
        self.centres: dict[int, tuple[int, int]] = {}
        x0 = self.margin + self.margin + self.store_width + (self.width - 2 * self.margin - board_width) // 2
        for r, row in enumerate(self.rows):
            y = self.board_rect[1] + self.margin // 2 + r * self.row_height + self.radius + cell // 10
            for c, pit in enumerate(row):
                self.centres[pit] = (x0 + c * cell + cell // 2, y)
        self._board_x = x0 - self.margin - self.store_width
        # centre of each store, as ``n_pits + player``: where a game whose stores take part in sowing
        # (Kalah) records a seed dropped into a store in ``last_move["sown"]``
        self.store_centres: dict[int, tuple[int, int]] = {}
        if game.has_stores:
            _, top, width, height = self.board_rect
            middle = top + self.margin // 2 + (height - self.margin) // 2
            self.store_centres[game.n_pits + 1] = (self._board_x + self.margin // 2 + self.store_width // 2, middle)
            self.store_centres[game.n_pits] = (self._board_x + width - self.margin // 2 - self.store_width // 2, middle)
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
        self.game.check_state(state)
        pygame = import_pygame()
        if self._background is None:
            self._background = self._draw_background(pygame)
        surface = self._background.copy()
        game = self.game
        info = game.info(state)
        board = state[BOARD : BOARD + game.n_pits]
        running = int(state[STATUS]) == RUNNING
        closed = set(info.get("closed_pits") or ())
        pending = info.get("pending")
        sown_counts: Counter[int] = Counter()
        captured: dict[int, int] = {}
        played = None
        # A match's new game starts at ply 0: the last move (which ended the previous game) is named in
        # the caption but not drawn on the new board.
        drawn = last_move if last_move is not None and int(state[PLY]) > 0 else None
        if drawn is not None:
            sown_counts = Counter(drawn["sown"])
            for pit, seeds in drawn["captures"]:
                captured[pit] = captured.get(pit, 0) + seeds
            played = game.played_pit(drawn["player"], drawn["action"])

        for pit, centre in self.centres.items():
            self._draw_pit(pygame, surface, centre, int(board[pit]), pit in closed)
        if drawn is not None:
            self._draw_path(pygame, surface, played, drawn["sown"])
        count_font = _font(int(self.cell * 0.36))
        for pit, centre in self.centres.items():
            seeds = int(board[pit])
            if seeds and pit not in closed:  # written over the path, so the path never hides a count
                text = count_font.render(str(seeds), True, INK)
                surface.blit(text, text.get_rect(center=centre))
            if pit == played:
                pygame.draw.circle(surface, PLAYED, centre, self.radius + 3, width=5)
            if pit in captured:  # outside the gold ring when the pit played was captured too
                pygame.draw.circle(surface, CAPTURED, centre, self.radius + (8 if pit == played else 3), width=5)
                self._badge(surface, centre, f"-{captured[pit]}", CAPTURED, left=True)
            if sown_counts.get(pit):
                self._badge(surface, centre, f"+{sown_counts[pit]}", PATH, left=False)
        if running and pending is not None:
            pit = game.played_pit(int(state[PLAYER]), pending["actions"][0])
            pygame.draw.circle(surface, PENDING, self.centres[pit], self.radius + 7, width=4)
        self._draw_stores(pygame, surface, state)
        for store, centre in self.store_centres.items():
            if sown_counts.get(store):
                self._badge(surface, centre, f"+{sown_counts[store]}", PATH, left=False)
        self._draw_names(pygame, surface, state, running)
        self._draw_header(surface, state, info, last_move, running)
        return surface

    # --- pieces ---------------------------------------------------------------------------
    def _draw_background(self, pygame: Any) -> Any:
        surface = pygame.Surface((self.width, self.height))
        surface.fill(BACKGROUND)
        _, y, w, h = self.board_rect
        rect = pygame.Rect(self._board_x, y, w, h)
        pygame.draw.rect(surface, WOOD, rect, border_radius=self.cell // 3)
        pygame.draw.rect(surface, WOOD_EDGE, rect, width=3, border_radius=self.cell // 3)
        if len(self.rows) == 4:  # Omweso: a line between the two players' halves
            middle = y + self.margin // 2 + 2 * self.row_height + self.cell // 20
            pygame.draw.line(surface, WOOD_EDGE, (rect.left + 12, middle), (rect.right - 12, middle), 3)
        self._draw_legend(pygame, surface)
        small = _font(max(14, self.cell // 5))
        for row in self.rows:
            for pit in row:
                cx, cy = self.centres[pit]
                label = small.render(str(pit), True, (236, 222, 200))
                surface.blit(label, label.get_rect(center=(cx, cy + self.radius + self.cell // 6)))
        return surface

    def _draw_legend(self, pygame: Any, surface: Any) -> None:
        """A key to the highlights, at the right under the board: played, sown, captured."""
        font = _font(max(14, self.cell // 5))
        _, y, w, h = self.board_rect
        centre_y = y + h + self.name_band + self.legend_band // 2
        x = self._board_x + w - self.margin
        dot = max(5, self.cell // 14)
        for words, colour, kind in (
            ("captured", CAPTURED, "ring"),
            ("seeds sown", PATH, "line"),
            ("played", PLAYED, "ring"),
        ):
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
        self._draw_seeds(pygame, surface, centre, seeds, radius)

    def _draw_seeds(self, pygame: Any, surface: Any, centre: tuple[int, int], seeds: int, radius: int) -> None:
        dots = min(seeds, MAX_DOTS)
        if dots == 0:
            return
        ring = radius * 0.66
        dot = max(3, int(radius * 0.12))
        for i in range(dots):
            angle = -math.pi / 2 + 2 * math.pi * i / max(dots, 6)
            x = centre[0] + ring * math.cos(angle)
            y = centre[1] + ring * math.sin(angle)
            pygame.draw.circle(surface, SEED, (round(x), round(y)), dot)
            pygame.draw.circle(surface, SEED_SHINE, (round(x - dot / 3), round(y - dot / 3)), max(1, dot // 3))

    def _draw_path(self, pygame: Any, surface: Any, played: int | None, sown: list[int]) -> None:
        """A line from the pit played through every sown pit in order, with an arrowhead on the last."""
        where = {**self.centres, **self.store_centres}
        points = [where[pit] for pit in ([played] if played is not None else []) + list(sown)]
        points = [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]
        if len(points) < 2:
            return
        # drawn translucent on a surface just big enough for the path, then laid over the board
        pad = self.cell // 4
        left = min(x for x, _ in points) - pad
        top = min(y for _, y in points) - pad
        size = (max(x for x, _ in points) - left + pad, max(y for _, y in points) - top + pad)
        points = [(x - left, y - top) for x, y in points]
        overlay = pygame.Surface(size, pygame.SRCALPHA)
        colour = (*PATH, 150)
        width = max(3, self.cell // 22)
        pygame.draw.lines(overlay, colour, False, points, width)
        (x0, y0), (x1, y1) = points[-2], points[-1]
        angle = math.atan2(y1 - y0, x1 - x0)
        tip = (x1 - math.cos(angle) * self.radius * 0.35, y1 - math.sin(angle) * self.radius * 0.35)
        head_size = self.cell * 0.16
        head = [
            tip,
            (tip[0] - head_size * math.cos(angle - 0.5), tip[1] - head_size * math.sin(angle - 0.5)),
            (tip[0] - head_size * math.cos(angle + 0.5), tip[1] - head_size * math.sin(angle + 0.5)),
        ]
        pygame.draw.polygon(overlay, (*PATH, 220), head)
        surface.blit(overlay, (left, top))

    def _badge(
        self, surface: Any, centre: tuple[int, int], text: str, colour: tuple[int, int, int], left: bool
    ) -> None:
        pygame = import_pygame()
        label = _font(max(14, self.cell // 4)).render(text, True, (255, 255, 255))
        box = label.get_rect()
        box.inflate_ip(8, 2)
        offset = int(self.radius * 0.78)
        box.center = (centre[0] + (-offset if left else offset), centre[1] - offset)
        pygame.draw.rect(surface, colour, box, border_radius=box.height // 2)
        surface.blit(label, label.get_rect(center=box.center))

    def _draw_stores(self, pygame: Any, surface: Any, state: np.ndarray) -> None:
        if not self.game.has_stores:
            return
        _, y, _, h = self.board_rect
        big = _font(int(self.cell * 0.46))
        for player, x in (
            (1, self._board_x + self.margin // 2),
            (0, self._board_x + self.board_rect[2] - self.margin // 2 - self.store_width),
        ):
            rect = pygame.Rect(x, y + self.margin // 2, self.store_width, h - self.margin)
            pygame.draw.rect(surface, BOWL_SHADE, rect, border_radius=self.store_width // 2)
            pygame.draw.rect(surface, PLAYER_COLOURS[player], rect, width=3, border_radius=self.store_width // 2)
            text = big.render(str(int(state[STORE + player])), True, INK)
            surface.blit(text, text.get_rect(center=rect.center))

    def _draw_names(self, pygame: Any, surface: Any, state: np.ndarray, running: bool) -> None:
        """Each player's name on their side, the captured seeds, and a marker on the player to move."""
        font = _font(max(16, int(self.cell * 0.27)))
        _, y, _, h = self.board_rect
        mover = int(state[PLAYER])
        for player, top in ((1, y - self.name_band // 2 - 1), (0, y + h + self.name_band // 2 + 1)):
            words = f"player_{player}"
            if not self.game.has_stores:
                words += f"   captured {int(state[STORE + player])}"
            else:
                words += f"   store {int(state[STORE + player])}"
            if running and player == mover:
                words += "   to move"
            text = font.render(words, True, PLAYER_COLOURS[player])
            rect = text.get_rect(midleft=(self._board_x + 2 * self.margin + self.store_width, top))
            surface.blit(text, rect)
            if running and player == mover:
                cy = rect.centery
                x = rect.left - 8
                pygame.draw.polygon(surface, PLAYER_COLOURS[player], [(x, cy), (x - 12, cy - 8), (x - 12, cy + 8)])

    def _draw_header(
        self, surface: Any, state: np.ndarray, info: dict[str, Any], last_move: dict[str, Any] | None, running: bool
    ) -> None:
        game = self.game
        title = game.name.replace("_", " ").title()
        if running:
            status = f"ply {int(state[PLY])}: player_{int(state[PLAYER])} to move"
            pending = info.get("pending")
            if pending is not None:
                what = "relay from" if pending["kind"] == "relay" else "re-sow from"
                pit = game.played_pit(int(state[PLAYER]), pending["actions"][0])
                status += f", choosing: {what} pit {pit} ({pending['actions'][0]} ccw / {pending['actions'][1]} cw)"
            elif info.get("phase") == "placement":
                status += ", placing seeds"
        else:
            winner = info["winner"]
            result = "a draw" if winner is None else f"player_{winner} wins"
            scores = info["scores"]
            status = (
                f"game over after {int(state[PLY])} plies ({info['end_reason']}): {result}, {scores[0]}-{scores[1]}"
            )
        room = self.width - 2 * self.margin
        line = _fitted(f"{title}   {status}", max(18, int(self.cell * 0.30)), room, INK)
        surface.blit(line, (self.margin, self.margin // 2))
        if last_move is not None:
            player = last_move["player"]
            words = f"last move: player_{player} " + game.move_words(player, last_move["action"], last_move["sown"])
            seeds = len(last_move["sown"])
            words += f", {seeds} seed{'s' if seeds != 1 else ''} sown"
            laps = info.get("laps")
            if laps:
                words += f" in {laps} lap{'s' if laps != 1 else ''}"
            taken = sum(seeds for _, seeds in last_move["captures"])
            if taken:
                words += f", captured {taken}"
            if int(state[PLY]) == 0:
                words += "; it ended the last game, a new one is laid out"
            text = _fitted(words, max(16, int(self.cell * 0.25)), room, FAINT_INK)
            surface.blit(text, (self.margin, self.margin // 2 + int(self.cell * 0.32)))
