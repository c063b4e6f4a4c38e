"""The terminal game (``mancala-envs play``): scripted input, captured output."""

from __future__ import annotations

import io
import re

import pytest

import mancala_envs
from mancala_envs.agents import make_agent
from mancala_envs.cli.play_command import play_main
from mancala_envs.cli.terminal_game import HELP, play_human

MODIAR_OPENING = """\
modiar_v0  ply 0  player_0 to move, legal actions [0, 1, 2]
  pit          5   4   3
  player_1 [   7   7   7 ]  store 0
  player_0 [   7   7   7 ]  store 0
  pit          0   1   2"""
MODIAR_MENU = """\
Your move (player_0):
  1) sow pit 0
  2) sow pit 1
  3) sow pit 2"""
# Modiar with player_0's pit 0 empty (its 7 seeds in player_0's store): pit 0 is illegal.
MODIAR_EMPTY_PIT = "0,7,7/7,7,7 7,0 0"
# Omweso W9 (tests/games/test_omweso_rules.py): action 11 ends in a relay pit 15 that may go either way.
W9 = [2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2] + [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2]
# Omweso's "Re-sow decision" (docs/rules/omweso.md): action 17 captures 4, re-sown either way from pit 1.
RESOW = [1, 3, 0, 0, 29, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1] + [0, 0, 20, 0, 0, 2, 2, 0, 0, 2, 2, 0, 0, 0, 0, 0]


class Script:
    """A fake ``input``: returns the scripted lines in order (then ``default`` forever, or EOF),
    and records the env's position at each prompt when ``env`` is set."""

    def __init__(self, *lines: str, default: str | None = None, envs: list | None = None) -> None:
        self.lines = list(lines)
        self.default = default
        self.envs = envs
        self.prompts: list[str] = []
        self.positions: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.envs:
            self.positions.append(self.envs[-1].position())
        if self.lines:
            line = self.lines.pop(0)
        elif self.default is not None:
            line = self.default
        else:
            raise EOFError
        if isinstance(line, BaseException):
            raise line
        return line


@pytest.fixture
def made_envs(monkeypatch: pytest.MonkeyPatch) -> list:
    """The environments ``play_human`` makes, so that tests can read their positions."""
    envs: list = []
    make = mancala_envs.make

    def recording_make(*args, **kwargs):
        envs.append(make(*args, **kwargs))
        return envs[-1]

    monkeypatch.setattr(mancala_envs.envs.registration, "make", recording_make)  # where play_human takes it from
    return envs


def play(*lines: str, game: str = "modiar", opponent: str = "random", default: str | None = None, **kwargs):
    """Plays a scripted game; returns the final infos, the transcript and the script."""
    out = io.StringIO()
    script = Script(*lines, default=default)
    final = play_human(game, opponent, input_fn=script, out=out, **kwargs)
    return final, out.getvalue(), script


def test_full_game_against_random_prints_every_board_and_the_result():
    final, text, script = play(default="1", first_player=0)
    assert final["stopped"] is None and final["human"] == 0
    assert text.startswith("modiar_v0: you are player_0, random is player_1. Type h for help, q to quit.\n\n")
    assert MODIAR_OPENING + "\n" + MODIAR_MENU + "\n" in text
    # The same game replayed by hand: every board the human saw, in order, then the final board.
    env = mancala_envs.make("modiar_v0", render_mode="ansi", first_player=0)
    env.reset(seed=0)
    opponent = make_agent("random", seed=0)
    expected: list[str] = []
    while env.agents and not env.terminations[env.agent_selection]:
        if env.agent_selection == "player_0":
            expected.append(env.render())
            env.step(int(env.game.legal_actions(env.state_array)[0]))
        else:
            env.step(opponent.act(env))
    boards = re.findall(r"^modiar_v0  ply .*?\n  pit .*?\n.*?\n.*?\n  pit [^\n]*", text, flags=re.MULTILINE | re.DOTALL)
    assert boards == expected + [env.render()]
    assert len(script.prompts) == len(expected)
    info = env.facts()
    winner = info["winner"]
    outcome = "draw" if winner is None else f"player_{winner} ({'you' if winner == 0 else 'random'}) wins"
    result = (
        f"Result: {outcome}; scores {info['scores'][0]}-{info['scores'][1]}, "
        f"end: {info['end_reason']}, plies: {info['ply']}"
    )
    assert text.endswith("\n" + env.render() + "\n" + result + "\n")
    assert final["scores"] == info["scores"] and final["end_reason"] == info["end_reason"]


