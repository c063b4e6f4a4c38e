"""Property tests of Modiar (docs/rules/modiar.md), in the manner of ``tests/games/test_properties.py``.

* The compiled engine agrees with a small independent referee written here from
  the rules page, on reachable and on arbitrary positions: the legal mask and
  the whole result of every legal move (board, stores, next player, ply, end of
  the game, scores, winner). Illegal moves are refused and leave the state
  untouched.
* The environment (``illegal_action="raise"``) accepts exactly the masked
  actions, tried on deep copies.
* Stones are conserved and every game ends within ``max_plies`` plies, with
  rewards that follow the winner.
* A seed fixes the trajectory; pickling or deep-copying an env mid-game clones it.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import note
from hypothesis import strategies as st

from mancala_envs.engine.state import (
    END_REASON,
    END_REASON_NAMES,
    GAME_OVER,
    ILLEGAL,
    OK,
    PLAYER,
    PLY,
    RUNNING,
    SCORE,
    STATUS,
    TERMINATED,
    TRUNCATED,
    WINNER,
)
from mancala_envs.engine.trace import new_trace
from mancala_envs.envs import modiar_v0
from mancala_envs.games.modiar import Modiar, ModiarConfig

from support.properties import (
    accepted_actions,
    assert_clones_continue_identically,
    play_out,
    quick_and_slow,
    random_action,
    trajectory_step,
)

TOTAL = 42
CAPTURE_COUNTS = (2, 4, 6)
STATUS_NAMES = {RUNNING: "running", TERMINATED: "terminated", TRUNCATED: "truncated"}
NO_TRACE = np.empty(0, np.int64)


# --- an independent referee, straight from docs/rules/modiar.md ---------------------------------------------------


def referee_move(board: list[int], player: int, local: int, captures: bool) -> tuple[list[int], int, int]:
    """Rules 2-4: returns the board after the move, the stones captured, and P(1-player)'s row after sowing."""
    after = list(board)
    origin = 3 * player + local
    stones = after[origin]
    after[origin] = 1  # stone 1 goes back into the emptied pit
    pit = origin
    for _ in range(stones - 1):
        pit = (pit + 1) % 6
        after[pit] += 1
    opponent = range(3 * (1 - player), 3 * (1 - player) + 3)
    opponent_after_sowing = sum(after[i] for i in opponent)
    captured = 0
    if captures and after[pit] in CAPTURE_COUNTS:
        chain = [pit]
        while len(chain) < 6 and after[(chain[-1] - 1) % 6] in CAPTURE_COUNTS:
            chain.append((chain[-1] - 1) % 6)
        for i in chain:
            captured += after[i]
            after[i] = 0
    return after, captured, opponent_after_sowing


def referee_mask(board: list[int], player: int, captures: bool) -> list[int]:
    """Rules 1, 5 and 6."""
    allowed, feeding = [0, 0, 0], [0, 0, 0]
    for local in range(3):
        if board[3 * player + local] < 2:
            continue
        after, _, opponent_after_sowing = referee_move(board, player, local, captures)
        opponent_after = sum(after[3 * (1 - player) : 3 * (1 - player) + 3])
        if opponent_after_sowing > 0 and opponent_after == 0:
            continue
        allowed[local] = 1
        feeding[local] = int(opponent_after > 0)
    starving = sum(board[3 * (1 - player) : 3 * (1 - player) + 3]) == 0
    return feeding if starving and any(feeding) else allowed


class Referee:
    def __init__(self, board, stores, player, first_move, max_plies, repetition):
        self.board, self.stores, self.player = list(board), list(stores), player
        self.first_move, self.max_plies, self.repetition = first_move, max_plies, repetition
        self.ply = 0
        self.status, self.end_reason, self.winner = "running", None, None
        self.history = {(tuple(self.board), player)}
        self._check_end(loaded=True)

    def mask(self) -> list[int]:
        if self.status != "running":
            return [0, 0, 0]
        return referee_mask(self.board, self.player, not self.first_move)

    def _finish(self, status: str, reason: str) -> None:
        for p in range(2):
            self.stores[p] += sum(self.board[3 * p : 3 * p + 3])
        self.board = [0] * 6
        self.status, self.end_reason = status, reason
        if self.stores[0] != self.stores[1]:
            self.winner = int(self.stores[1] > self.stores[0])

    def _check_end(self, loaded: bool = False) -> None:
        if not any(self.mask()):
            starving = sum(self.board[3 * (1 - self.player) : 3 * (1 - self.player) + 3]) == 0
            self._finish("terminated", "no_feeding_move" if starving else "no_legal_move")
            return
        if self.repetition and not loaded:
            key = (tuple(self.board), self.player)
            if key in self.history:
                self._finish("terminated", "repetition")
                return
            self.history.add(key)
        if self.ply >= self.max_plies:
            self._finish("truncated", "max_plies")

    def play(self, action: int) -> None:
        self.board, captured, _ = referee_move(self.board, self.player, action, not self.first_move)
        self.stores[self.player] += captured
        self.first_move = False
        self.ply += 1
        if captured:
            self.history = set()
        self.player = 1 - self.player
        self._check_end()


