"""The PettingZoo AEC environment that adapts any game of the library.

Every game module provides the rules; :class:`MancalaEnv` turns them into a
two-agent, turn-based PettingZoo environment with action masking. The public
game modules (``mancala_envs.envs.ouril_v0`` ..., made by :mod:`mancala_envs.envs`
from the list of games) only bind a game to it.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mancala_envs.common.errors import GameOverError, IllegalActionError
from mancala_envs.common.files import json_plain
from mancala_envs.common.validation import check_action, check_seed
from mancala_envs.engine.state import (
    END_ILLEGAL_ACTION,
    END_REASON,
    GAME_OVER,
    GAMES_PLAYED,
    LEGAL,
    MATCH,
    PASSES,
    PLAYER,
    PLY,
    POINTS,
    RUNNING,
    SCORE,
    STATUS,
    STORE,
    TERMINATED,
    TRUNCATED,
    WINNER,
)
from mancala_envs.engine.trace import CAPTURE_CAPACITY as TRACE_CAPTURES
from mancala_envs.engine.trace import SOWN_CAPACITY as TRACE_SOWN
from mancala_envs.engine.trace import new_trace, read_trace
from mancala_envs.games.game import Game, check_choice, compiled_entry

__all__ = [
    "AGENTS",
    "ENV_OPTIONS",
    "INFOS_MODES",
    "LEAN_INFO_KEYS",
    "RENDER_MODES",
    "SNAPSHOT_FORMAT",
    "TENSOR_INFO_KEYS",
    "MancalaEnv",
    "unwrap_env",
]

AGENTS = ("player_0", "player_1")
ILLEGAL_ACTION_POLICIES = ("penalty", "raise")
REWARD_MODES = ("win_loss", "match_points")
#: the ``infos`` option: numbers of fixed shape only (``"lean"``, the default, see :data:`LEAN_INFO_KEYS`), or the
#: game's full facts with the decoded last move (``"full"``). ``"tensor"`` is the earlier name of ``"lean"``.
INFOS_MODES = ("lean", "full")
#: Keyword arguments taken by the environment itself; every other keyword is a game option.
ENV_OPTIONS = ("render_mode", "first_player", "illegal_action", "reward_mode", "infos")
#: The keys of each agent's info dict under ``infos="lean"`` (the default), the same for every game, agent and step
#: (from ``reset`` on). Every value is an ``int``, except the pairs (one entry per player, ``player_0``
#: first), which are ``int64`` arrays of shape ``(2,)``. -1 stands for "none":
#:
#: ================  =====  ==================================================================================
#: key               shape  value
#: ================  =====  ==================================================================================
#: scores            (2,)   seeds in each store while the game runs; the final scores once it is over
#: match_points      (2,)   match points accumulated in a match; those of the last finished game otherwise
#: winner            ()     0 or 1 once the game is over; -1 while it runs and after a draw
#: end_reason        ()     0 while the game runs, then the end's code: ``env.game.end_reason_names[code]``
#:                          is the name that ``env.facts()`` gives (1 threshold, 2 no_legal_move,
#:                          3 no_feeding_move, 4 repetition, 5 max_plies, 6 illegal_action, 7 max_games,
#:                          8 match_target, 9 endless_move; a game's own codes from 10)
#: ply               ()     agent decisions taken in the current game
#: passes            ()     automatic passes that followed the last ply
#: player_to_move    ()     0 or 1; -1 once the game is over
#: games_played      ()     games finished in the current match (0 outside a match)
#: last_player       ()     the player (0 or 1) who played the last ply; -1 before the first
#: last_action       ()     the action of the last ply; -1 before the first
#: ================  =====  ==================================================================================
LEAN_INFO_KEYS = (
    "scores",
    "match_points",
    "winner",
    "end_reason",
    "ply",
    "passes",
    "player_to_move",
    "games_played",
    "last_player",
    "last_action",
)
#: the earlier name of :data:`LEAN_INFO_KEYS` (from when the lean infos were the opt-in ``infos="tensor"``)
TENSOR_INFO_KEYS = LEAN_INFO_KEYS
RENDER_MODES = ("ansi", "human", "rgb_array", "svg")
#: the ``format`` entry of every ``state_dict()``; a new layout gets a new number
SNAPSHOT_FORMAT = "mancala-envs-snapshot-1"
#: the dtypes of the observation vector and the action mask (``np.empty`` takes a dtype object fastest)
_OBSERVATION_DTYPE = np.dtype(np.int32)
_MASK_DTYPE = np.dtype(np.int8)
#: the type of the actions that ``np.flatnonzero`` of a mask gives, which ``step`` takes without the general checks
_ACTION_INT64 = np.int64
SNAPSHOT_KEYS = frozenset(
    {
        "format",
        "env",
        "config",
        "state",
        "rng",
        "agents",
        "agent_selection",
        "rewards",
        "cumulative_rewards",
        "terminations",
        "truncations",
        "last_move",
    }
)


def _snapshot_state(values: Any, size: int) -> np.ndarray:
    if not isinstance(values, (list, tuple)) or len(values) != size:
        raise ValueError(f"the snapshot's state must be a list of {size} integers; take it with env.state_dict().")
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in values):
        raise ValueError("the snapshot's state must hold integers only.")
    if any(not -(2**63) <= v < 2**63 for v in values):
        raise ValueError("the snapshot's state holds an integer beyond 64 bits; it was not made by state_dict().")
    return np.array(values, dtype=np.int64)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_finite_number(value: Any) -> bool:
    """Whether ``value`` is an int or float that a float holds, neither NaN nor infinite (a bool is not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an int beyond a float's range
        return False


#: numpy's PCG64 state, as ``bit_generator.state`` gives it: the keys and the range of each integer
_PCG64_FIELDS = {"state": 2**128, "inc": 2**128}
_PCG64_HEADER = {"has_uint32": 2, "uinteger": 2**32}


def _check_rng(state: Any) -> None:
    """Raises ``ValueError`` unless ``state`` is a PCG64 state that numpy's own generator can hold."""

    def malformed(why: str) -> ValueError:
        return ValueError(f"the snapshot's rng state is malformed ({why}); take it with env.state_dict().")

    if not isinstance(state, dict) or set(state) != {"bit_generator", "state", *_PCG64_HEADER}:
        raise malformed(
            "it must be the dict of a PCG64 bit_generator.state: bit_generator, state, has_uint32, uinteger"
        )
    if state["bit_generator"] != "PCG64":
        raise malformed(f"bit_generator {state['bit_generator']!r} is not 'PCG64'")
    inner = state["state"]
    if not isinstance(inner, dict) or set(inner) != set(_PCG64_FIELDS):
        raise malformed("its state must be a dict of 'state' and 'inc'")
    for key, top in (*_PCG64_FIELDS.items(), *_PCG64_HEADER.items()):
        value = inner[key] if key in _PCG64_FIELDS else state[key]
        if not _is_int(value) or not 0 <= value < top:
            raise malformed(f"{key}={value!r} must be an integer from 0 to {top - 1}")
    if inner["inc"] % 2 == 0:
        raise malformed(f"inc={inner['inc']} must be odd, as every PCG64 increment is")


def _check_last_move(move: Any, game: Game) -> None:
    """Raises ``ValueError`` unless ``move`` is ``None`` or a last move of this game: a player, an action in
    range, sown pits on the board (or in a store, for a game that sows into its stores) and captures of
    one or more seeds from pits on the board."""
    if move is None:
        return
    pits = range(game.n_pits + (2 if game.has_stores else 0))  # a store is recorded as n_pits + player
    if not isinstance(move, dict) or set(move) != {"player", "action", "sown", "captures"}:
        raise ValueError(
            "the snapshot's last_move is malformed: it must be None or a dict of player, action, sown, captures."
        )
    if not _is_int(move["player"]) or move["player"] not in (0, 1):
        raise ValueError(f"the snapshot's last_move player {move['player']!r} must be 0 or 1.")
    if not _is_int(move["action"]) or not 0 <= move["action"] < game.n_actions:
        raise ValueError(
            f"the snapshot's last_move action {move['action']!r} must be an integer in 0..{game.n_actions - 1}."
        )
    sown = move["sown"]
    if not isinstance(sown, list) or len(sown) > TRACE_SOWN or any(not _is_int(pit) or pit not in pits for pit in sown):
        raise ValueError(
            f"the snapshot's last_move sown must be a list of at most {TRACE_SOWN} pits in 0..{len(pits) - 1} "
            f"(got {sown!r})."
        )
    captures = move["captures"]
    if (
        not isinstance(captures, list)
        or len(captures) > TRACE_CAPTURES
        or any(
            not isinstance(c, list)
            or len(c) != 2
            or not all(_is_int(v) for v in c)
            or not 0 <= c[0] < game.n_pits
            or not 1 <= c[1] <= game.total_seeds
            for c in captures
        )
    ):
        raise ValueError(
            f"the snapshot's last_move captures must be a list of [pit, seeds] pairs, pits in 0..{game.n_pits - 1} "
            f"and seeds in 1..{game.total_seeds} (got {captures!r})."
        )


def _check_bookkeeping(snapshot: dict[str, Any], state: np.ndarray, game: Game) -> None:
    """Raises ``ValueError`` unless the snapshot's PettingZoo bookkeeping fits its engine state."""
    agents = snapshot["agents"]
    if not isinstance(agents, list) or agents not in ([], list(AGENTS), ["player_0"], ["player_1"]):
        raise ValueError("the snapshot's agents must be a list of the live agents, such as ['player_0', 'player_1'].")
    if snapshot["agent_selection"] not in AGENTS:
        raise ValueError(f"the snapshot's agent_selection must be one of {list(AGENTS)}.")
    for key in ("rewards", "cumulative_rewards", "terminations", "truncations"):
        value = snapshot[key]
        if not isinstance(value, dict) or set(value) != set(agents):
            raise ValueError(f"the snapshot's {key} must map each live agent ({agents}) to a value.")
        for item in value.values():
            if key in ("terminations", "truncations"):
                if not isinstance(item, bool):
                    raise ValueError(f"the snapshot's {key} must be True or False for each agent.")
            elif not _is_finite_number(item):
                raise ValueError(f"the snapshot's {key} must be finite numbers (got {item!r}).")
    status = int(state[STATUS])
    ended = {"terminations": status == TERMINATED, "truncations": status == TRUNCATED}
    for key, expected in ended.items():
        if agents and set(snapshot[key].values()) != {expected}:
            raise ValueError(f"the snapshot's {key} do not match the engine's game status.")
    if status == RUNNING and (agents == [] or snapshot["agent_selection"] != AGENTS[int(state[PLAYER])]):
        raise ValueError("the snapshot's agent_selection is not the engine's player to move.")
    _check_last_move(snapshot["last_move"], game)


def unwrap_env(env: Any) -> MancalaEnv:
    """The :class:`MancalaEnv` under ``env`` (itself, or ``env.unwrapped`` of a wrapper).

    Raises:
        TypeError: ``env`` is not a mancala_envs AEC environment; the message says how to make one.
    """
    raw = getattr(env, "unwrapped", None)
    if not isinstance(raw, MancalaEnv):
        raise TypeError(
            f"an opponent acts on a mancala_envs AEC environment (got {type(env).__name__}); "
            "pass one such as mancala_envs.make('ouril_v0')."
        )
    return raw


class MancalaEnv(AECEnv):
    """A two-player mancala game as a PettingZoo AEC environment.

    Agents are ``player_0`` and ``player_1``; player ``p`` owns the pits the
    rules page gives to P``p``. Each observation is a dict with an egocentric
    ``observation`` vector (the game's documented index table) and an int8
    ``action_mask`` that is all zero for the agent not to move.

    Args:
        game: The game, with its validated config.
        render_mode: ``None``; ``"ansi"``: ``render()`` returns the text board;
            ``"rgb_array"``: ``render()`` returns the picture of the board, an
            ``(H, W, 3)`` ``uint8`` array with the last move highlighted;
            ``"human"``: the picture is shown in a window, after every step and
            at each ``render()`` call. The pictures need pygame-ce (the ``render``
            extra), imported at the first picture, never at ``reset``.
            ``"svg"``: ``render()`` returns the board as one ``<svg>`` element
            (:class:`~mancala_envs.rendering.BoardSvg`; no pygame needed).
        first_player: ``None`` (default): drawn by lot from the seeded
            generator at each reset; 0 or 1: that player always starts.
        illegal_action: ``"penalty"`` (default, as PettingZoo classic): an
            illegal action ends the game, the offender gets -1, the other 0,
            and a warning is emitted. ``"raise"``: an
            :class:`~mancala_envs.common.errors.IllegalActionError` is raised and the
            environment is left unchanged.
        reward_mode: ``"win_loss"`` (default): +1 / -1 / 0 at the end.
            ``"match_points"``: own match points minus the opponent's.
        infos: ``"lean"`` (default): each agent's info dict holds numbers of
            fixed shape only, under the same keys (:data:`LEAN_INFO_KEYS`)
            for every game, agent and step from ``reset`` on, -1 standing for
            "none": what libraries that stack infos into tensors need (TorchRL's
            ``PettingZooWrapper``, Tianshou's buffers), and the cheapest to build.
            ``"full"``: the game's facts as Python values (``winner`` is None
            while the game runs, ``end_reason`` a name, ``last_move`` the decoded
            move with its sown pits and captures, and a game's own keys), which
            :meth:`facts` returns in either mode. ``"tensor"`` is the earlier
            name of ``"lean"``.

    Raises:
        ValueError: an option is not one of its allowed values (the message lists them).

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=0)
        >>> info = env.infos["player_1"]
        >>> info["winner"], info["player_to_move"], info["scores"].tolist()
        (-1, 0, [0, 0])
        >>> env.facts()["winner"], env.facts()["last_move"]
        (None, None)
    """

    def __init__(
        self,
        game: Game,
        render_mode: str | None = None,
        first_player: int | None = None,
        illegal_action: str = "penalty",
        reward_mode: str = "win_loss",
        infos: str = "lean",
    ) -> None:
        super().__init__()
        if not isinstance(game, Game):
            raise TypeError(f"game must be a mancala_envs Game (got {type(game).__name__}).")
        self.metadata: dict[str, Any] = {
            "render_modes": list(RENDER_MODES),
            "name": game.env_name,
            "is_parallelizable": False,
            "render_fps": 2,
        }
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"] + [None])
        if render_mode == "human":
            from mancala_envs.rendering.window import check_display

            check_display()  # a machine without a display is told so here, not by SDL at the first step
        if first_player is not None:
            check_choice("first_player", first_player, (0, 1, None))
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_POLICIES)
        check_choice("reward_mode", reward_mode, REWARD_MODES)
        if infos == "tensor":  # the earlier name of "lean", still taken
            infos = "lean"
        check_choice("infos", infos, INFOS_MODES)
        self.game = game
        self.render_mode = render_mode
        self.first_player = first_player
        self.illegal_action = illegal_action
        self.reward_mode = reward_mode
        #: the ``infos`` option, ``"lean"`` or ``"full"`` (``"tensor"`` is read as ``"lean"``)
        self.infos_mode = infos
        self._lean_infos = self.infos_mode == "lean"
        # The slots of the pairs the lean infos copy (a fancy index makes a new array faster than a slice's copy):
        # the stores while the game runs, the final scores after it, and the match points (a match's running
        # tally, or the last game's).
        self._store_slots = np.array([STORE, STORE + 1])
        self._score_slots = np.array([SCORE, SCORE + 1])
        points = MATCH if game.is_match else POINTS
        self._points_slots = np.array([points, points + 1])

        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        low, high = game.observation_bounds()
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=low, high=high, dtype=np.int32),
                    "action_mask": spaces.Box(0, 1, shape=(game.n_actions,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(game.n_actions) for agent in AGENTS}
        self._rng = np.random.default_rng()
        # The engine writes each ply's record into the spare buffer, which becomes ``_trace`` once the
        # ply is accepted: a rejected action never overwrites the record of the last move.
        self._trace = new_trace()
        self._spare_trace = new_trace()
        self._state = game.new_state(0)
        self._blank_state = np.zeros_like(self._state)
        self._no_moves = np.zeros(game.n_actions, dtype=np.int8)
        self._has_reset = False
        self._n_actions = game.n_actions
        self._observation_size = game.observation_size
        # Infos and the last move are built when first read, not at every step (they cost more than
        # the compiled rules); every change of the state marks them stale.
        self._infos: dict[str, dict[str, Any]] = {}
        self._infos_stale = False
        # whether ``_infos`` holds the info of the agent last() reported alone (see ``infos``)
        self._infos_partial = False
        self._last_move_value: dict[str, Any] | None = None
        self._pending_move: tuple[int, int] | None = None
        # (player, action) of the last ply, (-1, -1) before the first: what the lean infos report
        self._last_played: tuple[int, int] = (-1, -1)
        self._params = game.params
        self._bind_compiled()
        # Callbacks ``observer(player, action)`` run after every accepted ply (the game recorder's hook).
        self.ply_observers: list[Any] = []
        self._picture: Any = None  # the board's painter and window, made at the first picture
        self._window: Any = None

    # --- copies ------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """Pickles and deep copies leave out the compiled step function and the trace buffer
        (rebuilt on load), which would otherwise cost milliseconds and ~100 KB per copy."""
        self._last_move  # noqa: B018 - decodes a pending move while the trace is still here
        state = self.__dict__.copy()
        del state["_step_function"], state["_observe_function"], state["_trace"], state["_spare_trace"]
        del state["_blank_state"]
        state["_picture"] = state["_window"] = None  # pygame objects; remade at the next picture
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._trace = new_trace()
        self._spare_trace = new_trace()
        self._blank_state = np.zeros_like(self._state)
        self._bind_compiled()

    def _bind_compiled(self) -> None:
        """Binds the game's compiled ``step`` (the shared copy, ``game.step_call``) and ``observe`` as the
        calls :meth:`step` and :meth:`observe_player` make.

        Each is the entry point of the overload for the env's own arrays (:func:`compiled_entry`): the
        env always passes its int64 state, params and trace, its new int32 and int8 buffers and Python
        ints, so numba's typing of each argument at every call (a third of the call) is skipped. The
        observe overload is compiled (or loaded) at the first observation, as before: until then the
        call is :meth:`_first_observe`.
        """
        self._step_function = compiled_entry(self.game.step_call, self._state, self._params, 0, self._spare_trace)
        self._observe_function = self._first_observe

    def _first_observe(
        self, state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray
    ) -> None:
        """The first observation: through numba's dispatcher, which compiles or loads the overload; later
        ones call its entry point."""
        observe = self.game.observe_function
        observe(state, params, player, observation, mask)
        self._observe_function = compiled_entry(observe, state, params, player, observation, mask)

    # --- lazily built facts -------------------------------------------------------------
    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """Each live agent's info dict, built when first read: the numbers of :data:`LEAN_INFO_KEYS`
        (``infos="lean"``, the default), or the game's facts and ``last_move`` (``infos="full"``, what
        :meth:`facts` returns).

        :meth:`last` builds the selected agent's alone (its loop reads no other); the other agent's is
        built here, at the first read of ``infos``, as a new dict of the same facts. The dict ``last()``
        returned is ``infos[agent]`` until the next change of the state."""
        if self._infos_stale:
            info = self._agent_info()
            self._infos = {"player_0": info, "player_1": self._agent_info()}  # each agent owns its own lists
            self._infos_stale = self._infos_partial = False
        elif self._infos_partial:  # last() built the selected agent's alone: the other one's is built now
            infos = self._infos
            self._infos = {agent: infos[agent] if agent in infos else self._agent_info() for agent in AGENTS}
            self._infos_partial = False
        return self._infos

    @infos.setter
    def infos(self, value: dict[str, dict[str, Any]]) -> None:
        self._infos = value
        self._infos_stale = self._infos_partial = False

    def new_info(self) -> dict[str, Any]:
        """A new info dict of the current state, equal to what ``infos[agent]`` holds for either live agent, and the
        caller's own down to its arrays and the last move's lists (cheaper than a deep copy of ``infos[agent]``:
        the single-agent view's final info is made with it)."""
        return self._agent_info()

    def facts(self) -> dict[str, Any]:
        """The game's facts about the current state as Python values, in either ``infos`` mode: what each
        agent's info holds under ``infos="full"``.

        The shared keys are ``scores`` and ``match_points`` (lists of two ints), ``end_reason`` (a name, or
        None while the game runs), ``winner`` (0, 1, or None while the game runs and after a draw), ``ply``,
        ``passes``, ``player_to_move`` (None once the game is over), ``games_played`` and ``last_move``
        (:attr:`last_move`); a game may add its own (Omweso's ``phase``, ``pending``...). The dict and its
        lists are new: the caller owns them.

        Raises:
            RuntimeError: the env has not been reset.

        Example:
            >>> import mancala_envs
            >>> env = mancala_envs.make("ouril_v0", first_player=0)
            >>> env.reset(seed=0)
            >>> env.step(5)
            >>> facts = env.facts()
            >>> facts["scores"], facts["player_to_move"], facts["last_move"]["sown"]
            ([0, 0], 1, [6, 7, 8, 9])
        """
        if not self._has_reset:
            raise RuntimeError("facts() was called before reset(); call env.reset() first.")
        return self._full_info()

    @property
    def last_move(self) -> dict[str, Any] | None:
        """The last ply, decoded (a new dict the caller owns): ``player``, ``action``, ``sown`` (the pits
        the seeds fell in, in order, by their board index) and ``captures`` (``[pit, seeds]`` pairs, in
        the order taken); None before the first ply of a game. ``infos="full"`` reports it as
        ``last_move``; the lean infos give ``last_player`` and ``last_action``."""
        move = self._last_move
        if move is None:
            return None
        return {**move, "sown": list(move["sown"]), "captures": [list(capture) for capture in move["captures"]]}

    def describe_action(self, action: int) -> str:
        """Says in words what ``action`` does for the player to move (which pit it sows, the game's
        choices such as Omweso's reverse capture), as the game's notation names it.

        Raises:
            RuntimeError: the env has not been reset.
            TypeError, ValueError: ``action`` is not an integer in ``0 .. n_actions - 1``.
        """
        if not self._has_reset:
            raise RuntimeError("describe_action() was called before reset(); call env.reset() first.")
        return self.game.describe_action(self._state, check_action(action, self._n_actions))

    def text(self) -> str:
        """The text board of the current state (what ``render()`` returns under ``render_mode="ansi"``), in any
        render mode.

        Raises:
            RuntimeError: the env has not been reset.
        """
        if not self._has_reset:
            raise RuntimeError("text() was called before reset(); call env.reset() first.")
        return self.game.render_text(self._state)

    def _agent_info(self) -> dict[str, Any]:
        """A new info dict of the current state in the env's ``infos`` mode (both agents' are equal; each
        agent owns its own, down to its arrays and lists: writing into an info changes no other info)."""
        if self._lean_infos:
            return self._lean_info()
        return self._full_info()

    def _full_info(self) -> dict[str, Any]:
        """A new dict of :meth:`facts`."""
        info = self.game.info(self._state)
        if self._pending_move is not None:
            # decoded afresh from the trace, which stays until the next ply: the info owns new lists, and the
            # hot loop (step, last) pays one decoding, as when the env kept the decoded move, and no copy
            player, action = self._pending_move
            sown, captures = read_trace(self._trace)
            info["last_move"] = {"player": player, "action": action, "sown": sown, "captures": captures}
            return info
        info["last_move"] = self.last_move
        return info

    def _lean_info(self) -> dict[str, Any]:
        """One agent's info dict under ``infos="lean"`` (a new dict and arrays: each agent owns its own).

        The hot loop's info (:meth:`last` builds one per step): one conversion of the header to Python
        ints, two copies of two slots, and the last ply as :meth:`_settle` noted it."""
        state = self._state
        header = state[: PASSES + 1].tolist()  # the header slots the info reads (PASSES is the last)
        last_player, last_action = self._last_played
        if header[STATUS] == RUNNING:
            return {
                "scores": state[self._store_slots],
                "match_points": state[self._points_slots],
                "winner": -1,
                "end_reason": header[END_REASON],
                "ply": header[PLY],
                "passes": header[PASSES],
                "player_to_move": header[PLAYER],
                "games_played": header[GAMES_PLAYED],
                "last_player": last_player,
                "last_action": last_action,
            }
        return {
            "scores": state[self._score_slots],
            "match_points": state[self._points_slots],
            "winner": header[WINNER],
            "end_reason": header[END_REASON],
            "ply": header[PLY],
            "passes": header[PASSES],
            "player_to_move": -1,
            "games_played": header[GAMES_PLAYED],
            "last_player": last_player,
            "last_action": last_action,
        }

    @property
    def _last_move(self) -> dict[str, Any] | None:
        """The last move (player, action, pits sown, captures), decoded from the trace when first read."""
        if self._pending_move is not None:
            player, action = self._pending_move
            sown, captures = read_trace(self._trace)
            self._last_move_value = {"player": player, "action": action, "sown": sown, "captures": captures}
            self._pending_move = None
        return self._last_move_value

    @_last_move.setter
    def _last_move(self, value: dict[str, Any] | None) -> None:
        self._last_move_value = value
        self._pending_move = None
        self._last_played = (-1, -1) if value is None else (value["player"], value["action"])

    # --- spaces -------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """Returns the (cached) observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """Returns the (cached) action space of ``agent``."""
        return self.action_spaces[agent]

    # --- inspection -----------------------------------------------------------------
    @property
    def board(self) -> np.ndarray:
        """A copy of the board in the rules page's global pit order."""
        return self.game.board(self._state)

    @property
    def stores(self) -> np.ndarray:
        """A copy of the two stores (seeds captured by player 0 and player 1)."""
        return self.game.stores(self._state)

    @property
    def has_reset(self) -> bool:
        """Whether :meth:`reset` has been called (``step``, ``observe`` and ``render`` need it)."""
        return self._has_reset

    @property
    def state_array(self) -> np.ndarray:
        """A copy of the engine state (header, board, repetition history)."""
        return self._state.copy()

    # --- AEC API ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game.

        Args:
            seed: Reseeds the generator that draws the first player; without a
                seed the generator continues where it was.
            options: ``{"position": "<notation>"}`` (see :meth:`position`) or the
                structured form ``{"board": [...], "stores": [a, b], "player": p}``
                starts from that position instead (board in the rules page's
                order; ``stores`` defaults to ``[0, 0]``, ``player`` to the first
                player). Games may take more keys (their ``position_options``, e.g.
                Omweso's ``turn``, ``first_capture_done``, ``pending``). Other keys
                are ignored, as in Gymnasium.

        Raises:
            TypeError: ``options`` is not a dict, or names a flag the game does not have.
            ValueError: the position in ``options`` is invalid; the env is unchanged.
        """
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None (got {type(options).__name__}).")
        seed = check_seed(seed)
        fields = None if options is None else self._position_options(options)
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        # the generator's state, kept to undo the draw if the position is rejected (reading it costs ~2 µs:
        # only a position can be rejected)
        rng_before: Any = None if fields is None else rng.bit_generator.state
        draw = int(rng.integers(2))
        first = draw if self.first_player is None else self.first_player
        state = self._blank_state.copy()  # a copy of zeros: cheaper than np.zeros, and the same
        if fields is None:
            self.game.reset_state(state, first)
        else:
            try:
                fields.setdefault("player", first)
                self.game.load_position(state, **fields)
            except Exception:
                rng.bit_generator.state = rng_before  # a rejected reset changes nothing
                raise
        self._rng = rng
        self._state = state
        self._has_reset = True
        self.agents = list(AGENTS)
        # literals: cheaper than comprehensions over AGENTS
        self.rewards: dict[str, float] = {"player_0": 0, "player_1": 0}
        self._cumulative_rewards: dict[str, float] = {"player_0": 0, "player_1": 0}
        self.terminations = {"player_0": False, "player_1": False}
        self.truncations = {"player_0": False, "player_1": False}
        self._last_move: dict[str, Any] | None = None
        self.agent_selection = AGENTS[state.item(PLAYER)]
        if state.item(STATUS) == RUNNING:
            self._infos_stale = True  # what _write_infos does
        else:  # a loaded position in which the player to move cannot move
            self.agent_selection = AGENTS[1 - int(self._state[PLAYER])]
            self.rewards = self._final_rewards()
            self._finish()

    @staticmethod
    def asks_for_position(options: dict[str, Any] | None) -> bool:
        """Whether ``reset`` options start the game from a position (a ``"position"`` or a ``"board"`` key);
        without one, ``reset`` starts from the opening (other keys are ignored)."""
        return options is not None and ("position" in options or "board" in options)

    def _position_options(self, options: dict[str, Any]) -> dict[str, Any] | None:
        """The position asked for in ``reset`` options, as ``load_position`` keywords (None: the opening)."""
        if not self.asks_for_position(options):
            return None
        if "position" in options:
            if "board" in options:
                raise ValueError("reset options give both 'position' and 'board'; give one of them.")
            return self.game.parse_position(options["position"])
        fields = {"board": options["board"], "stores": options.get("stores", (0, 0))}
        if "player" in options:
            fields["player"] = options["player"]
        fields.update({key: options[key] for key in self.game.position_options if key in options})
        return fields

    def position(self) -> str:
        """The current position in the game's notation, which ``reset(options={"position": ...})`` loads.

        Example:
            >>> import mancala_envs
            >>> env = mancala_envs.make("ouril_v0", first_player=0)
            >>> env.reset(seed=0)
            >>> env.position()
            '4,4,4,4,4,4/4,4,4,4,4,4 0,0 0'
        """
        if not self._has_reset:
            raise RuntimeError("position() was called before reset(); call env.reset() first.")
        return self.game.position_string(self._state)

    # --- snapshots ------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """A complete, JSON-serialisable snapshot: the engine state (repetition history and any
        mid-turn choice included), the random generator and the PettingZoo bookkeeping.

        ``load_state_dict`` on an env of the same game and config continues exactly as this one would.
        """
        if not self._has_reset:
            raise RuntimeError("state_dict() was called before reset(); call env.reset() first.")
        return {
            "format": SNAPSHOT_FORMAT,
            "env": self.game.env_name,
            "config": json_plain(dataclasses.asdict(self.game.config)),
            "state": self._state.tolist(),
            "rng": json_plain(self._rng.bit_generator.state),
            "agents": list(self.agents),
            "agent_selection": self.agent_selection,
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "last_move": copy.deepcopy(self._last_move),
        }

    def load_state_dict(self, snapshot: dict[str, Any]) -> None:
        """Restores a snapshot taken by :meth:`state_dict` (on an env of the same game and config).

        Raises:
            TypeError: ``snapshot`` is not a dict.
            ValueError: it is not a snapshot of this game and config, or a part is malformed or
                inconsistent (named in the message); the env is left unchanged.
        """
        if not isinstance(snapshot, dict):
            raise TypeError(f"snapshot must be the dict state_dict() returned (got {type(snapshot).__name__}).")
        missing = sorted(SNAPSHOT_KEYS - set(snapshot))
        if missing or snapshot.get("format") != SNAPSHOT_FORMAT:
            raise ValueError(
                f"not a mancala-envs snapshot (format {snapshot.get('format')!r}, missing {missing}); "
                "pass what env.state_dict() returned."
            )
        if snapshot["env"] != self.game.env_name:
            raise ValueError(f"the snapshot is of {snapshot['env']!r}, this env is {self.game.env_name!r}.")
        config = json_plain(dataclasses.asdict(self.game.config))
        if snapshot["config"] != config:
            raise ValueError(
                f"the snapshot's config {snapshot['config']} differs from this env's {config}; "
                "build the env with the snapshot's config."
            )
        state = _snapshot_state(snapshot["state"], self._state.shape[0])
        self.game.check_state(state)
        _check_rng(snapshot["rng"])
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = snapshot["rng"]
        except (TypeError, ValueError, KeyError, OverflowError) as error:
            raise ValueError(f"the snapshot's rng state is malformed ({error}).") from None
        _check_bookkeeping(snapshot, state, self.game)
        try:
            self.game.info(state)  # everything the infos read must decode before anything changes
        except (KeyError, IndexError, ValueError) as error:
            raise ValueError(f"the snapshot's state cannot be described ({error!r}).") from None
        agents = snapshot["agents"]
        tallies = {key: dict(snapshot[key]) for key in ("rewards", "cumulative_rewards", "terminations", "truncations")}
        self._state = state
        self._rng = rng
        self._has_reset = True
        self.agents = list(agents)
        self.agent_selection = snapshot["agent_selection"]
        self.rewards = tallies["rewards"]
        self._cumulative_rewards = tallies["cumulative_rewards"]
        self.terminations = tallies["terminations"]
        self.truncations = tallies["truncations"]
        self._last_move = copy.deepcopy(snapshot["last_move"])
        self._write_infos()
        self.infos = {agent: self.infos[agent] for agent in self.agents}  # finished agents are gone

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Returns ``agent_selection``'s observation, reward, termination, truncation and info."""
        if not self._has_reset:
            raise RuntimeError("last() was called before reset(); call env.reset() first.")
        agent = self.agent_selection
        observed = self._observation(agent) if observe else None
        if self._infos_stale:
            # Only this agent's info is built: the other agent's waits until ``infos`` is read (it is
            # the same facts, and most loops never read it).
            info = self._lean_info() if self._lean_infos else self._full_info()
            self._infos = {agent: info}
            self._infos_stale = False
            self._infos_partial = True
        else:
            info = self._infos[agent] if agent in self._infos else self.infos[agent]
        return observed, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent], info

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Returns ``agent``'s observation dict (``observation`` and ``action_mask``)."""
        if not self._has_reset:
            raise RuntimeError("observe() was called before reset(); call env.reset() first.")
        return self._observation(agent)

    def _observation(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation dict, for :meth:`observe` and :meth:`last` (which check the reset)."""
        if agent == "player_0":
            player = 0
        elif agent == "player_1":
            player = 1
        else:
            player = self._player_index(agent)  # raises
        # what observe_player does, without its call and tuple: last() reads one every step
        observation = np.empty(self._observation_size, _OBSERVATION_DTYPE)
        action_mask = np.empty(self._n_actions, _MASK_DTYPE)
        self._observe_function(self._state, self._params, player, observation, action_mask)
        return {"observation": observation, "action_mask": action_mask}

    def step(self, action: Any) -> None:
        """Plays ``action`` for ``agent_selection``.

        Raises:
            TypeError: the action is not an integer.
            ValueError: the action is outside ``0 .. n_actions - 1``.
            IllegalActionError: the action is illegal and ``illegal_action="raise"``.
            GameOverError: the episode is over and every agent has been removed.
            RuntimeError: ``render_mode="human"`` and SDL cannot open the display that is set: the window opens
                (:meth:`open_window`) before the move is played, so the env is unchanged.
        """
        if not self.agents:  # empty before the first reset too
            if not self._has_reset:
                raise RuntimeError("step() was called before reset(); call env.reset() first.")
            raise GameOverError("step() was called after the game ended; call reset() to start a new game.")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # numpy's int64 (what ``np.flatnonzero`` of the mask gives) is compared as the Python int it converts
        # to, which is cheaper than comparing the numpy scalar; any other form goes through the full checks
        index = int(action) if type(action) is _ACTION_INT64 else action
        if type(index) is not int or not 0 <= index < self._n_actions:
            index = self._validate_action(action)
        action = index
        human = self.render_mode == "human"
        if human:
            self.open_window()  # a display that cannot be opened is refused here, before the move is played
        trace = self._spare_trace
        code = self._step_function(self._state, self._params, action, trace)
        if code:
            if code == GAME_OVER:  # cannot happen while the agent is alive; kept as a guard
                raise GameOverError("the game is over; call reset() to start a new game.")
            self._punish_illegal(agent, action)  # ILLEGAL: raises, or ends the game under "penalty"
        else:
            self._spare_trace, self._trace = self._trace, trace
            self._settle(agent, action)
        if human:
            self.render()

    # --- the compiled fast path (SingleAgentEnv's compiled opponents) -------------------------------------------
    @property
    def legal_bits(self) -> int:
        """The legal actions of the player to move, as bits (bit ``k`` set: action ``k`` is legal)."""
        return int(self._state[LEGAL])

    def cumulative_reward(self, agent: str) -> float:
        """``agent``'s reward accumulated since it last acted (what :meth:`last` reports)."""
        return self._cumulative_rewards[agent]

    def observe_player(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Player ``player``'s (0 or 1) observation vector and int8 action mask (a view-free fast path of
        :meth:`observe`, without the dict). The game's compiled ``observe`` is called here directly (what
        ``game.observe_with_mask`` does, without its attribute look-ups): every step reads one."""
        observation = np.empty(self._observation_size, _OBSERVATION_DTYPE)
        action_mask = np.empty(self._n_actions, _MASK_DTYPE)
        self._observe_function(self._state, self._params, player, observation, action_mask)
        return observation, action_mask

    def run_kernel(self, kernel: Any, *args: Any) -> Any:
        """Runs a compiled kernel that plays legal plies on this env's game in place.

        ``kernel(state, params, *args, trace)`` is a per-game kernel compiled for this env's game
        (``env.game.compiled(template)``, e.g. :func:`mancala_envs.algorithms.tree_search.opponent_turn`); it
        records its last ply in ``trace``. The env's record of the last move is untouched until
        :meth:`commit_plies`, which must follow whenever the kernel played a ply.

        Returns:
            What the kernel returns.
        """
        return kernel(self._state, self._params, *args, self._spare_trace)

    def commit_plies(self, first_player: int, last_player: int, action: int) -> None:
        """Brings the PettingZoo bookkeeping up to date after :meth:`run_kernel` played plies, as
        :meth:`step` would have after each: ``first_player`` moved first, ``last_player`` played the
        last ply, ``action``."""
        self._spare_trace, self._trace = self._trace, self._spare_trace
        self._cumulative_rewards[AGENTS[first_player]] = 0
        self._settle(AGENTS[last_player], action)

    def _settle(self, agent: str, action: int) -> None:
        """Brings the PettingZoo bookkeeping up to date after ``agent`` played ``action``: the engine has
        already changed the state, and ``_trace`` holds the ply's record."""
        self._cumulative_rewards[agent] = 0
        player = 0 if agent == "player_0" else 1
        self._pending_move = self._last_played = (player, action)
        for observer in self.ply_observers:
            observer(player, action)
        state = self._state
        if state.item(STATUS) == RUNNING:  # ``item`` reads a Python int, faster than a numpy scalar
            # Rewards are zero until the end, so the cumulative rewards need no update.
            self.rewards = {"player_0": 0, "player_1": 0}
            self._infos_stale = True  # what _write_infos does
            self.agent_selection = AGENTS[state.item(PLAYER)]
        else:
            self.agent_selection = agent
            self.rewards = self._final_rewards()
            self._finish()

    def render(self) -> str | np.ndarray | None:
        """Draws the game as the ``render_mode`` says.

        Returns:
            ``"ansi"``: the text board. ``"rgb_array"``: the picture, an ``(H, W, 3)`` ``uint8``
            array. ``"svg"``: the board as one ``<svg>`` element (a str), the last move drawn.
            ``"human"``: None (the picture is shown in the window).
        """
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render without a render_mode; pass render_mode='ansi', 'rgb_array', 'svg' or "
                "'human' to the env."
            )
            return None
        if not self._has_reset:
            raise RuntimeError("render() was called before reset(); call env.reset() first.")
        if self.render_mode == "ansi":
            return self.game.render_text(self._state)
        if self.render_mode == "svg":
            from mancala_envs.rendering.svg import BoardSvg

            return BoardSvg(self.game).draw(self._state, self._last_move)
        if self._picture is None:
            from mancala_envs.rendering import BoardPicture

            self._picture = BoardPicture(self.game)
        if self.render_mode == "rgb_array":
            return self._picture.draw(self._state, self._last_move)
        self.open_window()
        self._window.show(self._picture.surface(self._state, self._last_move))
        return None

    def _repr_svg_(self) -> str | None:
        """The current position as SVG with the last move drawn, whatever the ``render_mode`` (Jupyter shows
        an env this way); None before the first ``reset``."""
        if not self._has_reset:
            return None
        from mancala_envs.rendering.svg import BoardSvg

        return BoardSvg(self.game).draw(self._state, self._last_move)

    def open_window(self) -> None:
        """Opens the window of ``render_mode="human"`` now, if it is not open (a no-op for the other modes).

        :meth:`step` calls it before it plays the move (and ``SingleAgentEnv.reset`` before it starts the episode),
        so a display that cannot be opened is refused before anything changes, never at the picture after a move.

        Raises:
            RuntimeError: SDL cannot open the display that is set; the message names the fixes (a display,
                ``xvfb-run``, ``SDL_VIDEODRIVER=dummy``, ``render_mode="rgb_array"``). The env is unchanged.
        """
        if self.render_mode != "human":
            return
        if self._picture is None:
            from mancala_envs.rendering import BoardPicture

            self._picture = BoardPicture(self.game)
        if self._window is None:
            from mancala_envs.rendering import BoardWindow

            self._window = BoardWindow(f"mancala-envs: {self.game.env_name}", self.metadata["render_fps"])
        self._window.open((self._picture.width, self._picture.height))

    def close(self) -> None:
        """Closes the window of ``render_mode="human"`` if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None

    @property
    def window(self) -> Any:
        """The :class:`~mancala_envs.rendering.BoardWindow` of ``render_mode="human"``: ``None`` until
        :meth:`open_window` (or the first step or render) makes it, and again after :meth:`close`."""
        return self._window

    @property
    def picture(self) -> Any:
        """The :class:`~mancala_envs.rendering.BoardPicture` that paints the board, ``None`` until the first picture
        (it is not copied with the env)."""
        return self._picture

    # --- helpers ------------------------------------------------------------------------
    def _player_index(self, agent: str) -> int:
        if agent == "player_0":
            return 0
        if agent == "player_1":
            return 1
        raise ValueError(f"unknown agent {agent!r}; the agents are {list(AGENTS)}.")

    def _validate_action(self, action: Any) -> int:
        try:
            return check_action(action, self._n_actions)
        except ValueError as error:
            legal = np.flatnonzero(self.game.legal_mask(self._state)).tolist()
            raise ValueError(f"{error} Legal now: {legal}.") from None

    def _punish_illegal(self, agent: str, action: int) -> None:
        legal = np.flatnonzero(self.game.legal_mask(self._state)).tolist()
        if self.illegal_action == "raise":
            raise IllegalActionError(
                f"action {action} is illegal for {agent} in this position; legal actions are {legal}. "
                "Sample from observation['action_mask'] or use illegal_action='penalty'."
            )
        warnings.warn(
            f"illegal action {action} by {agent} (legal: {legal}); the game ends and {agent} loses "
            "(illegal_action='penalty').",
            stacklevel=3,
        )
        self.forfeit(agent)

    def forfeit(self, agent: str) -> None:
        """Ends the game with ``agent`` losing for an illegal action, as ``illegal_action="penalty"`` does.

        The board is left as it was; ``agent`` gets -1 and the other agent 0, and both infos report
        ``end_reason == "illegal_action"`` and the other agent as the winner. The single-agent view calls
        this when its learner plays an illegal action under its own ``"penalty"`` policy.

        Raises:
            GameOverError: the game is already over (call ``reset``).
            ValueError: ``agent`` is not ``"player_0"`` or ``"player_1"``.
        """
        if agent not in AGENTS:
            raise ValueError(f"agent must be one of {list(AGENTS)} (got {agent!r}).")
        if self._state[STATUS] != RUNNING:
            raise GameOverError("the game is already over; call reset() to start a new one.")
        self._cumulative_rewards[agent] = 0
        self._state[STATUS] = TERMINATED
        self._state[LEGAL] = 0
        self._state[END_REASON] = END_ILLEGAL_ACTION
        self._state[WINNER] = 1 - self._player_index(agent)
        self._state[SCORE : SCORE + 2] = self._state[STORE : STORE + 2]
        self.rewards = dict.fromkeys(AGENTS, 0)
        self.rewards[agent] = -1
        self._finish()

    def _finish(self) -> None:
        truncated = self._state[STATUS] == TRUNCATED
        for a in AGENTS:
            self.terminations[a] = not truncated
            self.truncations[a] = bool(truncated)
        self._write_infos()
        self.agent_selection = AGENTS[1 - self._player_index(self.agent_selection)]
        self._accumulate_rewards()

    def _final_rewards(self) -> dict[str, float]:
        state = self._state
        if self.reward_mode == "match_points":
            slot = MATCH if self.game.is_match else POINTS
            points = (int(state[slot]), int(state[slot + 1]))
            return {AGENTS[p]: points[p] - points[1 - p] for p in range(2)}
        winner = int(state[WINNER])
        if winner < 0:
            return dict.fromkeys(AGENTS, 0)
        return {AGENTS[winner]: 1, AGENTS[1 - winner]: -1}

    def _write_infos(self) -> None:
        """Marks the infos stale: the state changed, they are rebuilt when next read."""
        self._infos_stale = True
