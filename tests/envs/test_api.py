"""PettingZoo API conformance and registry tests, parametrised over every registered id.

Every test below runs once per entry of :data:`mancala_envs.envs.registration.VARIANTS`, so a game or
variant is covered by being registered.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.env_registry.registration import aec_registry
from pettingzoo.utils.wrappers import BaseWrapper

import mancala_envs
from mancala_envs.envs.registration import NAMESPACE, VARIANTS, game_names

from support.actions import first_players
from support.contract import plain
from support.episodes import game_cap, one_game_per_episode
from support.pettingzoo_checks import api_test, only_dict_observation_warnings, render_test, seed_test

IDS = [variant.id for variant in VARIANTS]
VARIANT_BY_ID = {variant.id: variant for variant in VARIANTS}
AGENTS = ("player_0", "player_1")
GAME_NAMES = {"ouril_v0": "mancala/ouril-v0", "urim_v0": "mancala/urim-v0"}

# The infos keys promised by the README's environment contract ("infos carry the scores, match
# points, end reason, winner and the last move's sown path and captures").
INFO_KEYS = {"scores", "match_points", "end_reason", "winner", "last_move"}
LAST_MOVE_KEYS = {"player", "action", "sown", "captures"}


# --- helpers ------------------------------------------------------------------------------------
class EpisodeCounter(BaseWrapper):
    """Counts the episodes that ran to their end (every agent removed) while api_test played."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.finished_episodes = 0

    def step(self, action: Any) -> None:
        had_agents = bool(self.env.agents)
        self.env.step(action)
        if had_agents and not self.env.agents:
            self.finished_episodes += 1


def cycles_to_finish(env: Any) -> int:
    """An upper bound on the cycles of one episode: the ply cap, times the game cap of a match."""
    return env.unwrapped.game.max_episode_plies + 10


