"""Reliability soak: millions of uniformly random games, every ply checked in compiled code.

For every game's default config (``ouril_v0``, ``urim_v0``, ``modiar_v0``,
``rio_kadalis_v0``, ``omweso_v0``, ``kalah_v0``: 1,000,000 games each by default) and for
every other named variant of :data:`mancala_envs.envs.registration.VARIANTS`
(100,000 episodes each by default), random legal games are played in compiled
code and the following are checked after **every** ply (and on the opening
position):

- **seed conservation**: two-row games, board + the two ``STORE`` slots (+ the
  two ``RESERVE`` slots, Rio Kadalis) equals the config's seed total; Omweso,
  board + ``omweso.HAND`` equals 64 once the placement phase is over, and during
  placement the board holds exactly the seeds placed so far (one per ply of the
  current game, at most ``placement_cap`` per pit and 32 per side);
- **counts**: no pit, store, reserve or hand below zero; no Urim pit above its
  capacity;
- **the mask**: while the game runs ``state[LEGAL]`` is non-zero, has no bit at
  or above ``n_actions`` and equals the game's ``legal_bits`` recomputed from
  the state; once it is over ``LEGAL`` is 0;
- **refusals**: every action outside the mask (and -1 and ``n_actions``) makes
  ``step`` return ``ILLEGAL`` and leaves the state unchanged (header, board,
  game slots and the used part of the repetition history are compared with a
  copy taken before); after the episode ends every action returns
  ``GAME_OVER``, state unchanged;
- **acceptance** (the *full check*, ``n_actions`` extra steps): every action in
  the mask is played on a copy; ``step`` must return ``OK`` and the position
  reached must pass every check above. Done on every ply of the first
  ``--full-games`` games of each default config (10,000; a variant gets the
  same share of its games, 1,000 of 100,000), then on one ply in
  ``--full-every`` (16; ply ``p`` of game ``g`` when ``(p + g) % full_every == 0``);
- **termination**: an episode ends within ``game.max_episode_plies`` plies, the
  ``PLY`` counter never exceeds that bound, a running two-row game has
  ``PLY < max_plies`` and a running Omweso game ``TURN < max_turns``;
- **observation**: both players' observations (the game's compiled
  ``observe``) lie within
  ``game.observation_bounds()`` and its mask equals the ``LEGAL`` bits for the
  player to move (all zero for the other player, and once the game is over).
  The match-mode entries that the Python side appends (match points, Rio
  Kadalis reserves) are plain copies of the state's ``MATCH`` and ``RESERVE``
  slots, so those slots are checked against the same bounds; the closed-pit
  flags (a bit each) and Modiar's ``first_move`` flag (0 or 1) are not.

Each game ``g`` has its own xorshift generator (:mod:`mancala_envs.engine.prng`),
seeded from ``game_seed(seed, g) = (seed * 0x9E3779B9 + g) mod 2**32``, and
draws its moves with :func:`mancala_envs.algorithms.playouts.legal_action_at` of a uniform
draw, so a single game can be replayed alone (``--replay NAME:GAME``), whatever
the chunking. A game stops at its first violating ply (counted in ``aborted``).
The games run in chunks on ``--workers`` spawned processes (default 2).

The checker is written once, as per-game templates
(:mod:`mancala_envs.engine.kernels`): :func:`compiled_for` compiles its copy for
one game, whose rules it calls directly. The copies are cached under
``benchmarks/__pycache__/soak-<hash>``, the hash taken over every source file of
``mancala_envs`` (numba would otherwise keep running the game code it embedded
when it was first compiled).

Usage::

    python benchmarks/soak.py                     # 1M games per game, 100k per variant: ~25 min on 2 cores
    python benchmarks/soak.py --quick             # a few hundred games per config, under a minute
    python benchmarks/soak.py --games 200000 --variant-games 20000 --full-every 8 --seed 1
    python benchmarks/soak.py --replay omweso_v0:4711 --seed 0   # one game again, fully checked

The table goes to stdout, the JSON to ``benchmarks/results/soak.json`` unless
``--json`` says otherwise. The exit status is 1 if any check failed, else 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_machine import machine_info  # a sibling script module

import mancala_envs
from mancala_envs.algorithms.playouts import legal_action_at
from mancala_envs.engine.kernels import game_legal_bits, game_observe, game_reset, game_step, per_game
from mancala_envs.engine.prng import MASK32, uniform
from mancala_envs.engine.state import (
    BOARD,
    END_ENDLESS_MOVE,
    END_REASON,
    END_REASON_NAMES,
    GAME_OVER,
    GAMES_PLAYED,
    HISTORY_LEN,
    ILLEGAL,
    LEGAL,
    MATCH,
    OK,
    PLAYER,
    PLY,
    RUNNING,
    STATUS,
    STORE,
    TRUNCATED,
    TURN,
    WINNER,
)
from mancala_envs.envs.registration import VARIANTS, EnvVariant, make_game
from mancala_envs.games import game_classes
from mancala_envs.games.game import Game
from mancala_envs.games.omweso import omweso_rules as omweso
from mancala_envs.games.rio_kadalis import rio_kadalis_rules as rio_kadalis
from mancala_envs.games.two_row_family.two_row_rules import MAX_PLIES
from mancala_envs.games.urim import urim_rules as urim

__all__ = [
    "DEFAULT_GAMES",
    "DEFAULT_JSON",
    "DEFAULT_VARIANT_GAMES",
    "KINDS",
    "Args",
    "Chunk",
    "SoakTarget",
    "check_position",
    "check_state",
    "compiled_for",
    "format_table",
    "full_games_for",
    "game_seed",
    "main",
    "replay",
    "run_all",
    "run_chunk",
    "soak_games",
    "soak_target",
    "soak_targets",
    "target_from_game",
]

DEFAULT_GAMES = 1_000_000
DEFAULT_VARIANT_GAMES = 100_000
DEFAULT_FULL_GAMES = 10_000
DEFAULT_FULL_EVERY = 16
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "soak.json"
#: ``--quick``: games per default config, per variant, and fully checked games.
QUICK_SIZES = {"games": 300, "variant_games": 60, "full_games": 100}
#: Violation records kept per chunk and reported per config.
MAX_RECORDS = 10
#: Moves recorded by ``--replay``.
MAX_REPLAY_ACTIONS = 100_000

# --- violation kinds (the index is the code stored in the records) -------------------------------
SEED_CONSERVATION = 0  # a: seeds counted, b: expected
NEGATIVE_COUNT = 1  # a: state slot, b: value
PIT_CAPACITY = 2  # a: state slot, b: value (Urim capacity; Omweso placement cap or 32 per side)
LEGAL_MISMATCH = 3  # a: state[LEGAL], b: legal_bits recomputed (-1: the game is over)
BAD_MASK = 4  # a: state[LEGAL], b: n_actions (empty while running, or a bit out of range)
ILLEGAL_ACCEPTED = 5  # a: action outside the mask, b: step's return code
REFUSAL_CHANGED_STATE = 6  # a: refused action (-2 if not found again), b: first changed slot
LEGAL_REFUSED = 7  # a: action in the mask, b: step's return code
PLY_BOUND = 8  # a: counter value, b: bound, c: which counter (PLY_BOUND_* below)
OBSERVATION_BOUNDS = 9  # a: observation index, b: value, c: player
OBSERVATION_MASK = 10  # a: action, b: mask value, c: player
BAD_STATUS = 11  # a: state slot (STATUS, PLAYER or WINNER), b: value
GAME_OVER_NOT_REFUSED = 12  # a: action, b: step's return code (or -1: state changed, c: slot)
KINDS: tuple[str, ...] = (
    "seed_conservation",
    "negative_count",
    "pit_capacity",
    "legal_mismatch",
    "bad_mask",
    "illegal_accepted",
    "refusal_changed_state",
    "legal_refused",
    "ply_bound",
    "observation_bounds",
    "observation_mask",
    "bad_status",
    "game_over_not_refused",
)
# Which counter broke PLY_BOUND (detail c).
PLY_BOUND_EPISODE = 0  # the episode did not end within max_episode_plies
PLY_BOUND_PLY_SLOT = 1  # state[PLY] above max_episode_plies
PLY_BOUND_GAME_CAP = 2  # a running two-row game at or past max_plies (or a finished one past it)
PLY_BOUND_TURN_CAP = 3  # a running Omweso game at or past max_turns (or a finished one past it)
PLY_BOUND_COUNTERS = ("episode_plies", "ply_slot", "game_ply_cap", "turn_cap")

# Columns of a violation record.
R_GAME, R_PLY, R_KIND, R_A, R_B, R_C, R_VIA, R_SEED = range(8)
RECORD_COLUMNS = 8
# Slots of the per-chunk statistics.
S_EPISODES, S_GAMES, S_PLIES, S_TURNS, S_FULL_PLIES, S_ABORTED, S_LONGEST, S_RECORDS, S_TRUNCATED = range(9)
STAT_SLOTS = 9
#: End reason codes counted: the shared ones and every game's own (``Game.end_reasons``).
N_END_REASONS = max(max(END_REASON_NAMES), *(max(cls.end_reasons, default=0) for cls in game_classes())) + 1
NO_VIOLATION = -1

# The checks that depend on the game's layout (``SoakTarget.family``): two-row games conserve board and
# stores; Urim may cap its pits; Rio Kadalis also counts its reserves; Omweso counts the hand, not stores.
FAMILY_TWO_ROW, FAMILY_URIM, FAMILY_RIO_KADALIS, FAMILY_OMWESO = range(4)
_FAMILIES = {"urim": FAMILY_URIM, "rio_kadalis": FAMILY_RIO_KADALIS, "omweso": FAMILY_OMWESO}


# --- numba's cache, keyed by the engine's sources ------------------------------------------------------
def _engine_fingerprint() -> str:
    """A hash of every source file of ``mancala_envs``.

    The cached checker embeds the machine code of the game functions it calls, and numba only
    invalidates a cache entry when the file of the cached function itself changes: without this
    key, a soak run after a change to a game module would keep testing the old rules.
    """
    package = Path(mancala_envs.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


_CACHE_ROOT = Path(numba.config.CACHE_DIR or Path(__file__).resolve().parent / "__pycache__")
#: Where this script's compiled functions are cached: one directory per version of the engine's sources.
CACHE_DIR = _CACHE_ROOT / f"soak-{_engine_fingerprint()}"


def _compiled(**options: Any) -> Any:
    """``njit(cache=True, error_model="numpy", **options)``, cached in :data:`CACHE_DIR`."""

    def decorate(function: Any) -> Any:
        previous = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = str(CACHE_DIR)  # read once, when the dispatcher picks its cache locator
        try:
            return numba.njit(cache=True, error_model="numpy", **options)(function)
        finally:
            numba.config.CACHE_DIR = previous

    return decorate


def compiled_for(game: Game, template: Any) -> Any:
    """The copy of one of this script's per-game templates compiled for ``game`` (``game.compiled``),
    cached in :data:`CACHE_DIR`."""
    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(CACHE_DIR)  # read when each copy's dispatcher picks its cache locator
    try:
        return game.compiled(template)
    finally:
        numba.config.CACHE_DIR = previous


def _prune_old_caches() -> None:
    """Deletes the caches this script left for earlier versions of the engine's sources."""
    for directory in _CACHE_ROOT.glob("soak-*"):
        if directory.is_dir() and directory != CACHE_DIR:
            shutil.rmtree(directory, ignore_errors=True)


