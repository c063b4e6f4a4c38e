"""Observation encodings (``mancala_envs.wrappers.encodings``) and their AEC and Gymnasium wrappers.

Exact encodings of hand-made positions, spaces along random games of every registered id, the
action mask, PettingZoo's api_test, Gymnasium's and Stable-Baselines3's env checkers, stacking,
bad input, recorded constructor arguments, pickling and ``apply_wrappers``.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import pickle
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

import mancala_envs
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.wrappers import (
    ENCODINGS,
    WRAPPER_NAMES,
    EncodeObservation,
    FlatEncoder,
    FlattenObservation,
    GymEncodeObservation,
    GymFlattenObservation,
    GymOneHotObservation,
    GymPlanesObservation,
    GymStackObservation,
    GymThermometerObservation,
    OneHotEncoder,
    OneHotObservation,
    PlanesEncoder,
    PlanesObservation,
    StackObservation,
    ThermometerEncoder,
    ThermometerObservation,
    apply_wrappers,
    make_encoder,
)
from mancala_envs.wrappers.encodings import ObservationStack

from support.pettingzoo_checks import api_test, only_dict_observation_warnings

IDS = [variant.id for variant in VARIANTS]
AGENTS = ("player_0", "player_1")

# --- hand-made positions --------------------------------------------------------------------------------------
# Ouril, player 0 to move. Player 0's row (own pits 0..5) and player 1's row (opponent pits 0..5).
OURIL = {"board": [0, 1, 2, 3, 12, 13, 5, 0, 0, 1, 0, 2], "stores": [4, 5], "player": 0}
OURIL_RAW = [0, 1, 2, 3, 12, 13, 5, 0, 0, 1, 0, 2, 4, 5, 1, 0, 0]  # ..., own/opponent store, is_to_move, must_feed, ply
OURIL_SCALARS = [4 / 48, 5 / 48, 1.0, 0.0, 0.0]
# Omweso: player 0's pits 0..15 (own frame), then player 1's.
OMWESO_OWN = [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 7, 8]
OMWESO_OPPONENT = [2, 1, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 18]
OMWESO = {"board": OMWESO_OWN + OMWESO_OPPONENT, "stores": [0, 0], "player": 0}
# Rio Kadalis match: global pit 2 (player 0's pit 2) and 9 (player 1's pit 3) closed, 4 seeds in each reserve.
RIO_MATCH = {
    "board": [4, 4, 0, 4, 4, 4, 4, 4, 4, 0, 4, 4],
    "stores": [0, 0],
    "player": 0,
    "closed": [2, 9],
    "reserves": [4, 4],
}


def loaded(env_id: str, position: dict[str, Any], **options: Any) -> Any:
    env = mancala_envs.make(env_id, **options)
    env.reset(seed=0, options=position)
    return env


def test_the_hand_made_ouril_position_is_what_the_expectations_assume() -> None:
    env = loaded("ouril_v0", OURIL)
    assert env.observe("player_0")["observation"].tolist() == OURIL_RAW


def test_flat_encoding_of_a_position() -> None:
    env = loaded("ouril_v0", OURIL)
    raw = env.observe("player_0")["observation"]
    expected = np.array(OURIL_RAW[:12], dtype=np.float32) / 48
    expected = np.concatenate([expected, [4 / 48, 5 / 48, 1.0, 0.0, 0.0]]).astype(np.float32)
    np.testing.assert_array_equal(FlatEncoder(env.game).encode(raw), expected)
    np.testing.assert_array_equal(FlatEncoder(env.game, normalize=False).encode(raw), np.array(OURIL_RAW, np.float32))


def test_one_hot_encoding_of_a_position() -> None:
    env = loaded("ouril_v0", OURIL)
    encoded = OneHotObservation(env, cap=4).observe("player_0")["observation"]
    pits = [
        [1, 0, 0, 0, 0],  # own pit 0: 0 seeds
        [0, 1, 0, 0, 0],  # 1
        [0, 0, 1, 0, 0],  # 2
        [0, 0, 0, 1, 0],  # 3
        [0, 0, 0, 0, 1],  # 12: "4 or more"
        [0, 0, 0, 0, 1],  # 13
        [0, 0, 0, 0, 1],  # opponent pit 0: 5
        [1, 0, 0, 0, 0],  # 0
        [1, 0, 0, 0, 0],  # 0
        [0, 1, 0, 0, 0],  # 1
        [1, 0, 0, 0, 0],  # 0
        [0, 0, 1, 0, 0],  # 2
    ]
    expected = np.array([*np.ravel(pits), *OURIL_SCALARS], dtype=np.float32)
    np.testing.assert_array_equal(encoded, expected)
    assert encoded.dtype == np.float32
    names = OneHotEncoder(env.game, cap=4).names
    assert names[:5] == ["own_pit_0==0", "own_pit_0==1", "own_pit_0==2", "own_pit_0==3", "own_pit_0>=4"]
    assert names[60:] == ["own_store", "opponent_store", "is_to_move", "must_feed", "ply"]


def test_thermometer_encoding_of_a_position() -> None:
    env = loaded("ouril_v0", OURIL)
    encoded = ThermometerObservation(env, cap=4).observe("player_0")["observation"]
    pits = [
        [0, 0, 0, 0],  # own pit 0: 0 seeds
        [1, 0, 0, 0],  # 1
        [1, 1, 0, 0],  # 2
        [1, 1, 1, 0],  # 3
        [1, 1, 1, 1],  # 12
        [1, 1, 1, 1],  # 13
        [1, 1, 1, 1],  # opponent pit 0: 5
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [0, 0, 0, 0],
        [1, 1, 0, 0],
    ]
    np.testing.assert_array_equal(encoded, np.array([*np.ravel(pits), *OURIL_SCALARS], dtype=np.float32))
    assert ThermometerEncoder(env.game, cap=4).names[:4] == ["own_pit_0>0", "own_pit_0>1", "own_pit_0>2", "own_pit_0>3"]


def test_planes_encoding_of_a_two_row_position() -> None:
    env = loaded("ouril_v0", OURIL)
    wrapped = PlanesObservation(env, cap=3)
    planes = wrapped.observe("player_0")["observation"]
    assert wrapped.encoder.channel_names == [
        "seeds>0", "seeds>1", "seeds>2", "seeds", "own_pits",
        "own_store", "opponent_store", "is_to_move", "must_feed", "ply",
    ]  # fmt: skip
    # Row 0: opponent pits 5..0 from the left; row 1: own pits 0..5.
    counts = np.array([[2, 0, 1, 0, 0, 5], [0, 1, 2, 3, 12, 13]])
    expected = np.stack(
        [
            [[1, 0, 1, 0, 0, 1], [0, 1, 1, 1, 1, 1]],  # seeds > 0
            [[1, 0, 0, 0, 0, 1], [0, 0, 1, 1, 1, 1]],  # seeds > 1
            [[0, 0, 0, 0, 0, 1], [0, 0, 0, 1, 1, 1]],  # seeds > 2
            counts / 48,
            [[0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]],  # own pits
            *[np.full((2, 6), value) for value in OURIL_SCALARS],
        ]
    ).astype(np.float32)
    assert planes.shape == (10, 2, 6) and planes.dtype == np.float32
    np.testing.assert_array_equal(planes, expected)


def test_planes_geometry_of_omweso_from_both_seats() -> None:
    env = loaded("omweso_v0", OMWESO)
    encoder = PlanesEncoder(env.game, cap=2)
    seeds = encoder.channel_names.index("seeds")
    view_0 = encoder.encode(env.observe("player_0")["observation"])
    view_1 = encoder.encode(env.observe("player_1")["observation"])
    np.testing.assert_array_equal(
        view_0[seeds] * 64,
        [
            [3, 0, 0, 0, 0, 0, 1, 2],  # opponent's outer row: pits 7 .. 0
            [4, 0, 0, 0, 0, 0, 0, 18],  # opponent's inner row: pits 8 .. 15
            [8, 7, 6, 5, 0, 0, 0, 0],  # own inner row: pits 15 .. 8
            [1, 2, 3, 4, 0, 0, 0, 0],  # own outer row: pits 0 .. 7
        ],
    )
    np.testing.assert_array_equal(view_0[0], (view_0[seeds] * 64 > 0))
    np.testing.assert_array_equal(view_0[1], (view_0[seeds] * 64 > 1))
    np.testing.assert_array_equal(view_0[encoder.channel_names.index("own_pits")], [[0] * 8] * 2 + [[1] * 8] * 2)
    # The other seat sees the same board turned half round.
    np.testing.assert_array_equal(view_1[: seeds + 1], np.rot90(view_0[: seeds + 1], 2, axes=(1, 2)))
    # Every other entry is a constant plane, scaled by its bounds.
    raw = env.observe("player_0")["observation"]
    low, high = env.game.observation_bounds()
    names = env.game.observation_names()
    for index in range(32, len(names)):
        plane = view_0[encoder.channel_names.index(names[index])]
        np.testing.assert_array_equal(plane, np.full((4, 8), np.float32((raw[index] - low[index]) / high[index])))
    assert view_0[encoder.channel_names.index("turn")][0, 0] == np.float32(2 / 2000)
    assert view_0[encoder.channel_names.index("is_to_move")].min() == 1
    assert encoder.space.shape == (2 + 2 + 16, 4, 8)


def test_planes_put_per_pit_flags_on_their_pits() -> None:
    env = loaded("mancala/rio-kadalis-match-v0", RIO_MATCH)
    encoder = PlanesEncoder(env.game, cap=4)
    assert encoder.channel_names[4:7] == ["seeds", "own_pits", "closed"]
    assert encoder.channel_names[-2:] == ["own_reserve", "opponent_reserve"]
    view_0 = encoder.encode(env.observe("player_0")["observation"])
    view_1 = encoder.encode(env.observe("player_1")["observation"])
    # Player 0's pit 2 and player 1's pit 3 face each other in column 2 (player 0's view).
    np.testing.assert_array_equal(view_0[6], [[0, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0]])
    np.testing.assert_array_equal(view_1[6], [[0, 0, 0, 1, 0, 0], [0, 0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(view_0[-1], np.full((2, 6), np.float32(4 / 48)))


def test_one_hot_and_thermometer_treat_per_pit_flags_as_scalars() -> None:
    env = loaded("mancala/rio-kadalis-match-v0", RIO_MATCH)
    raw = env.observe("player_0")["observation"]
    for encoder in (OneHotEncoder(env.game, cap=3), ThermometerEncoder(env.game, cap=3)):
        width = encoder.space.shape[0] - 19  # 19 entries follow the 12 pits
        assert encoder.names[width:] == env.game.observation_names()[12:]
        high = env.game.observation_bounds()[1][12:]
        np.testing.assert_array_equal(encoder.encode(raw)[width:], (raw[12:] / high).astype(np.float32))


def test_counts_at_and_beyond_the_cap() -> None:
    game = mancala_envs.make("ouril_v0").game
    raw = np.zeros(17, dtype=np.int32)
    raw[:3] = [2, 3, 40]
    np.testing.assert_array_equal(OneHotEncoder(game, cap=3).encode(raw)[:12], [0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1])
    np.testing.assert_array_equal(ThermometerEncoder(game, cap=3).encode(raw)[:9], [1, 1, 0, 1, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(OneHotEncoder(game, cap=1).encode(raw)[:6], [0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("name", ENCODINGS)
def test_encoders_take_batches(name: str) -> None:
    env = mancala_envs.make("omweso_v0")
    env.reset(seed=3)
    encoder = make_encoder(name, env.game)
    batch = np.stack([env.observe(agent)["observation"] for agent in AGENTS])
    encoded = encoder.encode(batch.reshape(1, 2, -1))
    assert encoded.shape == (1, 2, *encoder.space.shape)
    for row, agent in enumerate(AGENTS):
        np.testing.assert_array_equal(encoded[0, row], encoder.encode(env.observe(agent)["observation"]))


# --- every registered id --------------------------------------------------------------------------------------
def aec_views(raw: Any) -> dict[str, Any]:
    """Wrappers that all look at the same raw env (a view does not change it)."""
    return {
        "flat": FlattenObservation(raw),
        "flat normalized": FlattenObservation(raw, normalize=True),
        "one_hot": OneHotObservation(raw),
        "thermometer": ThermometerObservation(raw, cap=5),
        "planes": PlanesObservation(raw),
        "planes cap 1": EncodeObservation(raw, "planes", cap=1),
    }


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_contain_every_observation_and_the_mask_is_kept(env_id: str) -> None:
    raw = mancala_envs.make(env_id)
    views = aec_views(raw)
    driver = StackObservation(OneHotObservation(raw, cap=6), k=3)  # steps the game, so that the stack fills
    driver.reset(seed=7)
    rng = np.random.default_rng(7)
    plies = 0
    for _agent in driver.agent_iter():
        for other in AGENTS:
            inner = raw.observe(other)
            for name, view in [*views.items(), ("stack", driver)]:
                observation = view.observe(other)
                space = view.observation_space(other)
                assert space.contains(observation), (name, observation)
                assert np.array_equal(observation["action_mask"], inner["action_mask"])
                assert observation["action_mask"].dtype == np.int8
                if name != "flat":
                    values = observation["observation"]
                    assert values.dtype == np.float32 and values.min() >= 0 and values.max() <= 1, name
        observation, _, terminated, truncated, _ = driver.last()
        if terminated or truncated:
            driver.step(None)
            continue
        driver.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        plies += 1
    assert plies > 0


@pytest.mark.parametrize("env_id", IDS)
def test_encoded_spaces_are_float32_boxes_of_the_documented_shapes(env_id: str) -> None:
    game = mancala_envs.make(env_id).game
    names = game.observation_names()
    n_pits = sum(name.startswith(("own_pit_", "opponent_pit_")) and not name.endswith("_closed") for name in names)
    others = len(names) - n_pits
    flags = sum(name.endswith("_closed") for name in names)
    rows, cols = (4, 8) if n_pits == 32 else (2, n_pits // 2)
    shapes = {
        "flat": (len(names),),
        "one_hot": (n_pits * 13 + others,),
        "thermometer": (n_pits * 12 + others,),
        "planes": (12 + 2 + (1 if flags else 0) + others - flags, rows, cols),
    }
    for name in ENCODINGS:
        space = make_encoder(name, game).space
        assert isinstance(space, spaces.Box) and space.dtype == np.float32
        assert space.shape == shapes[name], name
        assert np.all(space.low == 0) and np.all(space.high == 1)


# --- PettingZoo api_test --------------------------------------------------------------------------------------
AEC_WRAPPERS: dict[str, Callable[[Any], Any]] = {
    "one_hot": lambda env: OneHotObservation(env, cap=8),
    "thermometer": ThermometerObservation,
    "planes": PlanesObservation,
    "stack(planes)": lambda env: StackObservation(PlanesObservation(env, cap=4), k=3),
    "stack(raw)": lambda env: StackObservation(env, k=2),
}


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("wrapper", list(AEC_WRAPPERS))
def test_aec_wrappers_pass_pettingzoo_api_test(env_id: str, wrapper: str) -> None:
    wrapped = AEC_WRAPPERS[wrapper](mancala_envs.make(env_id))
    with only_dict_observation_warnings():
        api_test(wrapped, num_cycles=300)


# --- stacking -------------------------------------------------------------------------------------------------
def test_aec_stack_holds_each_agents_own_observations_oldest_first() -> None:
    raw = mancala_envs.make("ouril_v0", first_player=0)
    flat = FlattenObservation(raw)
    stacked = StackObservation(flat, k=3)
    stacked.reset(seed=0)
    zeros = np.zeros(17, dtype=np.float32)
    acted_on: dict[str, list[np.ndarray]] = {agent: [] for agent in AGENTS}
    for action in (5, 0, 4, 1, 3):
        agent = stacked.agent_selection
        for other in AGENTS:  # observing changes nothing
            past = ([zeros] * 2 + acted_on[other])[-2:]
            expected = np.concatenate([*past, flat.observe(other)["observation"]])
            np.testing.assert_array_equal(stacked.observe(other)["observation"], expected)
            np.testing.assert_array_equal(stacked.observe(other)["observation"], expected)
        acted_on[agent].append(flat.observe(agent)["observation"])
        stacked.step(action)
    assert [len(frames) for frames in acted_on.values()] == [3, 2]
    stacked.reset(seed=1)
    for agent in AGENTS:
        observation = stacked.observe(agent)["observation"]
        np.testing.assert_array_equal(observation[:34], np.zeros(34))
        np.testing.assert_array_equal(observation[34:], flat.observe(agent)["observation"])


def test_aec_stack_of_planes_concatenates_channels() -> None:
    raw = mancala_envs.make("omweso_v0", first_player=0)
    planes = PlanesObservation(raw, cap=2)
    stacked = StackObservation(planes, k=2)
    stacked.reset(seed=0)
    before = planes.observe("player_0")["observation"]
    stacked.step(int(np.flatnonzero(raw.observe("player_0")["action_mask"])[0]))
    channels = planes.encoder.space.shape[0]
    observation = stacked.observe("player_0")["observation"]
    assert observation.shape == (2 * channels, 4, 8) == stacked.observation_space("player_0")["observation"].shape
    np.testing.assert_array_equal(observation[:channels], before)
    np.testing.assert_array_equal(observation[channels:], planes.observe("player_0")["observation"])


def test_aec_stack_commits_nothing_when_the_step_is_refused() -> None:
    raw = mancala_envs.make("ouril_v0", first_player=0, illegal_action="raise")
    stacked = StackObservation(FlattenObservation(raw), k=2)
    stacked.reset(options={"board": [0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8], "player": 0})
    before = stacked.observe("player_0")["observation"].copy()
    with pytest.raises(mancala_envs.IllegalActionError):
        stacked.step(0)
    np.testing.assert_array_equal(stacked.observe("player_0")["observation"], before)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        StackObservation(mancala_envs.make("ouril_v0")).step(0)


def test_gym_stack_shifts_oldest_first_and_resets() -> None:
    env = GymStackObservation(GymFlattenObservation(SingleAgentEnv("ouril_v0", opponent="random"), normalize=False), 3)
    observation, info = env.reset(seed=0)
    n = 17
    assert observation.shape == (3 * n,) and env.observation_space.contains(observation)
    np.testing.assert_array_equal(observation[: 2 * n], np.zeros(2 * n))
    history = [observation[2 * n :]]
    for _ in range(4):
        previous = observation
        action = int(np.flatnonzero(info["action_mask"])[0])
        observation, _, terminated, truncated, info = env.step(action)
        assert not (terminated or truncated)
        np.testing.assert_array_equal(observation[: 2 * n], previous[n:])
        history.append(observation[2 * n :])
    np.testing.assert_array_equal(observation, np.concatenate(history[-3:]))
    observation, _ = env.reset(seed=1)
    np.testing.assert_array_equal(observation[: 2 * n], np.zeros(2 * n))
    assert observation[2 * n :].any()


def test_observation_stack_zeros_stay_in_the_space() -> None:
    stack = ObservationStack(spaces.Box(1, 5, (2,), dtype=np.int32), k=2)
    assert stack.space.contains(stack.stacked(np.array([1, 5], dtype=np.int32)))


# --- the Gymnasium form ---------------------------------------------------------------------------------------
GYM_WRAPPERS: dict[str, Callable[[Any], Any]] = {
    "flat": GymFlattenObservation,
    "flat raw": lambda env: GymFlattenObservation(env, normalize=False),
    "one_hot": GymOneHotObservation,
    "thermometer": lambda env: GymThermometerObservation(env, cap=6),
    "planes": GymPlanesObservation,
    "stack(planes)": lambda env: GymStackObservation(GymPlanesObservation(env, cap=3), k=2),
    "stack(flat)": lambda env: GymStackObservation(GymFlattenObservation(env)),
}
GYM_IDS = ["ouril_v0", "mancala/rio-kadalis-match-v0", "omweso_v0"]


@contextlib.contextmanager
def checker_on_a_wrapped_env() -> Iterator[None]:
    """Gymnasium's check_env warns that a wrapped env is not the unwrapped one; any other warning fails."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*is different from the unwrapped version")
        yield


