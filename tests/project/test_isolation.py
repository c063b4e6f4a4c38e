"""Tests never read the user's machine: conftest's ``users_folders_isolated`` gives each test an empty tables folder
and the package's own weights, whatever the user built or exported (DEVELOPERS' rule; issue "The first hour")."""

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
