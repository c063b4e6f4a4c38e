"""Game records, the recorder wrappers and ``mancala-envs replay``.

A record is checked move by move against the game that made it: the exact record of a short
Ouril game worked out by hand from docs/rules/ouril.md, a JSON round trip, and for every
registered id a recorded game whose replay passes through the same positions and ends in the
same engine state and infos. The single-agent recorder is checked with the learner in either seat
(so the opponent sometimes moves first, inside ``reset``). Malformed records raise ``ValueError``
naming the field. The animations are checked frame by frame against ``env.render()``.
"""

from __future__ import annotations

import copy
import doctest
import json
import math
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.cli import main, play_demo, print_replay
from mancala_envs.envs.records import RECORD_FORMAT, GameRecord, replay, write_animation
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.wrappers import GymRecordGames, RecordGames

from support.contract import plain
from support.pettingzoo_checks import api_test, only_dict_observation_warnings, seed_test
from support.reference import OURIL_DEFAULTS

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")
OURIL_OPTIONS = OURIL_DEFAULTS  # Ouril's whole default config, as a record stores it
# Ouril, player 0 to move, stores 22 and 9 (48 seeds in all):
#   local 4 (one seed) -> global 5 holds 2 (own pit, no capture);
#   player 1 local 0 (one seed) -> global 7 holds 2 (own pit);
#   local 5 (two seeds) -> global 6 holds 1, global 7 holds 3: captured (3); pit 6 holds 1, the chain
#   stops. Store 22 + 3 = 25 reaches the threshold: player 0 wins, the board stays (rule 8).
OURIL_START = "0,0,0,1,1,1/1,1,4,4,4,0 22,9 0"
OURIL_MOVES = [4, 0, 5]
OURIL_RECORD = {
    "format": "mancala-envs-game-1",
    "env": "mancala/ouril-v0",
    "options": OURIL_OPTIONS,
    "start": OURIL_START,
    "moves": [
        {"player": 0, "action": 4, "move": "sows pit 4"},
        {"player": 1, "action": 0, "move": "sows pit 6"},
        {"player": 0, "action": 5, "move": "sows pit 5"},
    ],
    "result": {"winner": 0, "scores": [25, 9], "match_points": [1, 0], "end_reason": "threshold"},
    "players": ["alice", "bob"],
    "seed": 7,
}
OURIL_POSITIONS = [
    OURIL_START,
    "0,0,0,1,0,2/1,1,4,4,4,0 22,9 1",
    "0,0,0,1,0,2/0,2,4,4,4,0 22,9 0",
    "0,0,0,1,0,0/1,0,4,4,4,0 25,9 0",
]


# --- helpers ---------------------------------------------------------------------------------------
def play_random(env: Any, seed: int) -> dict[str, Any]:
    """Plays one seeded random game through ``env`` (an AEC env); returns what was seen on the way:
    the position after the reset and after every ply, and the final infos and engine state."""
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    positions = [raw.position()]
    final: dict[str, Any] = {}
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            if not final:
                final = {"infos": plain(raw.infos), "facts": raw.facts(), "state": raw.state_array}
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        positions.append(raw.position())
    return {"positions": positions, **final}


def ouril_record() -> GameRecord:
    env = RecordGames(mancala_envs.make("ouril_v0", illegal_action="raise"), players=["alice", "bob"])
    env.reset(seed=7, options={"position": OURIL_START})
    for action in OURIL_MOVES:
        env.step(action)
    return env.records[-1]


def play_single_agent(env: Any, rng: np.random.Generator) -> list[int]:
    """Plays a single-agent episode with random legal actions; returns the learner's actions."""
    actions = []
    while True:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        actions.append(action)
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return actions


