"""``solve_position`` (issue 32): exact values anywhere in a game, against an exhaustive reference search.

The reference (``support.solver_reference.ReferenceSearch``) is plain alpha-beta over the whole game, every ply
played by the game's own ``step``, with no table and no transposition table. ``solve_position`` searches with a
small table at its leaves (a few seeds), so its search, its transposition table and MTD(f) do the work.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mancala_envs.engine.state import BOARD, HISTORY_LEN, PLAYER, RUNNING, SCORE, STATUS, STORE
from mancala_envs.envs.registration import make_game, resolve_env_id
from mancala_envs.games.game import Game
from mancala_envs.games.kalah import Kalah, KalahConfig
from mancala_envs.solver import (
    Solution,
    TableError,
    clear_tables,
    solve_position,
    solver_table,
    table_paths,
)

from support.solver_reference import ReferenceSearch

NO_TRACE = np.zeros(0, dtype=np.int64)


@pytest.fixture(autouse=True)
def no_tables_kept() -> Iterator[None]:
    """Each test starts with no table in the process (the cache is keyed by folder, tmp_path is new anyway)."""
    clear_tables()
    yield
    clear_tables()


def kalah(pits: int, seeds: int, empty_capture: bool) -> Kalah:
    return Kalah(KalahConfig(pits_per_row=pits, seeds_per_pit=seeds, empty_capture=empty_capture))


def random_positions(game: Game, count: int, most_seeds: int, seed: int, extra_plies: int = 3) -> Iterator[np.ndarray]:
    """``count`` running positions reached by random play from the start (either player first): played until at
    most ``most_seeds`` seeds are on the board, then up to ``extra_plies`` - 1 plies more. Stores, player to move
    and (in a game with repetition) the history are what the play left."""
    rng = np.random.default_rng(seed)
    found = 0
    while found < count:
        state = game.new_state(int(rng.integers(2)))
        while state[STATUS] == RUNNING and game.board(state).sum() > most_seeds:
            game.step(state, int(rng.choice(game.legal_actions(state))), NO_TRACE)
        for _ in range(int(rng.integers(0, extra_plies))):
            if state[STATUS] != RUNNING:
                break
            game.step(state, int(rng.choice(game.legal_actions(state))), NO_TRACE)
        if state[STATUS] == RUNNING:
            found += 1
            yield state


def check_against_reference(game: Game, state: np.ndarray, solution: Solution, reference: ReferenceSearch) -> None:
    """The margin and the best action's value equal the exhaustive search's; the principal variation (when asked
    for) replays to a final score difference of ``store_lead + margin``."""
    text = game.position_string(state)
    expected = reference.margin(state)
    assert expected is not None, text
    assert solution.margin == expected, text
    assert reference.move_margins(state)[solution.action] == expected, text
    mover = int(state[PLAYER])
    assert solution.mover == mover
    assert solution.store_lead == int(state[STORE + mover] - state[STORE + 1 - mover])
    assert solution.final_margin == solution.store_lead + solution.margin
    if solution.principal_variation:
        assert solution.principal_variation[0] == solution.action
        replay = state.copy()
        for action in solution.principal_variation:
            assert replay[STATUS] == RUNNING, text
            game.step(replay, action, NO_TRACE)
        assert replay[STATUS] != RUNNING, text
        assert int(replay[SCORE + mover] - replay[SCORE + 1 - mover]) == solution.final_margin, text


@pytest.mark.parametrize("empty_capture", [False, True])
@pytest.mark.parametrize(("pits", "seeds"), [(3, 2), (3, 3), (3, 4), (4, 2), (4, 3), (4, 4)])
def test_kalah_positions_agree_with_the_exhaustive_search(
    pits: int, seeds: int, empty_capture: bool, tmp_path: Path
) -> None:
    """Random positions of up to 14 seeds on the board, searched down to a table of 4 seeds."""
    game = kalah(pits, seeds, empty_capture)
    reference = ReferenceSearch(game)
    for number, state in enumerate(random_positions(game, 8, 14, seed=100 * pits + 10 * seeds + empty_capture)):
        solution = solve_position(game, state, max_seeds=4, folder=tmp_path, with_variation=number % 2 == 0)
        assert solution.max_seeds == 4
        assert solution.positions >= 1
        check_against_reference(game, state, solution, reference)


@pytest.mark.parametrize("empty_capture", [False, True])
@pytest.mark.parametrize(("pits", "seeds"), [(1, 1), (1, 3), (1, 6), (2, 1), (2, 3), (2, 6)])
def test_kalah_with_one_and_two_pits_is_solved_from_the_start(
    pits: int, seeds: int, empty_capture: bool, tmp_path: Path
) -> None:
    """The smallest boards of the grid: the whole game is tabled by default, and the start's value (and a
    position later on) equals the exhaustive search's."""
    game = kalah(pits, seeds, empty_capture)
    reference = ReferenceSearch(game)
    start = game.new_state(0)
    solution = solve_position(game, folder=tmp_path, with_variation=True)
    assert solution.max_seeds == game.total_seeds  # the whole game is small: its table is built whole
    check_against_reference(game, start, solution, reference)
    for state in random_positions(game, 3, game.total_seeds, seed=pits * seeds):
        check_against_reference(game, state, solve_position(game, state, folder=tmp_path), reference)