def test_opponent_moves_are_printed_in_words():
    _, text, _ = play(default="1", opponent="greedy", first_player=1)
    lines = [line for line in text.splitlines() if line.startswith("greedy (player_1) ")]
    assert lines and all(
        re.fullmatch(r"greedy \(player_1\) sows pit [345](, capturing \d+ seeds?)?", line) for line in lines
    )
    assert re.search(r"^You \(player_0\) sow pit [012](, capturing \d+ seeds?)?$", text, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("x", "'x' is not a move: type a number from 1 to 2, or h for help."),
        ("", "Type the number of a move (1-2), or h for help."),
        ("   ", "Type the number of a move (1-2), or h for help."),
        ("99", "There is no move 99: choose a number from 1 to 2."),
        ("0", "There is no move 0: choose a number from 1 to 2."),
        ("-1", "'-1' is not a move: type a number from 1 to 2, or h for help."),
        ("a0", "Action 0 (sow pit 0) is not legal now; the legal actions are [1, 2]."),
        ("a3", "There is no action 3: actions are 0-2."),
        ("a", "'a' is not a move: type a number from 1 to 2, or h for help."),
        ("1.5", "'1.5' is not a move: type a number from 1 to 2, or h for help."),
        ("\u00b2", "'\u00b2' is not a move: type a number from 1 to 2, or h for help."),
        ("9" * 5000, "'" + "9" * 37 + "...' is not a move: type a number from 1 to 2, or h for help."),
        ("a" + "9" * 20, "'a" + "9" * 20 + "' is not a move: type a number from 1 to 2, or h for help."),
    ],
)
def test_bad_input_prints_one_line_and_changes_nothing(made_envs, line, message):
    out = io.StringIO()
    script = Script(line, "b", "q", envs=made_envs)
    final = play_human("modiar", "random", input_fn=script, out=out, start_position=MODIAR_EMPTY_PIT)
    text = out.getvalue()
    first_board, rest = text.split("\n", 2)[2].split("Your move (player_0):\n", 1)
    # The message is the only output of the bad line; "b" then shows the very same board.
    expected_after = f"  1) sow pit 1\n  2) sow pit 2\n{message}\n\n{first_board}Your move (player_0):\n"
    assert rest.startswith(expected_after)
    assert script.positions == [MODIAR_EMPTY_PIT] * 3
    assert made_envs[-1].position() == MODIAR_EMPTY_PIT
    assert final["stopped"] == "quit" and final["ply"] == 0 and final["last_move"] is None
    assert "Traceback" not in text


def test_raw_action_ids_play_the_action():
    final, text, _ = play("a2", "q", first_player=0)
    assert "You (player_0) sow pit 2\n" in text
    assert final["ply"] == 2


def test_player_1_pits_are_named_as_the_board_labels_them():
    # Ouril's player_1 plays actions 0..5, which sow the pits labelled 6..11 on the board.
    final, text, _ = play("a0", "a7", "6", "q", game="ouril", seat=1, first_player=1)
    assert "  1) sow pit 6\n" in text and "  6) sow pit 11\n" in text
    assert "You (player_1) sow pit 6\n" in text
    assert "There is no action 7: actions are 0-5." in text
    assert final["human"] == 1
    assert re.search(r"^random \(player_0\) sows pit [0-5](, capturing \d+ seeds?)?$", text, flags=re.MULTILINE)


def test_help_lists_the_commands():
    _, text, _ = play("h", "help", "q", first_player=0)
    assert text.count(HELP + "\n") == 2


