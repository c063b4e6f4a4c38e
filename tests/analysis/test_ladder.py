"""The strength ladder: the fixed-anchor fit, the pin at random = 0, ladder files, placing an agent (a name, an Agent,
a callable), the regret where a game is solved, the anchors of each game and the shipped Modiar ladder."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mancala_envs.agents import RandomAgent
from mancala_envs.analysis.ladder import (
    LADDER_FORMAT,
    PERFECT_ANCHOR,
    PIN,
    STRONG_ANCHOR,
    CallableAgent,
    Ladder,
    build_ladder,
    ladder_anchors,
    load_shipped_ladder,
    place_agent,
    solved_cheaply,
)
from mancala_envs.analysis.ratings import ELO_PER_UNIT, fit_fixed_rating, fit_ratings
from mancala_envs.envs.registration import make_game

#: a Kalah variant small enough for a round robin in a few seconds (and a whole table of 18 seeds)
TINY = {"pits_per_row": 3, "seeds_per_pit": 3}
ANCHORS = ["random", "greedy", "alphabeta:2"]


@pytest.fixture(scope="module")
def tiny_ladder(tmp_path_factory: pytest.TempPathFactory) -> Ladder:
    with pytest.MonkeyPatch.context() as patch:  # no table for alphabeta:2's leaves, as in every test
        patch.setenv("MANCALA_ENVS_TABLES", str(tmp_path_factory.mktemp("no-tables")))
        return build_ladder("kalah", ANCHORS, games_per_pair=40, seed=0, workers=1, **TINY)


# --- the fits ------------------------------------------------------------------------------------------------------
def test_fixed_rating_of_a_75_percent_score_is_ln_3_units_with_the_observed_information() -> None:
    fitted = fit_fixed_rating([0.0], [30], [40], prior_draws=0)
    assert fitted.elo == pytest.approx(ELO_PER_UNIT * math.log(3), abs=1e-9)
    assert fitted.se == pytest.approx(ELO_PER_UNIT / math.sqrt(40 * 0.75 * 0.25), abs=1e-9)
    low, high = fitted.interval
    assert (low + high) / 2 == pytest.approx(fitted.elo) and high - low == pytest.approx(2 * 1.959964 * fitted.se)


def test_fixed_rating_recovers_the_rating_that_made_the_scores() -> None:
    opponents = np.array([-200.0, 0.0, 150.0, 400.0])
    games = np.array([1000.0, 800.0, 600.0, 1000.0])
    expected = 1 / (1 + np.exp(-(120.0 - opponents) / ELO_PER_UNIT))
    fitted = fit_fixed_rating(opponents, games * expected, games, prior_draws=0)
    assert fitted.elo == pytest.approx(120.0, abs=1e-7)
    information = np.sum(games * expected * (1 - expected))
    assert fitted.se == pytest.approx(ELO_PER_UNIT / math.sqrt(information), rel=1e-9)


def test_fixed_rating_between_two_symmetric_opponents_is_their_middle() -> None:
    assert fit_fixed_rating([100, -100], [20, 20], [40, 40], prior_draws=0).elo == pytest.approx(0.0, abs=1e-9)
    # prior draws pull an unbeaten agent back to a finite rating; without them it is refused
    assert math.isfinite(fit_fixed_rating([0.0], [40], [40]).elo)
    with pytest.raises(ValueError, match="maximum-likelihood rating is infinite; use prior_draws > 0"):
        fit_fixed_rating([0.0], [40], [40], prior_draws=0)


def test_fixed_rating_adds_the_opponents_covariance_by_the_delta_method() -> None:
    alone = fit_fixed_rating([0.0], [30], [40], prior_draws=0)
    with_anchor = fit_fixed_rating([0.0], [30], [40], prior_draws=0, covariance=[[50.0**2]])
    assert with_anchor.elo == alone.elo
    assert with_anchor.se == pytest.approx(math.sqrt(alone.se**2 + 50.0**2), rel=1e-12)


def test_pinned_ratings_hold_the_pin_at_zero_and_keep_every_difference() -> None:
    points = [[0, 30, 35], [10, 0, 24], [5, 16, 0]]
    games = [[0, 40, 40], [40, 0, 40], [40, 40, 0]]
    centred = fit_ratings(points, games, ["random", "greedy", "x"])
    pinned = fit_ratings(points, games, ["random", "greedy", "x"], pin="random")
    assert pinned.pinned == "random" and pinned.elo[0] == 0.0 and pinned.interval(0) == (0.0, 0.0)
    np.testing.assert_allclose(pinned.elo - pinned.elo[0], centred.elo - centred.elo[0], atol=1e-9)
    for other in (1, 2):  # a pinned rating's interval is its difference to the pin's
        np.testing.assert_allclose(pinned.interval(other), centred.difference(other, 0)[1:], atol=1e-9)
    with pytest.raises(ValueError, match=r"pin must be one of the agents \['random', 'greedy', 'x'\]"):
        fit_ratings(points, games, ["random", "greedy", "x"], pin="perfect")


# --- ladders -------------------------------------------------------------------------------------------------------
def test_a_ladder_is_pinned_to_random_with_every_pair_counted(tiny_ladder: Ladder) -> None:
    assert tiny_ladder.names == ANCHORS
    assert tiny_ladder.rating(PIN) == tiny_ladder.anchors[0] and tiny_ladder.anchors[0].elo == 0.0
    assert (tiny_ladder.anchors[0].low, tiny_ladder.anchors[0].high) == (0.0, 0.0)
    assert [(pair.agent, pair.opponent, pair.games) for pair in tiny_ladder.pairs] == [
        ("random", "greedy", 40),
        ("random", "alphabeta:2", 40),
        ("greedy", "alphabeta:2", 40),
    ]
    for anchor in tiny_ladder.anchors:
        assert anchor.low <= anchor.elo <= anchor.high
    assert tiny_ladder.game == "kalah_v0" and tiny_ladder.game_options == TINY
    assert tiny_ladder.config == {"pits_per_row": 3, "seeds_per_pit": 3, "empty_capture": False, "max_plies": 1000}
    assert tiny_ladder.command == (
        "mancala-envs ladder --build --game kalah --games-per-pair 40 --seed 0 --anchors random greedy alphabeta:2 "
        "--option pits_per_row=3 --option seeds_per_pit=3"
    )


def test_the_ratings_are_the_round_robins_fit(tiny_ladder: Ladder) -> None:
    names = tiny_ladder.names
    points = np.zeros((3, 3))
    games = np.zeros((3, 3))
    for pair in tiny_ladder.pairs:
        i, j = names.index(pair.agent), names.index(pair.opponent)
        points[i, j], points[j, i] = pair.wins + pair.draws / 2, pair.losses + pair.draws / 2
        games[i, j] = games[j, i] = pair.games
    refit = fit_ratings(points, games, names, pin="random")
    np.testing.assert_allclose([anchor.elo for anchor in tiny_ladder.anchors], refit.elo, atol=1e-3)
    np.testing.assert_allclose(tiny_ladder.covariance, refit.covariance, atol=1e-3)


def test_a_ladder_round_trips_through_json_and_holds_no_date(tiny_ladder: Ladder, tmp_path: Path) -> None:
    first = tiny_ladder.save(tmp_path / "a.json")
    loaded = Ladder.load(first)
    assert loaded == tiny_ladder
    second = loaded.save(tmp_path / "b.json")
    assert first.read_bytes() == second.read_bytes()  # a rebuild with the same settings diffs clean
    data = json.loads(first.read_text(encoding="utf-8"))
    assert data["format"] == LADDER_FORMAT and data["version"] == 1
    assert sorted(data) == sorted(
        ["format", "version", "game", "game_options", "config", "games_per_pair", "seed", "prior_draws", "level",
         "scale", "command", "anchors", "pairs", "covariance"]
    )  # fmt: skip


def test_a_rebuild_with_the_same_seed_is_the_same_ladder(tiny_ladder: Ladder) -> None:
    assert build_ladder("kalah", ANCHORS, games_per_pair=40, seed=0, workers=1, **TINY) == tiny_ladder


def test_the_ladder_prints_highest_first_and_as_markdown(tiny_ladder: Ladder) -> None:
    text = tiny_ladder.format().splitlines()
    assert text[0] == "kalah_v0 ladder (40 games per pair, seed 0; Elo, random = 0)"
    ranked = [anchor.name for anchor in tiny_ladder.ranked()]
    assert [line.split()[0] for line in text[2:]] == ranked and ranked[-1] == "random"
    markdown = tiny_ladder.markdown().splitlines()
    assert markdown[0] == "| rank | anchor | Elo (`random` = 0) | 95% interval |"
    assert markdown[-1].startswith("3 anchors, 40 games per pair (seats alternated), seed 0: `mancala-envs ladder")
    assert markdown[1 + len(ranked)] == "| 3 | `random` | 0 | [0, 0] |"


# --- placing an agent ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("anchor", ["greedy", "alphabeta:2"])
def test_the_ladder_recovers_a_known_anchors_rating_within_its_interval(tiny_ladder: Ladder, anchor: str) -> None:
    placement = place_agent(anchor, "kalah", games_per_anchor=40, seed=1, ladder=tiny_ladder, regret=False, **TINY)
    known = tiny_ladder.rating(anchor)
    low, high = placement.interval
    assert low <= known.elo <= high
    assert known.low <= placement.elo <= known.high
    assert placement.agent == f"{anchor} (placed)"
    assert [score.anchor for score in placement.scores] == ANCHORS
    assert all(score.games == 40 for score in placement.scores)


def test_the_placement_is_the_fit_of_its_scores_with_the_anchors_held(tiny_ladder: Ladder) -> None:
    placement = place_agent("greedy", "kalah", games_per_anchor=10, seed=2, ladder=tiny_ladder, regret=False, **TINY)
    expected = fit_fixed_rating(
        [anchor.elo for anchor in tiny_ladder.anchors],
        [score.wins + score.draws / 2 for score in placement.scores],
        [score.games for score in placement.scores],
        covariance=tiny_ladder.covariance,
    )
    assert placement.rating == expected
    below, above = placement.between
    assert below is None or below.elo <= placement.elo
    assert above is None or above.elo > placement.elo
    assert placement.standing().startswith(f"greedy (placed): {placement.elo:.0f} Elo [")


def test_a_python_callable_is_placed(tiny_ladder: Ladder) -> None:
    def first_legal(game, state):
        return int(game.legal_actions(state)[0])

    placement = place_agent(first_legal, "kalah", games_per_anchor=6, ladder=tiny_ladder, regret=False, **TINY)
    assert placement.agent == "first_legal"
    assert sum(score.games for score in placement.scores) == 18
    assert ">> first_legal" in placement.ladder.format(placement)


def test_a_callable_that_returns_an_illegal_move_is_named(tiny_ladder: Ladder) -> None:
    with pytest.raises(ValueError, match=r"the agent 'nine' returned 9, which is not a legal action of the position"):
        place_agent(CallableAgent(lambda game, state: 9, name="nine"), "kalah", games_per_anchor=2,
                    ladder=tiny_ladder, regret=False, **TINY)  # fmt: skip


def test_an_agent_object_is_reseeded_for_each_game(tiny_ladder: Ladder) -> None:
    by_object = place_agent(RandomAgent(5), "kalah", games_per_anchor=8, ladder=tiny_ladder, regret=False, **TINY)
    by_name = place_agent("random", "kalah", games_per_anchor=8, ladder=tiny_ladder, regret=False, **TINY)
    assert by_object.scores == by_name.scores  # the same seeds as a name built afresh for each game


def test_the_placement_does_not_depend_on_the_workers(tiny_ladder: Ladder) -> None:
    alone = place_agent("greedy", "kalah", games_per_anchor=8, workers=1, ladder=tiny_ladder, regret=False, **TINY)
    pooled = place_agent("greedy", "kalah", games_per_anchor=8, workers=2, ladder=tiny_ladder, regret=False, **TINY)
    assert pooled.scores == alone.scores and pooled.rating == alone.rating


def test_the_regret_is_measured_where_the_game_is_solved(
    tiny_ladder: Ladder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MANCALA_ENVS_TABLES", str(tmp_path))  # the whole 18-seed table is built there
    assert solved_cheaply(make_game("kalah_v0", **TINY))
    greedy = place_agent("greedy", "kalah", games_per_anchor=4, ladder=tiny_ladder, **TINY)
    assert greedy.regret is not None and greedy.regret["games"] == 12 and greedy.regret["decisions"] > 0
    assert (
        greedy.regret["mean_regret"] > 0 and greedy.regret_note == "against random, greedy, alphabeta:2, 4 games each"
    )
    assert "Regret against perfect play: " in greedy.format()
    perfect = place_agent(PERFECT_ANCHOR, "kalah", games_per_anchor=4, ladder=tiny_ladder, **TINY)
    assert perfect.regret is not None and perfect.regret["mean_regret"] == 0.0
    assert perfect.regret["optimal_move_rate"] == 1.0


def test_no_regret_where_the_game_is_not_solved() -> None:
    ladder = build_ladder("ouril", ["random", "greedy"], games_per_pair=2, workers=1)
    placement = place_agent("greedy", "ouril", games_per_anchor=2, ladder=ladder)
    assert placement.regret is None and placement.regret_note == "ouril is not solved here, so there is no exact regret"


def test_the_placement_writes_json(tiny_ladder: Ladder, tmp_path: Path) -> None:
    placement = place_agent("greedy", "kalah", games_per_anchor=2, ladder=tiny_ladder, regret=False, **TINY)
    data = json.loads(placement.to_json(tmp_path / "p.json").read_text(encoding="utf-8"))
    assert data["agent"] == "greedy (placed)" and data["elo"] == placement.elo
    assert (data["elo_low"], data["elo_high"]) == placement.interval
    assert [score["anchor"] for score in data["scores"]] == ANCHORS
    assert Ladder.from_dict(data["ladder"]) == tiny_ladder


# --- anchors and the shipped ladders ---------------------------------------------------------------------------------
def test_the_anchors_follow_the_games_properties() -> None:
    modiar = ladder_anchors("modiar")
    assert modiar[0] == PIN and modiar[-1] == PERFECT_ANCHOR
    assert {"greedy", "alphabeta:2", "alphabeta:4", "alphabeta:6", "mcts:400", "pretrained"} <= set(modiar)
    assert PERFECT_ANCHOR not in ladder_anchors("ouril")  # its whole table is far too large
    assert "pretrained" not in ladder_anchors("kalah", **TINY)  # the shipped weights are of the 6-pit game
    assert "pretrained" in ladder_anchors("kalah")


def test_the_strong_anchor_is_listed_once_the_agent_exists() -> None:
    from mancala_envs.agents import make_agent

    try:
        make_agent(STRONG_ANCHOR, seed=0)
    except ValueError:
        assert STRONG_ANCHOR not in ladder_anchors("ouril")
    else:
        assert STRONG_ANCHOR in ladder_anchors("ouril")


def test_the_shipped_modiar_ladder_loads_and_rates_every_anchor() -> None:
    ladder = load_shipped_ladder("modiar")
    assert ladder.game == "modiar_v0" and ladder.game_options == {}
    assert ladder.rating(PIN).elo == 0.0 and PERFECT_ANCHOR in ladder.names
    assert ladder.rating(PERFECT_ANCHOR).elo > ladder.rating("greedy").elo > 0
    assert ladder.command.startswith("mancala-envs ladder --build --game modiar ")
