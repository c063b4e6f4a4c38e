"""The OpenSpiel state door (issue 30, item 8): serialized states are plain data, checked on load.

``pyspiel.deserialize_game_and_state`` used to unpickle a Python state's ``__dict__``, so a crafted
text ran code, and nothing it loaded was checked: negative pits played on, a Kalah state played in an
Ouril game, a bad history was ignored. A mancala-envs state now serializes as JSON (the game string,
the start position, the actions), and loading it replays the actions from a position that
``reset(options=...)`` accepts.

What is checked:

- a round trip (``state.serialize()`` and ``pyspiel.serialize_game_and_state``) gives the same state on
  every registered id, from the opening and from a position, mid-game and at the end: the same array,
  history, legal actions, returns, observations, text, and the same play afterwards; pickles too;
- a table of hostile texts, each refused with ``ValueError`` (or ``TypeError``) and the words of
  its message, on both doors: OpenSpiel's pickled form (whose payload, run by OpenSpiel's own
  function, creates a file; through ours it does not), other games and options, bad positions and
  histories, truncated, huge, deeply nested and non-UTF-8 texts;
- other games' texts still go to OpenSpiel's own functions.
"""

from __future__ import annotations

import base64
import copy
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the openspiel extra: pip install 'mancala-envs[openspiel]'")

from mancala_envs.envs.registration import VARIANTS  # noqa: E402
from mancala_envs.integrations.openspiel import STATE_FORMAT, MancalaState, load_game  # noqa: E402 (after the skip)

VARIANT_IDS = [variant.id for variant in VARIANTS]


def play(state: MancalaState, plies: int, seed: int) -> MancalaState:
    """Plays up to ``plies`` random legal actions on ``state`` (fewer if the game ends)."""
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def seen(state: MancalaState) -> dict[str, Any]:
    """Everything a player or an algorithm reads from a state."""
    terminal = state.is_terminal()
    return {
        "array": state.state_array.tolist(),
        "history": state.history(),
        "move_number": state.move_number(),
        "terminal": terminal,
        "player": state.current_player(),
        "legal": state.legal_actions(),
        "returns": state.returns(),
        "text": str(state),
        "observations": [state.observation_tensor(player) for player in (0, 1)],
        "position": state.position(),
        "serialized": state.serialize(),
    }


def assert_continues_alike(state: MancalaState, copy: MancalaState, seed: int) -> None:
    """``copy`` equals ``state`` now and after every ply of the same random play to the end."""
    assert seen(copy) == seen(state)
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        copy.apply_action(action)
        assert seen(copy) == seen(state)


# --- round trips ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", VARIANT_IDS)
def test_a_serialized_state_is_the_same_state_on_every_game(env_id: str) -> None:
    game = load_game(env_id, first_player=1)
    middle = play(game.new_initial_state(), 12, seed=1)
    start = middle.position()
    assert not middle.is_terminal()
    from_position = play(game.new_initial_state(start), 5, seed=2)
    for state, expected_start in ((game.new_initial_state(), None), (middle, None), (from_position, start)):
        text = state.serialize()
        assert json.loads(text) == {
            "format": STATE_FORMAT,
            "game": str(game),
            "start": expected_start,
            "history": state.history(),
        }
        copy = game.deserialize_state(text)
        copy_game, other = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        assert str(copy_game) == str(game)
        assert_continues_alike(state.clone(), copy, seed=3)
        assert_continues_alike(state, other, seed=3)
        assert state.is_terminal()
        ended = game.deserialize_state(state.serialize())  # a finished game round-trips too
        assert seen(ended) == seen(state)


def test_pickles_hold_plain_text_and_load_through_the_checks() -> None:
    game = load_game("omweso_v0", first_player=1, no_capture_turns=1)
    state = play(game.new_initial_state(), 9, seed=4)
    data = pickle.dumps(state)
    assert b"numpy" not in data and state.serialize().encode() in data  # no array is pickled
    assert seen(pickle.loads(data)) == seen(state)


