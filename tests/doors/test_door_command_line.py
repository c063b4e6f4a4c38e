"""The command line's bad input (docs/contract.md, "The command line"): one error line naming the problem
and the help to read, exit status 2, no traceback; ``play_demo`` checks its arguments before playing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mancala_envs.agents import AGENT_NAMES
from mancala_envs.cli import main, play_demo

from support.command_line import run_cli

NAMES = sorted(AGENT_NAMES)

# --- the command line ---------------------------------------------------------------------------------------------
CLI_ERRORS = {
    "unknown game": (["demo", "--game", "chess"], "unknown environment 'chess'; choose one of"),
    "empty game": (["demo", "--game", ""], "unknown environment ''"),
    "unknown agent": (["demo", "--agents", "random", "minimax"], f"unknown agent 'minimax'; choose one of {NAMES}"),
    "one agent": (["demo", "--agents", "random"], "argument --agents: expected 2 arguments"),
    "three agents": (["demo", "--agents", "random", "greedy", "random"], "unrecognized arguments: random"),
    "seed not a number": (["demo", "--seed", "x"], "argument --seed: invalid seed 'x'"),
    "fractional seed": (["demo", "--seed", "1.5"], "invalid seed '1.5'"),
    "negative seed": (["demo", "--seed", "-1"], "invalid seed '-1'"),
    "game without a value": (["demo", "--game"], "argument --game: expected one argument"),
    "no command": ([], "the following arguments are required: command"),
    "unknown command": (["unknown-command"], "invalid choice: 'unknown-command'"),
    "unknown option": (["demo", "--bogus"], "unrecognized arguments: --bogus"),
    "list with an argument": (["list", "extra"], "unrecognized arguments: extra"),
}


@pytest.mark.parametrize(("argv", "text"), list(CLI_ERRORS.values()), ids=list(CLI_ERRORS))
def test_cli_bad_input_is_one_error_line_and_status_2(
    argv: list[str], text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, f"one line expected: {err!r}"
    assert err.startswith("mancala-envs: error: ") and "Traceback" not in err
    assert text in err


def test_cli_usage_errors_point_to_the_right_help(capsys: pytest.CaptureFixture[str]) -> None:
    main(["demo", "--seed", "x"])
    assert "see 'mancala-envs demo --help'" in capsys.readouterr().err
    main(["unknown-command"])
    assert "see 'mancala-envs --help'" in capsys.readouterr().err


def test_cli_help_is_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["demo", "--help"]):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 0
        out, err = capsys.readouterr()
        assert out.startswith("usage: mancala-envs") and err == ""


@pytest.mark.parametrize(
    ("argv", "text"), [CLI_ERRORS["unknown command"], CLI_ERRORS["unknown agent"]], ids=["usage", "runtime"]
)
def test_cli_bad_input_in_a_real_process(argv: list[str], text: str) -> None:
    quiet = {**os.environ, "MANCALA_ENVS_QUIET": "1"}  # a cold cache's compile notice is not this test's subject
    result = subprocess.run(
        [sys.executable, "-m", "mancala_envs.cli", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=quiet,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("mancala-envs: error: ")
    assert text in result.stderr and "Traceback" not in result.stderr


def test_cli_output_cut_short_by_the_reader_is_not_a_traceback() -> None:
    """``mancala-envs demo | head -1``: the reader leaves early; the demo stops without a traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mancala_envs.cli", "demo", "--game", "omweso"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) in (0, 1)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


@pytest.mark.parametrize(
    ("arguments", "error", "text"),
    [
        ((["random"], 0), ValueError, "give two agent names"),
        (("random", 0), ValueError, "give two agent names"),
        ((["random", "greedy", "random"], 0), ValueError, "give two agent names"),
        ((["random", "greedy"], "0"), TypeError, "seed must be an integer"),
        ((["random", "greedy"], -2), ValueError, r"seed must be an integer >= 0 \(got -2\)"),
        ((["random", None], 0), TypeError, "agent name must be a string"),
    ],
    ids=["one agent", "a string", "three agents", "seed as str", "negative seed", "agent None"],
)
def test_play_demo_checks_its_arguments_before_playing(arguments: tuple, error: type, text: str) -> None:
    from io import StringIO

    out = StringIO()
    with pytest.raises(error, match=text):
        play_demo("ouril", *arguments, out=out)
    assert out.getvalue() == ""


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["demo", "--agents", "sb3:{dir}/missing.zip", "random"], "mancala-envs"),
        (
            ["tournament", "--game", "ouril", "--agents", "sb3:{dir}/missing.zip", "random", "--games", "2"],
            "mancala-envs tournament",
        ),
        (["play", "ouril", "--opponent", "sb3:{dir}/missing.zip"], "mancala-envs play"),
    ],
)
def test_a_missing_model_is_named_not_reported_as_a_write(tmp_path: Path, capsys, argv, prog) -> None:
    status, err = run_cli([part.format(dir=tmp_path) for part in argv], capsys)
    assert status == 2
    assert err == f"{prog}: error: no saved model at '{tmp_path}/missing.zip'; pass the .zip that model.save() wrote.\n"


@pytest.mark.parametrize("seed", ["\u0663", "\uff13", "+3", "1_000", "1.5", " 3"])
def test_cli_integers_are_ascii_digits(capsys: pytest.CaptureFixture[str], seed: str) -> None:
    status, err = run_cli(["demo", "--seed", seed], capsys)
    assert status == 2
    assert err == (
        f"mancala-envs: error: argument --seed: invalid seed {seed!r} (use an integer >= 0); "
        "see 'mancala-envs demo --help'.\n"
    )
