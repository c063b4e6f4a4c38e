"""Opponents of the single-agent view (:mod:`mancala_envs.views.opponents`).

Stable-Baselines3 tests train a tiny MaskablePPO for one update on the raw int32 observation of
``SingleAgentEnv("ouril_v0")`` and play it through :class:`PolicyOpponent`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import GreedyAgent, RandomAgent
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.views.opponents import AgentOpponent, CallableOpponent, OpponentPool, PolicyOpponent, make_opponent
from mancala_envs.views.single_agent_env import SingleAgentEnv

from support.actions import first_legal
from support.episodes import play_random_learner

# Player 0 to move with pits 0 and 3 empty: legal actions 1, 2, 4, 5.
FOUR_LEGAL = {"board": [0, 3, 2, 0, 1, 1, 4, 4, 4, 4, 4, 4], "stores": [9, 8], "player": 0}
# Player 0 holds a single seed in pit 1: only action 1 is legal.
LONE_SEED = {"board": [0, 1, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4], "stores": [12, 11], "player": 0}


def ouril(options: dict[str, Any] | None = None, seed: int = 0) -> MancalaEnv:
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=seed, options=options)
    return env


def legal_actions(env: MancalaEnv) -> list[int]:
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def self_play(opponent: Any, seed: int = 0) -> list[int]:
    """The actions ``opponent`` plays for both seats in one game of Ouril, each checked legal."""
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=seed)
    actions = []
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        action = opponent.act(env)
        assert action in legal_actions(env)
        actions.append(action)
        env.step(action)
    return actions


# --- make_opponent: names, agents, callables, lists -----------------------------------------------


@pytest.mark.parametrize(("name", "agent_class"), [("random", RandomAgent), ("greedy", GreedyAgent)])
def test_baseline_names(name: str, agent_class: type) -> None:
    opponent = make_opponent(name, seed=0)
    assert isinstance(opponent, AgentOpponent)
    assert type(opponent.agent) is agent_class
    assert opponent.name == name and repr(opponent) == f"AgentOpponent({name!r})"
    env = ouril(FOUR_LEGAL)
    assert opponent.act(env) in [1, 2, 4, 5]


def test_greedy_takes_the_biggest_capture() -> None:
    # docs/rules/ouril.md O2: local 5 (4 seeds) captures 9 (3), 8 (2), 7 (2) = 7 seeds; local 3 captures 2;
    # the other moves capture nothing. Ties cannot arise, so every seed plays local 5.
    env = ouril({"board": [6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0], "stores": [10, 9], "player": 0})
    assert {make_opponent("greedy", seed=seed).act(env) for seed in range(5)} == {5}


def test_unknown_name_lists_the_choices() -> None:
    with pytest.raises(
        ValueError, match=r"unknown agent 'nobody'; choose one of \['greedy', 'perfect', 'pretrained', 'random'\]"
    ):
        make_opponent("nobody")


def test_agent_instances_and_objects_with_act() -> None:
    agent = GreedyAgent(seed=1)
    opponent = make_opponent(agent, seed=4)
    assert isinstance(opponent, AgentOpponent) and opponent.agent is agent and opponent.name == "greedy"
    assert agent.rng.integers(10**9) == np.random.default_rng(4).integers(10**9)

    class Scripted:
        def __init__(self) -> None:
            self.seeds: list[int] = []

        def act(self, env: Any) -> int:
            return legal_actions(env)[-1]

        def reseed(self, seed: int) -> None:
            self.seeds.append(seed)

    scripted = Scripted()
    opponent = make_opponent(scripted, seed=7)
    assert isinstance(opponent, AgentOpponent) and opponent.name == "Scripted"
    assert scripted.seeds == [7]
    assert opponent.act(ouril(FOUR_LEGAL)) == 5


def test_callable_sees_the_movers_own_view() -> None:
    seen = []

    def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        seen.append((observation.tolist(), action_mask.tolist(), action_mask.dtype))
        return 3

    env = ouril()
    env.step(2)  # [4,4,0,5,5,5 | 5,4,4,4,4,4], player 1 to move
    opponent = make_opponent(policy)
    assert isinstance(opponent, CallableOpponent) and opponent.name == "policy"
    assert opponent.act(env) == 3
    assert seen == [([5, 4, 4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 0, 0, 1, 0, 1], [1, 1, 1, 1, 1, 1], np.int8)]
    assert CallableOpponent(policy, name="mine").name == "mine"
    assert make_opponent(lambda observation, mask: 0).name == "<lambda>"


def test_callable_accepts_numpy_integers() -> None:
    opponent = make_opponent(lambda observation, mask: np.flatnonzero(mask)[-1])
    assert opponent.act(ouril(FOUR_LEGAL)) == 5


@pytest.mark.parametrize("answer", [0, 3, 6, -1])
def test_callable_illegal_answer_names_the_opponent(answer: int) -> None:
    def stubborn(observation: np.ndarray, mask: np.ndarray) -> int:
        return answer

    with pytest.raises(
        ValueError, match=rf"opponent 'stubborn' returned action {answer}, which is illegal here \(legal: \[1\]\)"
    ):
        make_opponent(stubborn).act(ouril(LONE_SEED))


@pytest.mark.parametrize("answer", [None, "one", [1], object()])
def test_callable_non_int_answer(answer: Any) -> None:
    def sloppy(observation: np.ndarray, mask: np.ndarray) -> Any:
        return answer

    with pytest.raises(TypeError, match=r"opponent 'sloppy' returned .*; it must return an int action"):
        make_opponent(sloppy).act(ouril(LONE_SEED))


@pytest.mark.parametrize("answer", [1.9, np.float64(1.0), "1", True])
def test_callable_answers_that_only_look_like_ints(answer: Any) -> None:
    with pytest.raises(TypeError, match="must return an int action"):
        make_opponent(lambda observation, mask: answer).act(ouril(LONE_SEED))


def test_acting_on_something_else_than_a_mancala_env() -> None:
    with pytest.raises(TypeError, match="an opponent acts on a mancala_envs AEC environment"):
        make_opponent(first_legal).act(SingleAgentEnv("ouril_v0"))
    with pytest.raises(TypeError, match="needs a mancala_envs environment"):
        make_opponent("random").act(object())


@pytest.mark.parametrize("container", [list, tuple])
def test_lists_become_pools(container: type) -> None:
    pool = make_opponent(container(["random", "greedy", first_legal]), seed=3)
    assert isinstance(pool, OpponentPool)
    assert [type(member) for member in pool.members] == [AgentOpponent, AgentOpponent, CallableOpponent]
    assert [member.name for member in pool.members] == ["random", "greedy", "first_legal"]
    assert pool.name == "pool(random, greedy, first_legal)"
    # seed + i for member i
    assert pool.members[0].agent.rng.integers(10**9) == np.random.default_rng(3).integers(10**9)
    assert pool.members[1].agent.rng.integers(10**9) == np.random.default_rng(4).integers(10**9)


def test_built_opponents_pass_through() -> None:
    pool = OpponentPool([make_opponent("random")])
    assert make_opponent(pool) is pool
    callable_opponent = CallableOpponent(first_legal)
    assert make_opponent(callable_opponent) is callable_opponent


@pytest.mark.parametrize("spec", [42, 3.5, None, {"name": "random"}, object()])
def test_unusable_kinds(spec: Any) -> None:
    with pytest.raises(TypeError, match="is not usable; pass a baseline name such as 'random'"):
        make_opponent(spec)


def test_empty_list() -> None:
    with pytest.raises(ValueError, match="needs at least one opponent"):
        make_opponent([])


@pytest.mark.parametrize("prefix", ["model:", ""])
def test_missing_model(prefix: str, tmp_path: Path) -> None:
    path = tmp_path / "missing.zip"
    with pytest.raises(FileNotFoundError, match=f"no saved model at '{path}'"):
        make_opponent(prefix + str(path))


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_reseed_determinism(spec: str) -> None:
    def games(opponent: Any) -> list[list[int]]:
        return [self_play(opponent, seed=seed) for seed in range(3)]

    played = games(make_opponent(spec, seed=3))
    assert played == games(make_opponent(spec, seed=3))
    opponent = make_opponent(spec, seed=3)
    games(opponent)
    opponent.reseed(3)
    assert games(opponent) == played
    if spec == "random":  # greedy's only randomness is its tie-breaking
        assert games(make_opponent(spec, seed=4)) != played


def test_pool_reseed_determinism() -> None:
    def games(pool: OpponentPool) -> list[list[int]]:
        return [self_play(member, seed=seed) for member in pool.members for seed in range(2)]

    played = games(make_opponent(["random", "random"], seed=3))
    assert played == games(make_opponent(["random", "random"], seed=3))
    assert played[:2] != played[2:]  # member i is seeded with 3 + i
    pool = make_opponent(["random", "random"], seed=3)
    games(pool)
    pool.reseed(3)
    assert games(pool) == played


def test_random_differs_between_seeds() -> None:
    assert self_play(make_opponent("random", seed=1)) != self_play(make_opponent("random", seed=2))


# --- OpponentPool ---------------------------------------------------------------------------------


def test_pool_weights() -> None:
    members = [make_opponent("random"), make_opponent("greedy")]
    rng = np.random.default_rng(0)
    assert {OpponentPool(members, weights=[0, 1]).draw(rng).name for _ in range(20)} == {"greedy"}
    pool = OpponentPool(members, weights=[1, 3])
    assert pool.weights == [0.25, 0.75]
    draws = [pool.draw(rng).name for _ in range(4000)]
    assert 0.72 < draws.count("greedy") / len(draws) < 0.78
    for weights in ([1], [1, -1], [0, 0], [1, 2, 3]):
        with pytest.raises(ValueError, match="one non-negative number per opponent, not all zero"):
            OpponentPool(members, weights=weights)


def test_pool_add_keeps_the_first_member() -> None:
    a, b, c, d = (CallableOpponent(first_legal, name=name) for name in "abcd")
    pool = OpponentPool([a, b, c], weights=[1, 1, 2])
    pool.add(d, max_size=3)
    assert pool.members == [a, c, d]
    assert pool.weights is None
    pool.add(b)
    assert pool.members == [a, c, d, b]


def test_pool_draws_follow_the_generator() -> None:
    pool = make_opponent(["random", "greedy", first_legal])
    rng, twin = np.random.default_rng(8), np.random.default_rng(8)
    draws = [pool.draw(rng).name for _ in range(60)]
    assert draws == [pool.draw(twin).name for _ in range(60)]
    assert set(draws) == {"random", "greedy", "first_legal"}


# --- PolicyOpponent (Stable-Baselines3) ----------------------------------------------------------------


def pin_logits(opponent: PolicyOpponent, logits: list[float]) -> None:
    """Makes the policy's action logits ``logits`` whatever the observation."""
    import torch

    with torch.no_grad():
        opponent.policy.action_net.weight.zero_()
        opponent.policy.action_net.bias.copy_(torch.tensor(logits))


