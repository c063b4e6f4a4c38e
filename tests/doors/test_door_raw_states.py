"""Every public door that takes a raw engine state checks it (issue 30, item 9, "Raw states").

``act_on_state``, ``alphabeta_search``, ``mcts_search`` and the perfect-play ``Table``'s lookups used to check a state's
shape and dtype only: a state of the right shape that no game reaches went on into compiled code, which reads and
writes by the state's own counts (a history length, a pit count) and could end the process. Each door now calls
``Game.check_state`` (the snapshot door's validation, one implementation) before anything reads the state.

The tables below run every registered game (the registry is iterated, no game is named) against every door and a list
of corruptions: each corrupted state is refused with the documented exception and message words, the state and the
agent (its generator) are left as they were, and a valid state still gets its answer.

Crash safety: a corruption that would have crashed before the fix is only passed to a door after the same test has
seen ``game.check_state`` refuse it, and :func:`test_every_door_checks_the_state_before_reading_it` shows that each
door calls ``check_state`` first, so no case here can reach compiled code unchecked.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import AGENT_NAMES, make_agent
from mancala_envs.agents.agent import StateAgent
from mancala_envs.agents.search_agents import AlphaBetaAgent, alphabeta_search, mcts_search
from mancala_envs.algorithms.retrograde import (
    Table,
    TableError,
    TableValue,
    build_table,
    load_table,
    save_table,
    solvable,
)
from mancala_envs.engine.state import (
    BOARD,
    END_REASON,
    HEADER_SIZE,
    HISTORY_LEN,
    LAST_ACTION,
    LEGAL,
    PLAYER,
    PLY,
    STATUS,
    STORE,
    TURN,
    WINNER,
)
from mancala_envs.envs.registration import VARIANTS, make_game
from mancala_envs.games.game import Game
from mancala_envs.integrations.openspiel import MancalaState, load_game
from mancala_envs.rendering.picture import BoardPicture

IDS = [variant.id for variant in VARIANTS]
TABLE_SEEDS = 4


def running_state(env_id: str) -> tuple[Game, np.ndarray]:
    """A game and a running state of it, four seeded random plies in."""
    env = mancala_envs.make(env_id)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(4):
        raw = env.unwrapped
        env.step(int(rng.choice(raw.game.legal_actions(raw.state_array))))
    raw = env.unwrapped
    assert raw.state_array[STATUS] == 0
    return raw.game, raw.state_array


# --- the corruptions: (name, corrupt(game, state) -> what is passed, exception, words) -------------------------------
def setting(slot: int, value: int) -> Callable[[Game, np.ndarray], np.ndarray]:
    def corrupt(game: Game, state: np.ndarray) -> np.ndarray:
        state[slot] = value
        return state

    return corrupt


def negative_pit(game: Game, state: np.ndarray) -> np.ndarray:
    state[BOARD + 1] += state[BOARD] + 1  # the seeds still add up: only the sign is wrong
    state[BOARD] = -1
    return state


def adding(slot: int, value: int) -> Callable[[Game, np.ndarray], np.ndarray]:
    def corrupt(game: Game, state: np.ndarray) -> np.ndarray:
        state[slot] += value
        return state

    return corrupt


def free_header_slot(game: Game, state: np.ndarray) -> np.ndarray:
    state[min(set(range(HEADER_SIZE)) - set(game.header_slots_used()))] = 3
    return state


def read_only(game: Game, state: np.ndarray) -> np.ndarray:
    state.flags.writeable = False
    return state


def other_game_state(game: Game, state: np.ndarray) -> np.ndarray:
    """The running state of the first registered game whose states have another length."""
    other = next(make_game(env_id) for env_id in IDS if make_game(env_id).state_size != game.state_size)
    return other.new_state(0)


def form(got: str) -> tuple[str, ...]:
    return ("state must be a writable, C-contiguous int64 array of shape", got)


#: corruptions of the content: a ValueError naming the part, and where a valid state comes from
CONTENT: list[tuple[str, Callable[[Game, np.ndarray], np.ndarray], tuple[str, ...]]] = [
    ("negative pit", negative_pit, ("the state's board has a negative count",)),
    ("seeds over the total", adding(BOARD, 1000), ("re:holds 1\\d\\d\\d seeds",)),
    ("a pit of 2**62 seeds", setting(BOARD, 2**62), ("re:holds 461168601842738\\d{4} seeds",)),
    ("player 2", setting(PLAYER, 2), ("the state's player slot holds 2, out of range (0..1)",)),
    ("player -1", setting(PLAYER, -1), ("the state's player slot holds -1, out of range (0..1)",)),
    ("negative ply", setting(PLY, -1), ("the state's ply counter slot holds -1",)),
    ("plies without a last action", setting(LAST_ACTION, -1), ("last action and ply counter disagree",)),
    ("negative turn counter", setting(TURN, -5), ("re:(?i)turn",)),
    ("history length out of range", setting(HISTORY_LEN, 10**9), ("re:repetition history|HISTORY_LEN", "1000000000")),
    ("negative history length", setting(HISTORY_LEN, -3), ("re:repetition history|HISTORY_LEN", "-3")),
    ("ended without an end reason", setting(STATUS, 1), ("end reason does not match its status",)),
    ("an end reason while running", setting(END_REASON, 1), ("end reason does not match its status",)),
    ("a winner while running", setting(WINNER, 0), ("winner slot holds 0 while the game runs",)),
    ("status 7", setting(STATUS, 7), ("the state's status slot holds 7",)),
    ("an empty legal-move mask while running", setting(LEGAL, 0), ("legal-move mask does not match its position",)),
    ("a legal-move mask beyond the actions", setting(LEGAL, 1 << 62), ("legal-move mask does not match",)),
    ("a negative store", setting(STORE, -1), ("the state's stores are negative",)),
    ("a header slot the game does not use", free_header_slot, ("does not use it, so it must be 0",)),
]

#: corruptions of the form: a TypeError naming what differs
FORM: list[tuple[str, Callable[[Game, np.ndarray], Any], tuple[str, ...]]] = [
    ("a list", lambda game, state: state.tolist(), form("(got list)")),
    ("None", lambda game, state: None, form("(got NoneType)")),
    ("int32", lambda game, state: state.astype(np.int32), form("(got dtype int32")),
    ("uint64", lambda game, state: state.astype(np.uint64), form("(got dtype uint64")),
    ("NaN-free float64", lambda game, state: state.astype(np.float64), form("(got dtype float64")),
    (
        "float64 with a NaN",
        lambda game, state: np.where(np.arange(state.size) == BOARD, np.nan, state),
        form("(got dtype float64"),
    ),
    ("object array", lambda game, state: state.astype(object), form("(got dtype object")),
    ("2-d", lambda game, state: state.reshape(1, -1), form("re:\\(got shape \\(1, \\d+\\)\\)")),
    ("one entry short", lambda game, state: state[:-1].copy(), form("re:\\(got shape \\(\\d+,\\)\\)")),
    ("one entry long", lambda game, state: np.append(state, 0), form("re:\\(got shape \\(\\d+,\\)\\)")),
    ("another game's state", other_game_state, form("re:\\(got shape \\(\\d+,\\)\\)")),
    ("a non-contiguous view", lambda game, state: np.repeat(state, 2)[::2], form("a non-contiguous view")),
    ("a read-only array", read_only, form("a read-only array")),
]

#: the corruptions whose length is still a state's length for some config (the tables read those, see below)
OTHER_LENGTHS = {"one entry short", "one entry long", "another game's state"}


def expected(game: Game, name: str) -> tuple[type[Exception], tuple[str, ...]]:
    for content_name, _, words in CONTENT:
        if content_name == name:
            return ValueError, (*words, f"No {game.env_name} game reaches this state", "env.unwrapped.state_array")
    for form_name, _, words in FORM:
        if form_name == name:
            return TypeError, (f"({game.state_size},)", *words)
    raise AssertionError(name)


def corruptions(game: Game, state: np.ndarray) -> list[tuple[str, Any]]:
    return [(name, corrupt(game, state.copy())) for name, corrupt, _ in CONTENT + FORM]


# --- the doors: (name, make the door for a game, how a valid state's answer is checked) ------------------------------
class RecordingAgent(StateAgent):
    """A StateAgent of its own (as SB3Agent and the pretrained agent are): ``choose`` records each state it gets."""

    def __init__(self) -> None:
        super().__init__(0)
        self.seen: list[np.ndarray] = []

    def act(self, env: Any) -> int:
        raise NotImplementedError

    def choose(self, game: Game, state: np.ndarray) -> int:
        self.seen.append(state.copy())
        return int(game.legal_actions(state)[0])


def agent_door(name: str) -> Callable[[Game], Callable[[np.ndarray], Any]]:
    def door(game: Game) -> Callable[[np.ndarray], Any]:
        agent = make_agent(name, seed=0)
        return lambda state: agent.act_on_state(game, state)

    return door


#: the agent kinds: every complete name, and the compiled searches
AGENT_DOORS = {
    f"make_agent({name!r}).act_on_state": agent_door(name) for name in [*sorted(AGENT_NAMES), "alphabeta:2", "mcts:8"]
}
DOORS: dict[str, Callable[[Game], Callable[[np.ndarray], Any]]] = {
    **AGENT_DOORS,
    "AlphaBetaAgent(3, tables=False).act_on_state": lambda game: (
        lambda state: AlphaBetaAgent(3, seed=1, tables=False).act_on_state(game, state)
    ),
    "StateAgent subclass.act_on_state": lambda game: lambda state: RecordingAgent().act_on_state(game, state),
    "alphabeta_search": lambda game: lambda state: alphabeta_search(game, state, 2),
    "mcts_search": lambda game: lambda state: mcts_search(game, state, 8, np.array([1, 2, 3, 4], np.int64)),
    "Game.check_state": lambda game: lambda state: game.check_state(state),
    "BoardPicture.draw": lambda game: BoardPicture(game).draw,
    "BoardPicture.surface": lambda game: lambda state: BoardPicture(game).surface(state, None),
    "openspiel.MancalaState": lambda game: (lambda spiel: lambda state: MancalaState(spiel, state))(
        openspiel_game(game)
    ),
}
#: the doors that do not answer with an action (a check, a picture, an OpenSpiel state)
NOT_ACTING = {"Game.check_state", "BoardPicture.draw", "BoardPicture.surface", "openspiel.MancalaState"}
#: the doors that answer a valid running state with a legal action without a table or weights
ACTING = [name for name in DOORS if "perfect" not in name and "pretrained" not in name and name not in NOT_ACTING]


def openspiel_game(game: Game) -> Any:
    """The OpenSpiel game of the registered id whose config is ``game``'s."""
    return next(load_game(env_id) for env_id in IDS if make_game(env_id).config == game.config)


