"""The ``mancala-envs`` command line.

``mancala-envs train`` trains MaskablePPO on a game against an opponent, saves it
and prints its win / draw / loss rates against the baselines (the ``train`` extra);
``mancala-envs demo --game ouril --agents random greedy`` plays one game between
two agents and prints it turn by turn (``--record game.json`` also saves it as a game
record); ``mancala-envs replay game.json`` prints a recorded game move by move, and
``--out game.gif`` (or ``.mp4``, or PNG frames) animates it (the ``render`` extra);
``mancala-envs play omweso --opponent alphabeta:3`` plays a game in the terminal
(:mod:`mancala_envs.cli.terminal_game`, parsed by :mod:`mancala_envs.cli.play_command`); ``mancala-envs tournament --game ouril --agents random greedy``
runs a round robin with ratings (:mod:`mancala_envs.analysis.tournament`, parsed by :mod:`mancala_envs.cli.tournament_command`; the ``tournament`` extra);
``mancala-envs list`` lists the ids (PettingZoo's and Gymnasium's); ``mancala-envs warm-up`` compiles every game's entry points into
numba's cache ahead of use (:mod:`mancala_envs.training.warm_up`, ``docs/install.md``). ``python -m mancala_envs`` is the
same command.
Bad input is reported as one line, ``mancala-envs: error: ...``, with exit status 2
(see docs/contract.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mancala_envs.cli.common import (
    COUNT,
    POSITIVE,
    PROG,
    SEED,
    Parser,
    UsageError,
    add_trust_remote_code,
    fail,
    os_error_line,
    quiet_broken_pipe,
)
from mancala_envs.common.files import check_destination
from mancala_envs.common.moved import moved_attribute
from mancala_envs.common.validation import check_integer
from mancala_envs.envs.registration import VARIANTS, game_names, resolve_env_id

if TYPE_CHECKING:
    from mancala_envs.envs.records import GameRecord

__all__ = ["PROG", "main", "play_demo", "print_replay", "run_replay", "run_train", "run_warm_up"]


def play_demo(
    env_id: str,
    agent_names: Sequence[str],
    seed: int,
    out=sys.stdout,
    *,
    record: str | os.PathLike[str] | None = None,
    trust_remote_code: bool = False,
    **options,
) -> dict:
    """Plays one game between two named agents, printing every ply.

    Each ply is printed in words with its action, numbered as the text board's ``legal actions [...]``
    list numbers it (and as ``mancala-envs play`` takes it, ``a1``): ``player_1 (greedy) sows pit 7
    (action 1), captures 0``. The text board is seen from player 0's seat on every ply.

    Args:
        env_id: A game name or registry id (``"ouril"``, ``"ouril_v0"``, ``"mancala/urim7-v0"``).
        agent_names: Agent names for player_0 and player_1.
        seed: Seeds the env (first player) and the agents.
        out: Where to print.
        record: If given, the game is also saved there as a JSON game record (``mancala-envs replay`` reads it).
        trust_remote_code: Load ``sb3:`` agents in full, unpickling the file (a crafted file runs arbitrary
            code; only for files you trust). By default they are loaded without unpickling.
        **options: Game and environment options.

    Returns:
        The final infos of player_0 (scores, winner, end reason, ...).

    Raises:
        TypeError: ``seed`` is not an integer, or a name has the wrong type.
        ValueError: an unknown game or agent, not exactly two agent names, a negative seed, or a ``record``
            path whose directory does not exist.
    """
    import mancala_envs
    from mancala_envs.agents import make_agent

    if isinstance(agent_names, str) or not isinstance(agent_names, Sequence) or len(agent_names) != 2:
        raise ValueError(f"give two agent names, one for each player, e.g. ['random', 'greedy'] (got {agent_names!r}).")
    check_integer("seed", seed, 0)
    if record is not None and not os.path.isdir(os.path.dirname(os.path.abspath(record))):
        raise ValueError(f"cannot write {os.fspath(record)!r}: its directory does not exist.")

    env_id = resolve_env_id(env_id)
    env = mancala_envs.make(env_id, render_mode="ansi", **options)
    if record is not None:
        from mancala_envs.wrappers import RecordGames

        env = RecordGames(env, keep=True, players=list(agent_names))
    agents = {
        f"player_{p}": make_agent(name, seed=seed + p, trust_remote_code=trust_remote_code)
        for p, name in enumerate(agent_names)
    }
    env.reset(seed=seed)
    print(f"{env_id}: player_0 = {agent_names[0]}, player_1 = {agent_names[1]}", file=out)
    print(env.render(), file=out)
    final: dict = {}
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            final = final or info
            env.step(None)
            continue
        action = agents[agent].act(env)
        what = env.unwrapped.game.describe_action(env.unwrapped.state_array, action)
        env.step(action)
        move = env.infos[agent]["last_move"]
        captured = sum(seeds for _, seeds in move["captures"])
        # the action as the header's "legal actions [...]" numbers it (and ``play``'s a<action>), beside the pit
        print(f"\n{agent} ({agents[agent].name}) {what} (action {action}), captures {captured}", file=out)
        print(env.render(), file=out)
    winner = final["winner"]
    result = "draw" if winner is None else f"player_{winner} ({agent_names[winner]}) wins"
    print(
        f"\nResult: {result}; scores {final['scores'][0]}-{final['scores'][1]}, "
        f"end: {final['end_reason']}, plies: {final['ply']}",
        file=out,
    )
    if record is not None:
        path = env.records[-1].save(record)
        print(f"Recorded the game to {path} (mancala-envs replay {path})", file=out)
    return final


def print_replay(record: GameRecord | str | os.PathLike[str], out=sys.stdout) -> None:
    """Prints a recorded game move by move: the text board after the start and after every move.

    Each move is printed in words with its action, numbered as the board's ``legal actions [...]`` list
    numbers it: ``2. player_1 sows pit 6 (action 0)``.

    Args:
        record: A :class:`~mancala_envs.envs.records.GameRecord` or the path of a saved one.
        out: Where to print.

    Raises:
        ValueError: the record is malformed or does not replay (see :func:`mancala_envs.envs.records.replay`).
    """
    from mancala_envs.envs.records import GameRecord, replay

    record = record if isinstance(record, GameRecord) else GameRecord.load(record)
    names = record.players
    players = "" if names is None else f": player_0 = {names[0]}, player_1 = {names[1]}"
    print(f"{record.env}{players}", file=out)
    positions = replay(record, render_mode="ansi")
    print(next(positions).render(), file=out)
    for number, (move, env) in enumerate(zip(record.moves, positions), start=1):
        what = move.get("move", f"plays action {move['action']}")
        if "move" in move and not move.get("illegal"):  # the action as the board's "legal actions [...]" numbers it
            what = f"{what} (action {move['action']})"
        print(f"\n{number}. player_{move['player']} {what}", file=out)
        print(env.render(), file=out)
    for _ in positions:  # the end of the replay checks the record's result
        pass
    result = record.result
    if result is None:
        print(f"\nUnfinished: {len(record.moves)} moves recorded", file=out)
        return
    winner = result["winner"]
    named = "" if winner is None or names is None else f" ({names[winner]})"
    outcome = "draw" if winner is None else f"player_{winner}{named} wins"
    print(
        f"\nResult: {outcome}; scores {result['scores'][0]}-{result['scores'][1]}, "
        f"end: {result['end_reason']}, moves: {len(record.moves)}",
        file=out,
    )


def run_replay(args: argparse.Namespace, out=None) -> int:
    """``mancala-envs replay``: prints the recorded game, or writes its animation to ``--out``; returns 0."""
    from mancala_envs.envs.records import GameRecord, write_animation

    out = sys.stdout if out is None else out
    try:
        record = GameRecord.load(args.record)
    except OSError as error:
        raise ValueError(f"cannot read the game record {args.record!r}: {error.strerror or error}") from None
    if args.out is None:
        print_replay(record, out)
        return 0
    try:
        paths = write_animation(record, args.out, fps=args.fps)
    except ImportError as error:
        raise ValueError(str(error)) from None
    except OSError as error:
        raise ValueError(f"cannot write {args.out!r}: {error.strerror or error}") from None
    where = paths[0] if len(paths) == 1 else f"{paths[0]} ... {paths[-1]}"
    print(f"Wrote {len(record.moves) + 1} positions ({len(record.moves)} moves) to {where}", file=out)
    return 0


def run_train(args: argparse.Namespace, out=None) -> dict:
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
    opponent = args.opponent[0] if len(args.opponent) == 1 else list(args.opponent)
    config = training.TrainConfig(
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
    # A bad opponent fails here, in one line, before the command prints that training starts.
    from mancala_envs.agents import make_agent
    from mancala_envs.views.opponents import make_opponent

    make_opponent(opponent, trust_remote_code=args.trust_remote_code)
    for name in args.eval_opponents:
        make_agent(name, trust_remote_code=args.trust_remote_code)
    replacing = config.check_paths()  # a refused save, --tensorboard or --export-pretrained path fails here
    if args.json:  # before training: a missing folder, a folder in the file's place, no write access
        check_destination(args.json, "the output of --json")
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
    try:
        result = training.train(config)
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


def _report_training(args: argparse.Namespace, config: Any, result: Any, training: Any, out: Any) -> dict:
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


def run_warm_up(args: argparse.Namespace, out=None) -> dict[str, float]:
    """``mancala-envs warm-up``: compiles the games' entry points and says where the cache went."""
    import numba

    from mancala_envs.engine.jit import CACHING
    from mancala_envs.training.warm_up import WARM_UP_OPPONENTS, warm_up

    out = out or sys.stdout
    seconds = warm_up(args.games, opponents=args.opponents or WARM_UP_OPPONENTS)
    for game, spent in seconds.items():
        print(f"{game}: compiled in {spent:.1f} s", file=out)
    if not CACHING:
        print(
            "numba could not write a cache here: nothing was kept (set NUMBA_CACHE_DIR to a writable folder)", file=out
        )
    elif numba.config.CACHE_DIR:
        print(f"cache: {numba.config.CACHE_DIR} (NUMBA_CACHE_DIR)", file=out)
    else:
        print(
            "cache: the __pycache__ folders of the package (or the user cache folder, where those are read-only)",
            file=out,
        )
    return seconds


