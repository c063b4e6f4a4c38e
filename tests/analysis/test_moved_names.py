"""Names that moved to modules of their own keep their old import paths: one object, and a warning where the old
path was documented."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_oracle_callback_old_path_warns_and_is_the_new_class() -> None:
    pytest.importorskip("stable_baselines3")
    from mancala_envs.analysis import oracle
    from mancala_envs.analysis.oracle_callback import OracleCallback

    with pytest.warns(DeprecationWarning) as caught:
        old = oracle.OracleCallback
    assert old is OracleCallback
    assert OracleCallback.__module__ == "mancala_envs.analysis.oracle_callback"
    message = str(caught[0].message)
    assert "mancala_envs.analysis.oracle.OracleCallback moved to" in message
    assert "mancala_envs.analysis.oracle_callback.OracleCallback" in message
    assert "0.3.0" in message


def test_oracle_module_has_no_other_lazy_names() -> None:
    from mancala_envs.analysis import oracle

    with pytest.raises(AttributeError, match="has no attribute 'NoSuchCallback'"):
        _ = oracle.NoSuchCallback


def test_ratings_are_fitted_by_one_function_whatever_the_path() -> None:
    ratings = importlib.import_module("mancala_envs.analysis.ratings")
    tournament = importlib.import_module("mancala_envs.analysis.tournament")
    assert tournament.fit_ratings is ratings.fit_ratings
    assert tournament.Ratings is ratings.Ratings
    assert tournament.ELO_PER_UNIT == ratings.ELO_PER_UNIT
    assert ratings.fit_ratings.__module__ == "mancala_envs.analysis.ratings"


def test_the_greedy_rule_is_one_template_whatever_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    greedy = importlib.import_module("mancala_envs.algorithms.greedy")
    playouts = importlib.import_module("mancala_envs.algorithms.playouts")
    assert playouts.greedy_action is greedy.greedy_action
    assert playouts.greedy_gains is greedy.greedy_gains
    assert greedy.greedy_action.__module__ == "mancala_envs.algorithms.greedy"
    monkeypatch.delitem(sys.modules, "mancala_envs.rollout", raising=False)  # imported afresh: it warns
    with pytest.warns(DeprecationWarning, match=r"mancala_envs\.rollout moved to mancala_envs\.algorithms\.playouts"):
        rollout = importlib.import_module("mancala_envs.rollout")
    assert rollout.greedy_action is greedy.greedy_action


def test_every_subcommand_has_its_own_module() -> None:
    from mancala_envs import cli

    modules = {
        "demo": "demo_command",
        "replay": "replay_command",
        "list": "list_command",
        "warm-up": "warm_up_command",
        "train": "train_command",
        "ladder": "ladder_command",
        "serve": "serve_command",
    }
    assert set(cli.SUBCOMMANDS) == set(modules)
    for command, module in modules.items():
        subcommand = cli.SUBCOMMANDS[command]
        assert subcommand.run.__module__ == f"mancala_envs.cli.{module}"
        assert subcommand.interrupted.__module__ == f"mancala_envs.cli.{module}"
    for command in cli.OWN_PARSERS:
        module = importlib.import_module(f"mancala_envs.cli.{command}_command")
        assert callable(getattr(module, f"{command}_main"))
