"""``LadderCallback``: a Stable-Baselines3 callback that places the learner on the game's strength ladder while it
trains.

Every ``every`` timesteps it plays the current policy against each anchor of the ladder
(:func:`~mancala_envs.analysis.ladder.place_agent`, a few games each) and logs ``ladder/rating``, ``ladder/low`` and
``ladder/high`` (Elo, ``random`` = 0, the 95% interval) to the model's logger (TensorBoard when the model logs there).

This module imports Stable-Baselines3 (the ``train`` extra); :mod:`mancala_envs.analysis.ladder` does not.
"""

from __future__ import annotations

import os
from typing import Any

try:
    from stable_baselines3.common.callbacks import BaseCallback
except ImportError as error:
    raise ImportError(
        "LadderCallback needs stable-baselines3 (pip install 'mancala-envs[train]').", name=error.name
    ) from None

from mancala_envs.analysis.ladder import Ladder, Placement, check_same_game, load_shipped_ladder, place_agent
from mancala_envs.common.validation import check_integer
from mancala_envs.envs.registration import make_game, resolve_env_id

__all__ = ["LadderCallback"]


class LadderCallback(BaseCallback):
    """Places the learner on the ladder every ``every`` timesteps and logs its rating.

    The current policy plays as an agent (:class:`~mancala_envs.agents.sb3.PolicyOpponent`: masked logits, the most
    likely legal move with ``deterministic=True``) in :func:`~mancala_envs.analysis.ladder.place_agent`, in this
    process, without the regret; ``ladder/rating``, ``ladder/low``, ``ladder/high`` go to the model's logger, which
    is dumped after each placement (as Stable-Baselines3's ``EvalCallback`` does). The last placement is kept in
    :attr:`last_placement`.

    Args:
        every: Timesteps between placements (also one at the end of training, unless one just ran).
        game: The game the model is trained on.
        games_per_anchor: Games against each anchor per placement (few: the interval says how few).
        seed: Seed of every placement (the same games each time, so the rating follows the policy).
        encoding: The encoding the policy was trained on (``None``: found from its observation space).
        deterministic: Play the policy's most likely legal action.
        ladder: The ladder, or the path of a ladder file (default: the game's shipped ladder, loaded here).
        **game_options: Options of the game (the ladder must rate the same config).

    Raises:
        ValueError: ``every`` or ``games_per_anchor`` is not a positive integer, a negative seed.
        LadderError: no shipped ladder for the game, or a ladder of another game or config.
    """

    def __init__(
        self,
        every: int = 10_000,
        game: str = "modiar",
        games_per_anchor: int = 4,
        seed: int = 0,
        encoding: str | dict[str, Any] | None = None,
        deterministic: bool = True,
        ladder: Ladder | str | os.PathLike[str] | None = None,
        **game_options: Any,
    ) -> None:
        super().__init__()
        self.every = check_integer("every", every, 1)
        self.games_per_anchor = check_integer("games_per_anchor", games_per_anchor, 1)
        self.seed = check_integer("seed", seed, 0)
        self.game = game
        self.encoding = encoding
        self.deterministic = deterministic
        env_id = resolve_env_id(game)
        if ladder is None:
            ladder = load_shipped_ladder(env_id, **game_options)
        elif not isinstance(ladder, Ladder):
            path = ladder
            ladder = Ladder.load(path)
            check_same_game(ladder, env_id, make_game(env_id, **game_options), f"the ladder file {os.fspath(path)!r}")
        self.ladder = ladder
        self.game_options = dict(game_options)
        self.last_evaluation = -1
        self.last_placement: Placement | None = None
        self.placements = 0

    def _on_training_start(self) -> None:
        self.last_evaluation = self.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last_evaluation >= self.every:
            self.place()
        return True

    def _on_training_end(self) -> None:
        if self.num_timesteps != self.last_evaluation:
            self.place()

    def place(self) -> Placement:
        """Places the current policy now, logs its rating and dumps the logger; returns the placement."""
        from mancala_envs.agents.sb3 import PolicyOpponent

        learner = PolicyOpponent(self.model.policy, observation=self.encoding, deterministic=self.deterministic,
                                 name="learner")  # fmt: skip
        placement = place_agent(learner, self.game, games_per_anchor=self.games_per_anchor, seed=self.seed,
                                workers=1, ladder=self.ladder, regret=False, **self.game_options)  # fmt: skip
        low, high = placement.interval
        self.logger.record("ladder/rating", placement.elo)
        self.logger.record("ladder/low", low)
        self.logger.record("ladder/high", high)
        self.logger.dump(self.num_timesteps)
        self.last_evaluation = self.num_timesteps
        self.last_placement = placement
        self.placements += 1
        return placement
