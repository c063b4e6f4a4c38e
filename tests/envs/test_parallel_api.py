"""PettingZoo's parallel API over the turn-based envs (issue 19, item 4).

The games are turn-based, so PettingZoo's ``aec_to_parallel`` refuses them and
``turn_based_aec_to_parallel`` (``mancala_envs.wrappers.turn_based_parallel``) is the conversion to use:

- ``parallel_api_test`` passes on the turn-based form of every registered id;
- a parallel step plays exactly the ply that the AEC env plays for the same action: the same acting agent,
  observations, masks, rewards, terminations, truncations and infos (plus ``active_agent``), step by step,
  including an Omweso decision point, a Kalah extra turn and an Ouril automatic pass, where the same agent
  acts in two consecutive parallel steps; the other agent's entry of ``actions`` is never read;
- ``aec_to_parallel`` is refused with PettingZoo's error, as the docs say, and fails when forced;
- our messages that send a parallel env back to the AEC env name ``turn_based_aec_to_parallel``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo.utils.conversions import (
    aec_to_parallel,
    aec_to_parallel_wrapper,
    turn_based_aec_to_parallel,
    turn_based_aec_to_parallel_wrapper,
)

import mancala_envs
from mancala_envs.engine.state import END_ILLEGAL_ACTION
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.wrappers import (
    EncodeObservation,
    FlattenObservation,
    OneHotObservation,
    PlanesObservation,
    StackObservation,
    ThermometerObservation,
    apply_wrappers,
    turn_based_parallel,
)

from support.contract import plain

with warnings.catch_warnings():
    # pettingzoo.test imports pettingzoo.classic.connect_four_v3 through PettingZoo's old creation API,
    # which warns at import time (about PettingZoo's own module, not ours).
    warnings.filterwarnings("ignore", message="The old environment creation API", category=DeprecationWarning)
    from pettingzoo.test import parallel_api_test

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")
RULES_PAGES = sorted((Path(__file__).resolve().parents[2] / "docs" / "rules").glob("*.md"))

# Omweso's worked example W9 (docs/rules/omweso.md): player 0's move 11 stops at a relay decision point.
W9 = [2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2] + [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2]
W9_AFTER_CHOICE = [3, 3, 1, 4, 1, 2, 2, 2, 2, 1, 0, 0, 3, 3, 3, 0] + [4, 2, 2, 3, 0, 2, 2, 4, 0, 3, 2, 0, 3, 3, 2, 2]
# Ouril's worked example O5 (docs/rules/ouril.md): player 0's move 4 is a grand slam, player 1 passes.
O5 = {"board": [3, 3, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0], "stores": [17, 18], "player": 0}


class NeverRead:
    """An entry of ``actions`` for the agent not to act: the AEC env's ``step`` would refuse it."""

    def __repr__(self) -> str:
        return "NeverRead()"


def legal(mask: np.ndarray) -> list[int]:
    return np.flatnonzero(mask).tolist()


def agent_to_act(observations: dict[str, Any]) -> str:
    """The one agent whose mask is not all zero."""
    acting = [agent for agent, observation in observations.items() if observation["action_mask"].any()]
    assert len(acting) == 1, f"exactly one agent should have legal actions: {acting}"
    return acting[0]


def without_active_agent(info: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in info.items() if key != "active_agent"}