@pytest.mark.parametrize("env_id", IDS)
def test_check_state_refuses_every_corruption(env_id: str) -> None:
    game, state = running_state(env_id)
    assert game.check_state(state) is None
    for name, bad in corruptions(game, state):
        error, words = expected(game, name)
        with pytest.raises(error) as raised:
            game.check_state(bad)
        assert type(raised.value) is error, name
        check_words(str(raised.value), words, name)


def check_words(message: str, words: tuple[str, ...], name: str) -> None:
    for word in words:
        if word.startswith("re:"):
            assert re.search(word[3:], message), f"{name}: the message should match {word[3:]!r}: {message}"
        else:
            assert word in message, f"{name}: the message should contain {word!r}: {message}"


def frozen(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return (str(value.dtype), value.shape, value.flags.writeable, repr(value.tolist()))  # NaN == NaN here
    return repr(value)


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("env_id", IDS)
def test_every_door_refuses_every_corrupted_state(env_id: str, door: str) -> None:
    game, state = running_state(env_id)
    require_checking_door(game, state, DOORS[door](game), door)
    for name, bad in corruptions(game, state):
        error, words = expected(game, name)
        with pytest.raises(error):  # crash safety: the door is only tried once check_state refuses the state
            game.check_state(bad)
        call = DOORS[door](game)
        before = frozen(bad)
        with pytest.raises(error) as raised:
            call(bad)
        assert type(raised.value) is error, f"{name}: {type(raised.value).__name__}: {raised.value}"
        check_words(str(raised.value), words, name)
        assert frozen(bad) == before, f"{name}: the refused state was changed"


@pytest.mark.parametrize("door", ACTING)
@pytest.mark.parametrize("env_id", IDS)
def test_a_valid_state_still_gets_a_legal_action(env_id: str, door: str) -> None:
    game, state = running_state(env_id)
    before = state.copy()
    action = DOORS[door](game)(state)
    action = action[0] if isinstance(action, tuple) else action
    assert action in game.legal_actions(state).tolist()
    assert np.array_equal(state, before)


@pytest.mark.parametrize("env_id", IDS)
def test_a_valid_state_still_gets_its_picture_and_its_openspiel_state(env_id: str) -> None:
    game, state = running_state(env_id)
    before = state.copy()
    picture = BoardPicture(game)
    image = picture.draw(state)
    assert image.shape == (picture.height, picture.width, 3) and image.dtype == np.uint8
    assert np.array_equal(image, picture.draw(state.copy()))
    spiel = MancalaState(openspiel_game(game), state)
    assert spiel.legal_actions() == game.legal_actions(state).tolist()
    assert spiel.current_player() == int(state[PLAYER])
    assert np.array_equal(state, before)


@pytest.mark.parametrize("env_id", IDS)
def test_a_refused_state_leaves_the_agent_as_it_was(env_id: str) -> None:
    """Nothing half-applied: the check comes before the agent draws from its generator or records a search."""
    game, state = running_state(env_id)
    bad = negative_pit(game, state.copy())
    for name in [*sorted(AGENT_NAMES), "alphabeta:2", "mcts:8"]:
        agent = make_agent(name, seed=5)
        before = (agent.rng.bit_generator.state, {k: frozen(v) for k, v in vars(agent).items() if k != "rng"})
        with pytest.raises(ValueError, match="board has a negative count"):
            agent.act_on_state(game, bad)
        after = (agent.rng.bit_generator.state, {k: frozen(v) for k, v in vars(agent).items() if k != "rng"})
        assert after == before, name
    recorder = RecordingAgent()
    with pytest.raises(ValueError):
        recorder.act_on_state(game, bad)
    assert recorder.seen == []


class Refused(Exception):
    """What the stand-in ``check_state`` of :func:`asks_check_state` raises."""


def asks_check_state(game: Game, state: np.ndarray, call: Callable[[np.ndarray], Any]) -> bool:
    """Whether ``call`` asks ``game.check_state`` about a valid ``state`` (a stand-in that refuses everything)."""

    def refuse(self: Game, value: Any) -> None:
        raise Refused

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(type(game), "check_state", refuse)
        try:
            call(state)
        except Refused:
            return True
    return False


def require_checking_door(game: Game, state: np.ndarray, call: Callable[[np.ndarray], Any], door: str) -> None:
    """Crash safety: a door that does not ask ``check_state`` gets no corrupted state (the test fails instead)."""
    if not asks_check_state(game, state.copy(), call):
        pytest.fail(f"{door} does not call game.check_state: corrupted states are not passed to it")


@pytest.mark.parametrize("env_id", IDS)
def test_every_door_checks_the_state_before_reading_it(env_id: str) -> None:
    """With ``check_state`` refusing everything, every door refuses a valid state: each one asks it."""
    game, state = running_state(env_id)
    assert [door for door, make in DOORS.items() if not asks_check_state(game, state, make(game))] == []
    assert asks_check_state(game, state, lambda value: None) is False  # the stand-in is only met through a door


# --- the perfect-play tables ----------------------------------------------------------------------------------------
def table_games() -> list[str]:
    """The first registered id of each game class that can be tabled (a small table is built for each)."""
    seen: set[type] = set()
    found = []
    for env_id in IDS:
        game = make_game(env_id)
        if solvable(game) is None and type(game) not in seen:
            seen.add(type(game))
            found.append(env_id)
    return found


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Table]:
    """A table of ``TABLE_SEEDS`` seeds of each game of :func:`table_games`, saved to a folder of this module and
    loaded back (the form the doors meet in use)."""
    folder = tmp_path_factory.mktemp("tables")
    loaded = {}
    for env_id in table_games():
        game = make_game(env_id)
        save_table(build_table(game, TABLE_SEEDS), folder)
        loaded[env_id] = load_table(game, TABLE_SEEDS, folder)
    return loaded


