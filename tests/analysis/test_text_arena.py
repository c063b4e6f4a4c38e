"""The text arena: scripted text agents of known behaviour give exact counts; bad arguments are refused."""

from __future__ import annotations

import json
import re

import pytest

from mancala_envs.analysis.text_arena import CHEAP_ANCHORS, evaluate_text_agent

MODIAR = "mancala/modiar-v0"


def first_listed(prompt: str) -> str:
    """The first legal move of the prompt's list (``"move 0"``)."""
    found = re.search(r"^  (move \d+):", prompt, re.MULTILINE)
    assert found is not None
    return found.group(1)


class Recorder:
    """A text agent that replies from a script of replies (then the first listed move), keeping every prompt."""

    def __init__(self, script: list[str] | None = None, *, always: str | None = None) -> None:
        self.script = list(script or [])
        self.always = always
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.always is not None:
            return self.always
        return self.script.pop(0) if self.script else first_listed(prompt)


def test_an_always_illegal_agent_uses_every_retry_then_forfeits_each_game() -> None:
    agent = Recorder(always="I would rather not say.")
    result = evaluate_text_agent(agent, MODIAR, opponents=["random"], games=2, retries=2, seed=0, name="mute")
    (row,) = result.rows
    assert (row.wins, row.draws, row.losses, row.forfeits) == (0, 0, 2, 2)
    assert (row.decisions, row.replies, row.illegal_replies, row.retries) == (2, 6, 6, 4)
    assert row.illegal_rate == 1.0 and row.win_rate == 0.0
    assert len(agent.prompts) == 6
    assert 'Your reply "I would rather not say." was not accepted. Your reply names no move number.' in agent.prompts[1]
    assert agent.prompts[1].startswith(agent.prompts[0]) and agent.prompts[2] == agent.prompts[1]
    lines = result.format_table().splitlines()
    assert lines[0] == (
        "text agent 'mute' on mancala/modiar-v0: 2 games per opponent (both seats), up to 2 retries a decision, seed 0"
    )
    assert lines[3] == ("random            0    0    2    0.0% [  0.0,  65.8]        6       6 100.0%       4        2")


def test_without_retries_the_first_illegal_reply_forfeits() -> None:
    result = evaluate_text_agent(Recorder(always="move 9"), MODIAR, opponents=["greedy"], games=3, retries=0)
    (row,) = result.rows
    assert (row.losses, row.forfeits, row.decisions, row.replies, row.illegal_replies, row.retries) == (
        3,
        3,
        3,
        3,
        3,
        0,
    )
    exchange = result.transcripts[0]["exchanges"][0]
    assert exchange["action"] is None
    assert exchange["error"].startswith("There is no move 9: the move numbers go from 0 to 2.")


def test_an_agent_that_corrects_itself_is_counted_retry_by_retry() -> None:
    agent = Recorder(["no idea", "move 1 or move 2", "move 0"])  # one decision: two illegal replies, then legal
    result = evaluate_text_agent(agent, MODIAR, opponents=["random"], games=1, retries=2, seed=0)
    (row,) = result.rows
    assert (row.replies - row.decisions, row.illegal_replies, row.retries, row.forfeits) == (2, 2, 2, 0)
    exchanges = result.transcripts[0]["exchanges"]
    assert [exchange["action"] for exchange in exchanges[:3]] == [None, None, 0]
    assert exchanges[1]["error"].startswith("Your reply names more than one move (moves 1 and 2).")


def test_first_legal_agent_gives_seeded_reproducible_results() -> None:
    def run(seed: int) -> dict[str, object]:
        result = evaluate_text_agent(first_listed, MODIAR, opponents=["random", "greedy"], games=4, seed=seed)
        return result.to_dict()

    first = run(3)
    assert first == run(3)
    assert [(row["opponent"], row["wins"], row["draws"], row["losses"], row["decisions"]) for row in first["rows"]] == [
        ("random", 1, 1, 2, 37),
        ("greedy", 0, 1, 3, 28),
    ]
    assert all(row["illegal_replies"] == row["retries"] == row["forfeits"] == 0 for row in first["rows"])
    assert first["total"]["games"] == 8 and first["total"]["replies"] == 65
    assert json.loads(json.dumps(first)) == first


