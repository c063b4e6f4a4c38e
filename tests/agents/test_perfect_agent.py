"""The ``perfect`` agent (plays the best moves of a perfect-play table) and alpha-beta with tables at its leaves.

Tests marked slow use the whole Modiar table (the session fixture ``tables_dir``, about a minute to build);
the others build a table of the positions with at most 5 seeds in a few seconds (also with numba's JIT off).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import AGENT_NAMES, AlphaBetaAgent, PerfectAgent, make_agent
from mancala_envs.agents import search_agents as agent_search
from mancala_envs.agents.search_agents import alphabeta_search
from mancala_envs.algorithms.retrograde import TableError, build_table, load_table, save_table
from mancala_envs.engine.state import PLAYER, RUNNING, STATUS
from mancala_envs.envs.registration import make_game, resolve_env_id

SMALL = 5  # the seeds of the small table


def modiar_state(board: list[int], player: int, stores: list[int] | None = None, game: Any = None) -> np.ndarray:
    game = game or make_game(resolve_env_id("modiar"))
    if stores is None:
        rest = 42 - sum(board)
        stores = [rest // 2, rest - rest // 2]
    state = game.new_state(0)
    game.load_position(state, board, stores, player)
    return state


def modiar_env(board: list[int], player: int, stores: list[int] | None = None, **options: Any) -> Any:
    if stores is None:
        rest = 42 - sum(board)
        stores = [rest // 2, rest - rest // 2]
    env = mancala_envs.make("modiar_v0", **options)
    env.reset(options={"board": board, "stores": stores, "player": player})
    return env


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the Modiar table of the positions with at most 5 seeds on the board."""
    folder = tmp_path_factory.mktemp("small-tables")
    save_table(build_table(make_game(resolve_env_id("modiar")), max_seeds=SMALL), folder)
    return folder


@pytest.fixture(scope="module")
def small_table(small_dir: Path) -> Any:
    return load_table(make_game(resolve_env_id("modiar")), max_seeds=-1, folder=small_dir)


# --- the name ---------------------------------------------------------------------------------------------------
def test_perfect_is_an_agent_name(tmp_path: Path) -> None:
    assert AGENT_NAMES["perfect"] is PerfectAgent
    agent = make_agent("perfect", seed=3)
    assert isinstance(agent, PerfectAgent) and agent.name == "perfect" and agent.folder is None
    with pytest.raises(ValueError, match=r"choose one of \['greedy', 'perfect', 'pretrained', 'random'\]"):
        make_agent("perfection")
    from mancala_envs.views.opponents import make_opponent

    assert make_opponent("perfect").name == "perfect"


def test_tournament_command_lists_perfect(capsys: pytest.CaptureFixture[str]) -> None:
    from mancala_envs.cli import main

    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    assert "perfect" in capsys.readouterr().out


# --- the perfect agent ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("board", "player", "stores", "best"),
    [
        ([2, 0, 3, 0, 0, 0], 0, [20, 17], {2}),  # the rules page's M6: the one legal move
        ([0, 2, 2, 0, 0, 1], 0, None, {1}),  # local 1 leaves player 1 one singleton: +3; local 2 feeds it: +1
        ([2, 0, 2, 0, 0, 1], 0, None, {0}),
        ([0, 0, 1, 0, 2, 2], 1, None, {1}),
        ([2, 2, 0, 0, 0, 0], 0, [19, 19], {0, 1}),  # M9'': both moves end the game 23-19
    ],
)
def test_perfect_plays_a_best_move(
    small_dir: Path, small_table: Any, board: list[int], player: int, stores: list[int] | None, best: set[int]
) -> None:
    env = modiar_env(board, player, stores)
    raw = env.unwrapped
    assert set(small_table.best_actions(raw.state_array)) == best
    played = {PerfectAgent(seed, folder=small_dir).act(env) for seed in range(12)}
    assert played == best
    assert {PerfectAgent(seed, folder=small_dir).act_on_state(raw.game, raw.state_array) for seed in range(12)} == best


def test_perfect_is_reproducible(small_dir: Path) -> None:
    env = modiar_env([2, 2, 0, 0, 0, 0], 0, [19, 19])  # two equally good moves
    moves = [[agent.act(env) for _ in range(30)] for agent in (PerfectAgent(5, small_dir), PerfectAgent(5, small_dir))]
    assert moves[0] == moves[1] and set(moves[0]) == {0, 1}
    assert [PerfectAgent(5, small_dir).act(env) for _ in range(3)] == [moves[0][0]] * 3
    agent = PerfectAgent(5, small_dir)
    agent.act(env)
    assert {a: v.margin for a, v in agent.last_values.items()} == {0: 4, 1: 4}


