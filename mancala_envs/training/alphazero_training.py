"""AlphaZero-style training: self-play with the batched PUCT search, a replay buffer, SGD on a policy-value MLP.

One **iteration** plays ``games_per_iteration`` games of self-play at once (the batched search of
:mod:`mancala_envs.algorithms.batched_mcts`: one forward pass of the network per simulation wave over every
game still running), with Dirichlet noise at the roots and moves drawn in proportion to the root visits for
the first ``temperature_plies`` plies of a game (the most visited move after that). Each position becomes a
sample: the encoded observation of the player to move, the legal mask, the root's visit distribution (the
policy target) and the game's result for that player (the value target: 1, 0 or -1). The samples go into
a replay buffer of the last ``replay_size``; then ``updates_per_iteration`` Adam steps on minibatches of it
minimise ``cross-entropy(policy, visits) + (value - result)^2`` (plus L2 ``weight_decay``).

Self-play plays the network in numpy (:class:`~mancala_envs.agents.alphazero.AlphaZeroNetwork`, the agent's
own forward pass), so the weights trained are the weights played. **Reproducible under a seed**: torch's
initialisation is seeded (``torch.manual_seed``), deterministic algorithms are on and torch runs
``torch_threads`` threads (1 by default) during the run, and every random draw (noise, moves, minibatches,
the rating games' seeds) comes from numpy generators seeded from the config's seed: the same config gives
the same weights bit for bit.

**TensorBoard** (``tensorboard=DIR``): ``loss/total``, ``loss/policy``, ``loss/value``,
``self_play/games_per_hour``, ``self_play/plies_per_game``, ``self_play/seconds``, and every ``rating_every``
iterations the network with search (``az:<rating_simulations>``) against the anchors ``rating_opponents``
(``rating_games`` games each, seats alternated, each pair of games opened by ``rating_opening_plies``
random plies): ``rating/score_vs_<anchor>``, and the pool's live Bradley-Terry ratings over every rating game
of the run (:class:`~mancala_envs.training.selfplay.PoolRatings`, openskill's ``BradleyTerryFull``, as PPO
self-play rates its pool): ``rating/<agent>`` (mu, from 25) and ``rating_sigma/<agent>``.

Example (a tiny run, seconds)::

    from mancala_envs.training.alphazero_training import AlphaZeroConfig, train_alphazero
    result = train_alphazero(AlphaZeroConfig(game="kalah", iterations=2, games_per_iteration=4, simulations=8))
    result.network  # an AlphaZeroNetwork; export_alphazero(result.network, "weights/") writes it
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from mancala_envs.agents.alphazero import (
    AlphaZeroNetwork,
    alphazero_destination,
    encoded_width,
    export_alphazero,
)
from mancala_envs.algorithms.batched_mcts import (
    BatchedMCTS,
    check_c_puct,
    check_simulations,
    choose_actions,
    dirichlet_noise,
    legal_masks,
)
from mancala_envs.engine.state import PLAYER, RUNNING, STATUS, WINNER
from mancala_envs.games.game import Game

__all__ = [
    "AlphaZeroConfig",
    "AlphaZeroResult",
    "RatingGames",
    "ReplayBuffer",
    "play_rating_games",
    "policy_value_net",
    "self_play",
    "to_network",
    "train_alphazero",
]


@dataclasses.dataclass(frozen=True)
class AlphaZeroConfig:
    """The settings of :func:`train_alphazero` (checked when built).

    Attributes:
        game: The game's name or registered id (``"kalah"``, ``"kalah_v0"``).
        game_options: Options of the game's config (``{"pits_per_row": 3, "seeds_per_pit": 2}``).
        seed: Seeds everything (0 to 2**32 - 1).
        iterations: Self-play and update rounds.
        games_per_iteration: Games of self-play per iteration, searched together (the batch).
        simulations: Search simulations per self-play move.
        hidden: The trunk's layer widths.
        encoding: The observation encoding (``"one_hot"``, ``"flat"``, ...).
        learning_rate: Adam's step size.
        weight_decay: L2 on the weights (Adam's ``weight_decay``).
        batch_size: Samples per update.
        updates_per_iteration: Adam steps per iteration.
        replay_size: Samples kept (the latest).
        temperature_plies: Plies of each game whose move is drawn in proportion to the visits.
        dirichlet_alpha: The root noise's concentration.
        noise_fraction: The noise's share of the root priors.
        c_puct: PUCT's exploration constant.
        rating_every: Iterations between rating rounds (0: none); the last iteration is always rated if > 0.
        rating_games: Games per anchor in a rating round (seats alternated).
        rating_opponents: The anchors (agent names), the first one pinned to 0.
        rating_simulations: The searched agent's simulations in the rating games.
        rating_opening_plies: Random plies opening each pair of rating games (see :func:`play_rating_games`).
        tensorboard: A folder to log to (created; its parent must exist), or ``None``.
        torch_threads: torch's CPU threads during the run.
        max_seconds: A time budget: the run stops after the iteration that reaches it (rated then if
            ``rating_every`` > 0), or ``None`` for all ``iterations``.
    """

    game: str = "kalah"
    game_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    seed: int = 0
    iterations: int = 20
    games_per_iteration: int = 64
    simulations: int = 64
    hidden: tuple[int, ...] = (128, 128)
    encoding: str = "one_hot"
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    batch_size: int = 256
    updates_per_iteration: int = 100
    replay_size: int = 50_000
    temperature_plies: int = 12
    dirichlet_alpha: float = 0.5
    noise_fraction: float = 0.25
    c_puct: float = 1.5
    rating_every: int = 5
    rating_games: int = 20
    rating_opponents: tuple[str, ...] = ("random", "greedy", "alphabeta:2")
    rating_simulations: int = 32
    rating_opening_plies: int = 2
    tensorboard: str | None = None
    torch_threads: int = 1
    max_seconds: float | None = None

    def __post_init__(self) -> None:
        counts = {
            "iterations": (self.iterations, 1),
            "games_per_iteration": (self.games_per_iteration, 1),
            "batch_size": (self.batch_size, 1),
            "updates_per_iteration": (self.updates_per_iteration, 0),
            "replay_size": (self.replay_size, 1),
            "temperature_plies": (self.temperature_plies, 0),
            "rating_every": (self.rating_every, 0),
            "rating_games": (self.rating_games, 1),
            "rating_opening_plies": (self.rating_opening_plies, 0),
            "torch_threads": (self.torch_threads, 1),
            "seed": (self.seed, 0),
        }
        for name, (value, low) in counts.items():
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{name} must be an integer >= {low} (got {value!r}).")
        if self.seed >= 2**32:
            raise ValueError(f"seed must be below 2**32 (got {self.seed}).")
        check_simulations(self.simulations, low=1)
        check_simulations(self.rating_simulations)
        check_c_puct(self.c_puct)
        if not self.hidden or not all(
            isinstance(width, int) and not isinstance(width, bool) and 1 <= width <= 2048 for width in self.hidden
        ):
            raise ValueError(
                f"hidden must be one or more layer widths from 1 to 2048, as (128, 128) (got {self.hidden!r})."
            )
        for name, number, floor, ceiling in (
            ("learning_rate", self.learning_rate, 0.0, math.inf),
            ("weight_decay", self.weight_decay, -1e-300, math.inf),
            ("dirichlet_alpha", self.dirichlet_alpha, 0.0, math.inf),
            ("noise_fraction", self.noise_fraction, -1e-300, 1.0 + 1e-12),
        ):
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not floor < number < ceiling:
                raise ValueError(f"{name} must be a finite number in its range (got {number!r}).")
        if self.max_seconds is not None and (
            isinstance(self.max_seconds, bool)
            or not isinstance(self.max_seconds, (int, float))
            or not self.max_seconds > 0
        ):
            raise ValueError(f"max_seconds must be a positive number of seconds or None (got {self.max_seconds!r}).")
        if not isinstance(self.rating_opponents, tuple) or not all(isinstance(n, str) for n in self.rating_opponents):
            raise ValueError(f"rating_opponents must be a tuple of agent names (got {self.rating_opponents!r}).")

    def make_game(self) -> Game:
        """The game of this config (with its options)."""
        from mancala_envs.envs.registration import make_game, resolve_env_id

        return make_game(resolve_env_id(self.game), **self.game_options)

    def command(self) -> str:
        """The ``mancala-envs train --alphazero`` command of this config (for the weights' metadata)."""
        parts = [
            f"mancala-envs train --alphazero --game {self.game} --seed {self.seed} --iterations {self.iterations}",
            f"--games-per-iteration {self.games_per_iteration} --simulations {self.simulations}",
            f"--updates-per-iteration {self.updates_per_iteration} --batch-size {self.batch_size}",
            f"--learning-rate {self.learning_rate} --net-arch {' '.join(map(str, self.hidden))}",
        ]
        if self.max_seconds is not None:
            parts.append(f"--max-minutes {self.max_seconds / 60:g}")
        return " ".join(parts)


# --- the torch network -----------------------------------------------------------------------------------------------
def _torch() -> Any:
    try:
        import torch
    except ImportError as error:
        raise ImportError(
            f"AlphaZero training needs torch ({error.name} is missing): pip install 'mancala-envs[train]'"
        ) from None
    return torch


def policy_value_net(inputs: int, hidden: Sequence[int], n_actions: int) -> Any:
    """The torch policy-value MLP: ``trunk`` (Linear + ReLU per width of ``hidden``), then the ``policy`` head
    (``n_actions`` logits) and the ``value`` head (one number, squashed by ``tanh``)."""
    torch = _torch()
    nn = torch.nn

    class _Net(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            layers: list[Any] = []
            width = inputs
            for size in hidden:
                layers += [nn.Linear(width, size), nn.ReLU()]
                width = size
            self.trunk = nn.Sequential(*layers)
            self.policy = nn.Linear(width, n_actions)
            self.value = nn.Linear(width, 1)

        def forward(self, features: Any) -> tuple[Any, Any]:
            hidden_out = self.trunk(features)
            return self.policy(hidden_out), torch.tanh(self.value(hidden_out)).squeeze(-1)

    return _Net()


def to_network(model: Any, game: Game, encoding: str, metadata: dict[str, str] | None = None) -> AlphaZeroNetwork:
    """The numpy :class:`AlphaZeroNetwork` of a :func:`policy_value_net` (float32 copies of its weights)."""

    def pair(layer: Any) -> tuple[np.ndarray, np.ndarray]:
        return (
            layer.weight.detach().cpu().numpy().astype(np.float32),
            layer.bias.detach().cpu().numpy().astype(np.float32),
        )

    trunk = [pair(layer) for layer in model.trunk if type(layer).__name__ == "Linear"]
    return AlphaZeroNetwork(trunk, pair(model.policy), pair(model.value), "ReLU", game, encoding, metadata)


# --- self-play -------------------------------------------------------------------------------------------------------
def self_play(
    game: Game,
    network: AlphaZeroNetwork,
    config: AlphaZeroConfig,
    rng: np.random.Generator,
) -> tuple[dict[str, np.ndarray], int]:
    """Plays ``config.games_per_iteration`` games of self-play at once (first players alternated).

    Returns:
        The samples (``features`` float32, ``masks`` bool, ``policies`` float32 visit distributions, ``values``
        float32 results for the player to move) and the plies played.
    """
    search = BatchedMCTS(game, config.simulations, c_puct=config.c_puct)
    n, a = config.games_per_iteration, game.n_actions
    states = np.stack([game.new_state(i % 2) for i in range(n)])
    trace = np.empty(0, np.int64)
    records: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]] = [[] for _ in range(n)]
    plies = np.zeros(n, np.int64)
    while True:
        running = np.nonzero(states[:, STATUS] == RUNNING)[0]
        if len(running) == 0:
            break
        roots = states[running]
        masks = legal_masks(roots, a)
        noise = dirichlet_noise(rng, masks, config.dirichlet_alpha)
        result = search.run(roots, network.evaluate, noise, config.noise_fraction)
        warm = plies[running] < config.temperature_plies
        actions = choose_actions(result.visits, rng, 0.0)
        if warm.any():
            actions[warm] = choose_actions(result.visits[warm], rng, 1.0)
        policies = result.visits / result.visits.sum(axis=1, keepdims=True)
        for row, g in enumerate(running):
            player = int(states[g, PLAYER])
            observation, mask = game.observe_with_mask(states[g], player)
            records[g].append((observation, mask.astype(bool), policies[row].astype(np.float32), player))
            game.step(states[g], int(actions[row]), trace)
            plies[g] += 1
    observations, masks_out, policies_out, values = [], [], [], []
    for game_index in range(n):
        winner = int(states[game_index, WINNER])
        for observation, mask, policy, player in records[game_index]:
            observations.append(observation)
            masks_out.append(mask)
            policies_out.append(policy)
            values.append(0.0 if winner < 0 else (1.0 if winner == player else -1.0))
    samples = {
        "features": network.encode(np.stack(observations)),
        "masks": np.stack(masks_out),
        "policies": np.stack(policies_out),
        "values": np.asarray(values, np.float32),
    }
    return samples, int(plies.sum())


class ReplayBuffer:
    """The latest ``capacity`` samples (a ring of arrays), sampled uniformly with a numpy generator."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.arrays: dict[str, np.ndarray] = {}
        self.size = 0
        self._next = 0

    def add(self, samples: dict[str, np.ndarray]) -> None:
        """Adds the rows of ``samples`` (the oldest rows make room when full)."""
        count = len(samples["values"])
        if not self.arrays:
            self.arrays = {k: np.zeros((self.capacity, *v.shape[1:]), v.dtype) for k, v in samples.items()}
        for start in range(0, count, self.capacity):
            chunk = {k: v[start : start + self.capacity] for k, v in samples.items()}
            rows = (self._next + np.arange(len(chunk["values"]))) % self.capacity
            for key, values in chunk.items():
                self.arrays[key][rows] = values
            self._next = int((self._next + len(rows)) % self.capacity)
            self.size = min(self.capacity, self.size + len(rows))

    def sample(self, rng: np.random.Generator, batch_size: int) -> dict[str, np.ndarray]:
        """``batch_size`` rows drawn uniformly with replacement."""
        rows = rng.integers(0, self.size, size=batch_size)
        return {key: values[rows] for key, values in self.arrays.items()}


class RatingGames(NamedTuple):
    """The network's results in :func:`play_rating_games`."""

    points: float
    wins: int
    draws: int
    losses: int
    scores: tuple[float, ...]


# --- rating games -----------------------------------------------------------------------------------------------------
def play_rating_games(
    game: Game,
    network: AlphaZeroNetwork,
    simulations: int,
    opponent: str,
    games: int,
    seed: int,
    c_puct: float = 1.5,
    opening_plies: int = 0,
) -> RatingGames:
    """The network with search (``simulations``; 0 = the raw network) against the agent ``opponent``, over
    ``games`` games played at once (the searched side's moves in one batched search per round), seats alternated.

    With ``opening_plies`` > 0, each pair of games (``2k``, ``2k + 1``) starts with the same ``opening_plies``
    uniformly random plies, then the network plays one seat in one game and the other seat in the other: from
    the fixed start, two deterministic agents play the same few games over and over, so a score over many games
    measures little; random openings make the games differ.

    Returns:
        The network's points (wins + draws / 2), wins, draws, losses and its score in each game (1, 0.5, 0).
    """
    from mancala_envs.agents import make_agent

    rng = np.random.default_rng(seed)
    agent = make_agent(opponent, seed=int(rng.integers(2**31)))
    search = BatchedMCTS(game, simulations, c_puct=c_puct) if simulations else None
    states = np.stack([game.new_state(0) for _ in range(games)])
    az_player = np.arange(games) % 2  # the network has the first seat in the even games
    trace = np.empty(0, np.int64)
    for pair in range(0, games, 2):
        for _ in range(opening_plies):
            if states[pair, STATUS] != RUNNING:
                break
            action = int(rng.choice(game.legal_actions(states[pair])))
            for index in range(pair, min(pair + 2, games)):
                game.step(states[index], action, trace)
    while True:
        running = states[:, STATUS] == RUNNING
        if not running.any():
            break
        ours = np.nonzero(running & (states[:, PLAYER] == az_player))[0]
        theirs = np.nonzero(running & (states[:, PLAYER] != az_player))[0]
        if len(ours):
            roots = states[ours]
            if search is None:
                observations = np.stack([game.observe_with_mask(s, int(s[PLAYER]))[0] for s in roots])
                priors, _ = network.evaluate(observations, legal_masks(roots, game.n_actions))
                actions = np.argmax(priors, axis=1)
            else:
                actions = choose_actions(search.run(roots, network.evaluate).visits, rng)
            for g, action in zip(ours, actions, strict=True):
                game.step(states[g], int(action), trace)
        for g in theirs:
            game.step(states[g], int(agent.act_on_engine_state(game, states[g])), trace)
    winners = states[:, WINNER]
    scores = np.where(winners == az_player, 1.0, np.where(winners < 0, 0.5, 0.0))
    wins, draws = int((scores == 1.0).sum()), int((scores == 0.5).sum())
    return RatingGames(float(scores.sum()), wins, draws, games - wins - draws, tuple(float(x) for x in scores))


# --- the loop ---------------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class AlphaZeroResult:
    """What :func:`train_alphazero` returns.

    Attributes:
        network: The trained network (numpy).
        history: One dict of figures per iteration (losses, self-play speed, ratings when rated).
        seconds: Wall time of the run.
        games: Self-play games played.
        exported: The weights file written, or ``None``.
    """

    network: AlphaZeroNetwork
    history: list[dict[str, float]]
    seconds: float
    games: int
    exported: Path | None = None


def train_alphazero(
    config: AlphaZeroConfig,
    export: str | Path | None = None,
    progress: Callable[[dict[str, float]], None] | None = None,
) -> AlphaZeroResult:
    """Trains a policy-value network by AlphaZero-style self-play (see the module docstring).

    Args:
        config: The settings.
        export: Where to write the weights at the end (a folder, which gets ``<game>_az.safetensors``, or a
            ``.safetensors`` file; checked before training), or ``None``.
        progress: Called with each iteration's figures.

    Returns:
        The network, the per-iteration figures, the time and the games played.

    Raises:
        ImportError: torch is missing (the train extra).
        ValueError: an export path refused before anything is trained.
    """
    if not isinstance(config, AlphaZeroConfig):
        raise TypeError(f"config must be an AlphaZeroConfig (got {type(config).__name__}).")
    torch = _torch()
    game = config.make_game()
    if export is not None:
        alphazero_destination(export, game)  # refused before training, not after
    writer = None
    if config.tensorboard is not None:
        from mancala_envs.common.files import check_destination

        check_destination(config.tensorboard, "the TensorBoard log (tensorboard=)", folder=True)
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(config.tensorboard)
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(config.torch_threads)
    torch.use_deterministic_algorithms(True)
    try:
        return _train(config, game, export, writer, progress, torch)
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)
        if writer is not None:
            writer.close()