# --- the record of a hand-played game ----------------------------------------------------------------
def test_hand_played_ouril_game_gives_the_exact_record(tmp_path: Path) -> None:
    env = RecordGames(
        mancala_envs.make("ouril_v0", illegal_action="raise"), directory=tmp_path, keep=True, players=["alice", "bob"]
    )
    env.reset(seed=7, options={"position": OURIL_START})
    for action in OURIL_MOVES[:2]:
        env.step(action)
    assert env.current_moves() == [{"player": 0, "action": 4}, {"player": 1, "action": 0}]
    assert env.records == [] and list(tmp_path.iterdir()) == []  # nothing until the game ends
    env.step(OURIL_MOVES[2])
    assert env.unwrapped.facts()["end_reason"] == "threshold"
    assert [record.to_dict() for record in env.records] == [OURIL_RECORD]
    assert env.games_recorded == 1 and env.current_moves() == []
    written = tmp_path / "game-000000.json"
    assert sorted(tmp_path.iterdir()) == [written]
    assert json.loads(written.read_text(encoding="utf-8")) == OURIL_RECORD
    lines = written.read_text(encoding="utf-8").splitlines()
    assert '    {"player": 1, "action": 0, "move": "sows pit 6"},' in lines  # one move per line


def test_replay_passes_through_every_position_of_the_hand_played_game() -> None:
    record = GameRecord.from_dict(OURIL_RECORD)
    seen = [(env.position(), env.board.tolist(), env.stores.tolist()) for env in replay(record)]
    assert [position for position, _, _ in seen] == OURIL_POSITIONS
    assert seen[-1][1:] == ([0, 0, 0, 1, 0, 0, 1, 0, 4, 4, 4, 0], [25, 9])
    *_, env = replay(record)
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.last_move == {"player": 0, "action": 5, "sown": [6, 7], "captures": [[7, 3]]}


def test_json_round_trip(tmp_path: Path) -> None:
    record = ouril_record()
    assert GameRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record
    assert json.loads(record.to_json()) == record.to_dict()
    path = record.save(tmp_path / "ouril.json")
    assert GameRecord.load(path) == record
    assert GameRecord.load(str(path)).to_dict() == OURIL_RECORD
    assert record.to_dict()["format"] == RECORD_FORMAT == "mancala-envs-game-1"


def test_a_record_by_hand_needs_only_players_and_actions() -> None:
    record = GameRecord("ouril_v0", {}, "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1", [{"player": 1, "action": 2}])
    positions = [env.position() for env in replay(record)]
    # Player 1's local 2 is global 8: its 4 seeds go to 9, 10, 11 and 0.
    assert positions == ["4,4,4,4,4,4/4,4,4,4,4,4 0,0 1", "5,4,4,4,4,4/4,4,0,5,5,5 0,0 0"]
    assert record.result is None and record.players is None and record.seed is None


# --- every registered id ---------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_every_id_records_and_replays_to_the_same_final_state(env_id: str) -> None:
    env = RecordGames(mancala_envs.make(env_id))
    for seed in (0, 1):
        played = play_random(env, seed)
        record = GameRecord.from_dict(json.loads(env.records[-1].to_json()))
        assert record.env == env_id and record.seed == seed
        assert len(record.moves) == len(played["positions"]) - 1
        assert record.result == {key: played["facts"][key] for key in record.result}
        rebuilt = mancala_envs.make(record.env, **record.options)
        assert rebuilt.game.config == env.unwrapped.game.config
        positions = []
        for replayed in replay(record):
            positions.append(replayed.position())
        assert positions == played["positions"]
        np.testing.assert_array_equal(replayed.state_array, played["state"])
        assert plain(replayed.infos) == played["infos"] and replayed.facts() == played["facts"]
    assert env.games_recorded == 2 and len(env.records) == 2


