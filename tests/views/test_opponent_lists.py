"""An opponent list holds opponents: a list or a pool inside it is refused when the pool is built (a drawn pool
would have failed at the first step: a pool does not act)."""

from __future__ import annotations

import pytest

from mancala_envs.views.opponents import OpponentPool, make_opponent


def test_a_flat_list_is_a_pool_of_its_opponents() -> None:
    pool = make_opponent(["random", "greedy"])
    assert isinstance(pool, OpponentPool)
    assert [member.name for member in pool.members] == ["random", "greedy"]


@pytest.mark.parametrize("inner", [["random"], ("greedy",)])
def test_a_list_inside_the_list_is_refused(inner: list[str] | tuple[str, ...]) -> None:
    with pytest.raises(TypeError, match=r"an opponent list holds opponents, not lists or pools .*outer list"):
        make_opponent(["random", inner])


def test_a_pool_inside_the_list_is_refused() -> None:
    with pytest.raises(TypeError, match=r"not lists or pools \(got OpponentPool\(\[AgentOpponent\(.random.\)"):
        make_opponent([make_opponent(["random", "greedy"])])
