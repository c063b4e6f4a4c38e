"""``encoding=`` on the single-agent form (issue 19, item 3) and finding an encoding from a policy's space.

- ``gymnasium.make(id, encoding=...)`` and ``gymnasium.make_vec(id, num_envs, vectorization_mode="sync",
  encoding=...)`` give :class:`SingleAgentEnv` observations encoded by the same encoders as the compiled
  vector env (``make_vec``'s default mode): the same spaces, and each observation the encoding of the raw
  one; without ``encoding`` (or with ``None``/``"raw"``) the env is what it always was;
- ``apply_wrappers`` and the Gymnasium encoding wrappers refuse a vector env and say to pass ``encoding=``
  (and the advised calls work);
- ``policy_encoder`` (and so ``training.evaluate`` without ``encoding=``) recovers the ``cap`` of a space that
  only one encoding has, and names the encodings when several have it.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from gymnasium.wrappers import vector as vector_wrappers

import mancala_envs  # noqa: F401  (registers the Gymnasium ids)
from mancala_envs.agents.sb3 import policy_encoder
from mancala_envs.envs.registration import make_game
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.vector_env import MancalaVectorEnv
from mancala_envs.wrappers import GymOneHotObservation, GymStackObservation, apply_wrappers
from mancala_envs.wrappers.encodings import encoder_from_spec, encodings_of_space, make_encoder

from support.actions import random_legal

OURIL = "mancala/Ouril-v0"
#: encodings as ``encoding=`` takes them
SPECS: list[Any] = [
    "flat",
    {"name": "flat", "normalize": False},
    {"name": "one_hot", "cap": 8},
    "thermometer",
    {"name": "planes", "cap": 4},
]


def spec_id(spec: Any) -> str:
    return spec if isinstance(spec, str) else "-".join(f"{value}" for value in spec.values())


def play_twins(encoded: Any, raw: Any, encoder: Any, seed: int, steps: int) -> int:
    """Steps two vector envs built alike but for the encoding with the same actions; every observation of
    ``encoded`` must be ``encoder``'s encoding of ``raw``'s. Returns the number of ended episodes."""
    observation, infos = encoded.reset(seed=seed)
    raw_observation, raw_infos = raw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        assert observation.dtype == np.float32 and encoded.observation_space.contains(observation)
        assert np.array_equal(observation, encoder.encode(raw_observation))
        assert np.array_equal(infos["action_mask"], raw_infos["action_mask"])
        actions = random_legal(infos["action_mask"], rng)
        observation, rewards, terminated, truncated, infos = encoded.step(actions)
        raw_observation, raw_rewards, raw_terminated, raw_truncated, raw_infos = raw.step(actions)
        assert np.array_equal(rewards, raw_rewards) and np.array_equal(terminated, raw_terminated)
        assert np.array_equal(truncated, raw_truncated)
        ended += int(np.sum(terminated | truncated))
    return ended


# --- gymnasium.make and make_vec(sync) take encoding= ----------------------------------------------------------
def test_without_encoding_the_env_is_what_it_was() -> None:
    for env in (gymnasium.make(OURIL), gymnasium.make(OURIL, encoding=None), gymnasium.make(OURIL, encoding="raw")):
        assert isinstance(env.unwrapped, SingleAgentEnv) and env.unwrapped.encoder is None
        assert type(env) is type(gymnasium.make(OURIL)) and env.env is env.unwrapped  # OrderEnforcing, as before
        assert env.observation_space == gymnasium.spaces.Box(
            *make_game("ouril_v0").observation_bounds(), dtype=np.int32
        )
    assert gymnasium.make(OURIL).spec.kwargs == {"env_id": "mancala/ouril-v0", "opponent": "random"}
    assert (
        repr(SingleAgentEnv("ouril_v0", encoding="raw"))
        == "SingleAgentEnv('ouril_v0', opponent='random', learner_seat=None)"
    )


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_make_encodes_with_the_encoder_and_the_spec_round_trips(spec: Any) -> None:
    encoder = encoder_from_spec(spec, make_game("ouril_v0"))
    env = gymnasium.make(OURIL, opponent="greedy", encoding=spec)
    raw = gymnasium.make(OURIL, opponent="greedy")
    assert isinstance(env.unwrapped, SingleAgentEnv) and env.observation_space == encoder.space
    text = env.spec.to_json()
    assert json.loads(text)["kwargs"] == {"env_id": "mancala/ouril-v0", "opponent": "greedy", "encoding": spec}
    rebuilt = gymnasium.make(EnvSpec.from_json(text))
    assert rebuilt.observation_space == encoder.space
    rng = np.random.default_rng(0)
    for seed in (0, 3):
        observation, info = env.reset(seed=seed)
        raw_observation, _ = raw.reset(seed=seed)
        assert np.array_equal(rebuilt.reset(seed=seed)[0], observation)
        done = False
        while not done:
            assert env.observation_space.contains(observation)
            assert np.array_equal(observation, encoder.encode(raw_observation))
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            raw_observation, raw_reward, *_ = raw.step(action)
            assert np.array_equal(rebuilt.step(action)[0], observation) and reward == raw_reward
            done = terminated or truncated
        assert np.array_equal(observation, encoder.encode(raw_observation))  # the last observation too


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_sync_and_vector_make_vec_give_the_same_spaces_and_encoded_observations(spec: Any) -> None:
    """Both forms of ``make_vec`` with the same encoding: equal spaces; from the same start the same observation;
    and in each form (same seed, same actions) every observation is the encoding of the raw one. (The forms
    draw the opponent's moves from different generators, so their games part after the first reply.)"""
    options = {"opponent": "greedy", "learner_seat": 0, "first_player": 0}
    encoder = encoder_from_spec(spec, make_game("ouril_v0"))
    sync = gymnasium.make_vec(OURIL, num_envs=3, vectorization_mode="sync", encoding=spec, **options)
    vector = gymnasium.make_vec(OURIL, num_envs=3, encoding=spec, **options)
    assert isinstance(sync, SyncVectorEnv) and isinstance(vector, MancalaVectorEnv)
    assert sync.single_observation_space == vector.single_observation_space == encoder.space
    assert sync.observation_space == vector.observation_space
    assert sync.single_action_space == vector.single_action_space
    first, _ = sync.reset(seed=4)
    assert np.array_equal(first, vector.reset(seed=4)[0])  # the learner moves first from the same position
    assert sync.spec.kwargs["encoding"] == vector.spec.kwargs["encoding"] == spec
    raw_sync = gymnasium.make_vec(OURIL, num_envs=3, vectorization_mode="sync", **options)
    raw_vector = gymnasium.make_vec(OURIL, num_envs=3, **options)
    assert play_twins(sync, raw_sync, encoder, seed=4, steps=60) > 0
    assert play_twins(vector, raw_vector, encoder, seed=4, steps=60) > 0


@pytest.mark.parametrize(
    ("env_id", "spec"),
    [
        ("mancala/Omweso-v0", "planes"),
        ("mancala/RioKadalisMatch-v0", "one_hot"),
        ("mancala/Kalah-v0", {"name": "thermometer", "cap": 6}),
    ],
)
def test_other_games_in_both_forms(env_id: str, spec: Any) -> None:
    options = {"opponent": "random", "learner_seat": 1, "first_player": 1, "encoding": spec}
    sync = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="sync", **options)
    vector = gymnasium.make_vec(env_id, num_envs=2, **options)
    assert sync.single_observation_space == vector.single_observation_space
    assert np.array_equal(sync.reset(seed=1)[0], vector.reset(seed=1)[0])


