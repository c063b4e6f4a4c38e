"""TorchRL: the AEC env's default lean infos, TorchRL's ``PettingZooWrapper`` on every game's default env
(``mancala_envs.make(id)``, no option), and examples/torchrl_ppo.py (needs the torchrl extra).

The wrapper's rollouts are replayed move by move in a twin env with ``infos="full"``: the acting agent,
the action mask, the infos, the rewards and the end of the game must be the twin's, translated as
``LEAN_INFO_KEYS`` documents.
"""

from __future__ import annotations

import importlib.util
import io
import pickle
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torchrl", reason="needs the torchrl extra: pip install 'mancala-envs[torchrl]'")

import torch
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import mancala_envs
from mancala_envs.envs.aec_env import INFOS_MODES, LEAN_INFO_KEYS, TENSOR_INFO_KEYS
from mancala_envs.envs.registration import game_names

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "torchrl_ppo.py"
AGENTS = ("player_0", "player_1")
GAMES = game_names()  # one entry per game: ouril_v0, urim_v0, modiar_v0, rio_kadalis_v0, omweso_v0, kalah_v0
PAIRS = ("scores", "match_points")  # the (2,) entries; every other key is one int

pytestmark = [
    # TorchRL's wrapper is tested on PettingZoo 1.24.3 and warns on any other version; mancala-envs needs >= 1.27.
    pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested:UserWarning"),
    # torchrl.collectors deprecates a class of its own while it is imported (TorchRL 0.14).
    pytest.mark.filterwarnings("ignore:Creating .* which inherits from WeightUpdaterBase:DeprecationWarning"),
]


# --- helpers ------------------------------------------------------------------------------------
def expected_lean_info(full: dict[str, Any], game: Any) -> dict[str, Any]:
    """What the default lean infos must hold, from the same moment's ``infos="full"`` dict."""
    codes = {name: code for code, name in game.end_reason_names.items()}
    last_move = full["last_move"]
    return {
        "scores": list(full["scores"]),
        "match_points": list(full["match_points"]),
        "winner": -1 if full["winner"] is None else full["winner"],
        "end_reason": codes[full["end_reason"]],
        "ply": full["ply"],
        "passes": full["passes"],
        "player_to_move": -1 if full["player_to_move"] is None else full["player_to_move"],
        "games_played": full["games_played"],
        "last_player": -1 if last_move is None else last_move["player"],
        "last_action": -1 if last_move is None else last_move["action"],
    }


def plain(info: dict[str, Any]) -> dict[str, Any]:
    """A lean info dict with its arrays as lists, to compare with ``==``."""
    return {key: value.tolist() if isinstance(value, np.ndarray) else value for key, value in info.items()}


def assert_numbers_only(info: dict[str, Any]) -> None:
    assert tuple(info) == LEAN_INFO_KEYS
    for key, value in info.items():
        if key in PAIRS:
            assert isinstance(value, np.ndarray) and value.dtype == np.int64 and value.shape == (2,), key
        else:
            assert type(value) is int, (key, value)


