"""Opponents for the single-agent view: who plays the other seat.

An opponent is anything with ``act(env) -> int`` that returns a legal action for
``env.agent_selection`` of a mancala_envs AEC environment, and ``reseed(seed)``.
:func:`make_opponent` builds one from what users write in code and configs:

- a baseline name: ``"random"``, ``"greedy"`` (any id that
  :func:`mancala_envs.agents.make_agent` knows);
- a saved Stable-Baselines3 model: ``"model:path/to/model.zip"``, ``"sb3:path/to/model.zip"``
  (the agent name) or a path ending in ``.zip`` (PPO or MaskablePPO; see :class:`PolicyOpponent`);
- an :class:`~mancala_envs.agents.Agent` or any object with ``act(env)``;
- a callable ``policy(observation, action_mask) -> int`` that sees the
  opponent's own egocentric observation vector and int8 mask;
- a list of any of these: an :class:`OpponentPool`, one member drawn per episode.

Example:
    >>> import mancala_envs
    >>> from mancala_envs.opponents import make_opponent
    >>> env = mancala_envs.make("ouril_v0", first_player=0)
    >>> env.reset(seed=0)
    >>> first_legal = make_opponent(lambda observation, mask: int(mask.argmax()))
    >>> first_legal.act(env)
    0
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mancala_envs.agents import Agent, make_agent
from mancala_envs.env import MancalaEnv

__all__ = [
    "CallableOpponent",
    "Opponent",
    "OpponentPool",
    "PolicyOpponent",
    "make_opponent",
    "policy_encoder",
]

MODEL_PREFIX = "model:"


@runtime_checkable
class Opponent(Protocol):
    """What the single-agent view needs from an opponent."""

    def act(self, env: Any) -> int:
        """Returns a legal action for ``env.agent_selection``."""

    def reseed(self, seed: int) -> None:
        """Restarts the opponent's own random generator from ``seed``."""


def _raw_env(env: Any) -> MancalaEnv:
    raw = getattr(env, "unwrapped", None)
    if not isinstance(raw, MancalaEnv):
        raise TypeError(
            f"an opponent acts on a mancala_envs AEC environment (got {type(env).__name__}); "
            "pass one such as mancala_envs.make('ouril_v0')."
        )
    return raw


def _seed_agent(agent: Any, seed: int) -> None:
    if isinstance(agent, Agent):
        agent.rng = np.random.default_rng(seed)
    elif hasattr(agent, "reseed"):
        agent.reseed(seed)


class AgentOpponent:
    """Adapts an object with ``act(env)`` (a baseline :class:`~mancala_envs.agents.Agent`)."""

    def __init__(self, agent: Any, name: str | None = None) -> None:
        self.agent = agent
        self.name = name or getattr(agent, "name", type(agent).__name__)

    def act(self, env: Any) -> int:
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

    def act(self, env: Any) -> int:
        raw = _raw_env(env)
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