@pytest.mark.parametrize("env_id", GYM_IDS)
@pytest.mark.parametrize("wrapper", list(GYM_WRAPPERS))
def test_gym_wrappers_pass_gymnasium_check_env(env_id: str, wrapper: str) -> None:
    env = GYM_WRAPPERS[wrapper](SingleAgentEnv(env_id, opponent="random"))
    with checker_on_a_wrapped_env():
        gymnasium.utils.env_checker.check_env(env, skip_render_check=True)


@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0"])
@pytest.mark.parametrize("wrapper", ["flat", "one_hot", "thermometer", "stack(flat)"])
def test_vector_encodings_pass_stable_baselines3_check_env_without_warnings(env_id: str, wrapper: str) -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = GYM_WRAPPERS[wrapper](SingleAgentEnv(env_id, opponent="random"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_checker.check_env(env, warn=True)


@pytest.mark.parametrize("wrapper", list(GYM_WRAPPERS))
def test_gym_wrappers_forward_action_masks_and_keep_info(wrapper: str) -> None:
    base = SingleAgentEnv("omweso_v0", opponent="random")
    env = GYM_WRAPPERS[wrapper](base)
    observation, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(30):
        assert env.observation_space.contains(observation)
        masks = env.action_masks()
        assert masks.dtype == bool
        np.testing.assert_array_equal(masks, base.action_masks())
        np.testing.assert_array_equal(info["action_mask"], masks.astype(np.int8))
        assert info["action_mask"].dtype == np.int8
        observation, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(masks))))
        if terminated or truncated:
            observation, info = env.reset()


