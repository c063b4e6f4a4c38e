"""Every game and variant as an OpenSpiel game (:mod:`mancala_envs.integrations.openspiel`).

What is checked:

- one pyspiel game per registered id, named ``mancala_envs_<id>``, registered once, with the right
  ``GameType`` and ``GameInfo``, and parameters for ``first_player`` and the game options;
- OpenSpiel's own random-simulation test on every id (and once with serialization);
- random games through pyspiel equal the same actions through ``mancala_envs.make``, ply by ply:
  legal actions, player to move (the same player twice where the rules say so), both players'
  observations, returns and rewards, the text board, the final infos; the pyspiel state is cloned
  along the way, so the repetition memory must travel with the clones;
- truncation at the ply cap, positions, clones that are independent, serialization and pickling;
- OpenSpiel's MCTS bot plays whole games against our greedy and random agents (``AgentBot``) on
  Ouril and Omweso, and beats random; alpha-beta search solves small Kalah and Modiar endgames
  to the value a plain minimax over the engine gives; OpenSpiel's RL environment plays a game;
- ``import mancala_envs`` does not import pyspiel, the process exits cleanly, and the example runs.
"""

# ruff: noqa: E402  (open_spiel and mancala_envs.integrations.openspiel need pyspiel: they are imported after the
# importorskip below, so that without the openspiel extra this file is skipped rather than failing to import)
from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the openspiel extra: pip install 'mancala-envs[openspiel]'")

from open_spiel.python import rl_environment
from open_spiel.python.algorithms import mcts, minimax
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

import mancala_envs
from mancala_envs.engine.state import OK, PLAYER, RUNNING, STATUS, WINNER
from mancala_envs.envs.registration import VARIANTS, make_game
from mancala_envs.integrations.openspiel import (
    AgentBot,
    MancalaGame,
    MancalaState,
    load_game,
    openspiel_name,
    openspiel_names,
    register_openspiel_games,
)

ROOT = Path(__file__).resolve().parents[2]
VARIANT_IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")
NO_TRACE = np.empty(0, dtype=np.int64)
OUTCOMES = ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


# --- registration -----------------------------------------------------------------------------------------
def test_one_openspiel_game_per_registered_id() -> None:
    names = register_openspiel_games()
    assert register_openspiel_games() == names  # idempotent
    assert list(openspiel_names()) == VARIANT_IDS
    assert names == [f"mancala_envs_{env_id.split('/')[1].replace('-', '_')}" for env_id in VARIANT_IDS]
    assert set(names) <= set(pyspiel.registered_names())
    assert openspiel_name("ouril_v0") == openspiel_name("mancala/ouril-v0") == "mancala_envs_ouril_v0"
    assert openspiel_name("rio-kadalis-cw-v0") == "mancala_envs_rio_kadalis_cw_v0"
    for name in ("ouril_v0", "mancala/ouril-v0", "mancala_envs_ouril_v0"):
        assert load_game(name).get_type().short_name == "mancala_envs_ouril_v0"
    with pytest.raises(ValueError, match="unknown environment"):
        load_game("oware_v0")


@pytest.mark.parametrize("env_id", VARIANT_IDS)
def test_game_type_and_info_describe_the_game(env_id: str) -> None:
    game = pyspiel.load_game(openspiel_name(env_id))
    engine = make_game(env_id)
    kind = game.get_type()
    assert isinstance(game, MancalaGame) and game.env_id == env_id
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (game.num_players(), game.min_utility(), game.max_utility(), game.utility_sum()) == (2, -1.0, 1.0, 0.0)
    assert game.num_distinct_actions() == engine.n_actions
    assert game.max_game_length() == engine.max_episode_plies
    assert game.max_chance_outcomes() == 0
    assert game.observation_tensor_shape() == [engine.observation_size]
    assert game.engine_game.config == engine.config  # the parameters' defaults are the variant's options
    assert kind.parameter_specification["first_player"] == 0
    options = {field.name for field in dataclasses.fields(engine.config)}
    assert set(kind.parameter_specification) == {"first_player"} | options  # every option is a parameter