TABLE_DOORS: dict[str, Callable[[Table, np.ndarray], Any]] = {
    "Table.value": lambda table, state: table.value(state),
    "Table.move_values": lambda table, state: table.move_values(state),
    "Table.best_actions": lambda table, state: table.best_actions(state),
    "Table.search": lambda table, state: table.search(state, budget=1_000),
    "Table.covers": lambda table, state: table.covers(state),
}


@pytest.mark.parametrize("door", list(TABLE_DOORS))
@pytest.mark.parametrize("env_id", table_games())
def test_every_table_door_refuses_every_corrupted_state(env_id: str, door: str, tables: dict[str, Table]) -> None:
    game, state = running_state(env_id)
    table = tables[env_id]
    require_checking_door(game, state, lambda value: TABLE_DOORS[door](table, value), door)
    for name, bad in corruptions(game, state):
        if name in OTHER_LENGTHS:
            continue  # another length may be a state of the same game with another max_plies: see below
        error, words = expected(game, name)
        with pytest.raises(error):
            game.check_state(bad)
        before = frozen(bad)
        with pytest.raises(error) as raised:
            TABLE_DOORS[door](table, bad)
        assert type(raised.value) is error, f"{name}: {type(raised.value).__name__}: {raised.value}"
        check_words(str(raised.value), words, name)
        assert frozen(bad) == before