def test_the_agent_plays_both_seats_and_the_first_games_are_transcribed() -> None:
    result = evaluate_text_agent(first_listed, MODIAR, opponents=["random"], games=3, keep_transcripts=2)
    assert [(game["opponent"], game["game"], game["seat"]) for game in result.transcripts] == [
        ("random", 0, "player_0"),
        ("random", 1, "player_1"),
    ]
    for game in result.transcripts:
        for exchange in game["exchanges"]:
            assert f"You are {game['seat']}." in exchange["prompt"]
            assert exchange["reply"] == f"move {exchange['action']}"
    assert (
        evaluate_text_agent(first_listed, MODIAR, opponents=["random"], games=1, keep_transcripts=0).transcripts == []
    )


def test_default_opponents_are_the_cheap_ladder_anchors_and_the_agent_is_placed() -> None:
    result = evaluate_text_agent(first_listed, MODIAR, games=1)
    assert CHEAP_ANCHORS == ("random", "greedy", "alphabeta:2", "alphabeta:4")
    assert [row.opponent for row in result.rows] == list(CHEAP_ANCHORS)  # modiar's ladder also has stronger ones
    assert result.rating is not None and result.rating_note == ""
    assert result.format_table().splitlines()[-1].startswith("ladder rating: ")
    other = evaluate_text_agent(first_listed, "mancala/kalah-6x6-v0", opponents=["random"], games=1)
    assert other.rating is None
    assert other.rating_note.startswith("none: the shipped kalah ladder rates kalah_v0 as registered")


def test_what_the_agent_raises_propagates() -> None:
    def broken(prompt: str) -> str:
        raise ConnectionError("the model server is down")

    with pytest.raises(ConnectionError, match="the model server is down"):
        evaluate_text_agent(broken, MODIAR, opponents=["random"], games=1)
    with pytest.raises(TypeError, match=r"the text agent returned int, not a string; return the reply.s text\."):
        evaluate_text_agent(lambda prompt: 0, MODIAR, opponents=["random"], games=1)  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ({"agent": "first"}, TypeError, "agent must be a callable prompt -> reply"),
        ({"game": 3}, TypeError, "game must be a game name or registry id such as 'kalah'"),
        ({"game": "chess"}, ValueError, "unknown environment 'chess'; choose one of"),
        ({"games": 0}, ValueError, r"games must be an integer >= 1 \(got 0\)"),
        ({"retries": -1}, ValueError, r"retries must be an integer from 0 to 100 \(got -1\)"),
        ({"seed": -2}, ValueError, r"seed must be an integer >= 0 \(got -2\)"),
        ({"keep_transcripts": 1.5}, TypeError, "keep_transcripts must be an integer >= 0"),
        ({"opponents": "random"}, TypeError, "opponents must be a list of agent names such as"),
        ({"opponents": []}, ValueError, "opponents is empty; pass agent names such as"),
        ({"opponents": ["random", 7]}, TypeError, "each opponent must be an agent name such as 'alphabeta:4'"),
        ({"opponents": ["grandmaster"]}, ValueError, "grandmaster"),
        ({"opponents": ["random", "random"]}, ValueError, "opponents names an agent twice"),
    ],
)
def test_bad_arguments_are_refused_before_any_game(arguments: dict[str, object], error: type, words: str) -> None:
    agent = Recorder()
    call = {"agent": agent, "game": MODIAR, "opponents": ["random"], "games": 1, **arguments}
    with pytest.raises(error, match=words):
        evaluate_text_agent(**call)  # type: ignore[arg-type]
    assert agent.prompts == []
