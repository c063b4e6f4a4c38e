"""Every game and variant as an OpenSpiel game, so that OpenSpiel's algorithms play them.

Importing this module registers one ``pyspiel`` Python game per registered id (what
:func:`register_openspiel_games` does, idempotently). It needs the ``openspiel`` extra,
``pip install 'mancala-envs[openspiel]'``; ``import mancala_envs`` never imports ``pyspiel``.

The OpenSpiel name of an id is ``mancala_envs_`` followed by the id's name with underscores:
``mancala/ouril-v0`` is ``mancala_envs_ouril_v0``, ``mancala/rio-kadalis-cw-v0`` is
``mancala_envs_rio_kadalis_cw_v0`` (:func:`openspiel_name`, :func:`openspiel_names`).

=====================  ===================================================================
Dynamics               Sequential, deterministic, perfect information, zero-sum, terminal
                       rewards; two players, 0 and 1 (``player_0`` and ``player_1``)
Current player         The engine's player to move: the same player twice in a row where the
                       rules say so (Kalah's extra turns, Omweso's mid-turn choices, automatic
                       passes, a new game of a match);
                       ``pyspiel.PlayerId.TERMINAL`` once the game (or match) is over
Actions                The env's ``Discrete(n_actions)`` actions, legal ones in increasing order;
                       ``action_to_string`` is the game's ``describe_action`` ("sows pit 3")
Returns                ``+1`` / ``-1`` to the winner / loser, ``0`` each for a draw, as the env's
                       rewards with ``reward_mode="win_loss"``; a game truncated at the ply cap
                       is scored by the engine as the env scores it
Observation tensor     The env's egocentric ``observation`` vector of the player asked, as
                       ``float32`` (the game's documented index table)
Observation string     The position in the game's notation (``env.position()``)
Information state      The action history (``history_str``), as for any perfect-information game
``str(state)``         The text board (``render_mode="ansi"``)
``max_game_length``    The ply cap of an episode (``Game.max_episode_plies``; at most ``2**31 - 1``)
=====================  ===================================================================

Game parameters: ``first_player`` (0 by default: OpenSpiel's games are deterministic, so the
first player is fixed, never drawn by lot) and every option of the game's config, with the
variant's values as defaults. Bools, ints and strings are themselves; an optional count whose
``None`` means "none" or "automatic" (Ouril's ``win_threshold``, Urim's ``pit_capacity``, the
``match_target`` of Urim and Omweso) is an int with ``0`` for ``None``; a tuple of counts (Urim's
``trigger`` and ``chain``) is a string in OpenSpiel's list notation, the counts between brackets
separated by semicolons (``"[2;3;4]"``; game strings keep commas for separating parameters)::

    pyspiel.load_game("mancala_envs_urim_v0(trigger=[2;3],pit_capacity=0,first_player=1)")

A state is one engine state array (the position, the repetition memory, any pending mid-turn
choice and a match's tallies), so ``clone()`` is one array copy and a clone continues exactly as
the original would. ``game.new_initial_state(position)`` starts from a position in the game's
notation (``env.position()``), as ``env.reset(options={"position": ...})`` does.

States serialize as plain JSON, never as a pickle: ``state.serialize()`` writes the game string
(``str(game)``, the game and its options), the start position (``null`` for the opening) and the
actions, and ``game.deserialize_state(text)`` replays the actions from the start, which must be a
position ``reset`` accepts, each action legal where it is played; a state of another game or
options, a bad position, a bad history, OpenSpiel's pickled form, a text too long for the game or not
UTF-8 is refused with a ``ValueError`` that names the problem (docs/contract.md, "OpenSpiel states").
OpenSpiel's own ``deserialize_game_and_state`` unpickles a Python state's ``__dict__``, so that a
crafted text runs code: importing this module therefore puts :func:`serialize_game_and_state` and
:func:`deserialize_game_and_state` in ``pyspiel``'s place. They read and write the states of
mancala-envs games as above and hand every other game to OpenSpiel's functions unchanged. (OpenSpiel's
C++ code, such as ``random_sim_test(serialize=True)``, still serializes a state its own way, the
``__dict__`` pickled: that text stays inside the process.) Games and states pickle too, a game as its
game string and a state as that JSON text.

:class:`AgentBot` makes any agent of :mod:`mancala_envs.agents` an OpenSpiel bot, to pit OpenSpiel's
MCTS against the baselines with ``evaluate_bots``.

Example:
    >>> import pyspiel
    >>> from mancala_envs.integrations.openspiel import load_game
    >>> game = load_game("ouril_v0")
    >>> game.get_type().short_name, game.num_distinct_actions(), game.max_game_length()
    ('mancala_envs_ouril_v0', 6, 1000)
    >>> state = game.new_initial_state()
    >>> state.current_player(), state.legal_actions()
    (0, [0, 1, 2, 3, 4, 5])
    >>> state.action_to_string(0, 5)
    'sows pit 5'
    >>> state.apply_action(5)
    >>> state.observation_string(0)
    '4,4,4,4,4,0/5,5,5,5,4,4 0,0 1'
    >>> pyspiel.load_game("mancala_envs_kalah_6x6_v0", {"first_player": 1}).new_initial_state().current_player()
    1
"""