def test_other_games_go_to_openspiels_own_functions() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)
    text = pyspiel.serialize_game_and_state(game, state)
    assert text == pyspiel.serialize_game_and_state.openspiel_function(game, state)
    copy_game, copy = pyspiel.deserialize_game_and_state(text)
    assert str(copy_game) == "tic_tac_toe()" and copy.history() == [4]


# --- hostile texts ----------------------------------------------------------------------------------------------
def kalah() -> tuple[Any, MancalaState]:
    game = load_game("kalah_v0")
    return game, play(game.new_initial_state(), 4, seed=0)


def full_text(game: Any, state_text: str) -> str:
    """``serialize_game_and_state``'s layout around a state section."""
    return f"# comment\n[Meta]\nVersion: 1\n\n[Game]\n{game}\n[State]\n{state_text}\n"


def fields_of(played: MancalaState, **changes: Any) -> str:
    """The state's serialized JSON with some fields changed (``None`` removes the field)."""
    fields = json.loads(played.serialize())
    for key, value in changes.items():
        if value is None:
            del fields[key]
        else:
            fields[key] = value
    return json.dumps(fields)


def pickled_form(path: Path) -> str:
    """OpenSpiel's own serialization of a Python state, with a ``__dict__`` pickle that creates ``path``."""

    class CreatesAFile:
        def __reduce__(self) -> tuple[Any, tuple[Path]]:
            return Path.touch, (path,)

    payload = base64.b64encode(pickle.dumps({"_state": CreatesAFile()})).decode()
    return f"history=0:2\nmove_number=1\n__dict__={payload}"


def kalah_position(board: str) -> str:
    return f"{board} 0,0 0"


def in_game(game: Any, text: str | bytes) -> tuple[Any, str | bytes]:
    return game, text


Build = Callable[[Any, MancalaState, Path], "tuple[Any, str | bytes]"]

