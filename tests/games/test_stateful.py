"""Stateful (hypothesis) tests of snapshots, copies, positions and resets, on every registered id.

One :class:`SnapshotMachine` per id of :data:`mancala_envs.envs.registration.VARIANTS` interleaves, in any
order hypothesis picks:

* legal steps (drawn from the mask), runs of random plies, the dead agents' ``None`` steps at the end
  of a game, and resets with or without a seed or from a saved position;
* illegal actions under ``illegal_action="raise"``, which raise and change nothing;
* snapshots: ``json.dumps(env.state_dict())``, a deep copy and a pickle clone, plus the position text;
* restores: a saved snapshot loaded into a fresh env and into the playing env continues exactly as
  the deep copy taken at the snapshot, first players of later unseeded resets included (the random
  generator is part of the snapshot);
* positions: ``position()`` loads into a fresh env (as text and as structured options) with the same
  notation, mask and agent to move;
* corrupted snapshots, which raise ``ValueError`` and change nothing.

"Followers" are clones (deep copy, pickle, snapshot loaded into a fresh env) that must stay identical
to the playing env: every step and reset is played on them too, and an invariant compares them after
every rule. The other invariants: observations inside their spaces, an all-zero mask for the agent
not to move, and a ``position()`` that parses back to the state's position fields.

Each machine runs a small budget by default and a larger one marked ``slow``
(``pytest -m slow tests/games/test_stateful.py``). The default budget takes about a minute with the JIT,
less without it (``NUMBA_DISABLE_JIT=1``): the steps are slower, but a deep copy or pickle of an env
no longer serialises the compiled step function, which dominates the time with the JIT.

The small tests at the end pin down what the machine and its corruptions turned up: a finished
game's ``position()`` must load, and ``load_state_dict`` must refuse state arrays no game reaches
(a repetition-history length outside its slots, an unknown Omweso last-game result, impossible
header values), with a ``ValueError`` and the env unchanged.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import mancala_envs
from mancala_envs.common.errors import GameOverError, IllegalActionError
from mancala_envs.engine.state import (
    BOARD,
    END_REASON,
    FIRST_MOVE_DONE,
    HISTORY_FILTER,
    HISTORY_LEN,
    LEGAL,
    MATCH,
    PLAYER,
    PLY,
    STARTER,
    STATUS,
    STORE,
)
from mancala_envs.envs.registration import VARIANTS, make_game
from mancala_envs.games.rio_kadalis import CLOSED

from support import actions as support_actions
from support.contract import plain

IDS = [variant.id for variant in VARIANTS]
#: the game names behind the ids (``"ouril_v0"`` ...), for snapshots of another game
GAME_NAMES = sorted({variant.module.rsplit(".", 1)[1] for variant in VARIANTS})
AGENTS = ("player_0", "player_1")
#: followers and snapshots kept at once (older ones are dropped)
MAX_FOLLOWERS = 3
MAX_SNAPSHOTS = 6

QUICK = settings(
    max_examples=20,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SLOW = settings(
    max_examples=50,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

CORRUPTIONS = (
    "format",
    "missing_key",
    "other_env",
    "other_config",
    "pit_plus_one",
    "negative_pit",
    "truncated_state",
    "non_int_entry",
    "header_out_of_range",
    "legal_mismatch",
    "agent_selection_flipped",
    "malformed_rng",
    "malformed_agents",
    "malformed_tallies",
)


# --- helpers ------------------------------------------------------------------------------------
def is_running(env: Any) -> bool:
    """Whether the agent to act is alive (the episode is not over)."""
    agent = env.agent_selection
    return bool(env.agents) and not (env.terminations[agent] or env.truncations[agent])


def legal_mask(env: Any) -> np.ndarray:
    """The action mask of the agent to act."""
    return env.observe(env.agent_selection)["action_mask"]


def legal_actions(env: Any) -> list[int]:
    return np.flatnonzero(legal_mask(env)).tolist()


def short_game_options(game: Any, cap: int) -> dict[str, int]:
    """Config overrides that end a game (and a match) after a few plies or turns."""
    config = game.config
    options = {"max_turns" if hasattr(config, "max_turns") else "max_plies": cap}
    if game.is_match:
        options["max_games" if hasattr(config, "max_games") else "max_rounds"] = 2
    return options


def view(env: Any) -> dict[str, Any]:
    """Everything an agent or a snapshot can see of ``env``."""
    return {
        "state_dict": env.state_dict(),
        "state_array": env.state_array.tolist(),
        "agents": list(env.agents),
        "agent_selection": env.agent_selection,
        "rewards": dict(env.rewards),
        "cumulative_rewards": {agent: env.cumulative_reward(agent) for agent in AGENTS},
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": plain(env.infos),
        "facts": env.facts(),
        "position": env.position(),
        "observations": {
            agent: {part: value.tolist() for part, value in env.observe(agent).items()} for agent in AGENTS
        },
    }


def assert_identical(expected: Any, actual: Any, label: str) -> None:
    """``actual`` is in exactly the state of ``expected``: engine, generator, bookkeeping, observations."""
    want, got = view(expected), view(actual)
    for key in want:
        assert got[key] == want[key], f"{label}: {key} differs"


# --- the machine --------------------------------------------------------------------------------
class SnapshotMachine(RuleBasedStateMachine):
    """Plays one env of ``env_id`` with clones, snapshots and positions that must agree with it."""

    def __init__(self, env_id: str) -> None:
        super().__init__()
        self.env_id = env_id
        self.options: dict[str, Any] = {}
        self.env: Any = None
        self.followers: list[tuple[str, Any]] = []
        self.snapshots: list[dict[str, Any]] = []

    def new_env(self) -> Any:
        return mancala_envs.make(self.env_id, illegal_action="raise", **self.options)

    @property
    def game(self) -> Any:
        return self.env.game

    def everyone(self) -> list[Any]:
        return [self.env] + [follower for _, follower in self.followers]

    def add_follower(self, label: str, follower: Any) -> None:
        self.followers = ([*self.followers, (label, follower)])[-MAX_FOLLOWERS:]

    # --- setup --------------------------------------------------------------------------------
    @initialize(
        first_player=st.sampled_from([None, 0, 1]),
        reward_mode=st.sampled_from(["win_loss", "match_points"]),
        cap=st.one_of(st.none(), st.integers(1, 12)),
        seed=st.integers(0, 2**32 - 1),
    )
    def start(self, first_player: int | None, reward_mode: str, cap: int | None, seed: int) -> None:
        self.options = {"first_player": first_player, "reward_mode": reward_mode}
        if cap is not None:
            self.options.update(short_game_options(mancala_envs.make(self.env_id).game, cap))
        note(f"make({self.env_id!r}, illegal_action='raise', **{self.options}); reset(seed={seed})")
        self.env = self.new_env()
        self.env.reset(seed=seed)

    # --- playing ------------------------------------------------------------------------------
    @precondition(lambda self: is_running(self.env))
    @rule(data=st.data())
    def step_legal(self, data: st.DataObject) -> None:
        """A legal action, played on the env and on every follower."""
        self.play_legal(data)

    def play_legal(self, data: st.DataObject) -> None:
        action = data.draw(st.sampled_from(legal_actions(self.env)), label="action")
        for env in self.everyone():
            env.step(action)

    @precondition(lambda self: is_running(self.env))
    @rule(seed=st.integers(0, 2**16), plies=st.integers(1, 80))
    def play_random_plies(self, seed: int, plies: int) -> None:
        """Up to ``plies`` random legal plies (stopping at the end of the episode), on everyone."""
        rng = np.random.default_rng(seed)
        for _ in range(plies):
            if not is_running(self.env):
                break
            action = int(rng.choice(legal_actions(self.env)))
            for env in self.everyone():
                env.step(action)

    @precondition(lambda self: self.env.agents and not is_running(self.env))
    @rule(seed=st.one_of(st.none(), st.integers(0, 2**32 - 1)))
    def finish_and_reset(self, seed: int | None) -> None:
        """At the end: every dead agent steps with None, a further step raises, then a reset."""
        for env in self.everyone():
            for _ in range(len(AGENTS)):
                if env.agents:
                    env.step(None)
            assert env.agents == []
            with pytest.raises(GameOverError):
                env.step(0)
        for env in self.everyone():
            env.reset(seed=seed)

    @rule(seed=st.one_of(st.none(), st.integers(0, 2**32 - 1)), data=st.data())
    def reset(self, seed: int | None, data: st.DataObject) -> None:
        """A reset at any time, to the opening or to a saved position; the followers stay identical."""
        positions = [saved["position"] for saved in self.snapshots if saved["position"] is not None]
        position = data.draw(st.one_of(st.none(), st.sampled_from(positions)) if positions else st.none())
        options = None if position is None else {"position": position}
        for env in self.everyone():
            env.reset(seed=seed, options=options)
        info = self.env.unwrapped.facts()
        if position is not None and is_running(self.env) and info["games_played"] == 0:
            # A position loads a fresh game: the notation comes back unless that game ended at once
            # (a match then scores it and starts the next game).
            assert self.env.position() == position

    @precondition(lambda self: is_running(self.env) and 0 in legal_mask(self.env))
    @rule(data=st.data())
    def illegal_action_changes_nothing(self, data: st.DataObject) -> None:
        """An action outside the mask raises IllegalActionError and changes nothing."""
        mask = legal_mask(self.env)
        action = data.draw(st.sampled_from(np.flatnonzero(mask == 0).tolist()), label="illegal action")
        before = view(self.env)
        with pytest.raises(IllegalActionError):
            self.env.step(action)
        assert view(self.env) == before

    # --- snapshots ----------------------------------------------------------------------------
    @rule(clone=st.sampled_from(["deepcopy", "pickle", "state_dict"]))
    def snapshot(self, clone: str) -> None:
        """Saves the state_dict as JSON, a frozen deep copy, a pickle and the position; adds a live clone."""
        env = self.env
        state_dict = env.state_dict()
        text = json.dumps(state_dict)
        assert json.loads(text) == state_dict, "state_dict() is not plain JSON data"
        pickled = pickle.dumps(env)
        saved = {
            "json": text,
            "frozen": copy.deepcopy(env),
            "pickle": pickled,
            # Loading a position restarts the game, so only a running game's position is kept.
            "position": env.position() if is_running(env) else None,
        }
        self.snapshots = ([*self.snapshots, saved])[-MAX_SNAPSHOTS:]
        # The returned dict is the caller's: changing it must not reach the env.
        state_dict["state"][BOARD] += 5
        state_dict["rng"]["state"]["state"] += 1
        state_dict["rewards"]["player_0"] = 99
        state_dict["agents"].append("player_9")
        if isinstance(state_dict["last_move"], dict):
            state_dict["last_move"]["sown"].append(-1)
        assert json.dumps(env.state_dict()) == text, "changing a state_dict() result changed the env"

        if clone == "deepcopy":
            self.add_follower("deepcopy", copy.deepcopy(env))
        elif clone == "pickle":
            self.add_follower("pickle", pickle.loads(pickled))
        else:
            loaded = self.new_env()
            loaded.load_state_dict(json.loads(text))
            self.add_follower("state_dict loaded into a fresh env", loaded)

    @precondition(lambda self: self.snapshots)
    @rule(data=st.data(), plies=st.integers(0, 4), unseeded_resets=st.integers(0, 2))
    def restore(self, data: st.DataObject, plies: int, unseeded_resets: int) -> None:
        """A saved snapshot, loaded into a fresh env and into the playing env, continues as the deep copy.

        The deep copy taken at the snapshot, the pickle, the fresh env and the playing env then play
        ``plies`` legal plies and ``unseeded_resets`` resets without a seed (the generator is part of
        the snapshot, so they draw the same first players), and stay the followers of the playing env.
        """
        saved = self.snapshots[data.draw(st.integers(0, len(self.snapshots) - 1), label="snapshot")]
        reference = copy.deepcopy(saved["frozen"])
        fresh = self.new_env()
        fresh.load_state_dict(json.loads(saved["json"]))
        unpickled = pickle.loads(saved["pickle"])
        snapshot = json.loads(saved["json"])
        self.env.load_state_dict(snapshot)
        snapshot["state"][BOARD] += 5  # the loaded dict stays the caller's
        snapshot["rewards"]["player_0"] = 99
        snapshot["rng"]["state"]["state"] += 1
        self.followers = [("deepcopy at the snapshot", reference), ("pickle", unpickled), ("fresh env", fresh)]
        self.check_followers()

        for _ in range(plies):
            if not is_running(self.env):
                break
            self.play_legal(data)
            self.check_followers()
        for _ in range(unseeded_resets):
            for env in self.everyone():
                env.reset()
            self.check_followers()
        assert json.dumps(saved["frozen"].state_dict()) == saved["json"], "restoring changed the saved copy"

    @rule(data=st.data(), fresh_target=st.booleans())
    def corrupted_snapshot_changes_nothing(self, data: st.DataObject, fresh_target: bool) -> None:
        """A corrupted snapshot raises ValueError and leaves the env (playing or never reset) unchanged."""
        texts = [json.dumps(self.env.state_dict())] + [saved["json"] for saved in self.snapshots]
        snapshot = json.loads(texts[data.draw(st.integers(0, len(texts) - 1), label="snapshot (0: now)")])
        kind = data.draw(st.sampled_from(CORRUPTIONS), label="corruption")
        if not self.corrupt(snapshot, kind, data):
            return
        note(f"corruption {kind}")
        if fresh_target:
            env = self.new_env()
            with pytest.raises(ValueError):
                env.load_state_dict(snapshot)
            with pytest.raises(RuntimeError):
                env.state_dict()  # still never reset
            return
        before = view(self.env)
        with pytest.raises(ValueError):
            self.env.load_state_dict(snapshot)
        assert view(self.env) == before, f"a rejected snapshot ({kind}) changed the env"

    def corrupt(self, snapshot: dict[str, Any], kind: str, data: st.DataObject) -> bool:
        """Spoils ``snapshot`` in place as ``kind`` says; False if ``kind`` does not apply to it."""
        state = snapshot["state"]
        n_pits = self.game.n_pits
        running = state[STATUS] == 0
        if kind == "format":
            snapshot["format"] = "mancala-envs-snapshot-0"
        elif kind == "missing_key":
            del snapshot[data.draw(st.sampled_from(sorted(snapshot)), label="key")]
        elif kind == "other_env":
            others = [name for name in GAME_NAMES if name != self.game.env_name]
            snapshot["env"] = data.draw(st.sampled_from(others), label="env")
        elif kind == "other_config":
            key = "max_turns" if "max_turns" in snapshot["config"] else "max_plies"
            snapshot["config"][key] += 1
        elif kind == "pit_plus_one":
            snapshot["state"][BOARD + self.pit_to_spoil(state, data)] += 1
        elif kind == "negative_pit":
            snapshot["state"][BOARD + data.draw(st.integers(0, n_pits - 1), label="pit")] = -1
        elif kind == "truncated_state":
            snapshot["state"] = state[: data.draw(st.integers(0, len(state) - 1), label="length")]
        elif kind == "non_int_entry":
            index = data.draw(st.integers(0, len(state) - 1), label="index")
            state[index] = data.draw(st.sampled_from([float(state[index]) + 0.5, True, str(state[index]), None]))
        elif kind == "header_out_of_range":
            slot, value = data.draw(
                st.sampled_from([(PLAYER, 2), (PLAYER, -1), (STATUS, 3), (STATUS, -1), (END_REASON, 999)])
            )
            state[slot] = value
        elif kind == "legal_mismatch":
            bit = data.draw(st.integers(0, self.game.n_actions - 1), label="bit")
            state[LEGAL] ^= 1 << bit
        elif kind == "agent_selection_flipped":
            if not running:
                return False
            snapshot["agent_selection"] = AGENTS[1 - AGENTS.index(snapshot["agent_selection"])]
        elif kind == "malformed_rng":
            snapshot["rng"] = data.draw(
                st.sampled_from([None, {}, {"bit_generator": "PCG64"}, {"bit_generator": "NoSuchBitGenerator"}])
            )
        elif kind == "malformed_agents":
            snapshot["agents"] = data.draw(
                st.sampled_from([["player_1", "player_0"], ["player_0", "player_0"], ["player_2"], "player_0", None])
            )
        elif kind == "malformed_tallies":
            key = data.draw(st.sampled_from(["rewards", "cumulative_rewards", "terminations", "truncations"]))
            snapshot[key] = data.draw(st.sampled_from([{"player_0": 0}, None, [0, 0], {"player_0": 0, "player_2": 0}]))
        return True

    def pit_to_spoil(self, state: list[int], data: st.DataObject) -> int:
        """A pit whose extra seed no reachable state explains.

        Everywhere the seed total is checked; while Omweso seeds are being placed (no total yet), the
        side not placing holds 0 or 32 seeds, so one seed more there is still impossible.
        """
        held = self.game.held_seeds(np.array(state, dtype=np.int64))
        if held is not None:
            return data.draw(st.integers(0, self.game.n_pits - 1), label="pit")
        ring = self.game.n_pits // 2
        other = ring * (1 - state[PLAYER])
        return data.draw(st.integers(other, other + ring - 1), label="pit on the side not placing")

    # --- positions ----------------------------------------------------------------------------
    @rule(structured=st.booleans())
    def position_round_trips(self, structured: bool) -> None:
        """``position()`` loaded into a fresh env gives the same notation, mask and agent to move."""
        env, game = self.env, self.game
        text = env.position()
        if not is_running(env):
            return  # finished games: test_a_finished_game_position_loads
        fields = game.position_fields(env.state_array)
        fresh = self.new_env()
        fresh.reset(options=fields if structured else {"position": text})
        assert fresh.position() == text
        assert fresh.agent_selection == env.agent_selection
        assert fresh.board.tolist() == env.board.tolist() and fresh.stores.tolist() == env.stores.tolist()
        for agent in AGENTS:
            assert fresh.observe(agent)["action_mask"].tolist() == env.observe(agent)["action_mask"].tolist()

    # --- invariants ---------------------------------------------------------------------------
    @invariant()
    def observations_inside_their_spaces(self) -> None:
        for agent in AGENTS:
            observation = self.env.observe(agent)
            assert self.env.observation_space(agent).contains(observation), f"{agent}: {observation}"

    @invariant()
    def only_the_agent_to_move_has_moves(self) -> None:
        env = self.env
        mover = env.agent_selection if is_running(env) else None
        for agent in AGENTS:
            mask = env.observe(agent)["action_mask"]
            if agent == mover:
                assert mask.any(), "the agent to move has no legal action while the game runs"
                assert mask.tolist() == self.game.legal_mask(env.state_array).tolist()
            else:
                assert not mask.any(), f"{agent} is not to move but its mask is {mask}"

    @invariant()
    def position_parses_back(self) -> None:
        fields = self.game.parse_position(self.env.position())
        assert fields == self.game.position_fields(self.env.state_array)

    @invariant()
    def followers_are_identical(self) -> None:
        self.check_followers()

    def check_followers(self) -> None:
        for label, follower in self.followers:
            assert_identical(self.env, follower, label)


# --- the tests ----------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_snapshots_copies_and_positions_interleaved(env_id: str) -> None:
    run_state_machine_as_test(lambda: SnapshotMachine(env_id), settings=QUICK)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", IDS)
def test_snapshots_copies_and_positions_interleaved_longer(env_id: str) -> None:
    run_state_machine_as_test(lambda: SnapshotMachine(env_id), settings=SLOW)


# --- what the machine found: one small test each ------------------------------------------------------
def mid_game(env_id: str, plies: int = 6, seed: int = 3) -> Any:
    """An env (illegal actions raise) ``plies`` random plies into a seeded game that is still running."""
    return support_actions.mid_game(env_id, plies, seed, illegal_action="raise")


def assert_rejected_and_unchanged(env_id: str, snapshot: dict[str, Any]) -> None:
    """Loading ``snapshot`` raises ValueError, into a playing env (left unchanged) and into a fresh one."""
    env = mid_game(env_id, plies=2, seed=8)
    before = view(env)
    with pytest.raises(ValueError):
        env.load_state_dict(snapshot)
    assert view(env) == before, "a rejected snapshot changed the env"
    fresh = mancala_envs.make(env_id, illegal_action="raise")
    with pytest.raises(ValueError):
        fresh.load_state_dict(snapshot)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("cap", [None, 3])
def test_a_finished_game_position_loads(env_id: str, cap: int | None) -> None:
    """``position()`` of a finished game loads too (the docs: "which reset(options=...) loads").

    The loaded game may be over at once, or run again (its ply counter restarts; a match scores the
    game and goes on), so only the board and stores of a single game are compared.
    The one exception is documented (docs/positions.md, docs/contract.md): an Omweso game ended by the
    turn cap writes ``turn=<max_turns>``, which ``reset`` refuses, naming ``turn``, since ``turn`` is
    ``0 .. max_turns - 1`` in a position to play from.
    """
    game = mancala_envs.make(env_id).game
    options = {} if cap is None else short_game_options(game, cap)
    for seed in range(3):
        env = mancala_envs.make(env_id, illegal_action="raise", **options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while is_running(env):
            env.step(int(rng.choice(legal_actions(env))))
        text = env.position()
        fresh = mancala_envs.make(env_id, illegal_action="raise", **options)
        max_turns = getattr(env.game.config, "max_turns", None)
        if max_turns is not None and env.game.info(env.state_array)["turn"] >= max_turns:
            with pytest.raises(ValueError, match=f"turn={max_turns} is out of range"):
                fresh.reset(options={"position": text})
            continue
        fresh.reset(options={"position": text})
        if not game.is_match:
            assert fresh.board.tolist() == env.board.tolist(), text
            assert fresh.stores.tolist() == env.stores.tolist(), text


HISTORY_IDS = [i for i in IDS if hasattr(make_game(i).config, "repetition")]  # compiles nothing


@pytest.mark.parametrize("env_id", HISTORY_IDS)
def test_a_snapshot_with_a_history_length_out_of_range_is_rejected(env_id: str) -> None:
    """The repetition history's length must fit its slots.

    Accepted, a negative length makes the next step write a repetition key into the header or the
    board (a pit then holds ~10^11 seeds), and a huge one with a full filter makes it read far past
    the state array (the interpreter segfaults). This test never steps such a state.
    """
    env = mid_game(env_id)
    game = env.game
    capacity = game.state_size - (BOARD + game.n_pits)
    for length in (-1, -game.n_pits, capacity + 1, 10**12):
        snapshot = env.state_dict()
        snapshot["state"][HISTORY_LEN] = length
        snapshot["state"][HISTORY_FILTER] = -1
        assert_rejected_and_unchanged(env_id, snapshot)


OMWESO_IDS = [i for i in IDS if make_game(i).name == "omweso"]


@pytest.mark.parametrize("env_id", OMWESO_IDS)
def test_an_omweso_snapshot_with_an_unknown_last_game_result_is_rejected_unchanged(env_id: str) -> None:
    """An unknown end code in Omweso's last-game-result slot is a ValueError, and the env is unchanged
    (it was a KeyError from the infos, raised after the state had already been replaced)."""
    from mancala_envs.games.omweso.omweso_rules import GAME_RESULT

    for code in (-1, 99):
        snapshot = mid_game(env_id).state_dict()
        snapshot["state"][GAME_RESULT] = code
        assert_rejected_and_unchanged(env_id, snapshot)


def impossible_states(env: Any) -> list[tuple[str, dict[int, int]]]:
    """Slot values that no reachable running state has, each harmful once loaded (the harm in brackets)."""
    game = env.game
    cases = [
        ("a negative ply (two-row games: the observation leaves its space)", {PLY: -1}),
        ("an end reason while the game runs (infos report the game as ended)", {END_REASON: 2}),
        ("a starter other than 0 or 1 (matches: the next game has player -1, or step raises IndexError)", {STARTER: 2}),
        ("negative match points (matches: the observation leaves its space)", {MATCH: -1}),
        ("first_move_done other than 0 or 1 (Modiar: a first ply, but not in the observation)", {FIRST_MOVE_DONE: 5}),
    ]
    if game.name == "omweso":
        from mancala_envs.games.omweso import omweso_rules as omweso

        cases += [
            ("a negative capture tally (position() then no longer loads)", {STORE: -7}),
            ("a first-capture flag other than 0 or 1 (the observation leaves its space)", {omweso.FIRST_CAPTURE: 5}),
        ]
    if game.is_match and game.name == "rio_kadalis":
        mover = AGENTS.index(env.agent_selection)
        row = game.n_pits // 2
        full = [pit for pit in range((1 - mover) * row, (2 - mover) * row) if env.board[pit] > 0]
        cases.append(("a closed pit holding seeds (position() then no longer loads)", {CLOSED: 1 << full[0]}))
    return cases


@pytest.mark.parametrize("env_id", IDS)
def test_a_snapshot_with_an_impossible_header_is_rejected(env_id: str) -> None:
    """``check_state`` promises a ValueError for an out-of-range header; no game reaches these values,
    and each misbehaves once loaded (see :func:`impossible_states`)."""
    failures = []
    env = mid_game(env_id)
    for description, changes in impossible_states(env):
        snapshot = env.state_dict()
        for slot, value in changes.items():
            snapshot["state"][slot] = value
        try:
            assert_rejected_and_unchanged(env_id, snapshot)
        except (AssertionError, pytest.fail.Exception):
            failures.append(description)
    assert not failures, f"load_state_dict accepted: {failures}"
