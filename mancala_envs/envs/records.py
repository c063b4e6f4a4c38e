"""Game records: a played game as JSON (the start position and the moves), its replay and its animation.

A :class:`GameRecord` holds everything needed to play a game again: the environment id and the
game's whole config, the start position in the position notation (``env.position()``), the moves
(who played which action, with the move in words) and the result. The recorder wrappers
(:class:`mancala_envs.wrappers.RecordGames` for AEC envs, :class:`mancala_envs.wrappers.GymRecordGames`
for the single-agent env) write one per game; ``mancala-envs demo --record game.json`` writes the demo's.

:func:`replay` rebuilds the environment and steps the moves, yielding it after the start and after
each move; :func:`write_animation` renders those positions with ``render_mode="rgb_array"`` into a
GIF, an MP4 or PNG frames (``mancala-envs replay game.json --out game.gif``), or, for ``.html``, writes
the self-contained HTML replay (:func:`write_html`: one SVG board per ply, play/pause, a ply slider, the
moves and the facts; ``GameRecord.to_html()``; Jupyter shows a record as that replay). See ``docs/replay.md``.

Example:
    >>> import mancala_envs
    >>> from mancala_envs.envs.records import GameRecord, replay
    >>> record = GameRecord(
    ...     env="mancala/ouril-v0",
    ...     options={},
    ...     start="4,4,4,4,4,4/4,4,4,4,4,4 0,0 0",
    ...     moves=[{"player": 0, "action": 5}, {"player": 1, "action": 0}],
    ... )
    >>> *_, env = replay(record)
    >>> env.position()
    '4,4,4,4,4,0/0,6,6,6,5,5 0,0 0'
"""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import math
import os
import pathlib
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from mancala_envs.common.files import atomic_write, check_destination, json_plain, read_json_bounded
from mancala_envs.engine.state import END_REASON_NAMES, OK
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.envs.registration import make, make_game, variant_of
from mancala_envs.games import game_classes
from mancala_envs.games.game import Game
from mancala_envs.rendering.html_replay import DEFAULT_FPS, ReplayFrame, ReplayGame, replay_page
from mancala_envs.rendering.scene import Scene
from mancala_envs.rendering.svg import BoardSvg

__all__ = [
    "MAX_FPS",
    "MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "RESULT_KEYS",
    "GameRecord",
    "replay",
    "replay_game",
    "write_animation",
    "write_html",
]

#: the ``format`` entry of every record; a new layout gets a new number
RECORD_FORMAT = "mancala-envs-game-1"
#: The largest game record :meth:`GameRecord.load` reads (a record takes about 60 bytes a move).
MAX_RECORD_BYTES = 64 * 2**20
#: the most positions per second an animation shows (a frame lasts at least 1/60 s)
MAX_FPS = 60
#: the entries of a record's ``result``: the final infos' facts that a replay must reproduce
RESULT_KEYS = ("winner", "scores", "match_points", "end_reason")
RENDER_EXTRA = "pip install 'mancala-envs[render]'"

_AGENTS = ("player_0", "player_1")
_END_REASONS = frozenset(
    name for cls in game_classes() for name in {**END_REASON_NAMES, **cls.end_reasons}.values() if name is not None
)
_FIELDS = ("format", "env", "options", "start", "moves", "result", "players", "seed")
_MOVE_KEYS = frozenset({"player", "action", "move", "illegal"})
_JSON_SCALARS = (str, int, float, bool, type(None))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bad(field: str, should: str, value: Any) -> ValueError:
    """The error for a malformed record field: names it, says what it should be and shows what it is."""
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return ValueError(f"game record field {field!r} must be {should} (got {shown}).")


def _is_json_scalar(value: Any) -> bool:
    return isinstance(value, _JSON_SCALARS) and (not isinstance(value, float) or math.isfinite(value))


def _is_json_value(value: Any) -> bool:
    """Whether ``value`` is what a game option can be: a JSON scalar or a flat list of them.

    No option holds lists of lists, so a nested list is refused at once (and however deep it is,
    without recursing into it).
    """
    if isinstance(value, list):
        return all(_is_json_scalar(item) for item in value)
    return _is_json_scalar(value)