def test_undo_restores_the_position_before_the_last_move(made_envs):
    out = io.StringIO()
    script = Script("u", "1", "2", "u", "u", "q", envs=made_envs)
    final = play_human("modiar", "random", input_fn=script, out=out, first_player=0)
    text = out.getvalue()
    opening = made_envs[-1].game.position_string(made_envs[-1].game.new_state(0))
    first, second, third = script.positions[1:4]
    assert script.positions[0] == first == opening
    assert second != first  # the human and the opponent have moved
    assert third != second  # and again
    # First undo: back to the position before "2"; the second: to the opening.
    assert script.positions[4:] == [second, first]
    assert made_envs[-1].position() == opening and final["ply"] == 0 and final["last_move"] is None
    assert "Nothing to undo: you have not moved yet." in text
    assert "Undone: your move (sow pit 2) and 1 reply by random.\n" in text
    assert "Undone: your move (sow pit 0) and 1 reply by random.\n" in text
    boards = re.findall(r"^modiar_v0  ply .*?\n  pit .*?\n.*?\n.*?\n  pit [^\n]*", text, flags=re.MULTILINE | re.DOTALL)
    assert boards[0] == boards[-1] == MODIAR_OPENING


def test_undo_when_the_opponent_moved_first_keeps_its_move(made_envs):
    script = Script("1", "u", "q", envs=made_envs)
    out = io.StringIO()
    play_human("modiar", "random", input_fn=script, out=out, first_player=1)
    assert script.positions[0] == script.positions[2] != script.positions[1]
    assert re.match(r"modiar_v0: .*\nrandom \(player_1\) sows pit [345]\n", out.getvalue())
    assert "Undone: your move (sow pit 0) and 1 reply by random." in out.getvalue()


@pytest.mark.parametrize(
    ("board", "move", "what", "choice", "played"),
    [
        (W9, "a11", "relay from pit 15", "relay from pit 15", "relay from pit 15 clockwise, capturing 5 seeds"),
        (
            RESOW,
            "a17",
            "re-sow the captured seeds from pit 1",
            "re-sow the captured seeds from pit 1",
            "re-sow the captured seeds from pit 1 clockwise, capturing 4 seeds",
        ),
    ],
)
def test_omweso_mid_turn_choice_is_a_two_entry_menu(made_envs, board, move, what, choice, played):
    out = io.StringIO()
    script = Script(move, "3", "u", move, "2", "q", envs=made_envs)
    play_human("omweso", "greedy", input_fn=script, out=out, start_position={"board": board, "player": 0})
    text = out.getvalue()
    menu = f"Mid-turn choice (player_0): {what}, which way?\n  1) {choice} counter-clockwise\n  2) {choice} clockwise\n"
    assert text.count(menu) == 2
    assert "There is no move 3: choose a number from 1 to 2." in text
    assert "player_0 to choose mid-turn" in text
    # The undo at the choice takes back the move that led to it: the opening position again.
    assert script.positions[0] == script.positions[3] != script.positions[1] == script.positions[4]
    assert f"You (player_0) {played}\n" in text


def test_opponent_makes_its_own_mid_turn_choices():
    _, text, _ = play("a11", "2", "q", game="omweso", opponent="greedy", start_position={"board": W9, "player": 0})
    assert re.search(r"^greedy \(player_1\) relays from pit \d+ (counter-)?clockwise", text, flags=re.MULTILINE)


def test_omweso_placement_phase_is_played_seed_by_seed(made_envs):
    out = io.StringIO()
    script = Script(*["1"] * 32, "u", "q", envs=made_envs)
    final = play_human("mancala/omweso-placement-v0", "random", input_fn=script, out=out, first_player=0)
    text = out.getvalue()
    assert " 1) place a seed in pit 0" in text and "16) place a seed in pit 15" in text
    assert "player_0 to place (32 seeds left)" in text
    # Entry 1 is the lowest pit below the cap of 10 seeds: pits 0, 1 and 2 fill up, then pit 3 gets 2.
    for pit, seeds in ((0, 10), (1, 10), (2, 10), (3, 2)):
        assert text.count(f"You (player_0) place a seed in pit {pit}\n") == seeds
    assert text.count("random (player_1) places a seed in pit ") == 32
    # The 33rd prompt is the first sowing move; undo takes back the last placement and the 32 replies.
    assert re.search(r"^Your move \(player_0\):\n\s+1\) sow pit", text, flags=re.MULTILINE)
    assert "Undone: your move (place a seed in pit 3) and 32 replies by random." in text
    assert script.positions[-1] == script.positions[-3]
    assert (
        script.positions[-1].startswith("10,10,10,1,0,0,0,0,0,0,0,0,0,0,0,0/")
        and "phase=placement" in script.positions[-1]
    )
    assert final["stopped"] == "quit" and final["phase"] == "placement"


