"""The text view: prompts of every registered game and variant, and the parser of replies."""

from __future__ import annotations

import re

import numpy as np
import pytest
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import mancala_envs
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.views.text_view import (
    IllegalReply,
    TextView,
    format_answer,
    parse_reply,
    retry_prompt,
    sowing_order,
    text_prompt,
)

IDS = [variant.id for variant in VARIANTS]
MOVE_LINE = re.compile(r"^  move (\d+): (.*)$", re.MULTILINE)


def played(env_id: str, plies: int, seed: int = 0, first_player: int = 0) -> MancalaEnv:
    """An env after ``plies`` seeded random plies (fewer if the game ends first)."""
    env = mancala_envs.make(env_id, first_player=first_player)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        legal = env.game.legal_actions(env.state_array)
        if legal.size == 0:
            break
        env.step(int(rng.choice(legal)))
    return env


def board_counts(prompt: str, env: MancalaEnv) -> dict[int, int]:
    """The seeds the prompt's board shows in each pit (by global index: the rows are those of ``board_rows``)."""
    rows = [line for line in prompt.splitlines() if re.match(r"^  player_[01]\b.*\[", line)]
    counts = {}
    for pits, line in zip(env.game.board_rows(), rows, strict=True):
        shown = [int(number) for number in line[line.index("[") + 1 : line.index("]")].split()]
        counts.update(zip(pits, shown, strict=True))
    return counts


def mid_turn_env() -> MancalaEnv:
    """Omweso at a mid-turn choice (a relay's direction), found by seeded random play."""
    env = mancala_envs.make("mancala/omweso-v0", first_player=0)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.facts()["pending"]:
        env.step(int(rng.choice(env.game.legal_actions(env.state_array))))
    return env


# --- the prompt -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("plies", [0, 7])
def test_prompt_shows_the_board_whose_move_and_exactly_the_legal_moves(env_id: str, plies: int) -> None:
    env = played(env_id, plies, first_player=1)
    prompt = TextView(env).prompt()
    assert env.text() in prompt
    counts = board_counts(prompt, env)
    assert counts == {pit: int(env.board[pit]) for pit in counts}
    assert sorted(counts) == list(range(env.game.n_pits))
    mover = env.agent_selection
    assert prompt.startswith(f"You are playing {env.game.name.replace('_', ' ').title()} ({env.game.env_name}): ")
    assert f"You are {mover}." in prompt
    assert (f"It is {mover}'s move (ply {env.facts()['ply']})." in prompt) != bool(env.facts().get("pending"))
    legal = env.game.legal_actions(env.state_array).tolist()
    assert MOVE_LINE.findall(prompt) == [(str(action), env.describe_action(action)) for action in legal]
    tally = "Stores" if env.game.has_stores else "Captured seeds"
    assert f"{tally}: player_0 {env.stores[0]}, player_1 {env.stores[1]}." in prompt
    assert prompt.endswith(
        f'Answer with the move number of your choice, e.g. "move {legal[0]}". Name exactly one move.'
    )
    assert ("Match points: " in prompt) == env.game.is_match
    assert ("Last move: " in prompt) == (env.last_move is not None)


@pytest.mark.parametrize("env_id", IDS)
def test_the_reading_guide_is_derived_from_the_game(env_id: str) -> None:
    env = played(env_id, 0)
    guide = TextView(env).guide
    own_rows = len(env.game.board_rows()) // 2
    pits = len(env.game.board_rows()[0])
    assert f"each player owns {'1 row' if own_rows == 1 else f'{own_rows} rows'} of {pits} pits." in guide
    way = "decreasing" if env_id == "mancala/rio-kadalis-cw-v0" else "increasing"
    assert f"sows them one by one into the following pits in {way} pit-number order" in guide
    where = "the capturer's store" if env.game.has_stores else "tallied ('captured so far')"
    assert where in guide


def test_sowing_order_reads_the_direction_from_a_played_ply() -> None:
    assert sowing_order(mancala_envs.make("mancala/rio-kadalis-cw-v0").game) == -1
    assert sowing_order(mancala_envs.make("mancala/rio-kadalis-v0").game) == 1
    assert sowing_order(mancala_envs.make("mancala/omweso-placement-v0").game) == 1  # past the placement phase