#: Hostile state texts: (name, the game that loads it and the text, built from the Kalah game, its played
#: state and a folder; words of the ValueError). Each is refused by ``game.deserialize_state(text)`` and, in
#: ``serialize_game_and_state``'s layout, by ``pyspiel.deserialize_game_and_state``.
HOSTILE_STATES: list[tuple[str, Build, tuple[str, ...]]] = [
    (
        "OpenSpiel's pickled form, whose payload creates a file",
        lambda g, s, tmp: in_game(g, pickled_form(tmp / "ran")),
        ("OpenSpiel's pickled form", "never loads", "state.serialize()"),
    ),
    (
        "a bare pickle",
        lambda g, s, tmp: in_game(g, base64.b64encode(pickle.dumps({"a": 1})).decode()),
        ("is not JSON",),
    ),
    (
        "a negative pit",
        lambda g, s, tmp: in_game(g, fields_of(s, start=kalah_position("-4,4,4,4,4,4/4,4,4,4,4,12"))),
        ("start position is one reset(options=...) refuses", "non-negative"),
    ),
    (
        "seeds not conserved",
        lambda g, s, tmp: in_game(g, fields_of(s, start=kalah_position("5,4,4,4,4,4/4,4,4,4,4,4"))),
        ("start position is one reset(options=...) refuses", "49"),
    ),
    (
        "a count beyond 64 bits",
        lambda g, s, tmp: in_game(g, fields_of(s, start=kalah_position("4,4,4,4,4,4/4,4,4,4,4," + "9" * 30))),
        ("start position is one reset(options=...) refuses",),
    ),
    (
        "a start that is not a string",
        lambda g, s, tmp: in_game(g, fields_of(s, start=[4] * 12)),
        ("start must be null (the opening) or a position string",),
    ),
    (
        "a Kalah state in an Ouril game",
        lambda g, s, tmp: in_game(load_game("ouril_v0"), s.serialize()),
        ("the serialized state is of 'mancala_envs_kalah_v0(", "this game is 'mancala_envs_ouril_v0("),
    ),
    (
        "a state of another first player",
        lambda g, s, tmp: in_game(load_game("kalah_v0", first_player=1), s.serialize()),
        ("first_player=0", "this game is", "first_player=1"),
    ),
    (
        "an illegal action in the history",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[2, 2])),
        ("history[1] = 2 is illegal where it is played", "the legal actions are [0, 1, 3, 4, 5]"),
    ),
    (
        "actions after the game ended",
        lambda g, s, tmp: in_game(g, fields_of(s, start="0,0,0,0,0,1/1,0,0,0,0,0 23,23 0", history=[5, 0, 1])),
        ("history[1] comes after the game ended (after 1 actions)",),
    ),
    (
        "an action out of range",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[6])),
        ("history[0] is not an action", "out of range"),
    ),
    (
        "a negative action",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[2, -1])),
        ("history[1] is not an action", "out of range"),
    ),
    (
        "an action beyond 64 bits",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[10**30])),
        ("history[0] is not an action",),
    ),
    (
        "a string action",
        lambda g, s, tmp: in_game(g, fields_of(s, history=["2"])),
        ("history[0] is not an action", "not an integer"),
    ),
    (
        "a float action",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[2.0])),
        ("history[0] is not an action", "not an integer"),
    ),
    (
        "a bool action",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[True])),
        ("history[0] is not an action", "not an integer"),
    ),
    (
        "a NaN action",
        lambda g, s, tmp: in_game(g, fields_of(s).replace('"history": [', '"history": [NaN, ')),
        ("history[0] is not an action",),
    ),
    (
        "a history that is not a list",
        lambda g, s, tmp: in_game(g, fields_of(s, history={"0": 2})),
        ("history must be a list of at most 1000 actions",),
    ),
    (
        "a history longer than the game",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[0] * 1001)),
        ("history must be a list of at most 1000 actions",),
    ),
    (
        "another format",
        lambda g, s, tmp: in_game(g, fields_of(s, format="mancala-envs-openspiel-state-0")),
        ("is not a 'mancala-envs-openspiel-state-1' object", "'mancala-envs-openspiel-state-0'"),
    ),
    (
        "a missing key",
        lambda g, s, tmp: in_game(g, fields_of(s, start=None)),
        ("is not a 'mancala-envs-openspiel-state-1' object", "missing ['start']"),
    ),
    (
        "an unknown key",
        lambda g, s, tmp: in_game(g, fields_of(s, state=[0] * 44)),
        ("is not a 'mancala-envs-openspiel-state-1' object", "unknown ['state']"),
    ),
    (
        "JSON that is not an object",
        lambda g, s, tmp: in_game(g, "[1, 2]"),
        ("is not a 'mancala-envs-openspiel-state-1' object",),
    ),
    ("a truncated state", lambda g, s, tmp: in_game(g, s.serialize()[:40]), ("is not JSON",)),
    ("an empty state", lambda g, s, tmp: in_game(g, ""), ("is not JSON",)),
    ("JSON nested too deep", lambda g, s, tmp: in_game(g, "[" * 20_000 + "]" * 20_000), ("is not JSON",)),
    (
        "an integer of 5000 digits",
        lambda g, s, tmp: in_game(g, fields_of(s).replace('"history": [', '"history": [' + "7" * 5000 + ", ")),
        ("is not JSON",),
    ),
    (
        "a huge text",
        lambda g, s, tmp: in_game(g, fields_of(s, history=[0] * 40_000)),
        ("characters, more than a state of mancala_envs_kalah_v0 can (67536)",),
    ),
    (
        "bytes that are not UTF-8",
        lambda g, s, tmp: in_game(g, s.serialize().encode()[:-1] + b"\xff}"),
        ("is not UTF-8 text", "invalid start byte"),
    ),
    (
        "a lone surrogate",
        lambda g, s, tmp: in_game(g, s.serialize()[:-1] + "\udc80}"),
        ("is not UTF-8 text", "surrogates not allowed"),
    ),
]

