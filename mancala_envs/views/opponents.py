"""Opponents for the single-agent view: who plays the other seat.

An opponent is anything with ``act(env) -> int`` that returns a legal action for
``env.agent_selection`` of a mancala_envs AEC environment, and ``reseed(seed)``.
:func:`make_opponent` builds one from what users write in code and configs:

- a baseline name: ``"random"``, ``"greedy"`` (any id that
  :func:`mancala_envs.agents.make_agent` knows);
- a saved Stable-Baselines3 model: ``"model:path/to/model.zip"``, ``"sb3:path/to/model.zip"``
  (the agent name) or a path ending in ``.zip`` (PPO or MaskablePPO; see :class:`PolicyOpponent`),
  loaded without unpickling it: a file that needs unpickling is refused unless
  ``trust_remote_code=True`` (see :func:`~mancala_envs.agents.sb3.load_policy`). The single-agent env
  builds its opponent with the default; to play a file you trust there, pass the loaded opponent,
  ``opponent=PolicyOpponent.load(path, trust_remote_code=True)``;
- an :class:`~mancala_envs.agents.Agent` or any object with ``act(env)``;
- a callable ``policy(observation, action_mask) -> int`` that sees the
  opponent's own egocentric observation vector and int8 mask;
- a list of any of these: an :class:`OpponentPool`, one member drawn per episode.

Example:
    >>> import mancala_envs
    >>> from mancala_envs.views.opponents import make_opponent
    >>> env = mancala_envs.make("ouril_v0", first_player=0)
    >>> env.reset(seed=0)
    >>> first_legal = make_opponent(lambda observation, mask: int(mask.argmax()))
    >>> first_legal.act(env)
    0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

import numpy as np
from pettingzoo import AECEnv

from mancala_envs.agents import Agent, make_agent
from mancala_envs.agents.sb3 import PolicyOpponent, UntrustedModelError, policy_encoder
from mancala_envs.envs.aec_env import unwrap_env

__all__ = [
    "ActsOnEnv",
    "CallableOpponent",
    "Opponent",
    "OpponentPool",
    "OpponentSpec",
    "PolicyOpponent",
    "UntrustedModelError",
    "make_opponent",
    "policy_encoder",
]

MODEL_PREFIX = "model:"


class ActsOnEnv(Protocol):
    """Any object with ``act(env) -> int`` (an :class:`~mancala_envs.agents.Agent`, an :class:`Opponent`)."""

    def act(self, env: AECEnv) -> int:
        """Returns a legal action for ``env.agent_selection``."""


@runtime_checkable
class Opponent(ActsOnEnv, Protocol):
    """What the single-agent view needs from an opponent: ``act(env)`` and ``reseed(seed)``."""

    def reseed(self, seed: int) -> None:
        """Restarts the opponent's own random generator from ``seed``."""


def _seed_agent(agent: ActsOnEnv, seed: int) -> None:
    if isinstance(agent, Agent):
        agent.rng = np.random.default_rng(seed)
    elif hasattr(agent, "reseed"):
        agent.reseed(seed)


class AgentOpponent:
    """Adapts an object with ``act(env)`` (a baseline :class:`~mancala_envs.agents.Agent`)."""

    def __init__(self, agent: Any, name: str | None = None) -> None:
        self.agent = agent
        self.name = name or getattr(agent, "name", type(agent).__name__)

    def act(self, env: AECEnv) -> int:
        return int(self.agent.act(env))

    def reseed(self, seed: int) -> None:
        _seed_agent(self.agent, seed)

    def __repr__(self) -> str:
        return f"AgentOpponent({self.name!r})"


class CallableOpponent:
    """Adapts ``policy(observation, action_mask) -> int`` to an opponent.

    The policy sees the mover's egocentric int32 observation vector and int8 action mask
    (the entries of the AEC observation dict). An illegal answer raises ``ValueError``.

    Args:
        policy: The callable.
        name: Shown in evaluation tables (default: the callable's ``__name__``).
    """

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], Any], name: str | None = None) -> None:
        if not callable(policy):
            raise TypeError(f"policy must be callable as policy(observation, action_mask) (got {policy!r}).")
        self.policy = policy
        self.name = name or getattr(policy, "__name__", "callable")

    def act(self, env: AECEnv) -> int:
        raw = unwrap_env(env)
        observation = raw.observe(raw.agent_selection)
        answer = self.policy(observation["observation"], observation["action_mask"])
        if isinstance(answer, np.ndarray) and answer.shape == () and np.issubdtype(answer.dtype, np.integer):
            answer = answer.item()
        if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, (int, np.integer)):
            raise TypeError(
                f"opponent {self.name!r} returned {answer!r} of type {type(answer).__name__}; "
                "it must return an int action."
            )
        action = int(answer)
        mask = observation["action_mask"]
        if not 0 <= action < mask.size or not mask[action]:
            raise ValueError(
                f"opponent {self.name!r} returned action {action}, which is illegal here "
                f"(legal: {np.flatnonzero(mask).tolist()}); make it pick an action whose mask entry is 1."
            )
        return action

    def reseed(self, seed: int) -> None:
        """Callables keep their own randomness; nothing to do."""

    def __repr__(self) -> str:
        return f"CallableOpponent({self.name!r})"


