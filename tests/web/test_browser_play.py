"""The web app in a real headless Chromium (the ``browser`` fixture): ``mancala-envs serve``'s page, played by clicks.

Each test starts its own server in this process (uvicorn on 127.0.0.1, any free port, in a thread) and stops it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

import mancala_envs
from mancala_envs.agents import make_agent
from mancala_envs.engine.state import BOARD
from mancala_envs.web.app import create_app
from mancala_envs.web.server import WebServer

from support.browser import open_page

# Omweso W9 (tests/games/test_omweso_rules.py): action 11 ends in a relay pit 15 that may go either way.
W9 = [2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2] + [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2]
#: what the page shows of each pit: [pit, data-seeds, the count written in it]
PITS = "[...document.querySelectorAll('#board g.pit')].map(g => [+g.dataset.pit, +g.dataset.seeds, "
PITS += "+g.querySelector('text.count').textContent])"
LEGAL_PITS = "[...document.querySelectorAll('#board g.pit.legal')].map(g => +g.dataset.pit)"


@pytest.fixture
def app_url() -> Iterator[str]:
    """The app served on 127.0.0.1 at a free port, from a thread of this process; stopped after the test."""
    server = WebServer(create_app("ouril", "random"), "127.0.0.1", 0)
    server.start_in_thread()
    try:
        yield server.url
    finally:
        server.stop()
    with pytest.raises(ConnectionRefusedError):  # stopped: the port is closed
        socket.create_connection(("127.0.0.1", server.port), timeout=2).close()


def wait_for_answers(page, count: int) -> None:
    """Waits until the page has shown ``count`` answers of the app (body[data-answers])."""
    page.wait_for_function(f"document.body.dataset.answers === '{count}'", timeout=10_000)


def shown_pits(page) -> dict[int, int]:
    """Pit -> seeds as the page shows them; the written count always agrees with data-seeds."""
    rows = page.evaluate(PITS)
    assert all(seeds == written for _, seeds, written in rows)
    return {pit: seeds for pit, seeds, _ in rows}


def env_pits(env, n_pits: int) -> dict[int, int]:
    return {pit: int(seeds) for pit, seeds in enumerate(env.unwrapped.state_array[BOARD : BOARD + n_pits])}


def test_ouril_against_random_by_clicks(browser, app_url):
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=0)
    opening = env.state_dict()
    random_agent = make_agent("random", seed=0)
    with open_page(browser, app_url) as watched:
        page = watched.page
        page.wait_for_function("document.body.dataset.ready === 'true'", timeout=10_000)
        assert page.input_value("#game") == "mancala/ouril-v0" and page.input_value("#opponent") == "random"
        page.fill("#options", "first_player=0")
        page.click("#start")
        wait_for_answers(page, 1)
        assert page.text_content("#opening") == "ouril_v0: you are player_0, random is player_1."
        assert page.text_content("#prompt") == "Your move (player_0):"
        assert page.evaluate(LEGAL_PITS) == [
            int(a) for a in env.unwrapped.game.legal_actions(env.unwrapped.state_array)
        ]
        assert page.locator("#moves button").all_text_contents() == [f"sow pit {pit}" for pit in range(6)]
        assert shown_pits(page) == env_pits(env, 12) == dict.fromkeys(range(12), 4)
        assert page.is_disabled("#undo")

        # A click on pit 2 plays it; random answers; the counts are the env's after the same two plies.
        page.click('#board g.pit[data-pit="2"]')
        wait_for_answers(page, 2)
        env.step(2)
        reply = random_agent.act(env)
        env.step(reply)
        assert shown_pits(page) == env_pits(env, 12)
        log = page.locator("#log li").all_text_contents()
        assert log[0] == "You (player_0) sow pit 2" and log[1].startswith(f"random (player_1) sows pit {reply + 6}")
        assert page.evaluate(LEGAL_PITS) == [
            int(a) for a in env.unwrapped.game.legal_actions(env.unwrapped.state_array)
        ]

        # Undo: the opening again.
        page.click("#undo")
        wait_for_answers(page, 3)
        env.load_state_dict(opening)
        assert shown_pits(page) == env_pits(env, 12)
        assert page.locator("#log li").all_text_contents()[-1] == "Undone: your move (sow pit 2) and 1 reply by random."
        assert page.is_disabled("#undo")

        # To the end with the moves list (its first button each time), the env in step.
        answers = 3
        while page.get_attribute("body", "data-over") != "true":
            first = page.locator("#moves button").first
            action = int(first.get_attribute("data-action"))
            assert first.text_content() == f"sow pit {action}"
            first.click()
            answers += 1
            wait_for_answers(page, answers)
            env.step(action)
            while env.agents and not env.terminations[env.agent_selection] and env.agent_selection == "player_1":
                env.step(random_agent.act(env))
            assert shown_pits(page) == env_pits(env, 12)
            assert answers < 400
        facts = env.unwrapped.facts()
        result = page.text_content("#result")
        assert result.startswith("Result: ") and f"plies: {facts['ply']}" in result
        assert f"scores {facts['scores'][0]}-{facts['scores'][1]}" in result
        winner = facts["winner"]
        outcome = "draw" if winner is None else f"player_{winner} ({'you' if winner == 0 else 'random'}) wins"
        assert result.startswith(f"Result: {outcome}")
        assert page.locator("#log li").last.text_content() == result
        assert page.locator("#moves button").count() == 0 and page.evaluate(LEGAL_PITS) == []
        watched.assert_no_errors()


def test_omweso_choices_on_one_pit_are_buttons(browser, app_url):
    env = mancala_envs.make("omweso_v0")
    env.reset(options={"board": W9, "player": 0})
    query = urlencode({"game": "mancala/omweso-v0", "opponent": "greedy", "position": env.position()})
    with open_page(browser, f"{app_url}?{query}") as watched:
        page = watched.page
        page.wait_for_function("document.body.dataset.ready === 'true'", timeout=10_000)
        assert page.input_value("#position") == env.position()
        page.click("#start")
        wait_for_answers(page, 1)
        assert shown_pits(page) == env_pits(env, 32)
        # Pit 0 may be sown either way: a click shows the two moves as buttons (nothing is played yet).
        page.click('#board g.pit[data-pit="0"]')
        assert page.locator("#choices button").all_text_contents() == ["sow pit 0", "sow pit 0 clockwise"]
        assert page.get_attribute("body", "data-answers") == "1"
        # Pit 11 has one move: a click plays it, and leads to a mid-turn choice.
        page.click('#board g.pit[data-pit="11"]')
        wait_for_answers(page, 2)
        assert page.text_content("#prompt") == "Mid-turn choice (player_0): relay from pit 15, which way?"
        assert page.evaluate(LEGAL_PITS) == [15]
        # Two actions on pit 15: a click shows them as buttons, one of which plays.
        assert page.locator("#choices button").count() == 0
        page.click('#board g.pit[data-pit="15"]')
        choices = page.locator("#choices button")
        assert choices.all_text_contents() == ["relay from pit 15 counter-clockwise", "relay from pit 15 clockwise"]
        choices.nth(1).click()
        wait_for_answers(page, 3)
        log = page.locator("#log li").all_text_contents()
        assert log[0] == "You (player_0) sow pit 11"
        assert log[1] == "You (player_0) relay from pit 15 clockwise, capturing 5 seeds"
        # greedy answers, and wins at once: its plies, then the result line.
        assert log[2:] == [
            "greedy (player_1) sows pit 3, capturing 6 seeds",
            "greedy (player_1) relays from pit 0 clockwise, capturing 18 seeds",
            "Result: player_1 (greedy) wins; scores 5-24, end: front_row_clear, plies: 4",
        ]
        assert page.text_content("#result") == log[-1] and page.evaluate(LEGAL_PITS) == []
        watched.assert_no_errors()