#: Hostile texts that only the whole ``serialize_game_and_state`` layout has: its sections and its game.
HOSTILE_LAYOUTS: list[tuple[str, Callable[[Any, MancalaState], str], tuple[str, ...]]] = [
    (
        "a text cut before its state",
        lambda g, s: pyspiel.serialize_game_and_state(g, s).split("[State]")[0],
        ("lacks a section", "[Meta], [Game], [State]"),
    ),
    (
        "sections out of order",
        lambda g, s: f"[Meta]\n[State]\n{s.serialize()}\n[Game]\n{g}\n",
        ("has its [State] section out of place",),
    ),
    (
        "a line before the sections",
        lambda g, s: "junk\n" + full_text(g, s.serialize()),
        ("has a line before its [Meta] section, 'junk'",),
    ),
    (
        "a huge game section",
        lambda g, s: full_text("mancala_envs_kalah_v0(" + "x" * 5000 + ")", s.serialize()),
        ("has a [Game] section of 5023 characters", "(4096)"),
    ),
    (
        "an unknown game name",
        lambda g, s: full_text("mancala_envs_oware_v0", s.serialize()),
        ("names a game that cannot be loaded", "Unknown game 'mancala_envs_oware_v0'", "openspiel_names()"),
    ),
    (
        "an invalid option",
        lambda g, s: full_text("mancala_envs_kalah_v0(first_player=2)", s.serialize()),
        ("names a game that cannot be loaded", "first_player=2 is not allowed"),
    ),
    (
        "an unknown option",
        lambda g, s: full_text("mancala_envs_kalah_v0(oware=1)", s.serialize()),
        ("names a game that cannot be loaded", "Unknown parameter 'oware'"),
    ),
    (
        "a game string that does not close",
        lambda g, s: full_text("mancala_envs_kalah_v0(first_player=1", s.serialize()),
        ("names a game that cannot be loaded", "Missing closing bracket"),
    ),
]


def check_refused(call: Callable[[], Any], words: tuple[str, ...], error: type = ValueError) -> None:
    with pytest.raises(error) as raised:
        call()
    for word in words:
        assert word in str(raised.value), f"{word!r} not in {raised.value}"


@pytest.mark.parametrize(("name", "build", "words"), HOSTILE_STATES, ids=[row[0] for row in HOSTILE_STATES])
def test_a_hostile_state_is_refused_by_both_doors(
    name: str, build: Build, words: tuple[str, ...], tmp_path: Path
) -> None:
    kalah_game, state = kalah()
    before = seen(state)
    game, text = build(kalah_game, state, tmp_path)
    check_refused(lambda: game.deserialize_state(text), words)
    layout = full_text(game, "{}")
    whole = layout.replace("{}", text) if isinstance(text, str) else layout.encode().replace(b"{}", text)
    check_refused(lambda: pyspiel.deserialize_game_and_state(whole), words)
    assert not (tmp_path / "ran").exists()  # nothing was unpickled
    assert seen(state) == before


@pytest.mark.parametrize(("name", "build", "words"), HOSTILE_LAYOUTS, ids=[row[0] for row in HOSTILE_LAYOUTS])
def test_a_hostile_game_and_state_layout_is_refused(
    name: str, build: Callable[[Any, MancalaState], str], words: tuple[str, ...]
) -> None:
    game, state = kalah()
    check_refused(lambda: pyspiel.deserialize_game_and_state(build(game, state)), words)