class PolicyOpponent:
    """Plays a Stable-Baselines3 policy (PPO or MaskablePPO, or a frozen snapshot of one).

    The policy's logits are masked with the legal actions, so it never plays an
    illegal move. Its observation is the mover's egocentric vector encoded as the
    policy expects: ``observation`` names the encoding (as ``apply_wrappers``
    takes it, e.g. ``"flat"`` or ``{"name": "one_hot", "cap": 8}``), or ``None``
    to find the one encoding whose space equals the policy's observation space.

    Args:
        policy: An SB3 model (``model.policy`` is used) or policy.
        observation: The encoding, or ``None`` to infer it when first used.
        deterministic: Play the most likely legal action instead of sampling.
        name: Shown in evaluation tables.
    """

    def __init__(
        self,
        policy: Any,
        observation: str | dict[str, Any] | None = None,
        deterministic: bool = False,
        name: str = "policy",
    ) -> None:
        self.policy = getattr(policy, "policy", policy)
        if not hasattr(self.policy, "get_distribution") or not hasattr(self.policy, "obs_to_tensor"):
            raise TypeError(
                f"PolicyOpponent needs a Stable-Baselines3 on-policy model or policy (got {type(policy).__name__})."
            )
        self.observation = observation
        self.deterministic = bool(deterministic)
        self.name = name
        self.rng = np.random.default_rng()
        self._encoder: Any = None

    @classmethod
    def load(cls, path: str | Path, **kwargs: Any) -> PolicyOpponent:
        """Loads a model saved by ``model.save(path)`` (MaskablePPO or PPO) onto the CPU.

        Raises:
            FileNotFoundError: there is no such file.
            ImportError: stable-baselines3 is not installed (``pip install 'mancala-envs[train]'``).
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no saved model at {str(path)!r}; pass the .zip that model.save() wrote.")
        try:
            from sb3_contrib import MaskablePPO
            from stable_baselines3 import PPO
        except ImportError as error:  # pragma: no cover - depends on the installed extras
            raise ImportError(
                "a model opponent needs stable-baselines3 and sb3-contrib: pip install 'mancala-envs[train]'"
            ) from error
        errors = []
        for algorithm in (MaskablePPO, PPO):
            try:
                model = algorithm.load(path, device="cpu")
            except (KeyError, ValueError, TypeError, AttributeError, RuntimeError) as error:
                errors.append(f"{algorithm.__name__}: {error}")
                continue
            kwargs.setdefault("name", path.stem)
            return cls(model, **kwargs)
        raise ValueError(f"{str(path)!r} is neither a MaskablePPO nor a PPO model ({'; '.join(errors)}).")

    def _encoder_for(self, raw: MancalaEnv) -> Any:
        if self._encoder is None:
            self._encoder = policy_encoder(raw.game, self.policy.observation_space, self.observation)
        return self._encoder

    def act(self, env: Any) -> int:
        import torch

        raw = _raw_env(env)
        observation = raw.observe(raw.agent_selection)
        mask = observation["action_mask"].astype(bool)
        encoded = self._encoder_for(raw)(observation["observation"])
        tensor, _ = self.policy.obs_to_tensor(encoded)
        with torch.no_grad():
            logits = self.policy.get_distribution(tensor).distribution.logits[0].cpu().numpy()
        logits = np.where(mask, logits.astype(np.float64), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        return int(self.rng.choice(mask.size, p=weights / weights.sum()))

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def frozen(self) -> PolicyOpponent:
        """A deep copy that later training of the original does not change (for self-play)."""
        return copy.deepcopy(self)

    def __repr__(self) -> str:
        return f"PolicyOpponent({self.name!r})"


def _identity(observation: np.ndarray) -> np.ndarray:
    return observation


def policy_encoder(game: Any, space: Any, observation: str | dict[str, Any] | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """The function that turns the raw egocentric observation into what a policy with ``space`` expects.

    Args:
        game: The game.
        space: The policy's observation space.
        observation: ``"raw"`` (no encoding), an encoding as ``apply_wrappers`` names it (``"flat"``,
            ``{"name": "one_hot", "cap": 8}``), or ``None``: the one encoding (raw, or any encoding
            with its default options) whose space equals ``space``.

    Raises:
        ValueError: the encoding's space differs from ``space``, or no encoding matches it.
    """
    from gymnasium import spaces

    from mancala_envs.wrappers import make_encoder

    low, high = game.observation_bounds()
    raw_space = spaces.Box(low, high, dtype=np.int32)
    if observation is None:
        candidates: list[Any] = ["raw", "flat", {"name": "flat", "normalize": False}, "one_hot", "thermometer", "planes"]
    else:
        candidates = [observation]
    for candidate in candidates:
        if candidate == "raw":
            encoder, candidate_space = _identity, raw_space
        else:
            name, options = (candidate, {}) if isinstance(candidate, str) else (
                candidate["name"], {k: v for k, v in candidate.items() if k != "name"})
            built = make_encoder(name, game, **options)
            encoder, candidate_space = built.encode, built.space
        if candidate_space == space:
            return encoder
    if observation is not None:
        raise ValueError(
            f"the policy's observation space {space} is not the space of the {observation!r} encoding "
            f"of {game.env_name}; pass the encoding the policy was trained with."
        )
    raise ValueError(
        f"no encoding of {game.env_name} gives the policy's observation space {space}; pass observation= "
        "with the encoding it was trained on (e.g. {'name': 'one_hot', 'cap': 8})."
    )


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
            self.weights = [float(w) / total for w in weights]
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


def make_opponent(spec: Any, seed: int | None = None) -> Opponent | OpponentPool:
    """Builds an opponent (or a pool) from a name, model path, agent, callable or list.

    Args:
        spec: See the module docstring.
        seed: Seeds the opponent's own generator.

    Raises:
        TypeError: ``spec`` is none of the accepted kinds.
        ValueError: an unknown baseline name.
        FileNotFoundError: a model path that does not exist.
    """
    if isinstance(spec, (OpponentPool, AgentOpponent, CallableOpponent, PolicyOpponent)):
        opponent: Any = spec
    elif isinstance(spec, str):
        if spec.startswith((MODEL_PREFIX, "sb3:")) or spec.endswith(".zip"):
            opponent = PolicyOpponent.load(spec.removeprefix(MODEL_PREFIX).removeprefix("sb3:"))
        else:
            opponent = AgentOpponent(make_agent(spec), name=spec)
    elif isinstance(spec, (list, tuple)):
        opponent = OpponentPool([make_opponent(member) for member in spec])
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
