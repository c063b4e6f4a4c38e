"""Test-session settings (pygame windows go to SDL's dummy video driver: no display needed) and shared fixtures.

Run over every core with ``python -m pytest -n auto`` (pytest-xdist, the test extra). The workers share numba's
compiled cache on disk; before they start on the whole suite, :func:`pytest_sessionstart` compiles every game's
entry points once, spread over as many processes as there are workers (``mancala_envs.warm_up``), so that two
workers do not compile the same kernel at the same time. Long property, table and soak tests are marked ``slow``
(``-m "not slow"`` leaves them out; README's test command and CI run them after the others, ``-m slow``).
"""

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mancala_envs.engine.jit import QUIET_VARIABLE, compile_notice
from mancala_envs.games import game_classes
from mancala_envs.views.single_agent_env import SingleAgentEnv

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def pytest_configure(config: pytest.Config) -> None:
    """No compile notice in the test processes themselves: whether a test is the first of its process to compile a
    kernel depends on the cache and on which worker ran what before, so the notice would make captured standard
    error depend on them. The notice is tested in processes of its own (``tests/engine/test_compile_progress.py``,
    ``tests/engine/test_readonly_install.py``), whose environment does not carry this switch."""
    compile_notice(False)


def _xdist_workers(config: pytest.Config) -> int:
    """How many pytest-xdist workers this session starts (0 without ``-n``, and in a worker itself)."""
    if hasattr(config, "workerinput"):
        return 0
    workers = getattr(config.option, "numprocesses", None) or 0
    return int(workers)


def pytest_sessionstart(session: pytest.Session) -> None:
    """The whole suite with workers (``python -m pytest -n auto``, no paths given): every game's entry points
    compiled into numba's cache once, before the workers start, one game per process and as many processes at once
    as there are workers (a cold cache: about a minute per game on one core; a warm one: a few seconds in all).
    Without it, the workers' first tests of a game compiled it in each worker at once. A run of chosen files
    compiles only what its tests use, as without workers; nothing is compiled with ``NUMBA_DISABLE_JIT=1``."""
    workers = _xdist_workers(session.config)
    whole_suite = session.config.args_source == pytest.Config.ArgsSource.TESTPATHS
    if workers < 2 or not whole_suite or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return
    start = time.perf_counter()
    environment = {**os.environ, QUIET_VARIABLE: "1"}
    waiting = [game_class.name for game_class in game_classes()]
    running: list[tuple[str, subprocess.Popen[str]]] = []
    failed: list[str] = []
    while waiting or running:
        while waiting and len(running) < workers:
            game = waiting.pop(0)
            code = f"import mancala_envs; mancala_envs.warm_up([{game!r}], progress=False)"
            process = subprocess.Popen(
                [sys.executable, "-c", code],
                env=environment,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            running.append((game, process))
        time.sleep(0.1)
        for game, process in list(running):
            if process.poll() is not None:
                running.remove((game, process))
                output = process.communicate()[0]
                if process.returncode != 0:
                    failed.append(f"{game}: status {process.returncode}\n{output[-3000:]}")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    if failed:  # the tests that use these games fail on their own, each with its test's name: the run goes on
        reporter.write_line("warming numba's cache up failed (the tests compile what they need):\n" + "\n".join(failed))
    reporter.write_line(
        f"numba's cache warmed up for {len(game_classes()) - len(failed)} of {len(game_classes())} games in "
        f"{time.perf_counter() - start:.0f} s ({workers} processes)"
    )


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_the_sessions_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Stable-Baselines3 makes a logger folder (``SB3-<time>`` in the system temp folder) for every model built
    without one; point it at the session's own temporary folder, so the test run leaves nothing behind."""
    previous = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    if previous is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = previous


@pytest.fixture(autouse=True)
def users_folders_isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets folders of its own in place of the user's, so that nothing on this machine changes a result:

    - an empty tables folder (``MANCALA_ENVS_TABLES``, and ``XDG_CACHE_HOME`` for the default under it): tables
      built by ``mancala-envs solve`` are not seen; a test that needs one sets ``MANCALA_ENVS_TABLES`` itself
      (``tables_dir``);
    - the package's own weights (``MANCALA_ENVS_WEIGHTS`` unset): weights exported here are not loaded;
    - an empty working folder (``work``): a model saved to the default ``models/`` folder, Hydra's run folders and
      anything else written to a relative path land there, not in the folder pytest was started from;
    - an empty temporary folder (``tmp``: ``TMPDIR`` for child processes, :func:`tempfile.gettempdir` here).

    numba's compiled cache is left alone: it is keyed by the source, so it changes no result, only the time.
    Returns the test's user folder (holding ``tables``, ``cache``, ``work`` and ``tmp``)."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(home / "tables"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.delenv("MANCALA_ENVS_WEIGHTS", raising=False)
    (home / "work").mkdir()
    monkeypatch.chdir(home / "work")
    (home / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(home / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(home / "tmp"))
    return home


@pytest.fixture(scope="session")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MaskablePPO trained for one update (16 steps) on the raw int32 observation of Ouril, saved as m.zip
    (the saved model that the opponent and agent tests load)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        "MlpPolicy",
        SingleAgentEnv("ouril_v0", opponent="random"),
        n_steps=16,
        batch_size=16,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )
    model.learn(16)
    path = tmp_path_factory.mktemp("model") / "m.zip"
    model.save(path)
    return path


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the whole Modiar table, for tests that set ``MANCALA_ENVS_TABLES`` to it
    (``monkeypatch.setenv``) or pass it as ``folder``. Built once per test run (about a minute): with pytest-xdist's
    workers, the first worker that needs it builds it in the run's shared temporary folder while the others wait
    for it (a lock file), instead of each building its own."""
    import fcntl

    from mancala_envs.algorithms.retrograde import build_table, save_table
    from mancala_envs.envs.registration import make_game, resolve_env_id

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each worker's own
    folder = shared / "modiar-tables"
    with open(shared / "modiar-tables.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = shared / "modiar-tables.built"  # beside the folder: the folder holds the table's files only
        if not built.exists():
            folder.mkdir(exist_ok=True)
            save_table(build_table(make_game(resolve_env_id("modiar"))), folder)
            built.write_text("", encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def modiar_table(tables_dir: Path):
    """The whole Modiar table, loaded (memory-mapped, hash-checked) from :func:`tables_dir`."""
    from mancala_envs.algorithms.retrograde import load_table
    from mancala_envs.envs.registration import make_game, resolve_env_id

    return load_table(make_game(resolve_env_id("modiar")), folder=tables_dir)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """The system's headless Chromium, driven by Playwright (``support.browser``): one per test process, closed at
    its end. Skipped, saying how to install it, on a machine without Chromium (CI installs it and fails on a skip)."""
    from support.browser import NO_CHROMIUM, chromium_executable

    executable = chromium_executable()
    if executable is None:
        pytest.skip(NO_CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs Playwright: pip install -e '.[test]'")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()
