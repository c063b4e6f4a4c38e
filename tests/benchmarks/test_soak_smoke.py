"""Smoke tests of ``benchmarks/soak.py``: a quick soak runs clean and writes complete JSON, and the
compiled checker does catch broken positions.

The quick run plays a few hundred games per default config and 60 per variant (a few seconds once the
checker is in numba's cache; compiling its copy for every game into an empty cache takes about 80 s on 2
cores). Nothing is timed here.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from mancala_envs.engine.state import BOARD, LEGAL, STORE
from mancala_envs.envs.registration import VARIANTS
from mancala_envs.games import game_classes
from mancala_envs.games.kalah import Kalah, KalahConfig
from mancala_envs.games.modiar import Modiar
from mancala_envs.games.omweso import Omweso, OmwesoConfig
from mancala_envs.games.omweso.omweso_rules import HAND
from mancala_envs.games.ouril import Ouril
from mancala_envs.games.rio_kadalis import RioKadalis, RioKadalisConfig
from mancala_envs.games.urim import Urim, UrimConfig

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "soak.py"

pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"),
    reason="the soak is compiled code; its quick run would take many minutes as plain Python",
)
DEFAULT_NAMES = {f"{cls.name}_v{cls.version}" for cls in game_classes()}
CONFIG_FIELDS = (
    "variant",
    "kwargs",
    "default_config",
    "is_match",
    "games",
    "games_requested",
    "plies",
    "turns",
    "full_check_games",
    "plies_fully_checked",
    "aborted_games",
    "longest_episode_plies",
    "max_episode_plies",
    "end_reasons",
    "wall_s",
    "cpu_s",
    "games_per_s",
    "violations",
    "violations_total",
    "first_violations",
)


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("soak", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # the soak: about 3 minutes on a cold cache (it compiles its checker for every game)
def test_quick_run_is_clean_and_writes_every_field(tmp_path: Path, soak: ModuleType) -> None:
    out = tmp_path / "soak.json"
    command = [sys.executable, str(SCRIPT), "--quick", "--seed", "3", "--json", str(out)]
    child = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=dict(os.environ), check=False
    )
    assert child.returncode == 0, f"exit {child.returncode}\n{child.stdout[-3000:]}\n{child.stderr[-3000:]}"
    assert "violations" in child.stdout and "omweso_v0" in child.stdout
    results = json.loads(out.read_text(encoding="utf-8"))

    assert results["ok"] is True and results["violations_total"] == 0
    settings = results["settings"]
    assert settings["quick"] is True and settings["seed"] == 3 and settings["workers"] == 2
    assert settings["games"] == soak.QUICK_SIZES["games"]
    for field in ("cpu_count", "python", "numpy", "numba"):
        assert results["machine"][field], f"machine.{field} is missing"
    assert "MATCH/RESERVE" in results["checks_skipped"]

    configs = results["configs"]
    expected = DEFAULT_NAMES | {v.id for v in VARIANTS if v.kwargs}
    assert set(configs) == expected
    for name, s in configs.items():
        for field in CONFIG_FIELDS:
            assert field in s, f"{name}: {field} is missing"
        wanted = settings["games"] if name in DEFAULT_NAMES else settings["variant_games"]
        assert s["default_config"] == (name in DEFAULT_NAMES)
        assert s["games"] == s["games_requested"] == wanted, name
        assert s["violations_total"] == 0 and s["first_violations"] == [] and s["aborted_games"] == 0, name
        assert set(s["violations"]) == set(soak.KINDS) and not any(s["violations"].values()), name
        assert s["plies"] >= s["games"], name
        assert 0 < s["plies_fully_checked"] <= s["plies"], name
        assert 0 < s["longest_episode_plies"] <= s["max_episode_plies"], name
        assert sum(s["end_reasons"].values()) == s["games"], name
        assert s["wall_s"] > 0 and s["cpu_s"] > 0, name
        if "omweso" in name:
            assert 0 < s["turns"] <= s["plies"], name
        else:
            assert s["turns"] is None, name
        if s["is_match"]:
            assert s["games_in_matches"] >= s["games"], name
    # The first block of games is fully checked on every ply: all of them, in a quick run's defaults.
    assert configs["modiar_v0"]["full_check_games"] == soak.QUICK_SIZES["full_games"]


def _state(game) -> np.ndarray:
    return game.new_state(0)


OPENINGS = {
    "ouril": Ouril(),
    "urim": Urim(),
    "modiar": Modiar(),
    "rio_kadalis": RioKadalis(),
    "omweso": Omweso(),
    "omweso_placement": Omweso(OmwesoConfig(setup="placement")),
    "urim_match": Urim(UrimConfig(match_target=10)),
    "rio_kadalis_match": RioKadalis(RioKadalisConfig(match=True)),
    "kalah": Kalah(),
    "kalah_empty_capture": Kalah(KalahConfig(empty_capture=True)),
}


@pytest.mark.parametrize("game", list(OPENINGS.values()), ids=list(OPENINGS))
def test_opening_positions_pass(soak: ModuleType, game) -> None:
    assert soak.check_state(game, _state(game)) is None


def test_tampered_board_breaks_seed_conservation(soak: ModuleType) -> None:
    state = _state(Ouril())
    state[BOARD + 3] += 1
    assert soak.check_state(Ouril(), state) == ("seed_conservation", 49, 48, 0)

    state = _state(Omweso())
    state[BOARD] -= 1  # a seed vanished from an outer pit
    assert soak.check_state(Omweso(), state)[:3] == ("seed_conservation", 63, 64)
    state[HAND] = 1  # ... unless it is in the mover's hand
    state[LEGAL] = Omweso().legal_bits(state)  # pit 0 now holds 3: the three-seed special is legal
    assert soak.check_state(Omweso(), state) is None

    game = RioKadalis(RioKadalisConfig(match=True))
    state = _state(game)
    state[BOARD] -= 4
    state[STORE] += 4  # moved, not lost
    state[LEGAL] = game.legal_bits(state)
    assert soak.check_state(game, state) is None


def test_negative_pit_is_reported(soak: ModuleType) -> None:
    state = _state(Modiar())
    state[BOARD] = -1
    state[BOARD + 1] += 8  # the total is right; the count is not
    assert soak.check_state(Modiar(), state)[:2] == ("negative_count", BOARD)


def test_wrong_mask_is_reported(soak: ModuleType) -> None:
    state = _state(Ouril())
    state[LEGAL] &= ~1
    assert soak.check_state(Ouril(), state)[0] == "legal_mismatch"
    state[LEGAL] = 0
    assert soak.check_state(Ouril(), state)[0] == "bad_mask"


def test_observation_outside_its_bounds_is_reported(soak: ModuleType) -> None:
    target = soak.target_from_game(Ouril())
    high = target.high.copy()
    high[0] = 3  # the opening puts 4 seeds in every pit
    state = _state(Ouril())
    observation = np.zeros(target.low.size, np.int32)
    mask = np.zeros(target.n_actions, np.int8)
    kind, index, value, player = soak.compiled_for(target.game, soak.check_position)(
        state,
        target.params,
        target.family,
        target.n_pits,
        target.n_actions,
        target.total_seeds,
        target.max_episode_plies,
        target.is_match,
        target.low,
        high,
        target.match_points_high,
        target.reserve_high,
        observation,
        mask,
    )
    assert (soak.KINDS[kind], index, value, player) == ("observation_bounds", 0, 4, 0)


def test_soak_records_violations_with_their_game(soak: ModuleType) -> None:
    """A checker told the wrong seed total flags every game at its opening, with game index and seed."""
    target = dataclasses.replace(soak.target_from_game(Ouril()), total_seeds=47)
    part = soak.run_chunk(soak.Chunk(target, 5, 4, 2, 0, 16))
    assert part["counts"][soak.KINDS.index("seed_conservation")] == 4
    assert part["stats"][soak.S_ABORTED] == 4
    rows = part["records"]
    assert [int(r[soak.R_GAME]) for r in rows] == [5, 6, 7, 8]
    assert all(int(r[soak.R_PLY]) == 0 for r in rows)
    assert [int(r[soak.R_SEED]) for r in rows] == [soak.game_seed(2, g) for g in range(5, 9)]
    record = soak._violation_record(target, rows[0], 2)
    assert record["kind"] == "seed_conservation" and record["replay"].endswith("--replay ouril_v0:5 --seed 2")


def test_games_do_not_depend_on_the_chunking(soak: ModuleType) -> None:
    target = soak.target_from_game(Omweso())
    whole = soak.run_chunk(soak.Chunk(target, 0, 12, 7, 0, 4))
    halves = [soak.run_chunk(soak.Chunk(target, first, 6, 7, 0, 4)) for first in (0, 6)]
    assert whole["stats"][soak.S_PLIES] == sum(h["stats"][soak.S_PLIES] for h in halves)
    assert whole["stats"][soak.S_TURNS] == sum(h["stats"][soak.S_TURNS] for h in halves)
    assert np.array_equal(whole["end_reasons"], sum(h["end_reasons"] for h in halves))


def test_replay_plays_the_same_game(soak: ModuleType) -> None:
    first = soak.replay("modiar_v0", 11, seed=4)
    assert first == soak.replay("modiar_v0", 11, seed=4)
    assert first["violations"] == [] and first["first_player"] == 1
    assert len(first["actions"]) == first["plies"] > 0
    part = soak.run_chunk(soak.Chunk(soak.target_from_game(Modiar()), 11, 1, 4, 0, 16))
    assert part["stats"][soak.S_PLIES] == first["plies"]
    with pytest.raises(ValueError, match="unknown config"):
        soak.replay("no_such_game_v0", 0)
