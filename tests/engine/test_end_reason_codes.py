"""A game's own end reasons are declared by name and numbered by one allocator (``engine.ending.game_end_reasons``)."""

from __future__ import annotations

import pytest

from mancala_envs.engine.ending import end_reason_code, game_end_reasons
from mancala_envs.engine.state import END_REASON_NAMES, FIRST_GAME_END_REASON
from mancala_envs.games import game_classes


def test_codes_follow_the_declared_order_from_the_first_game_code() -> None:
    reasons = game_end_reasons("max_rounds", "cannot_refill")
    assert FIRST_GAME_END_REASON == 10
    assert reasons == {10: "max_rounds", 11: "cannot_refill"}
    assert list(reasons.values()) == ["max_rounds", "cannot_refill"]
    assert end_reason_code(reasons, "cannot_refill") == 11
    assert game_end_reasons() == {}


@pytest.mark.parametrize("game_class", game_classes(), ids=lambda cls: cls.name)
def test_every_game_takes_its_codes_from_the_allocator(game_class: type) -> None:
    # No game picks a number by hand: its codes are the allocator's for its names, in their order.
    assert game_class.end_reasons == game_end_reasons(*game_class.end_reasons.values())
    shared = {name for name in END_REASON_NAMES.values() if name is not None}
    assert not shared & set(game_class.end_reasons.values())


def test_the_games_own_codes() -> None:
    by_name = {cls.name: cls.end_reasons for cls in game_classes()}
    assert by_name["rio_kadalis"] == {10: "max_rounds", 11: "cannot_refill"}
    assert by_name["omweso"] == {
        10: "akawumbi",
        11: "emitwe_ebiri",
        12: "front_row_clear",
        13: "akakyala",
        14: "max_turns",
    }
    assert by_name["kalah"] == {10: "row_empty"}
    assert by_name["ouril"] == by_name["urim"] == by_name["modiar"] == {}


def test_a_name_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match=r"end reason 'row_empty' is declared twice; declare each reason once\."):
        game_end_reasons("row_empty", "max_turns", "row_empty")


def test_a_shared_reason_is_refused_with_its_code() -> None:
    with pytest.raises(
        ValueError,
        match=r"end reason 'repetition' is one every game shares \(code 4\); end the game with that shared code",
    ):
        game_end_reasons("akawumbi", "repetition")


@pytest.mark.parametrize("name", ["Row_Empty", "row empty", "", "2nd_try"])
def test_a_name_that_is_not_a_lower_case_identifier_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match=r"is not a lower-case identifier; name it like 'row_empty'\."):
        game_end_reasons(name)


def test_an_unknown_name_lists_the_declared_ones() -> None:
    reasons = game_end_reasons("max_rounds", "cannot_refill")
    with pytest.raises(ValueError, match=r"no end reason is called 'max_round'; the declared ones are "):
        end_reason_code(reasons, "max_round")
    with pytest.raises(ValueError, match=r"\['cannot_refill', 'max_rounds'\]"):
        end_reason_code(reasons, "max_round")
