"""The ladder's refusals (docs/contract.md, "Ladders"): unknown games and agents, games out of range, damaged and
forged ladder files, ladders of another game, and the command line's flags; each with its exact words, before any
game is played and without writing anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mancala_envs.analysis import ladder as ladders
from mancala_envs.analysis.ladder import MAX_LADDER_BYTES, Ladder, LadderError, build_ladder, place_agent
from mancala_envs.cli import main

from support.ladder_files import TINY, TINY_OPTIONS, tiny_data, tiny_ladder, write_ladder

REBUILD = "; rebuild it with `mancala-envs ladder --build --game GAME --out PATH`."


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any game played fails the test: every refusal comes before the first game."""

    def refuse(*arguments: Any, **keywords: Any) -> Any:
        raise AssertionError("a game was played before the refusal")

    from mancala_envs.analysis import tournament

    monkeypatch.setattr(tournament, "play_games", refuse)
    monkeypatch.setattr(tournament, "run_tournament", refuse)


def place(path: Path, agent: Any = "greedy", **arguments: Any) -> Any:
    return place_agent(agent, "kalah", ladder=str(path), regret=False, **{"games_per_anchor": 2, **TINY, **arguments})


# --- the game and the agent -----------------------------------------------------------------------------------------
@pytest.mark.usefixtures("no_games")
def test_an_unknown_game_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^unknown environment 'chess'; choose one of \['ouril_v0'"):
        place_agent("greedy", "chess", ladder=tiny_ladder())
    with pytest.raises(ValueError, match=r"^unknown environment 'chess'"):
        build_ladder("chess", ["random", "greedy"], games_per_pair=2)
    with pytest.raises(TypeError, match=r"^game must be a game name or registry id such as 'kalah' \(got int\)\.$"):
        place_agent("greedy", 3, ladder=tiny_ladder())


@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    ("agent", "error", "words"),
    [
        (3.5, TypeError, "agent must be an agent name such as 'alphabeta:3' or 'sb3:model.zip', an object with "
         "act(env) -> int (an Agent), or a callable (game, state) -> action (got float)."),
        ("wizard", ValueError, "unknown agent 'wizard'; choose one of"),
        ("alphabeta:0", ValueError, "alphabeta depth must be an integer from 1 to 64 as in 'alphabeta:4'"),
        ("sb3:", ValueError, "an sb3 agent needs the saved model's path, as in 'sb3:models/ppo.zip'"),
    ],
)  # fmt: skip
def test_a_bad_agent_is_refused_before_any_game(tmp_path: Path, agent: Any, error: type, words: str) -> None:
    with pytest.raises(error) as raised:
        place(write_ladder(tmp_path), agent)
    assert words in str(raised.value)


@pytest.mark.usefixtures("no_games")
def test_an_agent_object_is_refused_with_workers(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as raised:
        place(write_ladder(tmp_path), lambda game, state: 0, workers=2)
    assert str(raised.value) == (
        "an agent object plays in this process only: pass workers=1 (got 2), or its name (such as 'sb3:model.zip') "
        "to play in worker processes."
    )


@pytest.mark.usefixtures("no_games")
def test_a_ladder_without_random_is_refused() -> None:
    with pytest.raises(ValueError) as raised:
        build_ladder("kalah", ["greedy", "alphabeta:2"], games_per_pair=2, **TINY)
    assert str(raised.value) == (
        "a ladder is pinned to 'random' = 0: put 'random' among the anchors (got ['greedy', 'alphabeta:2'])."
    )


# --- games and workers ---------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"games_per_anchor": 0}, ValueError, "games_per_anchor must be an integer >= 1 (got 0)."),
        ({"games_per_anchor": 2.5}, TypeError, "games_per_anchor must be an integer >= 1 (got float 2.5)."),
        ({"games_per_anchor": 500_001}, ValueError, "a placement plays at most 1000000 games (MAX_GAMES); 2 anchor(s) "
         "x 500001 games per anchor is 1000002. Play fewer games per anchor (--games)."),
        ({"seed": -1}, ValueError, "seed must be an integer >= 0 (got -1)."),
        ({"workers": 0}, ValueError, "workers must be an integer from 1 to "),
    ],
)  # fmt: skip
def test_games_seeds_and_workers_out_of_range_are_refused(
    tmp_path: Path, arguments: dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error) as raised:
        place(write_ladder(tmp_path), **arguments)
    assert type(raised.value) is error and str(raised.value).startswith(message)