def _env_id(game: Game) -> str:
    """The registry id of the variant whose config is ``game``'s (the game name if none is)."""
    variant = variant_of(game)
    return game.env_name if variant is None else variant.id


def _opening_player(game: Game, start: str) -> int | None:
    """The first player whose fresh opening has the notation ``start``, or None (a loaded position)."""
    player = game.parse_position(start)["player"]
    return player if game.position_string(game.new_state(player)) == start else None


@dataclasses.dataclass
class GameRecord:
    """One played game (or match): enough to replay it exactly.

    Attributes:
        env: A registry id or game name that :func:`mancala_envs.make` accepts (``"mancala/ouril-v0"``).
        options: The game's whole config as JSON values, so that ``mancala_envs.make(env, **options)``
            builds the same game (``dataclasses.asdict(env.unwrapped.game.config)``, tuples as lists).
        start: The start position in the position notation (``env.position()`` before the first move),
            which ``reset(options={"position": start})`` loads. A start equal to the game's opening is
            replayed from a fresh ``reset()`` with that first player.
        moves: The plies in order, each ``{"player": 0 or 1, "action": int}``, with ``"move"``, the
            move in words (``"sows pit 3"``), where known. A final illegal action under
            ``illegal_action="penalty"`` is kept with ``"illegal": True``; the result then says
            ``end_reason == "illegal_action"``.
        result: The final infos' ``winner`` (0, 1 or None for a draw), ``scores``, ``match_points``
            and ``end_reason``; None for a game that was not finished.
        players: Optional names of the players (``["random", "greedy"]``).
        seed: Optional seed of the reset that started the game.

    Raises:
        ValueError: a field of the wrong shape; the message names it and says what it should be.
    """

    env: str
    options: dict[str, Any]
    start: str
    moves: list[dict[str, Any]]
    result: dict[str, Any] | None = None
    players: list[str] | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.env, str) or not self.env:
            raise _bad("env", "an environment id such as 'mancala/ouril-v0'", self.env)
        if not isinstance(self.options, Mapping) or not all(isinstance(key, str) for key in self.options):
            raise _bad("options", 'an object of game options such as {"pits_per_row": 6}', self.options)
        for key, value in self.options.items():
            if isinstance(value, (list, tuple)) and any(isinstance(item, (list, tuple)) for item in value):
                raise _bad(
                    f"options.{key}",
                    "a JSON value (a number, string, boolean, null or a flat list of them)",
                    "a nested list",
                )
            if not _is_json_value(json_plain(value)):
                raise _bad(
                    f"options.{key}", "a JSON value (a number, string, boolean, null or a flat list of them)", value
                )
        self.options = {key: json_plain(value) for key, value in self.options.items()}
        if not isinstance(self.start, str):
            raise _bad(
                "start",
                "a position in the notation of env.position(), such as '4,4,4,4,4,4/4,4,4,4,4,4 0,0 0'",
                self.start,
            )
        self._check_moves()
        self._check_result()
        if self.players is not None:
            names = self.players
            if (
                isinstance(names, str)
                or not isinstance(names, Sequence)
                or len(names) != 2
                or not all(isinstance(name, str) for name in names)
            ):
                raise _bad("players", "null or a list of two names, one per player", self.players)
            self.players = list(self.players)
        if self.seed is not None and (not _is_int(self.seed) or self.seed < 0):
            raise _bad("seed", "null or an integer >= 0", self.seed)

    def _check_moves(self) -> None:
        if not isinstance(self.moves, list):
            raise _bad("moves", 'a list of moves such as [{"player": 0, "action": 3}]', self.moves)
        for number, move in enumerate(self.moves, start=1):
            field = f"moves[{number - 1}]"
            if not isinstance(move, Mapping) or not {"player", "action"} <= set(move) or not set(move) <= _MOVE_KEYS:
                raise _bad(field, "an object with 'player' and 'action' (and optionally 'move', 'illegal')", move)
            if move["player"] not in (0, 1) or not _is_int(move["player"]):
                raise _bad(f"{field}.player", "0 or 1", move["player"])
            if not _is_int(move["action"]) or move["action"] < 0:
                raise _bad(f"{field}.action", "an integer >= 0", move["action"])
            if "move" in move and not isinstance(move["move"], str):
                raise _bad(f"{field}.move", "the move in words, a string", move["move"])
            if "illegal" in move:
                if move["illegal"] is not True:
                    raise _bad(f"{field}.illegal", "true (leave it out for a legal move)", move["illegal"])
                if number != len(self.moves):
                    raise _bad(f"{field}.illegal", "only on the last move (an illegal action ends the game)", True)
        self.moves = [dict(move) for move in self.moves]

    def _check_result(self) -> None:
        result = self.result
        if result is None:
            if self.moves and self.moves[-1].get("illegal"):
                raise _bad("result", "an object with end_reason 'illegal_action' after an illegal last move", None)
            return
        if not isinstance(result, Mapping) or set(result) != set(RESULT_KEYS):
            raise _bad("result", f"null or an object with exactly the keys {list(RESULT_KEYS)}", result)
        if result["winner"] is not None and (not _is_int(result["winner"]) or result["winner"] not in (0, 1)):
            raise _bad("result.winner", "0, 1 or null (a draw)", result["winner"])
        for key in ("scores", "match_points"):
            value = result[key]
            if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(_is_int(v) and v >= 0 for v in value):
                raise _bad(f"result.{key}", "a list of two integers >= 0", value)
        if result["end_reason"] not in _END_REASONS:
            raise _bad("result.end_reason", f"one of {sorted(_END_REASONS)}", result["end_reason"])
        illegal_end = result["end_reason"] == "illegal_action"
        if illegal_end != bool(self.moves and self.moves[-1].get("illegal")):
            raise _bad(
                "result.end_reason",
                "'illegal_action' exactly when the last move is marked illegal",
                result["end_reason"],
            )
        ordered = {key: result[key] for key in RESULT_KEYS}
        self.result = {key: list(value) if isinstance(value, tuple) else value for key, value in ordered.items()}

    # --- building --------------------------------------------------------------------------------
    @classmethod
    def from_plies(
        cls,
        game: Game,
        start_state: np.ndarray,
        plies: Sequence[tuple[int, int, bool]],
        final_info: Mapping[str, Any] | None,
        players: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> GameRecord:
        """The record of a game played from ``start_state`` (what the recorder wrappers call).

        Args:
            game: The game (``env.unwrapped.game``).
            start_state: The engine state before the first ply (``env.unwrapped.state_array``).
            plies: ``(player, action, illegal)`` for every ply, in order; only the last may be illegal.
            final_info: The final facts of the game (``env.facts()``), or None if it is not over.
            players: Optional player names.
            seed: Optional seed of the reset.

        Returns:
            The record, with every move described in words.
        """
        state = np.array(start_state, dtype=np.int64)
        no_trace = np.zeros(0, dtype=np.int64)
        moves: list[dict[str, Any]] = []
        for number, (player, action, illegal) in enumerate(plies, start=1):
            move: dict[str, Any] = {"player": int(player), "action": int(action)}
            if illegal:
                move["move"] = f"illegal action {int(action)}"
                move["illegal"] = True
            else:
                move["move"] = game.describe_action(state, int(action))
                if game.step(state, int(action), no_trace) != OK:
                    raise RuntimeError(f"ply {number} (player {player}, action {action}) did not replay on the engine.")
            moves.append(move)
        result = None if final_info is None else {key: json_plain(final_info[key]) for key in RESULT_KEYS}
        return cls(
            env=_env_id(game),
            options=dataclasses.asdict(game.config),
            start=game.position_string(np.asarray(start_state)),
            moves=moves,
            result=result,
            players=None if players is None else list(players),
            seed=seed,
        )

    # --- JSON ----------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-serialisable dict (``format`` first)."""
        return {
            "format": RECORD_FORMAT,
            "env": self.env,
            "options": dict(self.options),
            "start": self.start,
            "moves": copy.deepcopy(self.moves),
            "result": copy.deepcopy(self.result),
            "players": None if self.players is None else list(self.players),
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Reads a record from the dict :meth:`to_dict` gives (or ``json.load`` of a saved file).

        Beyond the shape of each field, checks that ``env`` and ``options`` build a game, that
        ``start`` is a valid position of that game and that every action is in its range. Whether
        the moves are legal is checked by :func:`replay`.

        Raises:
            ValueError: the data is not a record of this format, or a field is malformed; the message
                names the field and says what it should be.
        """
        if not isinstance(data, Mapping):  # a file's content, so a ValueError like every other malformed part
            raise ValueError(
                f"a game record must be a JSON object with the keys {list(_FIELDS)} (got {type(data).__name__})."
            )
        if data.get("format") != RECORD_FORMAT:
            raise _bad("format", repr(RECORD_FORMAT), data.get("format"))
        missing = [key for key in ("env", "options", "start", "moves") if key not in data]
        if missing:
            raise ValueError(f"game record has no field {missing[0]!r}; a record has the fields {list(_FIELDS)}.")
        unknown = sorted(set(data) - set(_FIELDS), key=str)
        if unknown:
            raise ValueError(
                f"game record has an unknown field {unknown[0]!r}; a record has the fields {list(_FIELDS)}."
            )
        record = cls(**{key: data[key] for key in _FIELDS[1:] if key in data})
        env = record.make_env()
        game = env.game
        try:
            game.load_position(np.zeros(game.state_size, dtype=np.int64), **game.parse_position(record.start))
        except (TypeError, ValueError) as error:
            raise ValueError(f"game record field 'start' is not a position of {game.env_name}: {error}") from None
        for number, move in enumerate(record.moves):
            if move["action"] >= game.n_actions:
                should = f"an action of {game.env_name}, 0..{game.n_actions - 1}"
                raise _bad(f"moves[{number}].action", should, move["action"])
        return record

    def to_json(self) -> str:
        """The record as JSON text, one move per line."""
        data = self.to_dict()
        lines = []
        for key, value in data.items():
            if key == "moves" and value:
                items = ",\n".join(f"    {json.dumps(move)}" for move in value)
                lines.append(f'  "moves": [\n{items}\n  ]')
            else:
                lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
        return "{\n" + ",\n".join(lines) + "\n}\n"

    def save(self, path: str | os.PathLike[str]) -> pathlib.Path:
        """Writes the record as JSON to ``path`` (its directory must exist), atomically (a temporary file in
        the folder, then renamed over ``path``); returns the path."""
        path = pathlib.Path(path)
        atomic_write(path, self.to_json().encode("utf-8"))
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> GameRecord:
        """Reads a record saved by :meth:`save` (or by a recorder wrapper).

        Raises:
            FileNotFoundError / OSError: the file cannot be opened.
            ValueError: it is not a regular file (a folder, a FIFO, a device such as ``/dev/zero``), it is larger
                than :data:`MAX_RECORD_BYTES`, it is not UTF-8 JSON or is nested more deeply than a record
                (:data:`mancala_envs.common.files.JSON_MAX_DEPTH`), or it is not a valid record (see :meth:`from_dict`).
        """
        data = read_json_bounded(path, MAX_RECORD_BYTES, "the game record", ValueError, expected="a JSON game record")
        return cls.from_dict(data)

    def to_html(self, fps: int = DEFAULT_FPS) -> str:
        """The game's self-contained HTML replay page (see :func:`write_html`), as text.

        Raises:
            ValueError: the record does not replay (see :func:`replay`), or a bad ``fps``.
        """
        return replay_page(replay_game(self), fps=fps)

    def _repr_html_(self) -> str:
        """Jupyter shows a record as its replay page, in an iframe (the page's own script runs inside it)."""
        page = html.escape(self.to_html(), quote=True)
        return f'<iframe srcdoc="{page}" style="width: 100%; height: 640px; border: 0;"></iframe>'

    def make_env(self, **env_options: Any) -> MancalaEnv:
        """Builds the record's environment: ``mancala_envs.make(env, **options, **env_options)``.

        Args:
            **env_options: Environment options (``render_mode``, ``first_player``, ``illegal_action``...).

        Raises:
            ValueError: ``env`` is not a registered id, or ``options`` are not options of its game (the
                message names the field: environment options such as ``render_mode`` or ``reward_mode``
                are not part of a record); an environment option's own error otherwise.
        """
        self.check_game()
        return make(self.env, **self.options, **env_options)

    def check_game(self) -> None:
        """Checks that ``env`` is a registered id and ``options`` are options of its game.

        Raises:
            ValueError: the message names the field that is wrong.
        """
        try:
            make_game(self.env)
        except (TypeError, ValueError) as error:
            raise ValueError(f"game record field 'env' is not a registered environment: {error}") from None
        try:
            make_game(self.env, **self.options)
        except (TypeError, ValueError) as error:
            raise ValueError(f"game record field 'options' does not configure {self.env}: {error}") from None


def _as_record(record: Any) -> GameRecord:
    if isinstance(record, GameRecord):
        return record
    if isinstance(record, (str, os.PathLike)):
        return GameRecord.load(record)
    raise TypeError(f"record must be a GameRecord or the path of a saved one (got {type(record).__name__}).")


def _describe(move: Mapping[str, Any]) -> str:
    return f"move {move['number']} (player {move['player']}, action {move['action']})"


def replay(record: GameRecord | str | os.PathLike[str], render_mode: str | None = None) -> Iterator[MancalaEnv]:
    """Plays a recorded game again, yielding the environment after the start and after each move.

    The environment is rebuilt from the record (``env``, ``options``), reset to the start position
    and stepped with each move in turn. The same environment object is yielded every time (copy
    what you keep); ``render()`` shows the current position, with the last move highlighted in
    ``"rgb_array"`` mode. A final illegal action recorded under the penalty policy is played again
    under that policy (its warning is silenced), so the replay ends the same way.

    Args:
        record: A :class:`GameRecord` or the path of a saved one.
        render_mode: The environment's render mode (``None``, ``"ansi"``, ``"rgb_array"``...).

    Yields:
        The environment: first at the start, then after move 1, 2, ...

    Raises:
        ValueError: the record is malformed; move ``n`` is by the player not to move, is illegal in
            the replay (the message names the move and the legal actions), or comes after the game
            ended; or the replay ends otherwise than the record's ``result`` says.

    Example:
        >>> from mancala_envs.envs.records import GameRecord, replay
        >>> record = GameRecord("ouril_v0", {}, "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0", [{"player": 1, "action": 0}])
        >>> list(replay(record))
        Traceback (most recent call last):
        ...
        ValueError: move 1 (player 1, action 0) is by player_1, but player_0 is to move after the start.
    """
    record = _as_record(record)
    env = record.make_env(render_mode=render_mode, illegal_action="penalty")
    game = env.game
    try:
        opening_player = _opening_player(game, record.start)
        if opening_player is None:
            env.reset(options={"position": record.start})
        else:  # the game's own opening, exactly as a fresh game starts (first-move flags included)
            env.first_player = opening_player
            env.reset()
    except (TypeError, ValueError) as error:
        raise ValueError(f"game record field 'start' is not a position of {game.env_name}: {error}") from None
    yield env
    for number, entry in enumerate(record.moves, start=1):
        move = {**entry, "number": number}
        where = "after the start" if number == 1 else f"after move {number - 1}"
        agent = env.agent_selection
        if not env.agents or env.terminations[agent] or env.truncations[agent]:
            raise ValueError(
                f"{_describe(move)} comes after the end of the game (it ended {where}: "
                f"{env.facts()['end_reason']}); the record is inconsistent."
            )
        if _AGENTS[move["player"]] != agent:
            raise ValueError(f"{_describe(move)} is by {_AGENTS[move['player']]}, but {agent} is to move {where}.")
        action = move["action"]
        legal = np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
        if action >= game.n_actions:
            raise ValueError(f"{_describe(move)} is out of range; {game.env_name} has actions 0..{game.n_actions - 1}.")
        if move.get("illegal"):
            if action in legal:
                raise ValueError(f"{_describe(move)} is marked illegal, but it is legal {where} (legal: {legal}).")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # the penalty's warning: reproduced on purpose
                env.step(action)
        elif action not in legal:
            raise ValueError(f"{_describe(move)} is illegal in the replay {where}; the legal actions are {legal}.")
        else:
            env.step(action)
        yield env
    _check_result(record, env)


def _check_result(record: GameRecord, env: MancalaEnv) -> None:
    """Raises ``ValueError`` unless the replay ended as the record's result says."""
    if record.result is None:
        return
    agent = env.agent_selection
    if env.agents and not (env.terminations[agent] or env.truncations[agent]):
        raise ValueError(
            f"the record's {len(record.moves)} moves end before the game does ({agent} is to move), "
            f"but its result says it ended ({record.result['end_reason']}); the record is incomplete."
        )
    info = env.facts()
    replayed = {key: json_plain(info[key]) for key in RESULT_KEYS}
    if replayed != record.result:
        raise ValueError(f"the replay ends with {replayed}, but the record's result is {record.result}.")


# --- animations -------------------------------------------------------------------------------------
def _frames(record: GameRecord) -> Iterator[np.ndarray]:
    for env in replay(record, render_mode="rgb_array"):
        frame = env.render()
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise TypeError(
                f"render() in 'rgb_array' mode must return an (H, W, 3) uint8 array (got {type(frame).__name__} "
                f"{getattr(frame, 'shape', '')})."
            )
        yield frame


def _output_kind(out: pathlib.Path, text: str) -> str:
    if not text.strip():
        raise ValueError(
            "cannot write '': the output path is empty; give a .gif, .mp4, .png or .html path, or a directory for "
            "PNG frames."
        )
    suffix = out.suffix.lower()
    if suffix in (".gif", ".mp4", ".png", ".html"):
        return suffix[1:]
    if suffix == "" or text.endswith(("/", os.sep)) or out.is_dir():
        return "directory"
    raise ValueError(
        f"cannot write {text!r}: the output must end in .gif, .mp4 or .png (frames), .html (the HTML replay), or be "
        "a directory for PNG frames."
    )


def _import_pillow() -> Any:
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError(f"writing GIF or PNG frames needs Pillow ({error}); {RENDER_EXTRA}") from None
    return Image


def _check_timing(fps: Any, end_pause: Any) -> None:
    if not _is_int(fps) or not 1 <= fps <= MAX_FPS:
        raise ValueError(
            f"fps must be an integer between 1 and {MAX_FPS} (got {fps!r}); {MAX_FPS} is MAX_FPS, the "
            "most positions per second."
        )
    if isinstance(end_pause, bool) or not isinstance(end_pause, (int, float)) or not 0 <= end_pause <= 3600:
        raise ValueError(f"end_pause must be a number of seconds between 0 and 3600 (got {end_pause!r}).")


def write_animation(
    record: GameRecord | str | os.PathLike[str],
    out: str | os.PathLike[str],
    fps: int = 2,
    end_pause: float = 2.0,
) -> list[pathlib.Path]:
    """Renders every position of a recorded game (``render_mode="rgb_array"``) into an animation.

    One frame per position: the start, then the position after each move (``len(record.moves) + 1``
    frames), each shown for ``1 / fps`` seconds; the final position stays ``end_pause`` seconds
    longer so that the end can be seen.

    Args:
        record: A :class:`GameRecord` or the path of a saved one.
        out: Where to write, by its form:

            - ``game.gif``: an animated GIF (Pillow; the last frame has the longer duration, loops forever);
            - ``game.mp4``: an H.264 video at ``fps`` (moviepy; the last frame is repeated for the pause,
              frames are padded to even sizes as H.264 needs);
            - ``frames/`` (a directory, or a path without a suffix): ``frames/frame-000.png``, ``frame-001.png``, ...;
            - ``frames/move-*.png``: ``*`` becomes the zero-padded frame number; ``game.png``: ``game-000.png``, ...
            - ``game.html``: the self-contained HTML replay (:func:`write_html`; SVG boards, no pygame needed).
        fps: Positions per second, an integer from 1 to ``MAX_FPS`` (60); the HTML replay's play speed.
        end_pause: Extra seconds on the final position (GIF and MP4).

    Returns:
        The paths written: the GIF, MP4 or HTML file, or every PNG frame in order.

    Raises:
        ImportError: Pillow (GIF, PNG) or moviepy (MP4) is missing; install them with
            ``pip install 'mancala-envs[render]'``.
        ValueError: an unknown output form, a bad ``fps`` or ``end_pause``, a record that does not
            replay (see :func:`replay`), or a folder that does not exist: a directory of frames is created,
            but not its parent (:func:`mancala_envs.common.files.check_destination`).
    """
    record = _as_record(record)
    text = os.fspath(out)
    path = pathlib.Path(text)
    kind = _output_kind(path, text)
    check_destination(path, "the animation", folder=kind == "directory")  # no missing parent folder is created
    _check_timing(fps, end_pause)
    if kind == "html":
        return [write_html(record, path, fps=fps)]
    for _ in replay(record):  # a record that does not replay fails here, before any file is written
        pass
    frame_ms = 1000 / fps
    count = len(record.moves) + 1
    width = max(3, len(str(count - 1)))
    if kind == "gif":
        image_module = _import_pillow()
        images = (image_module.fromarray(frame) for frame in _frames(record))
        first = next(images)
        durations = [round(frame_ms)] * (count - 1) + [round(frame_ms + 1000 * end_pause)]
        first.save(path, save_all=True, append_images=images, duration=durations, loop=0)
        return [path]
    if kind == "mp4":
        _write_mp4(record, path, fps, end_pause)
        return [path]
    image_module = _import_pillow()
    if kind == "directory":
        path.mkdir(exist_ok=True)
        names = [path / f"frame-{index:0{width}d}.png" for index in range(count)]
    elif "*" in path.name:
        names = [path.with_name(path.name.replace("*", f"{index:0{width}d}")) for index in range(count)]
    else:
        names = [path.with_name(f"{path.stem}-{index:0{width}d}.png") for index in range(count)]
    for name, frame in zip(names, _frames(record), strict=True):  # one frame per position: count of them
        image_module.fromarray(frame).save(name)
    return names


def _write_mp4(record: GameRecord, path: pathlib.Path, fps: int, end_pause: float) -> None:
    try:
        from moviepy.video.io.ffmpeg_writer import FFMPEG_VideoWriter
    except ImportError as error:
        raise ImportError(f"writing MP4 needs moviepy ({error}); {RENDER_EXTRA}") from None
    writer: Any = None  # moviepy's FFMPEG_VideoWriter (untyped), made at the first frame
    try:
        frame = None
        for frame in _frames(record):
            height, width = frame.shape[:2]
            frame = np.pad(frame, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge")  # H.264 needs even sizes
            if writer is None:
                writer = FFMPEG_VideoWriter(os.fspath(path), (frame.shape[1], frame.shape[0]), fps, codec="libx264")
            writer.write_frame(frame)
        for _ in range(math.ceil(end_pause * fps)):
            writer.write_frame(frame)
    finally:
        if writer is not None:
            writer.close()


# --- HTML replays -----------------------------------------------------------------------------------
def _game_title(game: Game, record: GameRecord) -> str:
    title = game.name.replace("_", " ").title()
    if record.players is not None:
        title += f": {record.players[0]} vs {record.players[1]}"
    return title


def replay_game(record: GameRecord | str | os.PathLike[str], title: str | None = None) -> ReplayGame:
    """Replays a record into the frames of an HTML replay: per ply the board as SVG (the last move drawn), the
    facts and the move in words.

    Args:
        record: A :class:`GameRecord` or the path of a saved one.
        title: The game's title on the page; the game's name (and the players, if the record names them) by default.

    Returns:
        A :class:`~mancala_envs.rendering.html_replay.ReplayGame` for
        :func:`~mancala_envs.rendering.html_replay.replay_page`.

    Raises:
        ValueError: the record does not replay (see :func:`replay`).
    """
    record = _as_record(record)
    frames: list[ReplayFrame] = []
    painter: BoardSvg | None = None
    for number, env in enumerate(replay(record)):
        game = env.game
        if painter is None:
            painter = BoardSvg(game)
        last_move = env.last_move
        scene = Scene.of(game, env.state_array, last_move)
        svg = painter.draw_scene(scene)
        facts = {key: json_plain(value) for key, value in env.facts().items() if key != "last_move"}
        move = None
        if number > 0:
            entry = record.moves[number - 1]
            facts = {"last move": scene.caption, **facts}
            words = entry.get("move")
            if words is None and last_move is not None:
                words = game.move_words(last_move["player"], last_move["action"], last_move["sown"])
            move = f"player_{entry['player']}: {words if words is not None else 'action ' + str(entry['action'])}"
        frames.append(ReplayFrame(svg=svg, facts=facts, move=move))
    assert painter is not None  # replay yields the start at least
    details: dict[str, Any] = {"env": record.env}
    if record.players is not None:
        details["players"] = " vs ".join(record.players)
    if record.seed is not None:
        details["seed"] = record.seed
    details["moves"] = len(record.moves)
    if record.result is not None:
        winner = record.result["winner"]
        details["result"] = "a draw" if winner is None else f"player_{winner} wins"
        details["scores"] = record.result["scores"]
    return ReplayGame(
        title=title if title is not None else _game_title(painter.game, record), frames=frames, details=details
    )


def write_html(
    records: GameRecord | str | os.PathLike[str] | Sequence[GameRecord | str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    title: str | None = None,
    titles: Sequence[str] | None = None,
    fps: int = DEFAULT_FPS,
) -> pathlib.Path:
    """Writes the self-contained HTML replay of one record, or of several on one page with a game picker.

    One file, nothing fetched: every ply's board is drawn here as SVG and inlined, with the page's script and
    style. The page plays and pauses, steps, jumps with a ply slider or a click on a move, and shows the facts
    of the shown ply (see :mod:`mancala_envs.rendering.html_replay`). The frames are stored compressed: a page
    takes about 9 kB, plus 0.3 to 0.5 kB a ply (Omweso's four rows 1.1 kB); docs/replay.md has the measured
    figures.

    Args:
        records: A :class:`GameRecord` or a saved one's path, or a non-empty list of them.
        out: The ``.html`` file to write (its folder must exist); written atomically.
        title: The page's title; the first game's by default.
        titles: One title per record for the picker; by default each game's name and players.
        fps: Plies per second while playing, an integer from 1 to ``MAX_FPS`` (60).

    Returns:
        The path written.

    Raises:
        ValueError: ``out`` does not end in ``.html`` or its folder does not exist, no records, ``titles`` of
            another length, a bad ``fps``, or a record that does not replay; nothing is written then.
        TypeError: a record that is neither a :class:`GameRecord` nor a path.
    """
    text = os.fspath(out)
    path = pathlib.Path(text)
    if path.suffix.lower() != ".html":
        raise ValueError(f"cannot write {text!r} as an HTML replay: give a path ending in .html (e.g. game.html).")
    check_destination(path, "the HTML replay")
    _check_timing(fps, 0)
    many = list(records) if isinstance(records, Sequence) and not isinstance(records, (str, bytes)) else [records]
    if not many:
        raise ValueError("records is an empty list; give at least one GameRecord or a saved record's path.")
    if titles is not None and (isinstance(titles, str) or len(titles) != len(many)):
        raise ValueError(f"titles must be a list of {len(many)} names, one per record (got {titles!r:.80}).")
    games = [replay_game(record, None if titles is None else titles[index]) for index, record in enumerate(many)]
    atomic_write(path, replay_page(games, title=title, fps=fps).encode("utf-8"))
    return path
