"""The repetition keys after the speed-up of :func:`~mancala_envs.engine.repetition.position_key_at`.

The key reads its binomials from a column-major copy of the table with an unsigned index (issue 18,
target 1). The keys are stored in game states and snapshots, so they must stay exactly what they were:
the stars-and-bars rank of the board among boards with the same seed total, times two, plus the player.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

from mancala_envs.engine.repetition import key_fits, position_key, position_key_at
from mancala_envs.engine.state import BOARD, HISTORY_LEN, LEGAL, PLAYER, RUNNING, STATUS
from mancala_envs.envs.registration import make_game


def reference_key(board: list[int], player: int) -> int:
    """The key by its definition, in plain Python: sum over pits p < n - 1 of C(S_p + p, p + 1), where
    S_p is the number of seeds in pits 0..p; times two, plus the player."""
    rank = 0
    prefix = 0
    for pit, seeds in enumerate(board[:-1]):
        prefix += seeds
        rank += comb(prefix + pit, pit + 1)
    return 2 * rank + player


def compositions(total: int, parts: int) -> list[list[int]]:
    """Every board of ``parts`` pits holding ``total`` seeds (stars and bars)."""
    boards = []
    for bars in combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *bars, total + parts - 1)
        boards.append([edges[i + 1] - edges[i] - 1 for i in range(parts)])
    return boards


@pytest.mark.parametrize(("total", "parts"), [(0, 3), (5, 1), (6, 4), (8, 5), (4, 8)])
def test_keys_rank_every_board_of_a_seed_total_exactly(total: int, parts: int) -> None:
    """Over every board with a seed total, the keys of one player are 2 * (0 .. count - 1): no two
    boards share a key and none is skipped."""
    boards = compositions(total, parts)
    for player in range(2):
        keys = sorted(int(position_key(np.array(board, np.int64), player)) for board in boards)
        assert keys == [2 * rank + player for rank in range(comb(total + parts - 1, parts - 1))]


@pytest.mark.parametrize(("total", "parts"), [(48, 12), (32, 8), (64, 16), (100, 8), (40, 24), (120, 4), (20, 31)])
def test_keys_of_random_boards_match_the_definition(total: int, parts: int) -> None:
    """Large boards (up to the table's limits): the compiled key equals the definition."""
    assert key_fits(total, parts)
    rng = np.random.default_rng(total * 100 + parts)
    for _ in range(300):
        cuts = np.sort(rng.integers(0, total + 1, parts - 1))
        board = np.diff(np.concatenate(([0], cuts, [total]))).astype(np.int64)
        player = int(rng.integers(2))
        assert int(position_key(board, player)) == reference_key(board.tolist(), player)
        # In place, from a state-like array with the board further on.
        array = np.concatenate((rng.integers(0, 9, BOARD), board, rng.integers(0, 9, 5))).astype(np.int64)
        assert int(position_key_at(array, BOARD, parts, player)) == reference_key(board.tolist(), player)


@pytest.mark.parametrize("env_id", ["ouril_v0", "urim_v0"])
def test_the_keys_stored_in_random_games_match_the_definition(env_id: str) -> None:
    """Random games: after every ply, the last key of the repetition memory is the definition's key of
    the position reached (when the ply stored one)."""
    game = make_game(env_id)
    start = game.history_start
    n_pits = game.n_pits
    rng = np.random.default_rng(7)
    no_trace = np.empty(0, np.int64)
    checked = 0
    for _ in range(40):
        state = game.new_state(int(rng.integers(2)))
        while state[STATUS] == RUNNING:
            legal = [a for a in range(game.n_actions) if (int(state[LEGAL]) >> a) & 1]
            length = int(state[HISTORY_LEN])
            game.step(state, legal[int(rng.integers(len(legal)))], no_trace)
            if int(state[HISTORY_LEN]) == length + 1:
                board = state[BOARD : BOARD + n_pits].tolist()
                assert int(state[start + length]) == reference_key(board, int(state[PLAYER]))
                checked += 1
    assert checked > 1000