def test_end_of_input_and_quit_end_cleanly():
    final, text, _ = play(first_player=0)  # no lines at all: EOF at the first prompt
    assert final["stopped"] == "eof"
    assert text.endswith("\nEnd of input: the game is abandoned at ply 0.\n")
    final, text, _ = play("1", "q", first_player=0)
    assert final["stopped"] == "quit"
    assert text.endswith("You quit: the game is abandoned at ply 2.\n")
    assert "Result:" not in text


def test_ctrl_c_ends_cleanly():
    final, text, _ = play("1", KeyboardInterrupt(), first_player=0)
    assert final["stopped"] == "interrupt"
    assert text.endswith("\nInterrupted: the game is abandoned at ply 2.\n")


@pytest.mark.parametrize(
    ("lines", "status", "ending"),
    [
        ((), 0, "End of input: the game is abandoned at ply 0.\n"),
        (("q",), 0, "You quit: the game is abandoned at ply 0.\n"),
        ((KeyboardInterrupt(),), 130, "Interrupted: the game is abandoned at ply 0.\n"),
    ],
)
def test_play_main_exit_status(capsys, lines, status, ending):
    out = io.StringIO()
    argv = ["modiar", "--opponent", "random", "--option", "first_player=0", "--seed", "3"]
    assert play_main(argv, input_fn=Script(*lines), out=out) == status
    assert out.getvalue().endswith(ending)
    assert capsys.readouterr().err == ""


def test_play_main_plays_a_whole_game():
    out = io.StringIO()
    argv = ["mancala/modiar-v0", "--opponent", "greedy", "--seat", "1", "--option", "first_player=1"]
    assert play_main(argv, input_fn=Script(default="1"), out=out) == 0
    assert "you are player_1, greedy is player_0" in out.getvalue()
    assert re.search(
        r"\nResult: (draw|player_[01] \((you|greedy)\) wins); scores \d+-\d+, end: \w+, plies: \d+\n$", out.getvalue()
    )


def test_random_seat_is_drawn_from_the_seed():
    seats = {play("q", seat=None, seed=seed)[0]["human"] for seed in range(12)}
    assert seats == {0, 1}
    assert play("q", seat=None, seed=5)[0]["human"] == play("q", seat=None, seed=5)[0]["human"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "the following arguments are required: game"),
        (["nope"], "unknown environment 'nope'"),
        (["modiar", "--opponent", "wizard"], "unknown agent 'wizard'"),
        (["modiar", "--seat", "2"], "invalid seat '2' (use 0, 1 or random)"),
        (["modiar", "--seed", "-4"], "invalid seed '-4' (use an integer >= 0)"),
        (["modiar", "--option", "oops"], "invalid option 'oops' (use key=value"),
        (["modiar", "--option", "colour=red"], "has no option 'colour'"),
        (["modiar", "--option", "render_mode=human"], "sets render_mode itself"),
        (
            ["modiar", "--option", "first_player=0", "--option", "first_player=1"],
            "--option first_player is given twice",
        ),
        (["modiar", "--option", "first_player=2"], "first_player=2 is not allowed"),
        (["modiar", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_play_main_bad_arguments_print_one_line(capsys, argv, message):
    def no_input(prompt: str) -> str:
        raise AssertionError("bad arguments must be reported before the game starts")

    out = io.StringIO()
    assert play_main(argv, input_fn=no_input, out=out) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala-envs play: error: ") and err.count("\n") == 1
    assert message in err
    assert out.getvalue() == ""


def test_play_main_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as stop:
        play_main(["--help"])
    assert stop.value.code == 0
    assert "--opponent" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"seat": 2}, ValueError),
        ({"seat": True}, ValueError),
        ({"seed": -1}, ValueError),
        ({"seed": "0"}, TypeError),
        ({"illegal_action": "penalty"}, ValueError),
        ({"start_position": 3}, TypeError),
        ({"start_position": "1,2,3/4,5,6 0,0 0"}, ValueError),
    ],
)
def test_play_human_checks_its_arguments_before_printing(kwargs, error):
    out = io.StringIO()
    with pytest.raises(error):
        play_human("modiar", "random", input_fn=Script(), out=out, **kwargs)
    assert out.getvalue() == ""
