"""What a picture of the board shows, apart from how it is painted: the one geometry and the one set of captions.

:class:`BoardLayout` places everything (pits, stores, names, the header, the legend) for a game and a cell
size; :class:`Scene` says what to draw for one position and the move that led to it (counts, the player to
move, the status line, the last move's words, the pits sown, captured and played, Omweso's pending choice,
Rio Kadalis's closed pits). Both are plain Python: the pygame picture (:mod:`~mancala_envs.rendering.picture`)
and the SVG drawing (:mod:`~mancala_envs.rendering.svg`) paint the same layout and the same scene, so the two
never disagree on where a pit is or what a caption says.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from mancala_envs.engine.state import BOARD, PLAYER, PLY, RUNNING, STATUS, STORE
from mancala_envs.games.game import Game

__all__ = ["LEGEND", "MAX_DOTS", "PLAYER_COLOURS", "BoardLayout", "Scene", "check_cell"]

#: at most this many seeds are drawn as dots in a pit; the number is always written
MAX_DOTS = 12
#: player 0 blue, player 1 red (names, stores, the to-move marker)
PLAYER_COLOURS = ((37, 99, 195), (196, 52, 44))

# the palette both painters use (RGB)
BACKGROUND = (246, 241, 231)
WOOD = (150, 101, 62)
WOOD_EDGE = (98, 62, 34)
BOWL = (226, 200, 156)
BOWL_SHADE = (196, 166, 120)
LABEL = (236, 222, 200)
SEED = (62, 52, 46)
SEED_SHINE = (150, 138, 128)
INK = (38, 34, 30)
FAINT_INK = (110, 100, 90)
PLAYED = (245, 180, 0)
PATH = (0, 150, 136)
CAPTURED = (211, 47, 47)
PENDING = (142, 36, 170)
CLOSED = (84, 58, 38)
LEGAL = (46, 160, 67)

Point = tuple[float, float]


def check_cell(cell: Any) -> int:
    """``cell`` as an int after checking it: the width of one pit's cell in pixels, at least 48.

    Raises:
        ValueError: ``cell`` is not an int (bools refused) or is below 48.
    """
    if isinstance(cell, (bool, np.bool_)) or not isinstance(cell, (int, np.integer)) or cell < 48:
        raise ValueError(f"cell must be an int >= 48 pixels (got {cell!r}).")
    return int(cell)


def _even(value: float, multiple: int = 16) -> int:
    """``value`` rounded up to a multiple of 16 (video encoders want even sizes, most want 16)."""
    return int(math.ceil(value / multiple) * multiple)


class BoardLayout:
    """Where everything of one game's board sits, in pixels, for a cell ``cell`` pixels wide.

    Args:
        game: The game (its rows and whether it has stores set the layout).
        cell: Width of one pit's cell in pixels (everything scales with it), an int >= 48.

    Attributes:
        width, height: The picture's size, multiples of 16.
        centres: Global pit -> centre ``(x, y)``.
        store_centres: ``n_pits + player`` -> the centre of that player's store (two-row games with stores):
            where a game whose stores take part in sowing (Kalah) records a seed dropped in a store.
        store_rects: Player -> ``(x, y, width, height)`` of their store.
        radius: A pit's radius.
        board_rect: ``(x, y, width, height)`` of the wooden board (its x before centring; see ``board_x``).
        board_x: The board's left edge.

    Raises:
        ValueError: ``cell`` is not an int >= 48.
    """

    def __init__(self, game: Game, cell: int = 88) -> None:
        cell = check_cell(cell)
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
        self.centres: dict[int, tuple[int, int]] = {}
        x0 = self.margin + self.margin + self.store_width + (self.width - 2 * self.margin - board_width) // 2
        for r, row in enumerate(self.rows):
            y = self.board_rect[1] + self.margin // 2 + r * self.row_height + self.radius + cell // 10
            for c, pit in enumerate(row):
                self.centres[pit] = (x0 + c * cell + cell // 2, y)
        self.board_x = x0 - self.margin - self.store_width
        self.store_centres: dict[int, tuple[int, int]] = {}
        self.store_rects: dict[int, tuple[int, int, int, int]] = {}
        if game.has_stores:
            _, top, width, height = self.board_rect
            middle = top + self.margin // 2 + (height - self.margin) // 2
            self.store_centres[game.n_pits + 1] = (self.board_x + self.margin // 2 + self.store_width // 2, middle)
            self.store_centres[game.n_pits] = (self.board_x + width - self.margin // 2 - self.store_width // 2, middle)
            for player, x in (
                (1, self.board_x + self.margin // 2),
                (0, self.board_x + width - self.margin // 2 - self.store_width),
            ):
                self.store_rects[player] = (x, top + self.margin // 2, self.store_width, height - self.margin)

    # --- sizes of the writing ------------------------------------------------------------------------------------
    @property
    def count_size(self) -> int:
        """Font size (pixels, pygame's measure) of a pit's count."""
        return int(self.cell * 0.36)

    @property
    def small_size(self) -> int:
        """Font size of the pit numbers and the legend."""
        return max(14, self.cell // 5)

    @property
    def badge_size(self) -> int:
        """Font size of the ``+k`` / ``-k`` badges."""
        return max(14, self.cell // 4)

    @property
    def store_size(self) -> int:
        """Font size of a store's count."""
        return int(self.cell * 0.46)

    @property
    def name_size(self) -> int:
        """Font size of the players' names."""
        return max(16, int(self.cell * 0.27))

    @property
    def status_size(self) -> int:
        """Font size of the status line (shrunk to fit by each painter)."""
        return max(18, int(self.cell * 0.30))

    @property
    def caption_size(self) -> int:
        """Font size of the last move's caption."""
        return max(16, int(self.cell * 0.25))

    # --- places --------------------------------------------------------------------------------------------------
    @property
    def text_room(self) -> int:
        """The width the header's lines may take."""
        return self.width - 2 * self.margin

    @property
    def status_top(self) -> int:
        """Top of the status line (its left is ``margin``)."""
        return self.margin // 2

    @property
    def caption_top(self) -> int:
        """Top of the last move's caption."""
        return self.margin // 2 + int(self.cell * 0.32)

    @property
    def omweso_divider_y(self) -> int:
        """The y of the line between the two players' halves of a four-row board."""
        return self.board_rect[1] + self.margin // 2 + 2 * self.row_height + self.cell // 20

    def label_centre(self, pit: int) -> tuple[int, int]:
        """Centre of a pit's number, under the bowl."""
        cx, cy = self.centres[pit]
        return (cx, cy + self.radius + self.cell // 6)

    def name_anchor(self, player: int) -> tuple[int, int]:
        """The middle of the left edge of ``player``'s name line (player 1 above the board, player 0 below)."""
        _, y, _, h = self.board_rect
        top = y - self.name_band // 2 - 1 if player == 1 else y + h + self.name_band // 2 + 1
        return (self.board_x + 2 * self.margin + self.store_width, top)

    def legend_anchor(self) -> tuple[int, int]:
        """Right end ``(x, centre y)`` of the legend under the board; its entries run leftwards."""
        _, y, w, h = self.board_rect
        return (self.board_x + w - self.margin, y + h + self.name_band + self.legend_band // 2)

    @property
    def legend_dot(self) -> int:
        """Radius of a legend entry's ring (half the length of its line)."""
        return max(5, self.cell // 14)

    def seed_dots(self, centre: tuple[int, int], seeds: int) -> list[Point]:
        """Centres of the seed dots drawn in a pit (at most :data:`MAX_DOTS`), on a ring inside the bowl."""
        dots = min(seeds, MAX_DOTS)
        ring = self.radius * 0.66
        out = []
        for i in range(dots):
            angle = -math.pi / 2 + 2 * math.pi * i / max(dots, 6)
            out.append((centre[0] + ring * math.cos(angle), centre[1] + ring * math.sin(angle)))
        return out

    @property
    def seed_radius(self) -> int:
        """Radius of one seed dot."""
        return max(3, int(self.radius * 0.12))

    def badge_centre(self, centre: tuple[int, int], left: bool) -> tuple[int, int]:
        """Centre of a badge by a pit: top left (``-k`` captured) or top right (``+k`` sown)."""
        offset = int(self.radius * 0.78)
        return (centre[0] + (-offset if left else offset), centre[1] - offset)

    def path_points(self, played: int | None, sown: list[int]) -> list[tuple[int, int]]:
        """The sowing path: the pit played, then every pit (or store) sown in order, repeats next to each
        other dropped. Fewer than two points means there is no path to draw."""
        where = {**self.centres, **self.store_centres}
        points = [where[pit] for pit in ([played] if played is not None else []) + list(sown)]
        return [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]

    def arrow_head(self, points: list[tuple[int, int]]) -> list[Point]:
        """The three corners of the arrowhead at the path's end (``points`` has at least two points)."""
        (x0, y0), (x1, y1) = points[-2], points[-1]
        angle = math.atan2(y1 - y0, x1 - x0)
        tip = (x1 - math.cos(angle) * self.radius * 0.35, y1 - math.sin(angle) * self.radius * 0.35)
        size = self.cell * 0.16
        return [
            tip,
            (tip[0] - size * math.cos(angle - 0.5), tip[1] - size * math.sin(angle - 0.5)),
            (tip[0] - size * math.cos(angle + 0.5), tip[1] - size * math.sin(angle + 0.5)),
        ]

    @property
    def path_width(self) -> int:
        """Width of the sowing path's line."""
        return max(3, self.cell // 22)


#: the legend's entries from right to left: words, colour, ``"ring"`` or ``"line"``
LEGEND = (("captured", CAPTURED, "ring"), ("seeds sown", PATH, "line"), ("played", PLAYED, "ring"))


@dataclass(frozen=True)
class Scene:
    """What to draw for one position of a game and the move that led to it (build it with :meth:`of`).

    Attributes:
        board: Seeds in every pit (global pit order).
        stores: Each player's store (or, without stores, captured tally).
        has_stores: True for the games with stores at the ends; False for Omweso (captured tallies).
        running: The game is not over.
        ply: The position's ply.
        to_move: The player to move, or None once the game is over.
        closed: Rio Kadalis's closed pits (drawn dark, crossed out; no count).
        pending_pit: The pit of Omweso's pending mid-turn choice while it is pending, else None.
        played: The pit the last move played (ringed gold), or None.
        sown: Pit or store (``n_pits + player``) -> seeds the last move dropped there (the ``+k`` badges).
        sown_order: The pits and stores sown, in order (the path).
        captured: Pit -> seeds the last move captured from it (ringed red, the ``-k`` badges).
        status: The header's first line: the game's title and what the position is.
        caption: The last move in words, or None without a last move.
        names: Each player's line: their name, store or captured count, ``"to move"``.
    """

    board: tuple[int, ...]
    stores: tuple[int, int]
    has_stores: bool
    running: bool
    ply: int
    to_move: int | None
    closed: frozenset[int]
    pending_pit: int | None
    played: int | None
    sown: dict[int, int]
    sown_order: tuple[int, ...]
    captured: dict[int, int]
    status: str
    caption: str | None
    names: tuple[str, str]

    @classmethod
    def of(cls, game: Game, state: np.ndarray, last_move: dict[str, Any] | None = None) -> Scene:
        """The scene of ``state`` after ``last_move``.

        A match's new game starts at ply 0: the last move (which ended the previous game) is named in the
        caption but not drawn on the new board.

        Args:
            game: The game.
            state: An engine state of ``game``; checked with ``game.check_state`` first, never changed.
            last_move: ``{"player", "action", "sown", "captures"}`` as in the env's infos, or None.

        Raises:
            TypeError: ``state`` is not a state array of this game (another type, dtype, shape or layout).
            ValueError: ``state`` is one no game reaches; the message names the part.
        """
        game.check_state(state)
        info = game.info(state)
        running = int(state[STATUS]) == RUNNING
        ply = int(state[PLY])
        mover = int(state[PLAYER])
        pending = info.get("pending")
        drawn = last_move if last_move is not None and ply > 0 else None
        sown: Counter[int] = Counter()
        captured: dict[int, int] = {}
        played = None
        if drawn is not None:
            sown = Counter(int(pit) for pit in drawn["sown"])
            for pit, seeds in drawn["captures"]:
                captured[int(pit)] = captured.get(int(pit), 0) + int(seeds)
            played = int(game.played_pit(drawn["player"], drawn["action"]))
        pending_pit = None
        if running and pending is not None:
            pending_pit = int(game.played_pit(mover, pending["actions"][0]))
        stores = (int(state[STORE]), int(state[STORE + 1]))
        names = []
        for player in (0, 1):
            words = f"player_{player}"
            words += f"   {'store' if game.has_stores else 'captured'} {stores[player]}"
            if running and player == mover:
                words += "   to move"
            names.append(words)
        return cls(
            board=tuple(int(seeds) for seeds in state[BOARD : BOARD + game.n_pits]),
            stores=stores,
            has_stores=bool(game.has_stores),
            running=running,
            ply=ply,
            to_move=mover if running else None,
            closed=frozenset(int(pit) for pit in info.get("closed_pits") or ()),
            pending_pit=pending_pit,
            played=played,
            sown=dict(sown),
            sown_order=tuple(int(pit) for pit in drawn["sown"]) if drawn is not None else (),
            captured=captured,
            status=_status(game, state, info, running),
            caption=_caption(game, state, info, last_move),
            names=(names[0], names[1]),
        )


def _status(game: Game, state: np.ndarray, info: dict[str, Any], running: bool) -> str:
    """The header's first line: title, then the ply and the player to move, or the result."""
    title = game.name.replace("_", " ").title()
    if running:
        status = f"ply {int(state[PLY])}: player_{int(state[PLAYER])} to move"
        pending = info.get("pending")
        if pending is not None:
            what = "relay from" if pending["kind"] == "relay" else "re-sow from"
            pit = game.pit_label(game.played_pit(int(state[PLAYER]), pending["actions"][0]))
            status += f", choosing: {what} pit {pit} ({pending['actions'][0]} ccw / {pending['actions'][1]} cw)"
        elif info.get("phase") == "placement":
            status += ", placing seeds"
    else:
        winner = info["winner"]
        result = "a draw" if winner is None else f"player_{winner} wins"
        scores = info["scores"]
        status = f"game over after {int(state[PLY])} plies ({info['end_reason']}): {result}, {scores[0]}-{scores[1]}"
    return f"{title}   {status}"


def _caption(game: Game, state: np.ndarray, info: dict[str, Any], last_move: dict[str, Any] | None) -> str | None:
    """The last move in words: who played what, seeds sown (and laps), seeds captured."""
    if last_move is None:
        return None
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
    return words
