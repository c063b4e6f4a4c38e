"""The ``perfect`` agent on Kalah (an acyclic game) plays from the first move (issue 32, item 4).

Inside its table it reads the table; outside it, ``Table.search`` chooses. Each of its moves is checked with
:func:`mancala_envs.solver.solve_position` run on another table (4 seeds, another folder: its own search and
transposition table): the chosen move's value (its gain plus the exact value of the position it leads to) equals
the position's value. Tables live in ``tmp_path``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import PerfectAgent, make_agent
from mancala_envs.algorithms.retrograde import TableValue, available_tables, build_table, save_table
from mancala_envs.engine.state import PLAYER, PLY, RUNNING, SCORE, STATUS, STORE
from mancala_envs.games.game import Game
from mancala_envs.solver import clear_tables, solve_position

AGENT_SEEDS = 14  # the table the agent plays with: positions of up to 14 seeds on the board (of 24)
CHECK_SEEDS = 4  # the table of the independent check


@pytest.fixture(autouse=True)
def _forget_tables() -> None:
    clear_tables()  # the solver's per-process tables: each test reads its own folders


def kalah_env(empty_capture: bool, seeds: int = 3) -> object:
    return mancala_envs.make("kalah_v0", first_player=0, pits_per_row=4, seeds_per_pit=seeds,
                             empty_capture=empty_capture)  # fmt: skip


def move_margin(game: Game, state: np.ndarray, action: int, folder: Path) -> int:
    """The mover's future margin of ``action``: its gain plus the exact value after it (solve_position)."""
    mover = int(state[PLAYER])
    lead = int(state[STORE + mover] - state[STORE + 1 - mover])
    after = state.copy()
    game.step(after, action, np.zeros(0, dtype=np.int64))
    if after[STATUS] != RUNNING:
        return int(after[SCORE + mover] - after[SCORE + 1 - mover]) - lead
    later = solve_position(game, after, max_seeds=CHECK_SEEDS, folder=folder).margin
    gain = int(after[STORE + mover] - after[STORE + 1 - mover]) - lead
    return gain + (later if int(after[PLAYER]) == mover else -later)


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize(("empty_capture", "start_value"), [(False, 6), (True, 8)])
def test_perfect_plays_whole_kalah_games_keeping_the_value(
    empty_capture: bool, start_value: int, opponent: str, tmp_path: Path
) -> None:
    env = kalah_env(empty_capture)
    game = env.unwrapped.game
    tables, check = tmp_path / "agent", tmp_path / "check"
    save_table(build_table(game, AGENT_SEEDS), tables)
    outside = inside = 0
    for number in range(4):
        seat = number % 2
        env.reset(seed=number)
        players = {seat: PerfectAgent(seed=1, folder=tables), 1 - seat: make_agent(opponent, seed=number)}
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            state = env.unwrapped.state_array.copy()
            player = int(state[PLAYER])
            action = players[player].act(env)
            if player == seat:
                value = solve_position(game, state, max_seeds=CHECK_SEEDS, folder=check).margin
                if int(state[PLY]) == 0:
                    assert value == start_value  # Irving, Donkers & Uiterwijk (2000); the exhaustive check
                assert move_margin(game, state, action, check) == value, game.position_string(state)
                seeds = int(game.board(state).sum())
                outside += seeds > AGENT_SEEDS
                inside += seeds <= AGENT_SEEDS
                chosen = players[seat].last_values[action]
                assert chosen.margin == value and chosen.exact
            env.step(action)
        scores = env.infos[env.agent_selection]["scores"]
        # perfect keeps at least the start's value for its seat against any opponent
        assert int(scores[seat] - scores[1 - seat]) >= (start_value if seat == 0 else -start_value)
    assert outside >= 4 and inside >= 1  # both ways of choosing were played
    assert available_tables(game, tables) == [AGENT_SEEDS]  # the saved table was read, none built


def test_outside_the_table_last_values_hold_the_searched_move(tmp_path: Path) -> None:
    env = kalah_env(False)
    game = env.unwrapped.game
    save_table(build_table(game, AGENT_SEEDS), tmp_path)
    env.reset(seed=0)
    agent = PerfectAgent(seed=0, folder=tmp_path)
    action = agent.act(env)
    assert agent.last_values == {action: TableValue(6, 6, 6)}  # the start, 24 seeds: searched, the chosen move only
    assert action == solve_position(game, folder=tmp_path).action  # the searched best action, no draw among ties


def test_perfect_builds_and_saves_the_default_table_when_none_is_saved(tmp_path: Path) -> None:
    env = kalah_env(True, seeds=2)
    game = env.unwrapped.game
    env.reset(seed=0)
    assert available_tables(game, tmp_path) == []
    PerfectAgent(seed=0, folder=tmp_path).act(env)
    assert available_tables(game, tmp_path) == [16]  # Kalah(4, 2): the whole game (default_max_seeds)