# --- ladder files --------------------------------------------------------------------------------------------------
def anchors_with(**changes: Any) -> list[dict[str, Any]]:
    """The tiny ladder's anchors, greedy's entries changed."""
    anchors = tiny_data()["anchors"]
    return [anchors[0], {**anchors[1], **changes}]


@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([1, 2], "is not a JSON object"),
        (tiny_data(format="mancala-envs-tournament-1"), "is not a ladder of format 'mancala-envs-ladder' version 1 "
         "(it says 'mancala-envs-tournament-1' version 1)"),
        ({k: v for k, v in tiny_data().items() if k != "command"}, "has the entries ['anchors', 'config', "
         "'covariance', 'format', 'game', 'game_options', 'games_per_pair', 'level', 'pairs', 'prior_draws', 'scale', "
         "'seed', 'version'], not ['anchors', 'command', 'config', 'covariance', 'format', 'game', 'game_options', "
         "'games_per_pair', 'level', 'pairs', 'prior_draws', 'scale', 'seed', 'version']"),
        (tiny_data(game=7), "has a 'game' that is not a string"),
        (tiny_data(config=[]), "has a 'config' that is not an object"),
        (tiny_data(games_per_pair=True), "has a 'games_per_pair' that is not an integer >= 1 (got True)"),
        (tiny_data(seed=-3), "has a 'seed' that is not an integer >= 0 (got -3)"),
        (tiny_data(level=1.5), "has a 'level' that is not a number in (0, 1) (got 1.5)"),
        (tiny_data(anchors=anchors_with(elo="100")), "has anchors[1].elo = '100', not a finite number"),
        (tiny_data(anchors=anchors_with(elo=None)), "has anchors[1].elo = None, not a finite number"),
        (tiny_data(anchors=anchors_with(name="random")), "has anchors ['random', 'random']: two or more, each once, "
         "'random' among them"),
        (tiny_data(anchors=anchors_with(elo=500.0)), "has anchor 'greedy' rated 500.0 outside its interval"),
        (tiny_data(anchors=anchors_with(extra=1)), "has anchors[1] that is not an object of ['elo', 'high', 'low', "
         "'name']"),
        (tiny_data(pairs=[]), "does not hold one entry per pair of its anchors, in order (1 pairs)"),
        (tiny_data(pairs=[{"agent": "random", "opponent": "greedy", "wins": -1, "draws": 4, "losses": 5}]),
         "has 'random' against 'greedy' at (-1, 4, 5) wins, draws and losses, which are not 8 games"),
        (tiny_data(pairs=[{"agent": "random", "opponent": "greedy", "wins": 2.0, "draws": 1, "losses": 5}]),
         "has pairs[0].wins = 2.0, not int"),
        (tiny_data(covariance=[[0.0]]), "has a 'covariance' that is not a 2 x 2 matrix of finite numbers"),
    ],
)  # fmt: skip
def test_a_forged_ladder_file_is_refused_naming_the_file_and_the_fix(tmp_path: Path, data: Any, problem: str) -> None:
    path = write_ladder(tmp_path, data)
    before = path.read_bytes()
    with pytest.raises(LadderError) as raised:
        place(path)
    assert str(raised.value) == f"the ladder file {str(path)!r} {problem}{REBUILD}"
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]


@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{oops", "is not a ladder file (Expecting property name enclosed in double quotes"),
        ('{"seed": NaN}', "is not a ladder file: it holds the non-standard JSON number NaN"),
        (b"\xff\xfe", "is not a ladder file: it is not UTF-8 text"),
        ("[" * 100 + "]" * 100, "is nested too deeply to be a ladder file"),
    ],
)
def test_a_corrupted_ladder_file_is_refused(tmp_path: Path, text: str | bytes, words: str) -> None:
    path = write_ladder(tmp_path, text)
    with pytest.raises(LadderError) as raised:
        place(path)
    assert str(path) in str(raised.value) and words in str(raised.value)
    assert str(raised.value).endswith("pass a file this library wrote.")


