"""The round-robin tournament: seats, seeds, counts, ratings, tables, files and the command line."""

from __future__ import annotations

import csv
import itertools
import json
import math
import re

import numpy as np
import pytest

pytest.importorskip("scipy", reason="the tournament needs the tournament extra (scipy)")

import mancala_envs.agents
from mancala_envs.analysis.tournament import (
    CSV_COLUMNS,
    ELO_PER_UNIT,
    GameResult,
    TournamentResult,
    fit_ratings,
    play_games,
    run_tournament,
)
from mancala_envs.cli.tournament_command import tournament_main

NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


@pytest.fixture
def three_agents(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Three agent names for in-process tournaments: the baselines and a second, differently
    named random agent (make_agent is wrapped in this process only, so only workers=1 sees it)."""
    make_agent = mancala_envs.agents.make_agent

    def make(name: str, seed: int | None = None, **options):
        return make_agent("random" if name == "random_b" else name, seed=seed, **options)

    monkeypatch.setattr(mancala_envs.agents, "make_agent", make)
    return ["random", "greedy", "random_b"]


@pytest.fixture(scope="module")
def two_agent_result() -> TournamentResult:
    return run_tournament("ouril", ["random", "greedy"], games_per_pair=12, seed=3, workers=1, progress=False)


def synthetic(agents: list[str], outcomes: dict[tuple[int, int], tuple[int, int, int]]) -> TournamentResult:
    """A result whose pair ``(i, j)`` has ``(wins of i, draws, wins of j)``, seats alternated."""
    pairs = list(itertools.combinations(range(len(agents)), 2))
    games = []
    for pair, (i, j) in enumerate(pairs):
        wins, draws, losses = outcomes[(i, j)]
        winners = [i] * wins + [None] * draws + [j] * losses
        for number, winner in enumerate(winners):
            first, second = (i, j) if number % 2 == 0 else (j, i)
            games.append(GameResult(pair, number, first, second, winner, (24, 24), 40, "threshold", False))
    per_pair = len(games) // len(pairs)
    return TournamentResult(game="ouril_v0", agents=agents, games_per_pair=per_pair, seed=0, games=games)


# --- seats, seeds and determinism ----------------------------------------------------------
def test_same_seed_same_games_whatever_the_number_of_workers() -> None:
    in_process = run_tournament("ouril", ["random", "greedy"], games_per_pair=10, seed=11, workers=1, progress=False)
    pooled = run_tournament("ouril", ["random", "greedy"], games_per_pair=10, seed=11, workers=2, progress=False)
    assert pooled.games == in_process.games
    assert pooled.to_dict() == in_process.to_dict()
    other = run_tournament("ouril", ["random", "greedy"], games_per_pair=10, seed=12, workers=1, progress=False)
    assert [(g.scores, g.plies) for g in other.games] != [(g.scores, g.plies) for g in in_process.games]


def test_a_game_depends_only_on_its_own_seeds() -> None:
    agents = ["random", "greedy"]
    whole = play_games("ouril_v0", agents, [(0, g) for g in range(6)], seed=4)
    alone = [play_games("ouril_v0", agents, [(0, g)], seed=4)[0] for g in reversed(range(6))]
    assert whole == alone[::-1]


def test_seats_alternate_and_the_first_mover_is_player_0() -> None:
    games = play_games("ouril_v0", ["random", "greedy"], [(0, g) for g in range(4)], seed=0)
    assert [(g.first, g.second) for g in games] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    # The same game replayed by hand: the first mover moves first, seated at player_0.
    env = mancala_envs.make("ouril_v0", first_player=0)
    env_seed, low_seed, high_seed = (int(s) for s in np.random.SeedSequence([0, 0, 1]).generate_state(3))
    players = {"player_0": mancala_envs.agents.make_agent("greedy", seed=high_seed),
               "player_1": mancala_envs.agents.make_agent("random", seed=low_seed)}  # fmt: skip
    env.reset(seed=env_seed)
    assert env.agent_selection == "player_0"
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(players[env.agent_selection].act(env))
    info = env.infos["player_0"]
    assert games[1].scores == tuple(info["scores"]) and games[1].plies == info["ply"]
    assert games[1].winner == (None if info["winner"] is None else (1, 0)[info["winner"]])


def test_counts_seats_and_totals(three_agents: list[str]) -> None:
    result = run_tournament("ouril", three_agents, games_per_pair=5, seed=1, workers=1, progress=False)
    assert len(result.games) == 3 * 5
    for pair, (i, j) in enumerate(result.pairs):
        games = [g for g in result.games if g.pair == pair]
        assert [g.game for g in games] == list(range(5))
        assert sum(g.first == i for g in games) == 3 and sum(g.first == j for g in games) == 2  # odd: i once more
        record, mirror = result.record(i, j), result.record(j, i)
        assert record.games == 5
        assert (record.wins, record.draws, record.losses) == (mirror.losses, mirror.draws, mirror.wins)
        assert result.record(i, j, "first").games == 3 and result.record(j, i, "first").games == 2
    for agent in three_agents:
        total = result.record(agent)
        assert total.games == 10 and total.wins + total.draws + total.losses == 10
        first, second = result.record(agent, seat="first"), result.record(agent, seat="second")
        assert [first.wins + second.wins, first.draws + second.draws, first.losses + second.losses] == [
            total.wins,
            total.draws,
            total.losses,
        ]
    mover = result.first_mover()
    assert mover.games == 15
    assert mover.wins == sum(result.record(a, seat="first").wins for a in three_agents)
    assert mover.wins == sum(result.record(a, seat="second").losses for a in three_agents)
    assert mover.draws == sum(g.winner is None for g in result.games)
    assert sum(result.record(a).wins for a in three_agents) == sum(g.winner is not None for g in result.games)


def test_truncated_games_count_as_the_env_scores_them() -> None:
    result = run_tournament("ouril", ["random", "greedy"], games_per_pair=4, workers=1, progress=False, max_plies=6)
    assert all(g.truncated and g.plies == 6 for g in result.games)
    for game in result.games:
        first, second = game.scores
        expected = None if first == second else (game.first if first > second else game.second)
        assert game.winner == expected
    assert result.record("random").games == 4


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    run_tournament("ouril", ["random", "greedy"], games_per_pair=2, workers=1, progress=True)
    captured = capsys.readouterr()
    assert "2/2" in captured.err and captured.out == ""


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"agents": ["random"]}, ValueError, "at least two agents"),
        ({"agents": ["random", "random"]}, ValueError, "once"),
        ({"agents": "random greedy"}, TypeError, "list of agent names"),
        ({"agents": ["random", "nobody"]}, ValueError, "unknown agent"),
        ({"game": "chess"}, ValueError, "chess"),
        ({"games_per_pair": 0}, ValueError, "games_per_pair"),
        ({"games_per_pair": 2.0}, TypeError, "games_per_pair"),
        ({"seed": -1}, ValueError, "seed"),
        ({"workers": 0}, ValueError, "workers"),
        ({"workers": True}, TypeError, "workers"),
        ({"first_player": 1}, ValueError, "first_player"),
        ({"colour": "red"}, TypeError, "colour"),
    ],
)
def test_bad_input_is_refused_before_any_game(kwargs: dict, error: type, match: str) -> None:
    arguments = {"game": "ouril", "agents": ["random", "greedy"], "games_per_pair": 2, "workers": 1, "progress": False}
    with pytest.raises(error, match=match):
        run_tournament(**{**arguments, **kwargs})


# --- ratings ----------------------------------------------------------------------------------
def test_a_75_percent_score_is_ln_3_units_and_190_85_elo() -> None:
    ratings = fit_ratings([[0, 30], [10, 0]], [[0, 40], [40, 0]], ["a", "b"], prior_draws=0)
    assert ratings.elo == pytest.approx([95.4243, -95.4243], abs=1e-3)
    difference, low, high = ratings.difference(0, 1)
    assert difference == pytest.approx(math.log(3) * ELO_PER_UNIT) == pytest.approx(190.8485, abs=1e-3)
    standard_error = ELO_PER_UNIT / math.sqrt(40 * 0.75 * 0.25)  # the inverse information of one log-odds
    assert (high - low) / 2 == pytest.approx(1.959964 * standard_error, rel=1e-5)
    assert ratings.se == pytest.approx([standard_error / 2] * 2, rel=1e-6)  # each rating is half the gap from the mean
    assert ratings.expected_score(0, 1) == pytest.approx(0.75)


def test_draws_are_half_points_and_the_prior_is_one_virtual_draw() -> None:
    # 20 wins, 20 draws, 0 losses in 40 games = 30 points: the same fit as 30 wins, 10 losses.
    assert fit_ratings([[0, 30], [10, 0]], [[0, 40], [40, 0]], prior_draws=0).elo == pytest.approx(
        fit_ratings(np.array([[0, 20 + 10], [10, 0]]), [[0, 40], [40, 0]], prior_draws=0).elo
    )
    regularised = fit_ratings([[0, 30], [10, 0]], [[0, 40], [40, 0]])  # default: one virtual draw per pair
    score = (30 + 0.5) / 41
    assert regularised.difference(0, 1)[0] == pytest.approx(ELO_PER_UNIT * math.log(score / (1 - score)))


def test_intervals_contain_the_estimate_and_shrink_with_more_games() -> None:
    few = fit_ratings([[0, 30], [10, 0]], [[0, 40], [40, 0]], prior_draws=0)
    many = fit_ratings([[0, 120], [40, 0]], [[0, 160], [160, 0]], prior_draws=0)
    assert many.elo == pytest.approx(few.elo)
    for ratings in (few, many):
        for index in range(2):
            low, high = ratings.interval(index)
            assert low < ratings.elo[index] < high
    low_few, high_few = few.interval(0)
    low_many, high_many = many.interval(0)
    assert high_many - low_many == pytest.approx((high_few - low_few) / 2)  # four times the games, half the width


def test_three_agents_are_ordered_and_the_fit_solves_the_score_equations() -> None:
    points = np.array([[0, 28, 34], [12, 0, 28], [6, 12, 0]], dtype=float)  # 40 games per pair
    games = np.full((3, 3), 40.0) - 40 * np.eye(3)
    ratings = fit_ratings(points, games, ["strong", "middle", "weak"], prior_draws=0)
    assert ratings.order() == [0, 1, 2]
    assert ratings.elo.sum() == pytest.approx(0, abs=1e-9)
    expected = [sum(40 * ratings.expected_score(i, j) for j in range(3) if j != i) for i in range(3)]
    assert expected == pytest.approx(points.sum(axis=1), abs=1e-6)  # maximum likelihood: expected = actual points
    assert np.all(np.linalg.eigvalsh(ratings.covariance) > -1e-9)


def test_an_unbeaten_agent_needs_the_prior() -> None:
    points, games = [[0, 20], [0, 0]], [[0, 20], [20, 0]]
    with pytest.raises(ValueError, match=r"separate the agents.*prior_draws > 0"):
        fit_ratings(points, games, ["winner", "loser"], prior_draws=0)
    ratings = fit_ratings(points, games, ["winner", "loser"])
    assert ratings.difference(0, 1)[0] == pytest.approx(ELO_PER_UNIT * math.log(20.5 / 0.5))
    assert np.isfinite(ratings.se).all()


@pytest.mark.parametrize(
    ("points", "games", "match"),
    [
        ([[0, 30], [10, 0]], [[0, 40], [30, 0]], "symmetric"),
        ([[0, 30], [20, 0]], [[0, 40], [40, 0]], "one point"),
        ([[0]], [[0]], "square"),
        ([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]],
         [[0, 2, 0, 0], [2, 0, 0, 0], [0, 0, 0, 2], [0, 0, 2, 0]], "never met"),
    ],
)  # fmt: skip
def test_malformed_results_are_refused(points: list, games: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        fit_ratings(points, games)


def test_a_result_rates_its_own_games() -> None:
    result = synthetic(["a", "b", "c"], {(0, 1): (6, 2, 2), (0, 2): (8, 0, 2), (1, 2): (5, 3, 2)})
    assert result.points_matrix().tolist() == [[0, 7, 8], [3, 0, 6.5], [2, 3.5, 0]]
    assert result.ratings.order() == [0, 1, 2]
    direct = fit_ratings(result.points_matrix(), result.games_matrix(), result.agents)
    assert result.ratings.elo == pytest.approx(direct.elo)


# --- tables and files ---------------------------------------------------------------------------
def _numbers(text: str) -> list[float]:
    return [float(number) for number in NUMBER.findall(text)]


def _as_printed(row: dict, rates: tuple[str, ...] = ("win", "draw", "loss", "score")) -> list[float]:
    """A JSON row's games and its rates and interval bounds as the table prints them (percent, 1 decimal)."""
    parts = ("rate", "low", "high")
    return [row["games"]] + [round(100 * row[f"{rate}_{part}"], 1) for rate in rates for part in parts]


def test_json_and_csv_parse_and_match_the_printed_table(two_agent_result: TournamentResult, tmp_path) -> None:
    result = two_agent_result
    table = result.format_table().splitlines()
    data = json.loads(result.to_json(tmp_path / "out.json").read_text())
    with open(result.to_csv(tmp_path / "out.csv"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == len(data["records"]) == 2 * 2  # per agent: all, then the one opponent

    wdl = table[table.index(next(line for line in table if line.startswith("Win / draw / loss"))) + 3 :]
    # wdl runs on into the later sections of the table: the rows and records (as many as each other) end the pairing
    for line, row, record in zip(wdl, rows, data["records"], strict=False):
        agent, opponent, *_ = line.split()
        assert [agent, opponent] == [row["agent"], row["opponent"]] == [record["agent"], record["opponent"]]
        assert _numbers(line.split(maxsplit=2)[2]) == _as_printed(record)
        for key, value in record.items():  # the CSV holds the JSON's numbers, digit for digit
            assert row[key] == ("" if value is None else str(value))
    assert sum(int(row["games"]) for row in rows if row["opponent"] == "all") == 2 * len(result.games)

    start = next(i for i, line in enumerate(table) if line.startswith("Ratings"))
    for line in table[start + 3 : start + 5]:
        agent = line.split()[1]
        entry = next(e for e in data["ratings"]["agents"] if e["agent"] == agent)
        row = next(r for r in rows if r["agent"] == agent and r["opponent"] == "all")
        assert float(row["elo"]) == entry["elo"] and float(row["elo_low"]) == entry["elo_low"]
        printed = _numbers(line.split(maxsplit=2)[2])
        assert printed[:3] == [round(entry["elo"], 1), round(entry["elo_low"], 1), round(entry["elo_high"], 1)]
        record = next(r for r in data["records"] if r["agent"] == agent and r["opponent"] == "all")
        assert printed[3:] == _as_printed(record, ("score",))
    assert [int(table[start + 3].split()[0]), int(table[start + 4].split()[0])] == [1, 2]
    assert data["ratings"]["agents"][1]["elo"] > data["ratings"]["agents"][0]["elo"]  # greedy beats random

    seats = table[next(i for i, line in enumerate(table) if line.startswith("Seats")) + 3 :][: len(data["seats"])]
    # the slice is cut to the seats' count, but is shorter if the table ended early
    for line, seat in zip(seats, data["seats"], strict=False):
        assert line.startswith(seat["agent"])
        assert _numbers(line[len(seat["agent"]) :].replace(seat["seat"], "", 1)) == _as_printed(seat)
    assert data["seats"][0]["games"] == len(data["games"]) == len(result.games)


def test_json_round_trip_and_games(two_agent_result: TournamentResult, tmp_path) -> None:
    path = two_agent_result.to_json(tmp_path / "out.json")
    loaded = TournamentResult.load_json(path)
    assert loaded.games == two_agent_result.games
    assert loaded.to_dict() == two_agent_result.to_dict()
    data = json.loads(path.read_text())
    assert data["games"][1] == {
        "pair": 0, "game": 1, "first": 1, "second": 0, "winner": data["games"][1]["winner"],
        "scores": list(two_agent_result.games[1].scores), "plies": two_agent_result.games[1].plies,
        "end_reason": two_agent_result.games[1].end_reason, "truncated": False,
    }  # fmt: skip
    with pytest.raises(ValueError, match="format"):
        TournamentResult.from_dict({"games": []})


def test_an_empty_seat_is_a_dash_in_the_table_and_null_in_json() -> None:
    result = synthetic(["a", "b"], {(0, 1): (1, 0, 0)})  # one game: b never moved first
    line = next(line for line in result.format_table().splitlines() if line.startswith("b") and " first " in line)
    assert line.split()[2:] == ["0", "-", "-", "-", "-"]
    seat = next(s for s in result.to_dict()["seats"] if s["agent"] == "b" and s["seat"] == "first")
    assert seat["win_rate"] is None and json.loads(json.dumps(seat)) == seat


def test_plot_is_a_png(two_agent_result: TournamentResult, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    image_module = pytest.importorskip("PIL.Image")
    path = two_agent_result.plot(tmp_path / "out.png")
    with image_module.open(path) as image:
        assert image.format == "PNG"
        width, height = image.size
    assert width > 400 and height > 200


def test_plot_without_matplotlib_names_the_extra(two_agent_result, tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"mancala-envs\[tournament\]"):
        two_agent_result.plot(tmp_path / "out.png")


# --- command line -------------------------------------------------------------------------------
def test_command_line_end_to_end(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = {flag: tmp_path / f"out.{flag}" for flag in ("json", "csv", "png")}
    status = tournament_main(
        ["--game", "ouril", "--agents", "random", "greedy", "--games", "4", "--seed", "2", "--workers", "1",
         "--no-progress", "--option", "max_plies=400", "--json", str(paths["json"]), "--csv", str(paths["csv"]),
         "--plot", str(paths["png"])]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.err == ""
    assert "Ratings: Bradley-Terry" in captured.out and "first mover" in captured.out
    assert all(path.stat().st_size > 0 for path in paths.values())
    data = json.loads(paths["json"].read_text())
    assert data["game_options"] == {"max_plies": 400} and data["seed"] == 2 and len(data["games"]) == 4
    expected = run_tournament("ouril", ["random", "greedy"], 4, seed=2, workers=1, progress=False, max_plies=400)
    assert data == expected.to_dict()
    assert expected.format_table() in captured.out


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--agents", "random", "nobody"], "unknown agent 'nobody'"),
        (["--agents", "random"], "at least two agents"),
        (["--agents", "random", "random"], "once"),
        (["--games", "0"], "argument --games: invalid value '0'"),
        (["--game", "chess"], "chess"),
        (["--seed", "-3"], "invalid seed"),
        (["--option", "colour=red"], "colour"),
        (["--option", "max_plies"], "use key=value"),
        (["--option", "first_player=1"], "first_player"),
        (["--json", "/no/such/folder/out.json"], "folder"),
        (["--frobnicate"], "unrecognized arguments"),
    ],
)
def test_command_line_bad_input_is_one_line_and_status_2(
    argv: list[str], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = tournament_main(["--games", "2", "--workers", "1", "--no-progress", *argv])  # argv's --games wins
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mancala-envs tournament: error: ")
    assert re.search(match, lines[0]), lines[0]


@pytest.mark.parametrize("workers", [1, 2])
def test_recorded_games_replay_to_the_tournament_results(tmp_path, workers: int) -> None:
    from mancala_envs.analysis.tournament import record_name
    from mancala_envs.envs.records import GameRecord, replay

    folder = tmp_path / "games"
    result = run_tournament(
        "ouril", ["random", "greedy", "alphabeta:1"], 2, seed=5, workers=workers, progress=False, record_dir=folder
    )
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(record_name(g.pair, g.game) for g in result.games) and len(names) == 6
    for played in result.games:
        record = GameRecord.load(folder / record_name(played.pair, played.game))
        assert record.players == [result.agents[played.first], result.agents[played.second]]
        assert len(record.moves) == played.plies
        *_, env = replay(record)  # raises if a move is illegal or the result differs
        info = env.facts()
        assert tuple(info["scores"]) == played.scores and info["end_reason"] == played.end_reason
        winner = None if info["winner"] is None else (played.first, played.second)[info["winner"]]
        assert winner == played.winner
    # recording changes nothing about the games
    plain = run_tournament("ouril", ["random", "greedy", "alphabeta:1"], 2, seed=5, workers=1, progress=False)
    assert plain.games == result.games


def test_command_line_records_games(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "recorded"
    status = tournament_main(
        [
            "--game",
            "modiar",
            "--agents",
            "random",
            "greedy",
            "--games",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--record",
            str(folder),
        ]
    )
    assert status == 0
    assert sorted(p.name for p in folder.iterdir()) == ["pair-00-game-0000.json", "pair-00-game-0001.json"]
