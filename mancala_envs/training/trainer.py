"""Training and evaluation with sb3-contrib's MaskablePPO: the recipe behind ``mancala-envs train``.

Needs the ``train`` extra (``pip install 'mancala-envs[train]'``: stable-baselines3,
sb3-contrib, torch, tqdm, rich). The pieces are importable on their own:

- :func:`make_training_env`: ``n_envs`` games, encoded for an MLP, in an SB3 VecEnv: against compiled opponents
  (``random``, ``greedy``, ``alphabeta:D``, ``mcts:N``, or a list of them) the batched
  :class:`~mancala_envs.views.sb3_vec_env.MancalaSB3VecEnv` (one compiled call a step), else single-agent views;
- :func:`train`: MaskablePPO against the chosen opponent(s), timing the environment; the model is saved
  with :func:`~mancala_envs.agents.sb3.save_model`, so ``"sb3:PATH"`` / ``"model:PATH"`` load it without
  unpickling (and without ``trust_remote_code``). It writes nothing else unless asked (no logger folder in
  the system's temporary folder), never replaces a model at a path you named unless ``overwrite``, and on
  Ctrl-C saves the model trained so far and raises :class:`TrainingInterrupted`;
- :func:`evaluate`: many games against each baseline, both seats, with confidence intervals;
- :class:`SelfPlayCallback`: refreshes a pool of frozen copies of the learner as opponents;
- :func:`format_table` and :func:`wilson_interval` for the report.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from mancala_envs.agents.sb3 import save_model, saved_model_path
from mancala_envs.algorithms.tree_search import parse_compiled_opponent
from mancala_envs.common.errors import is_ctrl_c
from mancala_envs.common.files import check_destination
from mancala_envs.common.stats import Tally, wilson_interval
from mancala_envs.common.validation import check_game_count, check_integer
from mancala_envs.envs.batch import MAX_THREADS
from mancala_envs.views.opponents import PolicyOpponent, make_opponent
from mancala_envs.views.single_agent_env import SingleAgentEnv

if TYPE_CHECKING:
    from mancala_envs.training.selfplay import SelfPlayVecEnv

__all__ = [
    "MAX_LAYERS",
    "MAX_LAYER_SIZE",
    "MAX_POOL_SIZE",
    "MAX_ROLLOUT_STEPS",
    "MAX_SEED",
    "EvalRow",
    "SelfPlayCallback",
    "SelfPlayPool",
    "StepTimer",
    "TrainConfig",
    "TrainResult",
    "TrainingInterrupted",
    "VecStepTimer",
    "batched_opponents",
    "env_seconds_of",
    "evaluate",
    "format_table",
    "make_self_play_env",
    "make_training_env",
    "pool_weights",
    "set_torch_threads",
    "train",
    "train_command",
    "warm_up",
    "wilson_interval",
]


#: The widest hidden layer :class:`TrainConfig` takes (``net_arch``, ``--net-arch``): an MLP for a mancala board
#: gains nothing from more, and a layer of 10**8 units would need gigabytes before the first step.
MAX_LAYER_SIZE = 2048
#: The most hidden layers :class:`TrainConfig` takes (``net_arch``).
MAX_LAYERS = 8
#: The largest rollout :class:`TrainConfig` takes: ``n_steps * n_envs`` learner steps held in memory between
#: updates (2,048 by default), with their observations, masks and values.
MAX_ROLLOUT_STEPS = 2**18
#: The most snapshots a self-play pool keeps (``pool_size``, ``--pool-size``): each is a copy of the policy's
#: weights, up to hundreds of megabytes at :data:`MAX_LAYERS` layers of :data:`MAX_LAYER_SIZE`.
MAX_POOL_SIZE = 64
#: The largest ``seed`` (``--seed``): Stable-Baselines3 seeds numpy's global generator with it, which takes 32 bits.
MAX_SEED = 2**32 - 1


@dataclass
class TrainConfig:
    """Everything ``mancala-envs train`` takes (each field is also a command-line option)."""

    game: str = "ouril_v0"
    """A registered game or variant id (``mancala-envs list`` shows them)."""
    opponent: str | list[str] = field(default_factory=lambda: ["random", "greedy"])
    """Training opponent: a baseline name, ``model:path.zip``, or a list (one drawn per episode)."""
    timesteps: int = 100_000
    """Learner decisions to train for (all envs together)."""
    n_envs: int = 128
    """Games stepped together (one compiled call a step against compiled opponents, else SB3's DummyVecEnv of
    single-agent views; :func:`make_training_env`)."""
    seed: int = 0
    """Seeds the envs, the opponents, the policy and the evaluation; at most :data:`MAX_SEED`."""
    encoding: str = "flat"
    """Observation encoding for the policy (``flat``, ``one_hot``, ``thermometer``)."""
    learning_rate: float = 3e-4
    n_steps: int = 16
    """Steps per game between updates (the rollout is ``n_steps * n_envs``: 2,048 by default)."""
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.99
    ent_coef: float = 0.01
    net_arch: tuple[int, ...] = (64, 64)
    """Hidden layer sizes of the policy and value MLPs: at most :data:`MAX_LAYERS` sizes from 1 to
    :data:`MAX_LAYER_SIZE`."""
    torch_threads: int = 1
    """Torch CPU threads (at most :data:`mancala_envs.envs.batch.MAX_THREADS`); one is fastest on a small MLP when other
    work shares the cores."""
    save_path: str | None = None
    """Where to save the model, ``.zip`` added unless the name ends with it
    (:func:`~mancala_envs.agents.sb3.saved_model_path`); its folder must exist, and a file there is replaced only
    with ``overwrite``. Default: ``models/<game>-maskable-ppo.zip`` (``-self-play.zip`` with ``self_play``), which
    each run rewrites (``models/`` is created in the working folder)."""
    overwrite: bool = False
    """Replace a file at ``save_path`` (without it, :func:`train` refuses before it trains)."""
    tensorboard_log: str | None = None
    """A folder for TensorBoard logs (off by default); created if missing, but its parent folder must exist."""
    progress_bar: bool = True
    eval_games: int = 200
    """Evaluation games per baseline opponent (half with each seat); at most
    :data:`~mancala_envs.common.validation.MAX_GAMES` games in all."""
    eval_opponents: tuple[str, ...] = ("random", "greedy")
    game_options: dict[str, Any] = field(default_factory=dict)
    """Options of the game (e.g. ``{"pits_per_row": 4}``)."""
    self_play: bool = False
    """Train against a pool of the learner itself and its snapshots on batched games (the settings below;
    :func:`make_self_play_env`); ``opponent`` then names the baselines kept in the pool."""
    baseline_rate: float = 0.2
    """Self-play: the share of episodes played against the baselines of ``opponent`` (split evenly)."""
    snapshot_every: int = 50_000
    """Self-play: timesteps between snapshots of the learner joining the pool."""
    pool_size: int = 8
    """Self-play: snapshots kept in the pool (the oldest leaves first), at most :data:`MAX_POOL_SIZE`."""
    export_pretrained: str | None = None
    """Also export the trained actor as shipped-agent weights (a ``.safetensors`` file, or a folder that gets the
    default name; see :func:`mancala_envs.agents.pretrained.export_pretrained`). Checked before training
    (:meth:`TrainConfig.check_paths`): a file's folder must exist, a folder's parent must."""
    trust_remote_code: bool = False
    """Load ``model:`` opponents (training and evaluation) in full with Stable-Baselines3, which unpickles
    objects stored in the file: a crafted file runs arbitrary code. Only for files you trust; models saved
    by :func:`train` load without it."""

    def __post_init__(self) -> None:
        for name in ("timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "torch_threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer (got {value!r}).")
        if isinstance(self.eval_games, bool) or not isinstance(self.eval_games, int) or self.eval_games < 0:
            raise ValueError(f"eval_games must be an integer >= 0 (got {self.eval_games!r}).")
        if not isinstance(self.eval_opponents, (tuple, list)):
            raise TypeError(
                f"eval_opponents must be a list of agent names such as ('random', 'greedy') "
                f"(got {self.eval_opponents!r})."
            )
        check_game_count(
            "the evaluation",
            len(self.eval_opponents),
            "opponent",
            self.eval_games,
            "Play fewer games per opponent (--eval-games) or fewer opponents (--eval-opponents).",
        )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0 (got {self.seed!r}).")
        if isinstance(self.snapshot_every, bool) or not isinstance(self.snapshot_every, int) or self.snapshot_every < 1:
            raise ValueError(f"snapshot_every must be a positive integer (got {self.snapshot_every!r}).")
        if isinstance(self.pool_size, bool) or not isinstance(self.pool_size, int) or self.pool_size < 1:
            raise ValueError(f"pool_size must be a positive integer (got {self.pool_size!r}).")
        if not isinstance(self.baseline_rate, (int, float)) or not 0.0 <= float(self.baseline_rate) <= 1.0:
            raise ValueError(f"baseline_rate must be a number from 0 to 1 (got {self.baseline_rate!r}).")
        if not isinstance(self.trust_remote_code, bool):
            raise TypeError(f"trust_remote_code must be True or False (got {self.trust_remote_code!r}).")
        if not isinstance(self.overwrite, bool):
            raise TypeError(f"overwrite must be True or False (got {self.overwrite!r}).")
        if self.save_path is not None and not isinstance(self.save_path, (str, os.PathLike)):
            raise TypeError(f"save_path must be a file path or None (got {type(self.save_path).__name__}).")
        self._check_sizes()

    def _check_sizes(self) -> None:
        """The limits that keep a run inside memory: :data:`MAX_LAYERS`, :data:`MAX_LAYER_SIZE`,
        :data:`MAX_ROLLOUT_STEPS` (the rollout and ``batch_size``), :data:`MAX_POOL_SIZE`, ``torch_threads`` up to
        :data:`mancala_envs.envs.batch.MAX_THREADS`; and ``seed`` up to :data:`MAX_SEED`. ``timesteps``, ``n_epochs``
        and ``snapshot_every`` cost time, not memory: Ctrl-C stops the run and keeps the model."""
        layers = self.net_arch
        if not isinstance(layers, (tuple, list)) or len(layers) > MAX_LAYERS:
            what = f"{len(layers)} sizes" if isinstance(layers, (tuple, list)) else repr(layers)
            raise ValueError(
                f"net_arch must be a list of at most {MAX_LAYERS} hidden layer sizes (MAX_LAYERS), e.g. (64, 64) "
                f"(got {what})."
            )
        for size in layers:
            if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_LAYER_SIZE:
                raise ValueError(
                    f"net_arch sizes must be integers from 1 to {MAX_LAYER_SIZE} (MAX_LAYER_SIZE), e.g. (64, 64) "
                    f"(got {size!r})."
                )
        if self.torch_threads > MAX_THREADS:
            raise ValueError(
                f"torch_threads must be at most {MAX_THREADS} (mancala_envs.envs.batch.MAX_THREADS; one is fastest for "
                f"this small MLP) (got {self.torch_threads})."
            )
        if self.batch_size > MAX_ROLLOUT_STEPS:
            raise ValueError(
                f"batch_size must be at most {MAX_ROLLOUT_STEPS} (MAX_ROLLOUT_STEPS; a minibatch is part of the "
                f"rollout, n_steps * n_envs) (got {self.batch_size})."
            )
        if self.pool_size > MAX_POOL_SIZE:
            raise ValueError(
                f"pool_size must be at most {MAX_POOL_SIZE} (MAX_POOL_SIZE; each snapshot is a copy of the policy) "
                f"(got {self.pool_size})."
            )
        if self.seed > MAX_SEED:
            raise ValueError(
                f"seed must be at most {MAX_SEED} (MAX_SEED; Stable-Baselines3 seeds numpy's global generator, which "
                f"takes 32 bits) (got {self.seed})."
            )
        if self.n_steps * self.n_envs > MAX_ROLLOUT_STEPS:
            raise ValueError(
                f"n_steps * n_envs (the rollout kept between updates) must be at most {MAX_ROLLOUT_STEPS} "
                f"(MAX_ROLLOUT_STEPS) (got {self.n_steps} * {self.n_envs} = {self.n_steps * self.n_envs}); use "
                "fewer steps or envs."
            )

    @property
    def opponents(self) -> list[str]:
        """``opponent`` as a list (one name gives a list of one)."""
        return list(self.opponent) if isinstance(self.opponent, list) else [self.opponent]

    @property
    def model_path(self) -> Path:
        """The path the model is saved to: ``save_path`` with ``.zip`` added unless its name ends with it
        (:func:`~mancala_envs.agents.sb3.saved_model_path`), or the default
        ``models/<game>-maskable-ppo.zip`` (``models/<game>-maskable-ppo-self-play.zip`` with ``self_play``)."""
        if self.save_path is not None:
            return saved_model_path(self.save_path)
        kind = "maskable-ppo-self-play" if self.self_play else "maskable-ppo"
        return Path("models") / f"{self.game.replace('/', '_')}-{kind}.zip"

    def check_model_path(self) -> bool:
        """Checks that :func:`train` may save to :attr:`model_path`, before anything is trained.

        A path you named (``save_path``) must be in a folder that exists (nothing creates it) and can be written,
        and a file there is replaced only with ``overwrite``. The default path is the command's own: each run
        rewrites it; its folder, ``models/``, is created if missing, in a working folder that can be written.

        Returns:
            Whether saving will replace a file that is there now.

        Raises:
            ValueError: the path is a folder, the folder of ``save_path`` does not exist or cannot be written, or
                ``models/`` (the default path's folder) is a file or cannot be made
                (:func:`~mancala_envs.common.files.check_destination`).
            FileExistsError: ``save_path`` names a file that exists, and ``overwrite`` is false.
        """
        path = self.model_path
        if path.is_dir():
            raise ValueError(
                f"cannot save the model to {str(path)!r}: it is a folder; pass the path of a file in it, "
                f"e.g. {str(path / 'model.zip')!r}."
            )
        if self.save_path is not None:
            folder = path.parent
            if not folder.is_dir():
                state = "is not a folder" if folder.exists() else "does not exist"
                raise ValueError(
                    f"cannot save the model to {str(path)!r}: the folder {str(folder)!r} {state}; create it first "
                    "or pass a save path (--save) in a folder that exists."
                )
            if path.exists() and not self.overwrite:
                raise FileExistsError(
                    f"{str(path)!r} already exists; pass overwrite=True (--overwrite) to replace it, or another "
                    "save path (--save)."
                )
            check_destination(path, "the model (--save)")  # a folder that cannot be written
        else:  # models/ is made when the model is saved: a file in its place would fail only after the training
            check_destination(path.parent, "the model (its default folder; --save PATH saves elsewhere)", folder=True)
        return path.exists()

    def check_paths(self) -> bool:
        """Checks every place :func:`train` writes, before anything is trained: the model
        (:meth:`check_model_path`), ``tensorboard_log`` (a folder: created if missing, its parent must exist) and
        ``export_pretrained`` (:func:`~mancala_envs.agents.pretrained.export_destination`). Nothing is created.

        Returns:
            Whether saving the model will replace a file that is there now.

        Raises:
            ValueError / FileExistsError: a refused path (the message names it and the fix).
        """
        replacing = self.check_model_path()
        if self.tensorboard_log is not None:
            check_destination(self.tensorboard_log, "the TensorBoard logs (--tensorboard)", folder=True)
        if self.export_pretrained is not None:
            from mancala_envs.agents.pretrained import export_destination
            from mancala_envs.envs.registration import make_game

            export_destination(self.export_pretrained, make_game(self.game, **self.game_options))
        return replacing


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C (``KeyboardInterrupt``) stopped :func:`train`; the model trained so far was saved.

    A ``KeyboardInterrupt``, so that code which does not look for it stops as on any Ctrl-C.

    Attributes:
        path: Where the model was saved, or ``None`` when training had not begun (nothing to save).
        timesteps: The learner steps played before the interrupt.
    """

    def __init__(self, path: Path | None, timesteps: int) -> None:
        super().__init__(path, timesteps)
        self.path = path
        self.timesteps = timesteps

    def __str__(self) -> str:
        if self.path is None:
            return "interrupted before training began: nothing was saved"
        return f"interrupted after {self.timesteps} steps: saved the model so far to {self.path}"


@dataclass
class TrainResult:
    """What :func:`train` measured."""

    model: Any
    timesteps: int
    seconds: float
    env_seconds: float
    """Time spent inside the environments and their wrappers (steps and resets)."""
    compile_seconds: float = 0.0
    """The warm-up before training (numba compiling the engine, on a cold cache), not in ``seconds``."""
    opponent_seconds: float = 0.0
    """Self-play: the part of ``env_seconds`` spent choosing the opponents' moves (their forward passes)."""
    curve: list[dict[str, Any]] = field(default_factory=list)
    """Self-play: after each rollout, the timesteps, seconds, ratings and recent scores (the learning curve)."""

    @property
    def steps_per_second(self) -> float:
        return self.timesteps / self.seconds if self.seconds > 0 else float("nan")

    @property
    def env_share(self) -> float:
        """The fraction of the training wall time spent in the environments and wrappers."""
        return self.env_seconds / self.seconds if self.seconds > 0 else float("nan")


def set_torch_threads(threads: int = 1) -> None:
    """Sets torch's intra-op CPU threads (one by default: a small MLP gains nothing from more,
    and on a 2-core machine two threads ran 1.4-6x slower whenever the other core was busy)."""
    import torch

    torch.set_num_threads(threads)


class StepTimer(gymnasium.Wrapper):
    """Adds up the wall time spent in ``step`` and ``reset`` of everything it wraps."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.seconds = 0.0

    def step(self, action: Any) -> Any:
        start = time.perf_counter()
        result = self.env.step(action)
        self.seconds += time.perf_counter() - start
        return result

    def reset(self, **kwargs: Any) -> Any:
        start = time.perf_counter()
        result = self.env.reset(**kwargs)
        self.seconds += time.perf_counter() - start
        return result

    def action_masks(self) -> np.ndarray:
        start = time.perf_counter()
        mask = self.env.get_wrapper_attr("action_masks")()
        self.seconds += time.perf_counter() - start
        return mask


def _single_env(
    game: str,
    opponent: Any,
    encoding: str,
    game_options: dict[str, Any],
    trust_remote_code: bool = False,
    **kwargs: Any,
) -> gymnasium.Env:
    from mancala_envs.wrappers import apply_wrappers

    if trust_remote_code:  # the env itself loads saved models only the safe way
        opponent = make_opponent(opponent, trust_remote_code=True)
    return apply_wrappers(SingleAgentEnv(game, opponent=opponent, **kwargs, **game_options), [encoding])


class VecStepTimer(VecEnvWrapper):
    """Adds up the wall time spent in ``reset``, ``step_async``, ``step_wait`` and ``env_method`` (the action
    masks) of the SB3 ``VecEnv`` it wraps, in ``seconds``: the environment's share of training, as
    :class:`StepTimer` counts it for one env (``step_async`` counts for a ``SubprocVecEnv``, which sends the
    actions there).

    Attributes:
        seconds: The time so far; set it to 0 to start again.
    """

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.seconds = 0.0

    def reset(self) -> Any:
        start = time.perf_counter()
        observation = self.venv.reset()
        self.seconds += time.perf_counter() - start
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        start = time.perf_counter()
        self.venv.step_async(actions)
        self.seconds += time.perf_counter() - start

    def step_wait(self) -> Any:
        start = time.perf_counter()
        result = self.venv.step_wait()
        self.seconds += time.perf_counter() - start
        return result

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list:
        start = time.perf_counter()
        result = self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
        self.seconds += time.perf_counter() - start
        return result


def env_seconds_of(vec_env: VecEnv) -> float:
    """The wall time spent inside the environments of a VecEnv from :func:`make_training_env` (or any VecEnv
    with a ``seconds`` attribute, or whose envs have one): the numerator of the environment's share."""
    seconds = getattr(vec_env, "seconds", None)
    if seconds is not None:
        return float(seconds)
    return float(sum(vec_env.get_attr("seconds")))


def batched_opponents(config: TrainConfig) -> list[str] | None:
    """The training opponents as a list of names when every one is a compiled agent (``"random"``,
    ``"greedy"``, ``"alphabeta:D"``, ``"mcts:N"``), so that :func:`make_training_env` steps all the games in one
    compiled call; ``None`` otherwise (saved models, objects, self-play)."""
    opponents = config.opponents
    if config.self_play or not opponents or any(parse_compiled_opponent(name) is None for name in opponents):
        return None
    return opponents


def _opponents_to_batch(config: TrainConfig, batched: bool | None) -> list[str] | None:
    """The opponents :func:`make_training_env` batches under ``batched`` (``None``: the single-agent envs).

    Raises:
        ValueError: ``batched=True`` with an opponent that is not a compiled agent.
    """
    opponents = batched_opponents(config)
    if batched and opponents is None:
        raise ValueError(
            f"batched=True needs compiled opponents ('random', 'greedy', 'alphabeta:D', 'mcts:N'); got "
            f"{config.opponent!r}. Leave batched=None to choose the single-agent envs for other opponents."
        )
    return None if batched is False else opponents


def make_training_env(config: TrainConfig, batched: bool | None = None) -> VecEnv:
    """The SB3 ``VecEnv`` of ``config.n_envs`` encoded games, timed (``seconds``) and monitored.

    Against compiled opponents (:func:`batched_opponents`; unless ``batched=False``) it is the batched
    :class:`~mancala_envs.views.sb3_vec_env.MancalaSB3VecEnv`: one compiled call plays every learner's action and the
    opponents' replies, each episode against an opponent drawn from the list (as the single-agent views draw
    theirs), game ``i`` seeded with ``seed + i``. Other opponents (``model:PATH``), and ``batched=False`` (envs
    whose opponents a callback changes one by one, as :class:`SelfPlayCallback` does), play in single-agent views
    in SB3's ``DummyVecEnv`` (env ``i`` seeded with ``seed + i``), each timed by a :class:`StepTimer`.

    Raises:
        ValueError: ``batched=True`` with an opponent that is not a compiled agent.
    """
    opponents = _opponents_to_batch(config, batched)
    if opponents is not None:
        from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

        # One thread: the env's call alternates with the learner's, and at this size handing half the games to
        # a second thread cost more than it saved (4.2-4.3% of training in the env with one, 5.7-6.0% with two).
        return VecStepTimer(
            MancalaSB3VecEnv(
                config.game,
                config.n_envs,
                opponent=opponents,
                seed=config.seed,
                encoding=config.encoding,
                threads=1,
                **config.game_options,
            )
        )
    from stable_baselines3.common.env_util import make_vec_env

    def build() -> gymnasium.Env:
        return StepTimer(
            _single_env(config.game, config.opponent, config.encoding, config.game_options, config.trust_remote_code)
        )

    return make_vec_env(build, n_envs=config.n_envs, seed=config.seed)


def train(config: TrainConfig, callbacks: Sequence[Any] = ()) -> TrainResult:
    """Trains MaskablePPO on ``config`` and saves it to ``config.model_path``.

    The zip is Stable-Baselines3's, with a JSON description of the policy added
    (:func:`~mancala_envs.agents.sb3.save_model`): ``"sb3:PATH"``, ``"model:PATH"`` and
    :func:`~mancala_envs.agents.sb3.load_policy` load it without unpickling anything. It is written atomically
    (a reader never sees half a file). Nothing else is written unless asked: TensorBoard logs only with
    ``tensorboard_log`` (Stable-Baselines3's default logger would leave an empty ``SB3-<time>`` folder in the
    system's temporary folder).

    Returns:
        The model, the timesteps, the wall time of ``learn`` and the part of it spent in the envs.

    Raises:
        ValueError / FileExistsError: the model, the TensorBoard logs or the exported weights could not be written
            where ``config`` says (:meth:`TrainConfig.check_paths`); raised before anything is trained.
        TrainingInterrupted: Ctrl-C (``KeyboardInterrupt``) during training: the model trained so far was saved
            to ``config.model_path`` first (the exception holds the path and the steps played).
    """
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import ProgressBarCallback
    from stable_baselines3.common.logger import Logger

    config.check_paths()
    set_torch_threads(config.torch_threads)
    # A SelfPlayCallback sends its pool to the envs one by one: it needs single-agent views.
    batched = False if any(isinstance(callback, SelfPlayCallback) for callback in callbacks) else None
    try:
        compile_seconds = warm_up(config, batched)
        pool: SelfPlayPool | None = None
        if config.self_play:
            vec_env = make_self_play_env(config)
            pool = SelfPlayPool(config)
            callbacks = [pool, *callbacks]
        else:
            vec_env = make_training_env(config, batched)
        model = MaskablePPO(
            "MlpPolicy",
            vec_env,
            learning_rate=config.learning_rate,
            n_steps=config.n_steps,
            batch_size=config.batch_size,
            n_epochs=config.n_epochs,
            gamma=config.gamma,
            ent_coef=config.ent_coef,
            policy_kwargs={"net_arch": list(config.net_arch)},
            tensorboard_log=config.tensorboard_log,
            seed=config.seed,
            device="cpu",
            verbose=0,
        )
    except (KeyboardInterrupt, SystemError) as error:  # Ctrl-C, also inside compiled code (is_ctrl_c)
        if not is_ctrl_c(error):
            raise
        raise TrainingInterrupted(None, 0) from None
    progress = ProgressBarCallback() if config.progress_bar else None
    if config.tensorboard_log is None:  # a logger that writes nowhere (SB3's default makes a folder in the temp folder)
        model.set_logger(Logger(folder=None, output_formats=[]))
    if pool is not None:
        vec_env.set_learner(model)
    start = time.perf_counter()
    try:
        model.learn(config.timesteps, callback=[*callbacks, *([progress] if progress else [])] or None)
    except (KeyboardInterrupt, SystemError) as error:  # Ctrl-C, also inside compiled code (is_ctrl_c)
        if not is_ctrl_c(error):
            raise
        if progress is not None and hasattr(progress, "pbar"):
            progress.pbar.close()
        raise TrainingInterrupted(_save(model, config), int(model.num_timesteps)) from None
    seconds = time.perf_counter() - start
    if pool is not None:
        env_seconds, opponent_seconds = vec_env.seconds, vec_env.opponent_seconds
    else:
        env_seconds, opponent_seconds = env_seconds_of(vec_env), 0.0
    path = _save(model, config)
    if config.export_pretrained is not None:
        from mancala_envs.agents.pretrained import export_pretrained
        from mancala_envs.envs.registration import make_game

        try:  # the model is saved: Ctrl-C here keeps it (the export writes atomically, so nothing half-written)
            export_pretrained(
                model,
                config.export_pretrained,
                game=make_game(config.game, **config.game_options),
                encoding=config.encoding,
                metadata={
                    "command": train_command(config),
                    "seed": str(config.seed),
                    "timesteps": str(int(model.num_timesteps)),
                    "seconds": f"{seconds:.0f}",
                },
            )
        except (KeyboardInterrupt, SystemError) as error:
            if not is_ctrl_c(error):
                raise
            raise TrainingInterrupted(path, int(model.num_timesteps)) from None
    return TrainResult(
        model=model,
        timesteps=int(model.num_timesteps),
        seconds=seconds,
        env_seconds=env_seconds,
        compile_seconds=compile_seconds,
        opponent_seconds=opponent_seconds,
        curve=[] if pool is None else pool.curve,
    )


def _save(model: Any, config: TrainConfig) -> Path:
    """Saves ``model`` to ``config.model_path`` atomically (a temporary file in the folder, renamed over the path);
    creates only the default folder, ``models/``."""
    path = config.model_path
    if config.save_path is None:
        path.parent.mkdir(exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.zip")  # created by model.save, as the umask says
    try:
        save_model(model, temporary, game=config.game, encoding=config.encoding, game_options=config.game_options)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def train_command(config: TrainConfig) -> str:
    """The ``mancala-envs train`` command line that reproduces ``config`` (its options that differ from the
    defaults), as the shipped agents' weights record it."""
    default = TrainConfig()
    flags = {
        "n_envs": "--n-envs",
        "torch_threads": "--torch-threads",
        "snapshot_every": "--snapshot-every",
        "pool_size": "--pool-size",
        "baseline_rate": "--baseline-rate",
        "timesteps": "--timesteps",
        "seed": "--seed",
        "encoding": "--encoding",
        "n_steps": "--n-steps",
        "batch_size": "--batch-size",
        "n_epochs": "--n-epochs",
        "learning_rate": "--learning-rate",
        "ent_coef": "--ent-coef",
        "gamma": "--gamma",
    }
    parts = ["mancala-envs train", f"--game {config.game}"]
    if config.self_play:
        parts.append("--self-play")
    opponents = config.opponents
    if opponents != default.opponent:
        parts.append("--opponent " + " ".join(opponents))
    for name, flag in flags.items():
        value = getattr(config, name)
        if value != getattr(default, name):
            parts.append(f"{flag} {value}")
    if tuple(config.net_arch) != tuple(default.net_arch):
        parts.append("--net-arch " + " ".join(str(n) for n in config.net_arch))
    return " ".join(parts)


def make_self_play_env(config: TrainConfig) -> SelfPlayVecEnv:
    """The batched self-play env of ``config``: ``config.n_envs`` games against a pool of the learner itself
    and the baselines of ``config.opponent`` (:class:`~mancala_envs.training.selfplay.SelfPlayVecEnv`)."""
    from mancala_envs.training.selfplay import SELF, SelfPlayVecEnv

    baselines = config.opponents
    members, weights = [SELF, *baselines], pool_weights(0, len(baselines), config.baseline_rate)
    return SelfPlayVecEnv(
        config.game,
        config.n_envs,
        opponents=members,
        weights=weights,
        encoding=config.encoding,
        seed=config.seed,
        **config.game_options,
    )


def pool_weights(snapshots: int, baselines: int, baseline_rate: float) -> list[float]:
    """Draw weights of a pool ordered ``self``, the snapshots, the baselines: the baselines share
    ``baseline_rate`` evenly; the rest goes half to the learner itself and half to its snapshots (all to
    itself while there are none)."""
    rest = 1.0 - baseline_rate if baselines else 1.0
    own = rest / 2 if snapshots else rest
    mine = [(rest - own) / snapshots] * snapshots if snapshots else []
    return [own, *mine] + ([baseline_rate / baselines] * baselines if baselines else [])


class SelfPlayPool(BaseCallback):
    """Runs the opponent pool of a batched self-play run (:func:`train` with ``self_play``).

    Every ``config.snapshot_every`` timesteps a frozen snapshot of the learner joins the pool (the oldest
    of ``config.pool_size`` leaves). After every rollout it rates the finished games with
    :class:`~mancala_envs.training.selfplay.PoolRatings` (openskill's Bradley-Terry) and logs to the SB3 logger (so
    to TensorBoard with ``tensorboard_log``): ``selfplay/rating/<player>`` (mu), ``selfplay/score/<opponent>``
    (the learner's mean score in its last 200 games against it), ``selfplay/env_share`` and
    ``selfplay/pool``. :attr:`curve` keeps the same figures per rollout.

    Args:
        config: The training config (its self-play settings and baselines).
    """

    def __init__(self, config: TrainConfig) -> None:
        super().__init__()
        from mancala_envs.training.selfplay import PoolRatings

        self.config = config
        self.baselines = config.opponents
        self.ratings = PoolRatings()
        self.snapshots: list[Any] = []
        self.last_snapshot = 0
        self.curve: list[dict[str, Any]] = []
        self._start = time.perf_counter()

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last_snapshot >= self.config.snapshot_every:
            self.add_snapshot()
        return True

    def add_snapshot(self) -> None:
        """A frozen copy of the learner joins the pool (rated from the learner's rating)."""
        from mancala_envs.training.selfplay import SELF

        env = self.training_env
        name = f"self@{self.num_timesteps}"
        self.snapshots = [*self.snapshots, env.snapshot(name)][-self.config.pool_size :]
        self.ratings.add_player(name, like=self.ratings.learner)
        env.set_pool(
            [SELF, *self.snapshots, *self.baselines],
            pool_weights(len(self.snapshots), len(self.baselines), self.config.baseline_rate),
        )
        self.last_snapshot = self.num_timesteps

    def _on_rollout_end(self) -> None:
        env = self.training_env
        for opponent, score in env.pop_results():
            self.ratings.record(opponent, score)
        elapsed = time.perf_counter() - self._start
        point: dict[str, Any] = {
            "timesteps": int(self.num_timesteps),
            "seconds": round(elapsed, 1),
            "env_share": env.seconds / elapsed if elapsed > 0 else float("nan"),
        }
        for name, (mu, sigma) in self.ratings.table().items():
            self.logger.record(f"selfplay/rating/{name}", mu)
            point[f"rating/{name}"] = [round(mu, 2), round(sigma, 2)]
        for name in self.baselines:
            score = self.ratings.score(name, last=200)
            self.logger.record(f"selfplay/score/{name}", score)
            point[f"score/{name}"] = round(score, 4) if not math.isnan(score) else None
        self.logger.record("selfplay/env_share", point["env_share"])
        self.logger.record("selfplay/pool", len(self.snapshots))
        self.curve.append(point)


def warm_up(config: TrainConfig, batched: bool | None = None) -> float:
    """Plays one game against each training opponent on a throwaway env, so that numba compiles
    (or loads from its cache) every engine function before training is timed: the batched learners' loop
    when :func:`make_training_env` would batch the games (``batched`` as it takes it), else the single-agent
    views.

    The training envs, their generators and the policy are not touched.

    On a cold cache numba says on standard error what it compiles and for how long, as it goes (the
    compile notice of :mod:`mancala_envs.engine.jit`).

    Returns:
        The seconds it took (most of them compiling, on a cold cache).
    """
    start = time.perf_counter()
    opponents = config.opponents
    if config.self_play:  # the batched loop and the pool's agents
        from mancala_envs.training.selfplay import SelfPlayVecEnv

        self_play = SelfPlayVecEnv(
            config.game, 2, opponents=opponents, encoding=config.encoding, seed=0, **config.game_options
        )
        self_play.reset()
        for _ in range(4):
            self_play.step(np.argmax(self_play.action_masks(), axis=1))
        self_play.close()
    if _opponents_to_batch(config, batched) is not None:  # the learners' loop for these opponents' kinds
        env = make_training_env(dataclasses.replace(config, n_envs=2, seed=0), batched)
        env.reset()
        for _ in range(8):
            env.step(np.argmax(env.env_method("action_masks"), axis=1))
        env.close()
    else:
        for opponent in opponents:
            env = _single_env(config.game, opponent, config.encoding, config.game_options, config.trust_remote_code)
            _, info = env.reset(seed=0)
            rng = np.random.default_rng(0)
            while True:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
                _, _, terminated, truncated, info = env.step(action)
                if terminated or truncated:
                    break
    return time.perf_counter() - start


# --- evaluation ----------------------------------------------------------------------
@dataclass(frozen=True)
class EvalRow(Tally):
    """Results against one opponent from one seat (``"first"``, ``"second"`` or ``"both"``)."""

    opponent: str
    seat: str
    wins: int
    draws: int
    losses: int

    def as_dict(self) -> dict[str, Any]:
        row = dataclasses.asdict(self)
        row["games"] = self.games
        for outcome in ("wins", "draws", "losses"):
            row[f"{outcome}_rate"] = self.rate(outcome)
            row[f"{outcome}_ci95"] = list(self.interval(outcome))
        return row


def evaluate(
    policy: Any,
    game: str,
    opponents: Sequence[Any] = ("random", "greedy"),
    games: int = 200,
    seed: int = 0,
    encoding: str | dict[str, Any] | None = None,
    game_options: dict[str, Any] | None = None,
    deterministic: bool = True,
    trust_remote_code: bool = False,
) -> list[EvalRow]:
    """Plays ``policy`` against each opponent, ``games`` games each, half moving first.

    Args:
        policy: An SB3 model or policy (its logits are masked, so it never plays an illegal move).
        game: The game or variant id.
        opponents: Baseline names or anything :func:`~mancala_envs.views.opponents.make_opponent` takes.
        games: Games per opponent; game ``i`` has the learner move first when ``i`` is even.
        seed: Seeds game ``i`` with ``seed + i`` (the opponent's and the policy's draws included).
        encoding: The observation encoding the policy was trained on (``"flat"``, ``{"name": "one_hot",
            "cap": 8}``, ``"raw"`` for none), or ``None`` (default): the one encoding whose space is the
            policy's observation space: raw, an encoding with its default options, or the one encoding
            with other options whose space it is (``planes`` with any ``cap``; ``one_hot`` with ``cap=c``
            and ``thermometer`` with ``cap=c+1`` share a space, so outside their defaults they must be
            named), as :func:`~mancala_envs.agents.sb3.policy_encoder` finds it, so a model trained on the single-agent
            env's ``flat`` encoding or on the raw observations of ``MancalaSB3VecEnv`` is evaluated as is.
        game_options: Options of the game.
        deterministic: Play the policy's most likely legal action.
        trust_remote_code: Load saved-model opponents in full, unpickling them (a crafted file runs
            arbitrary code; only for files you trust). By default they are loaded without unpickling.

    Returns:
        For each opponent, the rows for moving first, moving second and both.

    Raises:
        TypeError / ValueError: ``games`` not an integer from 0, or more than
            :data:`~mancala_envs.common.validation.MAX_GAMES` games in all.
    """
    check_integer("games", games, 0)
    check_game_count(
        "the evaluation",
        len(opponents),
        "opponent",
        games,
        "Play fewer games per opponent (--eval-games) or fewer opponents (--eval-opponents).",
    )
    learner = PolicyOpponent(policy, observation=encoding, deterministic=deterministic, name="learner")
    rows: list[EvalRow] = []
    for spec in opponents:
        opponent = make_opponent(spec, trust_remote_code=trust_remote_code)
        name = spec if isinstance(spec, str) else getattr(opponent, "name", repr(spec))
        tally = {"first": [0, 0, 0], "second": [0, 0, 0]}
        env = SingleAgentEnv(game, opponent=opponent, first_player=0, learner_seat=0, **(game_options or {}))
        for i in range(games):
            seat = i % 2
            env.learner_seat = seat
            env.reset(seed=seed + i)
            learner.reseed(seed + i)
            reward = 0.0
            while True:
                _, reward, terminated, truncated, _ = env.step(learner.act(env.aec_env))
                if terminated or truncated:
                    break
            outcome = 0 if reward > 0 else (2 if reward < 0 else 1)
            tally["first" if seat == 0 else "second"][outcome] += 1
        for seats, (wins, draws, losses) in tally.items():
            rows.append(EvalRow(name, seats, wins, draws, losses))
        both = [a + b for a, b in zip(tally["first"], tally["second"], strict=True)]  # three counts each
        rows.append(EvalRow(name, "both", *both))
    return rows


def format_table(rows: Sequence[EvalRow]) -> str:
    """A plain-text table of win / draw / loss rates with 95% Wilson intervals."""
    header = f"{'opponent':<12} {'seat':<7} {'games':>5}  {'win':>19}  {'draw':>19}  {'loss':>19}"
    lines = [header, "-" * len(header)]
    for row in rows:
        cells = []
        for outcome in ("wins", "draws", "losses"):
            low, high = row.interval(outcome)
            cells.append(f"{100 * row.rate(outcome):5.1f}% [{100 * low:4.1f}, {100 * high:5.1f}]")
        lines.append(f"{row.opponent:<12} {row.seat:<7} {row.games:>5}  " + "  ".join(f"{c:>19}" for c in cells))
    lines.append("win/draw/loss rates with 95% Wilson confidence intervals; 'first' = the learner moved first")
    return "\n".join(lines)


# --- self-play --------------------------------------------------------------------------
class SelfPlayCallback(BaseCallback):
    """Refreshes the opponents of a self-play run with frozen snapshots of the learner.

    At the start and every ``refresh_every`` timesteps, a deep copy of the current policy joins
    a pool of the last ``pool_size`` snapshots; the ``anchors`` (e.g. ``"random"``) stay in the
    pool for good. Each training env gets the pool through ``env_method("set_opponent", ...)``,
    so this works under ``SubprocVecEnv`` too, and draws one member per episode.

    Args:
        refresh_every: Timesteps between snapshots.
        pool_size: Snapshots kept (the oldest goes first).
        anchors: Opponents kept in the pool besides the snapshots.
        encoding: The observation encoding the learner uses.

    Raises:
        ValueError: ``refresh_every`` or ``pool_size`` is not a positive integer.
    """

    def __init__(
        self,
        refresh_every: int = 10_000,
        pool_size: int = 5,
        anchors: Sequence[Any] = ("random",),
        encoding: str = "flat",
    ) -> None:
        for name, value in (("refresh_every", refresh_every), ("pool_size", pool_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer (got {value!r}).")
        super().__init__()
        self.refresh_every = refresh_every
        self.pool_size = pool_size
        self.anchors = list(anchors)
        self.encoding = encoding
        self.snapshots: list[PolicyOpponent] = []
        self.last_refresh = 0

    def _on_training_start(self) -> None:
        self.refresh()

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last_refresh >= self.refresh_every:
            self.refresh()
        return True

    def refresh(self) -> None:
        """Adds a snapshot of the current policy and sends the pool to every training env."""
        snapshot = PolicyOpponent(self.model.policy, observation=self.encoding, name=f"self@{self.num_timesteps}")
        self.snapshots = (self.snapshots + [snapshot.frozen()])[-self.pool_size :]
        self.training_env.env_method("set_opponent", self.anchors + self.snapshots)
        self.last_refresh = self.num_timesteps