def test_modiar_positions_with_their_history_agree_with_the_exhaustive_search(tmp_path: Path) -> None:
    """Modiar's value depends on the positions seen since the last capture (repetition ends the game): the
    search plays the state's repetition memory, as the reference does."""
    game = make_game(resolve_env_id("modiar"))
    reference = ReferenceSearch(game)
    histories = []
    for state in random_positions(game, 20, 12, seed=1, extra_plies=6):
        histories.append(int(state[HISTORY_LEN]))
        check_against_reference(game, state, solve_position(game, state, max_seeds=8, folder=tmp_path), reference)
    assert max(histories) >= 2  # some positions carry a history of positions seen before them


def test_the_same_modiar_board_is_worth_less_after_a_history(tmp_path: Path) -> None:
    """[1, 6, 1 | 2, 7, 3], North to move: +2 loaded fresh, 0 after a history in which its best move repeats a
    position seen before (the repetition ends the game 21-21); the exhaustive search agrees with both."""
    game = make_game(resolve_env_id("modiar"))
    reference = ReferenceSearch(game)
    state = game.new_state(0)
    game.load_position(state, [2, 7, 1, 2, 7, 1], [11, 11], 0)
    for action in (0, 0, 1, 0, 2, 1, 2, 0, 1, 1, 0, 0, 2, 2, 0, 0, 2):
        game.step(state, action, NO_TRACE)
    assert game.board(state).tolist() == [1, 6, 1, 2, 7, 3] and int(state[PLAYER]) == 1
    fresh = game.new_state(0)
    game.load_position(fresh, [1, 6, 1, 2, 7, 3], game.stores(state).tolist(), 1)
    after_history = solve_position(game, state, max_seeds=12, folder=tmp_path)
    loaded_fresh = solve_position(game, fresh, max_seeds=12, folder=tmp_path)
    assert (after_history.margin, after_history.action) == (0, 2)
    assert loaded_fresh.margin == 2
    check_against_reference(game, state, after_history, reference)
    check_against_reference(game, fresh, loaded_fresh, reference)


def test_a_second_call_reuses_the_table_and_its_transposition_table(tmp_path: Path) -> None:
    game = kalah(4, 3, True)
    first = solve_position(game, max_seeds=6, folder=tmp_path)
    assert (first.margin, first.outcome) == (8, "win")  # Irving, Donkers & Uiterwijk (2000), Table 9
    table = solver_table(game, 6, tmp_path)
    assert solver_table(game, 6, tmp_path) is table
    assert table_paths(game, 6, tmp_path)[0].is_file()  # built, then saved in the folder named
    second = solve_position(game, max_seeds=6, folder=tmp_path)
    assert second.margin == 8
    assert second.positions < first.positions  # the transposition table remembers the first search
    # the same table serves another starting count (tables ignore seeds_per_pit), and a new process reads it
    clear_tables()
    assert solver_table(game, 6, tmp_path) is not table
    assert solver_table(kalah(4, 5, True), folder=tmp_path).max_seeds == 6  # the largest saved