def test_omweso_mid_turn_choices_are_recorded_and_replayed() -> None:
    env = RecordGames(mancala_envs.make("omweso_v0"))
    played = play_random(env, seed=5)
    moves = env.records[-1].moves
    choices = [n for n, move in enumerate(moves) if move["move"].startswith(("relays from", "re-sows"))]
    # Seed 5 plays three mid-turn choices (a relay, a re-sow of captured seeds, a relay); each is
    # a second ply of the same player in a row.
    assert len(choices) == 3 and moves[choices[1]]["move"].startswith("re-sows the captured seeds")
    assert all(moves[n]["player"] == moves[n - 1]["player"] for n in choices)
    *_, replayed = replay(env.records[-1])
    np.testing.assert_array_equal(replayed.state_array, played["state"])


@pytest.mark.parametrize("env_id", ["mancala/urim-match-v0", "mancala/rio-kadalis-match-v0", "mancala/omweso-match-v0"])
def test_a_match_is_one_record_over_all_its_games(env_id: str) -> None:
    env = RecordGames(mancala_envs.make(env_id))
    played = play_random(env, seed=3)
    info = played["facts"]
    assert info["games_played"] > 1 or env_id.startswith("mancala/rio")  # Rio Kadalis counts rounds
    record = env.records[-1]
    assert record.result["end_reason"] == info["end_reason"] and record.result["match_points"] == info["match_points"]
    *_, replayed = replay(record)
    np.testing.assert_array_equal(replayed.state_array, played["state"])


def test_a_truncated_game_replays_to_its_truncation() -> None:
    env = RecordGames(mancala_envs.make("ouril_v0", first_player=1, max_plies=6))
    played = play_random(env, seed=0)
    record = env.records[-1]
    assert record.env == "ouril_v0" and record.options["max_plies"] == 6  # no registered variant has this config
    assert len(record.moves) == 6 and record.result["end_reason"] == "max_plies"
    assert [move["player"] for move in record.moves] == [1, 0, 1, 0, 1, 0]
    *_, replayed = replay(record)
    assert replayed.truncations == {"player_0": True, "player_1": True}
    np.testing.assert_array_equal(replayed.state_array, played["state"])


def test_an_illegal_action_under_the_penalty_policy_is_recorded_and_replayed() -> None:
    env = RecordGames(mancala_envs.make("urim_v0", first_player=0))
    env.reset(options={"board": [2, 1, 0, 3, 0, 4, 1, 3, 1, 2, 4, 0], "stores": [8, 7], "player": 0})
    env.step(5)  # Urim example U2: captures 11
    with pytest.warns(UserWarning, match="illegal action 5 by player_1"):
        env.step(5)  # player 1's local 5 (global 11) is empty
    record = env.records[-1]
    assert record.moves == [
        {"player": 0, "action": 5, "move": "sows pit 5"},
        {"player": 1, "action": 5, "move": "illegal action 5", "illegal": True},
    ]
    assert record.result == {"winner": 0, "scores": [19, 7], "match_points": [0, 0], "end_reason": "illegal_action"}
    *_, replayed = replay(GameRecord.from_dict(record.to_dict()))  # no warning escapes the replay
    np.testing.assert_array_equal(replayed.state_array, env.unwrapped.state_array)
    assert replayed.rewards == {"player_0": 0, "player_1": -1}


def test_a_game_over_at_reset_is_not_recorded() -> None:
    env = RecordGames(mancala_envs.make("urim_v0"))
    env.reset(options={"board": [1, 0, 0, 2, 0, 0] + [0] * 6, "stores": [24, 9], "player": 1})
    assert env.unwrapped.terminations["player_1"] and env.unwrapped.facts()["end_reason"] == "no_legal_move"
    assert env.records == [] and env.games_recorded == 0  # no move was played; the reset settled the board
    env.step(None)
    assert env.records == []