def test_gym_and_aec_forms_encode_alike() -> None:
    raw = loaded("ouril_v0", OURIL)
    for name in ENCODINGS:
        gym_env = GymEncodeObservation(SingleAgentEnv("ouril_v0", opponent="random", learner_seat=0), name)
        observation, _ = gym_env.reset(seed=0, options=OURIL)
        expected = EncodeObservation(raw, name).observe("player_0")["observation"]
        np.testing.assert_array_equal(observation, expected)
        assert gym_env.observation_space == EncodeObservation(raw, name).observation_space("player_0")["observation"]


def test_sb3_contrib_sees_the_masks_through_a_vec_env() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: GymStackObservation(GymPlanesObservation(SingleAgentEnv("ouril_v0")), k=2)])
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (1, 6) and masks.dtype == bool and masks.any()


# --- bad input ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cap", [1.5, "12", True, None])
def test_cap_must_be_an_int(cap: Any) -> None:
    env = mancala_envs.make("ouril_v0")
    for build in (OneHotObservation, ThermometerObservation, PlanesObservation):
        with pytest.raises(TypeError, match="cap must be an int >= 1"):
            build(env, cap=cap)
    with pytest.raises(TypeError, match="cap must be an int >= 1"):
        GymOneHotObservation(SingleAgentEnv("ouril_v0"), cap=cap)