from __future__ import annotations

import dataclasses
import json
import reprlib
import types
import typing
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "mancala_envs.integrations.openspiel needs OpenSpiel (the pyspiel module): "
        "pip install 'mancala-envs[openspiel]'"
    ) from error
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from mancala_envs.agents import Agent, make_agent
from mancala_envs.common.validation import check_action
from mancala_envs.engine.state import OK, PLAYER, RUNNING, STATUS, WINNER
from mancala_envs.envs.registration import VARIANTS, EnvVariant, find_variant, gymnasium_id, make_game
from mancala_envs.games.game import Game, check_choice

__all__ = [
    "NAME_PREFIX",
    "STATE_FORMAT",
    "AgentBot",
    "MancalaGame",
    "MancalaObserver",
    "MancalaState",
    "deserialize_game_and_state",
    "load_game",
    "openspiel_name",
    "openspiel_names",
    "register_openspiel_games",
    "serialize_game_and_state",
]

#: what every OpenSpiel name of a mancala-envs game starts with
NAME_PREFIX = "mancala_envs_"
#: an optional count's ``None`` as an int parameter (every optional count of the configs is at least 1)
NONE_COUNT = 0
#: what separates the counts of a tuple option in its string parameter, ``"[2;3;4]"`` (OpenSpiel's list
#: notation: its game strings split parameters on commas)
COUNT_SEPARATOR = ";"
#: the largest ``max_game_length`` OpenSpiel holds (a C++ int)
MAX_GAME_LENGTH = 2**31 - 1
_NO_TRACE = np.empty(0, dtype=np.int64)  # the engine records nothing into a zero-length trace
#: the ``format`` entry of a serialized state (``state.serialize()``); a new layout gets a new number
STATE_FORMAT = "mancala-envs-openspiel-state-1"
_STATE_KEYS = ("format", "game", "start", "history")
#: room in a serialized state for all but its history (the format, the game string, a start position)
_STATE_OVERHEAD_CHARS = 65536
#: the longest game string a serialized game and state may name (ours are a few hundred characters)
_MAX_GAME_STRING_CHARS = 4096
#: the section headers of OpenSpiel's ``serialize_game_and_state`` text, in their order
_SECTIONS = ("[Meta]", "[Game]", "[State]")
_SERIALIZED_HEADER = "# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\nVersion: 1\n\n"
_SERIALIZE_FIX = "pass the text that state.serialize() or pyspiel.serialize_game_and_state() returned"
_REPR = reprlib.Repr()  # bounded reprs of untrusted values in messages
_REPR.maxstring = _REPR.maxother = 80
_short = _REPR.repr


# --- names ----------------------------------------------------------------------------------------------
def openspiel_name(env_id: str) -> str:
    """The OpenSpiel name of a registered id or game name.

    Args:
        env_id: What :func:`mancala_envs.make` takes: ``"ouril_v0"``, ``"mancala/ouril-mini-v0"`` or
            ``"ouril-mini-v0"``.

    Raises:
        ValueError: no such id (the message lists them).

    Example:
        >>> openspiel_name("ouril_v0"), openspiel_name("mancala/rio-kadalis-cw-v0")
        ('mancala_envs_ouril_v0', 'mancala_envs_rio_kadalis_cw_v0')
    """
    return _name_of(find_variant(env_id))


def _name_of(variant: EnvVariant) -> str:
    return NAME_PREFIX + variant.id.split("/", 1)[1].replace("-", "_")


def openspiel_names() -> dict[str, str]:
    """Every registered id (``"mancala/ouril-v0"``...) and its OpenSpiel name, in ``list_envs`` order."""
    return {variant.id: _name_of(variant) for variant in VARIANTS}


# --- game options as OpenSpiel parameters -----------------------------------------------------------------
def _option_kinds(config_class: type) -> dict[str, str]:
    """The config fields that a pyspiel parameter carries, with how: ``"bool"``, ``"int"``, ``"str"``,
    ``"optional int"`` (0 for ``None``) or ``"counts"`` (a tuple of ints as ``"[2;3;4]"``)."""
    hints = typing.get_type_hints(config_class)
    kinds = {}
    for field in dataclasses.fields(config_class):
        hint = hints[field.name]
        if hint in (bool, int, str):
            kinds[field.name] = hint.__name__
        elif isinstance(hint, types.UnionType) and set(typing.get_args(hint)) == {int, type(None)}:
            kinds[field.name] = "optional int"
        elif typing.get_origin(hint) is tuple and typing.get_args(hint) == (int, Ellipsis):
            kinds[field.name] = "counts"
    return kinds


