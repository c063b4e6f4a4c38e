"""AEC (PettingZoo) observation wrappers: encode each agent's ``observation`` entry, or stack it.

Every wrapper keeps the observation a dict whose ``action_mask`` entry (and space) is the wrapped
env's own, and only replaces ``observation``. The encodings are those of
:mod:`mancala_envs.wrappers.encodings`; :class:`EncodeObservation` applies any of them, and
:class:`OneHotObservation`, :class:`ThermometerObservation`, :class:`PlanesObservation` (and
:class:`~mancala_envs.wrappers.flatten.FlattenObservation`) are that class with a fixed encoding.
:class:`StackObservation` goes on top of an encoding (or of the raw env).

Example:
    >>> import mancala_envs
    >>> from mancala_envs.wrappers import OneHotObservation, StackObservation
    >>> env = StackObservation(OneHotObservation(mancala_envs.make("ouril_v0"), cap=8), k=2)
    >>> env.reset(seed=0)
    >>> observation, *_ = env.last()
    >>> observation["observation"].shape, observation["action_mask"].tolist()
    ((226,), [1, 1, 1, 1, 1, 1])
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseWrapper

from mancala_envs.wrappers.encodings import (
    DEFAULT_CAP,
    DEFAULT_STACK,
    ObservationEncoder,
    ObservationStack,
    check_stack_size,
    encoder_class,
)

__all__ = [
    "EncodeObservation",
    "OneHotObservation",
    "PlanesObservation",
    "StackObservation",
    "ThermometerObservation",
]


def _check_aec(env: object, wrapper: str) -> None:
    if isinstance(env, ParallelEnv):
        raise TypeError(
            f"{wrapper} wraps an AEC environment, not a parallel one; wrap the AEC env first, then convert it: "
            f"pettingzoo.utils.conversions.turn_based_aec_to_parallel({wrapper}(env)), or "
            f"mancala_envs.wrappers.turn_based_parallel({wrapper}(env)) (PettingZoo's aec_to_parallel refuses "
            "these turn-based envs)."
        )
    if not isinstance(env, AECEnv):
        hint = f"; for a Gymnasium env use Gym{wrapper}" if isinstance(env, gymnasium.Env) else ""
        raise TypeError(
            f"{wrapper} wraps a PettingZoo AEC environment (got {type(env).__name__}); "
            f"pass one such as mancala_envs.make('ouril_v0'){hint}."
        )


def _observation_entry(env: AECEnv, agent: str, wrapper: str) -> spaces.Dict:
    inner = env.observation_space(agent)
    if (
        not isinstance(inner, spaces.Dict)
        or "observation" not in inner.spaces
        or not isinstance(inner["observation"], spaces.Box)
    ):
        raise TypeError(
            f"{wrapper} needs a Dict observation space with an 'observation' entry "
            f"(got {inner!r}); apply it to a mancala_envs environment."
        )
    return inner


class EncodeObservation(BaseWrapper, gymnasium.utils.RecordConstructorArgs):
    """AEC wrapper: each agent's ``observation`` is encoded with the encoding called ``encoding``.

    The ``action_mask`` entry and its space are the wrapped env's own; the observation space
    of each agent is built once.

    Args:
        env: A mancala_envs AEC environment (raw, or under wrappers that keep its observation).
        encoding: ``"flat"``, ``"one_hot"``, ``"thermometer"`` or ``"planes"``.
        **options: The encoding's options (``normalize`` for ``"flat"``, ``cap`` for the others).

    Attributes:
        encoder: The :class:`~mancala_envs.wrappers.encodings.ObservationEncoder` in use.

    Raises:
        ValueError: an unknown encoding, or an option out of range.
        TypeError: ``env`` is not a PettingZoo AEC environment of this library, its observation
            is already encoded or stacked (apply the encoding first, then the stack), or an
            option is unknown or of the wrong type.
    """

    def __init__(self, env: AECEnv, encoding: str, **options: Any) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, encoding=encoding, **options)
        wrapper = type(self).__name__
        encoder_type = encoder_class(encoding)
        checked = encoder_type.check_options(**options)
        _check_aec(env, wrapper)
        BaseWrapper.__init__(self, env)
        inner = {agent: _observation_entry(env, agent, wrapper) for agent in env.possible_agents}
        game = getattr(env.unwrapped, "game", None)
        if game is None:
            raise TypeError(f"{wrapper} needs a mancala_envs environment (env.unwrapped.game); got {env!r}.")
        self.encoding = encoding
        self.options = checked
        self.encoder: ObservationEncoder = encoder_type(game, **checked)
        self._observation_spaces: dict[str, spaces.Dict] = {}
        for agent, space in inner.items():
            self.encoder.check_raw_space(space["observation"], wrapper)
            self._observation_spaces[agent] = spaces.Dict({**space.spaces, "observation": self.encoder.space})

    def observation_space(self, agent: str) -> spaces.Space:
        """The encoded observation space of ``agent`` (built once)."""
        return self._observation_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        """The wrapped env's observation with its ``observation`` entry encoded."""
        observation = self.env.observe(agent)
        if observation is None:
            return None
        return {**observation, "observation": self.encoder.encode(observation["observation"])}