# --- the checks (per-game templates: game_step and friends are the game's own compiled rules) ------
@_compiled()
def game_seed(seed: int, game: int) -> int:
    """The seed of game ``game``'s generator in a run seeded with ``seed``."""
    return (seed * 0x9E3779B9 + game) & 0xFFFFFFFF


@_compiled()
def _seed_words(seed_of_game: int, words: np.ndarray) -> None:
    """Seeds the xorshift generator ``words`` (four 32-bit words, not all zero) from ``seed_of_game``."""
    x = seed_of_game
    for k in range(4):
        x = (x + 0x9E3779B9) & MASK32
        z = ((x ^ (x >> 16)) * 0x45D9F3B) & MASK32  # the products stay below 2**59
        z = ((z ^ (z >> 16)) * 0x45D9F3B) & MASK32
        words[k] = z ^ (z >> 16)
    if words[0] == 0 and words[1] == 0 and words[2] == 0 and words[3] == 0:
        words[3] = 1


@_compiled()
def _live_end(state: np.ndarray, history_start: int) -> int:
    """End of the state region ``step`` may read: header, board, game slots, the used history and
    the slot the next key would go to."""
    size = state.shape[0]
    if history_start <= 0:
        return size
    length = state[HISTORY_LEN]
    if length < 0:
        return size
    return min(size, history_start + length + 1)


