"""The compiled vector env with the tools built around Gymnasium's vector API (issue 19, items 2 and 3).

- Gymnasium's vector wrappers (``RecordEpisodeStatistics`` as CleanRL uses it, ``NormalizeReward``,
  ``ClipReward``, ``TransformObservation``...) work on ``gymnasium.make_vec(id, num_envs)``, and the
  statistics they record are the returns and lengths that happened;
- ``call``, ``get_attr`` and ``set_attr`` follow ``SyncVectorEnv``'s: ``call("action_masks")`` gives each
  game's legal moves, the batch's settings are shared by its games and can be changed;
- ``encoding=`` (``MancalaVectorEnv``, ``MancalaSB3VecEnv``, ``make_vec``) gives exactly what the
  encoding wrappers give one env; the wrappers refuse a vector env and say to use ``encoding=``;
- ``make_vec`` passes ``opponent=`` through; an opponent the compiled loop cannot play is refused with
  the way to play it, and that way works;
- ``training.evaluate`` finds the encoding of a model trained on the batched SB3 env by itself.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import vector as vector_wrappers

import mancala_envs
from mancala_envs.engine.state import LEGAL
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.vector_env import AUTORESET_MODES, MancalaVectorEnv
from mancala_envs.wrappers import (
    GymEncodeObservation,
    GymFlattenObservation,
    GymOneHotObservation,
    GymPlanesObservation,
    GymStackObservation,
    GymThermometerObservation,
)

from support.actions import first_legal, random_legal

OURIL = "mancala/Ouril-v0"
#: encodings as ``encoding=`` and ``apply_wrappers`` take them, with the wrapper's arguments for each
ENCODINGS: list[tuple[Any, str, dict[str, Any]]] = [
    ("flat", "flat", {}),
    ({"name": "flat", "normalize": False}, "flat", {"normalize": False}),
    ("one_hot", "one_hot", {}),
    ({"name": "one_hot", "cap": 5}, "one_hot", {"cap": 5}),
    ("thermometer", "thermometer", {}),
    ({"name": "planes", "cap": 4}, "planes", {"cap": 4}),
]


def legal_moves(envs: MancalaVectorEnv, game: int) -> list[bool]:
    """Game ``game``'s legal moves as its engine state holds them (the learner is to move)."""
    bits = int(envs.state(game)[LEGAL])
    return [bool((bits >> action) & 1) for action in range(envs.single_action_space.n)]


# --- Gymnasium's vector wrappers -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_record_episode_statistics_records_the_episodes_that_happened(mode: str) -> None:
    """CleanRL's ``RecordEpisodeStatistics(make_vec(...))``: it used to raise because the env wrote
    ``infos["episode"]`` itself. Each recorded return and length must be what this test counted."""
    envs = vector_wrappers.RecordEpisodeStatistics(
        gymnasium.make_vec(OURIL, num_envs=4, autoreset_mode=mode, max_plies=30)
    )
    assert envs.metadata["autoreset_mode"] == AUTORESET_MODES[mode]
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    returns, lengths = np.zeros(4), np.zeros(4, int)
    resetting = np.zeros(4, bool)  # next-step auto-reset: the step after an end only resets the game
    recorded: list[tuple[float, int]] = []
    for _ in range(120):
        _, rewards, terminated, truncated, infos = envs.step(random_legal(infos["action_mask"], rng))
        counted = ~resetting
        returns[counted] += rewards[counted]
        lengths[counted] += 1
        ended = terminated | truncated
        if not ended.any():
            assert "episode" not in infos
        else:
            assert infos["_episode"].tolist() == ended.tolist()
            for game in np.flatnonzero(ended):
                assert infos["episode"]["r"][game] == returns[game], f"game {game}: return"
                assert infos["episode"]["l"][game] == lengths[game], f"game {game}: length"
                assert infos["episode"]["t"][game] >= 0
                if mode == "same_step":  # the compiled loop's own count, in the final info
                    assert infos["final_info"]["episode_return"][game] == returns[game]
                    assert infos["final_info"]["episode_length"][game] == lengths[game]
                recorded.append((returns[game], lengths[game]))
            returns[ended], lengths[ended] = 0.0, 0
        resetting = ended if mode == "next_step" else np.zeros(4, bool)
    assert len(recorded) >= 8 and {r for r, _ in recorded} <= {-1.0, 0.0, 1.0}
    assert envs.episode_count == len(recorded)
    assert list(envs.return_queue) == [r for r, _ in recorded][-100:]
    assert list(envs.length_queue) == [n for _, n in recorded][-100:]


