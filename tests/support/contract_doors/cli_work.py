"""Contract cases of the long-running commands' doors (docs/contract.md, "Training" and "Tournaments"): the sizes
that would run out of memory (``net_arch``, the rollout, the tournament's games and workers), the save path of
``train`` (a missing folder, a file that exists) and the matching command lines.

Each save-path case runs in a folder of its own holding one model file (``m.zip``); what must not change is the
folder's content, byte for byte: a refused save creates no folder and replaces no file. Every refusal comes before
anything is trained or played. ``tests/doors/test_door_cli_work.py`` has the behaviours (no temporary folder left, the
``.zip`` rule, the default path, Ctrl-C).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from mancala_envs.agents.pretrained import export_destination, export_pretrained
from mancala_envs.analysis.oracle import oracle_evaluate
from mancala_envs.analysis.tournament import MAX_GAMES, max_workers, run_tournament
from mancala_envs.cli import main
from mancala_envs.envs.batch import MAX_THREADS
from mancala_envs.envs.records import write_animation
from mancala_envs.training.trainer import (
    MAX_LAYER_SIZE,
    MAX_LAYERS,
    MAX_POOL_SIZE,
    MAX_ROLLOUT_STEPS,
    MAX_SEED,
    TrainConfig,
    evaluate,
)

from support.contract import EXIT_2, Case, Row

DOOR = "cli_work"
TRAINING = "Training:"
TOURNAMENT = "Tournaments:"
WEIGHTS = "Pretrained weights and saved models:"
RECORDS = "Game records:"
TABLES = "Perfect-play tables:"
#: what every refused destination says: the missing folder is to be created first, nothing creates it
MISSING = "does not exist; create it first (nothing creates missing folders)."
#: the tiny run the command-line cases would start if the refusal did not stop them first
TINY = [
    "--timesteps",
    "64",
    "--n-envs",
    "2",
    "--n-steps",
    "32",
    "--batch-size",
    "64",
    "--n-epochs",
    "1",
    "--eval-games",
    "0",
    "--no-progress",
    "--opponent",
    "random",
]


def model_folder(*subfolders: str) -> Path:
    """A new folder holding one file, ``m.zip``, and the empty ``subfolders`` (the contract matrix removes it after
    the case)."""
    path = Path(tempfile.mkdtemp(prefix="contract-cli-work-"))
    (path / "m.zip").write_bytes(b"an earlier model")
    for name in subfolders:
        (path / name).mkdir()
    return path


def record_folder() -> Path:
    """A folder holding ``m.zip`` and a recorded Modiar game, ``game.json``."""
    import io

    from mancala_envs.cli import play_demo

    path = model_folder()
    play_demo("modiar", ["random", "greedy"], 0, out=io.StringIO(), record=path / "game.json")
    return path


def content(path: Path) -> dict[str, bytes]:
    return {str(item.relative_to(path)): item.read_bytes() if item.is_file() else b"" for item in path.rglob("*")}


def config(**fields: Any) -> Any:
    return TrainConfig(**fields)


def check_path(folder: Path, save: str, **fields: Any) -> bool:
    return TrainConfig(save_path=str(folder / save), **fields).check_model_path()


def tournament(**arguments: Any) -> Any:
    settings = {
        "game": "kalah",
        "agents": ["random", "greedy"],
        "games_per_pair": 2,
        "workers": 1,
        "progress": False,
        **arguments,
    }
    return run_tournament(**settings)


CASES: list[Case] = []


def case(section: str, item: str, name: str, call: Any, error: Any, *words: str, **options: Any) -> None:
    CASES.append(Case(DOOR, Row(section, item), name, call, error, words, **options))


# --- training sizes -----------------------------------------------------------------------------------------------
row = "`net_arch` (`--net-arch`) of more than `MAX_LAYERS` (8) sizes"
for name, layers, words in (
    ("net_arch=(100000000,)", (100_000_000,), (f"from 1 to {MAX_LAYER_SIZE} (MAX_LAYER_SIZE)", "(got 100000000)")),
    ("net_arch=(64, 0)", (64, 0), ("net_arch sizes must be integers from 1 to", "(got 0)")),
    ("net_arch=(64, 2049)", (64, MAX_LAYER_SIZE + 1), (f"(got {MAX_LAYER_SIZE + 1})",)),
    ("net_arch=(64, True)", (64, True), ("(got True)",)),
    ("net_arch=(64.0,)", (64.0,), ("(got 64.0)",)),
    (
        "net_arch of 9 layers",
        (16,) * (MAX_LAYERS + 1),
        (f"at most {MAX_LAYERS} hidden layer sizes (MAX_LAYERS)", f"(got {MAX_LAYERS + 1} sizes)"),
    ),
    ("net_arch=64", 64, ("net_arch must be a list of at most", "(got 64)")),
):
    case(TRAINING, row, f"TrainConfig {name}", lambda _, v=layers: config(net_arch=v), ValueError, *words)
for n_steps, n_envs in ((16, 10**9), (MAX_ROLLOUT_STEPS, 2)):
    case(
        TRAINING,
        row,
        f"TrainConfig n_steps={n_steps} n_envs={n_envs}",
        lambda _, s=n_steps, e=n_envs: config(n_steps=s, n_envs=e),
        ValueError,
        f"must be at most {MAX_ROLLOUT_STEPS} (MAX_ROLLOUT_STEPS)",
        f"{n_steps} * {n_envs} = {n_steps * n_envs}",
    )

case(
    TRAINING,
    row,
    "TrainConfig torch_threads=20000",
    lambda _: config(torch_threads=20_000),
    ValueError,
    f"torch_threads must be at most {MAX_THREADS} (mancala_envs.envs.batch.MAX_THREADS",
    "(got 20000)",
)

for name, fields, words in (
    (
        "batch_size=10**9",
        {"batch_size": 10**9},
        (f"batch_size must be at most {MAX_ROLLOUT_STEPS} (MAX_ROLLOUT_STEPS", "(got 1000000000)"),
    ),
    (
        "pool_size=10**9",
        {"pool_size": 10**9},
        (f"pool_size must be at most {MAX_POOL_SIZE} (MAX_POOL_SIZE;", "(got 1000000000)"),
    ),
    ("pool_size=65", {"pool_size": MAX_POOL_SIZE + 1}, (f"(got {MAX_POOL_SIZE + 1})",)),
    ("seed=2**32", {"seed": MAX_SEED + 1}, (f"seed must be at most {MAX_SEED} (MAX_SEED;", f"(got {MAX_SEED + 1})")),
    ("seed=10**30", {"seed": 10**30}, ("(MAX_SEED;",)),
):
    case(TRAINING, row, f"TrainConfig {name}", lambda _, f=fields: config(**f), ValueError, *words)

row = "`overwrite` not `True`/`False`; `save_path` not a path"
case(
    TRAINING,
    row,
    "TrainConfig overwrite='yes'",
    lambda _: config(overwrite="yes"),
    TypeError,
    "overwrite must be True or False (got 'yes')",
)
case(
    TRAINING,
    row,
    "TrainConfig save_path=3",
    lambda _: config(save_path=3),
    TypeError,
    "save_path must be a file path or None (got int)",
)

# --- the save path --------------------------------------------------------------------------------------------------
row = "`save_path` (`--save`) in a folder that does not exist"
for name, save, words in (
    ("a missing folder", "new/m.zip", ("the folder", "new' does not exist; create it first")),
    ("a missing folder two deep", "new/deeper/m", ("deeper' does not exist",)),
    ("a folder under a file", "m.zip/m.zip", ("m.zip' is not a folder",)),
):
    case(
        TRAINING,
        row,
        f"check_model_path {name}",
        lambda folder, s=save: check_path(folder, s),
        ValueError,
        *words,
        subject=model_folder,
        frozen=content,
    )
case(
    TRAINING,
    row,
    "check_model_path of a folder named models.zip",
    lambda folder: check_path(folder, "models"),
    ValueError,
    "models.zip': it is a folder; pass the path of a file in it",
    subject=lambda: model_folder("models.zip"),
    frozen=content,
)


row = "`save_path` (`--save`) naming a file that exists, without `overwrite`"
for save in ("m.zip", "m"):  # "m" saves to m.zip
    case(
        TRAINING,
        row,
        f"check_model_path {save!r} over m.zip",
        lambda folder, s=save: check_path(folder, s),
        FileExistsError,
        "m.zip' already exists; pass overwrite=True (--overwrite) to replace it",
        subject=model_folder,
        frozen=content,
    )

row = "`mancala-envs train --net-arch 100000000`"
for name, argv, words in (
    ("train --net-arch 100000000", ["--net-arch", "100000000"], ("(MAX_LAYER_SIZE)", "(got 100000000)")),
    ("train --net-arch of 9 layers", ["--net-arch", *["8"] * 9], ("(MAX_LAYERS)",)),
    ("train --n-envs 1000000", ["--n-envs", "1000000"], ("(MAX_ROLLOUT_STEPS)",)),
    ("train --torch-threads 20000", ["--torch-threads", "20000"], ("torch_threads must be at most",)),
    ("train --save into a missing folder", ["--save", "{folder}/new/m.zip"], ("new' does not exist; create it first",)),
    ("train --save onto m.zip", ["--save", "{folder}/m.zip"], ("already exists", "(--overwrite)")),
    ("train --save m (m.zip exists)", ["--save", "{folder}/m"], ("m.zip' already exists",)),
    (
        "train --json into a missing folder",
        ["--save", "{folder}/n.zip", "--json", "{folder}/new/f.json"],
        ("cannot write the output of --json to ", "new' does not exist; create it first"),
    ),
):

    def run(folder: Path, argv: list[str] = argv) -> int:
        return main(["train", *TINY, *(part.format(folder=folder) for part in argv)])

    case(TRAINING, row, name, run, EXIT_2, "mancala-envs: error: ", *words, subject=model_folder, frozen=content)

# --- tournaments ----------------------------------------------------------------------------------------------------
row = "more games in all"
case(
    TOURNAMENT,
    row,
    "games_per_pair=10**14",
    lambda _: tournament(games_per_pair=10**14),
    ValueError,
    f"a tournament plays at most {MAX_GAMES} games (MAX_GAMES); 1 pair(s) x 100000000000000 games per pair",
    "Play fewer games per pair (--games) or fewer agents",
)
case(
    TOURNAMENT,
    row,
    "3 agents x 500001 games",
    lambda _: tournament(agents=["random", "greedy", "alphabeta:1"], games_per_pair=MAX_GAMES // 2 + 1),
    ValueError,
    "3 pair(s) x 500001 games per pair is 1500003",
)
row = "`workers` (`--workers`) below 1 or above `max_workers()`"
for workers, error, words in (
    (
        20_000,
        ValueError,
        (f"workers must be None or an integer from 1 to {max_workers()} (4 per available core", "(got 20000)"),
    ),
    (max_workers() + 1, ValueError, (f"(got {max_workers() + 1})",)),
    (0, ValueError, ("(got 0)",)),
    (2.0, TypeError, ("(got float 2.0)",)),
):
    case(TOURNAMENT, row, f"workers={workers!r}", lambda _, w=workers: tournament(workers=w), error, *words)
row = "`mancala-envs tournament --games 100000000000000`"
for argv, words in (
    (["--games", "100000000000000"], ("at most 1000000 games (MAX_GAMES)",)),
    (["--workers", "20000"], (f"from 1 to {max_workers()}", "(got 20000)")),
):
    case(
        TOURNAMENT,
        row,
        "tournament " + " ".join(argv),
        lambda _, a=argv: main(["tournament", "--game", "kalah", "--no-progress", *a]),
        EXIT_2,
        "mancala-envs tournament: error: ",
        *words,
    )

# --- destinations: nothing creates a missing parent folder (only a folder named itself, as --record DIR) -----------
row = "`tensorboard_log` (`--tensorboard DIR`) or `export_pretrained`"
for name, fields, words in (
    (
        "tensorboard_log two folders deep",
        {"tensorboard_log": "{folder}/new/tb"},
        ("cannot write the TensorBoard logs (--tensorboard) to ", "new/tb': the folder ", f"new' {MISSING}"),
    ),
    ("tensorboard_log onto a file", {"tensorboard_log": "{folder}/m.zip"}, ("m.zip': it is a file, not a folder",)),
    (
        "export_pretrained into a missing folder",
        {"export_pretrained": "{folder}/new/w.safetensors"},
        ("cannot write the exported weights (--export-pretrained) to ", f"new' {MISSING}"),
    ),
    ("export_pretrained folder two deep", {"export_pretrained": "{folder}/new/weights"}, (f"new' {MISSING}",)),
    (
        "export_pretrained folder under a file",
        {"export_pretrained": "{folder}/m.zip/weights"},
        ("m.zip' is not a folder; create it first",),
    ),
    (
        "export_pretrained onto a folder",
        {"export_pretrained": "{folder}/w.safetensors"},
        ("w.safetensors': it is a folder; pass the path of a file in it",),
    ),
):

    def check(folder: Path, fields: dict[str, str] = fields) -> bool:
        return TrainConfig(
            save_path=str(folder / "n.zip"), **{key: value.format(folder=folder) for key, value in fields.items()}
        ).check_paths()

    case(
        TRAINING,
        row,
        f"check_paths {name}",
        check,
        ValueError,
        *words,
        subject=lambda: model_folder("w.safetensors"),
        frozen=content,
    )

row = "more evaluation games in all"
case(
    TRAINING,
    row,
    "TrainConfig eval_games=600000 x 2 opponents",
    lambda _: config(eval_games=MAX_GAMES // 2 + 1),
    ValueError,
    f"the evaluation plays at most {MAX_GAMES} games (MAX_GAMES); 2 opponent(s) x 500001 games per "
    "opponent is 1000002. Play fewer games per opponent (--eval-games) or fewer opponents (--eval-opponents).",
)
case(
    TRAINING,
    row,
    "TrainConfig eval_games=10**14, one opponent",
    lambda _: config(eval_games=10**14, eval_opponents=("random",)),
    ValueError,
    "1 opponent(s) x 100000000000000",
)
case(
    TRAINING,
    row,
    "training.evaluate games=10**7",
    lambda _: evaluate(None, "ouril", games=10**7),
    ValueError,
    "the evaluation plays at most 1000000 games (MAX_GAMES); 2 opponent(s) x 10000000",
)
case(
    TRAINING,
    row,
    "training.evaluate games=-1",
    lambda _: evaluate(None, "ouril", games=-1),
    ValueError,
    "games must be an integer >= 0 (got -1)",
)
case(
    TRAINING,
    row,
    "training.evaluate games=2.0",
    lambda _: evaluate(None, "ouril", games=2.0),
    TypeError,
    "games must be an integer >= 0 (got float 2.0)",
)

row = "`mancala-envs train --tensorboard a/b/tb`"
for name, argv, words in (
    ("train --tensorboard two folders deep", ["--tensorboard", "{folder}/new/tb"], (f"new' {MISSING}",)),
    (
        "train --export-pretrained into a missing folder",
        ["--export-pretrained", "{folder}/new/w.safetensors"],
        ("(--export-pretrained)", f"new' {MISSING}"),
    ),
    ("train --export-pretrained onto a folder", ["--export-pretrained", "{folder}/w.safetensors"], ("it is a folder",)),
    ("train --eval-games 10000000", ["--eval-games", "10000000"], ("(MAX_GAMES)", "(--eval-games)")),
    ("train --seed 4294967296", ["--seed", str(MAX_SEED + 1)], ("(MAX_SEED;",)),
    ("train --pool-size 1000", ["--self-play", "--pool-size", "1000"], ("(MAX_POOL_SIZE;",)),
    ("train --batch-size 1000000", ["--batch-size", "1000000"], ("batch_size must be at most",)),
):

    def run_train(folder: Path, argv: list[str] = argv) -> int:
        return main(["train", *TINY, "--save", f"{folder}/n.zip", *(part.format(folder=folder) for part in argv)])

    case(
        TRAINING,
        row,
        name,
        run_train,
        EXIT_2,
        "mancala-envs: error: ",
        *words,
        subject=lambda: model_folder("w.safetensors"),
        frozen=content,
    )

row = "`record_dir` (`--record DIR`) whose parent folder does not exist"
for name, record, words in (
    ("two folders deep", "new/games", ("cannot write the game records to ", f"new' {MISSING}")),
    ("onto a file", "m.zip", ("m.zip': it is a file, not a folder; pass a folder.",)),
    ("under a file", "m.zip/games", ("m.zip' is not a folder",)),
):
    case(
        TOURNAMENT,
        row,
        f"record_dir {name}",
        lambda folder, r=record: tournament(record_dir=folder / r),
        ValueError,
        *words,
        subject=model_folder,
        frozen=content,
    )
case(
    TOURNAMENT,
    row,
    "tournament --record two folders deep",
    lambda folder: main(
        [
            "tournament",
            "--game",
            "kalah",
            "--games",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--record",
            str(folder / "new" / "games"),
        ]
    ),
    EXIT_2,
    "mancala-envs tournament: error: cannot write the game records to ",
    f"new' {MISSING}",
    subject=model_folder,
    frozen=content,
)

row = "`oracle_evaluate` (`mancala-envs evaluate --games`)"
case(
    TOURNAMENT,
    row,
    "oracle_evaluate games=500001 x 2 opponents",
    lambda _: oracle_evaluate("greedy", "modiar", ["random", "greedy"], games=MAX_GAMES // 2 + 1),
    ValueError,
    "oracle_evaluate plays at most 1000000 games (MAX_GAMES); 2 opponent(s) x 500001 games per opponent is 1000002. "
    "Play fewer games per opponent (--games) or fewer opponents.",
)
case(
    TOURNAMENT,
    row,
    "evaluate --games 10000000",
    lambda _: main(["evaluate", "greedy", "--game", "modiar", "--oracle", "--games", "10000000"]),
    EXIT_2,
    "mancala-envs: error: oracle_evaluate plays at most 1000000 games (MAX_GAMES); 3 opponent(s) x 10000000",
)

row = "`export_pretrained(policy, path)` whose folder does not exist"
for name, path, words in (
    ("a file in a missing folder", "new/w.safetensors", (f"new' {MISSING}",)),
    ("a folder two deep", "new/weights", (f"new' {MISSING}",)),
    ("a folder that is a file", "m.zip", ("m.zip': it is a file, not a folder",)),
):
    case(
        WEIGHTS,
        row,
        f"export_pretrained into {name}",
        lambda folder, p=path: export_pretrained(object(), folder / p, game="ouril", encoding="flat"),
        ValueError,
        *words,
        subject=model_folder,
        frozen=content,
    )
    case(
        WEIGHTS,
        row,
        f"export_destination of {name}",
        lambda folder, p=path: export_destination(folder / p, "ouril"),
        ValueError,
        *words,
        subject=model_folder,
        frozen=content,
    )

row = "`write_animation` (`mancala-envs replay --out`) into a folder that does not exist"
for out in ("new/game.gif", "new/game.mp4", "new/frames/", "new/frames/move-*.png", "m.zip/frames"):
    case(
        RECORDS,
        row,
        f"write_animation to {out}",
        lambda folder, o=out: write_animation(folder / "game.json", f"{folder}/{o}"),
        ValueError,
        "cannot write the animation to ",
        "create it first",
        subject=lambda: record_folder(),
        frozen=content,
    )
case(
    RECORDS,
    "`write_animation`: an empty `out`",
    "replay --fps 1000",
    lambda folder: main(["replay", str(folder / "game.json"), "--out", str(folder / "game.gif"), "--fps", "1000"]),
    EXIT_2,
    "mancala-envs: error: fps must be an integer between 1 and 60 (got 1000); 60 is MAX_FPS",
    subject=lambda: record_folder(),
    frozen=content,
)
case(
    RECORDS,
    row,
    "replay --out new/game.gif",
    lambda folder: main(["replay", str(folder / "game.json"), "--out", str(folder / "new" / "game.gif")]),
    EXIT_2,
    "mancala-envs: error: cannot write the animation to ",
    f"new' {MISSING}",
    subject=lambda: record_folder(),
    frozen=content,
)

row = "`mancala-envs solve --dir a/b`"
for name, where, words in (
    ("two folders deep", "new/tables", (f"new' {MISSING}",)),
    ("onto a file", "m.zip", ("it is a file, not a folder",)),
):
    case(
        TABLES,
        row,
        f"solve --dir {name}",
        lambda folder, w=where: main(
            ["solve", "modiar", "--max-seeds", "2", "--force", "--quiet", "--dir", f"{folder}/{w}"]
        ),
        EXIT_2,
        "mancala-envs: error: cannot write the table (--dir) to ",
        *words,
        subject=model_folder,
        frozen=content,
    )

row = "`mancala-envs train --json PATH`, `tournament --json/--csv/--plot PATH`"
FOLDER_IN_THE_WAY = "it is a folder; pass the path of a file in it."
for name, argv, prog in (
    (
        "train --json onto a folder",
        ["train", *TINY, "--save", "{folder}/n.zip", "--json", "{folder}/out"],
        "mancala-envs",
    ),
    (
        "tournament --csv into a missing folder",
        ["tournament", "--games", "2", "--workers", "1", "--no-progress", "--csv", "{folder}/new/f.csv"],
        "mancala-envs tournament",
    ),
    (
        "tournament --json onto a folder",
        ["tournament", "--games", "2", "--workers", "1", "--no-progress", "--json", "{folder}/out"],
        "mancala-envs tournament",
    ),
    (
        "tournament --plot onto a folder",
        ["tournament", "--games", "2", "--workers", "1", "--no-progress", "--plot", "{folder}/out"],
        "mancala-envs tournament",
    ),
    (
        "evaluate --json onto a folder",
        ["evaluate", "greedy", "--game", "modiar", "--oracle", "--tables", "{folder}", "--json", "{folder}/out"],
        "mancala-envs",
    ),
):
    flag = argv[-2]
    words = (FOLDER_IN_THE_WAY,) if argv[-1].endswith("/out") else (f"new' {MISSING}",)
    case(
        TRAINING,
        row,
        name,
        lambda folder, a=argv: main([part.format(folder=folder) for part in a]),
        EXIT_2,
        f"{prog}: error: cannot write the output of {flag} to ",
        *words,
        subject=lambda: model_folder("out"),
        frozen=content,
    )


def _with_models_file() -> Path:
    """A ``model_folder`` that also holds a file named ``models``, where ``train`` puts its default model."""
    folder = model_folder()
    (folder / "models").write_text("not a folder")
    return folder


def _train_without_save_in(folder: Path) -> int:
    import os

    previous = os.getcwd()
    os.chdir(folder)
    try:
        return main(["train", *TINY])
    finally:
        os.chdir(previous)


case(
    TRAINING,
    row,
    "train without --save where models is a file",
    _train_without_save_in,
    EXIT_2,
    "mancala-envs: error: cannot write the model (its default folder; --save PATH saves elsewhere) to 'models': it "
    "is a file, not a folder; pass a folder.",
    subject=_with_models_file,
    frozen=content,
)
