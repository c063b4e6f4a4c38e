"""A Hydra app: one config group per game, the environment built by ``make_from_config``.

``conf/config.yaml`` holds the environment config (opponent, seat, wrappers), the run and an
optional training budget; ``conf/game/<game>.yaml`` adds the id and options of one game. Hydra
passes ``cfg.env`` (an OmegaConf ``DictConfig``) straight to ``mancala_envs.make_from_config``,
which builds the single-agent Gymnasium view. The app plays ``run.episodes`` games in it with a
baseline agent in the learner's seat and prints a table of results by seat::

    python examples/hydra/train.py
    python examples/hydra/train.py game=omweso env.opponent=greedy
    python examples/hydra/train.py game=urim run.agent=alphabeta:2 run.episodes=50 'env.wrappers=[one_hot]'
    python examples/hydra/train.py --multirun game=ouril,kalah env.opponent=random,greedy

With ``train.steps > 0`` it first trains sb3-contrib's MaskablePPO for that many steps on the
same environment config and plays the trained policy instead (needs the ``train`` extra)::

    python examples/hydra/train.py game=kalah train.steps=20000

Hydra writes the composed config and a log under ``outputs/<date>/<time>/`` (``hydra.run.dir=...``
moves it). Needs the ``hydra`` extra: ``pip install 'mancala-envs[hydra]'``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium
import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from mancala_envs import list_envs, make_from_config
from mancala_envs.agents import make_agent
from mancala_envs.common.stats import Tally

#: A learner: chooses an action from the observation, the info (with its ``action_mask``) and the env.
Learner = Callable[[Any, dict[str, Any], gymnasium.Env], int]


@dataclass(frozen=True)
class SeatRow(Tally):
    """The learner's results from one seat (``player_0``, ``player_1`` or ``both``)."""

    seat: str
    wins: int
    draws: int
    losses: int


def build_env(env_config: DictConfig) -> gymnasium.Env:
    """The single-agent environment ``env_config`` describes.

    Raises:
        ValueError: the id is a PettingZoo one (the app plays the single-agent view).
    """
    if env_config.get("id") in list_envs():
        raise ValueError(
            f"env.id {env_config.id!r} gives the two-player AEC env; this app plays the single-agent view, "
            "so use a Gymnasium id such as mancala/Ouril-v0 (mancala_envs.list_gymnasium_envs() lists them)."
        )
    return make_from_config(env_config)  # the DictConfig as Hydra gives it


def baseline_learner(name: str, seed: int) -> Learner:
    """A baseline agent (``random``, ``greedy``, ``alphabeta:D``, ``mcts:N``) as a learner."""
    agent = make_agent(name, seed=seed)
    return lambda observation, info, env: agent.act(env.unwrapped.aec_env)


def trained_learner(env_config: DictConfig, train_config: DictConfig, seed: int) -> Learner:
    """Trains MaskablePPO for ``train_config.steps`` steps; returns its most likely legal action as a learner.

    Raises:
        ImportError: sb3-contrib is not installed (the ``train`` extra).
    """
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as error:
        raise ImportError("train.steps > 0 needs the train extra: pip install 'mancala-envs[train]'.") from error
    from mancala_envs.training.trainer import set_torch_threads

    set_torch_threads(1)  # a small MLP on a CPU: one thread is fastest
    model = MaskablePPO(
        "MlpPolicy",
        build_env(env_config),
        learning_rate=train_config.learning_rate,
        n_steps=train_config.n_steps,
        batch_size=train_config.batch_size,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(train_config.steps)
    seconds = time.perf_counter() - start
    print(
        f"trained MaskablePPO for {model.num_timesteps} steps in {seconds:.1f} s "
        f"(SPS: {model.num_timesteps / seconds:.0f})"
    )

    def act(observation: Any, info: dict[str, Any], env: gymnasium.Env) -> int:
        action, _ = model.predict(observation, action_masks=info["action_mask"], deterministic=True)
        return int(action)

    return act


def play_episodes(env: gymnasium.Env, learner: Learner, episodes: int, seed: int) -> tuple[list[SeatRow], int]:
    """Plays ``episodes`` games (game ``i`` reset with ``seed + i``); returns the rows by seat and the steps."""
    tally = {"player_0": [0, 0, 0], "player_1": [0, 0, 0]}
    steps = 0
    for episode in range(episodes):
        observation, info = env.reset(seed=seed + episode)
        seat = f"player_{info['learner_seat']}"
        while True:
            observation, reward, terminated, truncated, info = env.step(learner(observation, info, env))
            steps += 1
            if terminated or truncated:
                break
        tally[seat][0 if reward > 0 else (2 if reward < 0 else 1)] += 1
    rows = [SeatRow(seat, *counts) for seat, counts in tally.items()]
    rows.append(SeatRow("both", *(sum(column) for column in zip(*tally.values(), strict=True))))  # 3 counts each
    return rows, steps


def format_rows(rows: list[SeatRow]) -> str:
    """A plain-text table of the learner's results, with the 95% Wilson interval of its win rate."""
    header = f"{'seat':<9} {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6}   win rate [95% CI]"
    lines = [header, "-" * len(header)]
    for row in rows:
        low, high = row.interval("wins")
        rate = f"{100 * row.rate('wins'):5.1f}% [{100 * low:5.1f}, {100 * high:5.1f}]" if row.games else "    -"
        lines.append(f"{row.seat:<9} {row.games:>5} {row.wins:>5} {row.draws:>5} {row.losses:>6}   {rate}")
    return "\n".join(lines)


def run(cfg: DictConfig, game: str | None = None) -> dict[str, Any]:
    """Builds the environment of ``cfg.env``, picks the learner, plays the episodes and prints the table.

    Returns:
        The env id, the learner's name, the rows by seat, the learner steps and steps per second.
    """
    env = build_env(cfg.env)
    options = OmegaConf.to_container(cfg.env, resolve=True)
    env_id, opponent, wrappers = options.pop("id"), options.pop("opponent", "random"), options.pop("wrappers", [])
    print(f"game {game or env_id}: {env_id} {options}")
    print(f"opponent {opponent!r}, wrappers {wrappers!r}, observation {env.observation_space}")
    if cfg.train.steps > 0:
        learner, name = trained_learner(cfg.env, cfg.train, cfg.run.seed), "MaskablePPO"
    else:
        learner, name = baseline_learner(cfg.run.agent, cfg.run.seed), cfg.run.agent
    start = time.perf_counter()
    rows, steps = play_episodes(env, learner, cfg.run.episodes, cfg.run.seed)
    seconds = time.perf_counter() - start
    print(
        f"learner {name}: {cfg.run.episodes} episodes, {steps} learner steps in {seconds:.2f} s "
        f"(SPS: {steps / seconds:.0f})"
    )
    print(format_rows(rows))
    env.close()
    return {"env_id": env_id, "learner": name, "rows": rows, "steps": steps, "steps_per_second": steps / seconds}


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg: DictConfig) -> None:
    run(cfg, game=HydraConfig.get().runtime.choices.get("game"))


if __name__ == "__main__":
    main()