def list_table() -> str:
    """What ``mancala-envs list`` prints: the game names, then every variant's PettingZoo id (for
    :func:`mancala_envs.make` and ``pettingzoo``), its Gymnasium id (``gymnasium.make`` and
    ``gymnasium.make_vec``) and its description."""
    pettingzoo_width = max(len(variant.id) for variant in VARIANTS)
    gymnasium_width = max(len(variant.gymnasium_id) for variant in VARIANTS)
    lines = [
        "games (mancala_envs.make): " + " ".join(game_names()),
        "",
        f"{'PettingZoo AEC id':<{pettingzoo_width}}  {'Gymnasium id (make, make_vec)':<{gymnasium_width}}  description",
    ]
    lines += [
        f"{variant.id:<{pettingzoo_width}}  {variant.gymnasium_id:<{gymnasium_width}}  {variant.description}"
        for variant in VARIANTS
    ]
    return "\n".join(lines)


#: What each command prints on Ctrl-C: what was kept (``train`` says it itself once the training has begun).
_INTERRUPTED = {
    "train": lambda args: "Interrupted before training began: nothing was saved",
    "list": lambda args: "Interrupted",
    "demo": lambda args: (
        "Interrupted: the game was not recorded" if args.record is not None else "Interrupted: nothing was written"
    ),
    "replay": lambda args: (
        "Interrupted: nothing was written"
        if args.out is None
        else f"Interrupted: the animation at {args.out} may be incomplete; run the command again"
    ),
    "warm-up": lambda args: _warm_up_interrupted(),
}


