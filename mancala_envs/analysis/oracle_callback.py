"""``OracleCallback``: a Stable-Baselines3 callback that measures the learner against perfect play while it trains.

Every ``every`` timesteps it plays the current policy in :func:`~mancala_envs.analysis.oracle.oracle_evaluate` and
logs ``oracle/optimal_move_rate``, ``oracle/mean_regret``, ``oracle/won_thrown_away`` (and the same over exact
decisions, ``oracle/exact_...``) to the model's logger (TensorBoard when the model logs there).

This module imports Stable-Baselines3 (the ``train`` extra); :mod:`mancala_envs.analysis.oracle` does not, so the
evaluation itself works without it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

try:
    from stable_baselines3.common.callbacks import BaseCallback
except ImportError as error:
    raise ImportError(
        "OracleCallback needs stable-baselines3 (pip install 'mancala-envs[train]').", name=error.name
    ) from None

from mancala_envs.algorithms.retrograde import Table, load_table
from mancala_envs.analysis.oracle import OracleReport, oracle_evaluate
from mancala_envs.common.validation import check_integer
from mancala_envs.envs.registration import make_game, resolve_env_id

__all__ = ["OracleCallback"]


class OracleCallback(BaseCallback):
    """Evaluates the learner against perfect play every ``every`` timesteps and logs the figures.

    The current policy plays as an agent (:class:`~mancala_envs.agents.sb3.PolicyOpponent`: masked
    logits, the most likely legal move with ``deterministic=True``) in :func:`oracle_evaluate`; the
    figures go to the model's logger (TensorBoard, CSV... as the model was set up) under
    ``oracle/optimal_move_rate``, ``oracle/mean_regret``, ``oracle/won_thrown_away``,
    ``oracle/drawn_thrown_away``, ``oracle/decisions``, and the same over exact decisions as
    ``oracle/exact_optimal_move_rate``, ``oracle/exact_mean_regret``, ``oracle/exact_won_thrown_away``
    (a rate with no positions to count is logged as NaN). The logger is dumped after each evaluation,
    as Stable-Baselines3's ``EvalCallback`` does. The last report is kept in :attr:`last_report`.

    Args:
        every: Timesteps between evaluations (also one at the end of training, unless one just ran).
        game: The game the model is trained on (its table must exist; see :func:`oracle_evaluate`).
        opponents: The evaluation opponents.
        games: Games per opponent per evaluation.
        seed: Seed of every evaluation (the same games each time, so the figures follow the policy).
        encoding: The encoding the policy was trained on (``None``: found from its observation space).
        deterministic: Play the policy's most likely legal action.
        table: A loaded table (default: loaded once from ``tables`` when training starts).
        tables: The folder of the tables (default :func:`~mancala_envs.algorithms.retrograde.table_dir`).
        **game_options: Options of the game.

    Raises:
        ValueError: ``every`` or ``games`` is not a positive integer.
    """

    def __init__(
        self,
        every: int = 10_000,
        game: str = "modiar",
        opponents: Sequence[Any] = ("random", "greedy"),
        games: int = 20,
        seed: int = 0,
        encoding: str | dict[str, Any] | None = None,
        deterministic: bool = True,
        table: Table | None = None,
        tables: str | os.PathLike[str] | None = None,
        **game_options: Any,
    ) -> None:
        super().__init__()
        for name, value in (("every", every), ("games", games)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer (got {value!r}).")
        self.every = every
        self.game = game
        self.opponents = list(opponents)
        self.games = games
        self.seed = check_integer("seed", seed, 0)
        self.encoding = encoding
        self.deterministic = deterministic
        self.table = table
        self.tables = tables
        self.game_options = dict(game_options)
        self.last_evaluation = -1
        self.last_report: OracleReport | None = None
        self.evaluations = 0

    def _init_callback(self) -> None:
        if self.table is None:
            self.table = load_table(make_game(resolve_env_id(self.game), **self.game_options), folder=self.tables)

    def _on_training_start(self) -> None:
        self.last_evaluation = self.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last_evaluation >= self.every:
            self.evaluate()
        return True

    def _on_training_end(self) -> None:
        if self.num_timesteps != self.last_evaluation:
            self.evaluate()

    def evaluate(self) -> OracleReport:
        """Evaluates the current policy now, logs the figures and dumps the logger; returns the report."""
        from mancala_envs.agents.sb3 import PolicyOpponent

        learner = PolicyOpponent(self.model.policy, observation=self.encoding, deterministic=self.deterministic,
                                 name="learner")  # fmt: skip
        report = oracle_evaluate(learner, self.game, self.opponents, self.games, self.seed, table=self.table,
                                 **self.game_options)  # fmt: skip
        for prefix, summary in (("oracle/", report.summary()), ("oracle/exact_", report.summary(exact_only=True))):
            self.logger.record(prefix + "optimal_move_rate", summary.optimal_rate)
            self.logger.record(prefix + "mean_regret", summary.mean_regret)
            self.logger.record(prefix + "won_thrown_away", summary.won_thrown_rate)
            if prefix == "oracle/":
                self.logger.record(prefix + "drawn_thrown_away", summary.drawn_thrown_rate)
                self.logger.record(prefix + "decisions", summary.decisions)
        self.logger.record("oracle/score", report.outcomes_record().rate("score"))
        self.logger.dump(self.num_timesteps)
        self.last_evaluation = self.num_timesteps
        self.last_report = report
        self.evaluations += 1
        return report
