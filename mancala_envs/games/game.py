"""What every game offers the environment, and the config checks they share.

A game turns a frozen config dataclass into a ``params`` array and exposes the
compiled ``reset_state``, ``step``, ``legal_bits`` and ``observe`` functions of
its rules module. The environment, the renderer, the batched games and the agents
only talk to games through the :class:`Game` interface below.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
import types
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numba import config as numba_config

from mancala_envs.engine import state as state_slots
from mancala_envs.engine.jit import njit
from mancala_envs.engine.kernels import called, code_global_names, rule_by_symbol, specialise
from mancala_envs.engine.layout import Layout
from mancala_envs.engine.state import (
    BOARD,
    END_REASON,
    END_REASON_NAMES,
    ENDLESS,
    FIRST_MOVE_DONE,
    GAME_SLOTS,
    GAMES_PLAYED,
    HEADER_SIZE,
    HISTORY_FILTER,
    HISTORY_LEN,
    LAPS,
    LAST_ACTION,
    LEGAL,
    MATCH,
    PASSES,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STARTER,
    STATUS,
    STORE,
    TURN,
    WINNER,
)

if TYPE_CHECKING:
    from mancala_envs.games.stepper import Stepper

__all__ = [
    "Game",
    "Variant",
    "check_bool",
    "check_choice",
    "check_count_set",
    "check_counts",
    "check_int",
    "compiled_entry",
    "config_from_kwargs",
    "reset_linking_by_symbol",
]


#: the compiled functions a rules module defines, by the Game attribute that holds each
RULE_FUNCTIONS = {
    "reset_function": "reset_state",
    "step_function": "step",
    "legal_bits_function": "legal_bits",
    "observe_function": "observe",
    "game_over_function": "game_over",
}


def reset_linking_by_symbol(reset: Any, legal_bits: Any) -> Any:
    """A rules module's compiled ``reset_state`` whose calls of the game's ``legal_bits`` go by symbol.

    numba links the code of every compiled function a compiled function calls into the caller's and
    optimises it all again: ``reset_state``, which ends with ``state[LEGAL] = legal_bits(state, params)``
    (itself, or through a helper it calls), compiled ``legal_bits`` a second time (about a second of each
    cold start, on every entry point). The copy made here (and a copy of each compiled helper between
    them) calls ``legal_bits``'s one compiled version through
    :func:`~mancala_envs.engine.kernels.rule_by_symbol`, as the per-game templates do: it compiles its own
    body alone, and runs as fast. Each copy is cached by numba under its own name
    (``reset_state[<rules module>,legal_bits_by_symbol]``).

    Args:
        reset: The rules module's compiled ``reset_state`` (a numba dispatcher).
        legal_bits: The game's compiled ``legal_bits``.

    Returns:
        The copy; ``reset`` itself when numba's JIT is off, when either is not a dispatcher, or when
        ``reset`` does not reach ``legal_bits``.
    """
    if numba_config.DISABLE_JIT or not hasattr(legal_bits, "py_func"):
        return reset
    return _linking_by_symbol(reset, legal_bits, {})


def _linking_by_symbol(function: Any, legal_bits: Any, copies: dict[int, Any]) -> Any:
    """``function`` (a dispatcher) with its calls of ``legal_bits`` by symbol, at any depth of compiled helpers
    (``copies``: the copy of each helper met, or the helper itself where it does not reach ``legal_bits``)."""
    if id(function) in copies:
        return copies[id(function)]
    copies[id(function)] = function  # a recursive call stops here
    python = getattr(function, "py_func", None)
    options = getattr(function, "targetoptions", None)
    if python is None or options is None:
        return function
    replaced: dict[str, Any] = {}
    for name in code_global_names(python.__code__):
        value = python.__globals__.get(name)
        if value is legal_bits:
            replaced[name] = rule_by_symbol("game_legal_bits", legal_bits)
        elif hasattr(value, "py_func") and hasattr(value, "targetoptions"):
            copy = _linking_by_symbol(value, legal_bits, copies)
            if copy is not value:
                replaced[name] = copy
    if not replaced:
        return function
    namespace = {**python.__globals__, **replaced}
    copy = types.FunctionType(python.__code__, namespace, python.__name__, python.__defaults__, python.__closure__)
    copy.__qualname__ = f"{python.__qualname__}[{python.__module__},legal_bits_by_symbol]"
    copy.__module__ = python.__module__
    copy.__doc__ = python.__doc__
    kept = {key: value for key, value in options.items() if key not in ("nopython", "boundscheck")}
    copies[id(function)] = njit(cache=True, **kept)(copy)
    return copies[id(function)]


class _LinkedReset:
    """The class attribute ``reset_function`` of a game whose rules module defines ``reset_state``: at its first
    use, :func:`reset_linking_by_symbol` of it and the class's ``legal_bits_function`` (made once per pair)."""

    def __init__(self, reset: Any) -> None:
        self.reset = reset
        self.linked: dict[int, Any] = {}

    def __get__(self, instance: Any, owner: type) -> Any:
        legal_bits = owner.legal_bits_function  # type: ignore[attr-defined]  # a Game subclass
        linked = self.linked.get(id(legal_bits))
        if linked is None:
            linked = self.linked[id(legal_bits)] = reset_linking_by_symbol(self.reset, legal_bits)
        return linked


