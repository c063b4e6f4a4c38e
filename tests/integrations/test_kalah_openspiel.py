"""Differential test of Kalah against OpenSpiel's ``mancala`` (its Kalah rule set), ply by ply.

OpenSpiel's ``mancala`` (``open_spiel/games/mancala/mancala.cc``) plays the default
Kalah (2x6 pits, 4 seeds, no capture opposite an empty pit, extra turn on the
own store, the game over as soon as either row is empty), so our default
``KalahConfig()`` must agree with it on every ply of every game.

How OpenSpiel's board maps to ours. OpenSpiel keeps 14 cells,
``observation_tensor()[0:14]``, sown counter-clockwise as ``+1`` like ours::

    OpenSpiel cell   0     1..6          7          8..13
    ours             P1's  P0's pits     P0's       P1's pits
                     store global 0..5   store      global 6..11

So our global pit ``g`` is OpenSpiel cell ``g + 1`` for ``g < 6`` and ``g + 2`` for
``g >= 6``; ``stores[0]`` is cell 7 and ``stores[1]`` is cell 0. Its opposite pit
``14 - c`` is our ``11 - g``. OpenSpiel's action is the cell lifted: player 0's
local pit ``k`` is action ``k + 1``, player 1's local pit ``k`` is action ``8 + k``.
Player 0 always moves first (``first_player=0`` here); ``observation_tensor()[14]``
is the player to move.

OpenSpiel does not sweep the rows at the end: a terminal board keeps its seeds
and ``returns()`` compares each player's row plus store. Ours moves those seeds
into the stores, so at the end we compare our final scores with those sums and
our winner with the sign of the returns. OpenSpiel also calls a game over after
1000 moves; random games end long before (checked below).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from mancala_envs.engine.state import LEGAL, PLAYER, RUNNING, SCORE, STATUS, WINNER
from mancala_envs.engine.trace import new_trace
from mancala_envs.games.kalah import Kalah

N = 6
GAMES = 1200


def cell_of_pit(pit: int) -> int:
    """The OpenSpiel cell of our global pit ``pit``."""
    return pit + 1 if pit < N else pit + 2


def openspiel_action(player: int, local: int) -> int:
    """The OpenSpiel action that sows ``player``'s local pit ``local``."""
    return cell_of_pit(player * N + local)


def openspiel_position(state: pyspiel.State) -> tuple[list[int], list[int]]:
    """OpenSpiel's board and stores in our order: ``(board[0..11], [store of P0, store of P1])``."""
    cells = [int(v) for v in state.observation_tensor(0)[:14]]
    return [cells[cell_of_pit(pit)] for pit in range(2 * N)], [cells[7], cells[0]]


def test_the_mapping_on_the_opening_and_one_move():
    theirs = pyspiel.load_game("mancala").new_initial_state()
    assert theirs.legal_actions() == [1, 2, 3, 4, 5, 6]
    assert openspiel_position(theirs) == ([4] * 12, [0, 0])
    theirs.apply_action(openspiel_action(0, 2))  # K1: the last seed reaches P0's store
    assert openspiel_position(theirs) == ([4, 4, 0, 5, 5, 5] + [4] * 6, [1, 0])
    assert theirs.current_player() == 0
    theirs.apply_action(openspiel_action(0, 5))
    assert openspiel_position(theirs) == ([4, 4, 0, 5, 5, 0, 5, 5, 5, 5, 4, 4], [2, 0])
    assert theirs.current_player() == 1
    assert theirs.legal_actions() == [8, 9, 10, 11, 12, 13]


def test_random_games_agree_with_openspiel_ply_by_ply():
    game = Kalah()
    openspiel_game = pyspiel.load_game("mancala")
    rng = np.random.default_rng(7)
    no_trace = np.empty(0, dtype=np.int64)
    trace = new_trace()
    plies = 0
    for number in range(GAMES):
        ours = game.new_state(0)
        theirs = openspiel_game.new_initial_state()
        while True:
            board, stores = openspiel_position(theirs)
            if theirs.is_terminal():
                break
            assert int(ours[STATUS]) == RUNNING, f"game {number}: we ended, OpenSpiel goes on"
            player = int(ours[PLAYER])
            assert theirs.current_player() == player
            assert game.board(ours).tolist() == board
            assert game.stores(ours).tolist() == stores
            legal = [k for k in range(N) if (int(ours[LEGAL]) >> k) & 1]
            assert [openspiel_action(player, k) for k in legal] == theirs.legal_actions()
            action = int(rng.choice(legal))
            # Every tenth game records the trace, as the environment does.
            assert game.step(ours, action, trace if number % 10 == 0 else no_trace) == 0
            theirs.apply_action(openspiel_action(player, action))
            plies += 1
        assert int(ours[STATUS]) != RUNNING, f"game {number}: OpenSpiel ended, we go on"
        assert theirs.move_number() < 1000
        totals = [sum(board[:N]) + stores[0], sum(board[N:]) + stores[1]]
        assert ours[SCORE : SCORE + 2].tolist() == totals
        assert game.stores(ours).tolist() == totals
        returns = theirs.returns()
        winner = int(ours[WINNER])
        assert returns == ([0.0, 0.0] if winner < 0 else [1.0 if p == winner else -1.0 for p in range(2)])
        assert game.info(ours)["end_reason"] == "row_empty"
    assert plies > 40 * GAMES  # about 44 plies a game: the comparison really ran