def test_save_false_builds_without_saving_and_build_false_refuses(tmp_path: Path) -> None:
    game = kalah(3, 2, False)
    assert (
        solve_position(game, max_seeds=4, folder=tmp_path, save=False).margin
        == solve_position(game, max_seeds=4, folder=tmp_path / "other").margin
    )
    assert not table_paths(game, 4, tmp_path)[0].exists()
    clear_tables()
    with pytest.raises(TableError) as raised:
        solve_position(game, max_seeds=4, folder=tmp_path, build=False)
    assert str(raised.value) == (
        f"no kalah table in {tmp_path}; build it with `mancala-envs solve kalah --option pits_per_row=3 "
        f"--max-seeds 4 --dir {tmp_path}`."  # the table ignores seeds_per_pit: no --option for it
    )


@pytest.mark.parametrize(("budget", "visited"), [(1, "1 position"), (1_000, "1,000 positions")])
def test_a_search_that_runs_out_of_budget_is_refused(budget: int, visited: str, tmp_path: Path) -> None:
    with pytest.raises(TableError) as raised:
        solve_position(kalah(4, 5, True), max_seeds=2, folder=tmp_path, budget=budget)
    assert str(raised.value) == (
        f"the search visited {visited} without settling the value of this kalah position; raise budget=, or "
        "search with a larger table (build it with `mancala-envs solve kalah --option empty_capture=true "
        "--option pits_per_row=4 --max-seeds K`, then pass max_seeds=K)."
    )


def test_a_finished_game_is_refused(tmp_path: Path) -> None:
    game = kalah(1, 1, False)
    state = game.new_state(0)
    game.step(state, 0, NO_TRACE)  # one seed into the store, then one pit empty: the game is over
    assert state[STATUS] != RUNNING
    with pytest.raises(TableError) as raised:
        solve_position(game, state, folder=tmp_path)
    assert str(raised.value) == ("the game is over: a finished position has no value to solve; pass a running state.")
    assert not any(tmp_path.iterdir())  # refused before any table was built


def test_a_game_that_cannot_be_tabled_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TableError) as raised:
        solve_position(make_game("omweso_v0"), folder=tmp_path)
    message = str(raised.value)
    assert message.startswith("omweso cannot be tabled (its positions hold more than a board, stores and player")
    assert message.endswith("tables exist for ouril, urim, modiar, kalah.")


@pytest.mark.parametrize("budget", [0, -5, True, 1.5, "100", None])
def test_a_bad_budget_is_refused(budget: object, tmp_path: Path) -> None:
    with pytest.raises(ValueError) as raised:
        solve_position(make_game("kalah_v0"), budget=budget, folder=tmp_path)  # type: ignore[arg-type]
    assert str(raised.value) == f"budget must be a positive int (positions to search); got {budget!r}."
    assert not any(tmp_path.iterdir())


def test_a_state_of_another_form_is_refused(tmp_path: Path) -> None:
    game = make_game("kalah_v0")
    for bad, words in [
        (game.new_state(0).astype(np.float64), "got dtype float64; values are not converted"),
        (game.new_state(0)[:5], "got shape (5,)"),
        ([4] * 12, "got list"),
    ]:
        with pytest.raises(TypeError) as raised:
            solve_position(game, bad, folder=tmp_path)  # type: ignore[arg-type]
        message = str(raised.value)
        assert message.startswith(
            "state must be a writable, C-contiguous int64 array of shape (44,), a state of kalah_v0"
        )
        assert words in message
    assert not any(tmp_path.iterdir())


def test_a_state_no_game_reaches_is_refused(tmp_path: Path) -> None:
    game = make_game("kalah_v0")
    state = game.new_state(0)
    state[BOARD] = -1
    with pytest.raises(ValueError) as raised:
        solve_position(game, state, folder=tmp_path)
    assert not isinstance(raised.value, TableError)
    assert "No kalah_v0 game reaches this state: take states from the engine" in str(raised.value)
    assert not any(tmp_path.iterdir())
