"""The two-seat vector env (``mancala_envs.views.two_seat_env``): move-by-move equivalence with one
``MancalaEnv`` per game for every registered id in both auto-reset modes, encodings, Kalah's extra turn, input
checks, threads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

from mancala_envs.common.errors import IllegalActionError
from mancala_envs.engine.state import RUNNING, STATUS
from mancala_envs.envs.registration import VARIANTS, game_names, make_game
from mancala_envs.views.two_seat_env import TwoSeatVectorEnv
from mancala_envs.wrappers.encodings import make_encoder

from support.batch_reference import new_env

VARIANT_IDS = [variant.id for variant in VARIANTS]
#: the variants that play a match (a game's end is not an episode's end): those whose game says so
MATCH_IDS = {variant.id for variant in VARIANTS if make_game(variant.id).is_match}
#: every game of the list (mancala_envs.games.GAME_MODULES), by its plain name
BASE_IDS = game_names()
AGENTS = ("player_0", "player_1")
MODES = ("next_step", "same_step")


def _equal(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    if actual.shape != expected.shape or not np.array_equal(actual, expected):
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], np.int64)


class Mirror:
    """A ``TwoSeatVectorEnv`` (first player 0) and one ``MancalaEnv`` per game, checked after every step."""

    def __init__(self, env_id: str, autoreset_mode: str, n_games: int = 4, **options: Any) -> None:
        self.env_id = env_id
        self.options = options  # game options and reward_mode, for the single envs
        self.mode = autoreset_mode
        self.envs = TwoSeatVectorEnv(env_id, num_envs=n_games, autoreset_mode=autoreset_mode, first_player=0, **options)
        self.n = n_games
        self.singles = [new_env(env_id, 0, **options) for _ in range(n_games)]
        self.waiting = [False] * n_games  # next-step mode: the game ended on the last step
        self.ended = 0
        observation, infos = self.envs.reset(seed=0)
        assert set(infos) == {"action_mask", "_action_mask", "to_play", "_to_play"}
        for game in range(n_games):
            self.check_position(observation, infos, game)

    def check_position(self, observation: np.ndarray, infos: dict[str, Any], game: int) -> None:
        """Game ``game`` shows its single env's position from the view of the player to move."""
        env = self.singles[game]
        agent = env.agent_selection
        seen = env.observe(agent)
        assert int(infos["to_play"][game]) == AGENTS.index(agent)
        assert int(self.envs.to_play[game]) == AGENTS.index(agent)
        _equal(observation[game], seen["observation"], f"observation of game {game}")
        _equal(infos["action_mask"][game], seen["action_mask"].astype(bool), f"mask of game {game}")
        _equal(self.envs.action_masks()[game], seen["action_mask"].astype(bool), f"action_masks() of game {game}")

    def play(self, steps: int, seed: int) -> Mirror:
        rng = np.random.default_rng(seed)
        n = self.n
        for _ in range(steps):
            actions = _random_actions(self.envs.action_masks(), rng)
            observation, rewards, terminated, truncated, infos = self.envs.step(actions)
            assert observation.dtype == np.int32 and observation.shape == (n, self.envs.game.observation_size)
            assert rewards.dtype == np.float32 and rewards.shape == (n,)
            assert infos["seat_rewards"].dtype == np.float32 and infos["seat_rewards"].shape == (n, 2)
            assert infos["to_play"].dtype == infos["acted"].dtype == np.int8
            assert terminated.dtype == truncated.dtype == np.bool_
            ended = terminated | truncated
            if self.mode == "same_step":
                assert ("final_obs" in infos) == bool(ended.any()) == ("final_info" in infos)
                if ended.any():
                    _equal(infos["_final_obs"], ended, "_final_obs")
                    _equal(infos["_final_info"], ended, "_final_info")
            else:
                assert "final_obs" not in infos and "final_info" not in infos
            for game in range(n):
                if self.waiting[game]:
                    self.check_ignored_step(game, observation, rewards, terminated, truncated, infos)
                else:
                    self.check_played_step(game, int(actions[game]), observation, rewards, terminated, truncated, infos)
        return self

    def check_ignored_step(
        self,
        game: int,
        observation: np.ndarray,
        rewards: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        infos: dict[str, Any],
    ) -> None:
        """Next-step mode, the step after a game ended: its action is ignored, the new game's opening shows."""
        self.waiting[game] = False
        self.singles[game] = new_env(self.env_id, 0, **self.options)
        assert rewards[game] == 0.0 and not terminated[game] and not truncated[game]
        assert infos["seat_rewards"][game].tolist() == [0.0, 0.0]
        assert infos["acted"][game] == -1 and not infos["_acted"][game]
        self.check_position(observation, infos, game)

    def check_played_step(
        self,
        game: int,
        action: int,
        observation: np.ndarray,
        rewards: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        infos: dict[str, Any],
    ) -> None:
        env = self.singles[game]
        mover = env.agent_selection
        seat = AGENTS.index(mover)
        env.step(action)
        raw = env.unwrapped
        assert int(infos["acted"][game]) == seat and infos["_acted"][game]
        seat_rewards = [float(raw.rewards[agent]) for agent in AGENTS]
        assert infos["seat_rewards"][game].tolist() == seat_rewards
        assert float(rewards[game]) == seat_rewards[seat]
        assert bool(terminated[game]) == raw.terminations[mover] == raw.terminations[AGENTS[1 - seat]]
        assert bool(truncated[game]) == raw.truncations[mover]
        if raw.state_array[STATUS] == RUNNING:
            assert seat_rewards == [0.0, 0.0] and not terminated[game] and not truncated[game]
            self.check_position(observation, infos, game)
            return
        assert terminated[game] != truncated[game]
        self.ended += 1
        final_view = env.observe(mover)["observation"]
        if self.mode == "next_step":
            _equal(observation[game], final_view, f"final view of game {game}")
            assert infos["action_mask"][game].all() and self.envs.action_masks()[game].all()
            assert int(infos["to_play"][game]) == seat
            final = self.envs.final_info()  # next-step mode: read after the step
            self.waiting[game] = True
        else:
            _equal(infos["final_obs"][game], final_view, f"final_obs of game {game}")
            final = infos["final_info"]
            self.singles[game] = new_env(self.env_id, 0, **self.options)
            self.check_position(observation, infos, game)
        info = raw.facts()
        assert int(final["winner"][game]) == (-1 if info["winner"] is None else info["winner"])
        assert self.envs.game.end_reason_names[int(final["end_reason"][game])] == info["end_reason"]
        assert final["scores"][game].tolist() == info["scores"]
        assert final["points"][game].tolist() == info["match_points"]
        assert int(final["plies"][game]) == info["ply"]
        assert final["seat_rewards"][game].tolist() == seat_rewards
        assert int(final["acted"][game]) == seat
        for other, agent in enumerate(AGENTS):
            _equal(
                final["seat_observations"][game, other],
                env.observe(agent)["observation"],
                f"final view of seat {other} in game {game}",
            )
        assert all(final["_" + key][game] for key in ("winner", "seat_observations"))