def test_async_make_vec_takes_the_encoding() -> None:
    envs = gymnasium.make_vec(OURIL, num_envs=2, vectorization_mode="async", encoding={"name": "one_hot", "cap": 8})
    try:
        assert isinstance(envs, AsyncVectorEnv) and envs.single_observation_space.shape == (113,)
        observation, _ = envs.reset(seed=0)
        assert observation.shape == (2, 113) and observation.dtype == np.float32
    finally:
        envs.close()


@pytest.mark.parametrize("spec", ["flat", "one_hot", {"name": "thermometer", "cap": 6}], ids=spec_id)
def test_encoded_envs_pass_the_checkers(spec: Any) -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    gymnasium_check_env(SingleAgentEnv("ouril_v0", encoding=spec), skip_render_check=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(SingleAgentEnv("ouril_v0", encoding=spec), warn=True)
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []


def test_the_stack_goes_on_top_of_the_encoding() -> None:
    stacked = gymnasium.make_vec(
        OURIL,
        num_envs=2,
        vectorization_mode="sync",
        encoding={"name": "one_hot", "cap": 8},
        wrappers=[lambda env: GymStackObservation(env, k=2)],
    )
    assert stacked.reset(seed=0)[0].shape == (2, 226)
    assert GymStackObservation(SingleAgentEnv("ouril_v0", encoding="flat"), k=3).observation_space.shape == (51,)
    with pytest.raises(TypeError, match="already encoded"):
        GymOneHotObservation(SingleAgentEnv("ouril_v0", encoding="flat"))


@pytest.mark.parametrize(
    ("spec", "error", "text"),
    [
        ("stack", ValueError, r"does not stack.*GymStackObservation\(env, k=4\)"),
        ({"name": "stack", "k": 2}, ValueError, "does not stack"),
        ("chess", ValueError, r"unknown encoding 'chess'; choose 'raw' .*'flat', 'one_hot', 'thermometer', 'planes'"),
        ({"cap": 8}, TypeError, "has no 'name'"),
        (8, TypeError, "an encoding must be a name"),
        ({"name": "one_hot", "k": 2}, TypeError, "takes no option 'k'"),
        ({"name": "one_hot", "cap": 0}, ValueError, "cap=0 is too small"),
    ],
)
def test_bad_encodings_are_refused(spec: Any, error: type, text: str) -> None:
    with pytest.raises(error, match=text):
        SingleAgentEnv("ouril_v0", encoding=spec)
    with pytest.raises(error, match=text):
        gymnasium.make_vec(OURIL, num_envs=2, vectorization_mode="sync", encoding=spec)


# --- wrapping a vector env: the advice is encoding= --------------------------------------------------------------
def sb3_vec_env() -> Any:
    pytest.importorskip("stable_baselines3", reason="the SB3 adapter needs the train extra")
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    return MancalaSB3VecEnv("ouril_v0", 2)


VECTOR_ENVS = {
    "SyncVectorEnv": lambda: gymnasium.make_vec(OURIL, num_envs=2, vectorization_mode="sync"),
    "MancalaVectorEnv": lambda: gymnasium.make_vec(OURIL, num_envs=2),
    "RecordEpisodeStatistics": lambda: vector_wrappers.RecordEpisodeStatistics(gymnasium.make_vec(OURIL, num_envs=2)),
    "MancalaSB3VecEnv": sb3_vec_env,
}


@pytest.mark.parametrize("kind", VECTOR_ENVS)
def test_apply_wrappers_refuses_a_vector_env_and_says_to_pass_encoding(kind: str) -> None:
    envs = VECTOR_ENVS[kind]()
    name = type(envs).__name__
    with pytest.raises(
        TypeError,
        match=rf"not a vector env \({name}\).*gymnasium.make_vec\(id, num_envs, "
        r"encoding='one_hot'\), MancalaVectorEnv\(..., encoding='one_hot'\) or "
        r"MancalaSB3VecEnv\(..., encoding='one_hot'\)",
    ):
        apply_wrappers(envs, [{"name": "one_hot", "cap": 8}])
    with pytest.raises(
        TypeError,
        match=r"do not stack observations.*vectorization_mode='sync', "
        r"encoding=\{'name': 'one_hot', 'cap': 8\}, wrappers=\[lambda env: "
        r"GymStackObservation\(env, k=2\)\]",
    ):
        apply_wrappers(envs, [{"name": "one_hot", "cap": 8}, {"name": "stack", "k": 2}])
    with pytest.raises(TypeError, match=r"do not stack observations.*wrappers=\[GymStackObservation\]"):
        apply_wrappers(envs, ["stack"])
    with pytest.raises(TypeError, match=r"not a vector env.*encoding="):
        apply_wrappers(envs, [])
    with pytest.raises(ValueError, match="unknown wrapper"):  # the specs are checked first, as for any env
        apply_wrappers(envs, ["chess"])


def test_the_encoding_wrappers_advise_the_sync_form_with_their_options() -> None:
    with pytest.raises(TypeError, match=r"vectorization_mode='sync', encoding=\{'name': 'one_hot', 'cap': 8\}\)"):
        GymOneHotObservation(gymnasium.make_vec(OURIL, num_envs=2), cap=8)
    # ... and that call gives the wrapped envs' encoding
    sync = gymnasium.make_vec(OURIL, num_envs=2, vectorization_mode="sync", encoding={"name": "one_hot", "cap": 8})
    wrapped = gymnasium.make_vec(
        OURIL, num_envs=2, vectorization_mode="sync", wrappers=[lambda env: GymOneHotObservation(env, cap=8)]
    )
    assert sync.single_observation_space == wrapped.single_observation_space
    assert np.array_equal(sync.reset(seed=[5, 6])[0], wrapped.reset(seed=[5, 6])[0])


# --- the encoding of a policy, from its observation space ---------------------------------------------------------
def test_policy_encoder_recovers_a_cap_only_one_encoding_has() -> None:
    game = make_game("ouril_v0")
    for name, options in [
        ("planes", {"cap": 8}),
        ("planes", {"cap": 30}),
        ("flat", {"normalize": False}),
        ("one_hot", {}),
        ("thermometer", {}),
        ("planes", {}),
        ("flat", {}),
    ]:
        encoder = make_encoder(name, game, **options)
        found = policy_encoder(game, encoder.space)
        assert repr(found.__self__) == repr(encoder)  # the encoder with those options
    # defaults first: the space of thermometer with cap=13 is also one_hot's with its default cap 12
    assert repr(policy_encoder(game, make_encoder("thermometer", game, cap=13).space).__self__).startswith("OneHot")
    assert encodings_of_space(game, make_encoder("planes", game, cap=8).space) == [{"name": "planes", "cap": 8}]


def test_policy_encoder_names_the_encodings_a_space_belongs_to() -> None:
    game = make_game("ouril_v0")
    space = make_encoder("one_hot", game, cap=8).space
    with pytest.raises(
        ValueError,
        match=r"no encoding of ouril_v0 gives the policy's observation space Box\(0.0, 1.0, \(113,\), float32\) alone: "
        r"\{'name': 'one_hot', 'cap': 8\} and \{'name': 'thermometer', 'cap': 9\} both give it; pass the one it "
        r"was trained on \(observation= here, encoding= to mancala_envs.training.trainer.evaluate\)",
    ):
        policy_encoder(game, space)
    assert repr(policy_encoder(game, space, {"name": "one_hot", "cap": 8}).__self__).startswith("OneHotEncoder(cap=8)")
    with pytest.raises(
        ValueError, match=r"no encoding of ouril_v0 gives the policy's observation space .*; pass observation="
    ):
        policy_encoder(game, gymnasium.spaces.Box(0.0, 1.0, (7,), np.float32))


def test_evaluate_finds_a_non_default_cap_from_the_policy() -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO

    from mancala_envs.training.trainer import evaluate
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    planes = {"name": "planes", "cap": 8}
    model = MaskablePPO(
        "MlpPolicy",
        MancalaSB3VecEnv("ouril_v0", n_envs=2, encoding=planes),
        n_steps=8,
        batch_size=16,
        seed=0,
        device="cpu",
    )
    found = evaluate(model, "ouril_v0", ("random", "greedy"), games=4, seed=2)
    assert found == evaluate(model, "ouril_v0", ("random", "greedy"), games=4, seed=2, encoding=planes)
    assert [row.games for row in found if row.seat == "both"] == [4, 4]

    one_hot = {"name": "one_hot", "cap": 8}
    model = MaskablePPO(
        "MlpPolicy",
        MancalaSB3VecEnv("ouril_v0", n_envs=2, encoding=one_hot),
        n_steps=8,
        batch_size=16,
        seed=0,
        device="cpu",
    )
    with pytest.raises(ValueError, match="both give it"):
        evaluate(model, "ouril_v0", ("random",), games=2)
    assert [row.games for row in evaluate(model, "ouril_v0", ("random",), games=2, encoding=one_hot)][-1] == 2