def _train(
    config: AlphaZeroConfig,
    game: Game,
    export: str | Path | None,
    writer: Any,
    progress: Callable[[dict[str, float]], None] | None,
    torch: Any,
) -> AlphaZeroResult:
    start = time.perf_counter()
    seeds = np.random.SeedSequence(config.seed).spawn(3)
    play_rng, update_rng = np.random.default_rng(seeds[0]), np.random.default_rng(seeds[1])
    rating_seed = int(seeds[2].generate_state(1)[0])
    pool: Any = None  # the live ratings of the rating rounds (made at the first)
    torch.manual_seed(config.seed)
    inputs = encoded_width(config.encoding, game)
    model = policy_value_net(inputs, config.hidden, game.n_actions)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    buffer = ReplayBuffer(config.replay_size)
    history: list[dict[str, float]] = []
    games = 0
    for iteration in range(1, config.iterations + 1):
        network = to_network(model, game, config.encoding)
        began = time.perf_counter()
        samples, plies = self_play(game, network, config, play_rng)
        play_seconds = time.perf_counter() - began
        games += config.games_per_iteration
        buffer.add(samples)
        losses = _update(model, optimizer, buffer, config, update_rng, torch)
        figures = {
            "iteration": float(iteration),
            "loss/total": losses[0],
            "loss/policy": losses[1],
            "loss/value": losses[2],
            "self_play/seconds": play_seconds,
            "self_play/games_per_hour": 3600 * config.games_per_iteration / max(play_seconds, 1e-9),
            "self_play/plies_per_game": plies / config.games_per_iteration,
            "replay/size": float(buffer.size),
        }
        last = iteration == config.iterations or (
            config.max_seconds is not None and time.perf_counter() - start >= config.max_seconds
        )
        rated = config.rating_every > 0 and (iteration % config.rating_every == 0 or last)
        if rated:
            if pool is None:
                from mancala_envs.training.selfplay import PoolRatings

                pool = PoolRatings(learner=f"az:{config.rating_simulations}")
            network = to_network(model, game, config.encoding)
            figures.update(_rate(game, network, config, rating_seed + iteration, pool))
        figures["seconds"] = time.perf_counter() - start
        history.append(figures)
        if writer is not None:
            for key, value in figures.items():
                if key != "iteration":
                    writer.add_scalar(key, value, iteration)
            writer.flush()
        if progress is not None:
            progress(figures)
        if last:
            break
    seconds = time.perf_counter() - start
    metadata = {
        "command": config.command(),
        "seed": str(config.seed),
        "iterations": str(len(history)),
        "self_play_games": str(games),
        "seconds": f"{seconds:.0f}",
        "game_options": json.dumps(config.game_options, sort_keys=True),
    }
    network = to_network(model, game, config.encoding, metadata)
    exported = export_alphazero(network, export, metadata) if export is not None else None
    return AlphaZeroResult(network=network, history=history, seconds=seconds, games=games, exported=exported)