def test_the_env_alone_writes_no_episode_key() -> None:
    """The ``episode`` key is the wrapper's (any Gymnasium vector env leaves it to the wrapper)."""
    for mode in ("next_step", "same_step"):
        envs = MancalaVectorEnv("ouril_v0", 4, autoreset_mode=mode, max_plies=6)
        _, infos = envs.reset(seed=1)
        rng = np.random.default_rng(1)
        ended = 0
        for _ in range(20):
            _, _, terminated, truncated, infos = envs.step(random_legal(infos["action_mask"], rng))
            ended += int((terminated | truncated).sum())
            assert "episode" not in infos and "_episode" not in infos
        assert ended > 0


def test_reward_and_observation_wrappers_work_on_the_vector_env() -> None:
    """The reward and observation wrappers of CleanRL's scripts, stacked on the compiled env: they see the
    same rewards and observations as the plain env (same seed, same actions)."""
    plain = gymnasium.make_vec(OURIL, num_envs=4, encoding="flat", opponent="greedy")
    stats = vector_wrappers.RecordEpisodeStatistics(
        gymnasium.make_vec(OURIL, num_envs=4, encoding="flat", opponent="greedy")
    )
    normalized = vector_wrappers.NormalizeReward(stats, gamma=0.99)
    clipped = vector_wrappers.ClipReward(normalized, min_reward=-0.5, max_reward=0.5)
    space = gymnasium.spaces.Box(-1.0, 1.0, plain.single_observation_space.shape, np.float32)
    wrapped = vector_wrappers.TransformObservation(
        clipped, lambda observation: 2 * observation - 1, single_observation_space=space
    )
    observation, infos = wrapped.reset(seed=2)
    expected, _ = plain.reset(seed=2)
    assert np.array_equal(observation, 2 * expected - 1)
    rng = np.random.default_rng(2)
    episodes = 0
    for _ in range(150):
        actions = random_legal(infos["action_mask"], rng)
        observation, rewards, *_, infos = wrapped.step(actions)
        expected, plain_rewards, *_ = plain.step(actions)
        assert np.array_equal(observation, 2 * expected - 1)
        assert wrapped.observation_space.contains(observation.astype(np.float32))
        assert np.all(np.isfinite(rewards)) and np.all(np.abs(rewards) <= 0.5)
        assert np.array_equal(np.sign(rewards), np.sign(plain_rewards))
        if "episode" in infos:  # innermost, so the returns are the game's own: +1, 0, -1
            episodes += int(infos["_episode"].sum())
            assert set(infos["episode"]["r"][infos["_episode"]].tolist()) <= {-1.0, 0.0, 1.0}
    assert episodes > 0 and stats.episode_count == episodes
    assert wrapped.unwrapped is stats.unwrapped and isinstance(wrapped.unwrapped, MancalaVectorEnv)


def test_dtype_and_normalize_observation_on_the_raw_int32_observation() -> None:
    envs = vector_wrappers.NormalizeObservation(
        vector_wrappers.DtypeObservation(gymnasium.make_vec(OURIL, num_envs=3), np.float32)
    )
    observation, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        observation, *_, infos = envs.step(random_legal(infos["action_mask"], rng))
        assert observation.dtype == np.float32 and np.all(np.isfinite(observation))


# --- call, get_attr, set_attr ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_call_action_masks_gives_each_games_legal_moves(mode: str) -> None:
    envs = gymnasium.make_vec(OURIL, num_envs=5, autoreset_mode=mode, max_plies=12)
    base = envs.unwrapped
    _, infos = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    waiting = np.zeros(5, bool)
    for _ in range(40):
        masks = base.call("action_masks")
        assert isinstance(masks, tuple) and len(masks) == 5
        for game, mask in enumerate(masks):
            assert mask.dtype == np.bool_ and mask.shape == (6,)
            assert mask.tolist() == infos["action_mask"][game].astype(bool).tolist()
            if waiting[game]:  # ended on the last step: its action is ignored, any is accepted
                assert mask.all()
            else:
                assert mask.tolist() == legal_moves(base, game), f"game {game}"
        _, _, terminated, truncated, infos = envs.step(random_legal(np.array(masks), rng))
        waiting = (terminated | truncated) if mode == "next_step" else waiting
    sync = gymnasium.make_vec(OURIL, num_envs=5, vectorization_mode="sync")
    sync.reset(seed=3)
    sync_masks = sync.call("action_masks")
    assert isinstance(sync_masks, tuple) and [mask.shape for mask in sync_masks] == [(6,)] * 5, "the same form"