def compiled_entry(function: Any, *args: Any) -> Any:
    """``function``'s code compiled for the types of ``args``, as a call that skips numba's dispatch.

    A numba dispatcher finds the types of every argument at each call, about a third of a call to a
    game's ``step`` or ``observe`` from Python; the entry point of the overload compiled for those
    types takes the same arguments without that. It checks none of them: only a caller that passes
    arguments of exactly these types on every call (its own arrays, made with the right dtype and
    layout, and Python ints) may use it, as the AEC env does with its state and buffers.

    Args:
        function: A numba dispatcher, or the plain Python function it is when numba's JIT is off.
        *args: Arguments of the types of the calls to come (nothing is called).

    Returns:
        The overload's entry point; ``function`` itself when it is not a dispatcher (JIT off) or has
        no overload for these types yet (numba compiles one at the first call).
    """
    overloads = getattr(function, "overloads", None)
    typeof = getattr(function, "typeof_pyval", None)
    if overloads is None or typeof is None:
        return function
    overload = overloads.get(tuple(typeof(arg) for arg in args))
    return function if overload is None else overload.entry_point


@dataclasses.dataclass(frozen=True)
class Variant:
    """A registered variant of a game: the game with some options fixed, under an id of its own.

    Attributes:
        name: The id's stem, e.g. ``"ouril-mini"`` (registered as ``mancala/ouril-mini-v0`` with the game's
            version, and with Gymnasium as ``mancala/OurilMini-v0``).
        options: The config fields it fixes (plain JSON values), e.g. ``{"pits_per_row": 4}``.
        description: One line for ``list_envs(verbose=True)`` and the docs tables.
    """

    name: str
    options: dict[str, Any]
    description: str


def _same_kind(value: Any, allowed: Any) -> bool:
    if allowed is None or isinstance(allowed, str):
        return type(value) is type(allowed)
    if isinstance(allowed, (bool, np.bool_)):
        return isinstance(value, (bool, np.bool_))
    if isinstance(allowed, (int, np.integer)):
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    return True


def check_choice(field: str, value: Any, allowed: Iterable[Any]) -> None:
    """Raises ``ValueError`` unless ``value`` is one of ``allowed`` (same kind: 6.0 is not 6)."""
    allowed = tuple(allowed)
    if not any(_same_kind(value, option) and value == option for option in allowed):
        raise ValueError(f"{field}={value!r} is not allowed; use one of {list(allowed)}.")


def check_int(field: str, value: Any, low: int, high: int | None = None) -> None:
    """Raises ``ValueError`` unless ``value`` is an int in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{field}={value!r} must be an integer (got {type(value).__name__}).")
    if value < low or (high is not None and value > high):
        upper = "" if high is None else f" and <= {high}"
        raise ValueError(f"{field}={value!r} is out of range; use an integer >= {low}{upper}.")


def check_bool(field: str, value: Any) -> None:
    """Raises ``ValueError`` unless ``value`` is a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{field}={value!r} must be True or False.")


