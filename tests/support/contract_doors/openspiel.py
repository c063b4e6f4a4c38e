"""Contract cases of the OpenSpiel state door (docs/contract.md, "OpenSpiel states"): serialized states
given to ``pyspiel.deserialize_game_and_state`` and ``game.deserialize_state``, and
``pyspiel.serialize_game_and_state`` with a state of another game.

The subject is a Kalah state a few plies in; what must not change is its serialized text and its
engine state. ``tests/doors/test_door_openspiel.py`` has the longer table of hostile texts, on both doors.
"""

from __future__ import annotations

import base64
import json
import pickle
from typing import Any

import numpy as np
import pyspiel

from mancala_envs.integrations.openspiel import MancalaState, load_game

from support.contract import Case, Row

DOOR = "openspiel"
SECTION = "OpenSpiel states:"


def played() -> MancalaState:
    """Kalah after four random plies."""
    state = load_game("kalah_v0").new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(4):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def frozen(state: MancalaState) -> Any:
    return {"serialized": state.serialize(), "array": state.state_array.tolist(), "history": state.history()}


def changed(subject: MancalaState, **fields: Any) -> str:
    """The state's serialized JSON with some fields replaced (``None`` removes one)."""
    data = json.loads(subject.serialize())
    for key, value in fields.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


def whole(game: Any, state_text: str) -> str:
    """A text in ``serialize_game_and_state``'s layout."""
    return f"[Meta]\nVersion: 1\n[Game]\n{game}\n[State]\n{state_text}\n"


def into_own_game(text: Any) -> Any:
    return lambda state: state.get_game().deserialize_state(text(state) if callable(text) else text)


def whole_text(text: Any) -> Any:
    return lambda state: pyspiel.deserialize_game_and_state(text(state))


PICKLED = "history=0:2\nmove_number=1\n__dict__=" + base64.b64encode(pickle.dumps({"_state": [0] * 44})).decode()

