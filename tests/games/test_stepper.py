"""``game.stepper()``: a game played from Python one small compiled call a ply (issue 34, target 3).

Every registered game is played at random through a stepper and through ``Game.step`` side by side: the
same states, legal bits, traces and refusals at every ply. Then its doors: actions, first players and
loaded states that are refused with their exact messages, nothing changed.
"""

from __future__ import annotations

import copy
import pickle
import re

import numpy as np
import pytest

from mancala_envs.engine.state import ILLEGAL, LEGAL, OK, PLAYER, RUNNING, STATUS
from mancala_envs.engine.trace import new_trace, read_trace
from mancala_envs.envs.registration import game_names, make_game
from mancala_envs.games.stepper import Stepper

GAMES = game_names()


def legal_actions(bits: int, n_actions: int) -> list[int]:
    return [action for action in range(n_actions) if bits >> action & 1]


@pytest.mark.parametrize("env_id", GAMES)
def test_a_stepper_plays_every_ply_as_game_step(env_id: str) -> None:
    game = make_game(env_id)
    rng = np.random.default_rng(34)
    stepper = game.stepper(trace=True)
    state, trace = game.new_state(0), new_trace()
    plies = 0
    for episode in range(8):
        first = episode % 2
        bits = stepper.reset(first)
        game.reset_state(state, first)
        assert bits == int(state[LEGAL]) and bits != 0
        np.testing.assert_array_equal(stepper.state, state)
        while plies < 3000:
            if rng.random() < 0.05:  # an action out of the legal ones: refused by both, nothing changed
                refused = [a for a in range(game.n_actions) if not bits >> a & 1]
                if refused:
                    action = int(rng.choice(refused))
                    before = state.copy()
                    assert game.step(state, action, trace) == ILLEGAL
                    with pytest.raises(ValueError, match=f"^action {action} is not legal here"):
                        stepper.step(action)
                    np.testing.assert_array_equal(stepper.state, before)
            action = int(rng.choice(legal_actions(bits, game.n_actions)))
            assert game.step(state, action, trace) == OK
            bits = stepper.step(action)
            plies += 1
            np.testing.assert_array_equal(stepper.state, state)
            assert stepper.last_trace() == read_trace(trace)
            if state[STATUS] != RUNNING:
                assert bits == 0 and stepper.legal_bits() == 0 and stepper.legal_actions() == []
                break
            assert bits == int(state[LEGAL]) == stepper.legal_bits()
            assert stepper.legal_actions() == legal_actions(bits, game.n_actions)
            np.testing.assert_array_equal(stepper.legal_mask(), game.legal_mask(state))
            assert stepper.player == int(state[PLAYER]) == game.info(state)["player_to_move"]
    assert plies > 100


@pytest.mark.parametrize("env_id", ["kalah_v0", "ouril_v0"])
def test_clones_loads_and_copies_are_independent(env_id: str) -> None:
    game = make_game(env_id)
    rng = np.random.default_rng(5)
    stepper = game.stepper(1)
    for _ in range(6):
        stepper.step(int(rng.choice(stepper.legal_actions())))
    kept = np.array(stepper.state)
    twin = stepper.clone()
    assert type(twin) is Stepper and copy.copy(stepper).legal_bits() == stepper.legal_bits()
    twin.step(twin.legal_actions()[0])
    np.testing.assert_array_equal(stepper.state, kept)  # the original did not move
    assert not np.array_equal(twin.state, kept)
    other = game.stepper()
    other.load(kept)
    np.testing.assert_array_equal(other.state, kept)
    other.copy_from(twin)
    np.testing.assert_array_equal(other.state, twin.state)
    restored = pickle.loads(pickle.dumps(stepper))
    np.testing.assert_array_equal(restored.state, kept)
    assert restored.step(restored.legal_actions()[-1]) == stepper.step(stepper.legal_actions()[-1])
    np.testing.assert_array_equal(restored.state, stepper.state)
    assert copy.deepcopy(stepper).legal_bits() == stepper.legal_bits()


def test_the_state_it_shows_is_read_only_and_numpy_actions_play() -> None:
    game = make_game("kalah_v0")
    stepper = game.stepper()
    with pytest.raises(ValueError, match="read-only"):
        stepper.state[LEGAL] = 0
    state = game.new_state(0)
    game.step(state, 2, np.empty(0, np.int64))
    assert stepper.step(np.int64(2)) == int(state[LEGAL])
    np.testing.assert_array_equal(stepper.state, state)


