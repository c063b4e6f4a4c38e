"""The long-running commands keep what they make and nothing else (issue 30, items 4, 5, 6 and 10).

- ``train`` leaves nothing in the system's temporary folder (Stable-Baselines3's default logger made an empty
  ``SB3-<time>`` folder there on every run);
- ``--save X`` writes exactly the file it names (``X.zip``) and ``sb3:X`` plays it; it never creates folders and
  never replaces a file without ``--overwrite``; the default path is rewritten by each run, which it says, and
  self-play has its own;
- Ctrl-C in ``train`` saves the model trained so far and says so in one line (status 130, no traceback); in
  ``tournament --json`` the games played so far are written, atomically;
- the tournament's workers print no compile notice over the progress bar and leave Ctrl-C to the main process.

The refusals themselves (sizes, paths) are contract cases in ``tests/support/contract_doors/cli_work.py``. Training runs
are tiny (a few hundred steps on two envs).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from stable_baselines3.common.callbacks import BaseCallback

import mancala_envs
from mancala_envs.agents import make_agent
from mancala_envs.agents.sb3 import load_policy, saved_model_path
from mancala_envs.analysis import tournament
from mancala_envs.analysis.tournament import TournamentInterrupted, TournamentResult, run_tournament
from mancala_envs.cli import main
from mancala_envs.cli.tournament_command import tournament_main
from mancala_envs.training.trainer import TrainConfig, TrainingInterrupted, train

TINY = {
    "opponent": "random",
    "timesteps": 256,
    "n_envs": 2,
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "progress_bar": False,
    "eval_games": 0,
}
TINY_ARGV = [
    "--opponent",
    "random",
    "--timesteps",
    "256",
    "--n-envs",
    "2",
    "--n-steps",
    "64",
    "--batch-size",
    "64",
    "--n-epochs",
    "1",
    "--eval-games",
    "0",
    "--no-progress",
]


@pytest.fixture
def temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary folder, as ``tempfile`` gives it, replaced by an empty folder of the test's (torch's
    own compile cache, which it keeps there once per user, goes elsewhere)."""
    folder = tmp_path / "system-temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "torch-cache"))
    return folder


# --- nothing left behind --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("self_play", [False, True], ids=["against baselines", "self-play"])
def test_train_leaves_the_temporary_folder_empty(temp_folder: Path, tmp_path: Path, self_play: bool) -> None:
    result = train(TrainConfig(save_path=str(tmp_path / "m.zip"), self_play=self_play, **TINY))
    assert result.timesteps == 256
    assert sorted(os.listdir(temp_folder)) == []
    assert {path.name for path in tmp_path.iterdir()} - {"torch-cache"} == {"m.zip", "system-temp"}


def test_train_logs_only_into_the_tensorboard_folder_asked(temp_folder: Path, tmp_path: Path) -> None:
    train(TrainConfig(save_path=str(tmp_path / "m.zip"), tensorboard_log=str(tmp_path / "tb"), **TINY))
    assert os.listdir(temp_folder) == []
    assert [path.name for path in (tmp_path / "tb").iterdir()] == ["MaskablePPO_1"]


# --- the save path ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("save", "written"), [("m", "m.zip"), ("m.zip", "m.zip"), ("m.v2", "m.v2.zip")])
def test_save_writes_exactly_the_file_it_names_and_sb3_plays_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], save: str, written: str
) -> None:
    assert main(["train", *TINY_ARGV, "--save", str(tmp_path / save)]) == 0
    out = capsys.readouterr().out
    assert sorted(path.name for path in tmp_path.iterdir()) == [written]  # no temporary file left beside it
    assert f"Saved the model to {tmp_path / written}\n" in out
    assert out.splitlines()[-1] == f"Result: not evaluated ({tmp_path / written})"
    assert saved_model_path(tmp_path / save) == tmp_path / written
    agent = make_agent(f"sb3:{tmp_path / save}", seed=0)  # the name given to --save plays the file it wrote
    env = mancala_envs.make("ouril_v0")
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"][agent.act(env)] == 1
    assert load_policy(tmp_path / save).game == "ouril_v0"


