"""Each game's ``reset_state`` calls its ``legal_bits`` by symbol (issue 34, target 5: a cold start compiles
``legal_bits`` once, not again inside ``reset_state``), and resets exactly as the rules module's own."""

from __future__ import annotations

import importlib

import numba
import numpy as np
import pytest
from numba.core import sigutils

from mancala_envs.envs.registration import find_variant, game_names, make_game
from mancala_envs.games.game import reset_linking_by_symbol

GAMES = game_names()
RESET_ARGUMENTS = tuple(sigutils.normalize_signature("(int64[::1], int64[::1], int64)")[0])


@pytest.mark.parametrize("env_id", GAMES)
def test_reset_state_calls_legal_bits_by_symbol_and_resets_as_the_rules(env_id: str) -> None:
    game = make_game(env_id)
    rules = importlib.import_module(find_variant(env_id).module).GAME.reset_function.py_func.__globals__
    original = rules["reset_state"]
    linked = type(game).reset_function
    assert linked is not original and linked is game.reset_function  # one copy per class, every door
    assert linked.py_func.__qualname__ == f"reset_state[{original.py_func.__module__},legal_bits_by_symbol]"
    for first in (0, 1):
        ours, theirs = np.zeros(game.state_size, np.int64), np.zeros(game.state_size, np.int64)
        linked(ours, game.params, first)
        original.py_func(theirs, game.params, first)  # the rules as plain Python: nothing compiled twice
        np.testing.assert_array_equal(ours, theirs)
    fresh = numba.njit(linked.py_func)  # the copy's code compiled here (cached code cannot be inspected)
    fresh.compile(RESET_ARGUMENTS)
    code = fresh.inspect_llvm(RESET_ARGUMENTS)
    symbol = f"mancala_envs.rule:{original.py_func.__module__}.legal_bits"
    if "legal_bits" in original.py_func.__code__.co_names:  # called here, not through a helper
        assert f'declare i32 @"{symbol}"' in code  # called, not linked in
    defined = [line for line in code.splitlines() if line.startswith("define") and "legal_bits" in line]
    assert defined and all("legal_bits_by_symbol" in line for line in defined)  # the copies alone, no legal_bits


def test_a_reset_that_calls_no_legal_bits_is_kept() -> None:
    game = make_game("kalah_v0")
    legal_bits = game.legal_bits_function
    assert reset_linking_by_symbol(legal_bits, legal_bits) is legal_bits  # legal_bits calls no legal_bits
    assert reset_linking_by_symbol(print, legal_bits) is print  # not a dispatcher