#: (row, name, call, error, words)
_TABLE: list[tuple[str, str, Any, type, tuple[str, ...]]] = [
    (
        "a text that is neither",
        "None as the text",
        into_own_game(None),
        TypeError,
        ("must be a str, the text that state.serialize() or pyspiel.serialize_game_and_state() returned",),
    ),
    ("a text that is neither", "a dict as the text", into_own_game({"format": 1}), TypeError, ("got dict",)),
    (
        "OpenSpiel's pickled form",
        "the pickled form to the game",
        into_own_game(PICKLED),
        ValueError,
        ("OpenSpiel's pickled form", "never loads", "can run any code", "state.serialize()"),
    ),
    (
        "OpenSpiel's pickled form",
        "the pickled form in a whole text",
        whole_text(lambda s: whole(s.get_game(), PICKLED)),
        ValueError,
        ("OpenSpiel's pickled form",),
    ),
    (
        "text that is not UTF-8",
        "bytes that do not decode",
        into_own_game(lambda s: s.serialize().encode() + b"\xff"),
        ValueError,
        ("is not UTF-8 text", "at position"),
    ),
    (
        "text that is not UTF-8",
        "a lone surrogate",
        into_own_game(lambda s: s.serialize() + "\udc80"),
        ValueError,
        ("is not UTF-8 text", "surrogates not allowed"),
    ),
    (
        "a state longer than",
        "a history of 40000 actions",
        into_own_game(lambda s: changed(s, history=[0] * 40_000)),
        ValueError,
        ("characters, more than a state of mancala_envs_kalah_v0 can (67536)",),
    ),
    (
        "a game-and-state text whose sections",
        "a text cut before its state",
        whole_text(lambda s: pyspiel.serialize_game_and_state(s.get_game(), s).split("[State]")[0]),
        ValueError,
        ("lacks a section",),
    ),
    (
        "a game-and-state text whose sections",
        "sections out of order",
        whole_text(lambda s: f"[Meta]\n[State]\n{s.serialize()}\n[Game]\n{s.get_game()}\n"),
        ValueError,
        ("has its [State] section out of place",),
    ),
    (
        "a `[Game]` section",
        "an unknown game name",
        whole_text(lambda s: whole("mancala_envs_oware_v0", s.serialize())),
        ValueError,
        ("names a game that cannot be loaded", "Unknown game 'mancala_envs_oware_v0'"),
    ),
    (
        "a `[Game]` section",
        "an invalid option",
        whole_text(lambda s: whole("mancala_envs_kalah_v0(first_player=2)", s.serialize())),
        ValueError,
        ("names a game that cannot be loaded", "first_player=2 is not allowed"),
    ),
    (
        "a `[Game]` section",
        "a game string of 5000 characters",
        whole_text(lambda s: whole("mancala_envs_kalah_v0(" + "x" * 4978 + ")", s.serialize())),
        ValueError,
        ("has a [Game] section of 5001 characters",),
    ),
    (
        "a state that is not JSON",
        "a truncated state",
        into_own_game(lambda s: s.serialize()[:30]),
        ValueError,
        ("is not JSON",),
    ),
    (
        "a state that is not JSON",
        "nested too deep",
        into_own_game("[" * 20_000 + "]" * 20_000),
        ValueError,
        ("is not JSON",),
    ),
    (
        "JSON that is not the state object",
        "an unknown key",
        into_own_game(lambda s: changed(s, state=[0] * 44)),
        ValueError,
        ("is not a 'mancala-envs-openspiel-state-1' object", "unknown ['state']"),
    ),
    (
        "JSON that is not the state object",
        "another format",
        into_own_game(lambda s: changed(s, format="x")),
        ValueError,
        ("is not a 'mancala-envs-openspiel-state-1' object", "format 'x'"),
    ),
    (
        "a state of another game",
        "a Kalah state in an Ouril game",
        lambda s: load_game("ouril_v0").deserialize_state(s.serialize()),
        ValueError,
        ("the serialized state is of 'mancala_envs_kalah_v0(", "this game is 'mancala_envs_ouril_v0("),
    ),
    (
        "a state of another game",
        "a Kalah state of another first player, whole text",
        whole_text(lambda s: whole(load_game("kalah_v0", first_player=1), s.serialize())),
        ValueError,
        ("first_player=0", "this game is", "first_player=1"),
    ),
    (
        "a start that is neither",
        "a start that is a list",
        into_own_game(lambda s: changed(s, start=[4] * 12)),
        ValueError,
        ("start must be null (the opening) or a position string",),
    ),
    (
        "a start that is neither",
        "a negative pit",
        into_own_game(lambda s: changed(s, start="-4,4,4,4,4,4/4,4,4,4,4,12 0,0 0")),
        ValueError,
        ("start position is one reset(options=...) refuses", "non-negative"),
    ),
    (
        "a history that is not a list",
        "a history of 1001 actions",
        into_own_game(lambda s: changed(s, history=[0] * 1001)),
        ValueError,
        ("history must be a list of at most 1000 actions",),
    ),
    (
        "an action that is not an integer",
        "a string action",
        into_own_game(lambda s: changed(s, history=["2"])),
        ValueError,
        ("history[0] is not an action", "not an integer"),
    ),
    (
        "an action that is not an integer",
        "an illegal action",
        into_own_game(lambda s: changed(s, history=[2, 2])),
        ValueError,
        ("history[1] = 2 is illegal where it is played", "the legal actions are [0, 1, 3, 4, 5]"),
    ),
    (
        "an action that is not an integer",
        "an action after the end",
        into_own_game(lambda s: changed(s, start="0,0,0,0,0,1/1,0,0,0,0,0 23,23 0", history=[5, 0])),
        ValueError,
        ("history[1] comes after the game ended",),
    ),
    (
        "`serialize_game_and_state(game, state)`",
        "a Kalah state with an Ouril game",
        lambda s: pyspiel.serialize_game_and_state(load_game("ouril_v0"), s),
        ValueError,
        ("the state is not one of 'mancala_envs_ouril_v0(", "pass the game that made it"),
    ),
    (
        "`state.serialize()` (or a pickle)",
        "a mid-game array without a start",
        lambda s: MancalaState(s.get_game(), s.state_array.copy()).serialize(),
        ValueError,
        ("does not load to exactly", "so no text can rebuild it", "game.new_initial_state(position)"),
    ),
    (
        "`state.serialize()` (or a pickle)",
        "a mid-game array with its position as start",
        lambda s: MancalaState(s.get_game(), s.state_array.copy(), start=s.position()).serialize(),
        ValueError,
        ("does not load to exactly", "ply counter, last action and repetition memory"),
    ),
    (
        "`state.serialize()` (or a pickle)",
        "a pickle of a mid-game array with its position as start",
        lambda s: pickle.dumps(MancalaState(s.get_game(), s.state_array.copy(), start=s.position())),
        ValueError,
        ("so no text can rebuild it",),
    ),
]

CASES: list[Case] = [
    Case(DOOR, Row(SECTION, row), name, call, error, words, subject=played, frozen=frozen, exact=True)
    for row, name, call, error, words in _TABLE
]