def test_prompt_names_the_last_move_with_its_captures() -> None:
    env = mid_turn_env()
    assert env.last_move == {
        "player": 0,
        "action": 14,
        "sown": [15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        "captures": [[28, 2], [19, 7]],
    }
    assert "Last move: player_0 sowed pit 14 counter-clockwise, capturing 9 seeds." in text_prompt(env)


def test_omweso_mid_turn_prompt_says_the_turn_goes_on() -> None:
    env = mid_turn_env()
    pending = env.facts()["pending"]
    assert pending == {"kind": "relay", "pit": 15, "seeds": 3, "anchor": 6, "actions": [15, 31]}
    prompt = TextView(env).prompt()
    assert (
        "It is player_0's move again: this is a mid-turn choice, your turn is not over. You relay from pit 15: "
        "choose the direction."
    ) in prompt
    assert "It is player_0's move (ply" not in prompt
    assert MOVE_LINE.findall(prompt) == [
        ("15", "relays from pit 15 counter-clockwise"),
        ("31", "relays from pit 15 clockwise"),
    ]
    assert TextView(env).parse("Move: 31") == 31


def test_a_wrapped_env_is_read_through_unwrapped() -> None:
    env = played("mancala/kalah-v0", 3)
    wrapped = OrderEnforcingWrapper(env)
    assert TextView(wrapped).env is env
    assert text_prompt(wrapped) == text_prompt(env)


def test_prompt_refuses_what_is_no_running_env() -> None:
    with pytest.raises(TypeError, match="an opponent acts on a mancala_envs AEC environment"):
        TextView("kalah")
    with pytest.raises(RuntimeError, match=r"needs a reset env; call env.reset\(\) first"):
        TextView(mancala_envs.make("kalah_v0")).prompt()
    env = mancala_envs.make("mancala/modiar-v0", first_player=0)
    env.reset(seed=0)
    env.forfeit("player_0")
    with pytest.raises(ValueError, match="the game is over: there is no move to ask for"):
        TextView(env).prompt()


# --- the parser -----------------------------------------------------------------------------------------------------
@pytest.fixture
def kalah_view() -> TextView:
    """Kalah after player_0 sowed pit 2 into its store: player_0 moves again, pit 2 is empty (moves 0, 1, 3, 4, 5)."""
    env = mancala_envs.make("mancala/kalah-v0", first_player=0)
    env.reset(seed=0)
    env.step(2)
    assert env.agent_selection == "player_0"
    return TextView(env)


LEGAL_LIST = (
    "The legal moves are: move 0 (sows pit 0), move 1 (sows pit 1), move 3 (sows pit 3), move 4 (sows pit 4), "
    "move 5 (sows pit 5)."
)
ADVICE = f'Answer with exactly one move number from the list, e.g. "move 0". {LEGAL_LIST}'


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("I'll play move 3.", 3),
        ("Move: 3", 3),
        ("**3**", 3),
        ("3", 3),
        ("  `move 4`\n", 4),
        ("Action #5", 5),
        ("MOVE NUMBER 1", 1),
        ("move 3: sows pit 3", 3),
        ("I sow pit 1 (move 3), capturing 4 seeds.", 3),
        ("Pits 1 and 4 are weak, so: 5", 5),
        ("As player_0 I choose 0.", 0),
        ("move 4, yes, move 4", 4),
    ],
)
def test_parser_is_tolerant_of_chatter(kalah_view: TextView, reply: str, action: int) -> None:
    assert kalah_view.parse(reply) == action


@pytest.mark.parametrize(
    ("reply", "problem", "what"),
    [
        ("", "no_move", "Your reply names no move number."),
        ("I sow pit 4", "no_move", "Your reply names no move number."),
        ("the one with 4 seeds", "no_move", "Your reply names no move number."),
        ("3 or 4", "ambiguous", "Your reply names more than one move (moves 3 and 4)."),
        ("move 1, no, move 3, no: move 5", "ambiguous", "Your reply names more than one move (moves 1, 3 and 5)."),
        ("move 6", "out_of_range", "There is no move 6: the move numbers go from 0 to 5."),
        ("-1", "out_of_range", "There is no move -1: the move numbers go from 0 to 5."),
        ("move 2", "not_legal", "Move 2 is not legal now."),
    ],
)
def test_parser_refuses_what_names_no_legal_move(kalah_view: TextView, reply: str, problem: str, what: str) -> None:
    with pytest.raises(IllegalReply) as refused:
        kalah_view.parse(reply)
    error = refused.value
    assert isinstance(error, ValueError)
    assert (error.problem, error.reply, error.legal) == (problem, reply, [0, 1, 3, 4, 5])
    assert error.message == str(error) == f"{what} {ADVICE}"


def test_parser_refuses_a_reply_that_is_no_text(kalah_view: TextView) -> None:
    with pytest.raises(TypeError, match=r"a reply must be a string \(got int\); a text agent returns text."):
        kalah_view.parse(3)  # type: ignore[arg-type]


def test_retry_prompt_appends_the_reply_and_the_message(kalah_view: TextView) -> None:
    prompt = kalah_view.prompt()
    with pytest.raises(IllegalReply) as refused:
        kalah_view.parse("move 2")
    assert retry_prompt(prompt, "move 2", refused.value) == (
        f'{prompt}\n\nYour reply "move 2" was not accepted. Move 2 is not legal now. {ADVICE}'
    )
    long_reply = "word " * 40
    assert f'Your reply "{"word " * 11}wo..." was not accepted.' in retry_prompt(prompt, long_reply, refused.value)
    with pytest.raises(TypeError, match="error must be the IllegalReply the parser raised"):
        retry_prompt(prompt, "move 2", ValueError("x"))  # type: ignore[arg-type]


@pytest.mark.parametrize("env_id", IDS)
def test_every_answer_round_trips_to_its_move(env_id: str) -> None:
    for seed in range(3):
        env = played(env_id, 5 + 11 * seed, seed=seed)
        if env.game.legal_actions(env.state_array).size == 0:
            continue
        view = TextView(env)
        legal = set(env.game.legal_actions(env.state_array).tolist())
        for action in range(env.game.n_actions):
            if action in legal:
                assert view.parse(format_answer(action)) == action
                assert parse_reply(env, f"**{action}**") == action
            else:
                with pytest.raises(IllegalReply, match=f"^Move {action} is not legal now. "):
                    view.parse(format_answer(action))
        with pytest.raises(IllegalReply, match=f"^There is no move {env.game.n_actions}: "):
            view.parse(format_answer(env.game.n_actions))