class OpponentPool:
    """Several opponents; :meth:`draw` picks one per episode with the env's generator.

    Args:
        members: The opponents (already built).
        weights: Optional relative draw weights, one per member.
    """

    def __init__(self, members: Sequence[Opponent], weights: Sequence[float] | None = None) -> None:
        if not members:
            raise ValueError("an opponent pool needs at least one opponent.")
        self.members = list(members)
        if weights is not None:
            if len(weights) != len(self.members) or any(w < 0 for w in weights) or sum(weights) <= 0:
                raise ValueError("pool weights must be one non-negative number per opponent, not all zero.")
            total = float(sum(weights))
            self.weights: list[float] | None = [float(w) / total for w in weights]
        else:
            self.weights = None
        self.name = "pool(" + ", ".join(getattr(m, "name", "?") for m in self.members) + ")"

    def draw(self, rng: np.random.Generator) -> Opponent:
        """The opponent of the next episode."""
        return self.members[int(rng.choice(len(self.members), p=self.weights))]

    def add(self, opponent: Opponent, max_size: int | None = None) -> None:
        """Adds a member; with ``max_size``, the oldest members after the first go first."""
        self.members.append(opponent)
        self.weights = None
        if max_size is not None:
            while len(self.members) > max_size:
                del self.members[1 if len(self.members) > 1 else 0]

    def reseed(self, seed: int) -> None:
        for i, member in enumerate(self.members):
            member.reseed(seed + i)

    def __repr__(self) -> str:
        return f"OpponentPool({self.members!r})"


#: What :func:`make_opponent` and the single-agent env's ``opponent=`` take (see the module docstring): a baseline
#: name or model path, an object with ``act(env)``, a callable ``policy(observation, action_mask) -> int``, an
#: :class:`OpponentPool`, or a list or tuple of these (a pool).
OpponentSpec: TypeAlias = (
    "str | ActsOnEnv | OpponentPool | Callable[[np.ndarray, np.ndarray], Any] | Sequence[OpponentSpec]"
)


def make_opponent(
    spec: OpponentSpec, seed: int | None = None, *, trust_remote_code: bool = False
) -> Opponent | OpponentPool:
    """Builds an opponent (or a pool) from a name, model path, agent, callable or list.

    Args:
        spec: See the module docstring.
        seed: Seeds the opponent's own generator.
        trust_remote_code: For saved models: load them in full with Stable-Baselines3, which unpickles
            objects stored in the file, so **a crafted file runs arbitrary code**. Only for files you trust.
            By default a model is loaded without unpickling (see :func:`~mancala_envs.agents.sb3.load_policy`).

    Raises:
        TypeError: ``spec`` is none of the accepted kinds, or a list holding a list or a pool (pools do not nest).
        ValueError: an unknown baseline name, or a file that is not a saved model.
        UntrustedModelError: (a ``ValueError``) a model file that can only be loaded by unpickling it,
            without ``trust_remote_code``; the message says how to opt in.
        FileNotFoundError: a model path that does not exist.
    """
    if isinstance(spec, (OpponentPool, AgentOpponent, CallableOpponent, PolicyOpponent)):
        opponent: Any = spec
    elif isinstance(spec, str):
        if spec.startswith((MODEL_PREFIX, "sb3:")) or spec.endswith(".zip"):
            path = spec.removeprefix(MODEL_PREFIX).removeprefix("sb3:")
            opponent = PolicyOpponent.load(path, trust_remote_code=trust_remote_code)
        else:
            opponent = AgentOpponent(make_agent(spec), name=spec)
    elif isinstance(spec, (list, tuple)):
        members: list[Opponent] = []
        for member in spec:
            built = make_opponent(member, trust_remote_code=trust_remote_code)
            if isinstance(built, OpponentPool):  # a pool draws an opponent that acts; a pool does not act
                raise TypeError(
                    f"an opponent list holds opponents, not lists or pools (got {member!r}); "
                    "list its opponents in the outer list instead."
                )
            members.append(built)
        opponent = OpponentPool(members)
    elif hasattr(spec, "act") and callable(spec.act):
        opponent = AgentOpponent(spec)
    elif callable(spec):
        opponent = CallableOpponent(spec)
    else:
        raise TypeError(
            f"opponent {spec!r} is not usable; pass a baseline name such as 'random', 'model:path.zip', "
            "an Agent, a callable policy(observation, action_mask) -> int, or a list of these."
        )
    if seed is not None:
        opponent.reseed(seed)
    return opponent
