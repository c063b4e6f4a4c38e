"""The env's ``reset(seed=None, options=None)`` door: positions in both forms and seeds.

A position given as structured options (``board``, ``stores``, ``player``, flags) or in the notation
(``position``), Omweso's flags, and the seed: every bad value raises a ``ValueError`` (``TypeError`` for a
wrong type) that names the field, and leaves the env exactly as it was, its random generator included
(``assert_rejected``). The strict cases (issue "Untrusted files", item 5) each used to be accepted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pettingzoo
import pytest

import mancala_envs
from mancala_envs.envs.registration import VARIANTS, make_game
from mancala_envs.games.urim import UrimConfig

from support.actions import legal_action, mid_game
from support.refusals import assert_rejected, assert_unchanged, snapshot

IDS = [variant.id for variant in VARIANTS]
OMWESO_IDS = [env_id for env_id in IDS if "omweso" in env_id]
AGENTS = ("player_0", "player_1")


# --- positions in reset options ---------------------------------------------------------------------
def bad_positions(env: Any) -> dict[str, tuple[dict[str, Any], str]]:
    """Bad ``reset`` options of every kind, with the text the error must contain."""
    game = env.unwrapped.game
    board = env.unwrapped.board.tolist()
    if game.name == "omweso" and sum(board) != game.total_seeds:  # seeds being placed, or in hand
        board = ([4] * 8 + [0] * 8) * 2
    negative = list(board)
    negative[1] += negative[0] + 1
    negative[0] = -1
    extra = list(board)
    extra[0] += 1 + sum(env.unwrapped.stores)  # with the default stores [0, 0], one seed too many
    fraction = [float(b) for b in board]
    fraction[0] -= 0.5
    fraction[1] += 0.5
    n_pits = len(board)
    cases = {
        "board too short": ({"board": board[:-1]}, f"{n_pits} entries"),
        "board too long": ({"board": [*board, 0]}, f"{n_pits} entries"),
        "negative count": ({"board": negative}, "non-negative"),
        "fractional count": ({"board": fraction}, "whole"),
        "not numbers": ({"board": ["x"] * n_pits}, "seed counts"),
        "wrong total": ({"board": extra}, str(env.unwrapped.game.total_seeds)),
        "stores wrong length": ({"board": board, "stores": [0]}, "2 entries"),
        "negative store": ({"board": board, "stores": [-1, 1]}, "non-negative"),
        "player 2": ({"board": board, "player": 2}, "player"),
        "player -1": ({"board": board, "player": -1}, "player"),
        "player as str": ({"board": board, "player": "0"}, "player"),
        "player as bool": ({"board": board, "player": True}, "player"),
        "player as float": ({"board": board, "player": 0.0}, "player"),
    }
    if game.name == "omweso":  # stores are capture tallies; the game's flags can be wrong instead
        cases["turn negative"] = ({"board": board, "turn": -1}, "turn")
        cases["turn as float"] = ({"board": board, "turn": 2.0}, "turn")
        cases["first_capture_done as int"] = ({"board": board, "first_capture_done": 1}, "first_capture_done")
        cases["capturing_turns beyond turn"] = ({"board": board, "turn": 1, "capturing_turns": [1, 1]}, "impossible")
        cases["capturing_turns without a capture"] = (
            {"board": board, "capturing_turns": [1, 0], "first_capture_done": False},
            "impossible",
        )
    else:
        cases["stores break the total"] = (
            {"board": board, "stores": [int(sum(env.unwrapped.stores)) + 1, 0]},
            str(game.total_seeds),
        )
    return cases


@pytest.mark.parametrize("env_id", IDS)
def test_invalid_position_raises_value_error_and_changes_nothing(env_id: str) -> None:
    """Every case of :func:`bad_positions` (built here, on a played env, so that collecting compiles nothing)."""
    env = mid_game(env_id)
    for case, (options, expected_text) in bad_positions(env).items():
        before = snapshot(env)
        for seed in (None, 5):
            with pytest.raises(ValueError) as error:
                env.reset(seed=seed, options=options)
            assert expected_text in str(error.value), f"{case}: {error.value}"
            assert_unchanged(before, env)
    env.step(legal_action(env))  # the game goes on


@pytest.mark.parametrize("env_id", IDS)
def test_invalid_position_does_not_consume_a_random_draw(env_id: str) -> None:
    """A failed reset leaves the generator alone: later unseeded resets draw as if it never happened."""
    tried, untouched = pettingzoo.make("aec", env_id), pettingzoo.make("aec", env_id)
    tried.reset(seed=3)
    untouched.reset(seed=3)
    with pytest.raises(ValueError):
        tried.reset(options={"board": [1, 2, 3]})
    starters = []
    for env in (tried, untouched):
        sequence = []
        for _ in range(24):
            env.reset()
            sequence.append(env.agent_selection)
        starters.append(sequence)
    assert starters[0] == starters[1]


@pytest.mark.parametrize("env_id", IDS)
def test_reset_options_must_be_a_dict(env_id: str) -> None:
    env = mid_game(env_id)
    before = snapshot(env)
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=[("board", [])])
    assert_unchanged(before, env)


# --- position strings ------------------------------------------------------------------------------------------
def split_position(text: str) -> tuple[str, str, str, dict[str, str]]:
    board, stores, player, *flags = text.split()
    return board, stores, player, dict(flag.split("=", 1) for flag in flags)


def join_position(board: str, stores: str, player: str, flags: dict[str, str]) -> str:
    return " ".join([board, stores, player, *(f"{key}={value}" for key, value in flags.items())])


#: a value of each flag kind that the notation cannot hold
BAD_FLAG_VALUES = {"int": "x", "bool": "2", "ints": "x", "text": "nonsense"}
#: a well-formed value of each flag kind (for the duplicated-flag case)
SOME_FLAG_VALUES = {"int": "1", "bool": "1", "ints": "0,0", "text": "x"}


def malformed_positions(env: Any) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    """Bad ``reset`` options built from the env's current position: name -> (options, texts the message
    must contain)."""
    game = env.unwrapped.game
    text = env.unwrapped.position()
    board, stores, player, flags = split_position(text)
    first, second = board.split("/")
    first_pits, second_pits = first.split(","), second.split(",")
    rest = ",".join(first_pits[1:])
    n_pits = game.n_pits

    def with_board(new_board: str) -> str:
        return join_position(new_board, stores, player, flags)

    def with_stores(new_stores: str) -> str:
        return join_position(board, new_stores, player, flags)

    def with_player(new_player: str) -> str:
        return join_position(board, stores, new_player, flags)

    strings: dict[str, tuple[Any, tuple[str, ...]]] = {
        "empty": ("", ("has 0 fields", "<store>,<store> <player>")),
        "board only": (board, ("has 1 fields", "<store>,<store> <player>")),
        "no player": (f"{board} {stores}", ("has 2 fields",)),
        "not a string": (text.split(), ("must be a string",)),
        "halves not separated": (with_board(f"{first},{second}"), ("two halves", "'/'")),
        "three halves": (with_board(f"{first}/{second}/0"), ("two halves",)),
        "unbalanced halves": (
            with_board(f"{first},{second_pits[0]}/{','.join(second_pits[1:])}"),
            ("board", str(n_pits // 2)),
        ),
        "pit not a number": (with_board(f"x,{rest}/{second}"), ("board", "whole numbers")),
        "fractional pit": (with_board(f"{first_pits[0]}.5,{rest}/{second}"), ("board", "whole numbers")),
        "empty pit": (with_board(f",{rest}/{second}"), ("board", "whole numbers")),
        "board too short": (with_board(f"{rest}/{second}"), ("board", f"must hold {n_pits // 2} counts")),
        "board too long": (with_board(f"{first},0/{second}"), ("board", f"must hold {n_pits // 2} counts")),
        "store not a number": (with_stores("x,0"), ("stores", "whole numbers")),
        "one store": (with_stores("0"), ("stores", "2 entries")),
        "three stores": (with_stores("0,0,0"), ("stores", "2 entries")),
        "negative store": (with_stores("-1,0"), ("stores", "non-negative")),
        "player 2": (with_player("2"), ("player", "'2'", "must be 0 or 1")),
        "player -1": (with_player("-1"), ("player", "-1")),
        "player not a number": (with_player("x"), ("player", "'x'")),
        "unknown flag": (f"{text} colour=red", ("'colour=red'", "known", *game.position_options)),
        "flag without a value": (f"{text} colour", ("'colour'", "key=value")),
    }
    if flags.get("phase") != "placement":  # while placing, not every seed is on the board yet
        more = with_board(f"{int(first_pits[0]) + 1},{rest}/{second}")
        strings["one seed too many"] = (more, (f"{game.total_seeds}", "seeds"))
    for flag, kind in game.position_options.items():
        strings[f"bad {flag}"] = (join_position(board, stores, player, {**flags, flag: BAD_FLAG_VALUES[kind]}), (flag,))
    if game.position_options:
        flag, kind = next(iter(game.position_options.items()))
        value = flags.get(flag, SOME_FLAG_VALUES[kind])
        twice = join_position(board, stores, player, {**flags, flag: value}) + f" {flag}={value}"
        strings["duplicated flag"] = (twice, (f"'{flag}'", "twice"))
    cases = {name: ({"position": position}, texts) for name, (position, texts) in strings.items()}
    cases["position and board"] = (
        {"position": text, "board": env.unwrapped.board.tolist()},
        ("both 'position' and 'board'",),
    )
    return cases


@pytest.mark.parametrize("env_id", IDS)
def test_malformed_position_raises_value_error_and_changes_nothing(env_id: str) -> None:
    """Every case of :func:`malformed_positions` (built here, on a played env, so that collecting compiles nothing)."""
    for options, texts in malformed_positions(mid_game(env_id)).values():
        assert_rejected(
            lambda: mid_game(env_id), lambda env, options=options: env.reset(options=options), ValueError, *texts
        )


@pytest.mark.parametrize("env_id", IDS)
def test_malformed_position_with_a_seed_changes_nothing(env_id: str) -> None:
    """A seeded reset that fails keeps the old generator: the seed is not applied either."""
    options, texts = malformed_positions(mid_game(env_id))["player 2"]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(seed=5, options=options), ValueError, *texts)


@pytest.mark.parametrize("env_id", IDS)
def test_the_malformed_cases_start_from_a_valid_position(env_id: str) -> None:
    """The cases above differ from a position that loads, so each fails for the reason it names."""
    env = mid_game(env_id)
    text = env.unwrapped.position()
    env.reset(options={"position": text})
    assert env.unwrapped.position() == text


@pytest.mark.parametrize(
    "env_id",
    [
        "mancala/ouril-v0",
        "mancala/modiar-v0",
        "mancala/rio-kadalis-v0",
        "mancala/omweso-v0",
    ],
)
def test_unknown_flag_passed_to_load_position_is_a_type_error_listing_the_flags(env_id: str) -> None:
    """Reset options ignore keys they do not know (Gymnasium style); the game-level call does not."""
    env = mid_game(env_id)
    game = env.unwrapped.game
    state = env.unwrapped.state_array
    with pytest.raises(TypeError) as caught:
        game.load_position(state, colour="red", **game.position_fields(state))
    message = str(caught.value)
    assert "'colour'" in message and "flags" in message
    assert all(flag in message for flag in game.position_options), message
    assert np.array_equal(state, env.unwrapped.state_array)


BAD_SEEDS = {"str": ("7", TypeError), "float": (1.5, TypeError), "negative": (-1, ValueError)}


@pytest.mark.parametrize(("seed", "error"), list(BAD_SEEDS.values()), ids=list(BAD_SEEDS))
def test_bad_reset_seed_changes_nothing(seed: Any, error: type) -> None:
    assert_rejected(lambda: mid_game("mancala/ouril-v0"), lambda env: env.reset(seed=seed), error)


@pytest.mark.parametrize(("seed", "error"), list(BAD_SEEDS.values()), ids=list(BAD_SEEDS))
def test_bad_reset_seed_message_names_the_seed(seed: Any, error: type) -> None:
    env = mid_game("mancala/ouril-v0")
    with pytest.raises(error, match="seed"):
        env.reset(seed=seed)


# --- Omweso's flags -----------------------------------------------------------------------------------------
# Positions reached in random Omweso games (tests/games/test_positions.py has their round trips).
OMWESO_CORE = (
    "0,1,0,0,1,0,0,0,1,1,1,3,0,1,1,1/3,2,0,3,4,3,0,3,2,9,9,3,3,5,1,3 0,21 1 "
    "turn=14 first_capture_done=1 capturing_turns=0,1"
)
OMWESO_RELAY = OMWESO_CORE + " pending=relay:15:6 turn_captures=1 laps=4"
OMWESO_RESOW_CORE = (
    "0,0,3,0,1,1,0,3,6,6,4,3,3,0,3,3/0,1,0,1,1,0,0,0,5,0,7,1,4,0,1,0 25,14 0 "
    "turn=11 first_capture_done=1 capturing_turns=1,1"
)
EMPTY_SIDE = ",".join(["0"] * 16)
OMWESO_PLACING = f"{EMPTY_SIDE}/{EMPTY_SIDE} 0,0 1 turn=0 first_capture_done=0 phase=placement"


def omweso_cases(game: Any) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Omweso positions with a flag that no game could reach: name -> (notation, texts of the message)."""
    config = game.config
    cases: dict[str, tuple[str, tuple[str, ...]]] = {
        "turn_captures without pending": (OMWESO_CORE + " turn_captures=1", ("turn_captures", "only with pending")),
        "laps without pending": (OMWESO_CORE + " laps=3", ("laps", "only with pending")),
        "pending malformed": (OMWESO_CORE + " pending=relay:15", ("pending='relay:15'", "relay:<pit>:<anchor>")),
        "pending of an unknown kind": (
            OMWESO_CORE + " pending=sow:15:6",
            ("pending='sow:15:6'", "resow:<pit>:<seeds>"),
        ),
        "pending at a pit that is no decision point": (
            OMWESO_RELAY.replace("relay:15:6", "relay:3:6"),
            ("pending='relay:3:6'", "not a decision point"),
        ),
        "pending before captures are enabled": (
            OMWESO_RELAY.replace("turn=14", "turn=1"),
            ("not a decision point", f"turn >= {config.no_capture_turns}"),
        ),
        "turn beyond the cap": (
            OMWESO_CORE.replace("turn=14", f"turn={config.max_turns + 1}"),
            (f"turn={config.max_turns + 1}", "out of range"),
        ),
        "turn negative": (OMWESO_CORE.replace("turn=14", "turn=-1"), ("turn=-1", "out of range")),
    }
    if config.midturn_reverse:
        cases["pending where a clockwise lap would not capture"] = (
            OMWESO_RELAY.replace("relay:15:6", "relay:14:6"),
            ("pending='relay:14:6'", "would not capture"),
        )
        cases["re-sow without a capture"] = (
            OMWESO_RESOW_CORE + " pending=resow:0:7 turn_captures=0",
            ("pending='resow:0:7'", "follows a capture"),
        )
        cases["pending anchor out of range"] = (OMWESO_RELAY.replace("relay:15:6", "relay:15:16"), ("anchor", "16"))
        cases["laps 0"] = (OMWESO_RELAY.replace("laps=4", "laps=0"), ("laps=0", "out of range"))
        cases["laps at the cap"] = (
            OMWESO_RELAY.replace("laps=4", f"laps={config.max_laps_per_turn}"),
            (f"laps={config.max_laps_per_turn}", "out of range"),
        )
        cases["turn_captures out of range"] = (
            OMWESO_RELAY.replace("turn_captures=1", "turn_captures=16"),
            ("turn_captures=16", "out of range"),
        )
        cases["turn_captures with column bits only"] = (
            OMWESO_RELAY.replace("turn_captures=1", "turn_captures=2"),
            ("turn_captures=2", "'captured' bit"),
        )
    else:
        cases["pending without mid-turn choices"] = (OMWESO_RELAY, ("not a decision point", "midturn_reverse=True"))
    if config.setup == "placement":
        cases["placing with a capture tally"] = (OMWESO_PLACING.replace(" 0,0 1 ", " 1,0 1 "), ("while placing",))
        cases["placing after a turn"] = (OMWESO_PLACING.replace("turn=0", "turn=1"), ("while placing",))
        cases["placing with a choice pending"] = (OMWESO_PLACING + " pending=relay:15:6", ("nothing is pending",))
        cases["placing above the pit cap"] = (
            OMWESO_PLACING.replace(f"/{EMPTY_SIDE}", f"/{config.placement_cap + 1}," + ",".join(["0"] * 15)),
            (f"placement_cap={config.placement_cap}",),
        )
        cases["placing with turn_captures"] = (OMWESO_PLACING + " turn_captures=3", ("turn_captures",))
        cases["placing with laps"] = (OMWESO_PLACING + " laps=5", ("laps",))
    else:
        cases["phase=placement without the placement setup"] = (
            OMWESO_CORE + " phase=placement",
            ("phase='placement'", "setup='placement'"),
        )
    return cases