def test_steps_that_raise_record_nothing() -> None:
    env = RecordGames(mancala_envs.make("ouril_v0", first_player=0, illegal_action="raise"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(9)
    with pytest.raises(TypeError):
        env.step("1")
    env.step(np.int64(2))
    env.step(np.array(3))
    with pytest.raises(mancala_envs.IllegalActionError):
        env.step(2)  # player 0's local 2 was emptied
    assert env.current_moves() == [{"player": 0, "action": 2}, {"player": 1, "action": 3}]


def test_games_are_recorded_only_from_a_reset_through_the_wrapper() -> None:
    inner = mancala_envs.make("ouril_v0", first_player=0)
    inner.reset(seed=0)
    env = RecordGames(inner)
    env.step(0)  # the game began before the recorder: not recorded
    assert env.current_moves() == []
    env.reset(seed=0)
    env.step(1)
    snapshot = env.unwrapped.state_dict()
    env.load_state_dict(snapshot)  # a restored game is not recorded either
    env.step(1)
    assert env.current_moves() == [] and env.records == []


def test_recorder_directory_prefix_and_keep(tmp_path: Path) -> None:
    env = RecordGames(mancala_envs.make("ouril_v0", max_plies=4), directory=tmp_path / "games", prefix="ouril")
    for seed in range(3):
        play_random(env, seed)
    names = sorted(path.name for path in (tmp_path / "games").iterdir())
    assert names == ["ouril-000000.json", "ouril-000001.json", "ouril-000002.json"]
    assert env.records == [] and env.games_recorded == 3  # with a directory, keep defaults to False
    assert GameRecord.load(tmp_path / "games" / "ouril-000002.json").seed == 2


def test_recorder_docstring_examples_run() -> None:
    # tests/project/test_doctests.py walks mancala_envs' own directory, which does not hold the wrappers package.
    import mancala_envs.wrappers.recorder as recorder

    result = doctest.testmod(recorder, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 8 and result.failed == 0


def test_recorder_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="RecordGames wraps a mancala_envs AEC environment"):
        RecordGames(SingleAgentEnv("ouril_v0"))
    with pytest.raises(TypeError, match="GymRecordGames wraps the single-agent env"):
        GymRecordGames(mancala_envs.make("ouril_v0"))
    with pytest.raises(ValueError, match="prefix"):
        RecordGames(mancala_envs.make("ouril_v0"), prefix="a/b")
    with pytest.raises(TypeError, match="players"):
        RecordGames(mancala_envs.make("ouril_v0"), players=["only one"])
    with pytest.raises(TypeError, match="keep"):
        RecordGames(mancala_envs.make("ouril_v0"), keep="yes")


@pytest.mark.parametrize("env_id", ["ouril_v0", "mancala/omweso-placement-v0"])
def test_recorder_passes_pettingzoo_api_and_seed_tests(env_id: str) -> None:
    env = RecordGames(mancala_envs.make(env_id))
    with only_dict_observation_warnings():
        api_test(env, num_cycles=env.unwrapped.game.max_episode_plies + 10)
        seed_test(lambda: RecordGames(mancala_envs.make(env_id)), num_cycles=200)
    assert env.games_recorded >= 1
    *_, replayed = replay(env.records[-1])
    assert replayed.terminations["player_0"] or replayed.truncations["player_0"]


# --- the single-agent recorder ----------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0"])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize(("seat", "first_player"), [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_single_agent_records_the_plies_of_both_sides(env_id: str, opponent: str, seat: int, first_player: int) -> None:
    single = SingleAgentEnv(env_id, opponent=opponent, learner_seat=seat, first_player=first_player)
    env = GymRecordGames(single, learner_name="ppo")
    rng = np.random.default_rng(seat)
    for seed in (0, 1):
        env.reset(seed=seed)
        learner_actions = play_single_agent(env, rng)
        record = env.records[-1]
        opening = mancala_envs.make(env_id, first_player=first_player)
        opening.reset()
        assert record.start == opening.position()  # taken before the opponent's first ply
        assert record.moves[0]["player"] == first_player
        assert [m["action"] for m in record.moves if m["player"] == seat] == learner_actions
        assert record.players == (["ppo", opponent] if seat == 0 else [opponent, "ppo"]) and record.seed == seed
        *_, replayed = replay(record)
        np.testing.assert_array_equal(replayed.state_array, single.aec_env.state_array)
        assert record.result == {key: single.aec_env.facts()[key] for key in record.result}
    assert env.games_recorded == 2


def test_single_agent_start_position_is_the_one_before_the_opponent_moved() -> None:
    start = "2,1,0,3,0,4/1,3,1,2,4,0 8,7 1"
    env = GymRecordGames(SingleAgentEnv("urim_v0", opponent="greedy", learner_seat=0))
    env.reset(seed=0, options={"position": start})
    moved = env.current_moves()
    assert moved and moved[0]["player"] == 1  # the opponent moved inside reset
    play_single_agent(env, np.random.default_rng(0))
    assert env.records[-1].start == start
    *_, replayed = replay(env.records[-1])
    np.testing.assert_array_equal(replayed.state_array, env.unwrapped.aec_env.state_array)


def test_single_agent_illegal_action_under_penalty_ends_the_record() -> None:
    start = "4,0,4,4,4,4/4,4,4,4,4,8 0,0 0"
    env = GymRecordGames(SingleAgentEnv("ouril_v0", opponent="greedy", learner_seat=0))
    env.reset(seed=0, options={"position": start})
    env.step(0)  # player 0's local 0 (4 seeds) -> pits 1..4; the opponent replies
    reply = env.current_moves()[1]
    assert env.current_moves()[0] == {"player": 0, "action": 0} and reply["player"] == 1
    empty = np.flatnonzero(~env.action_masks()).tolist()
    assert empty, "the learner needs an empty pit to play illegally"
    _, reward, terminated, _, info = env.step(empty[0])
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    record = env.records[-1]
    assert record.start == start
    assert [(m["player"], m["action"]) for m in record.moves] == [(0, 0), (1, reply["action"]), (0, empty[0])]
    assert record.moves[-1] == {"player": 0, "action": empty[0], "move": f"illegal action {empty[0]}", "illegal": True}
    stores = env.unwrapped.aec_env.stores.tolist()  # the penalty leaves the board and stores as they were
    assert record.result == {"winner": 1, "scores": stores, "match_points": [0, 0], "end_reason": "illegal_action"}
    *_, replayed = replay(record)  # replays the penalty; its result is checked against the record
    assert replayed.rewards == {"player_0": -1, "player_1": 0}


def test_single_agent_recorder_forwards_masks_and_closes() -> None:
    single = SingleAgentEnv("ouril_v0", opponent="random", learner_seat=1)
    env = GymRecordGames(single)
    env.reset(seed=3)
    np.testing.assert_array_equal(env.action_masks(), single.action_masks())
    assert single.aec_env.ply_observers
    env.close()
    assert single.aec_env.ply_observers == []


# --- malformed records ---------------------------------------------------------------------------------
def edit(path: str, value: Any) -> dict[str, Any]:
    """OURIL_RECORD with the entry at ``path`` (``"moves.0.action"``) replaced (appended one past the end of a
    list), or removed if ``value`` is ``...``."""
    data = copy.deepcopy(OURIL_RECORD)
    *parents, last = path.split(".")
    target: Any = data
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    key = int(last) if isinstance(target, list) else last
    if value is ...:
        del target[key]
    elif isinstance(target, list) and key == len(target):
        target.append(value)
    else:
        target[key] = value
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([OURIL_RECORD], "a game record must be a JSON object"),
        (edit("format", "mancala-envs-game-0"), "field 'format' must be 'mancala-envs-game-1'"),
        (edit("env", ...), "no field 'env'"),
        (edit("colour", "red"), "unknown field 'colour'"),
        (edit("env", "chess"), "field 'env' is not a registered environment: unknown environment 'chess'"),
        (edit("env", 3), "field 'env' must be an environment id"),
        (edit("options", [6]), "field 'options' must be an object of game options"),
        (edit("options.colour", "red"), "field 'options' does not configure mancala/ouril-v0: .*no option 'colour'"),
        (edit("options.pits_per_row", 5), "field 'options' does not configure .*pits_per_row"),
        (edit("options.pits_per_row", {"n": 6}), "field 'options.pits_per_row' must be a JSON value"),
        (edit("start", 4), "field 'start' must be a position"),
        (edit("start", "0,0,0,1,1,1/1,1,4,4,4 22,9 0"), "field 'start' is not a position of ouril_v0: .*6 counts"),
        (edit("start", "0,0,0,1,1,1/1,1,4,4,4,1 22,9 0"), "field 'start' is not a position of ouril_v0: .*49 seeds"),
        (edit("moves", {"player": 0}), "field 'moves' must be a list"),
        (edit("moves.1", [1, 0]), r"field 'moves\[1\]' must be an object with 'player' and 'action'"),
        (edit("moves.1.action", ...), r"field 'moves\[1\]' must be an object with 'player' and 'action'"),
        (edit("moves.1.player", 2), r"field 'moves\[1\].player' must be 0 or 1"),
        (edit("moves.1.player", True), r"field 'moves\[1\].player' must be 0 or 1"),
        (edit("moves.1.action", "0"), r"field 'moves\[1\].action' must be an integer >= 0"),
        (edit("moves.1.action", 1.0), r"field 'moves\[1\].action' must be an integer >= 0"),
        (edit("moves.2.action", 6), r"field 'moves\[2\].action' must be an action of ouril_v0, 0..5"),
        (edit("moves.1.move", 3), r"field 'moves\[1\].move' must be the move in words"),
        (edit("moves.0.illegal", True), r"field 'moves\[0\].illegal' must be only on the last move"),
        (edit("moves.2.illegal", False), r"field 'moves\[2\].illegal' must be true"),
        (edit("moves.2.illegal", True), "field 'result.end_reason' must be 'illegal_action' exactly when"),
        (edit("result.ply", 3), "field 'result' must be null or an object with exactly the keys"),
        (edit("result.winner", 2), "field 'result.winner' must be 0, 1 or null"),
        (edit("result.winner", 0.0), "field 'result.winner' must be 0, 1 or null"),
        (edit("result.scores", [25]), "field 'result.scores' must be a list of two integers"),
        (edit("result.end_reason", "checkmate"), "field 'result.end_reason' must be one of"),
        (edit("players", "alice"), "field 'players' must be null or a list of two names"),
        (edit("seed", -1), "field 'seed' must be null or an integer >= 0"),
    ],
)
def test_malformed_records_name_the_field(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameRecord.from_dict(data)


def test_a_file_that_is_not_json_is_named(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": ', encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.json is not a JSON game record"):
        GameRecord.load(path)
    with pytest.raises(FileNotFoundError):
        GameRecord.load(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            edit("moves.1.action", 5),
            (
                r"move 2 \(player 1, action 5\) is illegal in the replay after move 1; "
                r"the legal actions are \[0, 1, 2, 3, 4\]"
            ),
        ),
        (edit("moves.1.player", 0), r"move 2 \(player 0, .*\) is by player_0, but player_1 is to move after move 1"),
        (
            edit("moves.3", {"player": 1, "action": 0}),
            r"move 4 \(player 1, action 0\) comes after the end of the game \(it ended after move 3: threshold\)",
        ),
        (edit("moves.2", ...), "the record's 2 moves end before the game does"),
        (edit("result.scores", [25, 8]), r"the replay ends with .*'scores': \[25, 9\].*but the record's result is"),
    ],
)
def test_replay_names_the_move_that_does_not_fit(data: dict[str, Any], message: str) -> None:
    record = GameRecord.from_dict(data)
    with pytest.raises(ValueError, match=message):
        list(replay(record))


