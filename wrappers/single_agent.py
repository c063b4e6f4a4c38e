"""Gymnasium observation wrappers for the single-agent env: the same encodings, and stacking.

They wrap :class:`mancala_envs.views.single_agent_env.SingleAgentEnv` (or any Gymnasium env whose
``observation_space`` is a game's raw int32 ``Box`` and whose ``unwrapped.game`` is the game).
Each forwards ``action_masks()`` to the env below, so sb3-contrib's ``MaskablePPO`` works
through them, and leaves ``info["action_mask"]`` as it is. :class:`GymEncodeObservation`
applies any encoding of :mod:`mancala_envs.wrappers.encodings`; the ``Gym...Observation``
classes fix one.

Example:
    >>> from mancala_envs.views.single_agent_env import SingleAgentEnv
    >>> from mancala_envs.wrappers import GymStackObservation, GymThermometerObservation
    >>> env = GymStackObservation(GymThermometerObservation(SingleAgentEnv("ouril_v0"), cap=6), k=3)
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, env.action_masks().tolist()
    ((231,), [True, True, True, True, True, True])
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mancala_envs.wrappers.encodings import (
    DEFAULT_CAP,
    DEFAULT_STACK,
    ObservationEncoder,
    ObservationStack,
    check_stack_size,
    encoder_class,
)

__all__ = [
    "GymEncodeObservation",
    "GymFlattenObservation",
    "GymOneHotObservation",
    "GymPlanesObservation",
    "GymStackObservation",
    "GymThermometerObservation",
    "is_vector_env",
    "vector_env_advice",
]


def is_vector_env(env: object) -> bool:
    """Whether ``env`` is a vector env: Gymnasium's (``gymnasium.vector.VectorEnv`` and its wrappers,
    :class:`~mancala_envs.views.vector_env.MancalaVectorEnv`) or Stable-Baselines3's (``num_envs``)."""
    return isinstance(env, gymnasium.vector.VectorEnv) or hasattr(env, "num_envs")


def vector_env_advice(
    encoding: str | None = None, options: dict[str, Any] | None = None, stack: str | None = None
) -> str:
    """What to do instead of wrapping a vector env in an encoding (``encoding``, with its non-default
    ``options``) and/or a stack (``stack``: the wrapper as ``make_vec``'s ``wrappers=`` would take it).

    The vector envs take the encoding themselves (``encoding=``); only one env per game can be stacked.
    """
    spec = encoding if not options else {"name": encoding, **options}
    sync = "gymnasium.make_vec(id, num_envs, vectorization_mode='sync'"
    if encoding is None:
        if stack is None:
            return (
                "give the vector env an encoding with encoding= (gymnasium.make_vec(id, num_envs, encoding='flat'), "
                "MancalaVectorEnv(..., encoding='flat') or MancalaSB3VecEnv(..., encoding='flat'))"
            )
        return (
            "the vector envs do not stack observations; wrap each env of the vector instead: "
            f"{sync}, wrappers=[{stack}])"
        )
    example = spec if options else {"name": "one_hot", "cap": 8}
    advice = (
        f"give the vector env the encoding itself: gymnasium.make_vec(id, num_envs, encoding={encoding!r}), "
        f"MancalaVectorEnv(..., encoding={encoding!r}) or MancalaSB3VecEnv(..., encoding={encoding!r}) "
        f"(a dict such as {example!r} sets options)"
    )
    if stack is None:
        return f"{advice}, or one SingleAgentEnv per game: {sync}, encoding={spec!r})"
    return (
        f"{advice}; the vector envs do not stack observations: to stack, make one SingleAgentEnv per game: "
        f"{sync}, encoding={spec!r}, wrappers=[{stack}])"
    )


def _check_gym(env: object, wrapper: str, encoding: str | None = None, options: dict[str, Any] | None = None) -> None:
    if is_vector_env(env):
        advice = vector_env_advice(stack=wrapper) if encoding is None else vector_env_advice(encoding, options)
        raise TypeError(f"{wrapper} wraps one Gymnasium env, not a vector env ({type(env).__name__}); {advice}.")
    if isinstance(env, AECEnv):
        aec_name = wrapper.removeprefix("Gym")
        raise TypeError(
            f"{wrapper} wraps a Gymnasium env such as mancala_envs.views.single_agent_env.SingleAgentEnv('ouril_v0'); "
            f"for a PettingZoo AEC env use {aec_name}."
        )
    if not isinstance(env, gymnasium.Env):
        raise TypeError(
            f"{wrapper} wraps a Gymnasium env (got {type(env).__name__}); "
            "pass one such as mancala_envs.views.single_agent_env.SingleAgentEnv('ouril_v0')."
        )