def _parameter(kind: str, value: Any) -> bool | int | str:
    """A config value as the pyspiel parameter of its kind."""
    if kind == "optional int":
        return NONE_COUNT if value is None else int(value)
    if kind == "counts":
        return "[" + COUNT_SEPARATOR.join(str(count) for count in value) + "]"
    return value


def _option(name: str, kind: str, value: Any) -> Any:
    """A pyspiel parameter as the config value of its kind (the config checks the value itself)."""
    if kind == "optional int":
        return None if value == NONE_COUNT else value
    if kind == "counts":
        text = str(value)
        parts = text[1:-1].split(COUNT_SEPARATOR)
        if not (text.startswith("[") and text.endswith("]")) or not all(p.isascii() and p.isdigit() for p in parts):
            raise ValueError(
                f"{name}={value!r} must be seed counts between brackets, separated by {COUNT_SEPARATOR!r}, such as "
                f"'[2{COUNT_SEPARATOR}3]' (OpenSpiel's game strings keep commas for separating parameters)."
            )
        return tuple(int(part) for part in parts)
    return value


def _parameter_specification(variant: EnvVariant) -> dict[str, bool | int | str]:
    """The pyspiel parameters of a variant, each with the variant's value as its default."""
    config = make_game(variant.id).config  # builds the config only: nothing is compiled
    specification: dict[str, bool | int | str] = {"first_player": 0}
    for name, kind in _option_kinds(type(config)).items():
        specification[name] = _parameter(kind, getattr(config, name))
    return specification


def _game_type(variant: EnvVariant) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=_name_of(variant),
        long_name=f"mancala-envs {variant.id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_specification(variant),
    )