@pytest.mark.parametrize("cap", [0, -3])
def test_cap_must_be_at_least_one(cap: int) -> None:
    with pytest.raises(ValueError, match=f"cap={cap} is too small; use an int >= 1"):
        OneHotEncoder(mancala_envs.make("ouril_v0").game, cap=cap)
    with pytest.raises(ValueError, match="too small"):
        PlanesObservation(mancala_envs.make("ouril_v0"), cap=cap)


def test_stack_size_must_be_a_positive_int() -> None:
    env = mancala_envs.make("ouril_v0")
    with pytest.raises(TypeError, match="k must be an int >= 1"):
        StackObservation(env, k=2.0)
    with pytest.raises(ValueError, match="k=0 is too small"):
        StackObservation(env, k=0)
    with pytest.raises(ValueError, match="k=-1 is too small"):
        GymStackObservation(SingleAgentEnv("ouril_v0"), k=-1)


def test_unknown_encodings_and_options_name_the_choices() -> None:
    game = mancala_envs.make("ouril_v0").game
    with pytest.raises(
        ValueError, match=r"unknown encoding 'onehot'; choose one of \['flat', 'one_hot', 'thermometer', 'planes'\]"
    ):
        make_encoder("onehot", game)
    with pytest.raises(TypeError, match=r"takes no option 'normalize'; its options are \['cap'\]"):
        make_encoder("one_hot", game, normalize=True)
    with pytest.raises(TypeError, match=r"takes no option 'cap'; its options are \['normalize'\]"):
        EncodeObservation(mancala_envs.make("ouril_v0"), "flat", cap=3)
    with pytest.raises(ValueError, match="unknown encoding 'pixels'"):
        GymEncodeObservation(SingleAgentEnv("ouril_v0"), "pixels")
    with pytest.raises(TypeError, match="normalize must be True or False"):
        GymFlattenObservation(SingleAgentEnv("ouril_v0"), normalize="yes")


