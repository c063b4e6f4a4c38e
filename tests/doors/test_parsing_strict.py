"""Strict parsing: every door accepts exactly what docs/contract.md documents, and nothing else.

Issue "Untrusted files", item 5. Each case is a bad input that used to be accepted (or that raised the
wrong exception, or a message that did not name the problem); each must now raise the documented
exception, name the field, and leave the environment exactly as it was (``assert_rejected``).

The cases are grouped by door; ``test_case_counts`` records how many each door has.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_bad_input import mid_game
from test_contract import assert_rejected

import mancala_envs
from mancala_envs.common.validation import check_action
from mancala_envs.games.urim import UrimConfig
from mancala_envs.views.single_agent_env import SingleAgentEnv

OURIL = "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"
OMWESO_OPENING = "4,4,4,4,4,4,4,4,0,0,0,0,0,0,0,0/4,4,4,4,4,4,4,4,0,0,0,0,0,0,0,0 0,0 0"
#: W9 of the Omweso rules page at its decision point (tests/games/test_positions.py)
W9 = (
    "2,2,0,3,0,2,2,2,2,1,0,0,2,2,2,3/4,2,2,3,3,2,2,4,0,3,2,2,3,3,2,2 0,0 0 "
    "turn=2 first_capture_done=1 pending=relay:15:11"
)
FOUR = [4] * 12

# --- reset options, structured form: (env id, options, texts the ValueError names) -------------------------------
POSITION_CASES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "infinite pit": ("mancala/ouril-v0", {"board": [float("inf")] + FOUR[1:]}, ("board", "whole")),
    "nan pit": ("mancala/ouril-v0", {"board": [float("nan")] + FOUR[1:]}, ("board", "whole")),
    "pit of 10**400": ("mancala/ouril-v0", {"board": [10**400] + FOUR[1:]}, ("board", "48")),
    "pit of 10**30": ("mancala/ouril-v0", {"board": [10**30] + FOUR[1:]}, ("board", "more than", "48")),
    "store of 10**30": ("mancala/ouril-v0", {"board": FOUR, "stores": [10**30, 0]}, ("stores", "more than", "48")),
    "whole float pit": ("mancala/ouril-v0", {"board": [4.0] + FOUR[1:]}, ("board", "whole")),
    "board as a string": ("mancala/rio-kadalis-v0", {"board": "444444444444"}, ("board", "list")),
    "board of strings": ("mancala/rio-kadalis-v0", {"board": ["4"] * 12}, ("board", "whole")),
    "stores as a string": ("mancala/rio-kadalis-v0", {"board": FOUR, "stores": "00"}, ("stores", "list")),
    "board as a dict": ("mancala/ouril-v0", {"board": dict.fromkeys(range(12), 4)}, ("board", "list")),
    "board as a set": ("mancala/ouril-v0", {"board": {4}}, ("board", "list")),
    "board of bools": ("mancala/ouril-v0", {"board": [True] * 12, "stores": [18, 18]}, ("board", "whole")),
    "2-d board array": ("mancala/ouril-v0", {"board": np.full((2, 6), 4)}, ("board", "list")),
    "reserves as a string": (
        "mancala/rio-kadalis-match-v0",
        {"board": [4] * 11 + [0], "reserves": "40"},
        ("reserves", "list"),
    ),
    "omweso turn = max_turns": (
        "mancala/omweso-v0",
        {"board": ([4] * 8 + [0] * 8) * 2, "turn": 2000},
        ("turn", "1999"),
    ),
    "omweso turn_captures=9": (
        "mancala/omweso-v0",
        {"position": W9 + " turn_captures=9"},
        ("turn_captures", "8"),
    ),
    "omweso turn_captures=8+4 without 1": (
        "mancala/omweso-v0",
        {"position": W9 + " turn_captures=12"},
        ("turn_captures",),
    ),
}

# --- the notation: (env id, position text, texts the ValueError names) --------------------------------------------
NOTATION_CASES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "plus sign": ("mancala/ouril-v0", "+4" + OURIL[1:], ("board", "whole numbers")),
    "arabic-indic digit": ("mancala/ouril-v0", "\u0664" + OURIL[1:], ("board", "whole numbers")),
    "full-width digit": ("mancala/ouril-v0", "\uff14" + OURIL[1:], ("board", "whole numbers")),
    "superscript digit": ("mancala/ouril-v0", "\u00b94" + OURIL[1:], ("board", "whole numbers")),
    "underscore in a number": ("mancala/ouril-v0", "4_0" + OURIL[1:], ("board", "whole numbers")),
    "space inside a pit": ("mancala/ouril-v0", "4,4,4,4,4,4/4,4,4,4,4, 4 0,0 0", ("player",)),
    "tab separator": ("mancala/ouril-v0", OURIL.replace(" ", "\t", 1), ("spaces", "'\\t'")),
    "newline separator": ("mancala/ouril-v0", OURIL.replace(" ", "\n"), ("spaces", "'\\n'")),
    "trailing newline": ("mancala/ouril-v0", OURIL + "\n", ("spaces", "'\\n'")),
    "non-breaking space": ("mancala/ouril-v0", OURIL.replace(" ", "\u00a0", 1), ("spaces",)),
    "plus store": ("mancala/ouril-v0", "4,4,4,4,4,4/4,4,4,4,4,4 +0,0 0", ("stores", "whole numbers")),
    "full-width player": ("mancala/ouril-v0", "4,4,4,4,4,4/4,4,4,4,4,4 0,0 \uff10", ("player",)),
    "superscript turn": ("mancala/omweso-v0", OMWESO_OPENING + " turn=\u00b90", ("turn", "whole number")),
    "plus turn": ("mancala/omweso-v0", OMWESO_OPENING + " turn=+3", ("turn", "whole number")),
    "arabic-indic turn": ("mancala/omweso-v0", OMWESO_OPENING + " turn=\u0663", ("turn", "whole number")),
    "pending pit superscript": (
        "mancala/omweso-v0",
        W9.replace("relay:15:11", "resow:\u00b90:7"),
        ("pending", "'relay:<pit>:<anchor>' or 'resow:<pit>:<seeds>'"),
    ),
    "pending pit full-width": ("mancala/omweso-v0", W9.replace("relay:15:11", "relay:\uff11\uff15:11"), ("pending",)),
    "pending anchor plus": ("mancala/omweso-v0", W9.replace("relay:15:11", "relay:15:+11"), ("pending",)),
    "omweso turn = max_turns": ("mancala/omweso-v0", OMWESO_OPENING + " turn=2000", ("turn", "1999")),
    "omweso turn_captures=9": ("mancala/omweso-v0", W9 + " turn_captures=9", ("turn_captures",)),
    "closed pits full-width": (
        "mancala/rio-kadalis-match-v0",
        "0,0,4,4,4,4/4,4,4,4,4,4 0,0 0 closed=0,\uff11 reserves=3,5",
        ("closed", "whole numbers"),
    ),
}

# --- configs: (config class or env id, option, bad value, texts the ValueError names) ---------------------------
CONFIG_CASES: dict[str, tuple[str, str, Any, tuple[str, ...]]] = {
    "trigger as a dict": ("mancala/urim-v0", "trigger", {2: 1}, ("trigger", "list of seed counts")),
    "chain as a dict": ("mancala/urim-v0", "chain", {2: 1, 3: 1}, ("chain", "list of seed counts")),
    "trigger as a set": ("mancala/urim-v0", "trigger", {2, 3}, ("trigger", "list of seed counts")),
    "trigger as a generator": ("mancala/urim-v0", "trigger", (c for c in (2, 3)), ("trigger", "list of seed counts")),
    "trigger as bytes": ("mancala/urim-v0", "trigger", b"\x02\x03", ("trigger", "list of seed counts")),
    "trigger of bools": ("mancala/urim-v0", "trigger", [True], ("trigger", "between 1 and 62")),
}

# --- step: (env id, action); the AEC env and the single-agent view raise the same TypeError -------------------------
STEP_CASES: dict[str, Any] = {
    "one-element int array": np.array([1]),
    "one-element int32 array": np.array([1], dtype=np.int32),
    "1x1 int array": np.array([[1]]),
}


def options_of(case: tuple[str, Any, tuple[str, ...]]) -> dict[str, Any]:
    env_id, options, _ = case
    return options if isinstance(options, dict) else {"position": options}


@pytest.mark.parametrize("case", list(POSITION_CASES))
def test_structured_position_accepts_only_documented_values(case: str) -> None:
    env_id, options, texts = POSITION_CASES[case]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(options=options), ValueError, *texts)


@pytest.mark.parametrize("case", list(NOTATION_CASES))
def test_notation_accepts_only_ascii_digits_and_spaces(case: str) -> None:
    env_id, text, texts = NOTATION_CASES[case]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(options={"position": text}), ValueError, *texts)


@pytest.mark.parametrize("case", list(CONFIG_CASES))
def test_config_accepts_only_documented_values(case: str) -> None:
    env_id, option, value, texts = CONFIG_CASES[case]
    with pytest.raises(ValueError) as caught:
        UrimConfig(**{option: value})
    for text in texts:
        assert text in str(caught.value), str(caught.value)


@pytest.mark.parametrize("case", list(STEP_CASES))
def test_one_element_array_is_refused_by_every_step(case: str) -> None:
    action = STEP_CASES[case]
    assert_rejected(
        lambda: mid_game("mancala/ouril-v0"), lambda env: env.step(action), TypeError, "not an integer action"
    )
    with pytest.raises(TypeError, match="not an integer action"):
        check_action(action, 6)  # what SingleAgentEnv.step calls
    env = SingleAgentEnv("mancala/ouril-v0", learner_seat=0, first_player=0)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="not an integer action"):
        env.step(action)
    assert env.aec_env.position() == OURIL


def test_documented_forms_are_still_accepted() -> None:
    """The strictness refuses only undocumented forms: lists, tuples and 1-d integer arrays of ints."""
    env = mancala_envs.make("ouril_v0")
    for board in (FOUR, tuple(FOUR), np.array(FOUR), np.array(FOUR, dtype=np.uint8), [np.int64(4)] * 12):
        env.reset(options={"board": board, "stores": np.array([0, 0])})
        assert env.position() == "4,4,4,4,4,4/4,4,4,4,4,4 0,0 " + env.agent_selection[-1]
    env.reset(options={"position": "4,4,4,4,4,4/4,4,4,4,4,4  0,0   1"})  # runs of spaces still separate fields
    assert env.position() == "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1"
    assert UrimConfig(trigger=[2], chain=(2, 3)).trigger == (2,)
    omweso = mancala_envs.make("omweso_v0")
    omweso.reset(options={"position": OMWESO_OPENING + " turn=1999"})
    omweso.reset(options={"position": W9 + " turn_captures=11"})  # 1 + 2 + 8: captured, latest at pit 15
    assert omweso.position().endswith("turn_captures=11 laps=1")


def test_case_counts() -> None:
    """The bad-input cases of this file, per door (reported with the issue)."""
    structured = len(POSITION_CASES)
    counts = {
        "reset options": structured,
        "notation": len(NOTATION_CASES),
        "config": len(CONFIG_CASES),
        "step": len(STEP_CASES),
    }
    assert counts == {"reset options": 17, "notation": 21, "config": 6, "step": 3}
