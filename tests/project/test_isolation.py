"""Tests never read the user's machine: conftest's ``users_folders_isolated`` gives each test an empty tables folder,
the package's own weights, an empty working folder (where ``models/`` goes) and an empty temporary folder, whatever
the user built, exported or left there (DEVELOPERS' rule; issues "The first hour" and 31)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import mancala_envs
from mancala_envs.agents.pretrained import weights_dir
from mancala_envs.algorithms.retrograde import table_dir


def test_the_tables_folder_is_the_tests_own_and_empty(users_folders_isolated: Path) -> None:
    folder = table_dir()
    assert folder == users_folders_isolated / "tables"
    assert not folder.exists() or not any(folder.iterdir())
    assert Path.home() / ".cache" not in folder.parents


def test_the_default_tables_folder_under_xdg_is_the_tests_own(
    users_folders_isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MANCALA_ENVS_TABLES")
    assert table_dir() == users_folders_isolated / "cache" / "mancala-envs" / "tables"


def test_the_weights_are_the_packages_own() -> None:
    assert "MANCALA_ENVS_WEIGHTS" not in os.environ
    assert weights_dir() == Path(mancala_envs.__file__).resolve().parent / "agents" / "weights"


@pytest.mark.parametrize("first", [True, False])
def test_a_table_built_by_one_test_is_not_seen_by_the_next(first: bool) -> None:
    """Two tests in a row: the first leaves a file in its tables folder, the second finds its own folder empty."""
    folder = table_dir()
    assert not folder.exists() or not any(folder.iterdir())
    if first:
        folder.mkdir(parents=True)
        (folder / "leftover.json").write_text("{}", encoding="utf-8")


def test_stable_baselines3_logs_go_to_the_sessions_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A model built without a logger folder writes its ``SB3-<time>`` folder into the session's temporary folder,
    not the system's."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.logger import configure

    logger = configure(format_strings=[])
    try:
        assert Path(logger.get_dir()).resolve().is_relative_to(tmp_path_factory.getbasetemp().resolve())
    finally:
        logger.close()


def test_the_working_folder_is_the_tests_own_and_empty(users_folders_isolated: Path) -> None:
    """A model saved to the default ``models/`` folder (``TrainConfig().model_path``, relative) lands in the test's
    own working folder, not in the folder pytest was started from."""
    from mancala_envs.training.trainer import TrainConfig

    assert Path.cwd() == users_folders_isolated / "work"
    assert list(Path.cwd().iterdir()) == []
    assert TrainConfig().model_path.resolve().parent == users_folders_isolated / "work" / "models"


def test_the_temporary_folder_is_the_tests_own(users_folders_isolated: Path) -> None:
    """``tempfile`` here and ``TMPDIR`` for child processes: the test's own ``tmp`` folder."""
    import tempfile

    assert tempfile.gettempdir() == str(users_folders_isolated / "tmp")
    assert os.environ["TMPDIR"] == str(users_folders_isolated / "tmp")
    with tempfile.NamedTemporaryFile() as file:
        assert Path(file.name).parent == users_folders_isolated / "tmp"


@pytest.mark.parametrize("first", [True, False])
def test_files_left_by_one_test_are_not_seen_by_the_next(first: bool) -> None:
    """Two tests in a row: the first leaves a model in ``models/`` and a file in the temporary folder, the second
    finds both folders empty."""
    import tempfile

    assert list(Path.cwd().iterdir()) == []
    assert list(Path(tempfile.gettempdir()).iterdir()) == []
    if first:
        Path("models").mkdir()
        Path("models", "left.zip").write_bytes(b"")
        Path(tempfile.gettempdir(), "left.txt").write_text("left", encoding="utf-8")


def test_the_compile_notice_is_off_in_the_test_processes() -> None:
    """Whether a test compiles first in its process depends on the cache and the order (pytest-xdist): the notice
    would make captured standard error depend on them. It is tested in processes of its own."""
    from mancala_envs.engine.jit import compile_notice

    assert compile_notice(False) is False