@_compiled()
def _first_difference(state: np.ndarray, reference: np.ndarray, end: int) -> int:
    for slot in range(end):
        if state[slot] != reference[slot]:
            return slot
    return -1


@per_game()
def check_position(
    state: np.ndarray,
    params: np.ndarray,
    family: int,
    n_pits: int,
    n_actions: int,
    total_seeds: int,
    max_episode_plies: int,
    is_match: bool,
    low: np.ndarray,
    high: np.ndarray,
    match_points_high: int,
    reserve_high: int,
    observation: np.ndarray,
    mask: np.ndarray,
) -> tuple[int, int, int, int]:
    """Checks one position; returns ``(kind, a, b, c)`` of the first violation, or ``kind == -1``.

    ``family`` is the game's ``FAMILY_*`` code; ``observation`` (size ``low.size``) and ``mask``
    (size ``n_actions``) are scratch arrays.
    """
    status = state[STATUS]
    if status != RUNNING and status != 1 and status != TRUNCATED:
        return BAD_STATUS, STATUS, status, 0
    if state[PLAYER] != 0 and state[PLAYER] != 1:
        return BAD_STATUS, PLAYER, state[PLAYER], 0
    if state[WINNER] < -1 or state[WINNER] > 1:
        return BAD_STATUS, WINNER, state[WINNER], 0
    running = status == RUNNING
    is_omweso = family == FAMILY_OMWESO
    placing = is_omweso and state[omweso.PHASE] == omweso.PHASE_PLACEMENT

    # Counts: nothing negative; Urim's pit capacity; Omweso's placement cap.
    seeds = 0
    for pit in range(n_pits):
        if state[BOARD + pit] < 0:
            return NEGATIVE_COUNT, BOARD + pit, state[BOARD + pit], 0
        seeds += state[BOARD + pit]
    for player in range(2):
        if state[STORE + player] < 0:
            return NEGATIVE_COUNT, STORE + player, state[STORE + player], 0
        if state[rio_kadalis.RESERVE + player] < 0:
            return NEGATIVE_COUNT, rio_kadalis.RESERVE + player, state[rio_kadalis.RESERVE + player], 0
    if family == FAMILY_URIM and params[urim.CAPACITY] > 0:
        for pit in range(n_pits):
            if state[BOARD + pit] > params[urim.CAPACITY]:
                return PIT_CAPACITY, BOARD + pit, state[BOARD + pit], 0
    if placing:
        for player in range(2):
            side = 0
            for k in range(omweso.RING):
                slot = BOARD + omweso.RING * player + k
                side += state[slot]
                if state[slot] > params[omweso.P_PLACEMENT_CAP]:
                    return PIT_CAPACITY, slot, state[slot], 0
            if side > omweso.SEEDS_PER_PLAYER:
                return PIT_CAPACITY, BOARD + omweso.RING * player, side, 1

    # Seed conservation.
    if is_omweso:
        if state[omweso.HAND] < 0:
            return NEGATIVE_COUNT, omweso.HAND, state[omweso.HAND], 0
        if placing:
            if seeds != state[PLY]:  # one seed per placement ply of this game
                return SEED_CONSERVATION, seeds, state[PLY], 1
        elif seeds + state[omweso.HAND] != total_seeds:
            return SEED_CONSERVATION, seeds + state[omweso.HAND], total_seeds, 0
    else:
        counted = seeds + state[STORE] + state[STORE + 1]
        if family == FAMILY_RIO_KADALIS:
            counted += state[rio_kadalis.RESERVE] + state[rio_kadalis.RESERVE + 1]
        if counted != total_seeds:
            return SEED_CONSERVATION, counted, total_seeds, 0

    # The mask.
    legal = state[LEGAL]
    if running:
        if legal == 0 or legal < 0 or (legal >> n_actions) != 0:
            return BAD_MASK, legal, n_actions, 0
        recomputed = game_legal_bits(state, params)
        if legal != recomputed:
            return LEGAL_MISMATCH, legal, recomputed, 0
    elif legal != 0:
        return LEGAL_MISMATCH, legal, -1, 0

    # Termination bounds.
    if state[PLY] > max_episode_plies or state[PLY] < 0:
        return PLY_BOUND, state[PLY], max_episode_plies, PLY_BOUND_PLY_SLOT
    if is_omweso:
        max_turns = params[omweso.P_MAX_TURNS]
        if state[TURN] > max_turns or (running and state[TURN] >= max_turns):
            return PLY_BOUND, state[TURN], max_turns, PLY_BOUND_TURN_CAP
    else:
        max_plies = params[MAX_PLIES]
        if state[PLY] > max_plies or (running and state[PLY] >= max_plies):
            return PLY_BOUND, state[PLY], max_plies, PLY_BOUND_GAME_CAP

    # Both players' observations: the compiled part within its bounds, its mask equal to LEGAL.
    size = low.shape[0]
    for player in range(2):
        game_observe(state, params, player, observation, mask)
        for i in range(size):
            if observation[i] < low[i] or observation[i] > high[i]:
                return OBSERVATION_BOUNDS, i, observation[i], player
        to_move = running and state[PLAYER] == player
        for action in range(n_actions):
            expected = (legal >> action) & 1 if to_move else 0
            if mask[action] != expected:
                return OBSERVATION_MASK, action, mask[action], player
        # The entries the Python side appends in a match are copies of these slots.
        if is_match and match_points_high >= 0:
            points = state[MATCH + player]
            if points < 0 or points > match_points_high:
                return OBSERVATION_BOUNDS, size, points, player
        if is_match and reserve_high >= 0:
            reserve = state[rio_kadalis.RESERVE + player]
            if reserve > reserve_high:
                return OBSERVATION_BOUNDS, size, reserve, player
    return NO_VIOLATION, 0, 0, 0