@pytest.mark.parametrize("autoreset_mode", MODES)
@pytest.mark.parametrize("env_id", VARIANT_IDS)
def test_every_variant_moves_as_single_envs(env_id: str, autoreset_mode: str) -> None:
    mirror = Mirror(env_id, autoreset_mode).play(300, seed=5)
    if env_id not in MATCH_IDS:
        assert mirror.ended >= 2  # games ended and started again


@pytest.mark.parametrize("autoreset_mode", MODES)
@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("urim_v0", {"reward_mode": "match_points"}),
        ("mancala/urim-match-v0", {"match_target": 1, "reward_mode": "match_points"}),
        ("ouril_v0", {"max_plies": 30}),
        ("omweso_v0", {"max_turns": 12}),
    ],
    ids=lambda value: value if isinstance(value, str) else ",".join(f"{k}={v}" for k, v in value.items()),
)
def test_options_move_as_single_envs(env_id: str, options: dict[str, Any], autoreset_mode: str) -> None:
    mirror = Mirror(env_id, autoreset_mode, **options).play(200, seed=8)
    assert mirror.ended >= 2


def test_base_games_are_registered() -> None:
    shipped = {"ouril_v0", "urim_v0", "omweso_v0", "rio_kadalis_v0", "modiar_v0", "kalah_v0"}
    assert shipped <= set(BASE_IDS)
    assert {"mancala/urim-match-v0", "mancala/rio-kadalis-match-v0", "mancala/omweso-match-v0"} == MATCH_IDS


