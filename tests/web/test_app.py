"""The web app's JSON API (``mancala-envs serve``), through Starlette's TestClient: no server, no browser."""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import mancala_envs
from mancala_envs.agents.baselines import GreedyAgent
from mancala_envs.cli.terminal_game import play_human
from mancala_envs.engine.state import BOARD
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.web.app import STATIC, create_app
from mancala_envs.web.games import GameTable

# Modiar with player_0's pit 0 empty (its 7 seeds in player_0's store): pit 0 is illegal (tests/cli/test_play.py).
MODIAR_EMPTY_PIT = "0,7,7/7,7,7 7,0 0"
# Omweso W9 (tests/games/test_omweso_rules.py): action 11 ends in a relay pit 15 that may go either way.
W9 = [2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2] + [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2]
MODIAR = {"game": "modiar", "opponent": "greedy", "options": {"first_player": 0}}


@pytest.fixture
def client() -> Iterator:
    """A TestClient on a fresh app. (Starlette 1.x warns once, at import, that it would rather drive httpx2.)"""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient` is deprecated")
        from starlette.testclient import TestClient
    with TestClient(create_app()) as test_client:
        yield test_client


def new_game(client, **request) -> dict:
    response = client.post("/api/games", json=request)
    assert response.status_code == 200, response.text
    return response.json()


def refused(response, status: int = 400) -> str:
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error"}
    return response.json()["error"]


def pits(board: str, cls: str = "") -> dict[int, int]:
    """The board's pits (those with class ``cls`` too, if given): pit -> seeds, read from the SVG's hooks."""
    found = {}
    for classes, pit, seeds in re.findall(r'<g class="pit([^"]*)" data-pit="(\d+)" data-seeds="(\d+)"', board):
        if not cls or cls in classes.split():
            found[int(pit)] = int(seeds)
    return found


def test_a_new_game_answers_the_board_the_legal_moves_and_who_is_who(client):
    answer = new_game(client, **MODIAR)
    assert answer["game"] == "modiar_v0" and answer["human"] == "player_0" and answer["opponent"] == "greedy"
    assert answer["opening"] == "modiar_v0: you are player_0, greedy is player_1."
    assert answer["ply"] == 0 and answer["to_move"] == "player_0" and not answer["over"]
    assert answer["legal"] == [
        {"action": 0, "pit": 0, "words": "sow pit 0"},
        {"action": 1, "pit": 1, "words": "sow pit 1"},
        {"action": 2, "pit": 2, "words": "sow pit 2"},
    ]
    assert answer["prompt"] == "Your move (player_0):"
    assert answer["messages"] == answer["log"] == [] and answer["result"] is None and answer["can_undo"] is False
    assert answer["board"].startswith("<svg") and pits(answer["board"]) == dict.fromkeys(range(6), 7)
    assert sorted(pits(answer["board"], "legal")) == [0, 1, 2]
    assert client.get(f"/api/games/{answer['id']}").json() == answer


def test_player_1_moves_are_named_and_ringed_by_the_board_pits(client):
    answer = new_game(client, game="ouril", opponent="random", seat=1, options={"first_player": 1})
    assert [move["pit"] for move in answer["legal"]] == list(range(6, 12))
    assert [move["action"] for move in answer["legal"]] == list(range(6))
    assert answer["legal"][0]["words"] == "sow pit 6"
    assert sorted(pits(answer["board"], "legal")) == list(range(6, 12))


def test_a_move_plays_the_human_ply_and_the_replies_as_an_env_would(client):
    answer = new_game(client, game="ouril", opponent="greedy", seed=5, options={"first_player": 0})
    moved = client.post(f"/api/games/{answer['id']}/move", json={"action": 2}).json()
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=5)
    greedy = mancala_envs.agents.make_agent("greedy", seed=5)
    env.step(2)
    env.step(greedy.act(env))
    board = env.state_array[BOARD : BOARD + 12]
    assert moved["ply"] == 2 and moved["to_move"] == "player_0"
    assert pits(moved["board"]) == {pit: int(seeds) for pit, seeds in enumerate(board)}
    assert moved["messages"] == moved["log"] and len(moved["log"]) == 2
    assert moved["log"][0] == "You (player_0) sow pit 2"
    assert re.fullmatch(r"greedy \(player_1\) sows pit (6|7|8|9|10|11)(, capturing \d+ seeds?)?", moved["log"][1])
    # GET answers the same game with no new message: they were sent with the move.
    assert client.get(f"/api/games/{answer['id']}").json()["messages"] == []


def terminal_lines(transcript: str) -> list[str]:
    """The terminal game's rules messages: the plies, the undos and the result line."""
    keep = ("You (", "greedy (", "Undone: ", "Result: ")
    return [line for line in transcript.splitlines() if line.startswith(keep)]


@pytest.mark.parametrize(("game", "seat", "seed"), [("modiar", 0, 0), ("ouril", 1, 3), ("kalah", 0, 7)])
def test_the_messages_are_the_terminal_games_for_the_same_seed_and_moves(client, game, seat, seed):
    """A whole game, with an undo after the human's third decision: the web log is the terminal transcript's."""
    decisions = []
    script = iter(["3", "u"] + ["1"] * 400)

    def first_entry(prompt: str) -> str:
        line = next(script)
        decisions.append(line)
        return line

    out = io.StringIO()
    final = play_human(game, "greedy", seat, seed, input_fn=first_entry, out=out)
    assert final["stopped"] is None
    expected = terminal_lines(out.getvalue())
    assert expected[-1].startswith("Result: ") and any(line.startswith("Undone: ") for line in expected)

    answer = new_game(client, game=game, opponent="greedy", seat=seat, seed=seed)
    game_id = answer["id"]
    for line in decisions:
        if line == "u":
            answer = client.post(f"/api/games/{game_id}/undo").json()
        else:
            answer = client.post(
                f"/api/games/{game_id}/move", json={"action": answer["legal"][int(line) - 1]["action"]}
            )
            answer = answer.json()
    assert answer["over"] and answer["legal"] == [] and answer["prompt"] is None and answer["to_move"] is None
    assert answer["log"] + [answer["result"]] == expected


def test_undo_restores_the_position_before_the_human_move(client):
    opening = new_game(client, **MODIAR)
    game_id = opening["id"]
    assert refused(client.post(f"/api/games/{game_id}/undo")) == "Nothing to undo: you have not moved yet."
    client.post(f"/api/games/{game_id}/move", json={"action": 1})
    undone = client.post(f"/api/games/{game_id}/undo").json()
    assert undone["messages"] == ["Undone: your move (sow pit 1) and 1 reply by greedy."]
    assert undone["ply"] == 0 and undone["can_undo"] is False
    assert undone["board"] == opening["board"] and undone["legal"] == opening["legal"]
    assert undone["log"][-1] == undone["messages"][0] and len(undone["log"]) == 3


def test_an_omweso_mid_turn_choice_is_two_moves_on_one_pit(client):
    answer = new_game(client, game="omweso", opponent="greedy", position={"board": W9, "player": 0})
    # At the start two pits have two moves each: a sowing either way.
    both_ways = [(move["pit"], move["words"]) for move in answer["legal"] if move["action"] >= 16]
    assert both_ways == [(0, "sow pit 0 clockwise"), (15, "sow pit 15 clockwise")]
    choice = client.post(f"/api/games/{answer['id']}/move", json={"action": 11}).json()
    assert choice["messages"] == ["You (player_0) sow pit 11"] and choice["to_move"] == "player_0"
    assert choice["prompt"] == "Mid-turn choice (player_0): relay from pit 15, which way?"
    assert [(move["pit"], move["words"]) for move in choice["legal"]] == [
        (15, "relay from pit 15 counter-clockwise"),
        (15, "relay from pit 15 clockwise"),
    ]
    assert sorted(pits(choice["board"], "legal")) == [15]


def test_the_random_seat_is_the_terminal_games(client):
    for seed in (0, 5, 9):
        final = play_human("modiar", "random", None, seed, input_fn=lambda prompt: "q", out=io.StringIO())
        answer = new_game(client, game="modiar", opponent="random", seat="random", seed=seed)
        assert answer["human"] == f"player_{final['human']}"


def library_message(error: type[Exception], call) -> str:
    with pytest.raises(error) as raised:
        call()
    return str(raised.value)


def test_bad_new_games_are_refused_with_the_library_messages(client):
    unknown_game = library_message(ValueError, lambda: mancala_envs.make("nope"))
    assert refused(client.post("/api/games", json={"game": "nope"})) == unknown_game
    unknown_agent = library_message(ValueError, lambda: mancala_envs.agents.make_agent("wizard"))
    assert refused(client.post("/api/games", json={"game": "ouril", "opponent": "wizard"})) == unknown_agent
    assert refused(client.post("/api/games", json={"game": "ouril", "opponent": "mcts:0"})) == (
        "mcts simulations must be an integer from 1 to 1000000 as in 'mcts:400' (got 'mcts:0')."
    )
    unknown_option = library_message(TypeError, lambda: mancala_envs.make("ouril_v0", colour="red"))
    assert refused(client.post("/api/games", json={"game": "ouril", "options": {"colour": "red"}})) == unknown_option
    cases = [
        ({"game": "ouril", "seat": 2}, "seat must be 0, 1 or None (a seat drawn from the seed); got 2."),
        ({"game": "ouril", "seat": True}, "seat must be 0, 1 or None (a seat drawn from the seed); got True."),
        ({"game": "ouril", "seat": "left"}, "seat must be 0, 1 or 'random' (got 'left')."),
        ({"game": "ouril", "seed": -1}, "seed must be an integer >= 0 (got -1)."),
        ({"game": "ouril", "seed": "0"}, "seed must be an integer >= 0 (got str '0')."),
        (
            {"game": "ouril", "options": {"render_mode": "human"}},
            "the game session sets render_mode itself; leave it out of the options.",
        ),
        (
            {"game": "ouril", "options": [1]},
            "options must be a dict of option names to values such as {'first_player': 0} (got [1]).",
        ),
        ({"game": 3}, "game must be a game name or registry id such as 'ouril' (got int)."),
        (
            {"opponent": "greedy"},
            'a new game needs a game: send {"game": "ouril", "opponent": "greedy", "seat": 0, "seed": 0}.',
        ),
        (
            {"game": "ouril", "colour": "red"},
            "unknown field 'colour': the request takes game, opponent, seat, seed, options, position, as in "
            '{"game": "ouril", "opponent": "greedy", "seat": 0, "seed": 0}.',
        ),
        (
            ["ouril"],
            'the request body must be a JSON object such as {"game": "ouril", "opponent": "greedy", '
            '"seat": 0, "seed": 0} (got list).',
        ),
    ]
    for request, message in cases:
        assert refused(client.post("/api/games", json=request)) == message, request
    assert refused(client.post("/api/games", content=b"{game")).startswith("the request body is not JSON (")
    assert len(client.app.state.games) == 0


def test_an_illegal_move_gets_the_terminal_message_and_changes_nothing(client):
    answer = new_game(client, game="modiar", opponent="random", position=MODIAR_EMPTY_PIT)
    game_id = answer["id"]
    cases = [
        ({"action": 0}, "Action 0 (sow pit 0) is not legal now; the legal actions are [1, 2]."),
        ({"action": 3}, "There is no action 3: actions are 0-2."),
        ({"action": -1}, "There is no action -1: actions are 0-2."),
        ({"action": True}, "An action is an integer from 0 to 2 (got True)."),
        ({"action": "1"}, "An action is an integer from 0 to 2 (got '1')."),
        ({"action": 1.0}, "An action is an integer from 0 to 2 (got 1.0)."),
        ({}, 'a move needs an action: send {"action": 3} (one of the legal actions).'),
        ({"action": 1, "pit": 1}, """unknown field 'pit': the request takes action, as in {"action": 3}."""),
    ]
    for request, message in cases:
        assert refused(client.post(f"/api/games/{game_id}/move", json=request)) == message, request
    # The terminal says the same of "a0" and "a3" (tests/cli/test_play.py).
    out = io.StringIO()
    script = iter(["a0", "a3", "q"])
    play_human("modiar", "random", input_fn=lambda prompt: next(script), out=out, start_position=MODIAR_EMPTY_PIT)
    assert cases[0][1] in out.getvalue().splitlines() and cases[1][1] in out.getvalue().splitlines()
    assert client.get(f"/api/games/{game_id}").json() == answer | {"messages": []}
    assert refused(client.post(f"/api/games/{game_id}/undo", json={"x": 1})) == (
        "unknown field 'x': the request takes no field: send nothing or {}."
    )


def test_no_move_after_the_end(client):
    answer = new_game(client, game="modiar", opponent="greedy", options={"first_player": 0})
    while not answer["over"]:
        answer = client.post(f"/api/games/{answer['id']}/move", json={"action": answer["legal"][0]["action"]}).json()
    message = refused(client.post(f"/api/games/{answer['id']}/move", json={"action": 0}))
    assert message == f"The game is over ({answer['result']}); undo or start a new game."


def test_a_failing_opponent_takes_the_move_back(client, monkeypatch):
    answer = new_game(client, **MODIAR)

    def fail(self, env):
        raise ValueError("no table for this position")

    monkeypatch.setattr(GreedyAgent, "act", fail)
    message = refused(client.post(f"/api/games/{answer['id']}/move", json={"action": 1}))
    assert message == "greedy could not reply: no table for this position"
    assert client.get(f"/api/games/{answer['id']}").json() == answer


def test_unknown_games_are_404(client):
    message = refused(client.get("/api/games/nope"), 404)
    assert message == (
        "no game 'nope' here: it was never started, or the app forgot it (it keeps the 32 most recent games, and "
        "none after it stops); start a new game."
    )
    refused(client.post("/api/games/nope/move", json={"action": 0}), 404)
    refused(client.post("/api/games/nope/undo"), 404)


def test_the_table_forgets_the_least_recently_used_game():
    table = GameTable(max_games=2)
    first = table.new_game(MODIAR)["id"]
    second = table.new_game(MODIAR)["id"]
    table.state(first)  # used: the second is now the oldest
    third = table.new_game(MODIAR)["id"]
    assert len(table) == 2
    assert table.state(first)["id"] == first and table.state(third)["id"] == third
    with pytest.raises(Exception, match="no game") as raised:
        table.state(second)
    assert raised.value.status == 404
    for bad in (0, True, 2.5):
        with pytest.raises(ValueError, match=r"max_games must be an integer >= 1"):
            GameTable(max_games=bad)


def test_the_catalog_lists_every_variant_and_the_defaults(client):
    catalog = client.get("/api/catalog").json()
    assert [game["id"] for game in catalog["games"]] == [variant.id for variant in VARIANTS]
    assert catalog["default_game"] == "mancala/ouril-v0" and catalog["default_opponent"] == "greedy"
    assert "random" in catalog["agents"] and "alphabeta:4" in catalog["agents"]
    with pytest.raises(ValueError, match="unknown environment 'nope'"):
        create_app("nope")
    with pytest.raises(ValueError, match="unknown agent 'wizard'"):
        create_app("ouril", "wizard")


def test_the_page_and_its_files_are_served_and_fetch_nothing_else(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/static/app.js"></script>' in page.text and 'href="/static/app.css"' in page.text
    for name in ("app.js", "app.css"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and response.text == (STATIC / name).read_text()
    for path in Path(STATIC).iterdir():
        text = path.read_text()
        assert not re.search(r"https?://|//cdn|@import", text), path.name