def play_in_lockstep(
    env_id: str,
    make_options: dict[str, Any],
    reset_options: dict[str, Any] | None,
    script: Sequence[int],
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Plays one episode on the turn-based parallel form and on a twin AEC env with the same actions.

    The first actions are ``script``'s, the rest drawn from the mask with a seeded generator. Every step
    sends the acting agent's action and :class:`NeverRead` for the other agent. Checks, step by step, that
    the parallel env returns exactly the AEC env's observations, masks, rewards, terminations, truncations
    and infos, that ``active_agent`` names the AEC env's next agent (absent at ``reset`` and after the last
    step), and that the episode ends with every agent removed and the rewards summing to the AEC env's.

    Returns:
        One record per step: ``agent`` (who acted), ``legal`` (its legal actions before), ``action``,
        ``rewards``, ``terminations``, ``next_agent`` (None after the last step) and ``next_legal``.
    """
    aec_env = mancala_envs.make(env_id, **make_options)
    par_env = turn_based_parallel(mancala_envs.make(env_id, **make_options))
    aec_env.reset(seed=seed, options=reset_options)
    observations, infos = par_env.reset(seed=seed, options=reset_options)

    assert par_env.agents == aec_env.agents == list(AGENTS)
    acting = agent_to_act(observations)
    assert acting == aec_env.agent_selection
    for agent in AGENTS:
        assert "active_agent" not in infos[agent]  # PettingZoo's reset adds none: the mask tells
        assert AGENTS[infos[agent]["player_to_move"]] == acting
        assert plain(infos[agent]) == plain(aec_env.infos[agent])
        np.testing.assert_array_equal(observations[agent]["observation"], aec_env.observe(agent)["observation"])

    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(AGENTS, 0)
    steps: list[dict[str, Any]] = []
    while par_env.agents:
        mask = observations[acting]["action_mask"]
        index = len(steps)
        action = script[index] if index < len(script) else int(rng.choice(np.flatnonzero(mask)))
        other = AGENTS[1 - AGENTS.index(acting)]
        observations, rewards, terminations, truncations, infos = par_env.step({acting: action, other: NeverRead()})
        aec_env.step(action)

        assert set(observations) == set(aec_env.agents) == set(AGENTS)
        for agent in AGENTS:
            expected = aec_env.observe(agent)
            np.testing.assert_array_equal(observations[agent]["observation"], expected["observation"])
            np.testing.assert_array_equal(observations[agent]["action_mask"], expected["action_mask"])
            assert plain(without_active_agent(infos[agent])) == plain(aec_env.infos[agent])
            totals[agent] += rewards[agent]
        assert rewards == aec_env.rewards
        assert terminations == aec_env.terminations
        assert truncations == aec_env.truncations

        over = any(terminations.values()) or any(truncations.values())
        if over:
            assert all(terminations.values()) or all(truncations.values())
            assert all(not observation["action_mask"].any() for observation in observations.values())
            assert all("active_agent" not in info for info in infos.values())
            assert par_env.agents == []
            next_agent = None
        else:
            next_agent = agent_to_act(observations)
            assert next_agent == aec_env.agent_selection
            assert all(info["active_agent"] == next_agent for info in infos.values())
            assert all(reward == 0 for reward in rewards.values())
            assert par_env.agents == list(AGENTS)
        steps.append(
            {
                "agent": acting,
                "legal": legal(mask),
                "action": action,
                "rewards": dict(rewards),
                "terminations": dict(terminations),
                "next_agent": next_agent,
                "next_legal": legal(observations[next_agent]["action_mask"]) if next_agent else [],
            }
        )
        acting = next_agent

    final_rewards = dict(aec_env.rewards)
    while aec_env.agents:  # the AEC agents leave by stepping None, which the parallel form did inside step
        aec_env.step(None)
    assert totals == final_rewards == steps[-1]["rewards"]
    return steps


# --- PettingZoo's own check --------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_parallel_api_test_passes_on_the_turn_based_form(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = mancala_envs.make(env_id)
    par_env = turn_based_aec_to_parallel(env)
    for seed, agent in enumerate(env.possible_agents):  # the checker samples from these spaces
        env.action_space(agent).seed(seed)
    parallel_api_test(par_env, num_cycles=env.unwrapped.game.max_episode_plies + 10)
    assert "Passed Parallel API test" in capsys.readouterr().out
    assert par_env.agents == [], "the checker's last episode should have run to its end"


@pytest.mark.parametrize("env_id", ["mancala/omweso-v0", "mancala/kalah-v0"])
def test_parallel_api_test_passes_over_observation_wrappers(env_id: str) -> None:
    env = apply_wrappers(mancala_envs.make(env_id), [{"name": "planes", "cap": 8}, {"name": "stack", "k": 2}])
    par_env = turn_based_parallel(env)
    for seed, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed)
    parallel_api_test(par_env, num_cycles=env.unwrapped.game.max_episode_plies + 10)
    assert par_env.agents == []
    assert par_env.observation_space("player_0") is env.observation_space("player_0")


# --- one ply per parallel step, exactly as the AEC env --------------------------------------------------
# The ids whose agents always alternate, as the rules pages' "Parallel API" sections say: no pass (Urim's
# grand slam captures nothing by default), no extra turn, no decision point, one game per episode.
ALTERNATING = {
    "mancala/urim-v0",
    "mancala/urim7-v0",
    "mancala/urim48-v0",
    "mancala/modiar-v0",
    "mancala/rio-kadalis-v0",
    "mancala/rio-kadalis5-v0",
    "mancala/rio-kadalis-cw-v0",
    "mancala/omweso-no-midturn-reverse-v0",
}


@pytest.mark.parametrize("env_id", IDS)
def test_every_parallel_step_is_the_aec_ply(env_id: str) -> None:
    steps = play_in_lockstep(env_id, {}, None, script=(), seed=1)
    assert steps[-1]["next_agent"] is None
    if env_id in ALTERNATING:
        assert all(step["next_agent"] in (None, AGENTS[1 - AGENTS.index(step["agent"])]) for step in steps)


def test_omweso_placement_is_32_parallel_steps_of_each_agent() -> None:
    steps = play_in_lockstep("mancala/omweso-placement-v0", {"first_player": 1}, None, script=(), seed=2)
    assert [step["agent"] for step in steps[:65]] == ["player_1"] * 32 + ["player_0"] * 32 + ["player_1"]


def test_omweso_decision_point_is_two_parallel_steps_of_one_agent() -> None:
    steps = play_in_lockstep("omweso_v0", {"first_player": 0}, {"board": W9, "player": 0}, script=[11, 31])
    zeros = dict.fromkeys(AGENTS, 0)
    move, choice = steps[0], steps[1]
    assert move == {
        "agent": "player_0",
        "legal": [0, 1, 3, 5, 6, 7, 8, 11, 15, 16, 31],
        "action": 11,
        "rewards": zeros,
        "terminations": dict.fromkeys(AGENTS, False),
        "next_agent": "player_0",  # the relay from pit 15: the same agent chooses the direction
        "next_legal": [15, 31],
    }
    assert choice["agent"] == "player_0" and choice["legal"] == [15, 31] and choice["action"] == 31
    assert choice["rewards"] == zeros and choice["next_agent"] == "player_1"
    assert choice["next_legal"] == [0, 1, 2, 3, 5, 6, 7, 9, 10, 12, 13, 14, 15, 17]


def test_omweso_decision_point_state_and_infos() -> None:
    par_env = turn_based_parallel(mancala_envs.make("omweso_v0", first_player=0, infos="full"))
    par_env.reset(options={"board": W9, "player": 0})
    observations, _, _, _, infos = par_env.step({"player_0": 11})  # the other agent's entry may be left out
    assert infos["player_1"]["active_agent"] == "player_0"
    assert infos["player_0"]["pending"] == {"kind": "relay", "pit": 15, "seeds": 3, "anchor": 11, "actions": [15, 31]}
    assert legal(observations["player_1"]["action_mask"]) == []
    observations, rewards, _, _, infos = par_env.step({"player_0": 31, "player_1": 0})
    assert par_env.unwrapped.board.tolist() == W9_AFTER_CHOICE
    assert rewards == dict.fromkeys(AGENTS, 0)
    assert infos["player_0"]["last_move"]["captures"] == [[27, 2], [20, 3]]
    assert infos["player_0"]["active_agent"] == "player_1"
    assert legal(observations["player_0"]["action_mask"]) == []


def test_kalah_extra_turn_is_two_parallel_steps_of_one_agent() -> None:
    steps = play_in_lockstep("kalah_v0", {"first_player": 0}, None, script=[2, 5])
    zeros = dict.fromkeys(AGENTS, 0)
    assert [(step["agent"], step["action"], step["next_agent"]) for step in steps[:2]] == [
        ("player_0", 2, "player_0"),  # the last seed falls into player 0's store: an extra turn
        ("player_0", 5, "player_1"),
    ]
    assert steps[0]["legal"] == [0, 1, 2, 3, 4, 5] and steps[0]["next_legal"] == [0, 1, 3, 4, 5]
    assert steps[1]["legal"] == [0, 1, 3, 4, 5] and steps[1]["next_legal"] == [0, 1, 2, 3, 4, 5]
    assert steps[0]["rewards"] == steps[1]["rewards"] == zeros
    assert sorted(steps[-1]["rewards"].values()) in ([-1, 1], [0, 0])


def test_ouril_automatic_pass_is_two_parallel_steps_of_one_agent() -> None:
    steps = play_in_lockstep("ouril_v0", {"first_player": 0}, O5, script=[4, 5])
    assert [
        (step["agent"], step["legal"], step["action"], step["next_agent"], step["next_legal"]) for step in steps[:2]
    ] == [
        ("player_0", [0, 1, 3, 4], 4, "player_0", [5]),  # grand slam: player 1 passes, player 0 must feed
        ("player_0", [5], 5, "player_1", [0]),
    ]


def test_the_last_parallel_step_carries_the_final_rewards() -> None:
    # Ouril's O6: O5 with stores [22, 13]; the grand slam takes player 0 to 26 seeds, past the threshold.
    steps = play_in_lockstep("ouril_v0", {"first_player": 0}, {**O5, "stores": [22, 13]}, script=[4])
    assert steps == [
        {
            "agent": "player_0",
            "legal": [0, 1, 3, 4],
            "action": 4,
            "rewards": {"player_0": 1, "player_1": -1},
            "terminations": {"player_0": True, "player_1": True},
            "next_agent": None,
            "next_legal": [],
        }
    ]


def test_an_illegal_action_is_the_aec_envs_penalty() -> None:
    par_env = turn_based_parallel(mancala_envs.make("kalah_v0", first_player=0))
    par_env.reset(seed=0)
    par_env.step({"player_0": 2})  # extra turn; pit 2 is now empty
    with pytest.warns(UserWarning, match="illegal action 2 by player_0"):
        _, rewards, terminations, _, infos = par_env.step({"player_0": 2, "player_1": 0})
    assert rewards == {"player_0": -1, "player_1": 0}
    assert all(terminations.values()) and infos["player_0"]["end_reason"] == END_ILLEGAL_ACTION
    assert par_env.agents == []


def test_the_acting_agents_action_must_be_given() -> None:
    par_env = turn_based_parallel(mancala_envs.make("kalah_v0", first_player=0))
    par_env.reset(seed=0)
    with pytest.raises(KeyError, match="player_0"):
        par_env.step({"player_1": 0})


# --- aec_to_parallel stays refused ----------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_aec_to_parallel_is_refused(env_id: str) -> None:
    env = mancala_envs.make(env_id)
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is not generally safe"):
        aec_to_parallel(env)


@pytest.mark.parametrize(
    ("first_player", "actions", "expected"),
    [
        (1, {"player_0": 0, "player_1": 0}, "expected agent player_0 got agent player_1"),  # player_1 starts
        (0, {"player_0": 2, "player_1": 0}, "expected agent player_1 got agent player_0"),  # an extra turn
    ],
)
def test_aec_to_parallel_forced_fails_on_a_turn_based_game(first_player: int, actions: dict, expected: str) -> None:
    """What the docs give as the reason: it steps every agent once per parallel step, player_0 first."""
    env = mancala_envs.make("kalah_v0", first_player=first_player)
    env.metadata = {**env.metadata, "is_parallelizable": True}
    par_env = aec_to_parallel_wrapper(env)
    par_env.reset(seed=0)
    with pytest.raises(AssertionError, match=expected):
        par_env.step(actions)


# --- the helper -------------------------------------------------------------------------------------------
def test_turn_based_parallel_is_pettingzoos_turn_based_conversion() -> None:
    env = FlattenObservation(mancala_envs.make("ouril_v0"))
    par_env = turn_based_parallel(env)
    assert type(par_env) is turn_based_aec_to_parallel_wrapper
    assert par_env.aec_env is env and par_env.unwrapped is env.unwrapped
    assert par_env.possible_agents == list(AGENTS)


@pytest.mark.parametrize(
    ("name", "build", "words"),
    [
        ("a parallel env", lambda: turn_based_parallel(mancala_envs.make("ouril_v0")), "already a parallel one"),
        ("an env id", lambda: "ouril_v0", "got str"),
        ("None", lambda: None, "got NoneType"),
        ("the single-agent env", lambda: SingleAgentEnv("ouril_v0"), "the single-agent env has no parallel form"),
        ("a Gymnasium env", lambda: gymnasium.make("CartPole-v1"), "mancala_envs.make('ouril_v0')"),
    ],
)
def test_turn_based_parallel_refuses_what_it_cannot_convert(name: str, build: Callable[[], Any], words: str) -> None:
    subject = build()
    with pytest.raises(TypeError, match=re.escape(words)):
        turn_based_parallel(subject)


# --- our messages name the conversion that works -----------------------------------------------------------
WRAPPERS: dict[str, Callable[[Any], Any]] = {
    "FlattenObservation": FlattenObservation,
    "OneHotObservation": OneHotObservation,
    "ThermometerObservation": ThermometerObservation,
    "PlanesObservation": PlanesObservation,
    "StackObservation": StackObservation,
    "EncodeObservation": lambda env: EncodeObservation(env, "one_hot"),
    "apply_wrappers": lambda env: apply_wrappers(env, ["flat"]),
}


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_wrapping_a_parallel_env_names_turn_based_aec_to_parallel(name: str) -> None:
    par_env = turn_based_parallel(mancala_envs.make("ouril_v0"))
    with pytest.raises(TypeError, match="not a parallel one") as error:
        WRAPPERS[name](par_env)
    message = str(error.value)
    inner = "apply_wrappers(env, specs)" if name == "apply_wrappers" else f"{name}(env)"
    assert f"pettingzoo.utils.conversions.turn_based_aec_to_parallel({inner})" in message
    assert f"mancala_envs.wrappers.turn_based_parallel({inner})" in message
    # Every call of a conversion in the message is the turn-based one; aec_to_parallel is only named as refused.
    assert set(re.findall(r"(\w*)aec_to_parallel\(", message)) == {"turn_based_"}
    assert "aec_to_parallel refuses" in message


@pytest.mark.parametrize("page", RULES_PAGES, ids=lambda path: path.stem)
def test_every_rules_page_names_the_valid_parallel_form(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith("| Parallel API |")]
    assert "turn_based_aec_to_parallel" in row and "aec_to_parallel" in row.replace("turn_based_aec_to_parallel", "")
    assert "\n## Parallel API\n" in text
