"""Kalah as the literature solved it (issue 32, item 5): ``solve_position`` against the published values.

Sources:

- **[IDU]** G. Irving, H. H. L. M. Donkers and J. W. H. M. Uiterwijk, "Solving Kalah", *ICGA Journal* 23(3),
  139-147, 2000 (https://naml.us/paper/irving2000_kalah.pdf). Their rules are ours with ``empty_capture=True``
  (a last seed in an empty own pit captures itself and the opposite pit, however many seeds that holds; the
  game ends when a move leaves one side empty, the other side's seeds going to its owner). Table 9 gives the
  first player's margin under perfect play and one perfect game for every Kalah(m, n), m = 4, 5 and
  (6, 1)-(6, 5); Tables 5 and 10 give win / loss / draw for m = 1, 2, 3 (no margins published there).
  H. J. van den Herik, J. W. H. M. Uiterwijk and J. van Rijswijck, "Games solved: Now and in the future",
  *Artificial Intelligence* 134 (2002), Table 2, repeats Table 10.
- The standard rule (``empty_capture=False``): Kalah(4, 3) = +6, the exhaustive check quoted in issue 32 (and
  (4, 2) = +6, (2, 2) = -2 from a hobby solver, see :func:`test_the_standard_rule_cells`).

A value is South's (player 0, first to move) final store minus North's from the start. Every cell of m <= 4,
(5, 1)-(5, 4) and (6, 1)-(6, 3) is solved here, each in under 10 s on a loaded 2-core machine ((4, 6) and (5, 4)
marked slow); (5, 5) took over 200 s with a 12-seed table, and (5, 6), (6, 4), (6, 5) take minutes or more: they are
left to ``docs/solved.md``, and the perfect games of Table 9 still replay on our rules for every cell.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mancala_envs.engine.state import PLAYER, RUNNING, SCORE, STATUS, STORE
from mancala_envs.games.kalah import Kalah, KalahConfig
from mancala_envs.solver import clear_tables, solve_position

NO_TRACE = np.zeros(0, dtype=np.int64)

#: [IDU] Tables 5 and 10, empty-capture rule: "W" (first player wins), "L" (loses), "D" (draw); m = 1, 2, 3
PUBLISHED_OUTCOMES = {
    1: "DLWLWD",
    2: "WLLLWW",
    3: "DWWWWL",
}
OUTCOME = {"W": "win", "L": "loss", "D": "draw"}

#: [IDU] Table 9: the first player's margin and a perfect game, empty-capture rule. In a perfect game a digit is a
#: hole of the player to move counted in sowing order (0 farthest from the store), a dash a change of player.
#: (4, 6)'s game is left out: as printed ("1-0-2-3-1330-01-2-2-21-201-..."), the second move of its tenth group
#: sows 5 seeds from hole 0 of 4, past the store, yet the group goes on; most likely a misprint (the value 0 is
#: checked by the search, and the 16 other games replay).
PERFECT_GAMES = {
    (4, 1): (2, "32-32-1"),
    (4, 2): (6, "3-3-230-231-1323"),
    (4, 3): (8, "13-1-032-2-3-0-1320-3-0-2"),
    (4, 4): (2, "02-2-3-0-2-21-303231-0-32-1-0"),
    (4, 5): (2, "0-2-1-3-0-2-1-0-32-3-021-2-0-02-2-1-3-3-313032-13031-1-2-2-3"),
    (5, 1): (0, "43-43-2-2"),
    (5, 2): (0, "31-32-24-0-0-31-3"),
    (5, 3): (8, "24-3-3-03-41-1-04342-3-3-2-2-4-414342-3"),
    (5, 4): (12, "12-04-03-2-20-41-1-42-32-3-2-40-0-1"),
    (5, 5): (2, "03-2-2-1-1-23-24-2-0-34414340-4240-2-14342"),
    (5, 6): (2, "2-0-0-3-3-0-2-1-440-4-42-2-121-12-3-1-4-20-0-34-24-324-1-3-3-1-41-43-2-2-3"),
    (6, 1): (2, "54-54-3-3-2"),
    (6, 2): (10, "42-42-30-0-1-1-4-5"),
    (6, 3): (2, "4-5-35-250-2-154-451535452-53-3-54-2"),
    (6, 4): (10, "25-10-3-3-5153-1-4-5-045-4-535452-53-4-1-3-2-0-54-1-3"),
    (6, 5): (12, "12-02-05-2-4-51-53-3-45-20-3-2-2-345-5-4-351-0-54-1-52-354-4-254-3-3"),
}

#: [IDU] Table 9's margins that ``solve_position`` settles here in seconds: (m, n) -> (margin, table seeds)
FAST_MARGINS = {
    (4, 1): (2, 8),
    (4, 2): (6, 10),
    (4, 3): (8, 10),
    (4, 4): (2, 12),
    (4, 5): (2, 10),
    (5, 1): (0, 10),
    (5, 2): (0, 8),
    (5, 3): (8, 10),
    (6, 1): (2, 8),
    (6, 2): (10, 8),
    (6, 3): (2, 10),
}
#: ... and those that take longer (run with -m slow)
SLOW_MARGINS = {
    (4, 6): (0, 14),
    (5, 4): (12, 12),
}


def kalah(pits: int, seeds: int, empty_capture: bool = True) -> Kalah:
    return Kalah(KalahConfig(pits_per_row=pits, seeds_per_pit=seeds, empty_capture=empty_capture))


@pytest.fixture(autouse=True)
def no_tables_kept() -> None:
    clear_tables()


def start_value(game: Kalah, max_seeds: int, folder: Path) -> int:
    solution = solve_position(game, max_seeds=min(max_seeds, game.total_seeds), folder=folder)
    assert (solution.mover, solution.store_lead) == (0, 0)
    return solution.final_margin


@pytest.mark.parametrize(
    ("pits", "seeds", "outcome"),
    [(pits, seeds, OUTCOME[row[seeds - 1]]) for pits, row in PUBLISHED_OUTCOMES.items() for seeds in range(1, 7)],
)
def test_the_published_outcomes_of_one_to_three_pits(pits: int, seeds: int, outcome: str, tmp_path: Path) -> None:
    """[IDU] Tables 5 and 10 (win / loss / draw only for m <= 3; a draw is margin 0)."""
    solution = solve_position(kalah(pits, seeds), max_seeds=min(12, 2 * pits * seeds), folder=tmp_path)
    assert solution.outcome == outcome
    if outcome == "draw":
        assert solution.final_margin == 0


@pytest.mark.parametrize(("pits", "seeds"), sorted(FAST_MARGINS))
def test_the_published_margins(pits: int, seeds: int, tmp_path: Path) -> None:
    """[IDU] Table 9, empty-capture rule."""
    margin, max_seeds = FAST_MARGINS[pits, seeds]
    assert start_value(kalah(pits, seeds), max_seeds, tmp_path) == margin


@pytest.mark.slow
@pytest.mark.parametrize(("pits", "seeds"), sorted(SLOW_MARGINS))
def test_the_published_margins_that_take_longer(pits: int, seeds: int, tmp_path: Path) -> None:
    """[IDU] Table 9, empty-capture rule: the cells that take tens of seconds here."""
    margin, max_seeds = SLOW_MARGINS[pits, seeds]
    assert start_value(kalah(pits, seeds), max_seeds, tmp_path) == margin


@pytest.mark.parametrize(("pits", "seeds", "margin", "max_seeds"), [(4, 3, 6, 12), (4, 2, 6, 10), (2, 2, -2, 8)])
def test_the_standard_rule_cells(pits: int, seeds: int, margin: int, max_seeds: int, tmp_path: Path) -> None:
    """The standard rule (no capture of a lone seed opposite an empty pit). Kalah(4, 3) = +6 is issue 32's
    exhaustive check, two less than [IDU]'s +8 with the empty-capture rule; (4, 2) = +6 and (2, 2) = -2 are only
    in a hobby solver's results (github.com/jakesellison/kalah, RESULTS.md), a weak cross-check."""
    assert start_value(kalah(pits, seeds, empty_capture=False), max_seeds, tmp_path) == margin


