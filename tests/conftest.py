"""Test-session settings (pygame windows go to SDL's dummy video driver: no display needed) and shared fixtures."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mancala_envs.views.single_agent_env import SingleAgentEnv

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


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
    """Every test gets folders of its own in place of the user's: an empty tables folder (``MANCALA_ENVS_TABLES``,
    and ``XDG_CACHE_HOME`` for the default under it) and the package's own weights (``MANCALA_ENVS_WEIGHTS``
    unset), so that tables built by ``mancala-envs solve`` or weights exported on this machine change no result.
    A test that needs a table sets ``MANCALA_ENVS_TABLES`` itself (``tables_dir``). numba's compiled cache is left
    alone: it is keyed by the source, so it changes no result, only the time. Returns the test's user folder."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(home / "tables"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.delenv("MANCALA_ENVS_WEIGHTS", raising=False)
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
    """A folder holding the whole Modiar table (built once per session, about a minute), for tests that set
    ``MANCALA_ENVS_TABLES`` to it (``monkeypatch.setenv``) or pass it as ``folder``."""
    from mancala_envs.algorithms.retrograde import build_table, save_table
    from mancala_envs.envs.registration import make_game, resolve_env_id

    folder = tmp_path_factory.mktemp("tables")
    save_table(build_table(make_game(resolve_env_id("modiar"))), folder)
    return folder


@pytest.fixture(scope="session")
def modiar_table(tables_dir: Path):
    """The whole Modiar table, loaded (memory-mapped, hash-checked) from :func:`tables_dir`."""
    from mancala_envs.algorithms.retrograde import load_table
    from mancala_envs.envs.registration import make_game, resolve_env_id

    return load_table(make_game(resolve_env_id("modiar")), folder=tables_dir)
