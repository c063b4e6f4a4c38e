"""``mancala-envs train``: MaskablePPO trained against an opponent, saved, and evaluated against the baselines
(:mod:`mancala_envs.training.trainer`; the ``train`` extra)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from mancala_envs.cli.common import COUNT, POSITIVE, SEED, add_trust_remote_code
from mancala_envs.common.files import check_destination
from mancala_envs.envs.registration import resolve_env_id

__all__ = ["add_train_arguments", "run_alphazero", "run_train", "train_interrupted"]

#: ``mancala-envs train``'s line in ``mancala-envs --help``
TRAIN_HELP = "train MaskablePPO against an opponent, save it, and evaluate it against the baselines"


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the arguments of ``mancala-envs train`` to ``parser``."""
    parser.add_argument("--game", default="ouril", help="game name or registry id (default: ouril)")
    parser.add_argument(
        "--opponent",
        nargs="+",
        default=["random", "greedy"],
        help="training opponent(s): baseline names or model:path.zip; several = one drawn per episode "
        "(default: random greedy)",
    )
    parser.add_argument("--timesteps", type=POSITIVE, default=100_000, help="learner steps to train (default: 100000)")
    parser.add_argument(
        "--n-envs",
        type=POSITIVE,
        default=128,
        help="games stepped together; against compiled opponents, one compiled call a step (default: 128)",
    )
    parser.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help="seeds envs, opponents, policy and evaluation, up to 4294967295 (MAX_SEED) (default: 0)",
    )
    parser.add_argument(
        "--encoding",
        default="flat",
        choices=["flat", "one_hot", "thermometer"],
        help="observation encoding (default: flat, normalised)",
    )
    parser.add_argument("--torch-threads", type=POSITIVE, default=1, help="torch CPU threads (default: 1)")
    parser.add_argument(
        "--save",
        default=None,
        metavar="PATH",
        help="model file, .zip added unless PATH ends with it; its folder must exist (default: "
        "models/<game>-maskable-ppo.zip, or ...-self-play.zip with --self-play, rewritten by each run)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace the file at --save if there is one")
    parser.add_argument("--tensorboard", default=None, metavar="DIR", help="log to TensorBoard in DIR")
    parser.add_argument(
        "--eval-games",
        type=COUNT,
        default=200,
        help="evaluation games per opponent, 1000000 in all at most (MAX_GAMES) (default: 200)",
    )
    parser.add_argument(
        "--eval-opponents",
        nargs="+",
        default=["random", "greedy"],
        help="evaluation opponents (default: random greedy)",
    )
    parser.add_argument(
        "--self-play",
        action="store_true",
        help="batched self-play: the learner against itself, its snapshots, and the --opponent baselines in "
        "--baseline-rate of the episodes, with live Bradley-Terry ratings",
    )
    parser.add_argument(
        "--baseline-rate",
        type=float,
        default=0.2,
        help="self-play: share of episodes against the --opponent baselines (default: 0.2)",
    )
    parser.add_argument(
        "--snapshot-every",
        type=POSITIVE,
        default=50_000,
        help="self-play: timesteps between snapshots joining the pool (default: 50000)",
    )
    parser.add_argument(
        "--pool-size", type=POSITIVE, default=8, help="self-play: snapshots kept, up to 64 (MAX_POOL_SIZE) (default: 8)"
    )
    parser.add_argument(
        "--export-pretrained",
        default=None,
        metavar="PATH",
        help="also export the actor as shipped-agent weights (.safetensors) to PATH",
    )
    parser.add_argument("--n-steps", type=POSITIVE, default=16, help="steps per game between updates (default: 16)")
    parser.add_argument(
        "--batch-size",
        type=POSITIVE,
        default=256,
        help="minibatch size, up to 262144 (MAX_ROLLOUT_STEPS) (default: 256)",
    )
    parser.add_argument("--n-epochs", type=POSITIVE, default=4, help="epochs per update (default: 4)")
    parser.add_argument("--learning-rate", type=float, default=3e-4, help="Adam's learning rate (default: 3e-4)")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (default: 0.01)")
    parser.add_argument("--gamma", type=float, default=0.99, help="discount (default: 0.99)")
    parser.add_argument(
        "--net-arch",
        type=POSITIVE,
        nargs="+",
        default=[64, 64],
        help="hidden layer sizes of the policy and value MLPs, up to 8 sizes from 1 to 2048 (default: 64 64)",
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the figures as JSON to PATH")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_trust_remote_code(parser)
    _add_alphazero_arguments(parser)


def _add_alphazero_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``train --alphazero`` (:mod:`mancala_envs.training.alphazero_training`); it also reads ``--game``,
    ``--seed``, ``--net-arch``, ``--learning-rate``, ``--batch-size``, ``--torch-threads``, ``--tensorboard``,
    ``--json`` and ``--export-pretrained`` (the weights' folder or file; default: the folder ``models``)."""
    group = parser.add_argument_group("AlphaZero (--alphazero)")
    group.add_argument(
        "--alphazero",
        action="store_true",
        help="AlphaZero-style training instead of PPO: batched PUCT self-play, replay buffer, policy-value MLP; "
        "exports <game>_az.safetensors (the az:N agent) to --export-pretrained (default: the folder models); also "
        "reads --game --seed --net-arch --learning-rate --batch-size --torch-threads --tensorboard --json",
    )
    group.add_argument("--iterations", type=POSITIVE, default=20, help="self-play + update rounds (default: 20)")
    group.add_argument(
        "--games-per-iteration", type=POSITIVE, default=64, help="self-play games searched together (default: 64)"
    )
    group.add_argument("--simulations", type=POSITIVE, default=64, help="search simulations a move (default: 64)")
    group.add_argument(
        "--updates-per-iteration", type=COUNT, default=100, help="Adam steps per iteration (default: 100)"
    )
    group.add_argument("--replay-size", type=POSITIVE, default=50_000, help="samples kept (default: 50000)")
    group.add_argument(
        "--rating-every", type=COUNT, default=5, help="iterations between rating rounds, 0 for none (default: 5)"
    )
    group.add_argument("--rating-games", type=POSITIVE, default=20, help="games per anchor a round (default: 20)")
    group.add_argument(
        "--rating-opponents",
        nargs="+",
        default=["random", "greedy", "alphabeta:2"],
        help="the rating anchors (agent names) the searched network plays (default: random greedy alphabeta:2)",
    )
    group.add_argument(
        "--rating-opening-plies",
        type=COUNT,
        default=2,
        help="random plies opening each pair of rating games, seats swapped (default: 2)",
    )
    group.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="a time budget: stop after the iteration that reaches it, then export (default: none)",
    )
    group.add_argument(
        "--rating-simulations", type=COUNT, default=32, help="the searched agent's simulations when rated (default: 32)"
    )


def run_alphazero(args: argparse.Namespace, out: TextIO | None = None) -> dict[str, Any]:
    """``mancala-envs train --alphazero``: trains by AlphaZero-style self-play, exports the weights, prints the
    figures of each iteration; returns the last ones.

    Raises:
        ValueError: bad arguments, a refused export path (before training), or torch missing.
    """
    out = sys.stdout if out is None else out
    import mancala_envs

    game = resolve_env_id(args.game)
    mancala_envs.make(game)  # an unknown game fails here, before torch is imported
    try:
        from mancala_envs.training import alphazero_training as alphazero
    except ImportError as error:
        raise ValueError(
            f"training needs the train extra ({error.name} is missing): pip install 'mancala-envs[train]'"
        ) from None
    if args.max_minutes is not None and not 0 < args.max_minutes < float("inf"):
        raise ValueError(f"--max-minutes must be a positive number of minutes, as 25 (got {args.max_minutes}).")
    config = alphazero.AlphaZeroConfig(
        game=game,
        seed=args.seed,
        iterations=args.iterations,
        games_per_iteration=args.games_per_iteration,
        simulations=args.simulations,
        hidden=tuple(args.net_arch),
        learning_rate=args.learning_rate,
        batch_size=args.batch_size,
        updates_per_iteration=args.updates_per_iteration,
        replay_size=args.replay_size,
        rating_every=args.rating_every,
        rating_games=args.rating_games,
        rating_opponents=tuple(args.rating_opponents),
        rating_simulations=args.rating_simulations,
        rating_opening_plies=args.rating_opening_plies,
        tensorboard=args.tensorboard,
        torch_threads=args.torch_threads,
        max_seconds=None if args.max_minutes is None else 60 * args.max_minutes,
    )
    export = args.export_pretrained if args.export_pretrained is not None else "models"
    if args.json:
        check_destination(args.json, "the output of --json")
    print(
        f"Training AlphaZero on {game}: {config.iterations} iterations of {config.games_per_iteration} self-play "
        f"games at {config.simulations} simulations a move, seed {config.seed}; weights to {export}",
        file=out,
        flush=True,
    )

    def report(figures: dict[str, float]) -> None:
        if args.no_progress:
            return
        ratings = " ".join(
            f"{key[7:]}={value:.0f}"
            for key, value in figures.items()
            if key.startswith("rating/") and "score" not in key
        )
        print(
            f"iteration {figures['iteration']:.0f}: loss {figures['loss/total']:.3f} (policy "
            f"{figures['loss/policy']:.3f}, value {figures['loss/value']:.3f}), "
            f"{figures['self_play/games_per_hour']:.0f} games/h, {figures['seconds']:.0f} s"
            + (f"; Elo {ratings}" if ratings else ""),
            file=out,
            flush=True,
        )

    result = alphazero.train_alphazero(config, export=export, progress=report)
    folder = result.exported.parent if result.exported is not None else export
    print(
        f"Trained {result.games} self-play games in {result.seconds:.1f} s "
        f"({3600 * result.games / max(result.seconds, 1e-9):.0f} games/h with the updates); exported the weights to "
        f"{result.exported} (az:N plays them with MANCALA_ENVS_WEIGHTS={folder})",
        file=out,
    )
    figures = {"game": game, "seconds": result.seconds, "games": result.games, "history": result.history,
               "exported": str(result.exported), "command": config.command()}  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
    return figures


def run_train(args: argparse.Namespace, out: TextIO | None = None) -> dict[str, Any]:
    """``mancala-envs train``: trains, saves, evaluates and prints the table; returns the figures.

    Where the model goes is checked before training (:meth:`~mancala_envs.training.trainer.TrainConfig.check_paths`):
    ``--save`` must name a file in a folder that exists, and one that exists is replaced only with ``--overwrite``;
    the default path is rewritten by each run, which the command says before it trains. ``--json`` and
    ``--export-pretrained`` (a ``.safetensors`` file) need a folder that exists; ``--tensorboard DIR`` and an
    ``--export-pretrained`` folder are created if missing, but only themselves: their parent must exist.

    Raises:
        ValueError / TypeError / FileExistsError: bad arguments, or a save path refused (one error line).
        mancala_envs.training.trainer.TrainingInterrupted: Ctrl-C; the model so far was saved and the command printed
            one line that says where and after how many steps (``main`` returns 130).
    """

    if getattr(args, "alphazero", False):
        return run_alphazero(args, out)
    out = sys.stdout if out is None else out
    import mancala_envs

    game = resolve_env_id(args.game)
    mancala_envs.make(game)  # an unknown game fails here, before torch is imported
    try:
        from mancala_envs.training import trainer as training
    except ImportError as error:
        raise ValueError(
            f"training needs the train extra ({error.name} is missing): pip install 'mancala-envs[train]'"
        ) from None
    config = _train_config(args, game, training)
    replacing = _check_before_training(args, config)
    _announce(config, replacing, training, out)
    result = _train_saying_interrupts(config, training, out)
    try:  # after the training: Ctrl-C keeps the saved model, says so in one line and ends as in the training
        return _report_training(args, config, result, training, out)
    except (KeyboardInterrupt, SystemError) as error:
        from mancala_envs.common.errors import is_ctrl_c

        if not is_ctrl_c(error):
            raise
        model = config.model_path
        print(
            f"Interrupted after the training: the model is saved at {model} (sb3:{model} plays it); the "
            "evaluation was not written",
            file=out,
            flush=True,
        )
        raise training.TrainingInterrupted(model, result.timesteps) from None


def _train_config(args: argparse.Namespace, game: str, training: Any) -> Any:
    """The :class:`~mancala_envs.training.trainer.TrainConfig` of the parsed arguments (its checks raise)."""
    opponent = args.opponent[0] if len(args.opponent) == 1 else list(args.opponent)
    return training.TrainConfig(
        game=game,
        opponent=opponent,
        timesteps=args.timesteps,
        n_envs=args.n_envs,
        seed=args.seed,
        encoding=args.encoding,
        torch_threads=args.torch_threads,
        save_path=args.save,
        overwrite=args.overwrite,
        tensorboard_log=args.tensorboard,
        progress_bar=not args.no_progress,
        eval_games=args.eval_games,
        eval_opponents=tuple(args.eval_opponents),
        trust_remote_code=args.trust_remote_code,
        self_play=args.self_play,
        baseline_rate=args.baseline_rate,
        snapshot_every=args.snapshot_every,
        pool_size=args.pool_size,
        export_pretrained=args.export_pretrained,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        ent_coef=args.ent_coef,
        gamma=args.gamma,
        net_arch=tuple(args.net_arch),
    )


def _check_before_training(args: argparse.Namespace, config: Any) -> bool:
    """Fails in one line, before training starts, on a bad opponent or a refused path; True if the model file will be
    replaced."""
    # A bad opponent fails here, in one line, before the command prints that training starts.
    from mancala_envs.agents import make_agent
    from mancala_envs.views.opponents import make_opponent

    make_opponent(config.opponent, trust_remote_code=args.trust_remote_code)
    for name in args.eval_opponents:
        make_agent(name, trust_remote_code=args.trust_remote_code)
    replacing: bool = config.check_paths()  # a refused save, --tensorboard or --export-pretrained path fails here
    if args.json:  # before training: a missing folder, a folder in the file's place, no write access
        check_destination(args.json, "the output of --json")
    return replacing


def _announce(config: Any, replacing: bool, training: Any, out: TextIO) -> None:
    """Prints what is about to be trained, and the model file it replaces."""
    game, opponent = config.game, config.opponent
    against = opponent if isinstance(opponent, str) else " / ".join(opponent) + " (one drawn per episode)"
    if config.self_play:
        against = (
            f"itself (batched self-play: snapshots every {config.snapshot_every} steps, {config.pool_size} "
            f"kept) and {' / '.join(config.opponents)} "
            f"in {100 * config.baseline_rate:.0f}% of the episodes"
        )
    stepped = " (batched: one compiled call a step)" if training.batched_opponents(config) is not None else ""
    print(
        f"Training MaskablePPO on {game} against {against}: {config.timesteps} steps, {config.n_envs} envs{stepped}, "
        f"seed {config.seed}, {config.encoding} observations, {config.torch_threads} torch thread(s)",
        file=out,
        flush=True,
    )
    if replacing:
        why = "--overwrite" if config.save_path else "the default path, rewritten by each run; --save PATH keeps one"
        print(f"The model will replace {config.model_path} ({why})", file=out, flush=True)


def _train_saying_interrupts(config: Any, training: Any, out: TextIO) -> Any:
    """Trains; on Ctrl-C prints one line of what was saved and raises
    :class:`~mancala_envs.training.trainer.TrainingInterrupted`."""
    try:
        return training.train(config)
    except training.TrainingInterrupted as stop:
        if stop.path is None:
            print("Interrupted before training began: nothing was saved", file=out, flush=True)
        else:
            print(
                f"Interrupted after {stop.timesteps} of {config.timesteps} steps: saved the model so far to "
                f"{stop.path} (sb3:{stop.path} plays it)",
                file=out,
                flush=True,
            )
        raise
    except (KeyboardInterrupt, SystemError) as error:  # outside the training loop: while a model was being saved
        from mancala_envs.common.errors import is_ctrl_c

        if not is_ctrl_c(error):
            raise
        print(
            f"Interrupted while saving: this run saved no model ({config.model_path} is as it was: files are "
            "replaced whole or not at all)",
            file=out,
            flush=True,
        )
        raise training.TrainingInterrupted(None, 0) from None


def _report_training(args: argparse.Namespace, config: Any, result: Any, training: Any, out: TextIO) -> dict[str, Any]:
    """``train``'s report after the training: the figures, the evaluation, the ``--json`` file; returns the figures."""
    game, opponent = config.game, config.opponent
    print(
        f"Compiled and loaded the engine in {result.compile_seconds:.1f} s (numba caches it for later runs)", file=out
    )
    print(
        f"Trained {result.timesteps} steps in {result.seconds:.1f} s: {result.steps_per_second:.0f} env steps/s; "
        f"{100 * result.env_share:.1f}% of the time inside the environments and wrappers (timed)",
        file=out,
    )
    if config.self_play:
        print(
            f"{100 * result.opponent_seconds / result.seconds:.1f}% of the time choosing the opponents' moves (part of "
            "the environments' share; one batched call per pool member and round of plies)",
            file=out,
        )
        if result.curve:
            last = result.curve[-1]
            ratings = ", ".join(
                f"{key.split('/', 1)[1]} {value[0]:.1f}"
                for key, value in last.items()
                if key.startswith("rating/") and "@" not in key
            )
            print(f"Ratings (openskill Bradley-Terry, mu): {ratings}", file=out)
    if config.export_pretrained is not None:
        print(f"Exported the policy as shipped-agent weights to {config.export_pretrained}", file=out)
    print(f"Saved the model to {config.model_path}", file=out)
    rows = []
    if config.eval_games > 0:
        print(f"Evaluating over {config.eval_games} games per opponent, half moving first ...", file=out, flush=True)
        rows = training.evaluate(
            result.model,
            game,
            config.eval_opponents,
            games=config.eval_games,
            seed=10_000 + config.seed,
            encoding=config.encoding,
            trust_remote_code=config.trust_remote_code,
        )
        print(training.format_table(rows), file=out)
    figures = {
        "game": game,
        "opponent": opponent,
        "timesteps": result.timesteps,
        "seconds": result.seconds,
        "steps_per_second": result.steps_per_second,
        "env_share": result.env_share,
        "compile_seconds": result.compile_seconds,
        "model": str(config.model_path),
        "evaluation": [row.as_dict() for row in rows],
        "command": training.train_command(config),
    }
    if config.self_play:
        figures["opponent_seconds"] = result.opponent_seconds
        figures["curve"] = result.curve
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
    summary = ", ".join(f"{100 * row.rate('wins'):.1f}% wins vs {row.opponent}" for row in rows if row.seat == "both")
    print(f"Result: {summary or 'not evaluated'} ({config.model_path})", file=out)
    return figures


def train_interrupted(args: argparse.Namespace) -> str:
    """What ``mancala-envs train`` prints on Ctrl-C before the training began (after, :func:`run_train` says it)."""
    return "Interrupted before training began: nothing was saved"