def test_model_opponent_plays_only_legal_moves_for_whole_games(model_path: Path) -> None:
    opponent = make_opponent("model:" + str(model_path))
    assert isinstance(opponent, PolicyOpponent) and opponent.name == "m"
    for seed in range(3):
        assert len(self_play(opponent, seed=seed)) > 0
    env = SingleAgentEnv("ouril_v0", opponent="model:" + str(model_path))
    for final in play_random_learner(env, range(3), np.random.default_rng(0)):
        assert final["end_reason"] != "illegal_action"


def test_model_loads_with_and_without_prefix(model_path: Path) -> None:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    for spec in ("model:" + str(model_path), str(model_path)):
        opponent = make_opponent(spec, seed=0)
        assert isinstance(opponent, PolicyOpponent) and opponent.name == "m" and repr(opponent) == "PolicyOpponent('m')"
        assert isinstance(opponent.policy, MaskableActorCriticPolicy)
        assert opponent.policy.observation_space == SingleAgentEnv("ouril_v0").observation_space
        assert opponent.deterministic is False


def test_deterministic_plays_the_best_legal_logit(model_path: Path) -> None:
    opponent = PolicyOpponent.load(model_path, deterministic=True)
    env = ouril(FOUR_LEGAL)  # legal: 1, 2, 4, 5
    pin_logits(opponent, [9.0, 1.0, 2.0, 8.0, 3.0, 0.0])  # unmasked best: 0, then 3, both illegal
    assert opponent.act(env) == 4
    pin_logits(opponent, [0.0, 0.0, 5.0, 9.0, 1.0, 2.0])
    assert opponent.act(env) == 2
    assert legal_actions(env) == [1, 2, 4, 5] and env.agent_selection == "player_0"  # act changes nothing