def _warm_up_interrupted() -> str:
    from mancala_envs.engine.jit import CACHING

    if not CACHING:
        return "Interrupted: numba could not write a cache here, so nothing was kept"
    return "Interrupted: what was compiled so far stays in numba's cache; run mancala-envs warm-up again for the rest"


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="Mancala games as RL environments.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="play one game between two agents, printed turn by turn")
    demo.add_argument("--game", default="ouril", help="game name or registry id (default: ouril)")
    demo.add_argument(
        "--agents",
        nargs=2,
        default=["random", "greedy"],
        metavar=("P0", "P1"),
        help="agent names for player_0 and player_1 (default: random greedy)",
    )
    demo.add_argument("--seed", type=SEED, default=0, help="seeds the first player and the agents (default: 0)")
    demo.add_argument("--record", default=None, metavar="PATH", help="also save the game as a JSON game record")
    add_trust_remote_code(demo)
    replay = commands.add_parser(
        "replay", help="replay a recorded game: print it move by move, or write a GIF, MP4 or PNG frames"
    )
    replay.add_argument("record", help="a JSON game record (from demo --record or the RecordGames wrappers)")
    replay.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help="write an animation instead of printing: game.gif, game.mp4, a directory or frames/move-*.png "
        "(needs the render extra)",
    )
    replay.add_argument("--fps", type=POSITIVE, default=2, help="positions per second in the animation (default: 2)")
    commands.add_parser("list", help="list the registered ids: PettingZoo (AEC) and Gymnasium (single-agent, vector)")
    warm = commands.add_parser(
        "warm-up", help="compile every entry point of the games now, into numba's cache (for images and clusters)"
    )
    warm.add_argument("--games", nargs="+", default=None, help="game names (default: every game)")
    warm.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        help="compiled opponents to build the envs against (default: random greedy alphabeta:1 mcts:2)",
    )
    # Listed here for --help; their arguments are parsed by their own modules (see main).
    commands.add_parser(
        "play",
        add_help=False,
        help="play a game in the terminal against an agent: mancala-envs play omweso --opponent alphabeta:3",
    )
    commands.add_parser(
        "tournament",
        add_help=False,
        help="round robin between agents with ratings: mancala-envs tournament --game ouril --agents random greedy",
    )
    commands.add_parser(
        "solve",
        add_help=False,
        help="solve a game's positions into a table: mancala-envs solve modiar, mancala-envs solve kalah --max-seeds 12",
    )
    commands.add_parser(
        "evaluate",
        add_help=False,
        help="measure an agent against perfect play: mancala-envs evaluate greedy --game modiar --oracle",
    )
    train = commands.add_parser(
        "train", help="train MaskablePPO against an opponent, save it, and evaluate it against the baselines"
    )
    train.add_argument("--game", default="ouril", help="game name or registry id (default: ouril)")
    train.add_argument(
        "--opponent",
        nargs="+",
        default=["random", "greedy"],
        help="training opponent(s): baseline names or model:path.zip; several = one drawn per episode "
        "(default: random greedy)",
    )
    train.add_argument("--timesteps", type=POSITIVE, default=100_000, help="learner steps to train (default: 100000)")
    train.add_argument(
        "--n-envs",
        type=POSITIVE,
        default=128,
        help="games stepped together; against compiled opponents, one compiled call a step (default: 128)",
    )
    train.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help="seeds envs, opponents, policy and evaluation, up to 4294967295 (MAX_SEED) (default: 0)",
    )
    train.add_argument(
        "--encoding",
        default="flat",
        choices=["flat", "one_hot", "thermometer"],
        help="observation encoding (default: flat, normalised)",
    )
    train.add_argument("--torch-threads", type=POSITIVE, default=1, help="torch CPU threads (default: 1)")
    train.add_argument(
        "--save",
        default=None,
        metavar="PATH",
        help="model file, .zip added unless PATH ends with it; its folder must exist (default: "
        "models/<game>-maskable-ppo.zip, or ...-self-play.zip with --self-play, rewritten by each run)",
    )
    train.add_argument("--overwrite", action="store_true", help="replace the file at --save if there is one")
    train.add_argument("--tensorboard", default=None, metavar="DIR", help="log to TensorBoard in DIR")
    train.add_argument(
        "--eval-games",
        type=COUNT,
        default=200,
        help="evaluation games per opponent, 1000000 in all at most (MAX_GAMES) (default: 200)",
    )
    train.add_argument(
        "--eval-opponents",
        nargs="+",
        default=["random", "greedy"],
        help="evaluation opponents (default: random greedy)",
    )
    train.add_argument(
        "--self-play",
        action="store_true",
        help="batched self-play: the learner against itself, its snapshots, and the --opponent baselines in "
        "--baseline-rate of the episodes, with live Bradley-Terry ratings",
    )
    train.add_argument(
        "--baseline-rate",
        type=float,
        default=0.2,
        help="self-play: share of episodes against the --opponent baselines (default: 0.2)",
    )
    train.add_argument(
        "--snapshot-every",
        type=POSITIVE,
        default=50_000,
        help="self-play: timesteps between snapshots joining the pool (default: 50000)",
    )
    train.add_argument(
        "--pool-size", type=POSITIVE, default=8, help="self-play: snapshots kept, up to 64 (MAX_POOL_SIZE) (default: 8)"
    )
    train.add_argument(
        "--export-pretrained",
        default=None,
        metavar="PATH",
        help="also export the actor as shipped-agent weights (.safetensors) to PATH",
    )
    train.add_argument("--n-steps", type=POSITIVE, default=16, help="steps per game between updates (default: 16)")
    train.add_argument(
        "--batch-size",
        type=POSITIVE,
        default=256,
        help="minibatch size, up to 262144 (MAX_ROLLOUT_STEPS) (default: 256)",
    )
    train.add_argument("--n-epochs", type=POSITIVE, default=4, help="epochs per update (default: 4)")
    train.add_argument("--learning-rate", type=float, default=3e-4, help="Adam's learning rate (default: 3e-4)")
    train.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (default: 0.01)")
    train.add_argument("--gamma", type=float, default=0.99, help="discount (default: 0.99)")
    train.add_argument(
        "--net-arch",
        type=POSITIVE,
        nargs="+",
        default=[64, 64],
        help="hidden layer sizes of the policy and value MLPs, up to 8 sizes from 1 to 2048 (default: 64 64)",
    )
    train.add_argument("--json", default=None, metavar="PATH", help="also write the figures as JSON to PATH")
    train.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_trust_remote_code(train)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line and returns its exit status.

    Bad input -- an unknown command, a missing or malformed argument, an unknown game or
    agent -- prints one line ``mancala-envs: error: <what was wrong>`` on stderr (no usage
    text, no traceback) and returns 2. ``--help`` prints the usage and exits with 0. Ctrl-C returns 130
    without a traceback, after one line that says what was kept (``train`` saves the model so far; ``warm-up``
    keeps what it compiled in numba's cache; ``demo`` records nothing).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("play", "tournament", "solve", "evaluate"):  # commands with parsers of their own
        if argv[0] == "play":
            from mancala_envs.cli.play_command import play_main

            return play_main(argv[1:])
        if argv[0] == "solve":
            from mancala_envs.cli.solve_command import solve_main

            return solve_main(argv[1:])
        if argv[0] == "evaluate":
            from mancala_envs.cli.evaluate_command import evaluate_main

            return evaluate_main(argv[1:])
        from mancala_envs.cli.tournament_command import tournament_main

        return tournament_main(argv[1:])
    try:
        args = _parser().parse_args(argv)
    except UsageError as error:
        return fail(str(error))
    try:
        if args.command == "list":
            print(list_table())
        elif args.command == "train":
            run_train(args)
        elif args.command == "replay":
            run_replay(args)
        elif args.command == "warm-up":
            run_warm_up(args)
        else:
            play_demo(args.game, args.agents, args.seed, record=args.record, trust_remote_code=args.trust_remote_code)
    except (ValueError, TypeError) as error:
        return fail(str(error))
    except BrokenPipeError:
        return quiet_broken_pipe()
    except (KeyboardInterrupt, SystemError) as error:  # Ctrl-C: one line of what was kept (train said it); no traceback
        from mancala_envs.common.errors import is_ctrl_c

        if not is_ctrl_c(error):  # numba's SystemError caused by Ctrl-C is Ctrl-C; any other is a fault
            raise
        training = sys.modules.get("mancala_envs.training.trainer")
        if training is None or not isinstance(error, training.TrainingInterrupted):  # run_train said those itself
            print(_INTERRUPTED[args.command](args), flush=True)
        return 130
    except OSError as error:  # demo --record into a place that cannot be written, a missing model
        return fail(os_error_line(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())


def __getattr__(name: str) -> types.ModuleType:
    # the submodules that moved in 0.2.0, as attributes: they warn (mancala_envs.common.moved)
    return moved_attribute(__name__, name)
