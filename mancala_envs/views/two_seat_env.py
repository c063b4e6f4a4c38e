"""A vector environment of batched games whose two seats are both played by the caller (self-play).

:class:`TwoSeatVectorEnv` is a Gymnasium :class:`~gymnasium.vector.VectorEnv` of ``num_envs``
games on the batched engine (:class:`~mancala_envs.envs.batch.BatchedGames`). Unlike
:class:`~mancala_envs.views.vector_env.MancalaVectorEnv`, no opponent plays inside the compiled loop: every
step is one ply in every game, made by whichever seat is to move, and the caller chooses it. Each
game's observation is its **mover's** egocentric view, so one policy can play both seats. A player
who moves again (Kalah's extra turn, Omweso's choices in the middle of a turn) simply stays the mover:
the next observation is again that player's view, and ``infos["to_play"]`` says whose.

=================  ================================================================================
Observation        ``(num_envs, obs_size)`` int32: the view of each game's player to move; with
                   ``encoding=``, the encoder's float32 features ``(num_envs, *shape)``
Action             ``MultiDiscrete([n_actions] * num_envs)``; ``action_masks()`` gives the movers'
                   ``(num_envs, n_actions)`` bool masks (also ``infos["action_mask"]``)
Reward             ``(num_envs,)`` float32: the reward of the player who made this step's move: 0
                   until the end, then +1 / -1 / 0 (``"win_loss"``) or the match-point difference
                   (``reward_mode="match_points"``)
``seat_rewards``   ``infos["seat_rewards"]``, ``(num_envs, 2)`` float32: both seats' rewards
``to_play``        ``infos["to_play"]``, ``(num_envs,)`` int8: the seat whose view the observation is
                   (the seat to move next)
``acted``          ``infos["acted"]``, ``(num_envs,)`` int8: the seat that made this step's move (-1,
                   and ``infos["_acted"]`` False, in a game whose action was ignored)
Auto-reset         ``autoreset_mode="next_step"`` (default, Gymnasium's) or ``"same_step"`` (the
                   final view in ``infos["final_obs"]``, the results in ``infos["final_info"]``)
Illegal action     :class:`~mancala_envs.common.errors.IllegalActionError`; nothing is played
                   (with next-step auto-reset, a game that just ended accepts any action)
=================  ================================================================================

Auto-reset, ``"next_step"``: the step in which a game ends returns, for that game, the final position
seen by the player who made the last move (``to_play`` is that seat, its mask allows every action);
the next step ignores its action, plays nothing in it and returns the new game's opening (reward 0,
``acted`` -1). ``"same_step"``: the step in which a game ends returns the new game's opening at once;
``infos["final_obs"]`` holds the final view of the player who made the last move (an object array,
set where ``infos["_final_obs"]``), and ``infos["final_info"]`` the results (see :meth:`final_info`).

Example:
    >>> import numpy as np
    >>> from mancala_envs.views.two_seat_env import TwoSeatVectorEnv
    >>> envs = TwoSeatVectorEnv("kalah_v0", num_envs=4, first_player=0)
    >>> observations, infos = envs.reset(seed=0)
    >>> observations.shape, infos["to_play"].tolist()
    ((4, 17), [0, 0, 0, 0])
    >>> # Kalah: pit 2's four seeds end in the mover's store (an extra turn) in games 0 and 1
    >>> observations, rewards, terminations, truncations, infos = envs.step(np.array([2, 2, 0, 0]))
    >>> infos["acted"].tolist(), infos["to_play"].tolist(), rewards.dtype, infos["seat_rewards"].shape
    ([0, 0, 0, 0], [0, 0, 1, 1], dtype('float32'), (4, 2))
    >>> actions = np.array([np.flatnonzero(mask)[0] for mask in envs.action_masks()])
    >>> observations, rewards, terminations, truncations, infos = envs.step(actions)
    >>> infos["acted"].tolist()
    [0, 0, 1, 1]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from mancala_envs.common.validation import check_integer
from mancala_envs.envs.batch import DEFAULT_HISTORY_CAPACITY, BatchedGames, FinalInfo
from mancala_envs.views.vector_env import AUTORESET_MODES, RAW, encoded_space, parse_autoreset_mode

__all__ = ["AUTORESET_MODES", "PER_GAME", "RAW", "TwoSeatVectorEnv"]

#: the attributes and methods whose value has one row per game: ``call``/``get_attr`` give each game its row;
#: every other attribute is shared by the whole batch (each game gets the same value)
PER_GAME = frozenset({"action_masks", "to_play"})


class TwoSeatVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games whose both seats the caller plays, one ply per game per step, in one compiled call.

    Args:
        env_id: A registered game or variant (``"ouril_v0"``, ``"mancala/omweso-v0"``...).
        num_envs: Games in the vector.
        autoreset_mode: ``"next_step"`` (default, Gymnasium's), ``"same_step"``, or an
            :class:`~gymnasium.vector.AutoresetMode` of these.
        history_capacity: Repetition keys kept in each game's row (see :mod:`mancala_envs.envs.batch`).
        encoding: ``None`` or ``"raw"`` (default): the raw int32 observations; or an encoding of
            :mod:`mancala_envs.wrappers.encodings`, by name (``"flat"``, ``"one_hot"``, ``"thermometer"``,
            ``"planes"``) or as a dict with its options (``{"name": "one_hot", "cap": 8}``): the observations
            (and the final views of ``infos["final_obs"]`` and ``final_info``) are then the encoder's float32
            features, and the observation spaces the encoder's.
        threads: Threads that step the games, each its own contiguous part of them (``None``, the default:
            every core this process may run on, one per 64 games at most; ``1``: the calling thread alone; at most
            256, :data:`~mancala_envs.envs.batch.MAX_THREADS`). Observations, rewards and infos are the same whatever
            the count.
        **options: Game options and ``first_player`` (``None``: drawn for each game from its generator) and
            ``reward_mode`` (``"win_loss"`` or ``"match_points"``), as for :func:`mancala_envs.make`.

    Attributes:
        encoder: The :class:`~mancala_envs.wrappers.encodings.ObservationEncoder` in use, or ``None`` (raw).
        game: The game (rules and config) every row plays.

    Raises:
        ValueError / TypeError: an unknown id, mode or encoding, or invalid options or counts.
    """

    # an instance attribute in Gymnasium's VectorEnv (each env sets its own), so not a ClassVar here
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        env_id: str = "ouril_v0",
        num_envs: int = 64,
        autoreset_mode: str | AutoresetMode = "next_step",
        history_capacity: int = DEFAULT_HISTORY_CAPACITY,
        encoding: str | Mapping[str, Any] | None = None,
        threads: int | None = None,
        **options: Any,
    ) -> None:
        check_integer("num_envs", num_envs, 1)  # named as this class takes it, before the batch checks it again
        mode = parse_autoreset_mode(autoreset_mode)
        self._games = games = BatchedGames(
            env_id, num_envs, history_capacity=history_capacity, threads=threads, **options
        )
        self.env_id = env_id
        self.num_envs = games.n_games
        self.autoreset_mode = mode
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.game = games.game
        self.encoding: str | Mapping[str, Any] = RAW if encoding is None else encoding
        self.encoder, self.single_observation_space = encoded_space(self.encoding, games.game)
        self.single_action_space = spaces.Discrete(games.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._mask = np.zeros((n, games.n_actions), bool)
        self._to_play = np.zeros(n, np.int8)
        self._waiting = np.zeros(n, bool)  # next-step auto-reset: games that ended on the last step
        self._ended = np.zeros(n, bool)
        self._acted = np.full(n, -1, np.int8)
        self._seat_rewards = np.zeros((n, 2), np.float32)
        self._final = _no_final(games.observation_size)

    # --- Gymnasium API ----------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new game in every row.

        Args:
            seed: An int seeds every game's generator (the first players drawn when ``first_player`` is not
                fixed) from one stream; a list gives each game its own seed; ``None`` continues the generators.
            options: Not used (accepted for the Gymnasium API).

        Returns:
            The movers' observations and the infos (``action_mask``, ``to_play``).
        """
        games = self._games
        games.seed(seed)
        step = games.reset()
        n = self.num_envs
        self._waiting[:] = False
        self._ended[:] = False
        self._acted[:] = -1
        self._seat_rewards[:] = 0.0
        self._final = step.final
        self._mask = step.action_mask.copy()
        self._to_play = step.current_player.copy()
        ones = np.ones(n, bool)
        infos = {
            "action_mask": self._mask.copy(),
            "_action_mask": ones,
            "to_play": self._to_play.copy(),
            "_to_play": ones.copy(),
        }
        return self._encode(step.observation), infos

    def step(self, actions: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Plays every game's action for its player to move; ended games start again (see the auto-reset modes).

        Args:
            actions: ``(num_envs,)`` integers, each legal for its game's mover (``action_masks()``). With
                ``"next_step"`` auto-reset, the action of a game that ended on the previous step is ignored
                (the game shows its new opening instead), but must still be an integer in range.

        Returns:
            Observations, the movers' rewards, terminations, truncations and infos (``action_mask``,
            ``to_play``, ``acted``, ``seat_rewards``; with ``"same_step"``, ``final_obs`` and ``final_info``
            where games ended).

        Raises:
            RuntimeError: ``step`` before ``reset``.
            TypeError: actions not integers.
            ValueError: wrong shape, or an action out of ``0 .. n_actions - 1``.
            IllegalActionError: an action its game does not allow; nothing is played and nothing changes.
        """
        waiting = self._waiting
        playing = ~waiting
        step = self._games.step(actions, playing=playing) if waiting.any() else self._games.step(actions)
        # From here on nothing raises: the step was played.
        n = self.num_envs
        acted = np.where(playing, self._to_play, -1).astype(np.int8)
        seat_rewards = step.rewards
        rewards = np.where(playing, seat_rewards[np.arange(n), np.maximum(acted, 0)], 0.0).astype(np.float32)
        ended = step.terminated | step.truncated
        observation = step.observation
        mask = step.action_mask
        to_play = step.current_player
        final = step.final
        last_views = final.observation[np.arange(final.index.size), acted[final.index]]  # the last mover's views
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            if final.index.size:
                # The ended games show their last mover's final view; their next action is ignored.
                observation = observation.copy()
                observation[final.index] = last_views
                mask = mask.copy()
                mask[final.index] = True
                to_play = to_play.copy()
                to_play[final.index] = acted[final.index]
            self._waiting = ended.copy()
        self._mask = mask.copy()
        self._to_play = to_play.copy()
        self._ended = ended
        self._acted = acted
        self._seat_rewards = seat_rewards.copy()
        self._final = final
        ones = np.ones(n, bool)
        infos: dict[str, Any] = {
            "action_mask": mask.copy(),
            "_action_mask": ones,
            "to_play": to_play.copy(),
            "_to_play": ones.copy(),
            "acted": acted.copy(),
            "_acted": playing.copy(),
            "seat_rewards": seat_rewards,
            "_seat_rewards": ones.copy(),
        }
        if self.autoreset_mode == AutoresetMode.SAME_STEP and final.index.size:
            final_obs = np.empty(n, dtype=object)
            for game, view in zip(final.index, self._encode(last_views), strict=True):  # the views of those games
                final_obs[game] = view
            infos["final_obs"] = final_obs
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = self.final_info()
            infos["_final_info"] = ended.copy()
        return self._encode(observation), rewards, step.terminated, step.truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Stops the batch's worker threads (``close()`` calls it)."""
        self._games.close()

    # --- the games ------------------------------------------------------------------------------------------------
    @property
    def threads(self) -> int:
        """Threads that step the games (at most ``num_envs`` of them run)."""
        return self._games.threads

    @property
    def to_play(self) -> np.ndarray:
        """The seat whose view each observation is, ``(num_envs,)`` int8: the player to move (after a game
        ended, with ``"next_step"`` auto-reset: the player who made its last move)."""
        return self._to_play.copy()

    @property
    def games(self) -> BatchedGames:
        """The batch of games the env steps (its engine states and generators, for inspection)."""
        return self._games

    @property
    def waiting_for_reset(self) -> np.ndarray:
        """The games whose episode ended and whose next :meth:`step` only resets them (``"next_step"``
        auto-reset), ``(num_envs,)`` bool (a copy)."""
        return self._waiting.copy()

    def action_masks(self) -> np.ndarray:
        """The movers' legal actions, ``(num_envs, n_actions)`` bool. A game that ended on the last step and
        waits for its next-step reset has every action allowed (its action is ignored); before ``reset``,
        none is."""
        return self._mask.copy()

    def final_info(self) -> dict[str, Any]:
        """The results of the games that ended in the last step, as Gymnasium vector infos (an array per key,
        valid where its ``_key`` mask is set): ``winner`` (-1 draw), ``end_reason`` code (``game.end_reason_names``
        names it), ``scores`` and ``points`` of both seats, ``plies`` and ``turns`` of the last game,
        ``seat_rewards`` ``(num_envs, 2)``, ``acted`` (the seat that made the last move) and
        ``seat_observations``: both seats' final views, ``(num_envs, 2, *obs_shape)`` (encoded with
        ``encoding=``). With ``"same_step"`` auto-reset, ``step`` puts it in ``infos["final_info"]``; with
        ``"next_step"``, call it after the step in which games ended."""
        n = self.num_envs
        final = self._final
        index = final.index
        views = self._encode(final.observation)
        seat_observations = np.zeros((n, 2, *(self.single_observation_space.shape or ())), views.dtype)
        seat_observations[index] = views
        info: dict[str, Any] = {}
        for key, values in (
            ("winner", final.winner),
            ("end_reason", final.end_reason),
            ("scores", final.scores),
            ("points", final.points),
            ("plies", final.plies),
            ("turns", final.turns),
        ):
            column = np.zeros((n, *values.shape[1:]), values.dtype)
            column[index] = values
            info[key] = column
        info["seat_rewards"] = np.where(self._ended[:, None], self._seat_rewards, 0.0).astype(np.float32)
        info["acted"] = np.where(self._ended, self._acted, -1).astype(np.int8)
        info["seat_observations"] = seat_observations
        for key in list(info):
            info["_" + key] = self._ended.copy()
        return info

    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of engine state per game (see :attr:`mancala_envs.envs.batch.BatchedGames.state_bytes_per_game`)."""
        return self._games.state_bytes_per_game

    def state(self, index: int) -> np.ndarray:
        """A copy of game ``index``'s engine state in the full layout (``MancalaEnv.state_array``'s). With
        ``"next_step"`` auto-reset, a game that just ended already holds its next game's opening."""
        return self._games.state(index)

    # --- call, get_attr, set_attr (SyncVectorEnv's API) ----------------------------------------------------------
    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls the method ``name`` (or reads the attribute), one result per game, as ``SyncVectorEnv.call``.

        The batch is one object, so the method is called once: an attribute of :data:`PER_GAME` gives each game
        its row (``call("action_masks")``: one ``(n_actions,)`` bool mask per game), any other gives every game
        the same value.

        Raises:
            AttributeError: no such attribute (the message says what the batch offers).
        """
        value = self._attribute(name)
        value = value(*args, **kwargs) if callable(value) else value
        if name in PER_GAME:
            return tuple(value[game] for game in range(self.num_envs))
        return (value,) * self.num_envs

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The attribute ``name``, one entry per game, as ``SyncVectorEnv.get_attr`` (``get_attr("to_play")``
        gives each game's mover, ``get_attr("env_id")`` the shared id once per game)."""
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Refuses: the batch has no setting to change after it is built (``SyncVectorEnv.set_attr``'s API).

        Raises:
            AttributeError: always; the message says to build a new env.
        """
        self._attribute(name)
        raise AttributeError(
            f"{name} of {type(self).__name__} cannot be set: the games' settings are fixed when the env is built; "
            "build a new TwoSeatVectorEnv to change them."
        )

    def _attribute(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError:
            raise AttributeError(
                f"{type(self).__name__} has no attribute {name!r}. Its games share one batch: call/get_attr give "
                f"each game its row of {sorted(PER_GAME)} and the batch's value of any other attribute "
                "(env_id, encoding, threads, autoreset_mode...)."
            ) from None

    # --- helpers ---------------------------------------------------------------------------------------------
    def _encode(self, observation: np.ndarray) -> np.ndarray:
        """Raw observations (any leading axes), encoded for the network when ``encoding`` asks for it."""
        return observation if self.encoder is None else self.encoder.encode(observation)

    def __repr__(self) -> str:
        encoding = "" if self.encoder is None else f", encoding={self.encoding!r}"
        return f"TwoSeatVectorEnv({self.env_id!r}, num_envs={self.num_envs}{encoding})"


def _no_final(observation_size: int) -> FinalInfo:
    """The :class:`~mancala_envs.envs.batch.FinalInfo` of a step in which no game ended."""
    none = np.empty(0, np.int32)
    pairs = np.empty((0, 2), np.int32)
    return FinalInfo(
        index=np.empty(0, np.int64),
        observation=np.empty((0, 2, observation_size), np.int32),
        winner=np.empty(0, np.int8),
        end_reason=np.empty(0, np.int8),
        scores=pairs,
        points=pairs.copy(),
        plies=none,
        turns=none.copy(),
    )