def test_parameters_carry_the_game_options() -> None:
    game = pyspiel.load_game("mancala_envs_urim_v0(trigger=[2;3],chain=[2],pit_capacity=0,first_player=1)")
    config = game.engine_game.config
    assert (config.trigger, config.chain, config.pit_capacity) == ((2, 3), (2,), None)
    assert game.new_initial_state().current_player() == 1
    assert game.env_options() == {"first_player": 1, "pit_capacity": None, "chain": (2,)}
    env = mancala_envs.make(game.env_id, **game.env_options())
    assert env.unwrapped.game.config == config
    assert load_game("urim_v0", match_target=5).engine_game.is_match
    assert load_game("ouril_v0", win_threshold=20).engine_game.config.win_threshold == 20
    assert load_game("ouril_v0").engine_game.config.win_threshold is None  # 0 stands for None
    spec = pyspiel.load_game("mancala_envs_urim_v0").get_type().parameter_specification
    assert (spec["trigger"], spec["chain"], spec["pit_capacity"], spec["match_target"]) == ("[2;3]", "[2;3;4]", 17, 0)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("ouril_v0", {"first_player": 2}, "first_player=2 is not allowed"),
        ("ouril_v0", {"pits_per_row": 5}, "pits_per_row=5 is not allowed"),
        ("urim_v0", {"trigger": "2;3"}, "must be seed counts between brackets"),
        ("urim_v0", {"trigger": "[2;x]"}, "must be seed counts between brackets"),
    ],
)
def test_bad_parameters_are_refused_with_the_configs_message(name: str, params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_game(name, **params)


# --- OpenSpiel's own checks ---------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", VARIANT_IDS)
def test_openspiel_random_simulation_test(env_id: str) -> None:
    game = load_game(env_id)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0", "rio-kadalis-match-v0"])
def test_openspiel_random_simulation_test_with_serialization(env_id: str) -> None:
    pyspiel.random_sim_test(load_game(env_id, first_player=1), num_sims=1, serialize=True, verbose=False)


# --- the same games as the env --------------------------------------------------------------------------------
def assert_same_ply(state: MancalaState, env: object) -> None:
    """The pyspiel state and the AEC env agree on everything a player sees now."""
    raw = env.unwrapped
    ended = any(raw.terminations.values()) or any(raw.truncations.values())
    assert state.is_terminal() == ended
    assert state.returns() == [float(raw.rewards[agent]) for agent in AGENTS]
    assert np.array_equal(state.state_array, raw.state_array)
    assert str(state) == env.render()
    for player, agent in enumerate(AGENTS):
        observation = raw.observe(agent)
        assert state.observation_tensor(player) == observation["observation"].astype(np.float32).tolist()
        assert state.observation_string(player) == raw.position()
    if not ended:
        assert state.current_player() == AGENTS.index(raw.agent_selection)
        mask = raw.observe(raw.agent_selection)["action_mask"]
        assert state.legal_actions() == np.flatnonzero(mask).tolist()
    else:
        assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []


def play_both(env_id: str, seed: int, **options: object) -> dict[str, Any]:
    """Plays one random game through pyspiel and the env side by side, cloning the pyspiel state every
    other ply (the game goes on in the clone). Returns what was seen: plies, repeated movers, end reason,
    truncation and the final pyspiel state."""
    game = load_game(env_id, **options)
    env = mancala_envs.make(env_id, render_mode="ansi", **options)
    env.reset(seed=seed)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    seen = {"plies": 0, "same_player_again": 0}
    assert_same_ply(state, env)
    while not state.is_terminal():
        player = state.current_player()
        action = int(rng.choice(state.legal_actions()))
        if seen["plies"] % 2:
            state = state.clone()
        state.apply_action(action)
        env.step(action)
        seen["plies"] += 1
        seen["same_player_again"] += state.current_player() == player
        assert_same_ply(state, env)
    info = env.unwrapped.facts()
    del info["last_move"]
    assert state.info() == info
    assert state.move_number() == seen["plies"] == len(state.history())
    seen["end_reason"] = info["end_reason"]
    seen["truncated"] = any(env.unwrapped.truncations.values())
    seen["state"] = state
    return seen


@pytest.mark.parametrize("env_id", VARIANT_IDS)
def test_random_games_equal_the_env_ply_by_ply(env_id: str) -> None:
    for seed, first_player in ((0, 0), (1, 1)):
        play_both(env_id, seed, first_player=first_player)


def test_the_same_player_moves_again_where_the_rules_say_so() -> None:
    # Kalah: a last seed in one's own store gives an extra turn (3 pits then the store from pit 2).
    state = load_game("kalah_v0").new_initial_state()
    state.apply_action(2)
    assert state.current_player() == 0
    # Omweso's mid-turn choices, and Kalah's extra turns, in random games equal to the env's.
    for env_id in ("omweso_v0", "kalah_v0"):
        assert sum(play_both(env_id, seed, first_player=0)["same_player_again"] for seed in range(3)) > 0


@pytest.mark.parametrize("env_id", ["ouril_v0", "urim_v0", "rio_kadalis_v0"])
def test_clones_carry_the_repetition_memory(env_id: str) -> None:
    """A game that ends by repetition ends on the same ply through pyspiel clones as in the env; the
    same last move from the same position without the memory (loaded from its notation) does not."""
    ended = next(
        seen["state"]
        for seen in (play_both(env_id, seed, first_player=seed % 2) for seed in range(200))
        if seen["end_reason"] == "repetition"
    )
    game = ended.get_game()
    state = game.new_initial_state()
    for action in ended.history()[:-1]:
        state.apply_action(action)
        state = state.clone()
    forgetful = game.new_initial_state(state.position())
    assert forgetful.legal_actions() == state.legal_actions() and not state.is_terminal()
    state.apply_action(ended.history()[-1])
    forgetful.apply_action(ended.history()[-1])
    assert state.info()["end_reason"] == "repetition" and state.returns() == ended.returns()
    assert forgetful.info()["end_reason"] != "repetition"


@pytest.mark.parametrize(
    ("env_id", "options"),
    [("ouril_v0", {"max_plies": 15}), ("omweso_v0", {"max_turns": 4}), ("rio-kadalis-match-v0", {"max_rounds": 1})],
)
def test_a_game_truncated_at_its_cap_ends_as_in_the_env(env_id: str, options: dict) -> None:
    seen = play_both(env_id, 3, first_player=0, **options)
    assert seen["truncated"]
    assert load_game(env_id, **options).max_game_length() == make_game(env_id, **options).max_episode_plies


def test_a_position_starts_as_env_reset_with_it() -> None:
    env = mancala_envs.make("kalah_v0", render_mode="ansi")
    position = "0,0,2,0,3,2/1,0,0,1,1,0 18,20 1"
    env.reset(seed=0, options={"position": position})
    state = load_game("kalah_v0").new_initial_state(position)
    assert state.position() == position
    assert_same_ply(state, env)
    structured = load_game("kalah_v0").new_initial_state(
        {"board": [0, 0, 2, 0, 3, 2, 1, 0, 0, 1, 1, 0], "stores": [18, 20], "player": 1}
    )
    assert np.array_equal(structured.state_array, state.state_array)
    with pytest.raises(ValueError, match="seeds"):
        load_game("kalah_v0").new_initial_state("0,0,2,0,3,2/1,0,0,1,1,0 18,21 1")


def test_actions_are_described_in_our_words() -> None:
    state = load_game("omweso_v0").new_initial_state()
    legal = state.legal_actions()
    words = [state.action_to_string(0, action) for action in legal]
    assert words == [state.engine_game.describe_action(state.state_array, action) for action in legal]
    assert len(set(words)) == len(words)  # OpenSpiel's string_to_action needs them distinct
    assert state.string_to_action(words[0]) == legal[0]
    assert state.action_to_string(1, 3) == "player 1 action 3"  # not the player to move
    with pytest.raises(ValueError, match="illegal"):
        state.apply_action(next(a for a in range(state.num_distinct_actions()) if a not in legal))


# --- clones and serialization -----------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0", "kalah_v0", "rio-kadalis-match-v0"])
def test_clones_are_independent(env_id: str) -> None:
    state = load_game(env_id).new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(6):
        state.apply_action(int(rng.choice(state.legal_actions())))
    before = (state.state_array, state.history(), str(state), state.observation_tensor(0))
    clone = state.clone()
    assert isinstance(clone, MancalaState) and clone.history() == state.history()
    assert np.array_equal(clone.state_array, state.state_array)
    while not clone.is_terminal():
        clone.apply_action(clone.legal_actions()[-1])
    after = (state.state_array, state.history(), str(state), state.observation_tensor(0))
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]
    frozen = clone.state_array
    state.apply_action(state.legal_actions()[0])
    assert np.array_equal(clone.state_array, frozen) and clone.is_terminal()