@_compiled(inline="always")
def _record(
    counts: np.ndarray,
    records: np.ndarray,
    stats: np.ndarray,
    game: int,
    ply: int,
    kind: int,
    a: int,
    b: int,
    c: int,
    via: int,
    seed_of_game: int,
) -> None:
    counts[kind] += 1
    row = stats[S_RECORDS]
    if row < records.shape[0]:
        records[row, R_GAME] = game
        records[row, R_PLY] = ply
        records[row, R_KIND] = kind
        records[row, R_A] = a
        records[row, R_B] = b
        records[row, R_C] = c
        records[row, R_VIA] = via
        records[row, R_SEED] = seed_of_game
        stats[S_RECORDS] = row + 1


@per_game()
def _refused_action_that_changed(
    state: np.ndarray, before: np.ndarray, end: int, params: np.ndarray, legal: int, n_actions: int
) -> int:
    """After refused actions changed the state: which one did it, replayed from the state before."""
    start = state.copy()
    start[:end] = before[:end]
    no_trace = np.empty(0, np.int64)
    for action in range(-1, n_actions + 1):
        if 0 <= action < n_actions and (legal >> action) & 1:
            continue
        attempt = start.copy()
        game_step(attempt, params, action, no_trace)
        if _first_difference(attempt, start, attempt.shape[0]) >= 0:
            return action
    return -2


@per_game()
def soak_games(
    params: np.ndarray,
    family: int,
    state_size: int,
    n_pits: int,
    n_actions: int,
    total_seeds: int,
    max_episode_plies: int,
    history_start: int,
    is_match: bool,
    low: np.ndarray,
    high: np.ndarray,
    match_points_high: int,
    reserve_high: int,
    first_game: int,
    n_games: int,
    seed: int,
    full_games: int,
    full_every: int,
    counts: np.ndarray,
    records: np.ndarray,
    stats: np.ndarray,
    end_reasons: np.ndarray,
    actions_out: np.ndarray,
) -> None:
    """Plays games ``first_game .. first_game + n_games - 1`` of random legal moves, checking every ply.

    Args:
        params: The config array (``Game.params``).
        family: The game's ``FAMILY_*`` code (which layout checks apply).
        state_size: Length of the state array.
        n_pits: Board slots.
        n_actions: Size of the action space.
        total_seeds: Seeds of the config.
        max_episode_plies: ``Game.max_episode_plies``.
        history_start: First state slot of the repetition history (0: none).
        is_match: Whether an episode is a match.
        low: Lower bounds of the compiled part of the observation.
        high: Upper bounds of the compiled part of the observation.
        match_points_high: Bound of the observed match points (-1: none observed).
        reserve_high: Bound of the observed reserves (-1: none observed).
        first_game: Index of the first game (it picks the seed and the first player).
        n_games: Games (episodes) to play.
        seed: Run seed; game ``g`` uses :func:`game_seed` ``(seed, g)``.
        full_games: Games below this index get the full check on every ply.
        full_every: After them, the full check runs when ``(ply + game) % full_every == 0``
            (0: never).
        counts: Violations by kind (added to).
        records: The first violations, one row each (``R_*`` columns).
        stats: Totals (``S_*`` slots, added to).
        end_reasons: Episodes by final ``END_REASON`` (added to).
        actions_out: The moves of the first game are written here (size 0: not recorded).
    """
    state = np.zeros(state_size, np.int64)
    before = np.zeros(state_size, np.int64)
    scratch = np.zeros(state_size, np.int64)
    no_trace = np.empty(0, np.int64)
    observation = np.zeros(low.shape[0], np.int32)
    mask = np.zeros(n_actions, np.int8)
    words = np.zeros(4, np.int64)
    is_omweso = family == FAMILY_OMWESO
    for game in range(first_game, first_game + n_games):
        seed_of_game = game_seed(seed, game)
        _seed_words(seed_of_game, words)
        game_reset(state, params, game % 2)
        stats[S_EPISODES] += 1
        ply = 0
        bad = False
        kind, a, b, c = check_position(
            state,
            params,
            family,
            n_pits,
            n_actions,
            total_seeds,
            max_episode_plies,
            is_match,
            low,
            high,
            match_points_high,
            reserve_high,
            observation,
            mask,
        )
        if kind != NO_VIOLATION:
            _record(counts, records, stats, game, ply, kind, a, b, c, -1, seed_of_game)
            bad = True
        while not bad and state[STATUS] == RUNNING:
            if ply >= max_episode_plies:
                _record(
                    counts,
                    records,
                    stats,
                    game,
                    ply,
                    PLY_BOUND,
                    ply,
                    max_episode_plies,
                    PLY_BOUND_EPISODE,
                    -1,
                    seed_of_game,
                )
                bad = True
                break
            legal = state[LEGAL]
            # Every action outside the mask is refused and changes nothing.
            end = _live_end(state, history_start)
            before[:end] = state[:end]
            for action in range(-1, n_actions + 1):
                if 0 <= action < n_actions and (legal >> action) & 1:
                    continue
                code = game_step(state, params, action, no_trace)
                if code != ILLEGAL:
                    _record(counts, records, stats, game, ply, ILLEGAL_ACCEPTED, action, code, 0, -1, seed_of_game)
                    bad = True
                    break
            if bad:
                break
            changed = _first_difference(state, before, max(end, _live_end(state, history_start)))
            if changed >= 0:
                culprit = _refused_action_that_changed(state, before, end, params, legal, n_actions)
                _record(counts, records, stats, game, ply, REFUSAL_CHANGED_STATE, culprit, changed, 0, -1, seed_of_game)
                bad = True
                break
            # The full check: every action in the mask is accepted, and reaches a sound position.
            if game < full_games or (full_every > 0 and (ply + game) % full_every == 0):
                stats[S_FULL_PLIES] += 1
                for action in range(n_actions):
                    if (legal >> action) & 1 == 0:
                        continue
                    scratch[:] = state
                    code = game_step(scratch, params, action, no_trace)
                    if code != OK:
                        _record(counts, records, stats, game, ply, LEGAL_REFUSED, action, code, 0, action, seed_of_game)
                        bad = True
                        break
                    kind, a, b, c = check_position(
                        scratch,
                        params,
                        family,
                        n_pits,
                        n_actions,
                        total_seeds,
                        max_episode_plies,
                        is_match,
                        low,
                        high,
                        match_points_high,
                        reserve_high,
                        observation,
                        mask,
                    )
                    if kind != NO_VIOLATION:
                        _record(counts, records, stats, game, ply + 1, kind, a, b, c, action, seed_of_game)
                        bad = True
                        break
                if bad:
                    break
            # The random move itself.
            action = legal_action_at(legal, uniform(words))
            if game == first_game and ply < actions_out.shape[0]:
                actions_out[ply] = action
            placing = is_omweso and state[omweso.PHASE] == omweso.PHASE_PLACEMENT
            turn_before = state[TURN]
            games_before = state[GAMES_PLAYED]
            code = game_step(state, params, action, no_trace)
            ply += 1
            if code != OK:
                _record(counts, records, stats, game, ply - 1, LEGAL_REFUSED, action, code, 0, -1, seed_of_game)
                bad = True
                break
            if is_omweso and not placing:
                if state[STATUS] != RUNNING or state[GAMES_PLAYED] != games_before:
                    if state[omweso.GAME_RESULT] != END_ENDLESS_MOVE:  # an annulled turn does not complete
                        stats[S_TURNS] += 1
                else:
                    stats[S_TURNS] += state[TURN] - turn_before
            kind, a, b, c = check_position(
                state,
                params,
                family,
                n_pits,
                n_actions,
                total_seeds,
                max_episode_plies,
                is_match,
                low,
                high,
                match_points_high,
                reserve_high,
                observation,
                mask,
            )
            if kind != NO_VIOLATION:
                _record(counts, records, stats, game, ply, kind, a, b, c, -1, seed_of_game)
                bad = True
        stats[S_PLIES] += ply
        stats[S_LONGEST] = max(stats[S_LONGEST], ply)
        if bad:
            stats[S_ABORTED] += 1
            continue
        # The episode is over: every action is refused with GAME_OVER and changes nothing.
        end = _live_end(state, history_start)
        before[:end] = state[:end]
        for action in range(-1, n_actions + 1):
            code = game_step(state, params, action, no_trace)
            if code != GAME_OVER:
                _record(counts, records, stats, game, ply, GAME_OVER_NOT_REFUSED, action, code, 0, -1, seed_of_game)
                bad = True
                break
        if not bad:
            changed = _first_difference(state, before, max(end, _live_end(state, history_start)))
            if changed >= 0:
                _record(counts, records, stats, game, ply, GAME_OVER_NOT_REFUSED, -1, -1, changed, -1, seed_of_game)
                bad = True
        if bad:
            stats[S_ABORTED] += 1
            continue
        reason = state[END_REASON]
        if 0 <= reason < end_reasons.shape[0]:
            end_reasons[reason] += 1
        if state[STATUS] == TRUNCATED:
            stats[S_TRUNCATED] += 1
        stats[S_GAMES] += state[GAMES_PLAYED] if is_match else 1


