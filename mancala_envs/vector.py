"""Vector environments of the single-agent view on the batched engine.

:class:`MancalaVectorEnv` is a Gymnasium :class:`~gymnasium.vector.VectorEnv` of
``num_envs`` games, each one learner against an opponent that plays inside the
compiled loop (``"random"``, ``"greedy"``, ``"alphabeta:D"`` or ``"mcts:N"``, the
compiled agents of :mod:`mancala_envs.search`). One ``step`` is one compiled call for all the
games: the learners' actions, the opponents' replies, the rewards, the
automatic resets and the next observations and masks. It is the vectorised
counterpart of :class:`~mancala_envs.single_agent.SingleAgentEnv`: the same
observation vector, action space, rewards and seat rules.

:class:`~mancala_envs.vector_sb3.MancalaSB3VecEnv` adapts it to
Stable-Baselines3's ``VecEnv`` for ``MaskablePPO("MlpPolicy", vec_env)``.

================  =================================================================
Observation       ``(num_envs, obs_size)`` int32: each learner's egocentric vector
Action            ``MultiDiscrete([n_actions] * num_envs)``; ``action_masks()`` gives
                  the ``(num_envs, n_actions)`` bool masks (also ``infos["action_mask"]``)
Reward            The learner's own: 0 until the end, then +1 / -1 / 0 (``"win_loss"``)
                  or the match-point difference (``reward_mode="match_points"``)
Seat              Drawn for each episode from the game's generator, or ``learner_seat``
Auto-reset        ``autoreset_mode="next_step"`` (Gymnasium's default) or ``"same_step"``
                  (the final observation in ``infos["final_obs"]``, as SB3 expects)
Illegal action    :class:`~mancala_envs.errors.IllegalActionError`; nothing is played
                  (with next-step auto-reset, a game that just ended accepts any action)
================  =================================================================

Example:
    >>> import numpy as np
    >>> from mancala_envs.vector import MancalaVectorEnv
    >>> envs = MancalaVectorEnv("ouril_v0", num_envs=8, opponent="greedy")
    >>> observations, infos = envs.reset(seed=0)
    >>> observations.shape, envs.action_masks().shape
    ((8, 17), (8, 6))
    >>> actions = np.array([np.flatnonzero(mask)[0] for mask in envs.action_masks()])
    >>> observations, rewards, terminations, truncations, infos = envs.step(actions)
    >>> rewards.shape, terminations.dtype
    ((8,), dtype('bool'))
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from mancala_envs.batch import FACT_COUNT, GameRows
from mancala_envs.search import parse_compiled_opponent
from mancala_envs.validation import check_integer

__all__ = ["AUTORESET_MODES", "MancalaVectorEnv"]

AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
_FINAL_KEYS = ("winner", "end_reason", "scores", "points", "plies", "turns")


class MancalaVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent games (learner against a compiled opponent) stepped by one compiled call.

    Args:
        env_id: A registered game or variant (``"ouril_v0"``, ``"mancala/omweso-v0"``...).
        num_envs: Games in the vector.
        opponent: The compiled agent that plays the other seat, inside the compiled loop: ``"random"``
            (default), ``"greedy"``, ``"alphabeta:D"`` or ``"mcts:N"`` (each game draws from its own
            generator). Other opponents (saved models, callables, pools):
            :class:`~mancala_envs.single_agent.SingleAgentEnv` in ``gymnasium.make_vec`` or SB3's
            ``SubprocVecEnv``.
        learner_seat: ``None`` (default): drawn for each episode; ``0`` or ``1``: always that seat.
        autoreset_mode: ``"next_step"`` (default, Gymnasium's), ``"same_step"``, or an
            :class:`~gymnasium.vector.AutoresetMode` of these.
        history_capacity: Repetition keys kept in each game's row (see :mod:`mancala_envs.batch`).
        **options: Game options and ``first_player`` and ``reward_mode``, as for :func:`mancala_envs.make`.

    Raises:
        ValueError / TypeError: an unknown id, opponent, seat or mode, or invalid options.
    """

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        env_id: str = "ouril_v0",
        num_envs: int = 64,
        opponent: str = "random",
        learner_seat: int | None = None,
        autoreset_mode: str | AutoresetMode = "next_step",
        history_capacity: int = 24,
        **options: Any,
    ) -> None:
        check_integer("num_envs", num_envs, 1)  # named as this class takes it, before the rows check it again
        compiled_opponent = parse_compiled_opponent(opponent)
        if compiled_opponent is None:
            raise ValueError(
                "opponent must be a compiled agent for the compiled vector env: 'random', 'greedy', "
                f"'alphabeta:D' or 'mcts:N' (got {opponent!r}); for other opponents (models, callables, pools) "
                "use SingleAgentEnv in gymnasium.make_vec or SB3's SubprocVecEnv."
            )
        if learner_seat is not None and (isinstance(learner_seat, bool) or learner_seat not in (0, 1)):
            raise ValueError(f"learner_seat must be 0, 1 or None (drawn each episode); got {learner_seat!r}.")
        modes = {**AUTORESET_MODES, **{mode: mode for mode in AUTORESET_MODES.values()}}
        if autoreset_mode not in modes:
            raise ValueError(f"autoreset_mode must be one of {list(AUTORESET_MODES)} (got {autoreset_mode!r}).")
        self._rows = rows = GameRows(env_id, num_envs, history_capacity, dict(options))
        self.env_id = env_id
        self.num_envs = rows.n_games
        self.opponent = opponent
        self.learner_seat = learner_seat
        self.autoreset_mode = modes[autoreset_mode]
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.game = rows.game
        low, high = rows.game.observation_bounds()
        self.single_observation_space = spaces.Box(low=low, high=high, dtype=np.int32)
        self.single_action_space = spaces.Discrete(rows.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._opponent = compiled_opponent
        self._seat_rule = -1 if learner_seat is None else int(learner_seat)
        self._seats = np.zeros(n, np.int8)
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
            self._seat_rule, self._seats, self._opponent, self._waiting, self._lengths, self._returns
        )
        self._has_reset = True
        self._mask = mask
        return observation, self._infos(mask)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Plays every learner's action and the opponents' replies.

        Args:
            actions: ``(num_envs,)`` integers, legal for each learner (``action_masks()``). With
                ``"next_step"`` auto-reset, the action of a game that ended on the previous step is
                ignored (the game is reset instead).

        Raises:
            RuntimeError: ``step`` before ``reset``.
            TypeError / ValueError: not integers, wrong shape, out of range.
            IllegalActionError: an action its game does not allow; nothing is played.
        """
        rows = self._rows
        actions = rows.check_actions(actions, skip=self._waiting.astype(bool))
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        observation, mask = rows.step_learners(
            actions, self._seat_rule, self._seats, self._opponent, self.autoreset_mode == AutoresetMode.SAME_STEP,
            rewards, terminated, truncated, self._final_observation, self._facts, self._waiting, self._lengths,
            self._returns, self._episode_lengths, self._episode_returns,
        )
        if self._waiting.any():  # any action is accepted (and ignored) by a game waiting for its reset
            mask[self._waiting.astype(bool)] = 1
        self._mask = mask
        infos = self._infos(mask)
        ended = terminated | truncated
        if ended.any():
            infos["episode"] = {
                "r": np.where(ended, self._episode_returns, 0.0),
                "l": np.where(ended, self._episode_lengths, 0),
            }
            infos["_episode"] = ended.copy()
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                final_obs = np.empty(n, dtype=object)
                for game in np.flatnonzero(ended):
                    final_obs[game] = self._final_observation[game].copy()
                infos["final_obs"] = final_obs
                infos["_final_obs"] = ended.copy()
                infos["final_info"] = self.final_info(ended)
                infos["_final_info"] = ended.copy()
        return observation, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, ``(num_envs, n_actions)`` bool. A game that ended on the last step
        and waits for its next-step reset has every action allowed (its action is ignored)."""
        if not self._has_reset:
            return np.zeros((self.num_envs, self._rows.n_actions), bool)
        return self._mask.astype(bool)

    def final_info(self, ended: np.ndarray) -> dict[str, Any]:
        """The results of the episodes that ended in the last step, as Gymnasium vector infos (an array
        per key, valid where ``ended``): winner (-1 draw), end_reason code, scores and points of both
        players, plies and turns, and the learner's seat."""
        facts = self._facts
        info: dict[str, Any] = {
            "winner": facts[:, 0].copy(),
            "end_reason": facts[:, 1].copy(),
            "scores": facts[:, 2:4].copy(),
            "points": facts[:, 4:6].copy(),
            "plies": facts[:, 6].copy(),
            "turns": facts[:, 7].copy(),
            "learner_seat": facts[:, 8].astype(np.int8),
        }
        for key in list(info):
            info["_" + key] = ended.copy()
        return info

    @property
    def learner_seats(self) -> np.ndarray:
        """Each game's learner seat in the current episode, ``(num_envs,)`` int8."""
        return self._seats.copy()

    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of engine state per game (see :attr:`mancala_envs.batch.BatchedGames.state_bytes_per_game`)."""
        return self._rows.state_bytes_per_game

    def state(self, index: int) -> np.ndarray:
        """A copy of game ``index``'s engine state in the full layout (``MancalaEnv.state_array``'s)."""
        return self._rows.state(index)

    def _infos(self, mask: np.ndarray) -> dict[str, Any]:
        ones = np.ones(self.num_envs, bool)
        return {"action_mask": mask, "_action_mask": ones, "learner_seat": self._seats.copy(), "_learner_seat": ones}

    def __repr__(self) -> str:
        return f"MancalaVectorEnv({self.env_id!r}, num_envs={self.num_envs}, opponent={self.opponent!r})"