def test_perfect_refuses_a_position_outside_its_table(small_dir: Path) -> None:
    agent = PerfectAgent(0, folder=small_dir)
    env = modiar_env([0, 2, 3, 1, 1, 2], 0)
    with pytest.raises(TableError) as caught:
        agent.act(env)
    message = str(caught.value)
    assert "holds 9 seeds" in message and f"({SMALL})" in message
    assert f"`mancala-envs solve modiar --max-seeds 9 --dir {small_dir}`" in message and "alphabeta:D" in message
    opening = mancala_envs.make("modiar_v0", first_player=0)
    opening.reset(seed=0)
    with pytest.raises(TableError, match=rf"`mancala-envs solve modiar --dir {small_dir}`, or play alphabeta:D"):
        agent.act(opening)


def test_perfect_without_a_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = modiar_env([2, 2, 0, 0, 0, 0], 0, [19, 19])
    with pytest.raises(TableError, match=rf"no modiar table in {tmp_path}; build it with `mancala-envs solve modiar"):
        PerfectAgent(0, folder=tmp_path).act(env)
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(tmp_path / "none"))
    with pytest.raises(TableError, match="mancala-envs solve modiar"):
        make_agent("perfect").act(env)
    omweso = mancala_envs.make("omweso_v0")
    omweso.reset(seed=0)
    with pytest.raises(TableError, match=r"the perfect agent needs a table, and omweso .*; play alphabeta:D instead"):
        PerfectAgent(0, folder=tmp_path).act(omweso)


def test_perfect_finds_a_table_built_after_a_failed_look(tmp_path: Path) -> None:
    env = modiar_env([0, 2, 2, 0, 0, 1], 0)
    agent = PerfectAgent(0, folder=tmp_path)
    with pytest.raises(TableError):
        agent.act(env)
    save_table(build_table(env.unwrapped.game, max_seeds=SMALL), tmp_path)
    assert agent.act(env) == 1


# --- alpha-beta with a table ------------------------------------------------------------------------------------
def _compositions(total: int, parts: int) -> list[list[int]]:
    """Every way to put ``total`` seeds into ``parts`` pits."""
    if parts == 1:
        return [[total]]
    return [[first, *rest] for first in range(total + 1) for rest in _compositions(total - first, parts - 1)]


def test_alphabeta_plays_the_table_best_move_at_its_leaves(small_table: Any) -> None:
    # 9 seeds: outside the table, but each move leaves at most 5 seeds or ends the game. Without the table,
    # one ply sees the same store after both moves; with it, local 2 ends 7 seeds ahead and local 1 only 3.
    game = small_table.game
    state = modiar_state([0, 2, 3, 1, 1, 2], 0, game=game)
    draws = np.linspace(0, 0.99, 8)
    assert {alphabeta_search(game, state, 1, d)[0] for d in draws} == {1, 2}
    for depth in (1, 2, 3):
        assert {alphabeta_search(game, state, depth, d, small_table)[0] for d in draws} == {2}
    _, value, _ = alphabeta_search(game, state, 1, 0.0, small_table)
    stores = game.stores(state)
    assert value == agent_search.WIN + agent_search.DEPTH_BONUS * 0 + int(stores[0] - stores[1]) + 7


def _covered_roots(table: Any, most: int) -> list[tuple[np.ndarray, set[int]]]:
    """Every position with at most ``most`` seeds, two legal moves or more and every move ending the game or
    leading into ``table``, with its best moves by the final margin (the result, or the stores plus the
    table's value)."""
    game = table.game
    trace = np.zeros(0, np.int64)
    roots = []
    for total in range(2, most + 1):
        for board in _compositions(total, 6):
            for player in (0, 1):
                state = modiar_state(list(board), player, game=game)
                if state[STATUS] != RUNNING or game.legal_actions(state).size < 2:
                    continue
                finals = {}
                for action in game.legal_actions(state):
                    child = state.copy()
                    game.step(child, int(action), trace)
                    stores = game.stores(child)
                    lead = int(stores[player] - stores[1 - player])
                    if child[STATUS] != RUNNING:
                        finals[int(action)] = lead
                    elif table.covers(child):
                        later = table.value(child).margin
                        finals[int(action)] = lead + (later if child[PLAYER] == player else -later)
                    else:
                        break
                else:
                    best = max(finals.values())
                    roots.append((state, {a for a, final in finals.items() if final == best}))
    return roots