# --- what is soaked --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SoakTarget:
    """One game config to soak, with everything the compiled checker needs (picklable).

    Attributes:
        name: ``"ouril_v0"`` for a game's default config, else the variant id.
        variant_id: The registry id it was built from.
        kwargs: The variant's options.
        default: Whether this is the game's default config.
        game: The game (its compiled rules run the games; :func:`compiled_for` compiles the checker for it).
        family: Which layout checks apply (``FAMILY_*``).
        params: The config array.
        state_size: Length of the state array.
        n_pits: Board slots.
        n_actions: Size of the action space.
        total_seeds: Seeds of the config.
        max_episode_plies: Most plies an episode may last.
        history_start: First state slot of the repetition history (0: none).
        is_match: Whether an episode is a match.
        low: Lower bounds of the compiled part of the observation.
        high: Upper bounds of the compiled part of the observation.
        observation_size: Size of the whole observation (compiled part plus Python extras).
        match_points_high: Bound of the observed match points (-1: not observed).
        reserve_high: Bound of the observed reserves (-1: not observed).
    """

    name: str
    variant_id: str
    kwargs: dict[str, Any]
    default: bool
    game: Game
    family: int
    params: np.ndarray
    state_size: int
    n_pits: int
    n_actions: int
    total_seeds: int
    max_episode_plies: int
    history_start: int
    is_match: bool
    low: np.ndarray
    high: np.ndarray
    observation_size: int
    match_points_high: int = -1
    reserve_high: int = -1


def _compiled_observation_size(game: Game) -> int:
    # The whole observation is compiled (the game's observe writes every entry, extras included),
    # so the scratch array handed to it must have the full size.
    return game.observation_size


def target_from_game(game: Game, variant: EnvVariant | None = None) -> SoakTarget:
    """Builds the :class:`SoakTarget` of a game object (named after ``variant`` if given)."""
    kwargs = dict(variant.kwargs) if variant is not None else {}
    low, high = game.observation_bounds()
    names = game.observation_names()
    size = _compiled_observation_size(game)
    match_points_high = int(high[names.index("own_match_points")]) if "own_match_points" in names else -1
    reserve_high = int(high[names.index("own_reserve")]) if "own_reserve" in names else -1
    history_start = int(game.history_start)
    return SoakTarget(
        name=variant.id if kwargs else game.env_name,
        variant_id=variant.id if variant is not None else game.env_name,
        kwargs=kwargs,
        default=not kwargs,
        game=game,
        family=_FAMILIES.get(game.name, FAMILY_TWO_ROW),
        params=np.ascontiguousarray(game.params, dtype=np.int64),
        state_size=int(game.state_size),
        n_pits=int(game.n_pits),
        n_actions=int(game.n_actions),
        total_seeds=int(game.total_seeds),
        max_episode_plies=int(game.max_episode_plies),
        history_start=history_start,
        is_match=bool(game.is_match),
        low=np.ascontiguousarray(low[:size], dtype=np.int32),
        high=np.ascontiguousarray(high[:size], dtype=np.int32),
        observation_size=int(low.size),
        match_points_high=match_points_high,
        reserve_high=reserve_high,
    )


def soak_target(variant: EnvVariant) -> SoakTarget:
    """Builds the :class:`SoakTarget` of a registered variant from ``make_game(variant.id)``."""
    return target_from_game(make_game(variant.id), variant)


def soak_targets() -> list[SoakTarget]:
    """The default config of every game, then every other named variant, in registry order."""
    targets = [soak_target(variant) for variant in VARIANTS]
    return [t for t in targets if t.default] + [t for t in targets if not t.default]