@pytest.mark.parametrize("autoreset_mode", MODES)
@pytest.mark.parametrize("env_id", BASE_IDS)
def test_plain_game_names_move_as_single_envs(env_id: str, autoreset_mode: str) -> None:
    mirror = Mirror(env_id, autoreset_mode).play(300, seed=6)
    assert mirror.ended >= 2


# --- encodings ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("autoreset_mode", MODES)
@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0", "kalah_v0"])
def test_flat_encoding_encodes_the_raw_observations(env_id: str, autoreset_mode: str) -> None:
    raw = TwoSeatVectorEnv(env_id, num_envs=4, autoreset_mode=autoreset_mode)
    flat = TwoSeatVectorEnv(env_id, num_envs=4, autoreset_mode=autoreset_mode, encoding="flat")
    encoder = make_encoder("flat", raw.game)
    assert flat.single_observation_space == encoder.space
    assert flat.observation_space.shape == (4, *encoder.space.shape)
    raw_observation, _ = raw.reset(seed=3)
    flat_observation, _ = flat.reset(seed=3)
    _equal(flat_observation, encoder.encode(raw_observation), "opening")
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        actions = _random_actions(raw.action_masks(), rng)
        raw_step = raw.step(actions)
        flat_step = flat.step(actions)
        assert flat_step[0].dtype == np.float32
        _equal(flat_step[0], encoder.encode(raw_step[0]), "observations")
        for index in (1, 2, 3):
            _equal(flat_step[index], raw_step[index], "rewards and end flags")
        raw_infos, flat_infos = raw_step[4], flat_step[4]
        _equal(flat_infos["action_mask"], raw_infos["action_mask"], "masks")
        if "final_obs" in raw_infos:
            for game in np.flatnonzero(raw_infos["_final_obs"]):
                ended += 1
                _equal(flat_infos["final_obs"][game], encoder.encode(raw_infos["final_obs"][game]), "final_obs")
            _equal(
                flat_infos["final_info"]["seat_observations"],
                encoder.encode(raw_infos["final_info"]["seat_observations"]),
                "final seat views",
            )
    assert ended >= 1 or autoreset_mode == "next_step"


# --- Kalah's extra turn ------------------------------------------------------------------------------------------
def test_kalah_extra_turn_keeps_the_mover_and_its_view() -> None:
    """Kalah (6 pits of 4): pit 2's four seeds go to pits 3, 4, 5 and the store, so player 0 moves again; pit 3's
    reach the opponent's pit 6, so player 1 moves next and sees the board from its own side."""
    envs = TwoSeatVectorEnv("kalah_v0", num_envs=2, first_player=0, threads=1)
    observation, infos = envs.reset(seed=0)
    assert infos["to_play"].tolist() == [0, 0]
    observation, rewards, terminated, truncated, infos = envs.step(np.array([2, 3]))
    assert infos["acted"].tolist() == [0, 0]
    assert infos["to_play"].tolist() == [0, 1]
    assert rewards.tolist() == [0.0, 0.0] and not terminated.any() and not truncated.any()
    # game 0, player 0's view: own pits, the opponent's pits, own store, the opponent's store
    assert observation[0, :14].tolist() == [4, 4, 0, 5, 5, 5, 4, 4, 4, 4, 4, 4, 1, 0]
    assert envs.action_masks()[0].tolist() == [True, True, False, True, True, True]
    # game 1, player 1's view: its pits 6..11 first (pit 6 got a seed), then player 0's, then the stores
    assert observation[1, :14].tolist() == [5, 4, 4, 4, 4, 4, 4, 4, 4, 0, 5, 5, 0, 1]
    # player 0 moves again in game 0: pit 5's five seeds reach its store and pits 6..9; player 1 sees it
    observation, rewards, terminated, truncated, infos = envs.step(np.array([5, 0]))
    assert infos["acted"].tolist() == [0, 1]
    assert infos["to_play"].tolist() == [1, 0]
    assert observation[0, :14].tolist() == [5, 5, 5, 5, 4, 4, 4, 4, 0, 5, 5, 0, 0, 2]


# --- input checks ------------------------------------------------------------------------------------------------
def _snapshot(envs: TwoSeatVectorEnv) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    return envs.action_masks(), envs.to_play, [envs.state(game) for game in range(envs.num_envs)]