# --- the game ------------------------------------------------------------------------------------------
class MancalaGame(pyspiel.Game):
    """A registered game or variant as a ``pyspiel.Game``; ``pyspiel.load_game`` builds it.

    Each registered id has its own subclass (:func:`register_openspiel_games` makes them), which
    names the id and its ``GameType``; OpenSpiel calls it with the parameters.

    Args:
        params: The pyspiel parameters (see the module docstring): ``first_player`` and the game's
            options; a parameter left out keeps its default.

    Raises:
        ValueError / TypeError: a parameter is not a valid option (the config's message).

    Attributes:
        env_id: The registered id, e.g. ``"mancala/ouril-v0"`` (``mancala_envs.make`` takes it).
        engine_game: The :class:`~mancala_envs.games.game.Game` with the options of the parameters.
        first_player: Who moves first in :meth:`new_initial_state`.
    """

    #: the id that the subclass plays
    variant: typing.ClassVar[EnvVariant]
    #: the subclass's registered type (its name, properties and parameters)
    game_type: typing.ClassVar[pyspiel.GameType]
    #: the parameters with their defaults, as pyspiel values
    defaults: typing.ClassVar[dict[str, Any]]
    #: how each game option is carried by its parameter (see :func:`_option_kinds`)
    option_kinds: typing.ClassVar[dict[str, str]]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**self.defaults, **(params or {})}
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(
                f"{self.game_type.short_name} has no parameter {unknown}; its parameters are {sorted(self.defaults)}."
            )
        first_player = params["first_player"]
        check_choice("first_player", first_player, (0, 1))
        options = {name: _option(name, kind, params[name]) for name, kind in self.option_kinds.items()}
        engine_game = make_game(self.variant.id, **options)
        info = pyspiel.GameInfo(
            num_distinct_actions=engine_game.n_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=min(engine_game.max_episode_plies, MAX_GAME_LENGTH),
        )
        super().__init__(self.game_type, info, params)
        self.env_id = self.variant.id
        self.engine_game = engine_game
        self.first_player = first_player
        self._opening = engine_game.new_state(first_player)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickles as the game string (``str(game)``), which :func:`load_game` loads back (the class of a
        registered id is made at registration, so pickle cannot find it by name)."""
        return load_game, (str(self),)

    def env_options(self) -> dict[str, Any]:
        """The keywords that make ``mancala_envs.make(game.env_id, **options)`` play this game: the
        first player and every option that differs from the variant's."""
        variant_config = make_game(self.env_id).config
        options = {
            field.name: getattr(self.engine_game.config, field.name)
            for field in dataclasses.fields(variant_config)
            if getattr(self.engine_game.config, field.name) != getattr(variant_config, field.name)
        }
        return {"first_player": self.first_player, **options}

    def new_initial_state(self, position: str | dict[str, Any] | None = None) -> MancalaState:
        """The opening, or a position.

        Args:
            position: ``None``: the opening, ``first_player`` to move. A string: a position in the game's
                notation (``env.position()``); a dict: the structured form of ``env.reset`` options
                (``board``, ``stores``, ``player`` and the game's flags). A position starts with an
                empty repetition memory, as after ``env.reset(options=...)``.

        Raises:
            ValueError: the position is malformed or invalid (the message says why).
        """
        if position is None:
            return MancalaState._of_engine(self, self._opening.copy())
        if isinstance(position, str):
            fields = self.engine_game.parse_position(position)
        elif isinstance(position, dict):
            fields = {"stores": (0, 0), "player": self.first_player, **position}
        else:
            raise TypeError(
                f"a position is a string in the game's notation or a dict of board, stores, player "
                f"(got {type(position).__name__})."
            )
        state = np.zeros_like(self._opening)
        self.engine_game.load_position(state, **fields)
        return MancalaState._of_engine(self, state, start=self.engine_game.position_string(state))

    def deserialize_state(self, serialized: str | bytes) -> MancalaState:
        """The state that ``state.serialize()`` wrote, rebuilt and checked; nothing is unpickled.

        The text is plain JSON (:data:`STATE_FORMAT`): the game string of the state's game, the
        position it started from (``null`` for the opening) and its actions. The start goes through the
        checks of ``new_initial_state(position)`` (those of ``env.reset(options=...)``) and every action
        is played by the engine, which must find it legal, so the state is one the game reaches: the
        same board, repetition memory, history, legal actions and returns as the state serialized.

        Args:
            serialized: What ``state.serialize()`` returned (a ``str``, or UTF-8 ``bytes``).

        Raises:
            TypeError: ``serialized`` is neither ``str`` nor ``bytes``.
            ValueError: it is not such a text of this game and options (too long for this game, not
                UTF-8, OpenSpiel's pickled form, not JSON, another format, game or config, a start
                position that ``reset`` refuses, an action that is not legal where it is played, actions
                after the end); the message names the problem.

        Example:
            >>> game = load_game("kalah_v0")
            >>> state = game.new_initial_state()
            >>> state.apply_action(2)
            >>> copy = game.deserialize_state(state.serialize())
            >>> copy.history(), copy.current_player()
            ([2], 0)
        """
        limit = _STATE_OVERHEAD_CHARS + (len(str(self.num_distinct_actions() - 1)) + 1) * self.max_game_length()
        text = _serialized_text(serialized, "the serialized state", limit, f"a state of {self.game_type.short_name}")
        if text.startswith("history=") and "__dict__=" in text:
            raise ValueError(
                "the serialized state is in OpenSpiel's pickled form ('history=...', '__dict__=...'), which "
                "mancala-envs never loads: unpickling a text can run any code. Serialize the state with this version's "
                "state.serialize() or pyspiel.serialize_game_and_state() "
                "(after importing mancala_envs.integrations.openspiel)."
            )
        try:
            fields = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise ValueError(f"the serialized state is not JSON ({_short(str(error))}); {_SERIALIZE_FIX}.") from None
        keys = set(fields) if isinstance(fields, dict) else set()
        if keys != set(_STATE_KEYS) or fields["format"] != STATE_FORMAT:
            raise ValueError(
                f"the serialized state is not a {STATE_FORMAT!r} object of {list(_STATE_KEYS)} (format "
                f"{_short(fields.get('format')) if keys else None}, missing {sorted(set(_STATE_KEYS) - keys)}, "
                f"unknown {_short(sorted(keys - set(_STATE_KEYS)))}); {_SERIALIZE_FIX}."
            )
        tag = fields["game"]
        if tag != str(self):
            shown = repr(tag) if isinstance(tag, str) and len(tag) <= _MAX_GAME_STRING_CHARS else _short(tag)
            raise ValueError(
                f"the serialized state is of {shown}, this game is {str(self)!r}; load it into its "
                f"own game, pyspiel.load_game(<its game string>).deserialize_state(...), or pass the whole text of "
                "pyspiel.serialize_game_and_state() to pyspiel.deserialize_game_and_state()."
            )
        start, history = fields["start"], fields["history"]
        if start is not None and not isinstance(start, str):
            raise ValueError(
                f"the serialized state's start must be null (the opening) or a position string (got {_short(start)}); "
                f"{_SERIALIZE_FIX}."
            )
        if not isinstance(history, list) or len(history) > self.max_game_length():
            raise ValueError(
                f"the serialized state's history must be a list of at most {self.max_game_length()} actions (got "
                f"{type(history).__name__} {_short(history)}); {_SERIALIZE_FIX}."
            )
        try:
            state = self.new_initial_state(start)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"the serialized state's start position is one reset(options=...) refuses: {error}"
            ) from None
        for index, action in enumerate(history):
            _replay(state, index, action)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> Any:
        """The observer OpenSpiel asks for: :class:`MancalaObserver` for observations, the action
        history for information states (perfect recall)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return MancalaObserver(self.engine_game, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


# --- the state -----------------------------------------------------------------------------------------
class MancalaState(pyspiel.State):
    """A game in progress: one engine state array of the game.

    OpenSpiel clones a Python state by making a new initial state and deep-copying the instance
    ``__dict__`` into it. The dict holds only the state array and the start position (a string, or
    ``None`` for the opening), so a clone is one array copy; the game, shared by every clone, lives
    in a slot.

    ``serialize()`` (and ``pickle``, ``copy.deepcopy``) write plain JSON, the start position and the
    actions, which :meth:`MancalaGame.deserialize_state` replays through the engine's checks.
    """

    __slots__ = ("__dict__", "_game")

    def __init__(self, game: MancalaGame, state: np.ndarray, start: str | None = None) -> None:
        """A state of ``game`` holding ``state`` (not a copy); ``game.new_initial_state()`` is the usual way.

        Args:
            game: The mancala-envs OpenSpiel game (``load_game``, ``pyspiel.load_game``).
            state: An engine state array of ``game.engine_game``; it is checked with ``Game.check_state``
                before anything reads it.
            start: The start position in the game's notation that :meth:`serialize` writes (``None``: the
                opening); :meth:`serialize` refuses the state unless ``start`` loads to ``state`` exactly.

        Raises:
            TypeError: ``game`` is not a mancala-envs OpenSpiel game, or ``state`` not a state array of its
                game (another type, dtype, shape or layout).
            ValueError: ``state`` is one no game reaches; the message names the part.
        """
        if not isinstance(game, MancalaGame):
            raise TypeError(
                f"game must be a mancala-envs OpenSpiel game such as load_game('kalah_v0') (got {type(game).__name__})."
            )
        game.engine_game.check_state(state)
        self._adopt(game, state, start)
        # serialize() writes the start and the actions played since, so it can rebuild only an array that its start
        # (the opening for None) loads to exactly. A mid-game array holds more than its position (its ply counter,
        # last action, repetition memory): serialize() refuses it rather than write another state.
        try:
            origin = game.new_initial_state(start).state_array
        except (TypeError, ValueError):
            origin = None
        self._replayable = origin is not None and np.array_equal(state, origin)

    @classmethod
    def _of_engine(cls, game: MancalaGame, state: np.ndarray, start: str | None = None) -> MancalaState:
        """A state of an array the engine just made (the opening's copy, a loaded position): not checked again,
        so that OpenSpiel's clones (a new initial state each) cost one array copy."""
        made = cls.__new__(cls)
        made._adopt(game, state, start)
        return made

    def _adopt(self, game: MancalaGame, state: np.ndarray, start: str | None) -> None:
        pyspiel.State.__init__(self, game)
        self._game = game
        self._state = state
        self._start = start

    # --- what OpenSpiel calls ------------------------------------------------------------------------------
    def current_player(self) -> int:
        """The player to move, or ``pyspiel.PlayerId.TERMINAL`` once the game is over."""
        state = self._state
        if state[STATUS] != RUNNING:
            return pyspiel.PlayerId.TERMINAL
        return int(state[PLAYER])

    def _legal_actions(self, player: int) -> list[int]:
        return self._game.engine_game.legal_actions(self._state).tolist()

    def _apply_action(self, action: int) -> None:
        if self._game.engine_game.step(self._state, action, _NO_TRACE) != OK:
            legal = self._game.engine_game.legal_actions(self._state).tolist()
            raise ValueError(f"action {action} is illegal in this state; the legal actions are {legal}.")

    def _action_to_string(self, player: int, action: int) -> str:
        if player == self.current_player():
            return self._game.engine_game.describe_action(self._state, action)
        return f"player {player} action {action}"

    def is_terminal(self) -> bool:
        """Whether the game (or the match) is over: terminated or truncated."""
        return bool(self._state[STATUS] != RUNNING)

    def returns(self) -> list[float]:
        """``[1, -1]`` or ``[-1, 1]`` for a decided game, ``[0, 0]`` for a draw or a game in progress."""
        state = self._state
        if state[STATUS] == RUNNING or state[WINNER] < 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if state[WINNER] == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        return self._game.engine_game.render_text(self._state)

    def serialize(self) -> str:
        """The state as plain JSON text (:data:`STATE_FORMAT`), which ``game.deserialize_state`` reads back:
        the game string (``str(game)``: the game and its options), the start position (``null`` for the
        opening, else the position in the game's notation) and the actions played since.

        Example:
            >>> state = load_game("kalah_v0").new_initial_state()
            >>> state.apply_action(2)
            >>> state.serialize()[:60]
            '{"format":"mancala-envs-openspiel-state-1","game":"mancala_e'

        Raises:
            ValueError: the state was made by ``MancalaState(game, state, start)`` from an array that ``start``
                (the opening for ``None``) does not load to exactly: no start and actions rebuild it.
        """
        if not self.__dict__.get("_replayable", True):
            raise ValueError(
                "this state was made with MancalaState(game, state, start) from an array that its start (the opening "
                "when start=None) does not load to exactly (a mid-game array also holds its ply counter, last action "
                "and repetition memory), so no text can rebuild it: make it with game.new_initial_state(position) "
                "(or pass start=<a position that loads to the array>) and apply_action its actions."
            )
        return json.dumps(
            {"format": STATE_FORMAT, "game": str(self._game), "start": self._start, "history": self.history()},
            separators=(",", ":"),
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> MancalaState:
        """A copy in memory (nothing serialized), which a state made from an array without its start also has."""
        twin = self.clone()
        memo[id(self)] = twin
        return twin

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        """Pickles as the game string and :meth:`serialize`'s text (never as the state array), which
        :meth:`MancalaGame.deserialize_state` checks when the pickle is loaded."""
        return _state_of, (str(self._game), self.serialize())

    # --- our engine ------------------------------------------------------------------------------------
    @property
    def engine_game(self) -> Game:
        """The :class:`~mancala_envs.games.game.Game` whose rules the state follows."""
        return self._game.engine_game

    @property
    def state_array(self) -> np.ndarray:
        """A copy of the engine state, as ``env.unwrapped.state_array`` gives it (agents'
        ``act_on_state`` take it)."""
        return self._state.copy()

    def position(self) -> str:
        """The position in the game's notation (``env.position()``)."""
        return self._game.engine_game.position_string(self._state)

    def info(self) -> dict[str, Any]:
        """The facts the env reports in ``infos`` (scores, end reason, winner, ply...)."""
        return self._game.engine_game.info(self._state)


class MancalaObserver:
    """OpenSpiel's observer of a game (the ``PyObserver`` interface): the egocentric observation
    vector of the player asked, as ``float32``, and the position as a string.

    Raises:
        ValueError: observation parameters were given (there are none).
    """

    def __init__(self, engine_game: Game, params: dict[str, Any] | None = None) -> None:
        if params:
            raise ValueError(f"the observer takes no parameters (got {params}).")
        self._engine_game = engine_game
        self.tensor = np.zeros(engine_game.observation_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MancalaState, player: int) -> None:
        """Writes ``player``'s observation of ``state`` into ``tensor``."""
        self.tensor[:] = self._engine_game.observe(state._state, player)

    def string_from(self, state: MancalaState, player: int) -> str:
        """The position of ``state`` in the game's notation (the same for both players: nothing is hidden)."""
        return self._engine_game.position_string(state._state)


# --- serialization -------------------------------------------------------------------------------------
def serialize_game_and_state(game: pyspiel.Game, state: pyspiel.State) -> str:
    """OpenSpiel's ``serialize_game_and_state``, with the state of a mancala-envs game as plain JSON.

    Importing this module installs it as ``pyspiel.serialize_game_and_state``. For a mancala-envs game
    the text keeps OpenSpiel's layout (a ``[Meta]``, a ``[Game]`` and a ``[State]`` section), with
    ``state.serialize()`` as the state; any other game goes to OpenSpiel's own function.

    Raises:
        ValueError: ``state`` is not a state of ``game``.
    """
    if not isinstance(game, MancalaGame):
        return _OPENSPIEL_SERIALIZE(game, state)
    if not isinstance(state, MancalaState) or str(state.get_game()) != str(game):
        raise ValueError(
            f"the state is not one of {str(game)!r}; pass the game that made it, "
            "pyspiel.serialize_game_and_state(state.get_game(), state)."
        )
    return f"{_SERIALIZED_HEADER}[Game]\n{game}\n[State]\n{state.serialize()}\n"


def deserialize_game_and_state(serialized: str | bytes) -> tuple[pyspiel.Game, pyspiel.State]:
    """OpenSpiel's ``deserialize_game_and_state``, which never unpickles a state of a mancala-envs game.

    Importing this module installs it as ``pyspiel.deserialize_game_and_state``. A text whose
    ``[Game]`` section names a mancala-envs game is read here: the game string is loaded (its options
    checked as by ``pyspiel.load_game``) and the state rebuilt by :meth:`MancalaGame.deserialize_state`,
    which refuses a state of another game or options and checks every field. Any other text goes to
    OpenSpiel's own function unchanged.

    Raises:
        ValueError: the text names a mancala-envs game but is not what :func:`serialize_game_and_state`
            writes (the message names the section or field at fault).

    Example:
        >>> game = load_game("kalah_v0", first_player=1)
        >>> state = game.new_initial_state()
        >>> state.apply_action(3)
        >>> copy_game, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        >>> str(copy_game) == str(game), copy.history()
        (True, [3])
    """
    if isinstance(serialized, (bytes, bytearray)):
        routing = bytes(serialized).decode("latin-1")  # one character a byte, as OpenSpiel reads them
    elif isinstance(serialized, str):
        routing = serialized
    else:
        return _OPENSPIEL_DESERIALIZE(serialized)
    if NAME_PREFIX not in routing:
        return _OPENSPIEL_DESERIALIZE(serialized)
    sections = _sections(routing)
    if isinstance(sections, dict) and not sections["[Game]"].split("(", 1)[0].strip().startswith(NAME_PREFIX):
        return _OPENSPIEL_DESERIALIZE(serialized)  # another game (one that may wrap ours, as start_at does)
    what = "the serialized game and state"
    text = _serialized_text(serialized, what)  # the state section's length is checked with its game's limit
    if isinstance(sections, str):
        raise ValueError(f"{what} {sections}; {_SERIALIZE_FIX}.")
    if text is not routing:
        sections = typing.cast(dict, _sections(text))  # bytes: their UTF-8 reading, laid out the same
    game_string = sections["[Game]"]
    if len(game_string) > _MAX_GAME_STRING_CHARS:
        raise ValueError(
            f"{what} has a [Game] section of {len(game_string)} characters, more than a game string holds "
            f"({_MAX_GAME_STRING_CHARS}); {_SERIALIZE_FIX}."
        )
    try:
        game = pyspiel.load_game(game_string)
    except (pyspiel.SpielError, TypeError, ValueError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(
            f"{what} names a game that cannot be loaded, {_short(game_string)} ({_short(reason)}); "
            f"the names are openspiel_names(), and {_SERIALIZE_FIX}."
        ) from None
    return game, game.deserialize_state(sections["[State]"])


def _sections(text: str) -> dict[str, str] | str:
    """The ``[Meta]``, ``[Game]`` and ``[State]`` sections of a ``serialize_game_and_state`` text, read as
    OpenSpiel reads them (blank lines and lines starting with ``#`` skipped, the headers in this order,
    each section's lines joined); or what is wrong with the text."""
    sections: dict[str, list[str]] = {}
    current = -1
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line in _SECTIONS:
            if _SECTIONS.index(line) != current + 1:
                return f"has its {line} section out of place (the sections are {', '.join(_SECTIONS)}, in this order)"
            current = _SECTIONS.index(line)
            sections[line] = []
        elif current < 0:
            return f"has a line before its [Meta] section, {_short(line)}"
        else:
            sections[_SECTIONS[current]].append(line)
    if current != len(_SECTIONS) - 1:
        return f"lacks a section: it has {sorted(sections)}, and needs {', '.join(_SECTIONS)}"
    return {name: "\n".join(lines) for name, lines in sections.items()}


def _serialized_text(serialized: Any, what: str, limit: int | None = None, holder: str = "") -> str:
    """``serialized`` as a ``str`` that UTF-8 can hold (``bytes`` decoded as UTF-8), of at most ``limit``
    characters (``holder`` says whose limit it is)."""
    if not isinstance(serialized, (str, bytes, bytearray)):
        raise TypeError(
            f"{what} must be a str, the text that state.serialize() or pyspiel.serialize_game_and_state() "
            f"returned (got {type(serialized).__name__})."
        )
    if limit is not None and len(serialized) > limit:
        raise ValueError(
            f"{what} holds {len(serialized)} characters, more than {holder} can ({limit}); {_SERIALIZE_FIX}."
        )
    try:
        if isinstance(serialized, str):
            serialized.encode("utf-8")
            return serialized
        return bytes(serialized).decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError) as error:  # the errors of encode and decode
        raise ValueError(
            f"{what} is not UTF-8 text ({error.reason} at position {error.start}); {_SERIALIZE_FIX}."
        ) from None


def _replay(state: MancalaState, index: int, action: Any) -> None:
    """Plays the serialized history's ``index``-th ``action`` on ``state``, refusing an action that is
    not an integer, out of range, or not legal there, and any action after the game ended."""
    where = f"the serialized state's history[{index}]"
    if state.is_terminal():
        raise ValueError(
            f"{where} comes after the game ended (after {index} actions); no game reaches that state; {_SERIALIZE_FIX}."
        )
    try:
        action = check_action(action, state.num_distinct_actions())
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where} is not an action: {_short(str(error))}") from None
    legal = state.legal_actions()
    if action not in legal:
        raise ValueError(
            f"{where} = {action} is illegal where it is played (the legal actions are {legal}); no game reaches "
            f"that state; {_SERIALIZE_FIX}."
        )
    state.apply_action(action)


def _state_of(game_string: str, serialized: str) -> MancalaState:
    """A pickled state: :func:`load_game` of its game string, then :meth:`MancalaGame.deserialize_state`."""
    return load_game(game_string).deserialize_state(serialized)


# --- agents as bots ---------------------------------------------------------------------------------------
class AgentBot(pyspiel.Bot):
    """An agent of :mod:`mancala_envs.agents` as an OpenSpiel bot (for ``evaluate_bots``...).

    Args:
        agent: An :class:`~mancala_envs.agents.Agent` (it must act on states: every agent but
            ``"sb3:"``) or its name for :func:`~mancala_envs.agents.make_agent` (``"greedy"``...).
        seed: The seed of an agent given by name.

    Example:
        >>> import numpy as np
        >>> from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
        >>> state = load_game("modiar_v0").new_initial_state()
        >>> bots = [AgentBot("greedy", seed=0), AgentBot("random", seed=1)]
        >>> evaluate_bots(state, bots, np.random.default_rng(0)) in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
        True
    """

    def __init__(self, agent: Agent | str, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = make_agent(agent, seed) if isinstance(agent, str) else agent

    def step(self, state: MancalaState) -> int:
        """The agent's action for the player to move in ``state``."""
        return self.agent.act_on_engine_state(state.engine_game, state.state_array)  # a state the engine made

    def restart_at(self, state: MancalaState) -> None:
        """Nothing to forget: the agent acts on each state afresh."""

    def inform_action(self, state: MancalaState, player: int, action: int) -> None:
        """Nothing to learn from the other player's action."""

    def provides_policy(self) -> bool:
        return False


# --- registration ---------------------------------------------------------------------------------------
def register_openspiel_games() -> list[str]:
    """Registers every game and variant with OpenSpiel, once (this module's import already did).

    Returns:
        The OpenSpiel names, one per registered id (:func:`openspiel_names`).
    """
    registered = set(pyspiel.registered_names())
    for variant in VARIANTS:
        if _name_of(variant) not in registered:
            game_class = _game_class(variant)
            pyspiel.register_game(game_class.game_type, game_class)
    return list(openspiel_names().values())


def _game_class(variant: EnvVariant) -> type[MancalaGame]:
    """The :class:`MancalaGame` subclass of a registered id, ``OurilMiniV0Game`` for ``mancala/ouril-mini-v0``.

    OpenSpiel's registry lets go of a Python game's creator only after the interpreter has shut down. A
    closure or a ``functools.partial`` freed then crashes the process on exit; a class, which its own
    references keep alive, is never freed then."""
    game_type = _game_type(variant)
    attributes = {
        "variant": variant,
        "game_type": game_type,
        "defaults": dict(game_type.parameter_specification),
        "option_kinds": _option_kinds(make_game(variant.id).config_class),
        "__module__": __name__,
    }
    stem = gymnasium_id(variant.id).split("/", 1)[1].replace("-v", "V")
    return types.new_class(f"{stem}Game", (MancalaGame,), exec_body=lambda namespace: namespace.update(attributes))


def load_game(name: str, **params: Any) -> pyspiel.Game:
    """The OpenSpiel game of a registered id, with parameters.

    Args:
        name: An id or game name as :func:`mancala_envs.make` takes it (``"ouril_v0"``,
            ``"mancala/urim-match-v0"``), an OpenSpiel name (``"mancala_envs_ouril_v0"``) or an OpenSpiel
            game string with parameters (``"mancala_envs_ouril_v0(first_player=1)"``, what ``str(game)`` gives).
        **params: ``first_player`` and game options as pyspiel parameters (see the module docstring).

    Raises:
        ValueError: no such game, or a parameter is invalid.

    Example:
        >>> load_game("mancala/urim-v0", match_target=5).max_game_length()
        100000
    """
    register_openspiel_games()
    if not name.startswith(NAME_PREFIX):
        name = openspiel_name(name)
    return pyspiel.load_game(name, params) if params else pyspiel.load_game(name)


def _install_serialization() -> tuple[Any, Any]:
    """Puts :func:`serialize_game_and_state` and :func:`deserialize_game_and_state` in ``pyspiel``'s place
    (once: a reloaded module finds OpenSpiel's own functions behind its first wrappers) and returns
    OpenSpiel's own. OpenSpiel's C++ deserialization unpickles the ``__dict__`` of a Python state, so a
    crafted text would run code: ours reads a mancala-envs game's state as plain JSON instead."""
    originals = tuple(
        getattr(function, "openspiel_function", function)
        for function in (pyspiel.serialize_game_and_state, pyspiel.deserialize_game_and_state)
    )
    for ours, original in zip((serialize_game_and_state, deserialize_game_and_state), originals, strict=True):
        ours.openspiel_function = original  # type: ignore[attr-defined]
        setattr(pyspiel, ours.__name__, ours)
    return originals


register_openspiel_games()
_OPENSPIEL_SERIALIZE, _OPENSPIEL_DESERIALIZE = _install_serialization()