class _ForwardsActionMasks:
    """``action_masks()`` of the env below, for sb3-contrib's MaskablePPO."""

    env: gymnasium.Env

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner as booleans, from the env below."""
        return self.env.get_wrapper_attr("action_masks")()


class GymEncodeObservation(_ForwardsActionMasks, gymnasium.ObservationWrapper, gymnasium.utils.RecordConstructorArgs):
    """Gymnasium wrapper: the observation is encoded with the encoding called ``encoding``.

    Args:
        env: A Gymnasium env whose observation is a game's raw int32 vector (``SingleAgentEnv``).
        encoding: ``"flat"``, ``"one_hot"``, ``"thermometer"`` or ``"planes"``.
        **options: The encoding's options (``normalize`` for ``"flat"``, ``cap`` for the others).

    Attributes:
        encoder: The :class:`~mancala_envs.wrappers.encodings.ObservationEncoder` in use.

    Raises:
        ValueError: an unknown encoding, or an option out of range.
        TypeError: ``env`` is not a Gymnasium env with a ``game``, its observation is already
            encoded or stacked (apply the encoding first, then the stack), or an option is
            unknown or of the wrong type.
    """

    def __init__(self, env: gymnasium.Env, encoding: str, **options: Any) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, encoding=encoding, **options)
        wrapper = type(self).__name__
        encoder_type = encoder_class(encoding)
        checked = encoder_type.check_options(**options)
        changed = {key: value for key, value in checked.items() if value != encoder_type.options[key]}
        _check_gym(env, wrapper, encoding, changed)
        gymnasium.ObservationWrapper.__init__(self, env)
        game = getattr(env.unwrapped, "game", None)
        if game is None:
            raise TypeError(f"{wrapper} needs a mancala_envs env (env.unwrapped.game); got {env!r}.")
        self.encoding = encoding
        self.options = checked
        self.encoder: ObservationEncoder = encoder_type(game, **checked)
        self.encoder.check_raw_space(env.observation_space, wrapper)
        self.observation_space = self.encoder.space

    def observation(self, observation: np.ndarray) -> np.ndarray:
        """The encoded observation."""
        return self.encoder.encode(observation)


class GymFlattenObservation(GymEncodeObservation):
    """Gymnasium wrapper: the ``flat`` encoding, normalised to [0, 1] by default.

    With ``normalize=True`` the observation passes Stable-Baselines3's ``check_env`` without
    a warning.

    Args:
        env: A Gymnasium env whose observation is a game's raw int32 vector.
        normalize: ``True`` (default): divide each entry by its upper bound; ``False``: cast only.

    Example:
        >>> from mancala_envs.views.single_agent_env import SingleAgentEnv
        >>> from mancala_envs.wrappers import GymFlattenObservation
        >>> env = GymFlattenObservation(SingleAgentEnv("ouril_v0"))
        >>> env.observation_space
        Box(0.0, 1.0, (17,), float32)
    """

    def __init__(self, env: gymnasium.Env, normalize: bool = True) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, normalize=normalize)
        super().__init__(env, "flat", normalize=normalize)


class GymOneHotObservation(GymEncodeObservation):
    """Gymnasium wrapper: the ``one_hot`` encoding.

    Args:
        env: A Gymnasium env whose observation is a game's raw int32 vector.
        cap: Counts from ``cap`` on share the last slot; an int >= 1 (default 12).
    """

    def __init__(self, env: gymnasium.Env, cap: int = DEFAULT_CAP) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, cap=cap)
        super().__init__(env, "one_hot", cap=cap)


class GymThermometerObservation(GymEncodeObservation):
    """Gymnasium wrapper: the ``thermometer`` encoding.

    Args:
        env: A Gymnasium env whose observation is a game's raw int32 vector.
        cap: The entries per pit; an int >= 1 (default 12).
    """

    def __init__(self, env: gymnasium.Env, cap: int = DEFAULT_CAP) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, cap=cap)
        super().__init__(env, "thermometer", cap=cap)


class GymPlanesObservation(GymEncodeObservation):
    """Gymnasium wrapper: the ``planes`` encoding, ``(C, rows, cols)`` float32 for a CNN.

    Stable-Baselines3's default ``CnnPolicy`` expects uint8 images of at least 36 x 36 (its
    ``check_env`` says so); give it a custom features extractor for these small planes.

    Args:
        env: A Gymnasium env whose observation is a game's raw int32 vector.
        cap: The thermometer planes of the counts; an int >= 1 (default 12).
    """

    def __init__(self, env: gymnasium.Env, cap: int = DEFAULT_CAP) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, cap=cap)
        super().__init__(env, "planes", cap=cap)


class GymStackObservation(_ForwardsActionMasks, gymnasium.ObservationWrapper, gymnasium.utils.RecordConstructorArgs):
    """Gymnasium wrapper: the last ``k`` observations, concatenated along axis 0, oldest first.

    ``reset`` empties the stack (zeros before the episode's first observation); every
    observation returned by ``reset`` and ``step`` enters it. A vector ``(n,)`` becomes
    ``(k * n,)``, planes ``(C, R, W)`` become ``(k * C, R, W)``. Put it on top of the encoding.

    Args:
        env: A Gymnasium env with a ``Box`` observation space (encoded or raw).
        k: The number of observations, an int >= 1 (default 4).

    Raises:
        TypeError: ``env`` is not a Gymnasium env with a ``Box`` observation, or ``k`` is not an int.
        ValueError: ``k`` is below 1.
    """

    def __init__(self, env: gymnasium.Env, k: int = DEFAULT_STACK) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, k=k)
        wrapper = type(self).__name__
        self.k = check_stack_size(k)
        _check_gym(env, wrapper)
        gymnasium.ObservationWrapper.__init__(self, env)
        if not isinstance(env.observation_space, spaces.Box):
            raise TypeError(f"{wrapper} stacks Box observations (got {env.observation_space!r}).")
        self._stack = ObservationStack(env.observation_space, self.k)
        self.observation_space = self._stack.space

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Resets the env and starts a new stack."""
        self._stack.clear()
        return super().reset(seed=seed, options=options)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        """The previous ``k - 1`` observations followed by this one (which enters the stack)."""
        stacked = self._stack.stacked(observation)
        self._stack.commit(observation)
        return stacked