@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0", "urim_v0"])
def test_a_serialized_state_continues_as_the_original(env_id: str) -> None:
    game = load_game(env_id, first_player=1)
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    for _ in range(10):
        state.apply_action(int(rng.choice(state.legal_actions())))
    copy_game, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(copy_game) == str(game) and copy.history() == state.history()
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        copy.apply_action(action)
        assert np.array_equal(copy.state_array, state.state_array)
    assert copy.returns() == state.returns()


def test_games_and_states_pickle() -> None:
    game = load_game("omweso_v0", first_player=1, no_capture_turns=1)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    copy_game = pickle.loads(pickle.dumps(game))  # as multiprocessing hands a game to its workers
    assert str(copy_game) == str(game) and copy_game.engine_game.config == game.engine_game.config
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history() and np.array_equal(copy.state_array, state.state_array)


# --- OpenSpiel's algorithms ---------------------------------------------------------------------------------------
def mcts_bot(game: pyspiel.Game, simulations: int, seed: int) -> mcts.MCTSBot:
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    return mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=np.random.RandomState(seed))


def play_checked(state: MancalaState, bots: list) -> list[float]:
    """Plays ``bots`` (player 0's first) to the end, checking that every action is legal."""
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    return state.returns()


@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0"])
def test_mcts_plays_whole_games_against_greedy_and_beats_random(env_id: str) -> None:
    game = load_game(env_id)
    score_vs_random = 0.0
    for seat in (0, 1):
        for opponent in ("greedy", "random"):
            searcher = mcts_bot(game, simulations=25, seed=seat)
            other = AgentBot(opponent, seed=seat)
            state = game.new_initial_state()
            returns = play_checked(state, [searcher, other] if seat == 0 else [other, searcher])
            assert returns in OUTCOMES and state.is_terminal()
            assert state.move_number() <= game.max_game_length()
            if opponent == "random":
                score_vs_random += returns[seat]
    assert score_vs_random > 0