def _assert_unchanged(envs: TwoSeatVectorEnv, before: tuple[np.ndarray, np.ndarray, list[np.ndarray]]) -> None:
    masks, to_play, states = _snapshot(envs)
    _equal(masks, before[0], "masks")
    _equal(to_play, before[1], "to_play")
    for game, (state, old) in enumerate(zip(states, before[2], strict=True)):
        _equal(state, old, f"state of game {game}")


def test_step_before_reset_raises() -> None:
    envs = TwoSeatVectorEnv("ouril_v0", num_envs=2)
    assert not envs.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(2, np.int64))


@pytest.mark.parametrize("autoreset_mode", MODES)
def test_bad_actions_raise_and_change_nothing(autoreset_mode: str) -> None:
    envs = TwoSeatVectorEnv("ouril_v0", num_envs=3, autoreset_mode=autoreset_mode, first_player=0)
    twin = TwoSeatVectorEnv("ouril_v0", num_envs=3, autoreset_mode=autoreset_mode, first_player=0)
    envs.reset(seed=0)
    twin.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):  # play on until game 1 has an empty pit (an illegal action)
        if not envs.action_masks()[1].all():
            break
        actions = _random_actions(envs.action_masks(), rng)
        envs.step(actions)
        twin.step(actions)
    mask = envs.action_masks()
    illegal = np.flatnonzero(~mask[1])
    assert illegal.size, "the test needs an empty pit in game 1"
    legal = _random_actions(mask, rng)
    before = _snapshot(envs)
    bad_actions: list[tuple[Any, type[Exception], str]] = [
        (legal[:2], ValueError, "shape"),
        (legal.reshape(3, 1), ValueError, "shape"),
        (legal.astype(np.float64), TypeError, "integers"),
        (np.array([legal[0], 6, legal[2]]), ValueError, "out of range"),
        (np.array([legal[0], -1, legal[2]]), ValueError, "out of range"),
        (np.array([legal[0], illegal[0], legal[2]]), IllegalActionError, "legal actions"),
    ]
    for actions, error, message in bad_actions:
        with pytest.raises(error, match=message):
            envs.step(actions)
        _assert_unchanged(envs, before)
    # the rejected steps played nothing: the env goes on exactly as its twin
    observation, rewards, terminated, truncated, infos = envs.step(legal)
    twin_observation, twin_rewards, twin_terminated, twin_truncated, twin_infos = twin.step(legal)
    _equal(observation, twin_observation, "observations after the rejected steps")
    _equal(rewards, twin_rewards, "rewards")
    _equal(terminated, twin_terminated, "terminations")
    _equal(truncated, twin_truncated, "truncations")
    _equal(infos["action_mask"], twin_infos["action_mask"], "masks")
    _equal(infos["to_play"], twin_infos["to_play"], "to_play")


def test_next_step_ignores_any_action_of_an_ended_game() -> None:
    """After a game ends (next-step mode), its mask allows every action and any action in range is ignored (one
    out of range is refused, as at every door), while the other games' actions are still checked."""
    envs = TwoSeatVectorEnv("modiar_v0", num_envs=2, first_player=0, threads=1)
    envs.reset(seed=0)
    rng = np.random.default_rng(2)
    for _ in range(2000):
        actions = _random_actions(envs.action_masks(), rng)
        _, _, terminated, truncated, _ = envs.step(actions)
        if (terminated | truncated).any():
            break
    ended = terminated | truncated
    game = int(np.flatnonzero(ended)[0])
    assert envs.action_masks()[game].all()
    other = 1 - game
    if not ended[other]:
        illegal = np.flatnonzero(~envs.action_masks()[other])
        if illegal.size:
            actions = np.zeros(2, np.int64)
            actions[other] = illegal[0]
            with pytest.raises(IllegalActionError):
                envs.step(actions)
    actions = _random_actions(envs.action_masks(), rng)
    actions[game] = 99  # out of range: refused there too (the one rule of every door), and nothing is played
    with pytest.raises(ValueError, match=rf"out of range in games \[{game}\]"):
        envs.step(actions)
    actions[game] = envs.single_action_space.n - 1  # any action in range: ignored
    observation, rewards, terminated, truncated, infos = envs.step(actions)
    assert rewards[game] == 0.0 and not terminated[game] and infos["acted"][game] == -1
    assert infos["to_play"][game] == 0  # the new game's opening, player 0 first
    fresh = TwoSeatVectorEnv("modiar_v0", num_envs=1, first_player=0)
    opening, _ = fresh.reset(seed=0)
    _equal(observation[game], opening[0], "the new game's opening")