def test_alphabeta_with_the_table_plays_its_best_moves(small_table: Any) -> None:
    # Roots up to 8 seeds whose moves all end the game or lead into the table (at most 5 seeds).
    game = small_table.game
    roots = _covered_roots(small_table, 8)
    assert len(roots) > 100
    rng = np.random.default_rng(0)
    for state, best in roots:
        assert alphabeta_search(game, state, 1, float(rng.random()), small_table)[0] in best
    for index in rng.choice(len(roots), 25, replace=False):
        state, best = roots[index]
        assert alphabeta_search(game, state, 3, float(rng.random()), small_table)[0] in best
        if small_table.covers(state):
            assert best == set(small_table.best_actions(state))


def test_alphabeta_agent_reads_the_table_once_per_game(small_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    looks = []
    real = agent_search.load_game_table
    monkeypatch.setattr(agent_search, "load_game_table", lambda *a: looks.append(a) or real(*a))
    agent = AlphaBetaAgent(2, seed=0, folder=small_dir)
    env = modiar_env([0, 2, 3, 1, 1, 2], 0)
    assert agent.act(env) == 2 and agent.last_table is not None and agent.last_table.max_seeds == SMALL
    assert agent.act(modiar_env([0, 2, 2, 0, 0, 1], 0)) == 1
    assert len(looks) == 1
    plain = AlphaBetaAgent(2, seed=0, folder=small_dir, tables=False)
    plain.act(env)
    assert plain.last_table is None and len(looks) == 1
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(small_dir))
    named = make_agent("alphabeta:2", seed=0)
    assert named.act(env) == 2 and named.last_table is not None and len(looks) == 2