@pytest.mark.parametrize(("pits", "seeds"), sorted(PERFECT_GAMES))
def test_the_published_perfect_games_replay_on_our_rules(pits: int, seeds: int) -> None:
    """[IDU] Table 9's perfect game of each cell, played by our engine: every move legal, every extra turn where
    the paper has one (no dash) and none where it changes player, and the game ends at the published margin.
    This holds our rules to theirs on boards far larger than the ones solved in these tests."""
    margin, line = PERFECT_GAMES[pits, seeds]
    game = kalah(pits, seeds)
    state = game.new_state(0)
    for turn in line.split("-"):
        mover = int(state[PLAYER])
        for number, hole in enumerate(turn):
            assert state[STATUS] == RUNNING, (turn, game.position_string(state))
            assert int(hole) in game.legal_actions(state), (turn, game.position_string(state))
            game.step(state, int(hole), NO_TRACE)
            if state[STATUS] == RUNNING:
                # an extra turn inside a group of digits, the other player after its last digit
                assert (int(state[PLAYER]) == mover) == (number < len(turn) - 1), (turn, game.position_string(state))
    assert state[STATUS] != RUNNING
    assert int(state[SCORE] - state[SCORE + 1]) == margin


@pytest.mark.parametrize(("pits", "seeds"), [(4, 1), (4, 2), (4, 3), (5, 1), (6, 1)])
def test_every_move_of_a_published_perfect_game_keeps_the_value(pits: int, seeds: int, tmp_path: Path) -> None:
    """Along [IDU]'s perfect game, each move is a best move by ``solve_position``: the position's final margin for
    South stays the published value after every ply."""
    margin, line = PERFECT_GAMES[pits, seeds]
    game = kalah(pits, seeds)
    state = game.new_state(0)
    for hole in line.replace("-", ""):
        solution = solve_position(game, state, max_seeds=min(8, game.total_seeds), folder=tmp_path)
        south = solution.final_margin if solution.mover == 0 else -solution.final_margin
        assert south == margin, game.position_string(state)
        assert solution.store_lead == int(state[STORE + solution.mover] - state[STORE + 1 - solution.mover])
        game.step(state, int(hole), NO_TRACE)
    assert state[STATUS] != RUNNING