def engine_view(game: Modiar, state: np.ndarray) -> dict[str, Any]:
    running = state[STATUS] == RUNNING
    return {
        "board": game.board(state).tolist(),
        "stores": game.stores(state).tolist(),
        "status": STATUS_NAMES[int(state[STATUS])],
        "ply": int(state[PLY]),
        "mask": game.legal_mask(state).tolist(),
        "player": int(state[PLAYER]) if running else None,
        "end_reason": END_REASON_NAMES[int(state[END_REASON])],
        "scores": None if running else [int(state[SCORE]), int(state[SCORE + 1])],
        "winner": None if running or state[WINNER] < 0 else int(state[WINNER]),
    }


def referee_view(referee: Referee) -> dict[str, Any]:
    running = referee.status == "running"
    return {
        "board": list(referee.board),
        "stores": list(referee.stores),
        "status": referee.status,
        "ply": referee.ply,
        "mask": referee.mask(),
        "player": referee.player if running else None,
        "end_reason": referee.end_reason,
        "scores": None if running else list(referee.stores),
        "winner": referee.winner,
    }


# --- strategies ----------------------------------------------------------------------------------------------

options = st.fixed_dictionaries({"max_plies": st.sampled_from([1000, 1000, 80, 9, 1]), "repetition": st.booleans()})
seeds = st.integers(0, 2**32 - 1)


@st.composite
def positions(draw: st.DrawFn) -> tuple[list[int], list[int], int]:
    """An arbitrary position holding 42 stones: (board, stores, player)."""
    on_board = draw(st.integers(0, TOTAL))
    store_0 = draw(st.integers(0, TOTAL - on_board))
    support = sorted(draw(st.sets(st.integers(0, 5), min_size=1)))
    board = [0] * 6
    for pit in draw(st.lists(st.sampled_from(support), min_size=on_board, max_size=on_board)):
        board[pit] += 1
    return board, [store_0, TOTAL - on_board - store_0], draw(st.integers(0, 1))


# --- engine against referee ----------------------------------------------------------------------------------


def check_position(game: Modiar, state: np.ndarray, referee: Referee) -> None:
    """Compares the position, then every action from it, engine against referee."""
    assert engine_view(game, state) == referee_view(referee)
    assert game.board(state).sum() + game.stores(state).sum() == TOTAL
    trace = new_trace()
    mask = referee.mask()
    for action in range(-1, 4):
        trial = state.copy()
        code = game.step(trial, action, trace)
        if state[STATUS] != RUNNING:
            assert code == GAME_OVER and np.array_equal(trial, state)
        elif action not in range(3) or not mask[action]:
            assert code == ILLEGAL and np.array_equal(trial, state), f"illegal action {action} was accepted"
        else:
            assert code == OK
            after = copy.deepcopy(referee)
            after.play(action)
            assert engine_view(game, trial) == referee_view(after), f"after action {action}"


def play_lockstep(game: Modiar, state: np.ndarray, referee: Referee, rng: random.Random, plies: int) -> None:
    for _ in range(plies + 1):
        check_position(game, state, referee)
        legal = [action for action, ok in enumerate(referee.mask()) if ok]
        if not legal:
            return
        action = rng.choice(legal)
        note(f"from {referee_view(referee)} play {action}")
        assert game.step(state, action, NO_TRACE) == OK
        referee.play(action)


def check_reachable_positions(config: dict, seed: int, first: int) -> None:
    game = Modiar(ModiarConfig(**config))
    referee = Referee([7] * 6, [0, 0], first, True, config["max_plies"], config["repetition"])
    play_lockstep(game, game.new_state(first), referee, random.Random(seed), 1000)


test_reachable_positions_match_referee, test_reachable_positions_match_referee_longer = quick_and_slow(
    30, 120, config=options, seed=seeds, first=st.integers(0, 1)
)(check_reachable_positions)


def check_arbitrary_positions(config: dict, position: tuple, seed: int) -> None:
    game = Modiar(ModiarConfig(**config))
    board, stores, player = position
    state = game.new_state(0)
    game.load_position(state, board, stores, player)
    referee = Referee(board, stores, player, False, config["max_plies"], config["repetition"])
    play_lockstep(game, state, referee, random.Random(seed), 12)


test_arbitrary_positions_match_referee, test_arbitrary_positions_match_referee_longer = quick_and_slow(
    200, 800, config=options, position=positions(), seed=seeds
)(check_arbitrary_positions)