def omweso_case(env_id: str, case: str) -> Any:
    return pytest.param(env_id, case, id=f"{env_id}-{case}")


OMWESO_CASES = [
    omweso_case(env_id, case)
    for env_id in OMWESO_IDS
    for case in omweso_cases(make_game(env_id))  # the game alone: collecting compiles nothing
]


@pytest.mark.parametrize(("env_id", "case"), OMWESO_CASES)
def test_omweso_flag_that_no_game_reaches_raises_value_error(env_id: str, case: str) -> None:
    text, texts = omweso_cases(mancala_envs.make(env_id).unwrapped.game)[case]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(options={"position": text}), ValueError, *texts)


@pytest.mark.parametrize("env_id", OMWESO_IDS)
def test_omweso_cases_start_from_positions_that_load(env_id: str) -> None:
    env = mancala_envs.make(env_id)
    game = env.unwrapped.game
    valid = [OMWESO_CORE]
    if game.config.midturn_reverse:
        valid += [OMWESO_RELAY, OMWESO_RESOW_CORE + " pending=resow:0:7 turn_captures=5 laps=9"]
    if game.config.setup == "placement":
        valid.append(OMWESO_PLACING)
    for text in valid:
        env.reset(options={"position": text})
        assert env.unwrapped.position() == text