def test_a_process_loads_a_table_file_once(small_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads = []
    real = agent_search.load_table
    monkeypatch.setattr(agent_search, "_LOADED", {})
    monkeypatch.setattr(agent_search, "load_table", lambda *a, **k: loads.append(a) or real(*a, **k))
    env = modiar_env([0, 2, 2, 0, 0, 1], 0)
    agents = [PerfectAgent(seed, folder=small_dir) for seed in range(3)] + [AlphaBetaAgent(2, 0, small_dir)]
    assert [agent.act(env) for agent in agents] == [1, 1, 1, 1]
    assert len(loads) == 1
    tables = [agent.table_for(env.unwrapped.game) for agent in agents]
    assert len({id(table) for table in tables}) == 4  # a Table each (their own work buffers), one mapped file
    assert all(np.shares_memory(table.values, tables[0].values) for table in tables)


def test_alphabeta_agent_without_a_table_searches_as_before(tmp_path: Path) -> None:
    game = make_game(resolve_env_id("modiar"))
    state = modiar_state([0, 2, 3, 1, 1, 2], 0, game=game)
    agent = AlphaBetaAgent(3, seed=1, folder=tmp_path)  # an empty folder: no table, no error
    rng = np.random.default_rng(1)
    assert agent.act_on_state(game, state) == alphabeta_search(game, state, 3, float(rng.random()))[0]
    assert agent.last_table is None
    omweso = mancala_envs.make("omweso_v0")
    omweso.reset(seed=0)
    AlphaBetaAgent(1, seed=0, folder=tmp_path).act(omweso)  # a game without tables
    with pytest.raises(TableError, match="this table is of modiar"):
        alphabeta_search(
            omweso.unwrapped.game,
            omweso.unwrapped.state_array,
            1,
            0.0,
            load_table(game, max_seeds=-1, folder=_small_folder(tmp_path, game)),
        )


def _small_folder(folder: Path, game: Any) -> Path:
    save_table(build_table(game, max_seeds=2), folder)
    return folder


# Moves, values and node counts of alphabeta_search(game, state, depth, 0.37) before tables existed, on the
# positions reached from the opening by random moves of np.random.default_rng(7) (:func:`_positions`): the
# search without a table is unchanged.
BEFORE = [
    ("ouril", 0, 1, (4, 0, 5)),
    ("ouril", 0, 3, (4, 0, 55)),
    ("ouril", 0, 5, (4, 0, 294)),
    ("ouril", 1, 1, (1, 2, 6)),
    ("ouril", 1, 3, (1, 2, 89)),
    ("ouril", 1, 5, (3, 4, 614)),
    ("ouril", 2, 1, (1, 0, 5)),
    ("ouril", 2, 3, (4, 2, 97)),
    ("ouril", 2, 5, (1, 0, 644)),
    ("urim", 0, 1, (1, 1, 5)),
    ("urim", 0, 3, (1, 1, 64)),
    ("urim", 0, 5, (1, 1, 525)),
    ("urim", 1, 1, (1, 0, 5)),
    ("urim", 1, 3, (0, 0, 58)),
    ("urim", 1, 5, (1, 0, 492)),
    ("urim", 2, 1, (2, -9, 3)),
    ("urim", 2, 3, (0, -11, 26)),
    ("urim", 2, 5, (0, -11, 114)),
    ("modiar", 1, 1, (0, 6, 3)),
    ("modiar", 1, 3, (0, 14, 18)),
    ("modiar", 1, 5, (0, 12, 78)),
    ("modiar", 2, 1, (1, 0, 1)),
    ("modiar", 2, 3, (1, -1000001000008, 4)),
    ("modiar", 2, 5, (1, -1000003000008, 4)),
    ("kalah", 0, 1, (0, 4, 5)),
    ("kalah", 0, 3, (0, 0, 55)),
    ("kalah", 0, 5, (0, 1000001000006, 172)),
    ("kalah", 1, 1, (4, 12, 5)),
    ("kalah", 1, 3, (5, 12, 61)),
    ("kalah", 1, 5, (5, 11, 272)),
    ("kalah", 2, 1, (1, 14, 5)),
    ("kalah", 2, 3, (1, 12, 34)),
    ("kalah", 2, 5, (1, 13, 148)),
    ("omweso", 1, 1, (3, 1000000000021, 9)),
    ("omweso", 1, 3, (3, 1000002000021, 80)),
    ("omweso", 1, 5, (3, 1000004000021, 657)),
    ("omweso", 2, 1, (6, 14, 10)),
    ("omweso", 2, 3, (12, 17, 182)),
    ("omweso", 2, 5, (12, 14, 1492)),
    ("rio_kadalis", 0, 1, (1, 4, 2)),
    ("rio_kadalis", 0, 3, (1, 4, 13)),
    ("rio_kadalis", 0, 5, (1, 4, 45)),
    ("rio_kadalis", 1, 1, (0, 0, 4)),
    ("rio_kadalis", 1, 3, (0, 0, 43)),
    ("rio_kadalis", 1, 5, (0, 0, 235)),
    ("rio_kadalis", 2, 1, (3, -8, 3)),
    ("rio_kadalis", 2, 3, (3, -8, 28)),
    ("rio_kadalis", 2, 5, (3, -8, 146)),
]


def _positions(name: str) -> tuple[Any, dict[int, np.ndarray]]:
    game = make_game(resolve_env_id(name))
    rng = np.random.default_rng(7)
    trace = np.zeros(0, np.int64)
    found = {}
    for k in range(3):
        state = game.new_state(0)
        for _ in range(int(rng.integers(0, 30))):
            legal = game.legal_actions(state)
            if legal.size == 0:
                break
            game.step(state, int(legal[rng.integers(legal.size)]), trace)
        if game.legal_actions(state).size:
            found[k] = state
    return game, found


@pytest.mark.parametrize("name", sorted({row[0] for row in BEFORE}))
def test_alphabeta_without_a_table_is_unchanged(name: str, tmp_path: Path) -> None:
    game, states = _positions(name)
    cases = [row for row in BEFORE if row[0] == name]
    assert sorted({k for _, k, _, _ in cases}) == sorted(states)
    for _, k, depth, expected in cases:
        assert alphabeta_search(game, states[k], depth, 0.37) == expected
    _, k, depth, expected = cases[-1]
    if game.legal_actions(states[k]).size > 1:  # the agent searches (one legal move: nothing to search)
        agent = AlphaBetaAgent(depth, seed=0, folder=tmp_path)  # no table in the folder
        draw = float(np.random.default_rng(0).random())  # the agent's first draw
        assert agent.act_on_state(game, states[k]) == alphabeta_search(game, states[k], depth, draw)[0]
        assert agent.last_table is None


# --- with the whole Modiar table --------------------------------------------------------------------------------
RULES_PAGE = [  # docs/rules/modiar.md: (name, board, stores, player, the best moves of the whole table)
    ("opening", None, None, 0, {2}),
    ("M2", [2, 8, 8, 8, 8, 8], [0, 0], 1, {2}),  # the capture of 6: margin 18 against -4 and -2
    ("M3", [5, 3, 1, 3, 2, 1], [14, 13], 0, {1}),  # the two-row chain: +9 against -11
    ("M10", [1, 2, 3, 1, 2, 3], [15, 15], 0, {1}),  # the repetition example: local 1 draws, local 2 loses 6
    ("M9''", [2, 2, 0, 0, 0, 0], [19, 19], 0, {0, 1}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "board", "stores", "player", "best"), RULES_PAGE, ids=[row[0] for row in RULES_PAGE])
def test_perfect_on_the_rules_page(
    tables_dir: Path,
    modiar_table: Any,
    name: str,
    board: list[int] | None,
    stores: list[int] | None,
    player: int,
    best: set[int],
) -> None:
    if board is None:
        env = mancala_envs.make("modiar_v0", first_player=player)
        env.reset(seed=0)
    else:
        env = modiar_env(board, player, stores)
    raw = env.unwrapped
    assert set(modiar_table.best_actions(raw.state_array)) == best
    assert {PerfectAgent(seed, folder=tables_dir).act(env) for seed in range(12)} == best
    # alpha-beta reads the whole table at its leaves: every child is in it, so it plays the same moves
    assert {AlphaBetaAgent(2, seed, folder=tables_dir).act(env) for seed in range(12)} == best


def _exact_positions(table: Any, count: int, seed: int) -> list[tuple[list[int], int]]:
    rng = np.random.default_rng(seed)
    found: list[tuple[list[int], int]] = []
    while len(found) < count:
        board = rng.multinomial(int(rng.integers(6, 25)), [1 / 6] * 6).tolist()
        player = int(rng.integers(2))
        state = modiar_state(board, player, game=table.game)
        if state[STATUS] == RUNNING and table.game.legal_actions(state).size > 1 and table.value(state).exact:
            found.append((board, player))
    return found


def _play(env: Any, agents: dict[str, Any]) -> int:
    """Plays the game out; returns player 0's final score minus player 1's."""
    for name in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(agents[name].act(env))
    scores = info["scores"]
    return int(scores[0] - scores[1])


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["perfect", "random", "greedy", "alphabeta:4"])
def test_perfect_keeps_exact_values_against_any_opponent(tables_dir: Path, modiar_table: Any, opponent: str) -> None:
    # From a position whose value is exact (the same whatever the history), perfect ends at least that far
    # ahead whatever the opponent plays, under the repetition rule; against itself exactly that far.
    for game_seed, (board, player) in enumerate(_exact_positions(modiar_table, 12, seed=len(opponent))):
        rest = 42 - sum(board)
        stores = [rest // 2, rest - rest // 2]
        state = modiar_state(board, player, stores, game=modiar_table.game)
        promised = stores[player] - stores[1 - player] + modiar_table.value(state).margin
        env = modiar_env(board, player, stores)
        other = make_agent(opponent, seed=game_seed)
        if isinstance(other, (PerfectAgent, AlphaBetaAgent)):
            other.folder = tables_dir
        agents = {f"player_{player}": PerfectAgent(game_seed, folder=tables_dir), f"player_{1 - player}": other}
        final = _play(env, agents) * (1 if player == 0 else -1)
        if opponent == "perfect":
            assert final == promised, (board, player)
        else:
            assert final >= promised, (board, player, opponent)


@pytest.mark.slow
def test_perfect_in_a_tournament_and_the_terminal_game(tables_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mancala_envs.analysis.tournament import run_tournament
    from mancala_envs.cli.terminal_game import play_human

    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(tables_dir))
    result = run_tournament("modiar", ["perfect", "greedy"], 4, seed=0, workers=1, progress=False)
    assert len(result.games) == 4
    wins = sum(1 for game in result.games if game.winner is not None and result.agents[game.winner] == "perfect")
    assert wins >= 2
    script = iter(["q"])
    final = play_human(
        "modiar", "perfect", seat=1, seed=0, input_fn=lambda prompt: next(script), out=io.StringIO(), first_player=0
    )
    assert final["stopped"] == "quit" and final["ply"] == 1  # perfect moved first, then the human quit