def test_the_referee_reproduces_the_worked_examples() -> None:
    """The referee is only worth trusting if it gets docs/rules/modiar.md right."""
    opening = Referee([7] * 6, [0, 0], 0, True, 1000, True)
    opening.play(0)
    assert (opening.board, opening.stores) == ([2, 8, 8, 8, 8, 8], [0, 0])  # M1
    opening.play(2)
    assert (opening.board, opening.stores) == ([0, 9, 9, 9, 9, 0], [0, 6])  # M2
    m3 = Referee([5, 3, 1, 3, 2, 1], [14, 13], 0, False, 1000, True)
    m3.play(1)
    assert (m3.board, m3.stores) == ([5, 1, 0, 0, 2, 1], [20, 13])
    assert Referee([3, 0, 2, 1, 0, 0], [18, 18], 0, False, 1000, True).mask() == [1, 0, 0]  # M4
    assert Referee([7, 1, 3, 5, 1, 3], [11, 11], 0, False, 1000, True).mask() == [0, 0, 1]  # M5
    assert Referee([2, 0, 3, 0, 0, 0], [20, 17], 0, False, 1000, True).mask() == [0, 0, 1]  # M6
    m7 = Referee([1, 0, 1, 3, 2, 0], [17, 18], 0, False, 1000, True)
    assert (m7.status, m7.stores, m7.winner) == ("terminated", [19, 23], 1)


# --- the environment -----------------------------------------------------------------------------------------


@st.composite
def env_setups(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any] | None]:
    config = draw(options)
    start = None
    if draw(st.booleans()):
        board, stores, player = draw(positions())
        start = {"board": board, "stores": stores, "player": player}
    return config, start


def check_env_accepts_exactly_the_mask(setup: tuple, seed: int) -> None:
    config, start = setup
    env = modiar_v0.env(illegal_action="raise", **config)
    env.reset(seed=seed, options=start)
    rng = random.Random(seed)
    for _ in range(30):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        assert accepted_actions(env) == np.flatnonzero(mask).tolist()
        env.step(random_action(env, rng))


test_env_accepts_exactly_the_masked_actions, test_env_accepts_exactly_the_masked_actions_longer = quick_and_slow(
    15, 50, setup=env_setups(), seed=seeds
)(check_env_accepts_exactly_the_mask)


def check_whole_games(setup: tuple, seed: int) -> None:
    """Stones conserved, the end within max_plies, rewards by the winner."""
    config, start = setup
    env = modiar_v0.env(**config)
    env.reset(seed=seed, options=start)
    bound = config["max_plies"]
    rng = random.Random(seed)
    plies = 0
    final_rewards = {}
    for agent in env.agent_iter(max_iter=bound + 2):
        _, reward, terminated, truncated, _ = env.last()
        info = env.unwrapped.facts()
        assert sum(env.board) + sum(env.stores) == TOTAL
        assert info["ply"] <= bound
        if terminated or truncated:
            assert truncated == (info["end_reason"] == "max_plies") != terminated
            winner = info["winner"]
            final_rewards[agent] = reward
            assert reward == (0 if winner is None else 1 if agent == f"player_{winner}" else -1)
            assert info["match_points"] == [int(winner == 0), int(winner == 1)]
        action = random_action(env, rng)
        plies += action is not None
        env.step(action)
    assert not env.agents, f"still running after {bound} plies"
    assert plies <= bound
    assert set(final_rewards) == {"player_0", "player_1"}


test_whole_games_end_within_max_plies, test_whole_games_end_within_max_plies_longer = quick_and_slow(
    60, 250, setup=env_setups(), seed=seeds
)(check_whole_games)


@pytest.mark.parametrize("repetition", [True, False])
def test_default_games_end_within_max_plies(repetition: bool) -> None:
    rng = random.Random(7)
    env = modiar_v0.env(repetition=repetition, max_plies=300)
    for seed in range(15):
        env.reset(seed=seed)
        plies = 0
        while env.agents:
            action = random_action(env, rng)
            plies += action is not None
            env.step(action)
        assert plies <= 300


def check_same_seed_same_trajectory(config: dict, seed: int) -> None:
    records = []
    for _ in range(2):
        env = modiar_v0.env(**config)
        env.reset(seed=seed)
        records.append([trajectory_step(env), *play_out(env, random.Random(seed), 3000)])
    assert records[0] == records[1]


test_same_seed_same_trajectory, test_same_seed_same_trajectory_longer = quick_and_slow(
    15, 60, config=options, seed=seeds
)(check_same_seed_same_trajectory)


def test_first_player_is_drawn_from_the_seed() -> None:
    env = modiar_v0.env()
    firsts = set()
    for seed in range(40):
        env.reset(seed=seed)
        first = env.agent_selection
        env.reset(seed=seed)
        assert env.agent_selection == first
        firsts.add(first)
    assert firsts == {"player_0", "player_1"}


def check_clones_continue_identically(config: dict, seed: int, before: int, raw: bool) -> None:
    env = modiar_v0.env(**config)
    assert_clones_continue_identically(env.unwrapped if raw else env, seed, before)


test_pickle_and_deepcopy_mid_game_continue_identically, test_pickle_and_deepcopy_longer = quick_and_slow(
    15, 60, config=options, seed=seeds, before=st.integers(0, 40), raw=st.booleans()
)(check_clones_continue_identically)