@pytest.mark.usefixtures("no_games")
def test_an_oversized_ladder_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, " " * (MAX_LADDER_BYTES + 1))
    with pytest.raises(LadderError, match=f"is larger than {MAX_LADDER_BYTES}"):
        Ladder.load(path)


@pytest.mark.usefixtures("no_games")
def test_a_missing_ladder_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Ladder.load(tmp_path / "none.json")
    assert main(["ladder", "greedy", "--game", "kalah", "--ladder", str(tmp_path / "none.json"), *TINY_OPTIONS]) == 2


@pytest.mark.usefixtures("no_games")
def test_a_ladder_of_another_game_or_config_is_refused(tmp_path: Path) -> None:
    path = write_ladder(tmp_path)
    with pytest.raises(LadderError) as raised:
        place_agent("greedy", "kalah", ladder=str(path), pits_per_row=4, seeds_per_pit=3)
    message = str(raised.value)
    assert message.startswith(f"the ladder file {str(path)!r} rates kalah_v0 with {{'pits_per_row': 3, ")
    assert message.endswith(
        "build a ladder of this game and config (`mancala-envs ladder --build --game kalah --option "
        "pits_per_row=VALUE --out PATH`)."
    )
    with pytest.raises(LadderError, match=r"^the ladder rates kalah_v0 with .* not ouril_v0 with "):
        place_agent("greedy", "ouril", ladder=tiny_ladder())
    with pytest.raises(TypeError, match=r"^ladder must be a Ladder, the path of a ladder file, or None \(got dict\)"):
        place_agent("greedy", "kalah", ladder=tiny_data(), **TINY)


@pytest.mark.usefixtures("no_games")
def test_no_shipped_ladder_names_the_command_that_builds_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(ladders, "LADDERS_DIR", tmp_path)
    with pytest.raises(LadderError) as raised:
        place_agent("greedy", "ouril")
    assert str(raised.value) == (
        f"no shipped ladder for ouril (looked for {tmp_path / 'ouril.json'}); build one with `mancala-envs ladder "
        "--build --game ouril --out ouril-ladder.json` and pass it (--ladder PATH, ladder=Ladder.load(PATH))."
    )
    with pytest.raises(LadderError) as raised:
        place_agent("greedy", "mancala/kalah-6x6-v0")
    assert str(raised.value).startswith(
        "the shipped kalah ladder rates kalah_v0 as registered, and kalah_v0 here differs in "
        "['seeds_per_pit']; build a ladder of this config elsewhere (`mancala-envs ladder --build --game kalah "
        "--option seeds_per_pit=VALUE --out PATH`)"
    )


# --- the command line ----------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["greedy", "--build", "--game", "kalah"], "--build rebuilds the ladder and places no agent: leave out AGENT "
         "(--games-per-pair sets the games)."),
        (["--build", "--game", "kalah", "--games", "4"], "--build rebuilds the ladder and places no agent: leave out "
         "--games (--games-per-pair sets the games)."),
        (["greedy", "--game", "kalah", "--out", "x.json"], "--out goes with --build (mancala-envs ladder --build "
         "--game kalah --out ...)."),
        (["greedy", "--game", "kalah", "--games-per-pair", "4"], "--games-per-pair goes with --build"),
        (["--game", "kalah", "--json", "p.json"], "--json goes with an agent to place (mancala-envs ladder AGENT "
         "--game kalah)."),
        (["--build", "--game", "kalah", *TINY_OPTIONS], "the shipped kalah ladder rates kalah_v0 as registered"),
        (["greedy", "--game", "chess"], "unknown environment 'chess'"),
        (["greedy"], "the following arguments are required: --game; see 'mancala-envs ladder --help'."),
        (["greedy", "--game", "kalah", "--games", "0"], "argument --games: invalid value '0' (use an integer >= 1)"),
        (["greedy", "--game", "kalah", "--option", "pits"], "invalid option 'pits' (use key=value"),
    ],
)  # fmt: skip
def test_the_command_refuses_in_one_line(
    argv: list[str], line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["ladder", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("mancala-envs: error: ") and err.count("\n") == 1
    assert line in err
    assert list(tmp_path.iterdir()) == []  # nothing written