# --- running ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chunk:
    """A block of consecutive games of one target, run by one worker."""

    target: SoakTarget
    first_game: int
    n_games: int
    seed: int
    full_games: int
    full_every: int


def run_chunk(chunk: Chunk) -> dict[str, Any]:
    """Plays one chunk in compiled code; returns its raw counts (the worker's entry point)."""
    t = chunk.target
    counts = np.zeros(len(KINDS), np.int64)
    records = np.zeros((MAX_RECORDS, RECORD_COLUMNS), np.int64)
    stats = np.zeros(STAT_SLOTS, np.int64)
    end_reasons = np.zeros(N_END_REASONS, np.int64)
    wall, cpu = time.perf_counter(), time.process_time()
    compiled_for(t.game, soak_games)(
        t.params,
        t.family,
        t.state_size,
        t.n_pits,
        t.n_actions,
        t.total_seeds,
        t.max_episode_plies,
        t.history_start,
        t.is_match,
        t.low,
        t.high,
        t.match_points_high,
        t.reserve_high,
        chunk.first_game,
        chunk.n_games,
        chunk.seed,
        chunk.full_games,
        chunk.full_every,
        counts,
        records,
        stats,
        end_reasons,
        np.empty(0, np.int64),
    )
    return {
        "counts": counts,
        "records": records[: stats[S_RECORDS]],
        "stats": stats,
        "end_reasons": end_reasons,
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "pid": os.getpid(),
    }


def _warm_up() -> None:
    """Loads (or compiles) the checker of every game once per process, outside the timed chunks."""
    first_of_each: dict[str, EnvVariant] = {}
    for variant in VARIANTS:
        first_of_each.setdefault(variant.module, variant)
    for variant in first_of_each.values():
        run_chunk(Chunk(soak_target(variant), 0, 1, 0, 1, 1))


def _ready(_: int) -> int:
    """A task that holds its worker briefly, so that every worker has started before the timing."""
    time.sleep(0.5)
    return os.getpid()


def full_games_for(target: SoakTarget, args: Args) -> int:
    """The fully checked block of a config: ``args.full_games`` for a default config, the same share of
    ``args.variant_games`` for a variant (10,000 of 1,000,000 gives 1,000 of 100,000)."""
    if target.default:
        return args.full_games
    return -(-args.full_games * args.variant_games // args.games)  # rounded up


def _chunks(target: SoakTarget, n_games: int, workers: int, seed: int, full_games: int, full_every: int) -> list[Chunk]:
    """Splits ``n_games`` into about 8 chunks per worker, so that the workers finish together."""
    n_chunks = max(1, min(n_games, 8 * workers))
    bounds = np.linspace(0, n_games, n_chunks + 1).astype(np.int64)
    return [
        Chunk(target, int(bounds[i]), int(bounds[i + 1] - bounds[i]), seed, full_games, full_every)
        for i in range(n_chunks)
        if bounds[i + 1] > bounds[i]
    ]


def _violation_record(target: SoakTarget, row: np.ndarray, seed: int) -> dict[str, Any]:
    kind = KINDS[int(row[R_KIND])]
    record = {
        "game": int(row[R_GAME]),
        "ply": int(row[R_PLY]),
        "kind": kind,
        "a": int(row[R_A]),
        "b": int(row[R_B]),
        "c": int(row[R_C]),
        "via_action": int(row[R_VIA]),
        "game_seed": int(row[R_SEED]),
        "replay": f"python benchmarks/soak.py --replay {target.name}:{int(row[R_GAME])} --seed {seed}",
    }
    if kind == "ply_bound":
        record["counter"] = PLY_BOUND_COUNTERS[int(row[R_C])]
    return record


def _summarise(
    target: SoakTarget, parts: list[dict[str, Any]], n_games: int, full_games: int, wall: float, seed: int
) -> dict[str, Any]:
    counts = sum(part["counts"] for part in parts)
    stats = sum(part["stats"] for part in parts)
    end_reasons = sum(part["end_reasons"] for part in parts)
    rows = sorted((row for part in parts for row in part["records"]), key=lambda r: (int(r[R_GAME]), int(r[R_PLY])))
    plies = int(stats[S_PLIES])
    summary: dict[str, Any] = {
        "variant": target.variant_id,
        "kwargs": target.kwargs,
        "default_config": target.default,
        "is_match": target.is_match,
        "games": int(stats[S_EPISODES]),
        "games_requested": int(n_games),
        "plies": plies,
        "turns": int(stats[S_TURNS]) if target.family == FAMILY_OMWESO else None,
        "full_check_games": full_games,
        "plies_fully_checked": int(stats[S_FULL_PLIES]),
        "full_check_share": int(stats[S_FULL_PLIES]) / max(1, plies),
        "aborted_games": int(stats[S_ABORTED]),
        "longest_episode_plies": max(int(part["stats"][S_LONGEST]) for part in parts),
        "max_episode_plies": target.max_episode_plies,
        "truncated": int(stats[S_TRUNCATED]),
        "end_reasons": {
            target.game.end_reason_names.get(code) or "none": int(n) for code, n in enumerate(end_reasons) if n
        },
        "wall_s": wall,
        "cpu_s": float(sum(part["cpu_s"] for part in parts)),
        "games_per_s": int(stats[S_EPISODES]) / wall if wall > 0 else None,
        "plies_per_s": plies / wall if wall > 0 else None,
        "violations": {kind: int(n) for kind, n in zip(KINDS, counts, strict=True)},
        "violations_total": int(counts.sum()),
        "first_violations": [_violation_record(target, row, seed) for row in rows[:MAX_RECORDS]],
        "observation_checked": f"{target.low.size} of {target.observation_size} entries compiled",
    }
    if target.is_match:
        summary["games_in_matches"] = int(stats[S_GAMES])
    return summary


@dataclass
class Args:
    """Options of the soak run."""

    games: int = DEFAULT_GAMES
    """Games per default config (one per game)."""
    variant_games: int = DEFAULT_VARIANT_GAMES
    """Episodes per other named variant (a match variant's episode is a whole match)."""
    full_games: int = DEFAULT_FULL_GAMES
    """The first games of each default config whose every ply gets the full (acceptance) check;
    a variant gets the same share of its games (see :func:`full_games_for`)."""
    full_every: int = DEFAULT_FULL_EVERY
    """After them, one ply in this many gets the full check (0: none)."""
    seed: int = 0
    """Run seed; game ``g`` seeds its generator with ``game_seed(seed, g)``."""
    workers: int = 2
    """Worker processes (spawned)."""
    quick: bool = False
    """Tiny sizes for the smoke test (overrides games, variant_games and full_games)."""
    only: tuple[str, ...] = ()
    """Soak only these configs (names as in the table); empty: all."""
    json: Path = DEFAULT_JSON
    """Where the JSON results are written."""


def run_all(args: Args) -> dict[str, Any]:
    """Soaks every config (or ``args.only``) and returns the JSON-ready results.

    Raises:
        ValueError: ``args.only`` names an unknown config.
    """
    targets = soak_targets()
    if args.only:
        known = {t.name for t in targets}
        unknown = sorted(set(args.only) - known)
        if unknown:
            raise ValueError(f"unknown config(s) {unknown}; choose among {sorted(known)}.")
        targets = [t for t in targets if t.name in args.only]
    started = time.perf_counter()
    results: dict[str, Any] = {
        "machine": machine_info(),
        "settings": {
            "games": args.games,
            "variant_games": args.variant_games,
            "full_games": args.full_games,
            "full_every": args.full_every,
            "seed": args.seed,
            "workers": args.workers,
            "quick": args.quick,
            "only": list(args.only),
        },
        "checks_skipped": (
            "The Python-only observation extras are not recomputed in compiled code: match points "
            "and Rio Kadalis reserves are checked through the MATCH/RESERVE slots they copy; the "
            "closed-pit flags and Modiar's first_move flag (0/1 by construction) are not checked."
        ),
        "configs": {},
    }
    _prune_old_caches()
    compile_start = time.perf_counter()
    _warm_up()  # compiles into the numba cache here, so that the workers only load it
    results["compile_or_load_s"] = time.perf_counter() - compile_start
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.workers, initializer=_warm_up) as pool:
        ready_start = time.perf_counter()
        pool.map(_ready, range(args.workers), chunksize=1)
        results["workers_ready_s"] = time.perf_counter() - ready_start
        print(HEADER, flush=True)
        for target in targets:
            n_games = args.games if target.default else args.variant_games
            full_games = full_games_for(target, args)
            chunks = _chunks(target, n_games, args.workers, args.seed, full_games, args.full_every)
            start = time.perf_counter()
            parts = pool.map(run_chunk, chunks, chunksize=1)
            wall = time.perf_counter() - start
            summary = _summarise(target, parts, n_games, full_games, wall, args.seed)
            results["configs"][target.name] = summary
            print(_row(target.name, summary), flush=True)
    results["violations_total"] = sum(s["violations_total"] for s in results["configs"].values())
    results["ok"] = results["violations_total"] == 0
    results["wall_s"] = time.perf_counter() - started
    results["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return results


# --- reporting -------------------------------------------------------------------------------------
def _count(value: float) -> str:
    if value >= 1e9:
        return f"{value / 1e9:.2f}G"
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e4:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}"


