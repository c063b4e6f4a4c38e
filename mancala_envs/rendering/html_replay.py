"""Self-contained HTML replays: one file that plays one game, or a picker over many, in any browser.

The page is built from boards already drawn in Python (one :class:`~mancala_envs.rendering.svg.BoardSvg` drawing
per ply: the browser draws nothing itself) and the page's own script and style
(``mancala_envs/rendering/static/replay.js`` and ``replay.css``, package data), all inlined: the file needs no
network, no CDN and no other file. Each game's frames are stored gzip-compressed (base64 in the page's JSON): a
ply's SVG takes about 10 kB, compressed about 0.4 kB, so a page of many games stays small; the browser unpacks a
game when it is shown (``DecompressionStream``: Chrome/Edge 80+, Firefox 113+, Safari 16.4+).

The page shows the board of the chosen ply, play/pause, a step back and forward, first and last, a ply slider
(``<input type="range" id="ply">``), the move list (a click jumps there), the facts of the shown ply (scores, ply,
player to move, end reason, winner...) and, with several games, a game picker (``<select id="game">``). Keys:
left/right arrows step, Home/End jump, space plays or pauses.

This module knows nothing of environments or records: :mod:`mancala_envs.envs.records` replays a record into a
:class:`ReplayGame` (``GameRecord.to_html``, ``write_html``, ``write_animation(record, "game.html")``) and
:func:`mancala_envs.analysis.tournament.write_tournament_html` puts a tournament's games on one page.

Hooks for programs and tests: ``document.body.dataset.ready`` is ``"true"`` once the shown game is unpacked (and
``"false"`` while a game is being unpacked), ``dataset.ply`` and ``dataset.game`` say what is shown; the shown
board is the ``<svg>`` inside ``<div id="board">``; ``#moves li[data-ply]``; ``#infos`` (a ``<dl>``, each
``<dt>`` a fact's name, its ``<dd>`` the value); buttons ``#first``, ``#back``, ``#play``, ``#forward``,
``#last``.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

__all__ = ["DEFAULT_FPS", "ReplayFrame", "ReplayGame", "pack_frames", "replay_page", "static_text"]

#: the positions per second the play button shows, by default
DEFAULT_FPS = 2


@dataclass(frozen=True)
class ReplayFrame:
    """One ply of a replay.

    Attributes:
        svg: The board's ``<svg>`` element (from :class:`~mancala_envs.rendering.svg.BoardSvg`).
        facts: What the infos panel shows for this ply, JSON values by name (``{"ply": 3, "scores": [2, 0]}``).
        move: The move that led here in a few words (``"player_0 sowed pit 5"``), or None for the start.
    """

    svg: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    move: str | None = None


@dataclass(frozen=True)
class ReplayGame:
    """One game of a replay page.

    Attributes:
        title: The game's name on the page (and in the picker).
        frames: The start, then the position after each move.
        details: What is said once about the game (players, seed, result...), JSON values by name.
    """

    title: str
    frames: Sequence[ReplayFrame]
    details: Mapping[str, Any] = field(default_factory=dict)


def static_text(name: str) -> str:
    """The text of one of the page's static files (``replay.js``, ``replay.css``), from the package data."""
    return resources.files("mancala_envs.rendering").joinpath("static").joinpath(name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def pack_frames(frames: Sequence[ReplayFrame]) -> str:
    """A game's frames as the page stores them: the JSON list of ``{svg, facts, move}``, gzip-compressed (with no
    time stamp, so the same game gives the same page), in base64."""
    plain = [{"svg": frame.svg, "facts": dict(frame.facts), "move": frame.move} for frame in frames]
    packed = gzip.compress(json.dumps(plain, separators=(",", ":")).encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _check_games(games: Any) -> list[ReplayGame]:
    if isinstance(games, ReplayGame):
        return [games]
    if isinstance(games, (str, bytes)) or not isinstance(games, Sequence) or not games:
        raise ValueError(f"games must be a ReplayGame or a non-empty list of them (got {games!r:.80}).")
    for index, game in enumerate(games):
        if not isinstance(game, ReplayGame):
            raise ValueError(f"games[{index}] is a {type(game).__name__}, not a ReplayGame.")
        if not game.frames:
            raise ValueError(f"games[{index}] ({game.title!r}) has no frames; a replay needs at least the start.")
    return list(games)


def replay_page(games: ReplayGame | Sequence[ReplayGame], *, title: str | None = None, fps: int = DEFAULT_FPS) -> str:
    """The HTML replay page of one game or several (then with a game picker), as one self-contained document.

    Args:
        games: A :class:`ReplayGame` or a non-empty list of them.
        title: The page's title; the (first) game's title by default.
        fps: Plies per second while playing, an int from 1 to 60.

    Returns:
        The whole ``<!DOCTYPE html>`` document.

    Raises:
        ValueError: no games, something that is not a :class:`ReplayGame`, a game without frames, or a bad ``fps``.
    """
    chosen = _check_games(games)
    if isinstance(fps, bool) or not isinstance(fps, int) or not 1 <= fps <= 60:
        raise ValueError(f"fps must be an int from 1 to 60 plies per second (got {fps!r}).")
    page_title = title if title is not None else chosen[0].title
    data = {
        "fps": fps,
        "games": [
            {
                "title": game.title,
                "details": dict(game.details),
                "plies": len(game.frames) - 1,
                "frames": pack_frames(game.frames),
            }
            for game in chosen
        ],
    }
    picker = ""
    if len(chosen) > 1:
        options = "".join(
            f'<option value="{index}">{html.escape(game.title)}</option>' for index, game in enumerate(chosen)
        )
        picker = f'<label class="picker">game <select id="game">{options}</select></label>'
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(page_title)}</title>"
        f"<style>{static_text('replay.css')}</style></head>\n"
        '<body data-ply="0" data-game="0" data-ready="false">'
        f'<header><h1 id="title">{html.escape(page_title)}</h1>{picker}<p id="details"></p></header>'
        '<main><section class="stage"><div id="board"></div>'
        '<nav class="controls">'
        '<button id="first" title="first ply (Home)">|&#x25C0;</button>'
        '<button id="back" title="step back (left arrow)">&#x25C0;</button>'
        '<button id="play" title="play / pause (space)">play</button>'
        '<button id="forward" title="step forward (right arrow)">&#x25B6;</button>'
        '<button id="last" title="last ply (End)">&#x25B6;|</button>'
        '<input type="range" id="ply" min="0" max="0" value="0" aria-label="ply">'
        '<output id="ply-label">0 / 0</output></nav>'
        '<dl id="infos"></dl></section>'
        '<aside><h2>moves</h2><ol id="moves" start="0"></ol></aside></main>\n'
        f'<script type="application/json" id="replay-data">{_script_json(data)}</script>\n'
        f"<script>{static_text('replay.js')}</script>\n"
        "</body></html>\n"
    )