def test_save_over_a_file_needs_overwrite_and_says_it_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.zip"
    model.write_bytes(b"an earlier model")
    assert main(["train", *TINY_ARGV, "--save", str(tmp_path / "m")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and model.read_bytes() == b"an earlier model"
    assert err == (
        f"mancala-envs: error: {str(model)!r} already exists; pass overwrite=True (--overwrite) to replace "
        "it, or another save path (--save).\n"
    )
    assert main(["train", *TINY_ARGV, "--save", str(tmp_path / "m"), "--overwrite"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == f"The model will replace {model} (--overwrite)"
    assert load_policy(model).game == "ouril_v0"


def test_save_never_creates_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", *TINY_ARGV, "--save", str(tmp_path / "a" / "b" / "m.zip")]) == 2  # not created
    err = capsys.readouterr().err
    assert err == (
        f"mancala-envs: error: cannot save the model to {str(tmp_path / 'a' / 'b' / 'm.zip')!r}: the folder "
        f"{str(tmp_path / 'a' / 'b')!r} does not exist; create it first or pass a save path (--save) in a "
        "folder that exists.\n"
    )
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="does not exist; create it first"):
        train(TrainConfig(save_path=str(tmp_path / "a" / "m.zip"), **TINY))
    assert list(tmp_path.iterdir()) == []


def test_the_default_path_is_rewritten_by_each_run_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    default = Path("models") / "ouril_v0-maskable-ppo.zip"
    assert main(["train", *TINY_ARGV]) == 0
    first = capsys.readouterr().out
    assert "The model will replace" not in first and f"Saved the model to {default}\n" in first
    assert main(["train", *TINY_ARGV, "--seed", "1"]) == 0  # the README's command, run twice
    second = capsys.readouterr().out
    assert second.splitlines()[1] == (
        f"The model will replace {default} (the default path, rewritten by each run; --save PATH keeps one)"
    )
    assert sorted(path.name for path in (tmp_path / "models").iterdir()) == [default.name]


def test_self_play_has_a_default_path_of_its_own() -> None:
    assert TrainConfig().model_path == Path("models") / "ouril_v0-maskable-ppo.zip"
    assert TrainConfig(self_play=True).model_path == Path("models") / "ouril_v0-maskable-ppo-self-play.zip"
    assert TrainConfig(game="mancala/Kalah-v0").model_path.name == "mancala_Kalah-v0-maskable-ppo.zip"


# --- Ctrl-C during training -----------------------------------------------------------------------------------------
class CtrlC(BaseCallback):
    """Raises ``KeyboardInterrupt`` at the first step at or after ``steps`` timesteps, as Ctrl-C would."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.steps:
            raise KeyboardInterrupt
        return True


@pytest.mark.parametrize("self_play", [False, True], ids=["against baselines", "self-play"])
def test_ctrl_c_in_train_saves_the_model_so_far(tmp_path: Path, self_play: bool) -> None:
    config = TrainConfig(save_path=str(tmp_path / "m.zip"), self_play=self_play, **TINY)
    with pytest.raises(TrainingInterrupted) as stopped:
        train(config, callbacks=[CtrlC(130)])
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert stopped.value.path == tmp_path / "m.zip" and stopped.value.timesteps == 130  # two envs: 2 steps a call
    assert str(stopped.value) == f"interrupted after 130 steps: saved the model so far to {tmp_path / 'm.zip'}"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["m.zip"]
    assert load_policy(tmp_path / "m.zip").game == "ouril_v0"


def test_ctrl_c_in_the_train_command_is_one_line_and_status_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mancala_envs.training import trainer as training

    calls = {"n": 0}
    step_wait = training.VecStepTimer.step_wait

    def interrupted_step_wait(self: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 100:
            raise KeyboardInterrupt
        return step_wait(self)

    monkeypatch.setattr(training.VecStepTimer, "step_wait", interrupted_step_wait)
    monkeypatch.setenv("MANCALA_ENVS_QUIET", "1")  # a cold cache: the warm-up says it compiles, not this test's subject
    assert main(["train", *TINY_ARGV, "--save", str(tmp_path / "m.zip")]) == 130
    out, err = capsys.readouterr()
    assert err == ""
    model = tmp_path / "m.zip"  # 8 warm-up steps, then 91 steps of training (2 envs) before the 100th
    assert out.splitlines()[-1] == (
        f"Interrupted after 182 of 256 steps: saved the model so far to {model} (sb3:{model} plays it)"
    )
    assert load_policy(tmp_path / "m.zip").game == "ouril_v0"


def test_ctrl_c_before_training_begins_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mancala_envs.training import trainer as training

    def interrupted_warm_up(*_: Any, **__: Any) -> float:
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "warm_up", interrupted_warm_up)
    assert main(["train", *TINY_ARGV, "--save", str(tmp_path / "m.zip")]) == 130
    out, err = capsys.readouterr()
    assert err == "" and out.splitlines()[-1] == "Interrupted before training began: nothing was saved"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["the evaluation", "loading the opponents", "the save"])
def test_ctrl_c_outside_the_training_itself_is_one_line_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """Ctrl-C in the train command but outside ``train()`` (the evaluation after the save, the checks before it)
    returned 130 with nothing on screen."""
    from mancala_envs import agents
    from mancala_envs.training import trainer as training

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    if where == "the evaluation":
        monkeypatch.setattr(training, "evaluate", interrupted)
    elif where == "the save":  # the training done, Ctrl-C while it is saved (a second Ctrl-C lands there too)
        monkeypatch.setattr(training, "save_model", interrupted)
    else:
        monkeypatch.setattr(agents, "make_agent", interrupted)
    argv = [
        *TINY_ARGV[:-3],
        "--eval-games",
        "2",
        "--no-progress",
        "--save",
        str(tmp_path / "m.zip"),
        "--json",
        str(tmp_path / "f.json"),
    ]
    assert main(["train", *argv]) == 130
    out, err = capsys.readouterr()
    assert err == ""
    model = tmp_path / "m.zip"
    if where == "the evaluation":
        assert out.splitlines()[-1] == (
            f"Interrupted after the training: the model is saved at {model} (sb3:{model} "
            "plays it); the evaluation was not written"
        )
        assert sorted(path.name for path in tmp_path.iterdir()) == ["m.zip"]
    elif where == "the save":
        assert out.splitlines()[-1] == (
            f"Interrupted while saving: this run saved no model ({model} is as it was: "
            "files are replaced whole or not at all)"
        )
        assert list(tmp_path.iterdir()) == []  # no temporary file left
    else:
        assert out.splitlines() == ["Interrupted before training began: nothing was saved"]
        assert list(tmp_path.iterdir()) == []


def test_a_real_sigint_stops_train_with_the_model_saved(tmp_path: Path) -> None:
    """One real Ctrl-C (SIGINT) to ``python -m mancala_envs train``, sent once training has begun (the TensorBoard
    folder appears when ``learn`` starts)."""
    model, board = tmp_path / "m.zip", tmp_path / "tb"
    command = [
        sys.executable,
        "-m",
        "mancala_envs",
        "train",
        *TINY_ARGV,
        "--timesteps",
        "100000000",
        "--save",
        str(model),
        "--tensorboard",
        str(board),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp_path)}
    )
    try:
        deadline = time.monotonic() + 240
        while not board.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    last = out.splitlines()[-1]
    assert last.startswith("Interrupted after ") and last.endswith(
        f" of 100000000 steps: saved the model so far to {model} (sb3:{model} plays it)"
    )
    assert load_policy(model).game == "ouril_v0"
    left = {path.name for path in tmp_path.iterdir() if not path.name.startswith("torchinductor_")}  # torch's cache
    assert left == {"m.zip", "tb"}


# --- tournaments ----------------------------------------------------------------------------------------------------
def interrupt_after(monkeypatch: pytest.MonkeyPatch, calls: int) -> None:
    """``play_games`` (in this process: ``workers=1``) raises ``KeyboardInterrupt`` on its ``calls``-th call."""
    play_games = tournament.play_games
    count = {"n": 0}

    def interrupted(*arguments: Any, **keywords: Any) -> Any:
        count["n"] += 1
        if count["n"] == calls:
            raise KeyboardInterrupt
        return play_games(*arguments, **keywords)

    monkeypatch.setattr(tournament, "play_games", interrupted)


def test_ctrl_c_in_a_tournament_keeps_the_games_played(monkeypatch: pytest.MonkeyPatch) -> None:
    full = run_tournament("kalah", ["random", "greedy", "alphabeta:1"], 4, seed=3, workers=1, progress=False)
    interrupt_after(monkeypatch, 7)  # one game a call with one worker: six games played
    with pytest.raises(TournamentInterrupted) as stopped:
        run_tournament("kalah", ["random", "greedy", "alphabeta:1"], 4, seed=3, workers=1, progress=False)
    assert isinstance(stopped.value, KeyboardInterrupt) and str(stopped.value) == "interrupted after 6 games"
    partial = stopped.value.result
    assert partial.interrupted and partial.games == full.games[:6] and partial.games_per_pair == 4


def test_ctrl_c_in_tournament_json_writes_the_games_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    full = run_tournament("kalah", ["random", "greedy"], 6, seed=2, workers=1, progress=False)
    interrupt_after(monkeypatch, 4)
    path = tmp_path / "t.json"
    argv = [
        "--game",
        "kalah",
        "--agents",
        "random",
        "greedy",
        "--games",
        "6",
        "--seed",
        "2",
        "--workers",
        "1",
        "--no-progress",
        "--json",
        str(path),
        "--csv",
        str(tmp_path / "t.csv"),
    ]
    assert tournament_main(argv) == 130
    out, err = capsys.readouterr()
    assert out == f"Interrupted after 3 of 6 games: wrote them to {path}\n" and err == ""
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["interrupted"] is True and "ratings" not in data and len(data["games"]) == 3
    loaded = TournamentResult.load_json(path)
    assert loaded.interrupted and loaded.games == full.games[:3]
    assert sorted(item.name for item in tmp_path.iterdir()) == ["t.json"]  # no CSV of a partial tournament
    assert "interrupted" not in full.to_dict() and not TournamentResult.from_dict(full.to_dict()).interrupted


def test_ctrl_c_in_a_tournament_without_json_says_nothing_was_written(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    interrupt_after(monkeypatch, 1)
    argv = ["--game", "kalah", "--agents", "random", "greedy", "--games", "6", "--workers", "1", "--no-progress"]
    assert tournament_main(argv) == 130
    assert (
        capsys.readouterr().out == "Interrupted after 0 of 6 games; nothing written (--json PATH keeps the games "
        "played)\n"
    )


class InterruptingBar:
    """A progress bar whose second update is a Ctrl-C (the main process's, while the workers play)."""

    def __init__(self, *_: Any) -> None:
        self.updates: list[int] = []

    def update(self, games: int) -> None:
        self.updates.append(games)
        if len(self.updates) == 2:
            raise KeyboardInterrupt

    def close(self) -> None:
        pass


def test_ctrl_c_with_workers_keeps_the_finished_tasks_and_stops_the_workers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import multiprocessing

    bars: list[InterruptingBar] = []
    monkeypatch.setattr(tournament, "_progress_bar", lambda *a: bars.append(InterruptingBar()) or bars[-1])
    before = set(multiprocessing.active_children())
    start = time.monotonic()
    with pytest.raises(TournamentInterrupted) as stopped:
        run_tournament("kalah", ["random", "greedy"], 400, seed=1, workers=2, progress=True)
    games = stopped.value.result.games
    assert len(games) == sum(bars[0].updates) and len(games) >= 1
    full = {
        (game.pair, game.game): game
        for game in run_tournament("kalah", ["random", "greedy"], 400, seed=1, workers=1, progress=False).games
    }
    assert all(full[(game.pair, game.game)] == game for game in games)
    assert set(multiprocessing.active_children()) <= before  # the workers are gone
    assert time.monotonic() - start < 120
    err = capsys.readouterr().err
    assert err.count("Starting 2 worker processes:") == 1 and "numba is compiling" not in err


def test_workers_are_quiet_and_leave_ctrl_c_to_the_main_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker starts with the compile notice off (it printed over the bar) and Ctrl-C ignored."""
    import concurrent.futures
    import multiprocessing

    started: list[Any] = []
    executor = concurrent.futures.ProcessPoolExecutor

    class Recording(executor):  # type: ignore[misc, valid-type]
        def __init__(self, *arguments: Any, **keywords: Any) -> None:
            started.append(keywords.get("initializer"))
            super().__init__(*arguments, **keywords)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Recording)
    run_tournament("kalah", ["random", "greedy"], 2, workers=2, progress=False)
    (initializer,) = started
    assert initializer is not None
    from mancala_envs.engine.jit import compile_notice

    with executor(1, mp_context=multiprocessing.get_context("spawn"), initializer=initializer) as pool:
        assert pool.submit(compile_notice, False).result() is False  # the notice was off
        assert pool.submit(signal.getsignal, signal.SIGINT).result() == signal.SIG_IGN


# --- Ctrl-C in the other long commands: one line of what was kept, status 130, no traceback ------------------------
def interrupted(*_: Any, **__: Any) -> Any:
    raise KeyboardInterrupt


CTRL_C = [
    # (command line, {folder}: the test's folder), (module, name) that Ctrl-C stops, the one line printed
    (
        ["solve", "modiar", "--max-seeds", "2", "--force", "--dir", "{folder}/tables"],
        ("mancala_envs.cli.solve_command", "build_table"),
        "Interrupted: nothing was saved (the table is saved once every layer is solved); run the "
        "command again to build it",
    ),
    (
        ["evaluate", "greedy", "--game", "modiar", "--oracle", "--json", "{folder}/report.json"],
        ("mancala_envs.analysis.oracle", "oracle_evaluate"),
        "Interrupted: nothing was written (the report is made once every game is played)",
    ),
    (
        ["warm-up", "--games", "modiar"],
        ("mancala_envs.training.warm_up", "warm_up"),
        "Interrupted: what was compiled so far stays in numba's cache; run mancala-envs warm-up again for the rest",
    ),
    (
        ["demo", "--game", "modiar", "--record", "{folder}/game.json"],
        ("mancala_envs", "make"),
        "Interrupted: the game was not recorded",
    ),
    (["demo", "--game", "modiar"], ("mancala_envs", "make"), "Interrupted: nothing was written"),
    (
        ["replay", "{folder}/game.json"],
        ("mancala_envs.cli.replay_command", "print_replay"),
        "Interrupted: nothing was written",
    ),
    (
        ["replay", "{folder}/game.json", "--out", "{folder}/game.gif"],
        ("mancala_envs.envs.records", "write_animation"),
        "Interrupted: the animation at {folder}/game.gif may be incomplete; run the command again",
    ),
    (
        [
            "tournament",
            "--game",
            "modiar",
            "--games",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--json",
            "{folder}/t.json",
        ],
        ("mancala_envs.agents", "make_agent"),
        "Interrupted before the games began: nothing was written",
    ),
]


@pytest.mark.parametrize(("argv", "stopped", "line"), CTRL_C, ids=[" ".join(case[0][:2]) for case in CTRL_C])
def test_ctrl_c_in_a_long_command_says_what_was_kept_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    stopped: tuple[str, str],
    line: str,
) -> None:
    import importlib
    import io

    from mancala_envs.cli import play_demo
    from mancala_envs.engine.jit import CACHING

    play_demo("modiar", ["random", "greedy"], 0, out=io.StringIO(), record=tmp_path / "game.json")
    before = sorted(path.name for path in tmp_path.iterdir())
    monkeypatch.setattr(importlib.import_module(stopped[0]), stopped[1], interrupted)
    assert main([part.format(folder=tmp_path) for part in argv]) == 130
    out, err = capsys.readouterr()
    if argv[0] == "warm-up" and not CACHING:
        line = "Interrupted: numba could not write a cache here, so nothing was kept"
    assert err == "" and out.splitlines()[-1] == line.format(folder=tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == before  # nothing half-written beside the record


# --- every destination is checked before the work ---------------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--export-pretrained", "--tensorboard"])
def test_train_checks_every_destination_before_it_trains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    target = tmp_path / "new" / ("w.safetensors" if flag == "--export-pretrained" else "tb")
    assert main(["train", *TINY_ARGV, "--save", str(tmp_path / "m.zip"), flag, str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # not even "Training MaskablePPO ...": nothing was trained
    assert err.startswith("mancala-envs: error: cannot write the ") and err.count("\n") == 1
    assert err.endswith(
        f"{str(tmp_path / 'new')!r} does not exist; create it first (nothing creates missing folders).\n"
    )
    assert list(tmp_path.iterdir()) == []


TOURNAMENT_ARGV = ["tournament", "--games", "2", "--workers", "1", "--no-progress"]


def _in_the_way(folder: Path) -> Path:
    (folder / "taken").mkdir()
    return folder / "taken"


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("train --json", ["train", *TINY_ARGV, "--save", "{folder}/m.zip", "--json", "{folder}/taken"]),
        ("tournament --json", [*TOURNAMENT_ARGV, "--json", "{folder}/taken"]),
        ("tournament --csv", [*TOURNAMENT_ARGV, "--csv", "{folder}/taken"]),
        (
            "evaluate --json",
            ["evaluate", "greedy", "--oracle", "--games", "2", "--tables", "{folder}", "--json", "{folder}/taken"],
        ),
    ],
)
def test_an_output_file_that_is_a_folder_is_refused_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, argv: list[str]
) -> None:
    """A folder where the output file goes was found only when the file was written, after every game (with a
    message naming a temporary file) or after the whole training; it is refused first, in one line."""
    _in_the_way(tmp_path)
    status = main([part.format(folder=tmp_path) for part in argv])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""  # nothing trained, no game played
    flag = argv[argv.index("{folder}/taken") - 1]
    assert (
        err.endswith(
            f"cannot write the output of {flag} to {str(tmp_path / 'taken')!r}: it is a folder; pass the "
            "path of a file in it.\n"
        )
        and err.count("\n") == 1
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["taken"]


def test_the_default_models_folder_is_checked_before_training(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file named ``models`` in the working folder made the save fail after the training, losing the model."""
    monkeypatch.chdir(tmp_path)
    Path("models").write_text("not a folder")
    assert main(["train", *TINY_ARGV]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # not even "Training MaskablePPO ...": nothing was trained
    assert err == (
        "mancala-envs: error: cannot write the model (its default folder; --save PATH saves elsewhere) to "
        "'models': it is a file, not a folder; pass a folder.\n"
    )
    assert Path("models").read_text() == "not a folder"


def test_only_the_folder_named_is_created(tmp_path: Path) -> None:
    """``--record DIR``, ``--tensorboard DIR``, an ``--export-pretrained`` folder: ``DIR`` itself may be made (as
    ``train`` makes its default ``models/``), never a missing parent."""
    from mancala_envs.common.files import check_destination

    for name in ("games", "tb", "weights"):
        assert check_destination(tmp_path / name, "it", folder=True) == tmp_path / name
        assert not (tmp_path / name).exists()  # checking creates nothing
    run_tournament("kalah", ["random", "greedy"], 2, workers=1, progress=False, record_dir=tmp_path / "games")
    assert sorted(path.name for path in (tmp_path / "games").iterdir()) == [
        "pair-00-game-0000.json",
        "pair-00-game-0001.json",
    ]
    with pytest.raises(ValueError, match="does not exist; create it first"):
        run_tournament("kalah", ["random", "greedy"], 2, workers=1, progress=False, record_dir=tmp_path / "a" / "b")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games"]


def numba_wrapped_ctrl_c() -> SystemError:
    """What numba raises when Ctrl-C lands while compiled code calls back into Python: ``SystemError``s, each
    caused by the next, the last by the ``KeyboardInterrupt``."""
    error: BaseException = KeyboardInterrupt()
    for _ in range(3):
        wrapped = SystemError("<function _numba_unpickle> returned a result with an exception set")
        wrapped.__cause__ = error
        error = wrapped
    return error  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("error", "ctrl_c"),
    [
        (KeyboardInterrupt(), True),
        (numba_wrapped_ctrl_c(), True),
        (SystemError("a real fault"), False),
        (ValueError("bad"), False),
    ],
    ids=["KeyboardInterrupt", "numba's SystemError from Ctrl-C", "another SystemError", "ValueError"],
)
def test_is_ctrl_c(error: BaseException, ctrl_c: bool) -> None:
    assert tournament.is_ctrl_c(error) is ctrl_c


class CompiledCtrlC(CtrlC):
    """Ctrl-C as it comes out of compiled code: numba's ``SystemError`` caused by the ``KeyboardInterrupt``."""

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.steps:
            raise numba_wrapped_ctrl_c()
        return True


def test_ctrl_c_inside_compiled_code_still_saves_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = TrainConfig(save_path=str(tmp_path / "m.zip"), **TINY)
    with pytest.raises(TrainingInterrupted) as stopped:
        train(config, callbacks=[CompiledCtrlC(130)])
    assert stopped.value.path == tmp_path / "m.zip" and load_policy(tmp_path / "m.zip").game == "ouril_v0"
    interrupt = numba_wrapped_ctrl_c()
    play_games = tournament.play_games
    calls = {"n": 0}

    def compiled_interrupt(*arguments: Any, **keywords: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise interrupt
        return play_games(*arguments, **keywords)

    monkeypatch.setattr(tournament, "play_games", compiled_interrupt)
    with pytest.raises(TournamentInterrupted) as played:
        run_tournament("kalah", ["random", "greedy"], 4, workers=1, progress=False)
    assert len(played.value.result.games) == 1
    with pytest.raises(SystemError, match="a real fault"):  # a real fault is not taken for Ctrl-C
        train(TrainConfig(save_path=str(tmp_path / "f.zip"), **TINY), callbacks=[FaultyStep()])
    assert not (tmp_path / "f.zip").exists()


class FaultyStep(BaseCallback):
    def _on_step(self) -> bool:
        raise SystemError("a real fault")


# the Ctrl-C line of every command but train, as numba reports it from inside compiled code (a SystemError)
@pytest.mark.parametrize(("argv", "stopped", "line"), CTRL_C[:3], ids=[" ".join(case[0][:2]) for case in CTRL_C[:3]])
def test_ctrl_c_inside_compiled_code_is_ctrl_c_in_every_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    stopped: tuple[str, str],
    line: str,
) -> None:
    import importlib

    from mancala_envs.engine.jit import CACHING

    def compiled_interrupt(*_: Any, **__: Any) -> Any:
        raise numba_wrapped_ctrl_c()

    monkeypatch.setattr(importlib.import_module(stopped[0]), stopped[1], compiled_interrupt)
    assert main([part.format(folder=tmp_path) for part in argv]) == 130
    out, err = capsys.readouterr()
    if argv[0] == "warm-up" and not CACHING:
        line = "Interrupted: numba could not write a cache here, so nothing was kept"
    assert err == "" and out.splitlines()[-1] == line.format(folder=tmp_path)


def test_a_real_sigint_stops_solve_in_one_line(tmp_path: Path) -> None:
    """One real Ctrl-C (SIGINT) to ``python -m mancala_envs solve``, sent once the first layer is solved."""
    command = [sys.executable, "-m", "mancala_envs", "solve", "modiar", "--force", "--dir", str(tmp_path / "tables")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()  # type: ignore[union-attr]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert first.startswith("  0 seeds on the board: solved")
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert out.splitlines()[-1] == (
        "Interrupted: nothing was saved (the table is saved once every layer is solved); "
        "run the command again to build it"
    )
    assert not (tmp_path / "tables").exists() or list((tmp_path / "tables").iterdir()) == []


def _workers(pid: int) -> list[int]:
    """The spawned workers of ``pid`` (Linux's ``/proc/PID/task/*/children``; not the resource tracker)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(int(child))
    return found


def _ignores_sigint(pid: int) -> bool:
    """Whether SIGINT cannot interrupt ``pid``: blocked or ignored (``/proc/PID/status``)."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    masks = [int(line.split()[1], 16) for line in lines if line.startswith(("SigBlk:", "SigIgn:"))]
    return any(mask & (1 << (signal.SIGINT - 1)) for mask in masks)


def test_a_terminal_ctrl_c_while_the_workers_start_is_one_line(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group: the workers, still importing the library (seconds),
    each printed a ``KeyboardInterrupt`` traceback before their own handler was set. Now they start with SIGINT
    blocked (seen in ``/proc`` the moment they appear), and the command says one line."""
    script = tmp_path / "mancala-envs"  # as the console script runs it: each spawned worker runs the script again
    script.write_text(
        "import sys\nfrom mancala_envs.cli import main\n\nif __name__ == '__main__':\n    sys.exit(main())\n"
    )
    command = [
        sys.executable,
        str(script),
        "tournament",
        "--game",
        "kalah",
        "--games",
        "400",
        "--workers",
        "2",
        "--no-progress",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while len(workers := _workers(process.pid)) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        ignoring = [_ignores_sigint(worker) for worker in workers]  # at once: long before their initializer runs
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert ignoring == [True, True]
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert out.splitlines()[-1].startswith("Interrupted ")