@pytest.mark.parametrize(
    "build",
    [
        lambda env: OneHotObservation(StackObservation(env, k=2)),
        lambda env: PlanesObservation(OneHotObservation(env)),
        lambda env: FlattenObservation(FlattenObservation(env)),
        lambda env: StackObservation(ThermometerObservation(StackObservation(env))),
    ],
    ids=["encoding over stack", "encoding over encoding", "flat over flat", "encoding over stack, stacked"],
)
def test_an_encoding_needs_the_raw_observation(build: Callable[[Any], Any]) -> None:
    with pytest.raises(TypeError, match=r"already encoded or stacked.*encoding first, then the stack"):
        build(mancala_envs.make("ouril_v0"))


def test_gym_encoding_needs_the_raw_observation() -> None:
    with pytest.raises(TypeError, match="encoding first, then the stack"):
        GymPlanesObservation(GymStackObservation(SingleAgentEnv("ouril_v0"), k=2))
    with pytest.raises(TypeError, match="encoding first, then the stack"):
        GymOneHotObservation(GymThermometerObservation(SingleAgentEnv("ouril_v0")))


def test_each_form_refuses_the_other_kind_of_env() -> None:
    with pytest.raises(TypeError, match="for a PettingZoo AEC env use OneHotObservation"):
        GymOneHotObservation(mancala_envs.make("ouril_v0"))
    with pytest.raises(TypeError, match="for a PettingZoo AEC env use StackObservation"):
        GymStackObservation(mancala_envs.make("ouril_v0"))
    with pytest.raises(
        TypeError, match=r"wraps a PettingZoo AEC environment.*for a Gymnasium env use GymPlanesObservation"
    ):
        PlanesObservation(SingleAgentEnv("ouril_v0"))
    with pytest.raises(TypeError, match="wraps a Gymnasium env"):
        GymFlattenObservation("ouril_v0")

    class NoGame(gymnasium.Env):
        observation_space = spaces.Box(0, 1, (3,), dtype=np.int32)
        action_space = spaces.Discrete(2)

    with pytest.raises(TypeError, match=r"needs a mancala_envs env \(env.unwrapped.game\)"):
        GymFlattenObservation(NoGame())