# --- strict parsing: only documented values and ASCII digits ----------------------------------------------------
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
    "infinite pit": ("mancala/ouril-v0", {"board": [float("inf"), *FOUR[1:]]}, ("board", "whole")),
    "nan pit": ("mancala/ouril-v0", {"board": [float("nan"), *FOUR[1:]]}, ("board", "whole")),
    "pit of 10**400": ("mancala/ouril-v0", {"board": [10**400, *FOUR[1:]]}, ("board", "48")),
    "pit of 10**30": ("mancala/ouril-v0", {"board": [10**30, *FOUR[1:]]}, ("board", "more than", "48")),
    "store of 10**30": ("mancala/ouril-v0", {"board": FOUR, "stores": [10**30, 0]}, ("stores", "more than", "48")),
    "whole float pit": ("mancala/ouril-v0", {"board": [4.0, *FOUR[1:]]}, ("board", "whole")),
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


@pytest.mark.parametrize("case", list(POSITION_CASES))
def test_structured_position_accepts_only_documented_values(case: str) -> None:
    env_id, options, texts = POSITION_CASES[case]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(options=options), ValueError, *texts)


@pytest.mark.parametrize("case", list(NOTATION_CASES))
def test_notation_accepts_only_ascii_digits_and_spaces(case: str) -> None:
    env_id, text, texts = NOTATION_CASES[case]
    assert_rejected(lambda: mid_game(env_id), lambda env: env.reset(options={"position": text}), ValueError, *texts)


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
    }
    assert counts == {"reset options": 17, "notation": 21}