def test_get_attr_gives_one_entry_per_game() -> None:
    envs = gymnasium.make_vec(OURIL, num_envs=4, opponent="greedy")
    base = envs.unwrapped
    _, infos = envs.reset(seed=4)
    assert base.get_attr("opponent") == ("greedy",) * 4
    assert base.get_attr("learner_seat") == (None,) * 4
    assert base.get_attr("encoding") == ("raw",) * 4
    assert base.get_attr("num_envs") == (4,) * 4
    seats = base.get_attr("learner_seats")
    assert [int(seat) for seat in seats] == infos["learner_seat"].tolist() == base.learner_seats.tolist()
    masks = base.get_attr("action_masks")  # SyncVectorEnv.get_attr calls a method, as call does
    assert [mask.tolist() for mask in masks] == base.action_masks().tolist()
    assert base.call("state_bytes_per_game") == (base.state_bytes_per_game,) * 4
    with pytest.raises(AttributeError, match=r"has no attribute 'seat'.*action_masks.*vectorization_mode='sync'"):
        base.get_attr("seat")


def trajectory(envs: Any, seed: int, steps: int = 25) -> list:
    """Observations and rewards of a seeded run that always plays the last legal move."""
    observation, infos = envs.reset(seed=seed)
    out = [observation.tolist()]
    for _ in range(steps):
        actions = np.array([np.flatnonzero(mask)[-1] for mask in infos["action_mask"]])
        observation, rewards, *_, infos = envs.step(actions)
        out.append((observation.tolist(), rewards.tolist()))
    return out


def test_set_attr_changes_the_batchs_settings() -> None:
    envs = MancalaVectorEnv("ouril_v0", 4)
    envs.set_attr("opponent", "greedy")
    envs.set_attr("learner_seat", [1, 1, 1, 1])
    assert (envs.opponent, envs.learner_seat) == ("greedy", 1)
    assert trajectory(envs, seed=5) == trajectory(MancalaVectorEnv("ouril_v0", 4, opponent="greedy", learner_seat=1), 5)
    assert envs.learner_seats.tolist() == [1] * 4
    envs.call("set_opponent", "random")
    envs.set_attr("learner_seat", None)
    assert trajectory(envs, seed=5) == trajectory(MancalaVectorEnv("ouril_v0", 4), 5)


@pytest.mark.parametrize(
    ("name", "values", "error", "match"),
    [
        ("learner_seat", [0, 1, 0, 1], ValueError, "shared by every game of the batch"),
        ("learner_seat", [0, 0], ValueError, "Got `2` values for 4 environments"),
        ("learner_seat", 2, ValueError, "learner_seat must be 0, 1 or None"),
        ("opponent", "model:m.zip", ValueError, "vectorization_mode='sync'"),
        ("opponent", ["random", "greedy"] * 2, ValueError, "shared by every game"),
        (
            "learner_seats",
            [0] * 4,
            AttributeError,
            r"cannot be set: the settings of the batch are \['learner_seat', 'opponent'\]",
        ),
        ("encoding", "flat", AttributeError, "cannot be set"),
        ("num_envs", 8, AttributeError, "cannot be set"),
        ("oponent", "greedy", AttributeError, "has no attribute 'oponent'"),
    ],
)
def test_set_attr_refuses_and_changes_nothing(name: str, values: Any, error: type, match: str) -> None:
    envs = MancalaVectorEnv("ouril_v0", 4, opponent="greedy", learner_seat=0)
    with pytest.raises(error, match=match):
        envs.set_attr(name, values)
    assert (envs.opponent, envs.learner_seat, envs.opponent_table.tolist(), envs.seat_rule) == (
        "greedy",
        0,
        [[1, 0, envs.game.max_episode_plies]],
        0,
    )
    assert (envs.encoding, envs.num_envs) == ("raw", 4) and not hasattr(envs, "oponent")