def test_encode_checks_the_length_of_the_raw_vector() -> None:
    encoder = PlanesEncoder(mancala_envs.make("ouril_v0").game)
    with pytest.raises(ValueError, match="raw observations of 17 entries"):
        encoder.encode(np.zeros(16, dtype=np.int32))


# --- apply_wrappers -------------------------------------------------------------------------------------------
def test_apply_wrappers_builds_the_aec_form_for_an_aec_env() -> None:
    env = apply_wrappers(mancala_envs.make("ouril_v0"), [{"name": "planes", "cap": 4}, {"name": "stack", "k": 2}])
    assert isinstance(env, StackObservation) and isinstance(env.env, PlanesObservation)
    assert env.env.encoder.cap == 4 and env.k == 2
    assert env.observation_space("player_0")["observation"].shape == (22, 2, 6)
    flat = apply_wrappers(mancala_envs.make("ouril_v0"), ["flat"])
    assert isinstance(flat, FlattenObservation) and flat.normalize is True
    raw = mancala_envs.make("ouril_v0")
    assert apply_wrappers(raw, []) is raw


def test_apply_wrappers_builds_the_gym_form_for_a_gym_env() -> None:
    env = apply_wrappers(SingleAgentEnv("ouril_v0"), ["thermometer", "stack"])
    assert isinstance(env, GymStackObservation) and isinstance(env.env, GymThermometerObservation)
    assert env.observation_space.shape == (4 * 149,)
    flat = apply_wrappers(SingleAgentEnv("ouril_v0"), [{"name": "flat", "normalize": False}])
    assert isinstance(flat, GymFlattenObservation) and flat.encoder.normalize is False


