"""The agent protocol: :class:`Agent` chooses the action of the player to move."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from pettingzoo import AECEnv

from mancala_envs.common.validation import check_seed
from mancala_envs.engine.state import LEGAL, RUNNING, STATUS
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.games.game import Game

__all__ = ["Agent", "StateAgent", "masked_choice"]


class Agent(ABC):
    """Chooses the action of the player to move.

    Args:
        seed: Seed of the agent's own generator (ties and random choices):
            ``None`` or a non-negative integer.

    Raises:
        TypeError: ``seed`` is neither ``None`` nor an integer.
        ValueError: ``seed`` is negative.
    """

    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        seed = check_seed(seed, "agent seed")
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, env: AECEnv) -> int:
        """Returns a legal action for ``env.agent_selection`` (the env is not changed).

        Raises:
            TypeError: ``env`` is not a mancala_envs environment (wrapped or raw).
            RuntimeError: ``env`` has not been reset.
            ValueError: the game is over (the player to move has no legal action).
        """

    def act_on_state(self, game: Game, state: np.ndarray) -> int:
        """Returns a legal action for the player to move in ``state``, a state array of ``game``
        (``env.unwrapped.state_array``); neither is changed.

        ``state`` is checked with ``game.check_state`` before anything reads it: a state no game of
        ``game`` reaches is refused with an exception, never searched. Then :meth:`act_on_engine_state` acts.

        Raises:
            TypeError: ``game`` is not a mancala_envs Game, or ``state`` is not a writable, C-contiguous
                ``int64`` array of ``game.state_size`` entries.
            ValueError: ``state`` is inconsistent (the message names the part: a negative pit, seeds that
                are not the game's, a wrong player or counter...), or the game in it is over.
            NotImplementedError: the agent only acts on environments.
        """
        if type(self).act_on_engine_state is Agent.act_on_engine_state:
            raise NotImplementedError(f"{type(self).__name__} only acts on environments; call act(env).")
        self.state_legal_actions(game, state)
        return self.act_on_engine_state(game, state)

    def act_on_engine_state(self, game: Game, state: np.ndarray) -> int:
        """:meth:`act_on_state` without its check, for a running state the engine itself made and handed over
        unchanged (``env.unwrapped.state_array``, a row of ``BatchedGames.state(i)``, an OpenSpiel state's
        array): what self-play and the OpenSpiel bot call once per move, where ``game.check_state`` would cost
        more than the move. **Unchecked**: a state from anywhere else goes through :meth:`act_on_state`.

        A subclass that acts on states writes this method; :meth:`act` and :meth:`act_on_state` check their
        input and call it.

        Raises:
            NotImplementedError: the agent only acts on environments.
        """
        raise NotImplementedError(f"{type(self).__name__} only acts on environments; call act(env).")

    @staticmethod
    def env_legal_actions(env: object) -> np.ndarray:
        """The legal actions of ``env``'s player to move (checks that ``env`` is a reset mancala_envs env)."""
        raw = getattr(env, "unwrapped", None)
        if not isinstance(raw, MancalaEnv):
            raise TypeError(
                "act() needs a mancala_envs environment, e.g. mancala_envs.make('ouril_v0') "
                f"(got {type(env).__name__})."
            )
        if not raw.has_reset:
            raise RuntimeError("act() was called before reset(); call env.reset() first.")
        legal = raw.game.legal_actions(raw.state_array)
        if legal.size == 0:
            raise ValueError("the player to move has no legal action: the game is over; call reset().")
        return legal

    @staticmethod
    def state_legal_actions(game: Game, state: np.ndarray) -> np.ndarray:
        """The legal actions of the player to move in ``state``, after checking that it is a running state of
        ``game`` (``game.check_state``: the door of every ``act_on_state`` and search).

        Raises:
            TypeError: ``game`` is not a Game, or ``state`` not an array of its state's form.
            ValueError: ``state`` is inconsistent, or its game is over.
        """
        if not isinstance(game, Game):
            raise TypeError(f"game must be a mancala_envs Game such as Ouril() (got {type(game).__name__}).")
        game.check_state(state)
        if state[STATUS] != RUNNING or state[LEGAL] == 0:
            raise ValueError("the player to move has no legal action: the game is over; call reset().")
        return game.legal_actions(state)


class StateAgent(Agent):
    """An agent that decides from the engine state alone: a subclass writes :meth:`choose`, and :meth:`act`,
    :meth:`act_on_state` (both checked) and :meth:`act_on_engine_state` call it."""

    def act(self, env: AECEnv) -> int:
        self.env_legal_actions(env)
        raw = env.unwrapped
        return self.choose(raw.game, raw.state_array)

    def act_on_engine_state(self, game: Game, state: np.ndarray) -> int:
        return self.choose(game, state)

    @abstractmethod
    def choose(self, game: Game, state: np.ndarray) -> int:
        """The action for the player to move in ``state``, a running state of ``game`` (already checked)."""


def masked_choice(
    logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator, deterministic: bool = False
) -> np.ndarray:
    """One legal action per row from a policy's logits: the most likely legal one, or a draw from the
    softmax over the legal ones (the Gumbel-max trick: one vectorised draw for the whole batch).

    Args:
        logits: ``(k, n_actions)`` float logits.
        masks: ``(k, n_actions)`` bool (or 0/1) legal actions; every row needs one.
        rng: The generator of the draws (not used when ``deterministic``).
        deterministic: Take the most likely legal action (the first of equals).

    Returns:
        ``(k,)`` int64 actions.

    Raises:
        ValueError: a row has no legal action.
    """
    legal = np.asarray(masks).astype(bool, copy=False)
    if legal.shape[0] and not legal.any(axis=1).all():
        raise ValueError("a row of the masks has no legal action; pass the masks of games still running.")
    # mask first: a legal action keeps a finite score whatever its logit (NaN or -inf logits, from a diverged
    # policy, rank below every finite one but above every illegal action), so an illegal action is never taken
    finite = np.nan_to_num(np.asarray(logits, np.float64), nan=-1e300, neginf=-1e300, posinf=1e300)
    scores = np.where(legal, finite, -np.inf)
    if not deterministic:
        scores = scores + rng.gumbel(size=scores.shape)
    return np.argmax(scores, axis=1).astype(np.int64)
