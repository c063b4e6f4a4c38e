"""The board as SVG: one ``<svg>`` element per position, for browsers, Jupyter and the HTML replays.

:class:`BoardSvg` paints the same :class:`~mancala_envs.rendering.scene.BoardLayout` and
:class:`~mancala_envs.rendering.scene.Scene` as the pygame picture (pits with counts and seed dots, pit
numbers, stores or captured tallies, the players' names and the to-move marker, the status line and the
last move's caption, the played pit's gold ring, the sowing path with its arrowhead, ``+k`` sown and
``-k`` captured badges, Omweso's pending choice, Rio Kadalis's closed pits, the legend). It needs nothing
but the standard library: no pygame, no external reference, no script, no ``id`` (so many drawings can
share one HTML page).

Hooks for programs (a contract the replay page, the web app and the tests rely on):

- the root: ``<svg class="mancala-board" data-game="ouril" data-ply="12" data-to-move="0">``
  (``data-to-move`` is ``""`` once the game is over);
- each pit: ``<g class="pit" data-pit="P" data-seeds="N">`` holding ``<text class="count">N</text>``; the
  count is written for every pit, ``0`` included (faint; a closed pit's in its dark colour), so ``data-seeds``
  and the text always agree; the group holds a transparent circle over the whole bowl, so a click anywhere on
  the pit reaches it;
- extra classes on a pit: ``legal`` (in ``highlight``: ringed green), ``played``, ``captured``,
  ``closed``, ``pending``; the rings are ``<circle class="ring legal|played|captured|pending">``;
- each store (games with stores): ``<g class="store" data-player="p" data-seeds="N">`` with its
  ``<text class="count">``;
- badges: ``<g class="badge sown" data-pit="P">`` (``data-store="p"`` for a store) holding ``+k``, and
  ``<g class="badge captured" data-pit="P">`` holding ``-k``;
- the players' lines: ``<text class="name" data-player="p" data-seeds="N">`` (N: store or captured
  tally); the marker ``<polygon class="to-move" data-player="p">``;
- ``<text class="status">`` (the header line), ``<text class="caption">`` (the last move, when there is
  one), ``<polyline class="path">`` and ``<polygon class="arrow">`` (the sowing path).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from mancala_envs.games.game import Game
from mancala_envs.rendering import scene as palette
from mancala_envs.rendering.scene import LEGEND, PLAYER_COLOURS, BoardLayout, Scene

__all__ = ["FONT_SCALE", "BoardSvg", "SvgDrawing", "svg_of"]

#: an SVG font size per pygame font size (pygame's default font draws a size-``n`` font ~0.69 ``n`` high)
FONT_SCALE = 0.6875
FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"
#: what two spaces become in a text (HTML collapses runs of spaces, even in an <svg>; ``xml:space`` is ignored)
NO_BREAK_RUN = " \u00a0"
#: average advance of a character, in font sizes, to shrink a line that would not fit
CHAR_WIDTH = 0.56


def _hex(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


#: the colours of the many repeated shapes, by class (scoped to the drawing, the same for every cell size, so
#: that many drawings on one page or in one notebook agree), which keeps a drawing small
STYLE = (
    "<style>"
    f".mancala-board .bowl{{fill:{_hex(palette.BOWL_SHADE)}}}"
    f".mancala-board .bowl-in{{fill:{_hex(palette.BOWL)}}}"
    f".mancala-board .seed{{fill:{_hex(palette.SEED)}}}"
    f".mancala-board .shine{{fill:{_hex(palette.SEED_SHINE)}}}"
    ".mancala-board .hit{fill:transparent}"
    ".mancala-board .pit.legal{cursor:pointer}"
    "</style>"
)


def _num(value: float) -> str:
    """A coordinate as short text: ``12``, ``12.5``."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