HEADER = (
    f"   {'config':<38}{'games':>8}{'plies':>9}{'turns':>9}{'full':>8}{'time s':>8}{'games/s':>9}"
    f"{'aborted':>8}  violations"
)


def _row(name: str, s: dict[str, Any]) -> str:
    turns = _count(s["turns"]) if s["turns"] is not None else ""
    broken = {kind: n for kind, n in s["violations"].items() if n}
    violations = ", ".join(f"{kind} {n}" for kind, n in broken.items()) if broken else "0"
    return (
        f"   {name:<38}{_count(s['games']):>8}{_count(s['plies']):>9}{turns:>9}{_count(s['plies_fully_checked']):>8}"
        f"{s['wall_s']:>8.1f}{_count(s['games_per_s'] or 0):>9}{s['aborted_games']:>8}  {violations}"
    )


def format_table(results: dict[str, Any]) -> str:
    """Renders the results as the plain-text summary the script prints."""
    settings, machine = results["settings"], results["machine"]
    lines = [
        "Soak: uniformly random legal games, every ply checked in compiled code",
        (
            f"  seed {settings['seed']}; full check on every ply of the first {settings['full_games']} games of "
            f"each default config (the same share of a variant's games), then 1 ply in {settings['full_every']}; "
            f"{settings['workers']} worker processes"
        ),
        (
            f"  machine: {machine['cpu_count']} CPUs, {machine['cpu_model']}, {machine['platform']}; python "
            f"{machine['python']}, numpy {machine['numpy']}, numba {machine['numba']}, mancala-envs "
            f"{machine['mancala_envs']} ({machine['git_commit']})"
        ),
        "",
        HEADER,
    ]
    lines += [_row(name, s) for name, s in results["configs"].items()]
    lines += [
        "   (games: episodes, a match counts once; turns: Omweso only; full: plies with the full acceptance check)",
    ]
    for name, s in results["configs"].items():
        if s["is_match"]:
            lines.append(f"   {name}: {s['games_in_matches']} games in {s['games']} matches")
    lines += ["", results["checks_skipped"]]
    broken = [(name, s) for name, s in results["configs"].items() if s["violations_total"]]
    if broken:
        lines += ["", "VIOLATIONS (first ones per config):"]
        for name, s in broken:
            for record in s["first_violations"]:
                lines.append(f"   {name}: {json.dumps(record)}")
    total_plies = sum(s["plies"] for s in results["configs"].values())
    total_games = sum(s["games"] for s in results["configs"].values())
    lines += [
        "",
        (
            f"{total_games} games, {total_plies} plies, {results['violations_total']} violations, "
            f"wall time {results['wall_s']:.1f} s (compile/load {results['compile_or_load_s']:.1f} s)"
        ),
    ]
    return "\n".join(lines)