def test_apply_wrappers_rejects_bad_specs() -> None:
    env = mancala_envs.make("ouril_v0")
    with pytest.raises(
        ValueError,
        match=r"unknown wrapper 'onehot'; choose one of \['flat', 'one_hot', 'thermometer', 'planes', 'stack'\]",
    ):
        apply_wrappers(env, ["onehot"])
    with pytest.raises(ValueError, match="unknown wrapper 'frame_stack'"):
        apply_wrappers(env, [{"name": "frame_stack", "k": 2}])
    with pytest.raises(TypeError, match=r"wrapper 'stack' takes no option 'cap'; its options are \['k'\]"):
        apply_wrappers(env, [{"name": "stack", "cap": 2}])
    with pytest.raises(TypeError, match=r"wrapper 'one_hot' takes no option 'k'; its options are \['cap'\]"):
        apply_wrappers(env, [{"name": "one_hot", "k": 2}])
    with pytest.raises(TypeError, match="has no 'name'"):
        apply_wrappers(env, [{"cap": 2}])
    with pytest.raises(TypeError, match="put a single spec in a list"):
        apply_wrappers(env, "one_hot")
    with pytest.raises(TypeError, match="a wrapper spec must be a name"):
        apply_wrappers(env, [("one_hot", 8)])
    with pytest.raises(TypeError, match="AEC env or a Gymnasium env"):
        apply_wrappers("ouril_v0", ["flat"])
    with pytest.raises(TypeError, match="encoding first, then the stack"):
        apply_wrappers(env, ["stack", "planes"])
    with pytest.raises(ValueError, match="cap=0 is too small"):
        apply_wrappers(env, [{"name": "one_hot", "cap": 0}])
    assert (*ENCODINGS, "stack") == WRAPPER_NAMES