class SvgDrawing:
    """One SVG drawing: ``str()`` gives the ``<svg>`` text, and Jupyter shows it (``_repr_svg_``).

    Args:
        svg: The ``<svg>`` element's text.
    """

    def __init__(self, svg: str) -> None:
        self.svg = svg

    def __str__(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"SvgDrawing({len(self.svg)} characters)"

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: Any) -> Any:
        """Writes the drawing to ``path`` (a ``.svg`` file, UTF-8) and returns the path as a ``pathlib.Path``."""
        import pathlib

        out = pathlib.Path(path)
        out.write_text(self.svg, encoding="utf-8")
        return out


class BoardSvg(BoardLayout):
    """Draws one game's positions as SVG (the geometry of :class:`~mancala_envs.rendering.scene.BoardLayout`).

    Args:
        game: The game.
        cell: Width of one pit's cell in SVG pixels, an int >= 48 (the drawing scales with it).

    Raises:
        ValueError: ``cell`` is not an int >= 48.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.rendering import BoardSvg
        >>> env = mancala_envs.make("ouril_v0")
        >>> env.reset(seed=0)
        >>> BoardSvg(env.unwrapped.game).draw(env.unwrapped.state_array).startswith("<svg")
        True
    """

    def __init__(self, game: Game, cell: int = 88) -> None:
        super().__init__(game, cell)
        self._background_svg: str | None = None  # the same for every position: drawn once

    # --- public -------------------------------------------------------------------------------------------------
    def draw(self, state: np.ndarray, last_move: dict[str, Any] | None = None, *, highlight: Iterable[int] = ()) -> str:
        """The SVG of ``state`` with ``last_move`` drawn and the pits of ``highlight`` ringed green.

        Args:
            state: An engine state of this game (``env.unwrapped.state_array``); checked with
                ``game.check_state`` before anything reads it, never changed.
            last_move: ``{"player", "action", "sown", "captures"}`` as in the env's infos, or None.
            highlight: Global pits to mark ``legal`` (e.g. the pits the player to move may play).

        Returns:
            One ``<svg>`` element (see the module's docstring for its classes and data attributes).

        Raises:
            TypeError: ``state`` is not a state array of this game.
            ValueError: ``state`` is one no game reaches, or ``highlight`` holds something that is not a pit
                of this game (the message names it and the pits' range).
        """
        return self.draw_scene(Scene.of(self.game, state, last_move), highlight=highlight)

    def draw_scene(self, scene: Scene, *, highlight: Iterable[int] = ()) -> str:
        """Like :meth:`draw`, from a scene already made (``Scene.of(game, state, last_move)``), for a caller that
        also reads the scene's words (the HTML replay's captions) and so builds it once.

        Raises:
            ValueError: ``highlight`` holds something that is not a pit of this game.
        """
        return self._svg(scene, self._check_highlight(highlight))

    def drawing(
        self, state: np.ndarray, last_move: dict[str, Any] | None = None, *, highlight: Iterable[int] = ()
    ) -> SvgDrawing:
        """Like :meth:`draw`, as an :class:`SvgDrawing` (which Jupyter shows)."""
        return SvgDrawing(self.draw(state, last_move, highlight=highlight))

    # --- checks ---------------------------------------------------------------------------------------------------
    def _check_highlight(self, highlight: Iterable[int]) -> frozenset[int]:
        n_pits = self.game.n_pits
        if isinstance(highlight, (str, bytes)) or not isinstance(highlight, Iterable):
            raise ValueError(
                f"highlight must be an iterable of pits (ints in 0..{n_pits - 1}), got {highlight!r}; "
                "pass e.g. highlight=[0, 3]."
            )
        pits = []
        for pit in highlight:
            if (
                isinstance(pit, (bool, np.bool_))
                or not isinstance(pit, (int, np.integer))
                or not 0 <= int(pit) < n_pits
            ):
                raise ValueError(
                    f"highlight holds {pit!r}, which is not a pit of {self.game.name}: "
                    f"pass global pit numbers, ints in 0..{n_pits - 1}."
                )
            pits.append(int(pit))
        return frozenset(pits)

    # --- painting -------------------------------------------------------------------------------------------------
    def _text(  # a run of spaces is kept by no-break spaces (HTML collapses runs, even in an <svg>)
        self,
        words: str,
        x: float,
        y: float,
        size: int,
        colour: tuple[int, int, int],
        *,
        anchor: str = "middle",
        cls: str = "",
        extra: str = "",
        room: float | None = None,
    ) -> str:
        """A ``<text>`` centred vertically on ``y``; squeezed to ``room`` pixels if it would not fit."""
        font = size * FONT_SCALE
        fit = ""
        if room is not None and len(words) * font * CHAR_WIDTH > room:
            fit = f' textLength="{_num(room)}" lengthAdjust="spacingAndGlyphs"'
        klass = f" class={quoteattr(cls)}" if cls else ""
        aligned = "" if anchor == "middle" else f' text-anchor="{anchor}"'  # middle: the root's
        return (
            f'<text{klass}{extra} x="{_num(x)}" y="{_num(y)}" font-size="{_num(font)}" fill="{_hex(colour)}"'
            f"{aligned}{fit}>{escape(words.replace('  ', NO_BREAK_RUN))}</text>"
        )

    def _header_line(self, words: str, top: int, size: int, colour: tuple[int, int, int], cls: str) -> str:
        """One line of the header (the status, the caption), from the left margin, squeezed to the header's width."""
        y = top + size * FONT_SCALE * 0.6
        return self._text(words, self.margin, y, size, colour, anchor="start", cls=cls, room=self.text_room)

    def _ring(self, centre: tuple[int, int], radius: float, colour: tuple[int, int, int], width: int, cls: str) -> str:
        return (
            f'<circle class="ring {cls}" cx="{centre[0]}" cy="{centre[1]}" r="{_num(radius - width / 2)}" '
            f'fill="none" stroke="{_hex(colour)}" stroke-width="{width}"/>'
        )

    def _badge(self, centre: tuple[int, int], words: str, colour: tuple[int, int, int], left: bool, data: str) -> str:
        kind = "captured" if left else "sown"
        x, y = self.badge_centre(centre, left)
        font = self.badge_size * FONT_SCALE
        width = len(words) * font * CHAR_WIDTH + 10
        height = font + 6
        return (
            f'<g class="badge {kind}" {data}><rect x="{_num(x - width / 2)}" y="{_num(y - height / 2)}" '
            f'width="{_num(width)}" height="{_num(height)}" rx="{_num(height / 2)}" fill="{_hex(colour)}"/>'
            + self._text(words, x, y, self.badge_size, (255, 255, 255))
            + "</g>"
        )

    def _svg(self, scene: Scene, marked: frozenset[int]) -> str:
        game = self.game
        parts: list[str] = []
        to_move = "" if scene.to_move is None else str(scene.to_move)
        parts.append(
            f'<svg xmlns="http://www.w3.org/2000/svg" class="mancala-board" viewBox="0 0 {self.width} {self.height}" '
            f'width="{self.width}" height="{self.height}" data-game={quoteattr(game.name)} data-ply="{scene.ply}" '
            f'data-to-move="{to_move}" font-family={quoteattr(FONT_FAMILY)} '
            'text-anchor="middle" dominant-baseline="central">'
        )
        parts.append(STYLE)
        if self._background_svg is None:
            self._background_svg = "".join(self._background())
        parts.append(self._background_svg)
        # the bowls and their seeds
        for pit, (cx, cy) in self.centres.items():
            if pit in scene.closed:
                d = self.radius * 0.55
                parts.append(
                    f'<circle cx="{cx}" cy="{cy}" r="{self.radius}" fill="{_hex(palette.CLOSED)}"/>'
                    f'<path d="M{_num(cx - d)} {_num(cy - d)}L{_num(cx + d)} {_num(cy + d)}'
                    f'M{_num(cx - d)} {_num(cy + d)}L{_num(cx + d)} {_num(cy - d)}" '
                    f'stroke="{_hex(palette.BOWL_SHADE)}" stroke-width="4"/>'
                )
                continue
            parts.append(
                f'<circle class="bowl" cx="{cx}" cy="{cy}" r="{self.radius}"/>'
                f'<circle class="bowl-in" cx="{cx}" cy="{cy + 2}" r="{self.radius - 3}"/>'
            )
            dot = self.seed_radius
            for x, y in self.seed_dots((cx, cy), scene.board[pit]):
                parts.append(
                    f'<circle class="seed" cx="{_num(x)}" cy="{_num(y)}" r="{dot}"/>'
                    f'<circle class="shine" cx="{_num(x - dot / 3)}" cy="{_num(y - dot / 3)}" r="{max(1, dot // 3)}"/>'
                )
        # the sowing path, under the counts
        if scene.played is not None or scene.sown_order:
            points = self.path_points(scene.played, list(scene.sown_order))
            if len(points) >= 2:
                line = " ".join(f"{x},{y}" for x, y in points)
                head = " ".join(f"{_num(x)},{_num(y)}" for x, y in self.arrow_head(points))
                parts.append(
                    f'<g pointer-events="none"><polyline class="path" points="{line}" fill="none" '
                    f'stroke="{_hex(palette.PATH)}" stroke-opacity="0.59" stroke-width="{self.path_width}" '
                    'stroke-linejoin="round"/>'
                    f'<polygon class="arrow" points="{head}" fill="{_hex(palette.PATH)}" fill-opacity="0.86"/></g>'
                )
        # the pits: counts, rings, badges
        for pit, centre in self.centres.items():
            parts.append(self._pit(scene, pit, centre, pit in marked))
        parts.extend(self._stores(scene))
        parts.extend(self._names(scene))
        parts.append(self._header_line(scene.status, self.status_top, self.status_size, palette.INK, "status"))
        if scene.caption is not None:
            parts.append(
                self._header_line(scene.caption, self.caption_top, self.caption_size, palette.FAINT_INK, "caption")
            )
        parts.append("</svg>")
        return "".join(parts)

    def _background(self) -> list[str]:
        _, y, w, h = self.board_rect
        x = self.board_x
        parts = [
            f'<rect width="{self.width}" height="{self.height}" fill="{_hex(palette.BACKGROUND)}"/>',
            f'<rect x="{x + 1.5}" y="{y + 1.5}" width="{w - 3}" height="{h - 3}" rx="{self.cell // 3}" '
            f'fill="{_hex(palette.WOOD)}" stroke="{_hex(palette.WOOD_EDGE)}" stroke-width="3"/>',
        ]
        if len(self.rows) == 4:  # Omweso: a line between the two players' halves
            middle = self.omweso_divider_y
            parts.append(
                f'<line x1="{x + 12}" y1="{middle}" x2="{x + w - 12}" y2="{middle}" '
                f'stroke="{_hex(palette.WOOD_EDGE)}" stroke-width="3"/>'
            )
        # the legend, right to left
        anchor_x, centre_y = self.legend_anchor()
        right: float = anchor_x
        dot = self.legend_dot
        font = self.small_size * FONT_SCALE
        legend = ['<g class="legend">']
        for words, colour, kind in LEGEND:
            legend.append(self._text(words, right, centre_y, self.small_size, palette.FAINT_INK, anchor="end"))
            right -= len(words) * font * CHAR_WIDTH
            right -= dot + 6
            if kind == "ring":
                legend.append(
                    f'<circle cx="{_num(right)}" cy="{centre_y}" r="{dot - 1.5}" fill="none" '
                    f'stroke="{_hex(colour)}" stroke-width="3"/>'
                )
            else:
                legend.append(
                    f'<line x1="{_num(right - dot)}" y1="{centre_y}" x2="{_num(right + dot)}" y2="{centre_y}" '
                    f'stroke="{_hex(colour)}" stroke-width="3"/>'
                )
            right -= dot + 14
        legend.append("</g>")
        parts.extend(legend)
        for pit in self.centres:
            x, y = self.label_centre(pit)
            parts.append(self._text(self.game.pit_label(pit), x, y, self.small_size, palette.LABEL, cls="label"))
        return parts

    def _pit(self, scene: Scene, pit: int, centre: tuple[int, int], legal: bool) -> str:
        seeds = scene.board[pit]
        classes = ["pit"]
        if legal:
            classes.append("legal")
        if pit == scene.played:
            classes.append("played")
        if pit in scene.captured:
            classes.append("captured")
        if pit in scene.closed:
            classes.append("closed")
        if pit == scene.pending_pit:
            classes.append("pending")
        cx, cy = centre
        out = [
            f'<g class="{" ".join(classes)}" data-pit="{pit}" data-seeds="{seeds}">'
            f'<circle class="hit" cx="{cx}" cy="{cy}" r="{self.radius}"/>'
        ]
        # every count is written (the hooks' contract); a zero is faint, a closed pit's hidden in its dark bowl
        colour = palette.CLOSED if pit in scene.closed else palette.BOWL_SHADE if seeds == 0 else palette.INK
        out.append(self._text(str(seeds), cx, cy, self.count_size, colour, cls="count"))
        if legal:
            out.append(self._ring(centre, self.radius + 3, palette.LEGAL, 4, "legal"))
        if pit == scene.played:
            out.append(self._ring(centre, self.radius + 3, palette.PLAYED, 5, "played"))
        if pit in scene.captured:
            grow = 8 if pit == scene.played else 3
            out.append(self._ring(centre, self.radius + grow, palette.CAPTURED, 5, "captured"))
            out.append(self._badge(centre, f"-{scene.captured[pit]}", palette.CAPTURED, True, f'data-pit="{pit}"'))
        if scene.sown.get(pit):
            out.append(self._badge(centre, f"+{scene.sown[pit]}", palette.PATH, False, f'data-pit="{pit}"'))
        if pit == scene.pending_pit:
            out.append(self._ring(centre, self.radius + 7, palette.PENDING, 4, "pending"))
        out.append("</g>")
        return "".join(out)

    def _stores(self, scene: Scene) -> list[str]:
        parts = []
        n_pits = self.game.n_pits
        for player, (x, y, w, h) in self.store_rects.items():
            seeds = scene.stores[player]
            cx, cy = x + w / 2, y + h / 2
            parts.append(
                f'<g class="store" data-player="{player}" data-seeds="{seeds}">'
                f'<rect x="{x + 1.5}" y="{y + 1.5}" width="{w - 3}" height="{h - 3}" rx="{w // 2}" '
                f'fill="{_hex(palette.BOWL_SHADE)}" stroke="{_hex(PLAYER_COLOURS[player])}" stroke-width="3"/>'
                + self._text(str(seeds), cx, cy, self.store_size, palette.INK, cls="count")
                + "</g>"
            )
            sown = scene.sown.get(n_pits + player)
            if sown:
                centre = self.store_centres[n_pits + player]
                parts.append(self._badge(centre, f"+{sown}", palette.PATH, False, f'data-store="{player}"'))
        return parts

    def _names(self, scene: Scene) -> list[str]:
        parts = []
        for player in (1, 0):
            x, y = self.name_anchor(player)
            colour = PLAYER_COLOURS[player]
            extra = f' data-player="{player}" data-seeds="{scene.stores[player]}"'
            parts.append(
                self._text(scene.names[player], x, y, self.name_size, colour, anchor="start", cls="name", extra=extra)
            )
            if scene.to_move == player:
                tip = x - 8
                parts.append(
                    f'<polygon class="to-move" data-player="{player}" '
                    f'points="{tip},{y} {tip - 12},{y - 8} {tip - 12},{y + 8}" fill="{_hex(colour)}"/>'
                )
        return parts


def svg_of(
    game: Game,
    state: np.ndarray,
    last_move: dict[str, Any] | None = None,
    *,
    highlight: Iterable[int] = (),
    cell: int = 88,
) -> SvgDrawing:
    """The drawing of one position (Jupyter shows it; ``str()`` gives the SVG text).

    Args:
        game: The game.
        state: An engine state of ``game`` (checked, never changed).
        last_move: The move that led to ``state`` (the env's ``last_move``), or None.
        highlight: Global pits to ring green (class ``legal``).
        cell: Width of a pit's cell in SVG pixels, an int >= 48.

    Raises:
        TypeError, ValueError: As :meth:`BoardSvg.draw` and :class:`BoardSvg`.
    """
    return BoardSvg(game, cell).drawing(state, last_move, highlight=highlight)