def replay(name: str, game: int, seed: int = 0) -> dict[str, Any]:
    """Plays game ``game`` of config ``name`` alone, with the full check on every ply.

    Args:
        name: A config name from the table (``"ouril_v0"`` or a variant id).
        game: The game index reported with a violation.
        seed: The run's seed.

    Returns:
        ``plies``, ``actions`` (the first :data:`MAX_REPLAY_ACTIONS` moves), ``violations``
        (records as in the JSON) and ``end_reason``.

    Raises:
        ValueError: unknown config name or a negative game index.
    """
    targets = {t.name: t for t in soak_targets()}
    if name not in targets:
        raise ValueError(f"unknown config {name!r}; choose among {sorted(targets)}.")
    if game < 0:
        raise ValueError(f"game must be a non-negative index (got {game}).")
    t = targets[name]
    counts = np.zeros(len(KINDS), np.int64)
    records = np.zeros((MAX_RECORDS, RECORD_COLUMNS), np.int64)
    stats = np.zeros(STAT_SLOTS, np.int64)
    end_reasons = np.zeros(N_END_REASONS, np.int64)
    actions = np.full(min(t.max_episode_plies, MAX_REPLAY_ACTIONS), -1, np.int64)
    compiled_for(t.game, soak_games)(
        t.params,
        t.family,
        t.state_size,
        t.n_pits,
        t.n_actions,
        t.total_seeds,
        t.max_episode_plies,
        t.history_start,
        t.is_match,
        t.low,
        t.high,
        t.match_points_high,
        t.reserve_high,
        game,
        1,
        seed,
        0,
        1,
        counts,
        records,
        stats,
        end_reasons,
        actions,
    )
    plies = int(stats[S_PLIES])
    reasons = [t.game.end_reason_names.get(int(code)) for code in np.flatnonzero(end_reasons)]
    return {
        "config": name,
        "game": game,
        "seed": seed,
        "game_seed": int(game_seed(seed, game)),
        "first_player": game % 2,
        "plies": plies,
        "actions": [int(a) for a in actions[: min(plies, actions.size)]],
        "violations": [_violation_record(t, row, seed) for row in records[: stats[S_RECORDS]]],
        "end_reason": reasons[0] if reasons else None,
    }


def check_state(game: Game, state: np.ndarray) -> tuple[str, int, int, int] | None:
    """Runs the per-ply checks on one state of ``game`` (used by the tests).

    Returns:
        ``None`` if the state passes, else ``(kind, a, b, c)`` of the first violation (see ``KINDS``).
    """
    t = target_from_game(game)
    observation = np.zeros(t.low.size, np.int32)
    mask = np.zeros(t.n_actions, np.int8)
    kind, a, b, c = compiled_for(t.game, check_position)(
        np.ascontiguousarray(state, dtype=np.int64),
        t.params,
        t.family,
        t.n_pits,
        t.n_actions,
        t.total_seeds,
        t.max_episode_plies,
        t.is_match,
        t.low,
        t.high,
        t.match_points_high,
        t.reserve_high,
        observation,
        mask,
    )
    return None if kind == NO_VIOLATION else (KINDS[kind], int(a), int(b), int(c))


def parse_args(argv: list[str] | None = None) -> tuple[Args, str | None]:
    """Reads :class:`Args` (and an optional ``--replay NAME:GAME``) from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=int, default=DEFAULT_GAMES, help=f"games per default config (default {DEFAULT_GAMES:,})"
    )
    parser.add_argument(
        "--variant-games",
        type=int,
        default=DEFAULT_VARIANT_GAMES,
        help=f"episodes per other named variant (default {DEFAULT_VARIANT_GAMES:,})",
    )
    parser.add_argument(
        "--full-games",
        type=int,
        default=DEFAULT_FULL_GAMES,
        help=f"first games of each default config fully checked on every ply "
        f"(default {DEFAULT_FULL_GAMES:,}); a variant gets the same share of its games",
    )
    parser.add_argument(
        "--full-every",
        type=int,
        default=DEFAULT_FULL_EVERY,
        help=f"then the full check on 1 ply in N (default {DEFAULT_FULL_EVERY}; 0: never)",
    )
    parser.add_argument("--seed", type=int, default=0, help="run seed, 0 .. 2**31-1 (default 0)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"tiny sizes for the smoke test ({QUICK_SIZES['games']} games per default config, "
        f"{QUICK_SIZES['variant_games']} per variant)",
    )
    parser.add_argument("--only", nargs="+", default=(), metavar="NAME", help="soak only these configs")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"results file (default {DEFAULT_JSON})")
    parser.add_argument(
        "--replay", metavar="NAME:GAME", help="play one game again with the full check on every ply and print its moves"
    )
    options = parser.parse_args(argv)
    for flag, value, low in (
        ("--games", options.games, 1),
        ("--variant-games", options.variant_games, 1),
        ("--full-games", options.full_games, 0),
        ("--full-every", options.full_every, 0),
        ("--workers", options.workers, 1),
        ("--seed", options.seed, 0),
    ):
        if value < low:
            parser.error(f"{flag} must be at least {low} (got {value})")
    if options.seed >= 2**31:
        parser.error(f"--seed must be below 2**31 (got {options.seed})")
    if options.replay is not None and (":" not in options.replay or not options.replay.rsplit(":", 1)[1].isdigit()):
        parser.error(f"--replay takes NAME:GAME, e.g. omweso_v0:4711 (got {options.replay!r})")
    args = Args(
        games=options.games,
        variant_games=options.variant_games,
        full_games=options.full_games,
        full_every=options.full_every,
        seed=options.seed,
        workers=options.workers,
        quick=options.quick,
        only=tuple(options.only),
        json=options.json,
    )
    if args.quick:
        args.games = QUICK_SIZES["games"]
        args.variant_games = QUICK_SIZES["variant_games"]
        args.full_games = QUICK_SIZES["full_games"]
    return args, options.replay


def main(argv: list[str] | None = None) -> int:
    """Runs the soak (or one replay), prints the summary, writes the JSON; returns the exit status."""
    args, replay_spec = parse_args(argv)
    if replay_spec is not None:
        name, game = replay_spec.rsplit(":", 1)
        result = replay(name, int(game), args.seed)
        print(json.dumps(result, indent=1 if len(result["actions"]) < 50 else None))
        return 1 if result["violations"] else 0
    try:
        results = run_all(args)
    except ValueError as error:  # an unknown --only name
        print(f"soak.py: {error}", file=sys.stderr)
        return 2
    results["settings"]["command"] = " ".join(
        ["python", "benchmarks/soak.py", *(sys.argv[1:] if argv is None else argv)]
    )
    print()
    print(format_table(results))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"results written to {args.json}")
    return 0 if results["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
