"""Stable-Baselines3 ``VecEnv`` adapter of :class:`~mancala_envs.views.vector_env.MancalaVectorEnv`.

``MaskablePPO("MlpPolicy", MancalaSB3VecEnv("ouril_v0", n_envs=64))`` trains on
64 games stepped by one compiled call each step, instead of 64 Python envs in
``DummyVecEnv`` or worker processes in ``SubprocVecEnv``. Needs the ``train``
extra (stable-baselines3, sb3-contrib).

The adapter follows SB3's conventions: auto-reset in the same step, the ended
episode's last observation in ``infos[i]["terminal_observation"]``,
``infos[i]["TimeLimit.truncated"]`` for a cap, and ``infos[i]["episode"]``
(``r``, ``l``, ``t``) as SB3's ``Monitor`` writes it, so the training logs show
``rollout/ep_rew_mean`` without a ``VecMonitor``. ``env_method("action_masks")``
gives the masks sb3-contrib reads. ``encoding=`` encodes the observations for the
policy (``"flat"``, ``"one_hot"``... as :class:`~mancala_envs.views.vector_env.MancalaVectorEnv`
takes it); without it the policy sees the raw int32 vector.

Example:
    >>> from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv
    >>> vec_env = MancalaSB3VecEnv("ouril_v0", n_envs=4, seed=0)
    >>> vec_env.reset().shape, vec_env.action_masks().shape
    ((4, 17), (4, 6))
    >>> MancalaSB3VecEnv("ouril_v0", n_envs=4, encoding="flat").observation_space
    Box(0.0, 1.0, (17,), float32)
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from mancala_envs.common.validation import check_integer, check_seed
from mancala_envs.views.vector_env import PER_GAME, MancalaVectorEnv

__all__ = ["MancalaSB3VecEnv", "vec_env_indices"]


class MancalaSB3VecEnv(VecEnv):
    """``n_envs`` games of learner against a compiled opponent, as an SB3 ``VecEnv``.

    Args:
        env_id: A registered game or variant.
        n_envs: Games stepped together.
        opponent: A compiled agent: ``"random"``, ``"greedy"``, ``"alphabeta:D"`` or ``"mcts:N"``, or a list of
            them drawn from for each episode (see :class:`~mancala_envs.views.vector_env.MancalaVectorEnv`).
        learner_seat: ``None`` (drawn each episode), ``0`` or ``1``.
        seed: Seeds the games' generators at the first ``reset`` (``VecEnv.seed`` works too).
        encoding: ``None`` or ``"raw"`` (default: the raw int32 vector), or an observation encoding by name
            (``"flat"``, ``"one_hot"``, ``"thermometer"``, ``"planes"``) or as a dict with its options
            (``{"name": "one_hot", "cap": 8}``); the observation space is the encoder's.
        threads: Threads that step the games (``None``, the default: every core, one per 64 games at most; at most
            256); the results are the same whatever the count
            (see :class:`~mancala_envs.views.vector_env.MancalaVectorEnv`).
        **options: Game options, ``first_player``, ``reward_mode``, ``history_capacity``.

    Attributes:
        venv: The :class:`~mancala_envs.views.vector_env.MancalaVectorEnv` underneath (same-step auto-reset).
    """

    def __init__(
        self,
        env_id: str = "ouril_v0",
        n_envs: int = 64,
        opponent: str | Sequence[str] = "random",
        learner_seat: int | None = None,
        seed: int | None = None,
        encoding: str | Mapping[str, Any] | None = None,
        threads: int | None = None,
        **options: Any,
    ) -> None:
        check_integer("n_envs", n_envs, 1)  # named as this class takes it
        self.venv = MancalaVectorEnv(
            env_id,
            n_envs,
            opponent=opponent,
            learner_seat=learner_seat,
            autoreset_mode="same_step",
            encoding=encoding,
            threads=threads,
            **options,
        )
        super().__init__(n_envs, self.venv.single_observation_space, self.venv.single_action_space)
        if seed is not None:
            self.seed(seed)
        self._actions: np.ndarray | None = None
        self._start = time.time()

    # --- VecEnv API -----------------------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        seeds = self._seeds
        seed = None if all(value is None for value in seeds) else [int(value) for value in seeds]
        observation, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return observation

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """As SB3's ``VecEnv.seed`` (game ``i`` is seeded with ``seed + i`` at the next :meth:`reset`), after the
        seed check of every env (:func:`~mancala_envs.common.validation.check_seed`: ``None`` or an integer >= 0, numpy
        integers included).

        Raises:
            TypeError: neither ``None`` nor an integer (a bool, a float, a string).
            ValueError: a negative integer.
        """
        return super().seed(check_seed(seed))

    @property
    def pending_seeds(self) -> list[int | None]:
        """The seed of each game for the next :meth:`reset`, as :meth:`seed` set them (``None``: not seeded), a
        copy (SB3's ``VecEnv`` keeps them; :meth:`reset` uses and clears them)."""
        return list(self._seeds)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() was called without step_async(actions); call step(actions).")
        actions, self._actions = self._actions, None
        observation, rewards, terminated, truncated = self.venv.step_arrays(actions)  # the batch's checks, as is
        dones = terminated | truncated
        step_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            games = np.flatnonzero(dones)
            elapsed = round(time.time() - self._start, 6)
            results = self.venv.final_results(games)
            for game, final_observation, result in zip(
                games.tolist(), self.venv.final_observations(games), results, strict=True
            ):
                step_infos[game] = {
                    "terminal_observation": final_observation,
                    "TimeLimit.truncated": bool(truncated[game] and not terminated[game]),
                    "episode": {"r": result["episode_return"], "l": result["episode_length"], "t": elapsed},
                    "winner": result["winner"],
                    "learner_seat": result["learner_seat"],
                    "opponent": result["opponent"],
                }
        return observation, rewards.astype(np.float32), dones, step_infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, ``(n_envs, n_actions)`` bool."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute for each game of ``indices`` (SB3's semantics: a method is not called): each game's
        row for ``learner_seats``, the batch's value (``opponent``, ``learner_seat``, ``encoding``...) for others."""
        value = getattr(self.venv, attr_name)
        if callable(value):
            values: tuple[Any, ...] = (value,) * self.num_envs
        else:
            values = self.venv.split_by_game(attr_name, value)
        return [values[i] for i in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets a setting of the batch (``opponent``, ``learner_seat``), for every game: it is shared by all."""
        if list(self._indices(indices)) != list(range(self.num_envs)):
            raise ValueError(f"{attr_name} is shared by every game of the batch; set it for all indices.")
        self.venv.set_attr(attr_name, [value] * self.num_envs)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list:
        """Calls the batch's method once: each game's row for ``action_masks``, the one result for each game
        otherwise (``env_method("set_opponent", "greedy")``, for all games only)."""
        if indices is None:  # every game (MaskablePPO's masks, every step)
            return list(self.venv.call(method_name, *method_args, **method_kwargs))
        chosen = list(self._indices(indices))
        if method_name not in PER_GAME and chosen != list(range(self.num_envs)):
            raise ValueError(
                f"{method_name} acts on the whole batch of games; call it without indices "
                f"(only {sorted(PER_GAME)} can be asked for some games)."
            )
        results = self.venv.call(method_name, *method_args, **method_kwargs)
        return [results[i] for i in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    def _indices(self, indices: VecEnvIndices) -> Iterable[int]:
        return vec_env_indices(indices, self.num_envs)

    def __repr__(self) -> str:
        encoding = "" if self.venv.encoder is None else f", encoding={self.venv.encoding!r}"
        return (
            f"MancalaSB3VecEnv({self.venv.env_id!r}, n_envs={self.num_envs}, opponent={self.venv.opponent!r}{encoding})"
        )


def vec_env_indices(indices: VecEnvIndices, n_envs: int) -> Iterable[int]:
    """The env indices that SB3's ``indices`` argument names: all of them for ``None``, one for an int, else
    the given ones."""
    if indices is None:
        return range(n_envs)
    if isinstance(indices, (int, np.integer)):
        return [int(indices)]
    return indices