def test_sb3_adapter_methods_go_through_the_same_calls() -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    vec_env = MancalaSB3VecEnv("ouril_v0", n_envs=3, seed=0)
    vec_env.reset()
    assert vec_env.env_method("set_opponent", "greedy") == [None] * 3
    assert vec_env.get_attr("opponent") == ["greedy"] * 3 and vec_env.venv.opponent == "greedy"
    assert [int(seat) for seat in vec_env.get_attr("learner_seats")] == vec_env.venv.learner_seats.tolist()
    assert [int(seat) for seat in vec_env.get_attr("learner_seats", indices=[2])] == [vec_env.venv.learner_seats[2]]
    assert callable(vec_env.get_attr("action_masks")[0])  # SB3's get_attr does not call a method
    with pytest.raises(ValueError, match="whole batch"):
        vec_env.env_method("set_opponent", "random", indices=[0])
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        vec_env.set_attr("opponent", "model:m.zip")
    assert vec_env.venv.opponent == "greedy"


# --- encoding= ---------------------------------------------------------------------------------------------------
def wrapper_encoder(env_id: str, name: str, options: dict[str, Any], **game_options: Any) -> Any:
    """The encoder of the encoding wrapper on the single-agent env, and the wrapper's observation space."""
    wrapper = GymEncodeObservation(SingleAgentEnv(env_id, **game_options), name, **options)
    return wrapper.encoder, wrapper.observation_space


@pytest.mark.parametrize(("spec", "name", "options"), ENCODINGS)
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_encoding_is_the_wrappers_encoder_on_the_raw_observation(
    spec: Any, name: str, options: dict, mode: str
) -> None:
    encoder, space = wrapper_encoder("ouril_v0", name, options, max_plies=10)
    encoded = gymnasium.make_vec(OURIL, num_envs=4, encoding=spec, autoreset_mode=mode, max_plies=10)
    raw = gymnasium.make_vec(OURIL, num_envs=4, autoreset_mode=mode, max_plies=10)
    assert encoded.single_observation_space == space
    assert encoded.observation_space == gymnasium.vector.utils.batch_space(space, 4)
    assert encoded.unwrapped.encoder is not None and encoded.unwrapped.encoder.space == space
    observation, infos = encoded.reset(seed=6)
    raw_observation, _ = raw.reset(seed=6)
    rng = np.random.default_rng(6)
    ended = 0
    for _ in range(30):
        assert observation.dtype == np.float32 and encoded.observation_space.contains(observation)
        assert np.array_equal(observation, np.stack([encoder.encode(row) for row in raw_observation]))
        actions = random_legal(infos["action_mask"], rng)
        observation, rewards, *_, infos = encoded.step(actions)
        raw_observation, raw_rewards, _, _, raw_infos = raw.step(actions)
        assert np.array_equal(rewards, raw_rewards)
        if "final_obs" in infos:
            for game in np.flatnonzero(infos["_final_obs"]):
                ended += 1
                assert np.array_equal(infos["final_obs"][game], encoder.encode(raw_infos["final_obs"][game]))
    assert mode == "next_step" or ended > 0


def test_vector_env_takes_the_encoding_as_its_argument_too() -> None:
    envs = MancalaVectorEnv("omweso_v0", num_envs=2, encoding="planes")
    assert envs.single_observation_space.shape == (30, 4, 8)
    observation, _ = envs.reset(seed=0)
    assert observation.shape == (2, 30, 4, 8) and observation.dtype == np.float32
    assert repr(envs) == "MancalaVectorEnv('omweso_v0', num_envs=2, opponent='random', encoding='planes')"
    assert MancalaVectorEnv("ouril_v0", 2, encoding="raw").single_observation_space.dtype == np.int32