# --- the doors ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kalah() -> Stepper:
    return make_game("kalah_v0").stepper()


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (6, ValueError, "action 6 is out of range; use an action in 0..5."),
        (-1, ValueError, "action -1 is out of range; use an action in 0..5."),
        (2**70, ValueError, f"action {2**70} is out of range; use an action in 0..5."),
        (
            1.0,
            TypeError,
            "action must be an int in 0..5 (got float 1.0); pass one of the legal actions, e.g. from "
            "stepper.legal_actions().",
        ),
        (
            True,
            TypeError,
            "action must be an int in 0..5 (got bool True); pass one of the legal actions, e.g. from "
            "stepper.legal_actions().",
        ),
        (
            np.bool_(True),
            TypeError,
            "action must be an int in 0..5 (got bool np.True_); pass one of the legal actions, e.g. from "
            "stepper.legal_actions().",
        ),
        (
            "2",
            TypeError,
            "action must be an int in 0..5 (got str '2'); pass one of the legal actions, e.g. from "
            "stepper.legal_actions().",
        ),
    ],
)
def test_bad_actions_are_refused_with_nothing_changed(
    kalah: Stepper, action: object, error: type[Exception], message: str
) -> None:
    kalah.reset(0)
    before = np.array(kalah.state)
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        kalah.step(action)  # type: ignore[arg-type]  # the wrong types are the test
    np.testing.assert_array_equal(kalah.state, before)


def test_an_illegal_action_and_a_step_after_the_end_are_refused() -> None:
    game = make_game("kalah_v0")
    stepper = game.stepper()
    stepper.reset(0)
    stepper.step(2)  # pit 2's last seed lands in the store: player 0 moves again, pit 2 empty
    with pytest.raises(
        ValueError,
        match=re.escape(
            "action 2 is not legal here; the legal actions are [0, 1, 3, 4, 5] (stepper.legal_actions(), or the "
            "bits step() and reset() return)."
        ),
    ):
        stepper.step(2)
    rng = np.random.default_rng(0)
    bits = stepper.legal_bits()
    while bits:
        bits = stepper.step(int(rng.choice(stepper.legal_actions())))
    over = np.array(stepper.state)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "the game is over (action 0 refused); call stepper.reset() to start a new one, or check the bits "
            "step() returns: 0 means the game has ended."
        ),
    ):
        stepper.step(0)
    np.testing.assert_array_equal(stepper.state, over)
    assert stepper.reset(1) == 0b111111 and stepper.player == 1


@pytest.mark.parametrize("first_player", [2, -1, 1.0, True, "0", None])
def test_a_bad_first_player_is_refused(kalah: Stepper, first_player: object) -> None:
    kalah.reset(0)
    with pytest.raises(
        ValueError,
        match=f"^{re.escape(f'first_player={first_player!r} must be 0 or 1 (the player who moves first).')}$",
    ):
        kalah.reset(first_player)  # type: ignore[arg-type]  # the wrong values are the test
    with pytest.raises(ValueError, match="must be 0 or 1"):
        make_game("kalah_v0").stepper(first_player)  # type: ignore[arg-type]


SIZE = make_game("kalah_v0").state_size
FORM = (
    f"state must be a writable, C-contiguous int64 array of shape ({SIZE},), a state of kalah_v0 such as "
    "env.unwrapped.state_array or game.new_state(0)"
)


def _read_only() -> np.ndarray:
    state = make_game("kalah_v0").new_state(0)
    state.flags.writeable = False
    return state


@pytest.mark.parametrize(
    ("make_state", "error", "message"),
    [
        (lambda: [0] * SIZE, TypeError, f"{FORM} (got list)."),
        (
            lambda: make_game("kalah_v0").new_state(0).astype(np.int32),
            TypeError,
            f"{FORM} (got dtype int32; values are not converted).",
        ),
        (lambda: make_game("kalah_v0").new_state(0)[:-1], TypeError, f"{FORM} (got shape ({SIZE - 1},))."),
        (
            lambda: np.repeat(make_game("kalah_v0").new_state(0), 2)[::2],
            TypeError,
            f"{FORM} (got a non-contiguous view; pass np.array(state) for a writable copy).",
        ),
        (_read_only, TypeError, f"{FORM} (got a read-only array; pass np.array(state) for a writable copy)."),
    ],
)
def test_load_refuses_arrays_of_the_wrong_form(
    kalah: Stepper, make_state: object, error: type[Exception], message: str
) -> None:
    kalah.reset(1)
    before = np.array(kalah.state)
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        kalah.load(make_state())  # type: ignore[operator]
    np.testing.assert_array_equal(kalah.state, before)


def test_load_refuses_a_state_no_game_reaches(kalah: Stepper) -> None:
    kalah.reset(0)
    before = np.array(kalah.state)
    state = np.array(before)
    state[LEGAL] = 0b1  # the legal bits do not match the board
    with pytest.raises(ValueError, match=re.escape("the state's legal-move mask does not match its position.")):
        kalah.load(state)
    np.testing.assert_array_equal(kalah.state, before)


def test_copy_from_refuses_another_game_and_last_trace_needs_a_trace(kalah: Stepper) -> None:
    ouril = make_game("ouril_v0").stepper()
    with pytest.raises(
        TypeError,
        match=re.escape(
            "copy_from takes a Stepper of kalah_v0 with the same config (got Stepper); load() takes a state array."
        ),
    ):
        kalah.copy_from(ouril)
    with pytest.raises(
        ValueError, match=re.escape("this stepper records no trace; make it with game.stepper(trace=True).")
    ):
        kalah.last_trace()
