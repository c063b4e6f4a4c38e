"""Layout of the compact game state shared by every game.

A game is one flat ``int64`` numpy array, so cloning a game is one array copy
(``state.copy()``) and the compiled engine can work on it without Python
objects. The array has three parts::

    [ header (HEADER_SIZE slots) | board (n_pits slots) | repetition history ]

The shared header slots are named by the constants below; slots ``GAME_SLOTS`` and up are
free for a game's own slots, which its rules module declares in its layout
(:mod:`mancala_envs.engine.layout`). The board follows in the
game's documented pit order (for the two-row games, the rules pages' global index:
P0 owns ``0..n-1`` left to right, P1 owns ``n..2n-1``; sowing counter-clockwise
is ``i -> i + 1 mod 2n``)::

            P1 local: 5   4   3   2   1   0
    top row  global: 11  10   9   8   7   6
    bottom   global:  0   1   2   3   4   5
            P0 local: 0   1   2   3   4   5

The repetition history holds one exact integer key per position seen since the
last capture (see :mod:`mancala_envs.engine.repetition`).
"""

from __future__ import annotations

__all__ = [
    "BOARD",
    "ENDLESS",
    "END_ENDLESS_MOVE",
    "END_ILLEGAL_ACTION",
    "END_MATCH_TARGET",
    "END_MAX_GAMES",
    "END_MAX_PLIES",
    "END_NONE",
    "END_NO_FEEDING_MOVE",
    "END_NO_LEGAL_MOVE",
    "END_REASON",
    "END_REASON_NAMES",
    "END_REPETITION",
    "END_THRESHOLD",
    "FIRST_GAME_END_REASON",
    "FIRST_MOVE_DONE",
    "GAMES_PLAYED",
    "GAME_OVER",
    "GAME_SLOTS",
    "HEADER_SIZE",
    "HISTORY_FILTER",
    "HISTORY_LEN",
    "ILLEGAL",
    "LAPS",
    "LAST_ACTION",
    "LEGAL",
    "MATCH",
    "OK",
    "PASSES",
    "PLAYER",
    "PLY",
    "POINTS",
    "RUNNING",
    "SCORE",
    "STARTER",
    "STATUS",
    "STORE",
    "TERMINATED",
    "TRUNCATED",
    "TURN",
    "WINNER",
]

# --- header slots -----------------------------------------------------------
PLAYER = 0  # player to move, 0 or 1
PLY = 1  # agent decisions taken in the current game
STATUS = 2  # RUNNING, TERMINATED or TRUNCATED
END_REASON = 3  # one of the END_* codes once STATUS is not RUNNING
WINNER = 4  # 0 or 1; -1 for a draw or while the game runs
LEGAL = 5  # bit k set <=> action k is legal for PLAYER (0 once the game is over)
STORE = 6  # slots 6 and 7: seeds captured by P0 and P1 in the current game
SCORE = 8  # slots 8 and 9: final scores of the last finished game
POINTS = 10  # slots 10 and 11: match points won in the last finished game
MATCH = 12  # slots 12 and 13: match points accumulated over a match
GAMES_PLAYED = 14  # games finished in the current match
STARTER = 15  # player who made the first move of the current game
LAST_ACTION = 16  # last action played, -1 before the first ply
PASSES = 17  # automatic passes that followed the last ply (Ouril rule 5)
HISTORY_LEN = 18  # number of repetition keys stored
TURN = 19  # completed turns (used by games whose turns span several plies)
FIRST_MOVE_DONE = 20  # 1 once the first ply of the current game was played
HISTORY_FILTER = 21  # bit (key % 61) set for every stored repetition key: a cheap "maybe seen" test
LAPS = 22  # laps sown in the last turn (relay games)
ENDLESS = 23  # 1 if the last turn was found endless (relay games)
#: first of the header slots a game declares as its own (``GAME_SLOTS .. HEADER_SIZE - 1``; see
#: :class:`mancala_envs.engine.layout.Layout`): Rio Kadalis keeps its fours, reserves, closed pits and
#: round there
GAME_SLOTS = 24
HEADER_SIZE = 32
BOARD = HEADER_SIZE  # first board slot

# --- STATUS values ------------------------------------------------------------
RUNNING = 0
TERMINATED = 1
TRUNCATED = 2

# --- END_REASON values ---------------------------------------------------------
END_NONE = 0
END_THRESHOLD = 1  # a store reached the winning threshold (Ouril)
END_NO_LEGAL_MOVE = 2  # the player to move has no legal move
END_NO_FEEDING_MOVE = 3  # the opponent's row is empty and no move can feed it
END_REPETITION = 4  # a (board, player to move) position repeated since the last capture
END_MAX_PLIES = 5  # the ply cap truncated the game
END_ILLEGAL_ACTION = 6  # an agent played an illegal action under the "penalty" policy
END_MAX_GAMES = 7  # the game cap truncated a match
END_MATCH_TARGET = 8  # a player reached the match target
END_ENDLESS_MOVE = 9  # a turn was found to never end (in-turn repetition or the lap cap)
#: a game numbers its own end reasons from here, in its rules module (``Game.end_reasons`` names them)
FIRST_GAME_END_REASON = 10

#: the end reasons every game shares (a game adds its own: ``Game.end_reason_names``)
END_REASON_NAMES: dict[int, str | None] = {
    END_NONE: None,
    END_THRESHOLD: "threshold",
    END_NO_LEGAL_MOVE: "no_legal_move",
    END_NO_FEEDING_MOVE: "no_feeding_move",
    END_REPETITION: "repetition",
    END_MAX_PLIES: "max_plies",
    END_ILLEGAL_ACTION: "illegal_action",
    END_MAX_GAMES: "max_games",
    END_MATCH_TARGET: "match_target",
    END_ENDLESS_MOVE: "endless_move",
}

# --- return codes of a game's compiled ``step`` ---------------------------------
OK = 0
ILLEGAL = 1  # the action is not legal in this state; nothing was changed
GAME_OVER = 2  # the game is already over; nothing was changed