def random_action(observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


def play(env: Any, seed: int, on_step: Callable[[Any, str], None] | None = None) -> dict[str, Any]:
    """Plays one seeded random game to the end; returns totals and the end-of-game facts.

    ``on_step(env, agent)`` is called before every step (live or dead) with the agent to act.
    """
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(AGENTS, 0)
    reward_before_end = []
    plies = 0
    end: dict[str, Any] | None = None
    for agent in env.agent_iter():
        if on_step is not None:
            on_step(env, agent)
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            if end is None:
                end = {
                    "terminations": dict(env.terminations),
                    "truncations": dict(env.truncations),
                    "info": env.unwrapped.facts(),  # the end's facts by name (the lean info holds codes)
                    "lean_info": info,
                }
            env.step(None)
            continue
        env.step(random_action(observation, rng))
        plies += 1
        for name, reward in env.rewards.items():
            totals[name] += reward
        if env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
            reward_before_end.extend(env.rewards.values())
    assert end is not None
    return {"totals": totals, "plies": plies, "rewards_before_end": reward_before_end, **end}


def env_name(env_id: str) -> str:
    """The PettingZoo-style name of the game behind ``env_id``, e.g. ``"ouril_v0"``."""
    return VARIANT_BY_ID[env_id].module.rsplit(".", 1)[1]


# --- PettingZoo's own test suite --------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_pettingzoo_api_test(env_id: str) -> None:
    env = EpisodeCounter(pettingzoo.make("aec", env_id))
    with only_dict_observation_warnings():
        api_test(env, num_cycles=cycles_to_finish(env))
    assert env.finished_episodes >= 1, "api_test's play-through never reached the end of an episode"


@pytest.mark.parametrize("env_id", IDS)
def test_pettingzoo_seed_test(env_id: str) -> None:
    with only_dict_observation_warnings():
        seed_test(lambda: pettingzoo.make("aec", env_id), num_cycles=cycles_to_finish(mancala_envs.make(env_id)))


@pytest.mark.parametrize("env_id", IDS)
def test_pettingzoo_render_test(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    def make(render_mode: str | None = None) -> Any:
        env = pettingzoo.make("aec", env_id, render_mode=render_mode)
        env.unwrapped.metadata["render_fps"] = 1000  # the window waits 1/fps between frames
        return env

    with only_dict_observation_warnings():
        render_test(make)
    assert capsys.readouterr().out == "", "no render mode may print"


@pytest.mark.parametrize("env_id", IDS)
def test_render_modes(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = pettingzoo.make("aec", env_id, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and env_name(env_id) in text
    for pit in env.unwrapped.board:
        assert f"{int(pit):3d}" in text
    assert capsys.readouterr().out == "", "render_mode='ansi' must return the text, not print it"

    pictures = pettingzoo.make("aec", env_id, render_mode="rgb_array")
    pictures.reset(seed=0)
    picture = pictures.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3

    import pygame

    env = pettingzoo.make("aec", env_id, render_mode="human")
    env.unwrapped.metadata["render_fps"] = 1000
    env.reset(seed=0)
    assert env.render() is None
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
    np.testing.assert_array_equal(shown, picture)  # the window shows the rgb_array picture
    env.close()
    assert not pygame.display.get_init(), "close() must close the window"
    assert capsys.readouterr().out == ""

    env = pettingzoo.make("aec", env_id)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


# --- spaces, observations, masks, infos -----------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_spaces_are_built_once(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id)
    before = {agent: (env.observation_space(agent), env.action_space(agent)) for agent in AGENTS}
    env.reset(seed=0)
    env.step(random_action(env.last()[0], np.random.default_rng(0)))
    env.reset(seed=1)
    for agent in AGENTS:
        assert env.observation_space(agent) is before[agent][0]
        assert env.action_space(agent) is before[agent][1]
        assert env.observation_space(agent) is env.unwrapped.observation_space(agent)
        assert env.action_space(agent).n == env.unwrapped.game.n_actions
        assert env.observation_space(agent)["action_mask"].shape == (env.unwrapped.game.n_actions,)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_observations_and_masks_all_game_long(env_id: str, seed: int) -> None:
    env = pettingzoo.make("aec", env_id)
    game = env.unwrapped.game
    names = game.observation_names()

    def check(env: Any, agent: str) -> None:
        running = not (env.terminations[agent] or env.truncations[agent])
        for player in AGENTS:
            observation = env.observe(player)
            space = env.observation_space(player)
            assert set(observation) == {"observation", "action_mask"}
            assert observation["observation"].dtype == np.int32
            assert observation["observation"].shape == space["observation"].shape == (len(names),)
            assert observation["action_mask"].dtype == np.int8
            assert space.contains(observation), f"{player}'s observation is outside its space: {observation}"
            mask = observation["action_mask"]
            if running and player == agent:
                assert mask.any(), "the agent to move has no legal action while the game runs"
                assert np.array_equal(mask, game.legal_mask(env.unwrapped.state_array))
            else:
                assert not mask.any(), f"{player} is not to move but its mask is {mask}"

    play(env, seed, check)


@pytest.mark.parametrize("env_id", IDS)
def test_infos_carry_the_documented_keys(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id, infos="full")
    env.reset(seed=3)
    for agent in AGENTS:
        info = env.infos[agent]
        assert set(info) >= INFO_KEYS, f"missing infos keys: {INFO_KEYS - set(info)}"
        assert info["last_move"] is None and info["end_reason"] is None and info["winner"] is None
        assert info["scores"] == [0, 0]
    rng = np.random.default_rng(3)
    mover = env.agent_selection
    action = random_action(env.last()[0], rng)
    env.step(action)
    for agent in AGENTS:
        last_move = env.infos[agent]["last_move"]
        assert set(last_move) >= LAST_MOVE_KEYS
        assert last_move["player"] == AGENTS.index(mover) and last_move["action"] == action
        assert len(last_move["sown"]) >= 1
        n_pits = env.unwrapped.game.n_pits
        # A game whose stores take part in the sowing (Kalah) records a seed dropped into the mover's
        # store as pit n_pits + mover; the other games only sow board pits.
        own_store = n_pits + AGENTS.index(mover) if env.unwrapped.game.name == "kalah" else -1
        assert all(0 <= pit < n_pits or pit == own_store for pit in last_move["sown"])
        stores = env.unwrapped.stores.tolist()
        assert env.infos[agent]["scores"] == stores

    result = play(env, 3)
    info = result["info"]
    assert set(info) >= INFO_KEYS
    assert isinstance(info["end_reason"], str)
    assert info["winner"] in (None, 0, 1)
    assert len(info["scores"]) == 2 and len(info["match_points"]) == 2


# --- metadata and registry --------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_metadata(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id)
    name = env_name(env_id)
    assert name in mancala_envs.list_envs()
    module = importlib.import_module(VARIANT_BY_ID[env_id].module)
    for metadata in (env.metadata, env.unwrapped.metadata, module.metadata):
        assert metadata["name"] == name
        assert metadata["is_parallelizable"] is False
        assert metadata["render_modes"] == ["ansi", "human", "rgb_array", "svg"]
    assert env.possible_agents == list(AGENTS)


@pytest.mark.parametrize("env_id", IDS)
def test_make_accepts_ids_with_and_without_namespace(env_id: str) -> None:
    variant = VARIANT_BY_ID[env_id]
    expected = pettingzoo.make("aec", env_id).unwrapped.game.config
    assert expected == type(expected)(**variant.kwargs)
    short = env_id.removeprefix(f"{NAMESPACE}/")
    for name in (env_id, short):
        env = mancala_envs.make(name)
        assert env.unwrapped.game.config == expected, name
        assert env.metadata["name"] == env_name(env_id)


@pytest.mark.parametrize("name", sorted(GAME_NAMES))
def test_make_accepts_game_names(name: str) -> None:
    env = mancala_envs.make(name)
    assert env.metadata["name"] == name
    assert env.unwrapped.game.config == pettingzoo.make("aec", GAME_NAMES[name]).unwrapped.game.config
    assert name in mancala_envs.list_envs()


def test_make_keywords_override_the_variant() -> None:
    env = mancala_envs.make("mancala/ouril-mini-v0", max_plies=7, first_player=1, render_mode="ansi")
    config = env.unwrapped.game.config
    assert (config.pits_per_row, config.max_plies) == (4, 7)
    assert env.unwrapped.first_player == 1 and env.unwrapped.render_mode == "ansi"
    env = mancala_envs.make("mancala/urim48-v0", seeds_per_pit=3)
    assert env.unwrapped.game.config.seeds_per_pit == 3


def test_list_envs_lists_every_id() -> None:
    listed = mancala_envs.list_envs()
    assert len(listed) == len(set(listed))
    assert set(IDS) <= set(listed)
    assert set(GAME_NAMES) <= set(listed)
    registered = {env_id for env_id in aec_registry if env_id.startswith(f"{NAMESPACE}/")}
    assert registered == set(IDS), "the PettingZoo registry and VARIANTS disagree"
    verbose = mancala_envs.list_envs(verbose=True)
    for variant in VARIANTS:
        assert variant.description and f"{variant.id}: {variant.description}" in verbose
    for name in listed:
        mancala_envs.make(name)  # every listed name can be made


@pytest.mark.parametrize("env_id", IDS)
def test_registry_kwargs_are_json_serialisable(env_id: str) -> None:
    kwargs = VARIANT_BY_ID[env_id].kwargs
    assert json.loads(json.dumps(kwargs)) == kwargs
    assert aec_registry[env_id].kwargs == kwargs


def test_register_all_is_idempotent() -> None:
    before = {env_id: aec_registry[env_id] for env_id in IDS}
    mancala_envs.register_all()  # would warn "Overriding environment" (an error here) if it re-registered
    assert {env_id: aec_registry[env_id] for env_id in IDS} == before


# --- seeding and the first player ---------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_reset_reseeds_only_when_a_seed_is_given(env_id: str) -> None:
    a, b = pettingzoo.make("aec", env_id), pettingzoo.make("aec", env_id)
    a.reset(seed=7)
    b.reset(seed=7)
    assert a.agent_selection == b.agent_selection
    sequence = first_players(a, 24)
    assert first_players(b, 24) == sequence, "reset() without a seed must continue the seeded generator"
    assert len(set(sequence)) == 2, "reset() without a seed must not reseed to a fixed value"
    a.reset(seed=7)
    assert first_players(a, 24) == sequence, "reset(seed=...) must reseed the generator"


@pytest.mark.parametrize("env_id", IDS)
def test_first_player_is_drawn_by_lot(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id)
    starters = {}
    for seed in range(32):
        env.reset(seed=seed)
        starters[seed] = env.agent_selection
        assert env.infos[env.agent_selection]["player_to_move"] == AGENTS.index(env.agent_selection)
    assert set(starters.values()) == set(AGENTS)
    for seed in (0, 5, 31):
        env.reset(seed=seed)
        assert env.agent_selection == starters[seed], "the same seed must draw the same first player"


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("first_player", [0, 1])
def test_first_player_fixed_by_option(env_id: str, first_player: int) -> None:
    env = pettingzoo.make("aec", env_id, first_player=first_player)
    for seed in range(16):
        env.reset(seed=seed)
        assert env.agent_selection == AGENTS[first_player]
        observation = env.observe(AGENTS[first_player])["action_mask"]
        assert observation.any() and not env.observe(AGENTS[1 - first_player])["action_mask"].any()
    env.reset()
    assert env.agent_selection == AGENTS[first_player]


# --- rewards, termination, truncation --------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rewards_at_the_end_only(env_id: str, seed: int) -> None:
    env = pettingzoo.make("aec", env_id)
    result = play(env, seed)
    assert set(result["rewards_before_end"]) <= {0}, "rewards must be 0 until the game ends"
    winner = result["info"]["winner"]
    totals = result["totals"]
    if winner is None:
        assert totals == {"player_0": 0, "player_1": 0}
    else:
        assert totals == {AGENTS[winner]: 1, AGENTS[1 - winner]: -1}
    terminations, truncations = result["terminations"], result["truncations"]
    assert all(terminations.values()) != all(truncations.values())
    assert all(terminations.values()) or all(truncations.values())
    reason = result["info"]["end_reason"]
    assert (reason in ("max_plies", "max_turns", "max_games", "max_rounds")) == all(truncations.values())
    game = env.unwrapped.game
    if not game.is_match and game.scores_decide_winner:
        scores = result["info"]["scores"]
        if winner is None:
            assert scores[0] == scores[1]
        else:
            assert scores[winner] > scores[1 - winner]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("cap", [1, 4])
def test_game_cap_truncates(env_id: str, cap: int) -> None:
    game = mancala_envs.make(env_id).unwrapped.game
    option, counter = game_cap(game)
    # In a match the cap ends a game and the match goes on; one game per match makes it the end.
    extra, match_reason = one_game_per_episode(game)
    env = pettingzoo.make("aec", env_id, **{option: cap}, **extra)
    result = play(env, seed=0)
    if counter == "ply":
        assert result["plies"] == cap
    assert all(result["truncations"].values()) and not any(result["terminations"].values())
    info = result["info"]
    assert info["end_reason"] == (match_reason if game.is_match else option)
    assert info[counter] == cap
    winner = info["winner"]
    expected = dict.fromkeys(AGENTS, 0) if winner is None else {AGENTS[winner]: 1, AGENTS[1 - winner]: -1}
    assert result["totals"] == expected
    if game.scores_decide_winner:
        # Settlement: the owners collect the board, so the scores hold every seed.
        assert sum(info["scores"]) == game.total_seeds
    else:
        assert winner is None, "a game cut short by the turn cap is a draw"


@pytest.mark.parametrize("env_id", IDS)
def test_all_agents_are_removed_at_the_end(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id)
    play(env, seed=4)
    assert env.agents == [] and env.num_agents == 0
    assert env.possible_agents == list(AGENTS)


# --- copies ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_pickle_and_deepcopy_mid_game_continue_identically(env_id: str) -> None:
    """A pickled or deep-copied env, taken mid-game, plays on exactly like the original."""
    import copy
    import pickle

    env = pettingzoo.make("aec", env_id)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(6):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        env.step(random_action(env.last()[0], rng))
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for clone in clones:
        assert np.array_equal(clone.unwrapped.state_array, env.unwrapped.state_array)
    envs = [env, *clones]
    rngs = [np.random.default_rng(9) for _ in envs]
    for _ in range(cycles_to_finish(env)):
        if not env.agents:
            break
        steps = []
        for each, each_rng in zip(envs, rngs, strict=True):
            observation, _, terminated, truncated, _ = each.last()
            action = None if terminated or truncated else random_action(observation, each_rng)
            each.step(action)
            infos = {agent: plain(info) for agent, info in each.infos.items()}
            steps.append((each.agent_selection, dict(each.rewards), each.unwrapped.state_array, infos))
        for other in steps[1:]:
            assert other[0] == steps[0][0] and other[1] == steps[0][1] and other[3] == steps[0][3]
            assert np.array_equal(other[2], steps[0][2])
    assert not env.agents and all(not clone.agents for clone in clones)


# --- the default lean infos: numbers only, the same keys at every step (for TorchRL and Tianshou) --------------
@pytest.mark.parametrize("env_id", game_names())
@pytest.mark.parametrize("mode", [None, "lean", "tensor"])  # the default, its name, its earlier name
def test_lean_infos_hold_the_full_infos_facts_as_numbers_under_fixed_keys(env_id: str, mode: str | None) -> None:
    from mancala_envs.envs.aec_env import LEAN_INFO_KEYS as TENSOR_INFO_KEYS

    options = {} if mode is None else {"infos": mode}
    tensor_env = mancala_envs.make(env_id, first_player=0, **options)
    full_env = mancala_envs.make(env_id, first_player=0, infos="full")
    tensor_env.reset(seed=3)
    full_env.reset(seed=3)
    rng = np.random.default_rng(3)
    names = full_env.unwrapped.game.end_reason_names
    while True:
        for agent in tensor_env.agents:
            tensor, full = tensor_env.infos[agent], full_env.infos[agent]
            assert tuple(tensor) == TENSOR_INFO_KEYS
            for key, value in tensor.items():  # the same types at every step, from reset on
                if key in ("scores", "match_points"):
                    assert value.dtype == np.int64 and value.shape == (2,), key
                else:
                    assert type(value) is int, key
            assert tensor["scores"].tolist() == list(full["scores"])
            assert tensor["match_points"].tolist() == list(full["match_points"])
            for key in ("ply", "passes", "games_played"):
                assert tensor[key] == full[key], key
            assert tensor["winner"] == (-1 if full["winner"] is None else full["winner"])
            assert names[tensor["end_reason"]] == full["end_reason"]
            assert tensor["player_to_move"] == (-1 if full["player_to_move"] is None else full["player_to_move"])
            move = full["last_move"]
            assert (tensor["last_player"], tensor["last_action"]) == (
                (-1, -1) if move is None else (move["player"], move["action"])
            )
            assert full == tensor_env.facts()
        if not tensor_env.agents:
            break
        mover = tensor_env.agent_selection
        if tensor_env.terminations[mover] or tensor_env.truncations[mover]:
            action = None  # the game is over: each agent steps out with None
        else:
            action = int(rng.choice(np.flatnonzero(tensor_env.observe(mover)["action_mask"])))
        tensor_env.step(action)
        full_env.step(action)
        assert tensor_env.rewards == full_env.rewards


def test_infos_mode_is_checked() -> None:
    with pytest.raises(ValueError, match=r"infos='numpy' is not allowed; use one of \['lean', 'full'\]"):
        mancala_envs.make("ouril_v0", infos="numpy")