def test_openspiel_rl_environment_plays_a_game() -> None:
    environment = rl_environment.Environment(load_game("kalah_v0"))
    step = environment.reset()
    rng = np.random.default_rng(0)
    while not step.last():
        player = step.observations["current_player"]
        assert len(step.observations["info_state"][player]) == environment.game.observation_tensor_size()
        step = environment.step([int(rng.choice(step.observations["legal_actions"][player]))])
    assert step.rewards in OUTCOMES


def test_evaluate_bots_plays_our_agents() -> None:
    state = load_game("modiar_v0").new_initial_state()
    returns = evaluate_bots(
        state, [AgentBot("greedy", seed=0), AgentBot("alphabeta:2", seed=0)], np.random.default_rng(0)
    )
    assert returns in OUTCOMES and state.is_terminal()


def solve(engine: object, state: np.ndarray, root: int) -> float:
    """The value for ``root`` of ``state`` under perfect play: a plain minimax over the engine."""
    if state[STATUS] != RUNNING:
        return 0.0 if state[WINNER] < 0 else (1.0 if state[WINNER] == root else -1.0)
    values = []
    for action in engine.legal_actions(state):
        child = state.copy()
        assert engine.step(child, int(action), NO_TRACE) == OK
        values.append(solve(engine, child, root))
    return max(values) if state[PLAYER] == root else min(values)


@pytest.mark.parametrize(
    ("env_id", "position"),
    [
        ("kalah_v0", "0,0,2,0,3,2/1,0,0,1,1,0 18,20 0"),  # extra turns on the way
        ("kalah_v0", "1,0,0,0,1,2/0,2,0,1,0,1 20,20 1"),
        ("modiar_v0", "4,3,4/3,4,3 11,10 0"),
        ("modiar_v0", "5,0,3/2,4,1 14,13 1"),
    ],
)
def test_alpha_beta_search_solves_endgames(env_id: str, position: str) -> None:
    game = load_game(env_id)
    state = game.new_initial_state(position)
    value, action = minimax.alpha_beta_search(game, state, maximum_depth=100)
    root = state.current_player()
    assert value == solve(state.engine_game, state.state_array, root)
    child = state.clone()
    child.apply_action(action)
    assert solve(child.engine_game, child.state_array, root) == value  # the move it names keeps the value


# --- packaging and the example --------------------------------------------------------------------------------
def test_pyspiel_is_optional_and_the_process_exits_cleanly() -> None:
    script = (
        "import sys, mancala_envs\n"
        "assert 'pyspiel' not in sys.modules and 'open_spiel' not in sys.modules\n"
        "import mancala_envs.integrations.openspiel as openspiel\n"
        "state = openspiel.load_game('kalah_v0').new_initial_state()\n"
        "state.clone().apply_action(0)\n"
        "print('ok')\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert child.returncode == 0 and child.stdout == "ok\n", child.stderr[-2000:]


def test_the_example_runs_with_tiny_settings() -> None:
    command = [
        sys.executable,
        str(ROOT / "examples" / "openspiel_mcts.py"),
        "--env-id",
        "modiar_v0",
        "--games",
        "2",
        "--simulations",
        "5",
        "--opponent",
        "greedy",
        "--seed",
        "1",
    ]
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert child.returncode == 0, child.stderr[-4000:]
    lines = child.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["game 1", "game 2"]
    assert lines[-1].startswith("MCTS (5 simulations) vs greedy on modiar_v0: ")
    assert "score" in lines[-1] and "game plies/s" in lines[-1]