@pytest.mark.parametrize("env_id", table_games())
def test_a_table_reads_a_valid_state(env_id: str, tables: dict[str, Table]) -> None:
    game, state = running_state(env_id)
    table = tables[env_id]
    seeds = int(game.board(state).sum())
    assert seeds > TABLE_SEEDS
    assert table.covers(state) is False
    with pytest.raises(TableError, match=f"the board holds {seeds} seeds, more than this {game.name} table's 4"):
        table.value(state)
    found = table.search(state, budget=1_000)
    assert found is None or found.action in game.legal_actions(state).tolist()
    # a position the table covers: its value, and each move's
    small = covered_state(game)
    value = table.value(small)
    assert isinstance(value, TableValue) and value.low <= value.margin <= value.high
    assert sorted(table.move_values(small)) == game.legal_actions(small).tolist()
    assert set(table.best_actions(small)) <= set(game.legal_actions(small).tolist())


def covered_state(game: Game) -> np.ndarray:
    """A running position with ``TABLE_SEEDS`` seeds on the board, the rest shared by the stores, player 0 to move:
    the first of a few layouts (seeds spread over both sides, or two pits of two) that the game plays on."""
    half = game.n_pits // 2
    rest = game.total_seeds - TABLE_SEEDS
    for pits in ((0, 1, half, half + 1), (0, 0, half, half), (1, 1, half + 1, half + 1), (2, 2, half + 2, half + 2)):
        board = [0] * game.n_pits
        for pit in pits:
            board[pit] += 1
        state = game.new_state(0)
        game.load_position(state, board, [rest // 2, rest - rest // 2], 0)
        if state[STATUS] == 0:
            game.check_state(state)
            assert int(game.board(state).sum()) == TABLE_SEEDS
            return state
    raise AssertionError(f"no layout of {TABLE_SEEDS} seeds leaves {game.name} running")


@pytest.mark.parametrize(
    "env_id", [env_id for env_id in table_games() if hasattr(make_game(env_id).config, "repetition")]
)
def test_a_table_reads_a_state_of_its_game_with_another_ply_cap(env_id: str, tables: dict[str, Table]) -> None:
    """Tables ignore ``max_plies`` and ``repetition``: a state of the game with other values of both is checked as a
    state of that config, and read as the table's game's own state."""
    game = make_game(env_id)
    table = tables[env_id]
    small = covered_state(game)
    for changes in ({"max_plies": 64}, {"repetition": False}, {"max_plies": 3000}):
        other = type(game)(dataclasses.replace(game.config, **changes))
        state = covered_state(other)
        assert state.shape != small.shape
        assert table.value(state) == table.value(small)
        assert table.move_values(state) == table.move_values(small)
        assert table.covers(state) is True
        bad = negative_pit(other, state.copy())
        with pytest.raises(ValueError, match=f"board has a negative count. No {other.env_name} game reaches"):
            table.value(bad)


# --- no false refusals: every state that play reaches passes --------------------------------------------------------
#: (env_id, game options, games played): every registered id, and configs whose rarer endings come quickly (an Omweso
#: match whose last game ends by an annulled endless turn, seeds left in hand; short ply and lap caps)
REACHED = [(env_id, {}, 3) for env_id in IDS] + [
    ("mancala/omweso-match-v0", {"max_laps_per_turn": 1, "max_games": 1}, 8),
    ("mancala/omweso-match-v0", {"max_laps_per_turn": 3, "no_capture_turns": 0, "max_games": 3}, 3),
    ("mancala/omweso-v0", {"max_turns": 9}, 4),
    ("mancala/rio-kadalis-match-v0", {"max_laps_per_turn": 2, "repetition": False}, 2),
    ("mancala/urim-match-v0", {"max_plies": 40}, 2),
    ("mancala/kalah-v0", {"max_plies": 5}, 3),
]


@pytest.mark.parametrize(("env_id", "options", "games"), REACHED, ids=lambda value: str(value))
def test_check_state_accepts_every_state_that_play_reaches(env_id: str, options: dict[str, Any], games: int) -> None:
    """Every state of seeded random games to their end, final states included (a picture or an OpenSpiel state of a
    finished match is drawn or made from them), passes ``check_state``."""
    from mancala_envs.engine.trace import new_trace

    game = make_game(env_id, **options)
    trace = new_trace()
    rng = np.random.default_rng(4)
    refused = []
    for number in range(games):
        state = game.new_state(number % 2)
        while True:
            try:
                game.check_state(state)
            except ValueError as error:
                refused.append((number, int(state[PLY]), str(error)))
            if state[STATUS] != 0:
                break
            game.step(state, int(rng.choice(game.legal_actions(state))), trace)
    assert refused == []


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("name", ["random", "greedy", "alphabeta:2", "mcts:20"])
def test_the_unchecked_door_plays_what_the_checked_door_plays(env_id: str, name: str) -> None:
    """``act_on_engine_state`` (self-play's and the OpenSpiel bot's door, for states the engine made) chooses what
    ``act_on_state`` chooses, draw for draw, along a whole game; only the check differs."""
    env = mancala_envs.make(env_id)
    env.reset(seed=5)
    checked, unchecked = make_agent(name, seed=9), make_agent(name, seed=9)
    game = env.unwrapped.game
    for _ in range(30):
        if not env.agents or any(env.terminations.values()) or any(env.truncations.values()):
            break
        state = env.unwrapped.state_array
        action = checked.act_on_state(game, state)
        assert unchecked.act_on_engine_state(game, state) == action
        env.step(action)


def test_an_agent_of_environments_only_refuses_both_state_doors() -> None:
    class EnvOnly(mancala_envs.agents.agent.Agent):
        def act(self, env: Any) -> int:
            return 0

    game = make_game("kalah_v0")
    state = game.new_state(0)
    for door in (EnvOnly().act_on_state, EnvOnly().act_on_engine_state):
        with pytest.raises(NotImplementedError, match=r"only acts on environments; call act\(env\)"):
            door(game, state)