def test_the_pickled_payload_is_live_and_only_openspiels_own_function_runs_it(tmp_path: Path) -> None:
    """The payload of the first row is real: OpenSpiel's own function (what ``pyspiel`` did before this
    module took its place) runs it and creates the file; ``pyspiel.deserialize_game_and_state`` now
    refuses the same text and creates nothing."""
    game, _ = kalah()
    text = full_text(game, pickled_form(tmp_path / "ran"))
    with pytest.raises(ValueError, match="OpenSpiel's pickled form"):
        pyspiel.deserialize_game_and_state(text)
    with pytest.raises(ValueError, match="OpenSpiel's pickled form"):
        game.deserialize_state(pickled_form(tmp_path / "ran"))
    assert not (tmp_path / "ran").exists()
    pyspiel.deserialize_game_and_state.openspiel_function(text)
    assert (tmp_path / "ran").exists()


@pytest.mark.parametrize("value", [None, 12, ["text"], {"format": STATE_FORMAT}])
def test_a_serialized_state_must_be_text(value: Any) -> None:
    game, _ = kalah()
    with pytest.raises(TypeError, match=r"must be a str, the text that state\.serialize"):
        game.deserialize_state(value)


def test_serialize_game_and_state_refuses_a_state_of_another_game() -> None:
    _game, state = kalah()
    with pytest.raises(ValueError, match=r"the state is not one of 'mancala_envs_ouril_v0\("):
        pyspiel.serialize_game_and_state(load_game("ouril_v0"), state)


@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0", "mancala/rio-kadalis-match-v0"])
def test_a_history_that_no_game_plays_is_refused_on_other_games(env_id: str) -> None:
    """Each action of the history must be legal where it is played: an action the game refuses at its
    place (found by trying every action of a played state) is refused with the legal ones."""
    game = load_game(env_id)
    state = game.new_initial_state()
    while len(state.legal_actions()) == game.num_distinct_actions():
        play(state, 1, seed=state.move_number())
    illegal = next(action for action in range(game.num_distinct_actions()) if action not in state.legal_actions())
    text = fields_of(state, history=[*state.history(), illegal])
    index = state.move_number()
    with pytest.raises(ValueError, match=rf"history\[{index}\] = {illegal} is illegal where it is played"):
        game.deserialize_state(text)


def test_a_state_made_from_a_mid_game_array_is_not_serialized_as_the_opening() -> None:
    """``MancalaState(game, array)`` of a mid-game array knows no actions from the opening: ``serialize`` refuses it
    (it used to write the opening with no actions, another state), while copies, clones and play still work."""
    game = load_game("kalah_v0")
    played = game.new_initial_state()
    for action in (2, 3):
        played.apply_action(action)
    made = MancalaState(game, played.state_array)
    with pytest.raises(ValueError, match="start=") as refused:
        made.serialize()
    assert "new_initial_state(position)" in str(refused.value)
    with pytest.raises(ValueError, match="start="):
        made.clone().serialize()
    twin = copy.deepcopy(made)
    assert np.array_equal(twin.state_array, played.state_array) and twin.legal_actions() == played.legal_actions()
    opening = MancalaState(game, game.new_initial_state().state_array)
    assert json.loads(opening.serialize())["history"] == []


@pytest.mark.parametrize("env_id", ["kalah_v0", "ouril_v0", "omweso_v0", "rio_kadalis_v0"])
def test_a_mid_game_array_with_its_position_as_start_is_not_serialized_as_another_state(env_id: str) -> None:
    """``start=`` names the position the actions are replayed from: a mid-game array holds more than its position (its
    ply counter, last action, repetition memory), so ``start=<its position>`` loads another state. ``serialize`` refuses
    it rather than write that other state; an array its start loads to exactly serializes and comes back the same."""
    game = load_game(env_id)
    played = play(game.new_initial_state(), 12, seed=0)
    position = played.position()
    made = MancalaState(game, played.state_array.copy(), start=position)
    with pytest.raises(ValueError, match="start=") as refused:
        made.serialize()
    assert "new_initial_state(position)" in str(refused.value)
    loaded = game.new_initial_state(position)
    exact = MancalaState(game, loaded.state_array.copy(), start=position)
    assert_continues_alike(loaded, game.deserialize_state(exact.serialize()), seed=1)