def test_bad_settings_raise() -> None:
    with pytest.raises(ValueError, match="autoreset_mode"):
        TwoSeatVectorEnv("ouril_v0", num_envs=2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="num_envs"):
        TwoSeatVectorEnv("ouril_v0", num_envs=0)
    with pytest.raises(ValueError, match="encoding"):
        TwoSeatVectorEnv("ouril_v0", num_envs=2, encoding="nonsense")
    with pytest.raises(ValueError, match="first_player"):
        TwoSeatVectorEnv("ouril_v0", num_envs=2, first_player=2)
    with pytest.raises(ValueError, match="reward_mode"):
        TwoSeatVectorEnv("ouril_v0", num_envs=2, reward_mode="points")
    envs = TwoSeatVectorEnv("ouril_v0", num_envs=2)
    with pytest.raises(ValueError, match="one per game"):
        envs.reset(seed=[1, 2, 3])


# --- spaces, seeding, threads, call ------------------------------------------------------------------------------
def test_spaces_and_call() -> None:
    envs = TwoSeatVectorEnv("omweso_v0", num_envs=3, autoreset_mode="same_step")
    game = envs.game
    assert envs.observation_space.shape == (3, game.observation_size)
    assert envs.observation_space.dtype == np.int32
    assert envs.action_space == spaces.MultiDiscrete([game.n_actions] * 3)
    assert envs.metadata["autoreset_mode"].value == "SameStep"
    observation, infos = envs.reset(seed=4)
    assert envs.observation_space.contains(observation)
    masks = envs.call("action_masks")
    assert len(masks) == 3 and masks[1].shape == (game.n_actions,)
    _equal(np.array(masks), infos["action_mask"], "call('action_masks')")
    assert envs.get_attr("to_play") == tuple(infos["to_play"].tolist())
    assert envs.get_attr("env_id") == ("omweso_v0",) * 3
    with pytest.raises(AttributeError, match="no attribute"):
        envs.get_attr("opponent")
    with pytest.raises(AttributeError, match="cannot be set"):
        envs.set_attr("encoding", "flat")
    envs.close()


def test_seeds_fix_the_first_players() -> None:
    """With the first player drawn, an int seed or a list of seeds gives the same games each time."""
    envs = TwoSeatVectorEnv("ouril_v0", num_envs=16)
    first = envs.reset(seed=7)[1]["to_play"]
    assert 0 < first.sum() < 16  # drawn per game
    _equal(envs.reset(seed=7)[1]["to_play"], first, "same seed")
    listed = envs.reset(seed=list(range(16)))[1]["to_play"]
    _equal(envs.reset(seed=list(range(16)))[1]["to_play"], listed, "same list of seeds")


def _trajectory(threads: int, autoreset_mode: str) -> list[Any]:
    envs = TwoSeatVectorEnv("urim_v0", num_envs=8, autoreset_mode=autoreset_mode, threads=threads)
    assert envs.threads == threads
    outputs: list[Any] = list(envs.reset(seed=11))
    rng = np.random.default_rng(3)
    for _ in range(250):
        observation, rewards, terminated, truncated, infos = envs.step(_random_actions(envs.action_masks(), rng))
        outputs += [
            observation,
            rewards,
            terminated,
            truncated,
            infos["to_play"],
            infos["acted"],
            infos["seat_rewards"],
            infos["action_mask"],
        ]
        if "final_obs" in infos:
            outputs += [np.stack(infos["final_obs"][infos["_final_obs"]]), infos["final_info"]["winner"]]
    envs.close()
    return outputs


@pytest.mark.parametrize("autoreset_mode", MODES)
def test_results_do_not_depend_on_threads(autoreset_mode: str) -> None:
    one, two = _trajectory(1, autoreset_mode), _trajectory(2, autoreset_mode)
    assert len(one) == len(two)
    for index, (a, b) in enumerate(zip(one, two, strict=True)):
        if isinstance(a, dict):
            assert a.keys() == b.keys()
            for key in a:
                _equal(a[key], b[key], f"{key} of output {index}")
        else:
            _equal(a, b, f"output {index}")
