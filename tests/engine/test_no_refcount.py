"""A ply counts no references: the compiled ``step`` of every game holds no ``NRT_incref``/``NRT_decref``.

Each game's ``step`` borrows its arguments (:func:`mancala_envs.engine.board_views.borrowed_view`) and the
grand-slam test sows on a stack scratch board (:func:`~mancala_envs.engine.board_views.stack_board`), so
numba's reference counting, an atomic add or a call per array per use, is gone from the ply. Checked in the
LLVM IR numba generates: compiled in a fresh process with an empty numba cache (cached code cannot be
inspected, and a cached callee's code is not in its caller's IR), so the check sees every function the
step calls.

Rio Kadalis's relay turns and Omweso's laps keep a heap array, the in-turn repetition memory, in the
function that plays a turn's laps (``_relay_turn_on``, ``_sow_laps``): allocating it counts references
there. Their ``step`` itself counts none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from mancala_envs.engine.board_views import STACK_BOARD_SLOTS, stack_board
from mancala_envs.engine.jit import njit
from mancala_envs.games import game_classes

GAME_NAMES = [game_class.name for game_class in game_classes()]
#: the functions (name fragments) that allocate the in-turn memory of relay turns: one heap array a turn
TURN_MEMORY_OWNERS = {"rio_kadalis": ("_relay_turn_on",), "omweso": ("_sow_laps",)}

_INSPECT = r"""
import json, re, sys
import numba
from mancala_envs.engine.kernels import STEP_SIGNATURE
from mancala_envs.games import game_classes

counts = {}
for game_class in game_classes():
    rule = game_class.step_function
    options = {k: v for k, v in rule.targetoptions.items() if k not in ("inline", "nopython", "boundscheck", "cache")}
    fresh = numba.njit(STEP_SIGNATURE, **options)(rule.py_func)
    ir = fresh.inspect_llvm(fresh.signatures[0])
    functions = {}
    for body in ir.split("\ndefine ")[1:]:
        name = re.search(r"@([\w.$\"]+)\(", body).group(1)
        if name.startswith(("_ZN7cpython", "cfunc.", "NRT_")):
            continue  # the CPython wrapper (unboxes Python arguments), a cfunc wrapper, numba's own runtime
        functions[name] = [body.count("call void @NRT_incref"), body.count("call void @NRT_decref")]
    counts[game_class.name] = functions
json.dump(counts, sys.stdout)
"""


@pytest.fixture(scope="module")
def reference_counts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[int]]]:
    """``{game: {compiled function: [NRT_incref calls, NRT_decref calls]}}`` for each game's step and its callees."""
    environment = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp("numba_cache")),
        "NUMBA_DISABLE_JIT": "0",
        "MANCALA_ENVS_QUIET": "1",
    }
    child = subprocess.run(
        [sys.executable, "-c", _INSPECT], capture_output=True, text=True, env=environment, check=False, timeout=900
    )
    assert child.returncode == 0, child.stderr[-3000:]
    return json.loads(child.stdout)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_compiled_step_counts_no_references(reference_counts, name):
    functions = reference_counts[name]
    (step,) = [function for function in functions if f"{name}_rules4step" in function]
    assert functions[step] == [0, 0]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_what_the_step_calls_counts_no_references_but_the_turn_memory(reference_counts, name):
    owners = TURN_MEMORY_OWNERS.get(name, ())
    counting = {
        function: counts
        for function, counts in reference_counts[name].items()
        if counts != [0, 0] and not any(owner in function for owner in owners)
    }
    assert counting == {}
    for owner in owners:  # the one exception: its heap array (when it goes, drop the game from the table)
        assert any(owner in function and counts != [0, 0] for function, counts in reference_counts[name].items())


def test_every_game_is_inspected(reference_counts):
    assert sorted(reference_counts) == sorted(GAME_NAMES)
    assert {"kalah", "ouril", "urim", "modiar", "rio_kadalis", "omweso"} <= set(GAME_NAMES)


@njit(error_model="numpy")
def _reversed_on_the_stack(values: np.ndarray) -> tuple[np.ndarray, int]:
    scratch = stack_board(STACK_BOARD_SLOTS)
    n = values.shape[0]
    for i in range(n):
        scratch[i] = values[n - 1 - i]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = scratch[i]
    return out, scratch.shape[0]


def test_a_stack_board_holds_what_is_written_and_has_its_slots():
    values = np.arange(STACK_BOARD_SLOTS, dtype=np.int64) * 3 - 7
    reversed_values, slots = _reversed_on_the_stack(values)
    np.testing.assert_array_equal(reversed_values, values[::-1])
    assert slots == STACK_BOARD_SLOTS == 64
    reversed_values, slots = _reversed_on_the_stack(values[:5].copy())
    np.testing.assert_array_equal(reversed_values, [5, 2, -1, -4, -7])
    assert slots == 64