def test_a_legal_move_marked_illegal_is_refused() -> None:
    data = edit("moves.2.illegal", True)
    data["result"]["end_reason"] = "illegal_action"
    with pytest.raises(ValueError, match=r"move 3 \(player 0, action 5\) is marked illegal, but it is legal"):
        list(replay(GameRecord.from_dict(data)))


# --- animations and the command line --------------------------------------------------------------------
def rendered_positions(record: GameRecord) -> list[np.ndarray]:
    return [env.render() for env in replay(record, render_mode="rgb_array")]


def test_gif_has_a_frame_per_position_and_holds_the_last(tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    record = ouril_record()
    assert write_animation(record, tmp_path / "game.gif", fps=4, end_pause=1.5) == [tmp_path / "game.gif"]
    pictures = rendered_positions(record)
    with image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == len(record.moves) + 1 == 4
        assert gif.info["loop"] == 0
        durations = []
        for index in range(gif.n_frames):
            gif.seek(index)
            durations.append(gif.info["duration"])
            frame = np.asarray(gif.convert("RGB"))
            assert frame.shape == pictures[index].shape and frame.dtype == np.uint8 and frame.shape[2] == 3
    assert durations == [250, 250, 250, 1750]


@pytest.mark.parametrize(
    ("out", "names"),
    [
        ("frames", [f"frames/frame-{i:03d}.png" for i in range(4)]),
        ("frames/", [f"frames/frame-{i:03d}.png" for i in range(4)]),
        ("move-*.png", [f"move-{i:03d}.png" for i in range(4)]),
        ("board.png", [f"board-{i:03d}.png" for i in range(4)]),
    ],
)
def test_png_frames_are_the_rendered_positions(tmp_path: Path, out: str, names: list[str]) -> None:
    image = pytest.importorskip("PIL.Image")
    record = ouril_record()
    written = write_animation(record, f"{tmp_path}/{out}")
    assert written == [tmp_path / name for name in names]
    for path, picture in zip(written, rendered_positions(record), strict=True):
        with image.open(path) as png:
            np.testing.assert_array_equal(np.asarray(png.convert("RGB")), picture)  # lossless: exactly env.render()


def test_mp4_has_a_frame_per_position_plus_the_pause(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
    record = GameRecord.from_dict(OURIL_RECORD)
    write_animation(record, tmp_path / "game.mp4", fps=5, end_pause=1.0)
    frames, seconds = imageio_ffmpeg.count_frames_and_secs(str(tmp_path / "game.mp4"))
    assert frames == len(record.moves) + 1 + 5 and math.isclose(seconds, frames / 5, abs_tol=0.05)
    reader = imageio_ffmpeg.read_frames(str(tmp_path / "game.mp4"))
    meta = next(reader)
    reader.close()
    height, width, _ = rendered_positions(record)[0].shape
    assert meta["size"] == (width + width % 2, height + height % 2)


def test_missing_packages_say_which_extra_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = GameRecord.from_dict(OURIL_RECORD)
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"needs Pillow .*pip install 'mancala-envs\[render\]'"):
        write_animation(record, tmp_path / "game.gif")
    monkeypatch.setitem(sys.modules, "moviepy.video.io.ffmpeg_writer", None)
    with pytest.raises(ImportError, match=r"needs moviepy .*pip install 'mancala-envs\[render\]'"):
        write_animation(record, tmp_path / "game.mp4")
    assert list(tmp_path.iterdir()) == []


def test_bad_animation_arguments(tmp_path: Path) -> None:
    record = GameRecord.from_dict(OURIL_RECORD)
    with pytest.raises(ValueError, match=r"must end in \.gif, \.mp4 or \.png"):
        write_animation(record, tmp_path / "game.avi")
    with pytest.raises(ValueError, match="fps must be an integer between 1 and 60"):
        write_animation(record, tmp_path / "game.gif", fps=0)
    with pytest.raises(ValueError, match="end_pause"):
        write_animation(record, tmp_path / "game.gif", end_pause=-1)
    with pytest.raises(ValueError, match="is illegal in the replay"):
        write_animation(GameRecord.from_dict(edit("moves.1.action", 5)), tmp_path / "game.gif")
    assert list(tmp_path.iterdir()) == []  # nothing is written for a record that does not replay


def test_demo_records_the_game_it_plays(tmp_path: Path) -> None:
    out = StringIO()
    final = play_demo("urim", ["greedy", "random"], seed=4, out=out, record=tmp_path / "demo.json")
    path = tmp_path / "demo.json"
    assert out.getvalue().rstrip().splitlines()[-1] == f"Recorded the game to {path} (mancala-envs replay {path})"
    record = GameRecord.load(path)
    assert record.env == "mancala/urim-v0" and record.players == ["greedy", "random"] and record.seed == 4
    assert len(record.moves) == final["ply"] and record.result["scores"] == final["scores"]
    sown = sum(move["move"].startswith("sows pit ") for move in record.moves)
    assert out.getvalue().count(" sows pit ") == final["ply"] == sown
    list(replay(record))  # replays to the recorded result


def test_cli_replay_prints_the_game_move_by_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ouril_record().save(tmp_path / "game.json")
    assert main(["replay", str(tmp_path / "game.json")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "mancala/ouril-v0: player_0 = alice, player_1 = bob"
    moves = (
        "1. player_0 sows pit 4 (action 4)",
        "2. player_1 sows pit 6 (action 0)",
        "3. player_0 sows pit 5 (action 5)",
    )
    for line in moves:
        assert line in text.splitlines()
    assert text.rstrip().splitlines()[-1] == "Result: player_0 (alice) wins; scores 25-9, end: threshold, moves: 3"
    out = StringIO()
    print_replay(GameRecord("ouril_v0", {}, OURIL_START, [{"player": 0, "action": 4}]), out)
    assert "1. player_0 plays action 4" in out.getvalue() and "Unfinished: 1 moves recorded" in out.getvalue()


def test_cli_demo_record_then_replay_to_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = pytest.importorskip("PIL.Image")
    record_path, gif_path = tmp_path / "game.json", tmp_path / "game.gif"
    assert main(["demo", "--game", "modiar", "--seed", "1", "--record", str(record_path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(record_path), "--out", str(gif_path), "--fps", "5"]) == 0
    moves = len(GameRecord.load(record_path).moves)
    assert capsys.readouterr().out == f"Wrote {moves + 1} positions ({moves} moves) to {gif_path}\n"
    with image.open(gif_path) as gif:
        assert gif.n_frames == moves + 1
        for index in range(gif.n_frames):
            gif.seek(index)
            assert gif.info["duration"] == (200 if index < moves else 2200)
            frame = np.asarray(gif.convert("RGB"))
            assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["replay", "{dir}/missing.json"], "cannot read the game record '{dir}/missing.json': No such file"),
        (["replay", "{dir}/bad.json"], "game record field 'seed' must be null or an integer >= 0 (got -1)."),
        (["replay", "{dir}/good.json", "--out", "{dir}/game.avi"], "cannot write '{dir}/game.avi': the output must"),
        (
            ["replay", "{dir}/good.json", "--out", "{dir}/no/dir/game.gif"],
            "cannot write the animation to '{dir}/no/dir/game.gif': "
            "the folder '{dir}/no/dir' does not exist; create it",
        ),
        (["replay", "{dir}/good.json", "--fps", "0"], "argument --fps: invalid value '0' (use an integer >= 1)"),
        (["replay"], "the following arguments are required: record"),
        (["demo", "--record", "{dir}/no/dir/game.json"], "cannot write '{dir}/no/dir/game.json'"),
    ],
)
def test_cli_replay_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    GameRecord.from_dict(OURIL_RECORD).save(tmp_path / "good.json")
    (tmp_path / "bad.json").write_text(json.dumps(edit("seed", -1)), encoding="utf-8")
    assert main([arg.format(dir=tmp_path) for arg in argv]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mancala-envs: error: " + message.format(dir=tmp_path))
    assert "Traceback" not in captured.err and captured.out == ""  # the demo checks the path before it plays