class OneHotObservation(EncodeObservation):
    """AEC wrapper: the ``one_hot`` encoding (:class:`~mancala_envs.wrappers.encodings.OneHotEncoder`).

    Args:
        env: A mancala_envs AEC environment.
        cap: Counts from ``cap`` on share the last slot; an int >= 1 (default 12).
    """

    def __init__(self, env: AECEnv, cap: int = DEFAULT_CAP) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, cap=cap)
        super().__init__(env, "one_hot", cap=cap)


class ThermometerObservation(EncodeObservation):
    """AEC wrapper: the ``thermometer`` encoding (:class:`~mancala_envs.wrappers.encodings.ThermometerEncoder`).

    Args:
        env: A mancala_envs AEC environment.
        cap: The entries per pit; an int >= 1 (default 12).
    """

    def __init__(self, env: AECEnv, cap: int = DEFAULT_CAP) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, cap=cap)
        super().__init__(env, "thermometer", cap=cap)


class PlanesObservation(EncodeObservation):
    """AEC wrapper: the ``planes`` encoding (:class:`~mancala_envs.wrappers.encodings.PlanesEncoder`).

    Args:
        env: A mancala_envs AEC environment.
        cap: The thermometer planes of the counts; an int >= 1 (default 12).

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers import PlanesObservation
        >>> env = PlanesObservation(mancala_envs.make("omweso_v0"))
        >>> env.observation_space("player_0")["observation"].shape
        (30, 4, 8)
    """

    def __init__(self, env: AECEnv, cap: int = DEFAULT_CAP) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, cap=cap)
        super().__init__(env, "planes", cap=cap)


class StackObservation(BaseWrapper, gymnasium.utils.RecordConstructorArgs):
    """AEC wrapper: each agent sees its own last ``k`` observations, concatenated along axis 0.

    An agent's stack holds the observations it acted on at its last ``k - 1`` decisions (zeros
    before its first), oldest first, followed by its current observation: a vector ``(n,)``
    becomes ``(k * n,)``, planes ``(C, R, W)`` become ``(k * C, R, W)``. ``observe`` does not
    change the stack (PettingZoo may call it any number of times); a ``step`` by a live agent
    commits the observation it acted on, and ``reset`` empties every stack.

    Put it on top of the encoding: ``StackObservation(PlanesObservation(env), k=4)``.

    Args:
        env: A mancala_envs AEC environment, raw or encoded.
        k: The number of observations, an int >= 1 (default 4).

    Raises:
        TypeError: ``env`` is not a PettingZoo AEC environment whose observation is a Dict with a
            Box ``observation`` entry, or ``k`` is not an int.
        ValueError: ``k`` is below 1.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers import FlattenObservation, StackObservation
        >>> env = StackObservation(FlattenObservation(mancala_envs.make("ouril_v0", first_player=0)), k=2)
        >>> env.reset(seed=0)
        >>> env.observe("player_0")["observation"][:3].tolist()  # zeros before the first observation
        [0.0, 0.0, 0.0]
        >>> env.step(5)
        >>> env.step(0)
        >>> env.observe("player_0")["observation"][[5, 17 + 5]].tolist()  # own pit 5 when it acted, and now
        [4.0, 0.0]
    """

    def __init__(self, env: AECEnv, k: int = DEFAULT_STACK) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, k=k)
        wrapper = type(self).__name__
        self.k = check_stack_size(k)
        _check_aec(env, wrapper)
        BaseWrapper.__init__(self, env)
        self._stacks: dict[str, ObservationStack] = {}
        self._observation_spaces: dict[str, spaces.Dict] = {}
        for agent in env.possible_agents:
            inner = _observation_entry(env, agent, wrapper)
            stack = self._stacks[agent] = ObservationStack(cast(spaces.Box, inner["observation"]), self.k)
            self._observation_spaces[agent] = spaces.Dict({**inner.spaces, "observation": stack.space})

    def observation_space(self, agent: str) -> spaces.Space:
        """The stacked observation space of ``agent`` (built once)."""
        return self._observation_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        """The agent's committed observations followed by its current one."""
        observation = self.env.observe(agent)
        if observation is None:
            return None
        return {**observation, "observation": self._stacks[agent].stacked(observation["observation"])}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Resets the env and empties every agent's stack."""
        self.env.reset(seed=seed, options=options)
        for stack in self._stacks.values():
            stack.clear()

    def step(self, action: Any) -> None:
        """Steps the env; if the agent to act was live, commits the observation it acted on."""
        env = self.env
        agent = env.agent_selection if env.agents else None
        live = agent is not None and not (env.terminations[agent] or env.truncations[agent])
        acted_on = env.observe(agent)["observation"] if live else None
        env.step(action)  # a rejected action raises here, before anything is committed
        if live and agent is not None and acted_on is not None:  # live: both are
            self._stacks[agent].commit(acted_on)