def _update(
    model: Any, optimizer: Any, buffer: ReplayBuffer, config: AlphaZeroConfig, rng: np.random.Generator, torch: Any
) -> tuple[float, float, float]:
    """``updates_per_iteration`` Adam steps; the mean losses (total, policy, value)."""
    totals = np.zeros(3)
    for _ in range(config.updates_per_iteration):
        batch = buffer.sample(rng, config.batch_size)
        features = torch.from_numpy(batch["features"])
        masks = torch.from_numpy(batch["masks"])
        targets = torch.from_numpy(batch["policies"])
        results = torch.from_numpy(batch["values"])
        logits, values = model(features)
        logits = logits.masked_fill(~masks, -1e9)
        policy_loss = -(targets * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        value_loss = ((values - results) ** 2).mean()
        loss = policy_loss + value_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        totals += (loss.item(), policy_loss.item(), value_loss.item())
    means = totals / max(config.updates_per_iteration, 1)
    return float(means[0]), float(means[1]), float(means[2])


def _rate(game: Game, network: AlphaZeroNetwork, config: AlphaZeroConfig, seed: int, pool: Any) -> dict[str, float]:
    """The rating round: the network with search against each anchor, every game recorded in the pool's live
    Bradley-Terry ratings (``pool``, a :class:`~mancala_envs.training.selfplay.PoolRatings`)."""
    figures: dict[str, float] = {}
    for index, opponent in enumerate(config.rating_opponents, start=1):
        result = play_rating_games(
            game,
            network,
            config.rating_simulations,
            opponent,
            config.rating_games,
            seed + index,
            config.c_puct,
            config.rating_opening_plies,
        )
        for score in result.scores:
            pool.record(opponent, score)
        figures[f"rating/score_vs_{opponent}"] = result.points / config.rating_games
    for name, (mu, sigma) in pool.table().items():
        figures[f"rating/{name}"] = mu
        figures[f"rating_sigma/{name}"] = sigma
    return figures