# --- constructor arguments and pickling ------------------------------------------------------------------------
RECORDED: list[tuple[Callable[[], Any], dict[str, Any]]] = [
    (lambda: FlattenObservation(mancala_envs.make("ouril_v0"), normalize=True), {"normalize": True}),
    (lambda: OneHotObservation(mancala_envs.make("ouril_v0"), cap=8), {"cap": 8}),
    (lambda: ThermometerObservation(mancala_envs.make("ouril_v0")), {"cap": 12}),
    (lambda: PlanesObservation(mancala_envs.make("ouril_v0"), cap=3), {"cap": 3}),
    (lambda: EncodeObservation(mancala_envs.make("ouril_v0"), "planes", cap=2), {"encoding": "planes", "cap": 2}),
    (lambda: StackObservation(mancala_envs.make("ouril_v0"), k=5), {"k": 5}),
    (lambda: GymFlattenObservation(SingleAgentEnv("ouril_v0")), {"normalize": True}),
    (lambda: GymOneHotObservation(SingleAgentEnv("ouril_v0"), cap=8), {"cap": 8}),
    (lambda: GymThermometerObservation(SingleAgentEnv("ouril_v0"), cap=2), {"cap": 2}),
    (lambda: GymPlanesObservation(SingleAgentEnv("ouril_v0")), {"cap": 12}),
    (lambda: GymEncodeObservation(SingleAgentEnv("ouril_v0"), "one_hot", cap=3), {"encoding": "one_hot", "cap": 3}),
    (lambda: GymStackObservation(SingleAgentEnv("ouril_v0"), k=2), {"k": 2}),
]


@pytest.mark.parametrize("index", range(len(RECORDED)))
def test_constructor_arguments_are_recorded_and_rebuild_the_wrapper(index: int) -> None:
    build, kwargs = RECORDED[index]
    wrapped = build()
    assert wrapped._saved_kwargs == kwargs
    rebuilt = type(wrapped)(wrapped.env, **wrapped._saved_kwargs)
    if isinstance(wrapped, gymnasium.Env):
        assert rebuilt.observation_space == wrapped.observation_space
    else:
        assert rebuilt.observation_space("player_0") == wrapped.observation_space("player_0")


def test_aec_wrappers_pickle_mid_game() -> None:
    env = StackObservation(PlanesObservation(mancala_envs.make("rio_kadalis_v0", match=True), cap=4), k=3)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(9):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(6):
        for agent in AGENTS:
            np.testing.assert_array_equal(copy.observe(agent)["observation"], env.observe(agent)["observation"])
        action = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        env.step(action)
        copy.step(action)
    assert copy._saved_kwargs == {"k": 3} and copy.env._saved_kwargs == {"cap": 4}


def test_gym_wrappers_pickle_mid_episode() -> None:
    env = GymStackObservation(GymOneHotObservation(SingleAgentEnv("ouril_v0", opponent="random"), cap=6), k=2)
    _, info = env.reset(seed=5)
    *_, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    copy = pickle.loads(pickle.dumps(env))
    assert copy._saved_kwargs == {"k": 2} and copy.env.encoder.cap == 6
    action = int(np.flatnonzero(info["action_mask"])[-1])
    copied, original = copy.step(action), env.step(action)  # the opponent's generator was copied too
    np.testing.assert_array_equal(copied[0], original[0])
    assert copied[1:4] == original[1:4]
    np.testing.assert_array_equal(copy.action_masks(), env.action_masks())


# --- docstring examples (the package's doctest collection covers wrappers/__init__ and flatten only) ---------
@pytest.mark.parametrize("module", ["encodings", "aec", "single_agent"])
def test_docstring_examples_of_the_wrapper_modules(module: str) -> None:
    result = doctest.testmod(
        importlib.import_module(f"mancala_envs.wrappers.{module}"),
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0 and result.failed == 0
