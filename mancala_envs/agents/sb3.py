"""A saved Stable-Baselines3 model as an agent (``"sb3:path/to/model.zip"``; the train extra)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents.base import Agent
from mancala_envs.engine.state import PLAYER
from mancala_envs.env import MancalaEnv, unwrap_env
from mancala_envs.games.base import Game

__all__ = ["PolicyOpponent", "SB3Agent", "policy_encoder"]


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

        raw = unwrap_env(env)
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


class SB3Agent(Agent):
    """Plays a saved Stable-Baselines3 model (MaskablePPO or PPO) (``"sb3:path/to/model.zip"``).

    The model is loaded as :meth:`PolicyOpponent.load` loads model
    opponents (CPU, the observation encoding found from the policy's observation space); its
    logits are masked with the legal actions. It samples from the masked policy with the agent's
    generator, or plays the most likely legal action with ``deterministic=True``.

    Args:
        path: The ``.zip`` written by ``model.save(path)``.
        seed: Seed of the agent's generator (sampling).
        deterministic: Play the most likely legal action.

    Raises:
        FileNotFoundError: there is no such file.
        ImportError: stable-baselines3 or sb3-contrib is missing (``pip install 'mancala-envs[train]'``).
        ValueError: the file is neither a MaskablePPO nor a PPO model.
    """

    def __init__(self, path: str | Path, seed: int | None = None, deterministic: bool = False) -> None:
        super().__init__(seed)
        self.path = str(path)
        self.opponent = PolicyOpponent.load(path, deterministic=bool(deterministic))
        self.deterministic = bool(deterministic)
        self.name = f"sb3:{self.path}"
        self._encoder: Any = None
        self._encoder_game: Game | None = None

    def act(self, env: Any) -> int:
        self.env_legal_actions(env)
        raw = env.unwrapped
        return self._choose(raw.game, raw.state_array)

    def act_on_state(self, game: Game, state: np.ndarray) -> int:
        self.state_legal_actions(game, state)
        return self._choose(game, state)

    def _choose(self, game: Game, state: np.ndarray) -> int:
        """The masked policy's action for the player to move (as ``PolicyOpponent.act`` plays it)."""
        import torch

        if self._encoder is None or self._encoder_game is not game:
            self._encoder = policy_encoder(game, self.opponent.policy.observation_space, self.opponent.observation)
            self._encoder_game = game
        observation, mask = game.observe_with_mask(state, int(state[PLAYER]))
        tensor, _ = self.opponent.policy.obs_to_tensor(self._encoder(observation))
        with torch.no_grad():
            logits = self.opponent.policy.get_distribution(tensor).distribution.logits[0].cpu().numpy()
        logits = np.where(mask.astype(bool), logits.astype(np.float64), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        return int(self.rng.choice(mask.size, p=weights / weights.sum()))

    def __repr__(self) -> str:
        return f"SB3Agent({self.path!r})"