def check_count_set(field: str, value: Any) -> None:
    """Raises ``ValueError`` unless ``value`` is a non-empty list or tuple of seed counts in 1..62."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(
            f"{field}={value!r} must be a list of seed counts such as [2, 3] (got {type(value).__name__})."
        )
    if not value or any(not _is_int(c) or not 1 <= c <= 62 for c in value):
        raise ValueError(f"{field}={value!r} must be a non-empty list of seed counts between 1 and 62.")


def _is_int(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy integer (a bool is not)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_counts(field: str, values: Any, length: int, high: int | None = None) -> list[int]:
    """Returns ``values`` as a list of ints, or raises ``ValueError`` unless they are ``length`` whole seed
    counts from 0 to ``high`` (used for boards and stores of positions).

    ``values`` is a list, a tuple or a 1-d numpy array of Python or numpy integers; a string, a dict, a
    set, floats (even whole ones) and bools are refused.
    """
    if (isinstance(values, np.ndarray) and values.ndim != 1) or not isinstance(values, (list, tuple, np.ndarray)):
        raise ValueError(f"{field} must be a list of {length} seed counts (got {type(values).__name__} {values!r}).")
    if len(values) != length:
        raise ValueError(f"{field} must have {length} entries (got {len(values)}).")
    if any(not _is_int(v) or v < 0 for v in values):
        raise ValueError(f"{field} must hold non-negative whole seed counts (got {list(values)!r}).")
    counts = [int(v) for v in values]
    if high is not None and max(counts, default=0) > high:
        raise ValueError(f"{field} holds {max(counts)} seeds in one entry, more than the {high} seeds of this config.")
    return counts


def config_from_kwargs(config_class: type, config: Any = None, **overrides: Any) -> Any:
    """Builds a game config from an existing config and/or keyword overrides.

    Raises:
        TypeError: if ``config`` has the wrong type or an override names no field.
    """
    if config is None:
        config = config_class()
    elif not isinstance(config, config_class):
        raise TypeError(
            f"config must be a {config_class.__name__} (got {type(config).__name__}); "
            f"build one with {config_class.__name__}(...) or pass its fields as keywords."
        )
    if not overrides:
        return config
    names = {f.name for f in dataclasses.fields(config_class)}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise TypeError(
            f"{config_class.__name__} has no option {', '.join(map(repr, unknown))}; the options are {sorted(names)}."
        )
    return dataclasses.replace(config, **overrides)


#: a whole number in the position notation: ASCII digits only (no sign, no other script's digits)
_WHOLE = re.compile(r"[0-9]+")
#: an integer flag's value in the notation: ASCII digits, with an optional minus sign
_INTEGER = re.compile(r"-?[0-9]+")


def _parse_ints(field: str, text: str) -> list[int]:
    items = text.split(",")
    if not all(_WHOLE.fullmatch(item) for item in items):
        raise ValueError(
            f"position {field} {text!r} must be comma-separated non-negative whole numbers (digits 0-9 only)."
        )
    return [int(item) for item in items]


class Game(ABC):
    """A game's rules as the environment sees them.

    Attributes:
        name: Short game name, e.g. ``"ouril"``.
        version: Environment version number (``ouril_v0`` has version 0).
        config: The validated, frozen configuration.
        params: The config as the ``int64`` array the compiled rules read.
        n_actions: Size of the ``Discrete`` action space.
        n_pits: Number of board slots in the state.
        total_seeds: Seeds in the game (conserved on board plus stores).

    The methods that take a ``state`` (``step``, ``legal_bits``, ``observe``, ``board``, ``info``...) are the
    engine's unchecked fast path, called on every ply: they trust ``state`` to be one the engine made and
    check nothing, and the compiled ones may read outside the array (and end the process) on a state no
    game reaches. Check an array of unknown origin with :meth:`check_state` first, as every public door
    that takes a raw state does (agents' ``act_on_state``, the searches, the perfect-play tables).
    """

    name: ClassVar[str]
    version: ClassVar[int] = 0
    #: the registered ids of the game, the plain game first (see :mod:`mancala_envs.envs.registration`)
    variants: ClassVar[tuple[Variant, ...]] = ()
    #: the game's own end reasons (codes from ``FIRST_GAME_END_REASON``) and their names in ``infos``
    end_reasons: ClassVar[dict[int, str]] = {}
    #: the docstring of the game's public module ``mancala_envs.envs.<name>_v<version>`` (its spec table)
    env_doc: ClassVar[str] = ""
    #: extra keys of ``reset(options=...)`` passed on to ``load_position`` (beyond board, stores,
    #: player), with their kind in the position notation: ``"int"``, ``"bool"``, ``"ints"`` or ``"text"``
    position_options: ClassVar[dict[str, str]] = {}
    #: whether the final scores decide the winner (Omweso's winner is decided by its rules)
    scores_decide_winner: ClassVar[bool] = True
    #: whether :mod:`mancala_envs.algorithms.retrograde` can table the game: a single game's position is its board,
    #: stores, player to move and first-move flag, and seeds that leave the board (into the stores) never return
    tables: ClassVar[bool] = False
    #: whether no position can recur: every move that keeps all the seeds on the board moves the board to a smaller
    #: :func:`~mancala_envs.engine.boards.board_index` among the boards of its seed count (Kalah: seeds only move
    #: forward). The tables then hold one exact byte a position, solved in one sweep, and the table search keeps a
    #: transposition table (:mod:`mancala_envs.algorithms.retrograde`); the sweep checks the claim as it goes.
    acyclic: ClassVar[bool] = False
    #: config fields a table does not depend on (beyond ``max_plies`` and ``repetition``), e.g. Kalah's
    #: ``seeds_per_pit``: one table of the board's pits and rules serves every starting count
    table_ignores: ClassVar[tuple[str, ...]] = ()
    config_class: ClassVar[type]
    config: Any
    params: np.ndarray
    n_actions: int
    n_pits: int
    total_seeds: int

    def __init__(self, config: Any = None) -> None:
        if config is None:
            config = self.config_class()
        elif not isinstance(config, self.config_class):
            raise TypeError(f"config must be a {self.config_class.__name__} (got {type(config).__name__}).")
        self.config = config

    @functools.cached_property
    def end_reason_names(self) -> dict[int, str | None]:
        """Every end reason of this game by code: the shared ones and the game's own (``end_reasons``)."""
        return {**END_REASON_NAMES, **self.end_reasons}

    @property
    def env_name(self) -> str:
        """The PettingZoo-style name, e.g. ``"ouril_v0"``."""
        return f"{self.name}_v{self.version}"

    # --- state ------------------------------------------------------------------
    @property
    @abstractmethod
    def state_size(self) -> int:
        """Length of the state array."""

    # The game module's compiled functions. A subclass finds them in the module that defines it, by
    # these names (reset_state, step, legal_bits, observe, game_over), unless it sets them itself:
    #   reset_function(state, params, first_player) -> None
    #   step_function(state, params, action, trace) -> return code (OK, ILLEGAL, GAME_OVER)
    #   legal_bits_function(state, params) -> bit mask of the legal actions
    #   observe_function(state, params, player, observation, mask) -> None: the egocentric
    #       observation (the game's documented index table) and the 0/1 action mask
    #   game_over_function(state, params) -> None: optional, run when a loaded
    #       position is already over (a match scores the game and goes on)
    #: the game's layout (state slots, params, observation), its rules module's ``LAYOUT``
    layout: ClassVar[Layout]
    reset_function: ClassVar[Any]
    step_function: ClassVar[Any]
    legal_bits_function: ClassVar[Any]
    observe_function: ClassVar[Any]
    game_over_function: ClassVar[Any] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Binds the rules module's compiled functions (``reset_state``, ``step``, ``legal_bits``,
        ``observe``, ``game_over``) and its ``LAYOUT`` to the class attributes above, unless the class
        sets them."""
        super().__init_subclass__(**kwargs)
        module = vars(sys.modules[cls.__module__]) if cls.__module__ in sys.modules else {}
        if "layout" not in cls.__dict__ and "LAYOUT" in module:
            cls.layout = module["LAYOUT"]
        for attribute, name in RULE_FUNCTIONS.items():
            if attribute not in cls.__dict__ and name in module:
                rule = module[name]
                setattr(cls, attribute, _LinkedReset(rule) if attribute == "reset_function" else staticmethod(rule))

    def compiled(self, template: Any, **constants: int) -> Any:
        """The copy of a per-game template (:mod:`mancala_envs.engine.kernels`) compiled for this game.

        This is the public fast path of the batched games, the opponents and the search agents:
        ``game.compiled(greedy_action)(state, game.params, trial, draw)`` compiles this game's rules
        alone, once (and loads them from numba's cache after that). ``constants`` fix module-level
        constants of the templates (see :func:`~mancala_envs.engine.kernels.specialise`).
        """
        return specialise(template, self, **constants)  # type: ignore[arg-type]  # GameRules: the rules are class attributes

    @property
    def history_start(self) -> int:
        """First state slot of the repetition history; 0 for a game that keeps none."""
        return 0

    def reset_state(self, state: np.ndarray, first_player: int) -> None:
        """Writes the initial position with ``first_player`` to move into ``state``."""
        self.reset_function(state, self.params, first_player)

    def step(self, state: np.ndarray, action: int, trace: np.ndarray) -> int:
        """Plays ``action`` for the player to move.

        Returns:
            ``OK``, or ``ILLEGAL`` / ``GAME_OVER`` (see ``mancala_envs.engine.state``)
            with ``state`` unchanged.
        """
        return self.step_call(state, self.params, action, trace)

    @functools.cached_property
    def step_call(self) -> Any:
        """The compiled ``step`` as Python calls it, ``step_call(state, params, action, trace)``.

        Looked up once per game object: finding it again (``called``) on every ply cost more than the dispatch
        itself (a search calls :meth:`step` in its innermost loop; the AEC env binds its entry point). Kept
        in the instance's ``__dict__``, where :meth:`step` finds it without a property call.
        """
        return called(self.step_function)

    def __getstate__(self) -> dict[str, Any]:
        """The game's attributes without the compiled call :meth:`step` keeps (looked up again after a copy)."""
        state = self.__dict__.copy()
        state.pop("step_call", None)
        return state

    def stepper(self, first_player: int = 0, *, trace: bool = False) -> Stepper:
        """A :class:`~mancala_envs.games.stepper.Stepper`: one game of this game played from Python at the cost of
        one small compiled call a ply (a search's loop), its actions and states checked.

        Args:
            first_player: Who moves first in the opening it starts from.
            trace: Whether each ply records the pits it sowed and captured (``stepper.last_trace()``).
        """
        from mancala_envs.games.stepper import Stepper  # the stepper's module imports this one

        return Stepper(self, first_player, trace=trace)

    def legal_bits(self, state: np.ndarray) -> int:
        """Computes the legal actions of the player to move as a bit mask."""
        return int(self.legal_bits_function(state, self.params))

    def new_state(self, first_player: int) -> np.ndarray:
        """Returns a fresh initial state."""
        state = np.zeros(self.state_size, dtype=np.int64)
        self.reset_state(state, first_player)
        return state

    # --- observation -------------------------------------------------------------
    def layout_values(self) -> dict[str, Any]:
        """The values of the symbols the game's ``layout`` uses (``"n"``, ``"T"``...) for this config."""
        return {}

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Returns the ``(low, high)`` int32 arrays of the observation vector (from the game's ``layout``)."""
        return self.layout.observation_bounds(self.layout_values())

    @property
    def observation_size(self) -> int:
        """Length of the observation vector."""
        size = self.__dict__.get("_observation_size")
        if size is None:
            size = self._observation_size = len(self.observation_bounds()[0])
        return size

    def observe(self, state: np.ndarray, player: int) -> np.ndarray:
        """Returns ``player``'s egocentric observation vector (int32)."""
        return self.observe_with_mask(state, player)[0]

    def observe_with_mask(self, state: np.ndarray, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Returns ``player``'s observation and int8 action mask (all zero unless ``player`` is to move).

        Both come from the game's compiled ``observe``, which the batched games and vector envs
        call too.
        """
        observation = np.empty(self.observation_size, dtype=np.int32)
        mask = np.empty(self.n_actions, dtype=np.int8)
        self.observe_function(state, self.params, player, observation, mask)
        return observation, mask

    def observation_names(self) -> list[str]:
        """Names the entries of the observation vector, in order (from the game's ``layout``)."""
        return self.layout.observation_names(self.layout_values())

    # --- inspection -------------------------------------------------------------------
    def board(self, state: np.ndarray) -> np.ndarray:
        """Returns a copy of the board in the game's documented index order."""
        return state[BOARD : BOARD + self.n_pits].copy()

    def stores(self, state: np.ndarray) -> np.ndarray:
        """Returns a copy of the two stores (seeds captured so far)."""
        return state[STORE : STORE + 2].copy()

    def legal_mask(self, state: np.ndarray) -> np.ndarray:
        """Returns the legal actions of the player to move as a new int8 mask."""
        bits = int(state[LEGAL])
        table = self.__dict__.get("_mask_table")
        if table is None:
            if self.n_actions > 12:
                return ((bits >> np.arange(self.n_actions)) & 1).astype(np.int8)
            every_mask = np.arange(1 << self.n_actions)[:, None] >> np.arange(self.n_actions)
            table = self._mask_table = (every_mask & 1).astype(np.int8)
        return table[bits].copy()

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        """Returns the legal actions of the player to move, in increasing order (a read-only array)."""
        bits = int(state[LEGAL])
        if self.n_actions > 12:
            return np.flatnonzero((bits >> np.arange(self.n_actions)) & 1)
        table = self.__dict__.get("_actions_table")
        if table is None:
            table = self._actions_table = []  # type: ignore[var-annotated]  # read-only arrays
            for every in range(1 << self.n_actions):
                actions = np.flatnonzero((every >> np.arange(self.n_actions)) & 1)
                actions.flags.writeable = False
                table.append(actions)  # type: ignore[arg-type]  # (the list above)
        return table[bits]

    def info(self, state: np.ndarray) -> dict[str, Any]:
        """Returns the facts about the game that the environment reports in ``infos``."""
        return self.header_info(state[:HEADER_SIZE].tolist())

    def header_info(self, header: list[int]) -> dict[str, Any]:
        """The shared facts of :meth:`info`, read from the state's first ``HEADER_SIZE`` (or more) slots as
        Python ints: a game that adds its own facts converts its state once and passes the list here."""
        running = header[STATUS] == RUNNING
        scores = STORE if running else SCORE
        points = MATCH if self.is_match else POINTS
        winner = header[WINNER]
        return {
            "scores": header[scores : scores + 2],
            "match_points": header[points : points + 2],
            "end_reason": self.end_reason_names[header[END_REASON]],
            "winner": None if running or winner < 0 else winner,
            "ply": header[PLY],
            "passes": header[PASSES],
            "player_to_move": header[PLAYER] if running else None,
            "games_played": header[GAMES_PLAYED],
        }

    @property
    def is_match(self) -> bool:
        """Whether an episode is a match of several games."""
        return False

    @property
    def max_episode_plies(self) -> int:
        """The most plies an episode can last: the ply cap, times the game or round cap of a match."""
        return self.max_plies  # type: ignore[attr-defined]  # each game declares it

    # --- state checks -----------------------------------------------------------------------------
    def held_seeds(self, state: np.ndarray) -> int | None:
        """The seeds ``state`` accounts for (board plus stores), which must be ``total_seeds``;
        ``None`` in a phase where not every seed is in play yet. Summed as Python integers: a snapshot
        from a file may hold any int64, and the sum must not wrap around."""
        return sum(state[BOARD : BOARD + self.n_pits].tolist()) + sum(state[STORE : STORE + 2].tolist())

    def check_state(self, state: Any) -> None:
        """Raises unless ``state`` is a state array of this game that a game reaches: the one check of a raw
        state, at every public door that takes one (agents' ``act_on_state``, ``alphabeta_search``,
        ``mcts_search``, the perfect-play ``Table``'s lookups, ``env.load_state_dict``).

        The array must be what the engine makes (``new_state``, ``env.unwrapped.state_array``): a
        writable, C-contiguous 1-d ``int64`` numpy array of :attr:`state_size` entries. Its content must
        be reachable (:meth:`check_reachable`): header, repetition memory, seeds, legal-move mask,
        position and observations. It is read, never changed; it costs a few tenths of a millisecond (0.2-0.6 ms
        measured on a busy 2-core VM), far more than a compiled ply.

        Raises:
            TypeError: ``state`` is not such an array (another type, dtype, shape, a view that is not
                contiguous, a read-only array); the message names what differs.
            ValueError: its content is inconsistent; the message names the first part that is (e.g.
                ``the state's board has a negative count``) and where a valid state comes from.
        """
        form = (
            f"state must be a writable, C-contiguous int64 array of shape ({self.state_size},), a state of "
            f"{self.env_name} such as env.unwrapped.state_array or game.new_state(0)"
        )
        if not isinstance(state, np.ndarray):
            raise TypeError(f"{form} (got {type(state).__name__}).")
        if state.dtype != np.int64:
            raise TypeError(f"{form} (got dtype {state.dtype}; values are not converted).")
        if state.shape != (self.state_size,):
            raise TypeError(f"{form} (got shape {state.shape}).")
        if not state.flags.c_contiguous or not state.flags.writeable:
            what = "a non-contiguous view" if not state.flags.c_contiguous else "a read-only array"
            raise TypeError(f"{form} (got {what}; pass np.array(state) for a writable copy).")
        try:
            self.check_reachable(state)
        except ValueError as error:
            raise ValueError(
                f"{error} No {self.env_name} game reaches this state: take states from the engine "
                "(env.unwrapped.state_array, game.new_state(0), env.state_dict())."
            ) from None

    def check_reachable(self, state: np.ndarray) -> None:
        """Raises ``ValueError`` naming the first inconsistency of ``state``, an ``int64`` array of
        :attr:`state_size` entries (:meth:`check_state` checks its form first, then calls this). A game's
        companion extends it with the checks of its own slots.

        A state passes only if a game can reach it: its header is one the game can reach
        (:meth:`check_header`), its repetition memory is consistent (:meth:`check_history`), its seeds
        are conserved, ``LEGAL`` holds exactly the legal actions of the player to move, its position is
        one ``reset(options=...)`` accepts (:meth:`check_position`, the same validation as that door),
        and both players' observations lie within their bounds.
        """
        self.check_header(state)
        self.check_history(state)
        if (state[BOARD : BOARD + self.n_pits] < 0).any():
            raise ValueError("the state's board has a negative count.")
        held = self.held_seeds(state)
        if held is not None and held != self.total_seeds:
            raise ValueError(f"the state holds {held} seeds; this config has {self.total_seeds}.")
        legal = self.legal_bits(state) if state[STATUS] == RUNNING else 0
        if int(state[LEGAL]) != legal or (state[STATUS] == RUNNING and legal == 0):
            raise ValueError("the state's legal-move mask does not match its position.")
        self.check_position(state)
        low, high = self.observation_bounds()
        for player in (0, 1):
            observation = self.observe(state, player)
            if (observation < low).any() or (observation > high).any():
                raise ValueError(f"player {player}'s observation of the state is outside its bounds.")

    # The shared header slots (name -> index) and the pairs among them (one slot per player).
    _HEADER_NAMES: ClassVar[dict[str, int]] = {
        name: index
        for name, index in vars(state_slots).items()
        if name.isupper()
        and isinstance(index, int)
        and name in state_slots.__all__
        and index < GAME_SLOTS
        and name not in ("BOARD", "HEADER_SIZE", "GAME_SLOTS")
        and (name == "END_REASON" or not name.startswith(("END_", "FIRST_GAME")))
        and name not in ("OK", "ILLEGAL", "GAME_OVER", "RUNNING", "TERMINATED", "TRUNCATED")
    }
    _PAIRS: ClassVar[tuple[str, ...]] = ("STORE", "SCORE", "POINTS", "MATCH")

    def header_slots_used(self) -> dict[int, str]:
        """The header slots the game's ``layout`` declares, by index: the shared slots it uses (both
        slots of a per-player pair) and its own slots in the header's free part. Every other header
        slot stays 0 in every state the game reaches."""
        used: dict[int, str] = {}
        for name in self.layout.header:
            index = getattr(state_slots, name)
            used[index] = name
            if name in self._PAIRS:
                used[index + 1] = name
        if self.layout.slots_start == GAME_SLOTS:
            for field in self.layout.slots:
                for offset in range(field.size):
                    used[self.layout.slot(field.name) + offset] = field.name
        return used

    def header_ranges(self) -> dict[int, tuple[str, int, int | None]]:
        """The values each shared header slot can hold in a state the game reaches: slot ->
        ``(name in messages, lowest, highest or None)``. A game's companion tightens or adds ranges
        (its counters' caps, its own slots)."""
        match = self.is_match
        games_cap = getattr(self.config, "max_games", None) or getattr(self.config, "max_rounds", 0)
        return {
            PLAYER: ("player", 0, 1),
            PLY: ("ply counter", 0, getattr(self, "max_plies", None)),
            STATUS: ("status", RUNNING, 2),
            WINNER: ("winner", -1, 1),
            STARTER: ("starter", 0, 1),
            LAST_ACTION: ("last action", -1, self.n_actions - 1),
            PASSES: ("passes", 0, 1),
            FIRST_MOVE_DONE: ("first-move flag", 0, 1),
            ENDLESS: ("endless flag", 0, 1),
            TURN: ("turn counter", 0, None),
            LAPS: ("lap counter", 0, None),
            GAMES_PLAYED: ("games played", 0, games_cap if match else 0),
        }

    def check_header(self, state: np.ndarray) -> None:
        """Raises ``ValueError`` unless the state's header is one the game can reach.

        Derived from the game's ``layout``: a header slot the layout does not declare must be 0; a
        declared one must lie in its range (:meth:`header_ranges`). Then the ties between slots:
        the end reason and the status, no winner while running, no ply without a last action and a
        first move, and no match tallies outside a match (nor a running match already decided).
        """
        used = self.header_slots_used()
        for slot in range(HEADER_SIZE):
            if slot not in used and state[slot] != 0:
                name = next((n for n, i in self._HEADER_NAMES.items() if i == slot), "free")
                raise ValueError(
                    f"the state's slot {slot} ({name}) holds {int(state[slot])}; {self.name} does not use it, so "
                    "it must be 0."
                )
        ranges = self.header_ranges()
        for slot, (name, low, high) in ranges.items():
            if slot in used and (state[slot] < low or (high is not None and state[slot] > high)):
                allowed = f"{low}..{high}" if high is not None else f">= {low}"
                raise ValueError(f"the state's {name} slot holds {int(state[slot])}, out of range ({allowed}).")
        running = state[STATUS] == RUNNING
        cap = getattr(self, "max_plies", None)
        if running and cap is not None and ranges[PLY][2] == cap and state[PLY] >= cap:
            # the ply cap ends a game at the ply that reaches it: no running game has played that many
            raise ValueError(
                f"the state's ply counter holds {int(state[PLY])} while the game runs; the ply cap (max_plies="
                f"{cap}) ends a game at its {cap}th ply, so a running game has played fewer."
            )
        if int(state[END_REASON]) not in self.end_reason_names:
            raise ValueError(f"the state's end reason {int(state[END_REASON])} is unknown.")
        if (state[END_REASON] == 0) != running:
            raise ValueError("the state's end reason does not match its status (set while running, or missing).")
        if running and state[WINNER] != -1:
            raise ValueError(f"the state's winner slot holds {int(state[WINNER])} while the game runs; it must be -1.")
        if (state[LAST_ACTION] == -1) != (state[PLY] == 0):
            raise ValueError(
                "the state's last action and ply counter disagree (a last action exactly when a ply was played)."
            )
        if state[PLY] > 0 and state[FIRST_MOVE_DONE] != 1:
            raise ValueError("the state's first-move flag is 0 after plies were played.")
        for slot, name in ((STORE, "stores"), (SCORE, "scores"), (POINTS, "points"), (MATCH, "match points")):
            if (state[slot : slot + 2] < 0).any():
                raise ValueError(f"the state's {name} are negative.")
        if not self.is_match:
            if state[MATCH : MATCH + 2].any():
                raise ValueError("the state holds match points, but this config plays single games.")
            if running and (state[SCORE : SCORE + 2].any() or state[POINTS : POINTS + 2].any()):
                raise ValueError("the state holds final scores or points while its single game runs.")
        target = getattr(self.config, "match_target", None)
        if self.is_match and running and target and (state[MATCH : MATCH + 2] >= target).any():
            raise ValueError(
                f"the state's match points {state[MATCH : MATCH + 2].tolist()} reach the target {target} while the "
                "match runs."
            )

    def check_position(self, state: np.ndarray) -> None:
        """Raises ``ValueError`` unless the state's position is one ``reset(options=...)`` accepts.

        The position (:meth:`position_fields`) is loaded with :meth:`load_position`, the very checks
        of ``reset(options=...)``, into a scratch state. For a running game, loading it must give the
        same position back, still running, with the same legal moves and the same slots that the
        position decides (:meth:`position_slots`).
        """
        fields = self.position_fields(state)
        scratch = np.zeros_like(state)
        try:
            self.load_checked_position(scratch, fields, state)
        except (TypeError, ValueError) as error:
            raise ValueError(f"the state's position is one reset(options=...) refuses: {error}") from None
        if state[STATUS] != RUNNING:
            return
        differs = [slot for slot in self.position_slots(state) if scratch[slot] != state[slot]]
        if scratch[STATUS] != RUNNING or self.position_fields(scratch) != fields or differs:
            what = ", ".join(self._slot_name(slot) for slot in differs) or "the position"
            raise ValueError(
                f"the state's {what} is not what its position gives: no game reaches it "
                f"(reset(options=...) loads the position as {self.position_string(scratch)!r})."
            )

    def load_checked_position(self, scratch: np.ndarray, fields: dict[str, Any], state: np.ndarray) -> None:
        """Loads a snapshot's position ``fields`` into ``scratch`` as ``reset(options=...)`` would
        (a game may widen what a finished game's position holds, such as Omweso's turn cap)."""
        self.load_position(scratch, **fields)

    def position_slots(self, state: np.ndarray) -> list[int]:
        """The state slots, beyond the position's fields, that a running game's position decides
        (compared by :meth:`check_position`); none for most games."""
        return []

    def _slot_name(self, slot: int) -> str:
        for name, index in self._HEADER_NAMES.items():
            if index == slot:
                return name.lower().replace("_", " ")
        for field in self.layout.slots:
            if self.layout.slot(field.name) <= slot < self.layout.slot(field.name) + field.size:
                return field.name.lower().replace("_", " ")
        return f"slot {slot}"

    def check_history(self, state: np.ndarray) -> None:
        """Raises ``ValueError`` unless the state's repetition memory is empty (games without one)."""
        if state[HISTORY_LEN] != 0 or state[HISTORY_FILTER] != 0:
            raise ValueError("the state has a repetition history, which this game does not keep.")

    # --- positions ------------------------------------------------------------------------------
    def load_position(
        self, state: np.ndarray, board: Sequence[int], stores: Sequence[int], player: int, **flags: Any
    ) -> None:
        """Replaces the game in ``state`` by a position (see each game); raises ``ValueError`` if invalid."""
        raise NotImplementedError(f"{type(self).__name__} cannot load positions.")

    def position_flags(self, state: np.ndarray) -> dict[str, Any]:
        """The game's own position flags in ``state`` (the keys of ``position_options`` that differ
        from their defaults), so that ``load_position`` recreates the position."""
        return {}

    def position_fields(self, state: np.ndarray) -> dict[str, Any]:
        """The position in ``state`` as ``reset(options=...)`` takes it: board, stores, player, flags."""
        fields: dict[str, Any] = {
            "board": state[BOARD : BOARD + self.n_pits].tolist(),
            "stores": state[STORE : STORE + 2].tolist(),
            "player": int(state[PLAYER]),
        }
        fields.update(self.position_flags(state))
        return fields

    def position_string(self, state: np.ndarray) -> str:
        """The position notation of ``state``: ``"<P0 pits>/<P1 pits> <stores> <player> [key=value ...]"``.

        Pits are comma-separated counts in the board order of the rules page (the first half of
        the board, then the second half); stores are ``"a,b"``; the player to move is ``0`` or
        ``1``; the game's flags follow as ``key=value`` (bools as ``0``/``1``, lists
        comma-separated). Example (Ouril's opening): ``"4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"``.
        """
        fields = self.position_fields(state)
        board = fields.pop("board")
        half = len(board) // 2
        text = (
            ",".join(map(str, board[:half]))
            + "/"
            + ",".join(map(str, board[half:]))
            + " "
            + ",".join(map(str, fields.pop("stores")))
            + " "
            + str(fields.pop("player"))
        )
        for key, value in fields.items():
            if isinstance(value, bool):
                value = int(value)
            elif isinstance(value, (list, tuple)):
                value = ",".join(map(str, value))
            text += f" {key}={value}"
        return text

    def parse_position(self, text: str) -> dict[str, Any]:
        """Parses the position notation (see :meth:`position_string`) into ``reset`` options.

        Raises:
            ValueError: the text is malformed; the message names the part and shows the format.
        """
        form = f"'<{self.n_pits // 2} pits>/<{self.n_pits // 2} pits> <store>,<store> <player> [key=value ...]'"
        if not isinstance(text, str):
            raise ValueError(f"position must be a string in the form {form} (got {type(text).__name__}).")
        odd = sorted({char for char in text if char.isspace() and char != " "})
        if odd:
            raise ValueError(
                f"position {text!r} must separate its fields with spaces only (found {', '.join(map(repr, odd))}); "
                f"write it on one line as {form}."
            )
        parts = text.split(" ")
        parts = [part for part in parts if part]
        if len(parts) < 3:
            raise ValueError(f"position {text!r} has {len(parts)} fields; write it as {form}.")
        halves = parts[0].split("/")
        if len(halves) != 2:
            raise ValueError(f"position board {parts[0]!r} must be two halves separated by '/'; write {form}.")
        half = self.n_pits // 2
        for name, pits in zip(("first", "second"), halves, strict=True):  # two halves: checked above
            if len(pits.split(",")) != half:
                raise ValueError(
                    f"position board: the {name} half {pits!r} must hold {half} counts "
                    f"({len(pits.split(','))} given); write {form}."
                )
        if parts[2] not in ("0", "1"):
            raise ValueError(f"position player {parts[2]!r} must be 0 or 1 (the player to move).")
        fields: dict[str, Any] = {
            "board": _parse_ints("board", ",".join(halves)),
            "stores": _parse_ints("stores", parts[1]),
            "player": int(parts[2]),
        }
        for item in parts[3:]:
            key, sep, value = item.partition("=")
            kind = self.position_options.get(key)
            if not sep or kind is None:
                known = ", ".join(sorted(self.position_options)) or "none"
                raise ValueError(f"position flag {item!r} is not 'key=value' with a known key (known: {known}).")
            if key in fields:
                raise ValueError(f"position flag {key!r} is given twice.")
            if kind == "int":
                if not _INTEGER.fullmatch(value):
                    raise ValueError(f"position flag {key}={value!r} must be a whole number (digits 0-9 only).")
                fields[key] = int(value)
            elif kind == "bool":
                if value not in ("0", "1"):
                    raise ValueError(f"position flag {key}={value!r} must be 0 or 1.")
                fields[key] = value == "1"
            elif kind == "ints":
                fields[key] = _parse_ints(key, value) if value else []
            else:
                fields[key] = value
        return fields

    def describe_action(self, state: np.ndarray, action: int) -> str:
        """Says in words what ``action`` does in ``state`` (before it is played), e.g. ``"sows pit 3"``,
        naming the pit by its global index (the board's numbering)."""
        return f"sows pit {self.played_pit(int(state[PLAYER]), action)}"

    # --- pictures ----------------------------------------------------------------------
    #: whether the captured seeds lie in two stores at the board's ends (Omweso only keeps tallies)
    has_stores: ClassVar[bool] = True

    def board_rows(self) -> list[list[int]]:
        """The rows of pits as seen from player 0's seat: the far row first, each row's global pit
        indices from left to right (the picture and the text board follow it)."""
        raise NotImplementedError(f"{type(self).__name__} does not describe its rows; override board_rows().")

    def played_pit(self, player: int, action: int) -> int:
        """The global pit that ``player``'s ``action`` empties (or, while placing, fills)."""
        raise NotImplementedError(f"{type(self).__name__} does not map actions to pits; override played_pit().")

    def pit_label(self, pit: int) -> str:
        """The name of global pit ``pit`` where people read it: under each bowl of the pictures (PNG and SVG) and in
        the captions. By default the global index; a game whose notation numbers each player's pits in their own
        frame (Omweso: 0-15 each, as ``describe_action`` and the text board name them) overrides it, so that the
        picture, the captions and the moves' words agree."""
        return str(pit)

    def move_words(self, player: int, action: int, sown: Sequence[int]) -> str:
        """What a played move did, in a few words for a caption: ``"sowed pit 3"``."""
        return f"sowed pit {self.pit_label(self.played_pit(player, action))}"

    @abstractmethod
    def render_text(self, state: np.ndarray) -> str:
        """Returns a dependency-free text picture of the position."""