def test_sampling_follows_the_masked_softmax(model_path: Path) -> None:
    opponent = PolicyOpponent.load(model_path)
    env = ouril(FOUR_LEGAL)
    # Legal 1 and 2 weigh 1 : 3; legal 4 and 5 are negligible; illegal 0 and 3 dominate before masking.
    pin_logits(opponent, [50.0, 0.0, float(np.log(3.0)), 50.0, -40.0, -40.0])
    opponent.reseed(0)
    actions = [opponent.act(env) for _ in range(1000)]
    assert set(actions) == {1, 2}
    assert 0.70 < actions.count(2) / len(actions) < 0.80
    opponent.reseed(0)
    assert [opponent.act(env) for _ in range(100)] == actions[:100]


def test_deterministic_matches_sb3_masked_prediction(model_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_path, device="cpu")
    opponent = PolicyOpponent(model, deterministic=True)
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    compared = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        view = env.observe(env.agent_selection)
        expected, _ = model.predict(
            view["observation"], action_masks=view["action_mask"].astype(bool), deterministic=True
        )
        assert opponent.act(env) == int(expected)
        compared += 1
        env.step(int(rng.choice(legal_actions(env))))
    assert compared > 10


def test_explicit_observation_encoding(model_path: Path) -> None:
    env = ouril(FOUR_LEGAL)
    raw = PolicyOpponent.load(model_path, observation="raw", deterministic=True)
    inferred = PolicyOpponent.load(model_path, deterministic=True)
    assert raw.act(env) == inferred.act(env)
    with pytest.raises(ValueError, match="is not the space of the 'flat' encoding of ouril_v0"):
        PolicyOpponent.load(model_path, observation="flat").act(env)


def test_frozen_copy_is_unaffected_by_training(model_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_path, env=SingleAgentEnv("ouril_v0"), device="cpu")
    opponent = PolicyOpponent(model, name="live")
    frozen = opponent.frozen()
    assert frozen.policy is not opponent.policy and frozen.name == "live"
    before = {key: value.clone() for key, value in opponent.policy.state_dict().items()}
    model.learn(32, reset_num_timesteps=False)
    assert opponent.policy is model.policy
    changed = [key for key, value in opponent.policy.state_dict().items() if not value.equal(before[key])]
    assert changed  # training moved the original
    for key, value in frozen.policy.state_dict().items():
        assert value.equal(before[key]), key


def test_policy_opponent_needs_an_sb3_policy() -> None:
    with pytest.raises(TypeError, match="needs a Stable-Baselines3 on-policy model or policy"):
        PolicyOpponent(object())


def test_a_zip_that_is_not_a_model(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    path = tmp_path / "notes.zip"
    path.write_text("not a model")
    with pytest.raises(ValueError, match="is neither a MaskablePPO nor a PPO model"):
        make_opponent("model:" + str(path))