def wrap(env: Any) -> PettingZooWrapper:
    return PettingZooWrapper(env, use_mask=True, categorical_actions=True)


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_torchrl_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def one_torch_thread() -> None:
    """Tiny tensors, a shared CI machine: extra torch threads only slow each step down."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# --- the infos of the AEC env ------------------------------------------------------------------
@pytest.mark.parametrize("env_id", GAMES)
def test_lean_infos_hold_the_full_facts_as_numbers_at_every_step(env_id: str) -> None:
    tensor_env = mancala_envs.make(env_id, illegal_action="raise")  # the default: lean infos
    full_env = mancala_envs.make(env_id, illegal_action="raise", infos="full")
    rng = np.random.default_rng(7)
    tensor_env.reset(seed=3)
    full_env.reset(seed=3)
    plies = 0
    while True:
        assert list(tensor_env.infos) == list(full_env.infos) == list(AGENTS)
        for agent in AGENTS:
            info = tensor_env.infos[agent]
            assert_numbers_only(info)
            assert plain(info) == expected_lean_info(full_env.infos[agent], full_env.game)
            assert full_env.infos[agent] == tensor_env.facts()  # the full facts stay one call away
        assert tensor_env.infos["player_0"]["scores"] is not tensor_env.infos["player_1"]["scores"]
        if tensor_env.terminations["player_0"] or tensor_env.truncations["player_0"]:
            break
        legal = np.flatnonzero(full_env.observe(full_env.agent_selection)["action_mask"])
        action = int(rng.choice(legal))
        tensor_env.step(action)
        full_env.step(action)
        plies += 1
    over = tensor_env.infos["player_0"]
    assert plies > 0 and over["player_to_move"] == -1 and over["end_reason"] > 0
    assert tensor_env.rewards == full_env.rewards


def test_the_full_infos_are_opt_in_and_hold_the_decoded_move() -> None:
    default = mancala_envs.make("ouril_v0", first_player=0)
    full = mancala_envs.make("ouril_v0", first_player=0, infos="full")
    older = mancala_envs.make("ouril_v0", first_player=0, infos="tensor")  # the earlier name of "lean"
    assert default.infos_mode == older.infos_mode == "lean" and full.infos_mode == "full"
    assert INFOS_MODES == ("lean", "full") and TENSOR_INFO_KEYS == LEAN_INFO_KEYS
    default.reset(seed=0)
    full.reset(seed=0)
    assert (
        full.infos["player_0"]
        == default.facts()
        == {
            "scores": [0, 0],
            "match_points": [0, 0],
            "end_reason": None,
            "winner": None,
            "ply": 0,
            "passes": 0,
            "player_to_move": 0,
            "games_played": 0,
            "last_move": None,
        }
    )
    for action in (0, 0, 1):
        default.step(action)
        full.step(action)
        assert {agent: default.facts() for agent in AGENTS} == full.infos
        assert full.infos["player_0"]["last_move"] == default.last_move
    assert default.last_move == {"player": 0, "action": 1, "sown": [2, 3, 4, 5, 6], "captures": []}
    assert full.infos["player_1"]["last_move"]["sown"] == [2, 3, 4, 5, 6]
    assert default.infos["player_1"]["last_action"] == 1 and "last_move" not in default.infos["player_1"]


@pytest.mark.parametrize("value", ["numpy", "Tensor", "", None, 1])
def test_a_bad_infos_value_raises_naming_the_choices(value: Any) -> None:
    with pytest.raises(ValueError, match=r"infos=.* is not allowed; use one of \['lean', 'full'\]"):
        mancala_envs.make("kalah_v0", infos=value)


def test_lean_infos_survive_a_snapshot_and_a_pickle() -> None:
    env = mancala_envs.make("mancala/omweso-v0")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(9):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    restored = mancala_envs.make("mancala/omweso-v0")
    restored.load_state_dict(env.state_dict())
    copy = pickle.loads(pickle.dumps(env))
    for twin in (restored, copy):
        assert twin.infos_mode == "lean"
        assert {a: plain(i) for a, i in twin.infos.items()} == {a: plain(i) for a, i in env.infos.items()}
    assert env.infos["player_0"]["ply"] == 9 and env.infos["player_0"]["last_action"] >= 0


# --- TorchRL's PettingZooWrapper ----------------------------------------------------------------
@pytest.mark.parametrize("env_id", GAMES)
def test_the_wrapper_plays_random_masked_games_to_the_end(env_id: str) -> None:
    """Random masked rollouts (TorchRL's rand_action samples within the action mask) replayed in a twin."""
    torch.manual_seed(0)
    env = wrap(mancala_envs.make(env_id, illegal_action="raise"))
    twin = mancala_envs.make(env_id, illegal_action="raise", infos="full")
    repeated_turns = 0  # plies after which the same agent moves again (Kalah's extra turns, Omweso's choices)
    for seed in (1, 2):
        rollout = env.rollout(100_000, break_when_any_done=True, auto_reset=False, tensordict=env.reset(seed=seed))
        twin.reset(seed=seed)
        ended = rollout["next", "done"].flatten()
        assert ended[-1] and not ended[:-1].any()
        previous = None
        for step in range(rollout.shape[0]):
            agent = twin.agent_selection
            repeated_turns += agent == previous
            previous = agent
            legal = twin.observe(agent)["action_mask"].astype(bool)
            for name in AGENTS:
                assert bool(rollout[name, "mask"][step, 0]) == (name == agent)
            assert rollout[agent, "action_mask"][step, 0].tolist() == legal.tolist()
            action = int(rollout[agent, "action"][step, 0])
            assert legal[action]
            twin.step(action)
            for name in AGENTS:
                got = {key: value[0].tolist() for key, value in rollout["next", name, "info"][step].items()}
                want = expected_lean_info(twin.infos[name], twin.game)  # ints; got holds float32 values
                assert got == want, (step, name)
        last = rollout[-1]["next"]
        for name in AGENTS:
            assert float(last[name, "reward"][0, 0]) == twin.rewards[name]
            assert bool(last[name, "terminated"][0, 0]) == twin.terminations[name]
            assert bool(last[name, "truncated"][0, 0]) == twin.truncations[name]
        assert not rollout["next", "player_0", "reward"][:-1].any()
        assert sorted(twin.rewards.values()) in ([-1, 1], [0, 0])
    if env_id in ("kalah_v0", "omweso_v0"):
        assert repeated_turns > 0


@pytest.mark.parametrize("env_id", GAMES)
def test_the_wrapper_rolls_out_the_default_env_with_no_option(env_id: str) -> None:
    """What failed before the lean default (``Could not infer dtype of NoneType``): the default env, as is."""
    torch.manual_seed(0)
    env = PettingZooWrapper(mancala_envs.make(env_id), use_mask=True, categorical_actions=True)
    rollout = env.rollout(200)
    assert rollout.shape[0] >= 1
    plies = rollout["next", "player_0", "info", "ply"][:, 0]
    assert plies[0] == 1 and plies.dtype != torch.bool  # the numbers of the lean infos, stacked
    acting = rollout["player_0", "mask"][:, 0] | rollout["player_1", "mask"][:, 0]
    assert bool(acting.all())  # exactly the agent to move acts at each step


@pytest.mark.parametrize("env_id", mancala_envs.list_envs())
def test_check_env_specs_passes(env_id: str) -> None:
    env = wrap(mancala_envs.make(env_id, illegal_action="raise"))
    check_env_specs(env, seed=0)
    info_spec = env.full_observation_spec["player_0", "info"]
    assert set(info_spec.keys()) == set(LEAN_INFO_KEYS)
    assert info_spec["scores"].shape == (1, 2) and info_spec["winner"].shape == (1,)


# --- examples/torchrl_ppo.py --------------------------------------------------------------------
TINY = {
    "total_frames": 400,
    "frames_per_batch": 200,
    "minibatch_size": 100,
    "num_epochs": 1,
    "hidden_size": 16,
    "eval_games": 2,
}


def test_the_example_trains_and_its_policy_keeps_to_the_mask() -> None:
    example = load_example()
    output = io.StringIO()
    with redirect_stdout(output):
        figures = example.train(example.Args(env_id="ouril_v0", seed=3, **TINY))
    lines = output.getvalue().splitlines()

    assert figures["frames"] == 400 and [row["frames"] for row in figures["history"]] == [200, 400]
    assert figures["games"] == figures["history"][-1]["games"] > 0
    score = figures["score_vs_random"]
    assert score["games"] == 2 and score["wins"] + score["draws"] + score["losses"] == 2
    assert len(lines) == 3 and lines[-1].startswith("done: 400 frames, ")
    assert f"(W-D-L), score {score['score']:.2f}" in lines[-1]

    # The trained actor never samples a masked move: 64 samples on a position with two legal moves.
    env = example.make_env("ouril_v0", seed=0)
    data = env.reset(options={"position": "0,0,0,0,3,2/1,1,1,1,1,1 20,17 0"})
    assert data[example.ACTION_MASK][0].tolist() == [False, False, False, False, True, True]
    actions = figures["actor"](data.expand(64).clone())[example.GROUP, "action"][:, 0]
    assert set(actions.tolist()) <= {4, 5}


def test_the_example_rejects_a_bad_budget() -> None:
    example = load_example()
    with pytest.raises(ValueError, match="must be positive"):
        example.train(example.Args(total_frames=0))
    with pytest.raises(ValueError, match="unknown env id 'oware'"):
        example.train(example.Args(env_id="oware"))


def test_the_example_runs_from_the_command_line() -> None:
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in TINY.items()]
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--env-id", "mancala/kalah-v0", "--seed", "1", *flags],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("frames     200 | SPS")
    assert lines[-1].startswith("done: 400 frames, ") and "vs random: " in lines[-1]
