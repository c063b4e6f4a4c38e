"""Vector environments of the single-agent view on the batched engine.

:class:`MancalaVectorEnv` is a Gymnasium :class:`~gymnasium.vector.VectorEnv` of
``num_envs`` games, each one learner against an opponent that plays inside the
compiled loop (``"random"``, ``"greedy"``, ``"alphabeta:D"`` or ``"mcts:N"``, the
compiled agents of :mod:`mancala_envs.algorithms.tree_search`). One ``step`` is one compiled call for all the
games: the learners' actions, the opponents' replies, the rewards, the
automatic resets and the next observations and masks. It is the vectorised
counterpart of :class:`~mancala_envs.views.single_agent_env.SingleAgentEnv`: the same
observation vector, action space, rewards and seat rules. ``encoding=`` encodes the
observations for a network with the encoders of :mod:`mancala_envs.wrappers.encodings`,
as the wrappers do for one env (``gymnasium.make_vec(id, num_envs, encoding="flat")``).

It works under Gymnasium's vector wrappers (``RecordEpisodeStatistics``,
``NormalizeReward``, ``ClipReward``, ``TransformObservation``...): the episode
statistics in ``infos["episode"]`` are ``RecordEpisodeStatistics``'s to write, as for
any Gymnasium vector env. ``call``, ``get_attr`` and ``set_attr`` follow
:class:`~gymnasium.vector.SyncVectorEnv`'s: one entry per game, e.g.
``envs.call("action_masks")`` gives each game's mask.

:class:`~mancala_envs.views.sb3_vec_env.MancalaSB3VecEnv` adapts it to
Stable-Baselines3's ``VecEnv`` for ``MaskablePPO("MlpPolicy", vec_env)``.

================  =================================================================
Observation       ``(num_envs, obs_size)`` int32: each learner's egocentric vector; with
                  ``encoding=``, the encoder's float32 features ``(num_envs, *shape)``
Action            ``MultiDiscrete([n_actions] * num_envs)``; ``action_masks()`` gives
                  the ``(num_envs, n_actions)`` bool masks (also ``infos["action_mask"]``)
Reward            The learner's own: 0 until the end, then +1 / -1 / 0 (``"win_loss"``)
                  or the match-point difference (``reward_mode="match_points"``)
Seat              Drawn for each episode from the game's generator, or ``learner_seat``
Auto-reset        ``autoreset_mode="next_step"`` (Gymnasium's default) or ``"same_step"``
                  (the final observation in ``infos["final_obs"]``, as SB3 expects, and
                  the ended episodes' results in ``infos["final_info"]``)
Illegal action    :class:`~mancala_envs.common.errors.IllegalActionError`; nothing is played
                  (with next-step auto-reset, a game that just ended accepts any action)
================  =================================================================

Example:
    >>> import numpy as np
    >>> from mancala_envs.views.vector_env import MancalaVectorEnv
    >>> envs = MancalaVectorEnv("ouril_v0", num_envs=8, opponent="greedy")
    >>> observations, infos = envs.reset(seed=0)
    >>> observations.shape, envs.action_masks().shape
    ((8, 17), (8, 6))
    >>> actions = np.array([np.flatnonzero(mask)[0] for mask in envs.action_masks()])
    >>> observations, rewards, terminations, truncations, infos = envs.step(actions)
    >>> rewards.shape, terminations.dtype
    ((8,), dtype('bool'))
    >>> len(envs.call("action_masks")), envs.get_attr("opponent")[0]
    (8, 'greedy')
    >>> MancalaVectorEnv("ouril_v0", num_envs=8, encoding="one_hot").single_observation_space.shape
    (161,)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from mancala_envs.algorithms.tree_search import parse_compiled_opponent
from mancala_envs.common.validation import check_integer
from mancala_envs.envs.batch import FACT_COUNT
from mancala_envs.envs.learner_loop import LearnerRows
from mancala_envs.games.game import Game

if TYPE_CHECKING:
    from mancala_envs.wrappers.encodings import ObservationEncoder

__all__ = [
    "AUTORESET_MODES",
    "PER_GAME",
    "RAW",
    "SETTABLE",
    "MancalaVectorEnv",
    "encoded_space",
    "parse_autoreset_mode",
]

#: columns of the final facts (:data:`mancala_envs.envs.batch.FACT_COUNT`) that the infos read by name
_WINNER, _SEAT, _OPPONENT = 0, 8, 9
AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
#: the ``encoding`` that leaves the observations as the raw int32 vectors (the default, also ``None``)
RAW = "raw"
#: the attributes and methods whose value has one row per game: ``call``/``get_attr`` give each game its row;
#: every other attribute is shared by the whole batch (each game gets the same value)
PER_GAME = frozenset({"action_masks", "learner_seats", "learner_opponents"})
#: the batch's settings that ``set_attr`` changes (the others are fixed when the env is built)
SETTABLE = ("learner_seat", "opponent")


class MancalaVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent games (learner against a compiled opponent) stepped by one compiled call.

    Args:
        env_id: A registered game or variant (``"ouril_v0"``, ``"mancala/omweso-v0"``...).
        num_envs: Games in the vector.
        opponent: The compiled agent that plays the other seat, inside the compiled loop: ``"random"``
            (default), ``"greedy"``, ``"alphabeta:D"`` or ``"mcts:N"`` (each game draws from its own
            generator); or a list of them, one drawn uniformly for each episode from the game's generator
            (``["random", "greedy"]``: still one compiled call a step). Other opponents (saved models, callables,
            pools): one :class:`~mancala_envs.views.single_agent_env.SingleAgentEnv` per game, with
            ``gymnasium.make_vec(id, num_envs, vectorization_mode="sync", opponent=...)`` or SB3's
            ``SubprocVecEnv``.
        learner_seat: ``None`` (default): drawn for each episode; ``0`` or ``1``: always that seat.
        autoreset_mode: ``"next_step"`` (default, Gymnasium's), ``"same_step"``, or an
            :class:`~gymnasium.vector.AutoresetMode` of these.
        history_capacity: Repetition keys kept in each game's row (see :mod:`mancala_envs.envs.batch`).
        encoding: ``None`` or ``"raw"`` (default): the raw int32 observations; or an encoding of
            :mod:`mancala_envs.wrappers.encodings`, by name (``"flat"``, ``"one_hot"``, ``"thermometer"``,
            ``"planes"``) or as a dict with its options (``{"name": "one_hot", "cap": 8}``), as
            ``apply_wrappers`` takes it: the observations (and ``infos["final_obs"]``) are then the
            encoder's float32 features, and the observation spaces the encoder's.
        threads: Threads that step the games, each its own contiguous part of them (``None``, the default:
            every core this process may run on, one per 64 games at most; ``1``: the calling thread alone; at most
            256, :data:`~mancala_envs.envs.batch.MAX_THREADS`). Observations, rewards and infos are the same whatever
            the count.
        **options: Game options and ``first_player`` and ``reward_mode``, as for :func:`mancala_envs.make`.

    Attributes:
        encoder: The :class:`~mancala_envs.wrappers.encodings.ObservationEncoder` in use, or ``None`` (raw).

    Raises:
        ValueError / TypeError: an unknown id, opponent, seat, mode or encoding, or invalid options.
    """

    # an instance attribute in Gymnasium's VectorEnv (each env sets its own), so not a ClassVar here
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        env_id: str = "ouril_v0",
        num_envs: int = 64,
        opponent: str | Sequence[str] = "random",
        learner_seat: int | None = None,
        autoreset_mode: str | AutoresetMode = "next_step",
        history_capacity: int = 24,
        encoding: str | Mapping[str, Any] | None = None,
        threads: int | None = None,
        **options: Any,
    ) -> None:
        check_integer("num_envs", num_envs, 1)  # named as this class takes it, before the rows check it again
        compiled = _compiled_opponents(opponent)
        seat_rule = _seat_rule(learner_seat)
        mode = parse_autoreset_mode(autoreset_mode)
        self._rows = rows = LearnerRows(env_id, num_envs, history_capacity, dict(options), threads=threads)
        self.env_id = env_id
        self.num_envs = rows.n_games
        self._opponent_name = _opponent_names(opponent)
        self._opponents = rows.learner_opponents(compiled)
        self._learner_seat = learner_seat
        self._seat_rule = seat_rule
        self.autoreset_mode = mode
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.game = rows.game
        self.encoding: str | Mapping[str, Any] = RAW if encoding is None else encoding
        self.encoder, self.single_observation_space = encoded_space(self.encoding, rows.game)
        self.single_action_space = spaces.Discrete(rows.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._seats = np.zeros(n, np.int8)
        self._drawn = np.zeros(n, np.int64)
        self._waiting = np.zeros(n, np.int8)
        self._lengths = np.zeros(n, np.int64)
        self._returns = np.zeros(n, np.float64)
        self._episode_lengths = np.zeros(n, np.int64)
        self._episode_returns = np.zeros(n, np.float64)
        self._final_observation = np.zeros((n, rows.observation_size), np.int32)
        self._facts = np.zeros((n, FACT_COUNT), np.int64)
        self._mask = np.zeros((n, rows.n_actions), np.int8)
        self._has_reset = False

    # --- Gymnasium API ----------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode in every game.

        Args:
            seed: An int seeds every game's generator (seats, first players, the opponents' draws) from
                one stream; a list gives each game its own seed; ``None`` continues the generators.
            options: Not used (accepted for the Gymnasium API).
        """
        rows = self._rows
        rows.seed(seed)
        observation, mask = rows.reset_learners(
            self._seat_rule, self._seats, self._opponents, self._drawn, self._waiting, self._lengths, self._returns
        )
        self._has_reset = True
        self._mask = mask
        return self._encode(observation), self._infos(mask)

    def step(self, actions: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Plays every learner's action and the opponents' replies.

        Args:
            actions: ``(num_envs,)`` integers, legal for each learner (``action_masks()``). With
                ``"next_step"`` auto-reset, the action of a game that ended on the previous step is
                ignored (the game is reset instead), but must still be an integer in range.

        Raises:
            RuntimeError: ``step`` before ``reset``.
            TypeError / ValueError: not integers, wrong shape, out of range.
            IllegalActionError: an action its game does not allow; nothing is played.
        """
        observation, rewards, terminated, truncated = self.step_arrays(actions)
        infos = self._infos(self._mask)
        ended = terminated | truncated
        if self.autoreset_mode == AutoresetMode.SAME_STEP and ended.any():
            games = np.flatnonzero(ended)
            final_obs = np.empty(self.num_envs, dtype=object)
            for game, final_observation in zip(games, self.final_observations(games), strict=True):
                final_obs[game] = final_observation
            infos["final_obs"] = final_obs
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = self.final_info(ended)
            infos["_final_info"] = ended.copy()
        return observation, rewards, terminated, truncated, infos

    def step_arrays(self, actions: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`step` without its ``infos``: the observations, rewards, terminated and truncated flags. For
        adapters that build infos of their own (:class:`~mancala_envs.views.sb3_vec_env.MancalaSB3VecEnv`); the ended
        episodes' results are then read with :meth:`final_observations` and :meth:`final_results` (or
        :meth:`final_info`).

        Raises:
            ValueError: As :meth:`step` (a refused batch of actions, with nothing stepped).
        """
        rows = self._rows
        waiting = self._waiting.view(bool)  # 0/1 int8, read as bool without a copy
        actions = rows.check_actions(actions, skip=waiting if waiting.any() else None, masks=self._mask)
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        observation, mask = rows.step_learners(
            actions,
            self._seat_rule,
            self._seats,
            self._opponents,
            self._drawn,
            self.autoreset_mode == AutoresetMode.SAME_STEP,
            rewards,
            terminated,
            truncated,
            self._final_observation,
            self._facts,
            self._waiting,
            self._lengths,
            self._returns,
            self._episode_lengths,
            self._episode_returns,
        )
        if waiting.any():  # any action is accepted (and ignored) by a game waiting for its reset
            mask[waiting] = 1
        self._mask = mask
        return self._encode(observation), rewards, terminated, truncated

    def final_observations(self, games: np.ndarray) -> np.ndarray:
        """The learner's last observation (encoded as the env's observations are) of the episodes that ended in
        ``games`` on the last step, one row per game of ``games``."""
        return self._encode(self._final_observation[games])

    def close_extras(self, **kwargs: Any) -> None:
        """Stops the batch's worker threads (``close()`` calls it)."""
        self._rows.close()

    @property
    def threads(self) -> int:
        """Threads that step the games (at most ``num_envs`` of them run)."""
        return self._rows.threads

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, ``(num_envs, n_actions)`` bool. A game that ended on the last step
        and waits for its next-step reset has every action allowed (its action is ignored)."""
        if not self._has_reset:
            return np.zeros((self.num_envs, self._rows.n_actions), bool)
        return self._mask.astype(bool)

    def final_info(self, ended: np.ndarray) -> dict[str, Any]:
        """The results of the episodes that ended in the last step, as Gymnasium vector infos (an array
        per key, valid where ``ended``): winner (-1 draw), end_reason code, scores and points of both
        players, plies and turns, the learner's seat, the opponent it played (its index in the list of
        opponents; 0 for one opponent), and the learner's return and steps in the episode (``episode_return``,
        ``episode_length``: what ``RecordEpisodeStatistics`` counts as ``r`` and ``l``)."""
        facts = self._facts
        info: dict[str, Any] = {
            "winner": facts[:, _WINNER].copy(),
            "end_reason": facts[:, 1].copy(),
            "scores": facts[:, 2:4].copy(),
            "points": facts[:, 4:6].copy(),
            "plies": facts[:, 6].copy(),
            "turns": facts[:, 7].copy(),
            "learner_seat": facts[:, _SEAT].astype(np.int8),
            "opponent": facts[:, _OPPONENT].copy(),
            "episode_return": np.where(ended, self._episode_returns, 0.0),
            "episode_length": np.where(ended, self._episode_lengths, 0),
        }
        for key in list(info):
            info["_" + key] = ended.copy()
        return info

    def final_results(self, games: np.ndarray) -> list[dict[str, Any]]:
        """The results of the episodes that ended in ``games`` on the last step, one dict per game (what
        :meth:`final_info` holds for them, in the shape of one env's info): ``winner`` (-1 draw),
        ``learner_seat``, ``opponent`` (its name), ``episode_return`` and ``episode_length``."""
        names = self._opponent_name if isinstance(self._opponent_name, list) else [self._opponent_name]
        facts = self._facts[games][:, [_WINNER, _SEAT, _OPPONENT]].tolist()
        returns, lengths = self._episode_returns[games].tolist(), self._episode_lengths[games].tolist()
        return [
            {
                "winner": winner,
                "learner_seat": seat,
                "opponent": names[opponent],
                "episode_return": episode_return,
                "episode_length": episode_length,
            }
            for (winner, seat, opponent), episode_return, episode_length in zip(facts, returns, lengths, strict=True)
        ]

    # --- the batch's settings --------------------------------------------------------------------------------
    @property
    def opponent(self) -> str | Sequence[str]:
        """The compiled opponent's name, or the list of them drawn from. Setting it (or :meth:`set_opponent`)
        changes the opponents of every game from the next step on."""
        return _opponent_names(self._opponent_name)  # a list is the caller's copy

    @opponent.setter
    def opponent(self, opponent: str | Sequence[str]) -> None:
        self.set_opponent(opponent)

    def set_opponent(self, opponent: str | Sequence[str]) -> None:
        """Replaces the opponent (or the list drawn from) of every game from the next step on. A game in progress
        goes on against the member with its episode's index in the new list (the first, if the list is shorter);
        its next episode draws again.

        Raises:
            ValueError: not a compiled agent, or a list that is empty or holds another value (the message says
                where other opponents go); nothing changes.
        """
        opponents = self._rows.learner_opponents(_compiled_opponents(opponent))
        self._opponent_name = _opponent_names(opponent)
        self._opponents = opponents
        self._drawn[self._drawn >= len(opponents)] = 0

    @property
    def opponent_table(self) -> np.ndarray:
        """The compiled opponents the learners' loop plays, one row ``[kind, strength, rollout cap]`` per member of
        :attr:`opponent`'s list (:meth:`~mancala_envs.envs.learner_loop.LearnerRows.learner_opponents`'s table),
        ``(members, 3)`` int64 (a copy: set :attr:`opponent` to change it)."""
        return self._opponents.copy()

    @property
    def learner_opponents(self) -> np.ndarray:
        """The opponent of each game's current episode, ``(num_envs,)`` int64: its index in :attr:`opponent`'s
        list (0 for one opponent)."""
        return self._drawn.copy()

    @property
    def learner_seat(self) -> int | None:
        """The seat rule: ``None`` (drawn for each episode), ``0`` or ``1``. Setting it applies from each game's
        next episode."""
        return self._learner_seat

    @learner_seat.setter
    def learner_seat(self, learner_seat: int | None) -> None:
        self._seat_rule = _seat_rule(learner_seat)
        self._learner_seat = learner_seat

    @property
    def seat_rule(self) -> int:
        """:attr:`learner_seat` as the compiled loop reads it: ``-1`` (drawn for each episode), ``0`` or ``1``."""
        return self._seat_rule

    @property
    def learner_seats(self) -> np.ndarray:
        """Each game's learner seat in the current episode, ``(num_envs,)`` int8."""
        return self._seats.copy()

    @property
    def games(self) -> LearnerRows:
        """The batch of games the env steps (its engine states and generators, for inspection)."""
        return self._rows

    @property
    def waiting_for_reset(self) -> np.ndarray:
        """The games whose episode ended and whose next :meth:`step` only resets them (next-step autoreset),
        ``(num_envs,)`` bool (a copy)."""
        return self._waiting.astype(bool)

    @property
    def has_reset(self) -> bool:
        """Whether :meth:`reset` has been called (``step`` needs it)."""
        return self._has_reset

    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of engine state per game (see :attr:`mancala_envs.envs.batch.BatchedGames.state_bytes_per_game`)."""
        return self._rows.state_bytes_per_game

    def state(self, index: int) -> np.ndarray:
        """A copy of game ``index``'s engine state in the full layout (``MancalaEnv.state_array``'s)."""
        return self._rows.state(index)

    # --- call, get_attr, set_attr (SyncVectorEnv's API) ----------------------------------------------------------
    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls the method ``name`` (or reads the attribute), one result per game, as ``SyncVectorEnv.call``.

        The batch is one object, so the method is called once: an attribute of :data:`PER_GAME` gives each
        game its row (``call("action_masks")``: one ``(n_actions,)`` bool mask per game), any other gives
        every game the same value (``call("set_opponent", "greedy")`` sets it once).

        Raises:
            AttributeError: no such attribute (the message says what the batch offers).
        """
        value = self._attribute(name)
        return self.split_by_game(name, value(*args, **kwargs) if callable(value) else value)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The attribute ``name``, one entry per game, as ``SyncVectorEnv.get_attr`` (which is ``call(name)``:
        a method is called): ``get_attr("learner_seats")`` gives each game's seat, ``get_attr("opponent")``
        the shared opponent once per game."""
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Sets the attribute ``name``, as ``SyncVectorEnv.set_attr``: ``values`` is one value for every game, or
        a list or tuple of one per game. The batch's settings (:data:`SETTABLE`) are shared by all its games, so
        the values of a list must all be equal (``set_attr("opponent", "greedy")``, ``set_attr("learner_seat",
        [1] * n)``).

        Raises:
            ValueError: a list of the wrong length, or of different values; a bad opponent or seat (nothing changes).
            AttributeError: no such attribute, or one that is not a setting (:data:`SETTABLE`).
        """
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs:
                raise ValueError(
                    "Values must be a list or tuple with length equal to the number of environments. "
                    f"Got `{len(values)}` values for {self.num_envs} environments."
                )
            if any(not _same(value, values[0]) for value in values[1:]):
                raise ValueError(
                    f"{name} is shared by every game of the batch; set one value for all of them "
                    f"(got {list(values)!r}). "
                    "For a value per game, use one SingleAgentEnv per game (gymnasium.make_vec(..., "
                    "vectorization_mode='sync'))."
                )
            values = values[0]
        self._attribute(name)
        if name not in SETTABLE:
            raise AttributeError(
                f"{name} of {type(self).__name__} cannot be set: the settings of the batch are {list(SETTABLE)}; "
                "build a new env to change the others."
            )
        setattr(self, name, values)

    def split_by_game(self, name: str, value: Any) -> tuple[Any, ...]:
        """``value`` (the attribute ``name``, or what its method returned) as one entry per game: its rows for an
        attribute of :data:`PER_GAME`, else ``value`` itself for each game."""
        if name in PER_GAME:
            return tuple(value)  # its rows, one per game
        return (value,) * self.num_envs

    def _attribute(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError:
            raise AttributeError(
                f"{type(self).__name__} has no attribute {name!r}. Its games share one batch: call/get_attr give "
                f"each game its row of {sorted(PER_GAME)} and the batch's value of any other attribute "
                "(opponent, learner_seat, encoding, env_id...). For the attributes of one SingleAgentEnv per game, "
                "use gymnasium.make_vec(..., vectorization_mode='sync')."
            ) from None

    # --- helpers ---------------------------------------------------------------------------------------------
    def _encode(self, observation: np.ndarray) -> np.ndarray:
        """The raw ``(games, obs_size)`` observations, encoded for the network when ``encoding`` asks for it."""
        return observation if self.encoder is None else self.encoder.encode(observation)

    def _infos(self, mask: np.ndarray) -> dict[str, Any]:
        """The step's infos; every array is the caller's own (the mask a copy of the one that checks the next
        actions: writing into it cannot make an illegal action pass)."""
        ones = np.ones(self.num_envs, bool)
        return {
            "action_mask": mask.copy(),
            "_action_mask": ones,
            "learner_seat": self._seats.copy(),
            "_learner_seat": ones.copy(),
        }

    def __repr__(self) -> str:
        encoding = "" if self.encoder is None else f", encoding={self.encoding!r}"
        return f"MancalaVectorEnv({self.env_id!r}, num_envs={self.num_envs}, opponent={self.opponent!r}{encoding})"


def parse_autoreset_mode(autoreset_mode: str | AutoresetMode) -> AutoresetMode:
    """The :class:`~gymnasium.vector.AutoresetMode` that a vector env's ``autoreset_mode=`` names
    (``"next_step"``, ``"same_step"`` or one of those modes).

    Raises:
        ValueError: any other value; the message lists the names.
    """
    modes: dict[Any, AutoresetMode] = {**AUTORESET_MODES, **{mode: mode for mode in AUTORESET_MODES.values()}}
    if autoreset_mode not in modes:
        raise ValueError(f"autoreset_mode must be one of {list(AUTORESET_MODES)} (got {autoreset_mode!r}).")
    return modes[autoreset_mode]


def encoded_space(encoding: str | Mapping[str, Any] | None, game: Game) -> tuple[ObservationEncoder | None, spaces.Box]:
    """The encoder that a vector env's ``encoding=`` names (``None`` for the raw observation) and the space of one
    game's observation: the raw int32 vector's bounds, or the encoder's space.

    Raises:
        ValueError / TypeError: an unknown encoding or option (:func:`~mancala_envs.wrappers.encodings.env_encoder`).
    """
    from mancala_envs.wrappers.encodings import env_encoder  # the encoders load only when asked for

    encoder = env_encoder(encoding, game)
    if encoder is None:
        low, high = game.observation_bounds()
        return None, spaces.Box(low=low, high=high, dtype=np.int32)
    return encoder, encoder.space


def _compiled_opponents(opponent: Any) -> list[tuple[int, int]]:
    """``(kind, strength)`` of a compiled opponent's name, or of each in a list; raises saying where other
    opponents go."""
    if isinstance(opponent, (list, tuple)):
        if not opponent:
            raise ValueError(
                "opponent is an empty list; give a compiled agent's name or a list of them, e.g. ['random', 'greedy']."
            )
        return [_compiled_opponent(member) for member in opponent]
    return [_compiled_opponent(opponent)]


def _opponent_names(opponent: str | Sequence[str]) -> str | Sequence[str]:
    """What :attr:`MancalaVectorEnv.opponent` gives back: the name, or a list of the names (a copy)."""
    return list(opponent) if isinstance(opponent, (list, tuple)) else opponent


def _compiled_opponent(opponent: Any) -> tuple[int, int]:
    """``(kind, strength)`` of a compiled opponent's name; raises saying where other opponents go."""
    compiled = parse_compiled_opponent(opponent)
    if compiled is None:
        raise ValueError(
            "opponent must be a compiled agent for the compiled vector env: 'random', 'greedy', "
            f"'alphabeta:D' or 'mcts:N' (got {opponent!r}). For other opponents (saved models, callables, "
            "pools), play one SingleAgentEnv per game: gymnasium.make_vec(id, num_envs, vectorization_mode='sync', "
            "opponent=...) (or 'async'), or SingleAgentEnv in SB3's DummyVecEnv / SubprocVecEnv."
        )
    return compiled


def _seat_rule(learner_seat: Any) -> int:
    """The compiled loop's seat rule: -1 (drawn for each episode), 0 or 1."""
    if learner_seat is not None and (isinstance(learner_seat, bool) or learner_seat not in (0, 1)):
        raise ValueError(f"learner_seat must be 0, 1 or None (drawn each episode); got {learner_seat!r}.")
    return -1 if learner_seat is None else int(learner_seat)


def _same(a: object, b: object) -> bool:
    """Whether two values given for two games are the same (arrays compared by value)."""
    if a is b:
        return True
    try:
        return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))
    except (TypeError, ValueError):
        return False
