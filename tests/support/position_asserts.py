"""Shared checks of the exact-position rules tests: everything an agent can see, at once."""

from __future__ import annotations

import mancala_envs

AGENTS = ("player_0", "player_1")


def start(env_id, board, stores, player, total, **options):
    """An env reset to the given position; the hand-made position's seed total is checked first."""
    assert sum(board) + sum(stores) == total, "hand-made position does not hold T seeds"
    env = mancala_envs.make(env_id, first_player=player, **options)
    env.reset(seed=0, options={"board": list(board), "stores": list(stores), "player": player})
    return env


def assert_running(env, board, stores, to_move, mask, passes=0, **info):
    """The game goes on: exact board, stores, next agent, its mask; the other agent sees no moves.

    Extra keywords are further ``infos`` entries both agents must show (e.g. ``endless_move=False``).
    """
    n = len(mask)
    assert env.board.tolist() == board
    assert env.stores.tolist() == stores
    assert env.agent_selection == AGENTS[to_move]
    assert env.observe(AGENTS[to_move])["action_mask"].tolist() == mask
    assert env.observe(AGENTS[1 - to_move])["action_mask"].tolist() == [0] * n
    assert env.terminations == {"player_0": False, "player_1": False}
    assert env.truncations == {"player_0": False, "player_1": False}
    assert env.rewards == {"player_0": 0, "player_1": 0}
    expected_info = info
    facts = env.unwrapped.facts()  # the full facts, by name
    assert facts["end_reason"] is None
    assert facts["winner"] is None
    assert facts["player_to_move"] == to_move
    assert facts["scores"] == stores
    assert facts["passes"] == passes
    for key, value in expected_info.items():
        assert facts[key] == value, key
    for agent in AGENTS:
        assert_info_tells(env, env.infos[agent], facts)


def assert_over(
    env, board, scores, end_reason, winner, match_points=None, rewards=None, truncated=False, stores_are_scores=True
):
    """The game (or match) is over: board, stores, reason, winner, points, rewards, empty masks.

    ``board=None`` skips the board check; ``match_points=None`` skips the match-point check;
    ``rewards=None`` expects +1/-1/0 win/loss rewards; ``stores_are_scores=False`` skips comparing
    the stores with the scores (a Rio Kadalis match counts reserves in the score).
    """
    n = env.unwrapped.game.n_actions
    if board is not None:
        assert env.board.tolist() == board
    if stores_are_scores:
        assert env.stores.tolist() == scores
    assert env.terminations == {"player_0": not truncated, "player_1": not truncated}
    assert env.truncations == {"player_0": truncated, "player_1": truncated}
    if rewards is None:
        rewards = [0, 0] if winner is None else [1 if p == winner else -1 for p in range(2)]
    assert env.rewards == {"player_0": rewards[0], "player_1": rewards[1]}
    facts = env.unwrapped.facts()  # the full facts, by name
    assert facts["end_reason"] == end_reason
    assert facts["scores"] == scores
    assert facts["winner"] == winner
    if match_points is not None:
        assert facts["match_points"] == match_points
    assert facts["player_to_move"] is None
    for agent in AGENTS:
        assert env.observe(agent)["action_mask"].tolist() == [0] * n
        assert_info_tells(env, env.infos[agent], facts)


def assert_info_tells(env, info, facts):
    """``info`` (an agent's entry of ``env.infos``) tells ``facts`` in the env's infos mode: the same dict under
    ``infos="full"``; under the default lean infos, the same facts as numbers (codes, -1 for none, arrays)."""
    if env.unwrapped.infos_mode == "full":
        assert info == facts
        return
    assert env.unwrapped.game.end_reason_names[info["end_reason"]] == facts["end_reason"]
    assert info["winner"] == (-1 if facts["winner"] is None else facts["winner"])
    assert info["player_to_move"] == (-1 if facts["player_to_move"] is None else facts["player_to_move"])
    assert info["scores"].tolist() == facts["scores"]
    assert info["match_points"].tolist() == facts["match_points"]
    assert (info["ply"], info["passes"], info["games_played"]) == (facts["ply"], facts["passes"], facts["games_played"])