@pytest.mark.parametrize(
    ("encoding", "error", "match"),
    [
        (
            "bogus",
            ValueError,
            r"unknown encoding 'bogus'; choose 'raw' \(the raw observation\) "
            r"or one of \['flat', 'one_hot', 'thermometer', 'planes'\]",
        ),
        ({"name": "one_hot", "cap": 0}, ValueError, "cap=0 is too small"),
        ({"name": "flat", "cap": 8}, TypeError, "takes no option 'cap'"),
        ({"cap": 8}, TypeError, "has no 'name'"),
        (7, TypeError, "an encoding must be a name"),
        ("stack", ValueError, "does not stack.*vectorization_mode='sync'"),
    ],
)
def test_bad_encodings_are_refused(encoding: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        MancalaVectorEnv("ouril_v0", 2, encoding=encoding)
    with pytest.raises(error, match=match):
        gymnasium.make_vec(OURIL, num_envs=2, encoding=encoding)


def test_sb3_adapter_encodes_observations_and_terminal_observations() -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    encoder, space = wrapper_encoder("urim_v0", "one_hot", {"cap": 8}, max_plies=8)
    encoded = MancalaSB3VecEnv("urim_v0", n_envs=3, seed=1, max_plies=8, encoding={"name": "one_hot", "cap": 8})
    raw = MancalaSB3VecEnv("urim_v0", n_envs=3, seed=1, max_plies=8)
    assert encoded.observation_space == space
    assert (
        repr(encoded)
        == "MancalaSB3VecEnv('urim_v0', n_envs=3, opponent='random', encoding={'name': 'one_hot', 'cap': 8})"
    )
    observation, raw_observation = encoded.reset(), raw.reset()
    rng = np.random.default_rng(1)
    returns, lengths, ended = np.zeros(3), np.zeros(3, int), 0
    for _ in range(12):
        assert np.array_equal(observation, encoder.encode(raw_observation))
        actions = random_legal(encoded.action_masks(), rng)
        observation, rewards, dones, infos = encoded.step(actions)
        raw_observation, _, _, raw_infos = raw.step(actions)
        returns += rewards
        lengths += 1
        for game in np.flatnonzero(dones):
            ended += 1
            terminal = infos[game]["terminal_observation"]
            assert np.array_equal(terminal, encoder.encode(raw_infos[game]["terminal_observation"]))
            assert (infos[game]["episode"]["r"], infos[game]["episode"]["l"]) == (returns[game], lengths[game])
            returns[game], lengths[game] = 0.0, 0
    assert ended > 0


def test_sync_make_vec_takes_the_wrappers() -> None:
    """``wrappers=`` is Gymnasium's for one env per game (``vectorization_mode="sync"``): the wrapped envs
    give the wrapper's encoding of the same games."""
    encoder, _ = wrapper_encoder("ouril_v0", "one_hot", {})
    wrapped = gymnasium.make_vec(
        OURIL, num_envs=3, vectorization_mode="sync", opponent="greedy", wrappers=[GymOneHotObservation]
    )
    raw = gymnasium.make_vec(OURIL, num_envs=3, vectorization_mode="sync", opponent="greedy")
    observation, infos = wrapped.reset(seed=[1, 2, 3])
    raw_observation, _ = raw.reset(seed=[1, 2, 3])
    rng = np.random.default_rng(7)
    for _ in range(20):
        assert observation.shape == (3, 161) and np.array_equal(observation, encoder.encode(raw_observation))
        masks = np.array(wrapped.call("action_masks"))
        assert masks.tolist() == infos["action_mask"].astype(bool).tolist()
        actions = random_legal(masks, rng)
        observation, *_, infos = wrapped.step(actions)
        raw_observation, *_ = raw.step(actions)
    stacked = gymnasium.make_vec(
        OURIL,
        num_envs=2,
        vectorization_mode="sync",
        wrappers=[GymFlattenObservation, lambda env: GymStackObservation(env, k=2)],
    )
    assert stacked.reset(seed=0)[0].shape == (2, 34)


@pytest.mark.parametrize(
    ("wrapper", "encoding"),
    [
        (GymFlattenObservation, "flat"),
        (GymOneHotObservation, "one_hot"),
        (GymThermometerObservation, "thermometer"),
        (GymPlanesObservation, "planes"),
    ],
)
def test_encoding_wrappers_refuse_a_vector_env_and_say_to_use_encoding(wrapper: type, encoding: str) -> None:
    envs = gymnasium.make_vec(OURIL, num_envs=2)
    with pytest.raises(TypeError, match=f"not a vector env.*encoding='{encoding}'.*vectorization_mode='sync'"):
        wrapper(envs)
    with pytest.raises(TypeError, match=f"encoding='{encoding}'"):
        wrapper(vector_wrappers.RecordEpisodeStatistics(envs))
    with pytest.raises(TypeError, match=r"not a vector env.*encoding='one_hot'"):
        GymEncodeObservation(envs, "one_hot", cap=4)


def test_stack_wrapper_refuses_a_vector_env() -> None:
    with pytest.raises(TypeError, match=r"do not stack observations.*vectorization_mode='sync'"):
        GymStackObservation(gymnasium.make_vec(OURIL, num_envs=2))
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    with pytest.raises(
        TypeError, match=r"not a vector env \(MancalaSB3VecEnv\).*MancalaSB3VecEnv\(..., encoding='flat'\)"
    ):
        GymFlattenObservation(MancalaSB3VecEnv("ouril_v0", 2))


# --- opponents through make_vec ---------------------------------------------------------------------------------
@pytest.mark.parametrize("opponent", ["random", "greedy", "alphabeta:2", "mcts:16"])
def test_make_vec_passes_the_opponent_through(opponent: str) -> None:
    envs = gymnasium.make_vec(OURIL, num_envs=3, opponent=opponent)
    assert isinstance(envs.unwrapped, MancalaVectorEnv) and envs.unwrapped.opponent == opponent
    assert envs.unwrapped.get_attr("opponent") == (opponent,) * 3
    assert trajectory(envs, seed=8) == trajectory(MancalaVectorEnv("mancala/ouril-v0", 3, opponent=opponent), seed=8)
    if opponent != "random":  # a different opponent plays different replies
        assert trajectory(envs, seed=8) != trajectory(MancalaVectorEnv("mancala/ouril-v0", 3), seed=8)


@pytest.mark.parametrize("opponent", ["model:m.zip", "sb3:m.zip", first_legal, ["random", "model:m.zip"]])
def test_an_opponent_the_compiled_loop_cannot_play_is_refused_with_the_way_to_play_it(opponent: Any) -> None:
    with pytest.raises(
        ValueError,
        match=r"compiled agent.*'random', 'greedy', 'alphabeta:D' or 'mcts:N'.*"
        r"gymnasium.make_vec\(id, num_envs, vectorization_mode='sync', opponent=...\)",
    ):
        gymnasium.make_vec(OURIL, num_envs=2, opponent=opponent)


def test_the_sync_way_plays_any_opponent() -> None:
    for opponent in (first_legal, ["random", "greedy"]):
        envs = gymnasium.make_vec(OURIL, num_envs=2, vectorization_mode="sync", opponent=opponent)
        observation, infos = envs.reset(seed=0)
        for _ in range(10):
            observation, *_, infos = envs.step(np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]]))
        assert observation.shape == (2, 17)


