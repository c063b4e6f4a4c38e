"""The compile notice and progress: said on standard error before a long compile, never on standard output,
and silenced per process on request.

Each case runs a fresh interpreter with an empty ``NUMBA_CACHE_DIR`` (so numba compiles) and a listener of
its own on numba's compile events that writes ``<END>`` to standard error when the first compile of the
package ends: what the package said before that marker was said before the wait, not after it. Cases that
need no more end the process there (:data:`STOP`).
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

NOTICE = "mancala-envs: numba is compiling the game engine for its first use here"

#: marks the end of the first compile of one of the package's functions, then runs the case's code
MARKED = r"""
import os, sys
from numba.core import event
import mancala_envs
from mancala_envs.engine import jit
{setup}
ended = []
class Mark(event.Listener):
    def on_start(self, event_):
        pass
    def on_end(self, event_):
        if not ended and event_.data["dispatcher"].py_func.__module__.startswith("mancala_envs"):
            ended.append(True)
            sys.stderr.write("<END>\n")
            sys.stderr.flush()
            {after}
event.register("numba:compile", Mark())
{body}
"""

#: what ``after`` is to end the process at the first compile's end
STOP = "os._exit(0)"

KALAH = """
env = mancala_envs.make("kalah_v0")
env.reset(seed=0)
env.step(int(env.last()[0]["action_mask"].argmax()))
"""


def run(code: str, cache: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache`` and no quiet setting but ``environment``'s."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), **environment}
    env.pop("NUMBA_DISABLE_JIT", None)
    if "MANCALA_ENVS_QUIET" not in environment:
        env.pop("MANCALA_ENVS_QUIET", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_notice_names_the_game_and_the_time_before_the_first_compile_ends(tmp_path: Path) -> None:
    done = run(MARKED.format(setup="", body=KALAH, after=STOP), tmp_path)
    assert done.stdout == ""
    before, after = done.stderr.split("<END>\n", 1)
    assert after == ""
    (notice,) = [line for line in before.splitlines() if line.startswith(NOTICE)]
    assert f"(kept in {tmp_path} for later processes), starting with kalah: " in notice
    assert "a game's first use takes about 5-20 s, each further entry point" in notice
    assert "`mancala-envs warm-up` (or mancala_envs.warm_up()) compiles ahead of use" in notice
    assert "MANCALA_ENVS_QUIET=1 silences this" in notice


def test_off_a_terminal_each_game_gets_a_line_and_a_long_piece_a_heartbeat(tmp_path: Path) -> None:
    body = KALAH + KALAH.replace("kalah_v0", "modiar_v0")
    done = run(MARKED.format(setup="jit.HEARTBEAT_SECONDS = 0.2", body=body, after=""), tmp_path)
    assert done.stdout == ""
    lines = done.stderr.replace("<END>\n", "").splitlines()
    assert lines[0].startswith(NOTICE) and "starting with kalah" in lines[0]
    assert sum(line.startswith(NOTICE) for line in lines) == 1  # once per process
    assert all(line.startswith("mancala-envs: ") for line in lines), lines
    assert any(re.fullmatch(r"mancala-envs: still compiling kalah: \w+ \(\d+ s so far\)", line) for line in lines)
    # The second game: a line of its own, naming it, before its pieces compile.
    first_modiar = next(index for index, line in enumerate(lines) if "modiar" in line)
    assert re.fullmatch(r"mancala-envs: compiling modiar: \w+", lines[first_modiar])
    # Nothing left once compiled: the same code again loads every piece and says nothing.
    assert run(MARKED.format(setup="", body=body, after=""), tmp_path).stderr == ""


def test_on_a_terminal_the_progress_line_ticks_and_is_cleared(tmp_path: Path) -> None:
    code = MARKED.format(setup="jit.TICK_SECONDS = 0.1", body=KALAH, after="")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("MANCALA_ENVS_QUIET", None)
    leader, follower = pty.openpty()
    try:
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=follower, env=env)
        os.close(follower)
        chunks = []
        while True:
            ready, _, _ = select.select([leader], [], [], 600)
            if not ready:
                break
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        stdout, _ = child.communicate(timeout=600)
    finally:
        os.close(leader)
    assert child.returncode == 0
    assert stdout == b""
    text = b"".join(chunks).decode()
    assert text.count(NOTICE) == 1
    ticks = re.findall(r"\r\x1b\[Kmancala-envs: compiling kalah: (\w+) \((\d+) s so far\)", text)
    assert len(ticks) >= 2, text
    assert text.rfind("\r\x1b[K") > text.rfind("s so far)")  # the line cleared after the last piece


@pytest.mark.parametrize(
    ("setup", "environment"),
    [
        ("", {"MANCALA_ENVS_QUIET": "1"}),
        ("", {"MANCALA_ENVS_QUIET": "yes"}),
        ("jit.compile_notice(False)", {}),
        ("import logging; logging.getLogger('mancala_envs').setLevel(logging.ERROR)", {}),
        ("import os; os.environ['MANCALA_ENVS_QUIET'] = 'true'", {}),
    ],
    ids=["QUIET=1", "QUIET=yes", "compile_notice(False)", "logger at ERROR", "QUIET set after import"],
)
def test_a_silenced_process_says_nothing(setup: str, environment: dict[str, str], tmp_path: Path) -> None:
    done = run(MARKED.format(setup=setup, body=KALAH, after=STOP), tmp_path, **environment)
    assert done.stdout == ""
    assert done.stderr == "<END>\n"


def test_quiet_zero_is_not_quiet(tmp_path: Path) -> None:
    done = run(MARKED.format(setup="", body=KALAH, after=STOP), tmp_path, MANCALA_ENVS_QUIET="0")
    assert done.stderr.startswith(NOTICE)


def test_warm_up_reports_each_item_as_it_goes(tmp_path: Path) -> None:
    """Each item's line begins before its compiles (the marker of the first one falls inside the PettingZoo
    env's line) and ends with its time; the notice stays silent (warm-up says what it does itself)."""
    body = 'mancala_envs.warm_up(["kalah"], opponents=("random",))'
    done = run(MARKED.format(setup="", body=body, after=""), tmp_path)
    assert done.stdout == ""
    assert NOTICE not in done.stderr
    header, *items = done.stderr.splitlines()
    assert header == (
        "mancala-envs warm-up: 1 game, 3 entry points each (a cold game takes 10-60 s; one already "
        "in numba's cache, about a second)"
    )
    assert re.fullmatch(r"mancala-envs warm-up: kalah \(1/1\): the PettingZoo env\.\.\. <END>", items[0])
    assert re.fullmatch(r"[\d.]+ s", items[1])
    assert re.fullmatch(
        r"mancala-envs warm-up: kalah \(1/1\): opponent random \(agent, single-agent env, vector env\)"
        r"\.\.\. [\d.]+ s",
        items[2],
    )
    assert re.fullmatch(r"mancala-envs warm-up: kalah \(1/1\): batched games and random play\.\.\. [\d.]+ s", items[3])
    assert len(items) == 4
    # warm_up(progress=False) and MANCALA_ENVS_QUIET say nothing.
    quiet = 'mancala_envs.warm_up(["modiar"], opponents=("random",), progress=False)'
    assert run(MARKED.format(setup="", body=quiet, after=STOP), tmp_path).stderr == "<END>\n"
    silenced = run(MARKED.format(setup="", body=body, after=STOP), tmp_path / "other", MANCALA_ENVS_QUIET="1")
    assert silenced.stderr == "<END>\n"


class _BrokenStream:
    """A standard error that refuses every write: a closed pipe (``OSError``) or a closed file (``ValueError``)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def write(self, text: str) -> int:
        raise self.error

    def flush(self) -> None:
        raise self.error

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize(
    "error",
    [BrokenPipeError(32, "Broken pipe"), ValueError("I/O operation on closed file.")],
    ids=["broken pipe", "closed file"],
)
def test_warm_up_on_a_broken_standard_error_still_warms_up(error: Exception, monkeypatch: pytest.MonkeyPatch) -> None:
    """Progress is not worth an error: a standard error that cannot be written (a pager that quit, a closed stream)
    leaves warm_up's work and result as they are, as it does the compile notice's."""
    import mancala_envs

    monkeypatch.delenv("MANCALA_ENVS_QUIET", raising=False)
    monkeypatch.setattr(sys, "stderr", _BrokenStream(error))
    seconds = mancala_envs.warm_up(["kalah"], opponents=("random",))
    assert list(seconds) == ["kalah"] and seconds["kalah"] > 0