# --- training.evaluate on a model of the batched SB3 env ----------------------------------------------------------
def train_tiny_model(path: Any, encoding: Any) -> Any:
    """MaskablePPO trained for 256 steps on 8 batched Ouril games, saved and loaded back."""
    from sb3_contrib import MaskablePPO

    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    vec_env = MancalaSB3VecEnv("ouril_v0", n_envs=8, seed=0, encoding=encoding)
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps == 256
    model.save(path)
    return MaskablePPO.load(path, device="cpu")


@pytest.mark.parametrize("encoding", [None, "flat", "one_hot"])
def test_evaluate_finds_the_encoding_of_a_model_trained_on_the_batched_env(tmp_path: Any, encoding: Any) -> None:
    """The model of the raw batched env used to fail with evaluate's old default (``encoding="flat"``)."""
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from mancala_envs.training.trainer import evaluate

    loaded = train_tiny_model(tmp_path / "batched.zip", encoding)
    rows = evaluate(loaded, "ouril_v0", ("random",), games=4, seed=1)
    assert [(row.opponent, row.seat, row.games) for row in rows] == [
        ("random", "first", 2),
        ("random", "second", 2),
        ("random", "both", 4),
    ]
    named = "raw" if encoding is None else encoding
    assert rows == evaluate(loaded, "ouril_v0", ("random",), games=4, seed=1, encoding=named)
    other = "flat" if encoding is None else "raw"
    with pytest.raises(ValueError, match=f"is not the space of the '{other}' encoding"):
        evaluate(loaded, "ouril_v0", ("random",), games=2, seed=1, encoding=other)


def test_evaluate_needs_the_encoding_named_when_its_options_are_not_the_defaults(tmp_path: Any) -> None:
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from mancala_envs.training.trainer import evaluate

    encoding = {"name": "one_hot", "cap": 6}
    loaded = train_tiny_model(tmp_path / "cap6.zip", encoding)
    with pytest.raises(ValueError, match="no encoding of ouril_v0 gives the policy's observation space"):
        evaluate(loaded, "ouril_v0", ("random",), games=2, seed=1)
    assert [row.games for row in evaluate(loaded, "ouril_v0", ("random",), games=2, seed=1, encoding=encoding)] == [
        1,
        1,
        2,
    ]


def test_registered_ids_build_the_compiled_vector_env() -> None:
    for env_id in mancala_envs.envs.registration.list_gymnasium_envs()[:3]:
        envs = gymnasium.make_vec(env_id, num_envs=2, encoding="thermometer")
        assert isinstance(envs.unwrapped, MancalaVectorEnv)
        assert envs.single_observation_space.dtype == np.float32
