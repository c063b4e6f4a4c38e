"""Turn statistics of Omweso in uniformly random legal play.

An Omweso turn is one move plus every relay and re-sow lap it sets off, and it
can stop half-way at a decision point (the same player chooses between
counter-clockwise and clockwise, one more ply). This script measures, per
setup:

- **laps per turn**: mean, percentiles (nearest rank) and a bucketed
  histogram over every completed turn;
- **decision points**: per turn and per game, relay and re-sow kinds, the
  share of turns and games that meet one, the most in one turn;
- **annulments**: games ending ``endless_move``, split into the turns that
  reached the lap cap (``max_laps_per_turn``) and those stopped earlier by the
  in-turn repetition check (with their laps);
- **results**: ``end_reason`` and ``win_type`` counts, the first mover's share
  of the decided games, turns and plies per game.

The games are played in compiled code by :func:`play_counting_turns`, which
draws its first players and moves exactly as :func:`mancala_envs.envs.batch.play_random`
does (one xorshift generator per row of the batch, the rows taking turns), so
``play_counting_turns(game, n, seed)`` plays the very games that
``play_random(game, n, seed=seed)`` plays (same plies, same winners), with the
same ``batch_size``. ``benchmarks/bench_env.py`` uses it to count the turns of
its timed rollouts.

Usage::

    python benchmarks/omweso_turns.py                   # 500 games per setup, a few seconds after compiling
    python benchmarks/omweso_turns.py --games 100000    # the README's figures

The tables go to stdout, the JSON to ``benchmarks/results/omweso_turns.json``
unless ``--json`` says otherwise.
"""

from __future__ import annotations

import argparse
import inspect
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.algorithms.playouts import legal_action_at
from mancala_envs.engine.kernels import game_reset, game_step, per_game
from mancala_envs.engine.prng import new_words, uniform
from mancala_envs.engine.state import (
    END_ENDLESS_MOVE,
    END_REASON,
    LAPS,
    LEGAL,
    PLY,
    RUNNING,
    STARTER,
    STATUS,
    TURN,
    WINNER,
)
from mancala_envs.envs.batch import play_random
from mancala_envs.games.omweso import Omweso, OmwesoConfig
from mancala_envs.games.omweso import omweso_rules as omweso

__all__ = [
    "CONFIGS",
    "DEFAULT_GAMES",
    "DEFAULT_JSON",
    "LAP_BUCKETS",
    "count_turns",
    "format_tables",
    "main",
    "play_counting_turns",
    "run_all",
    "turn_stats",
]

#: The setups measured: the default config, then the two other openings.
CONFIGS: dict[str, dict[str, Any]] = {
    "outer4": {},
    "two_each": {"setup": "two_each"},
    "placement": {"setup": "placement"},
}
#: Histogram buckets of laps per turn, as inclusive ``(low, high)`` ranges; the last one is open.
LAP_BUCKETS: tuple[tuple[int, int | None], ...] = (
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 5),
    (6, 10),
    (11, 20),
    (21, 50),
    (51, 100),
    (101, 500),
    (501, None),
)
#: Percentiles of laps per turn and of turns per game.
PERCENTILES = (50, 90, 99, 99.9)
DEFAULT_GAMES = 500
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "omweso_turns.json"
#: Decision points per turn are counted exactly up to this many (more go in the last cell).
MAX_DECISIONS_COUNTED = 63
#: Rows of the batch whose games are replayed: ``play_random``'s own default.
BATCH_SIZE: int = inspect.signature(play_random).parameters["batch_size"].default

# Columns of the per-game table that play_counting_turns fills.
G_PLIES = 0  # plies of the game, placements and decision plies included
G_PLACEMENTS = 1  # placement plies
G_TURNS = 2  # completed turns (an annulled turn does not complete)
G_RELAY = 3  # relay decision points met
G_RESOW = 4  # re-sow decision points met
G_END_REASON = 5  # END_* code
G_WINNER = 6  # 0, 1, or -1 (draw, annulment)
G_STARTER = 7  # player who moved first
G_LONGEST_TURN = 8  # most laps in one completed turn
G_ANNULLED_LAPS = 9  # laps of the annulled turn (0 if the game was not annulled)
G_COLUMNS = 10


# Not cached: numba's cache records the module's import name, and this script runs both as
# ``__main__`` and loaded by path from bench_env.py and the tests. Compiling it takes a few seconds.
@per_game(cache=False)
def _play(
    params: np.ndarray,
    state_size: int,
    n_games: int,
    words: np.ndarray,
    laps_per_turn: np.ndarray,
    decisions_per_turn: np.ndarray,
    games: np.ndarray,
) -> None:
    """The games of ``mancala_envs.envs.batch.play_random`` (its ``_play_random``), counting as it goes
    (a per-game template, compiled for Omweso).

    ``words`` are the batch's generators, one row per row of the batch. Game ``g`` is played by row
    ``g % rows``, which draws the first player (``_new_game``: 1 if the draw is below 0.5, else 0),
    then one ``legal_action_at(LEGAL, uniform)`` per ply (``_play_out``), so every generator is
    consumed in the same order and the games are the same. ``laps_per_turn[n]`` counts completed
    turns of ``n`` laps, ``decisions_per_turn[d]`` completed turns with ``d`` decision points, and
    ``games`` gets one row per game (the ``G_*`` columns).
    """
    state = np.zeros(state_size, np.int64)
    no_trace = np.empty(0, np.int64)
    last_cell = decisions_per_turn.size - 1
    n_rows = words.shape[0]
    for game in range(n_games):
        generator = words[game % n_rows]
        first = 1 if uniform(generator) < 0.5 else 0
        state[:] = 0
        game_reset(state, params, first)
        row = games[game]
        decisions = 0
        while state[STATUS] == RUNNING:
            placing = state[omweso.PHASE] == omweso.PHASE_PLACEMENT
            turns_before = state[TURN]
            action = legal_action_at(state[LEGAL], uniform(generator))
            game_step(state, params, action, no_trace)
            if placing:
                row[G_PLACEMENTS] += 1
            elif state[STATUS] == RUNNING and state[omweso.PENDING] != omweso.PENDING_NONE:
                decisions += 1
                if state[omweso.PENDING] == omweso.PENDING_RELAY:
                    row[G_RELAY] += 1
                else:
                    row[G_RESOW] += 1
            elif state[TURN] > turns_before:
                laps = state[LAPS]
                laps_per_turn[laps] += 1
                decisions_per_turn[min(decisions, last_cell)] += 1
                row[G_LONGEST_TURN] = max(row[G_LONGEST_TURN], laps)
                decisions = 0
            elif state[END_REASON] == END_ENDLESS_MOVE:
                row[G_ANNULLED_LAPS] = state[LAPS]
        row[G_PLIES] = state[PLY]
        row[G_TURNS] = state[TURN]
        row[G_END_REASON] = state[END_REASON]
        row[G_WINNER] = state[WINNER]
        row[G_STARTER] = state[STARTER]


def _check_game(game: Omweso) -> None:
    if not isinstance(game, Omweso):
        raise TypeError(f"game must be an Omweso game such as Omweso() (got {type(game).__name__}).")
    if game.is_match:
        raise ValueError("turn statistics are per game: use a config without match_target.")


def play_counting_turns(
    game: Omweso, n_games: int, seed: int = 0, batch_size: int = BATCH_SIZE
) -> dict[str, np.ndarray]:
    """Plays the games of ``play_random(game, n_games, seed=seed, batch_size=batch_size)`` and returns
    the raw counts.

    Args:
        game: An Omweso game (not a match).
        n_games: Games to play.
        seed: Seed of the batch's generators.
        batch_size: Rows of the batch (``play_random``'s default unless given).

    Returns:
        ``laps_per_turn`` (index: laps, value: completed turns), ``decisions_per_turn``
        (index: decision points in a completed turn, the last cell "or more") and
        ``games`` (one row per game, columns ``G_*``).

    Raises:
        TypeError: ``game`` is not an :class:`Omweso`.
        ValueError: ``game`` plays matches, ``n_games`` is negative, ``batch_size`` below 1 or
            ``seed`` negative.
    """
    _check_game(game)
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games must be a non-negative integer (got {n_games!r}).")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer (got {batch_size!r}).")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer (got {seed!r}).")
    laps_per_turn = np.zeros(game.config.max_laps_per_turn + 1, np.int64)
    decisions_per_turn = np.zeros(MAX_DECISIONS_COUNTED + 1, np.int64)
    games = np.zeros((int(n_games), G_COLUMNS), np.int64)
    words = new_words(np.random.default_rng(int(seed)), int(batch_size))  # as BatchedGames.reset(seed)
    game.compiled(_play)(game.params, game.state_size, int(n_games), words, laps_per_turn, decisions_per_turn, games)
    return {"laps_per_turn": laps_per_turn, "decisions_per_turn": decisions_per_turn, "games": games}


def count_turns(game: Omweso, n_games: int, seed: int = 0, batch_size: int = BATCH_SIZE) -> tuple[int, int]:
    """``(plies, completed turns)`` of the games of ``play_random(game, n_games, seed=seed, batch_size=batch_size)``."""
    games = play_counting_turns(game, n_games, seed, batch_size)["games"]
    return int(games[:, G_PLIES].sum()), int(games[:, G_TURNS].sum())


def _histogram_percentile(counts: np.ndarray, q: float) -> int:
    """Nearest-rank percentile of the values whose counts are ``counts`` (index = value)."""
    cumulative = np.cumsum(counts)
    rank = max(1, int(np.ceil(q / 100 * cumulative[-1])))
    return int(np.searchsorted(cumulative, rank))


def _summary(counts: np.ndarray) -> dict[str, float | int]:
    """Mean, nearest-rank percentiles and max of the values whose counts are ``counts`` (index = value)."""
    summary: dict[str, float | int] = {"mean": float(np.arange(counts.size) @ counts / counts.sum())}
    for q in PERCENTILES:
        summary[f"p{q:g}"] = _histogram_percentile(counts, q)
    summary["max"] = int(np.flatnonzero(counts).max())
    return summary


def _bucket_name(low: int, high: int | None) -> str:
    if high is None:
        return f">={low}"
    return str(low) if low == high else f"{low}-{high}"


def turn_stats(options: dict[str, Any], n_games: int, seed: int = 0) -> dict[str, Any]:
    """Plays ``n_games`` random games of ``Omweso(OmwesoConfig(**options))`` and summarises them.

    Returns:
        A JSON-ready dict: ``config``, totals, ``turns_per_game``,
        ``plies_per_game``, ``laps_per_turn`` (summary, ``histogram`` by
        :data:`LAP_BUCKETS`, ``turns``), ``decision_points``, ``annulment``,
        ``end_reasons``, ``win_types``, ``results`` and ``seconds``.

    Raises:
        ValueError: ``n_games`` is below 1, or ``options`` is not a valid single-game config.
    """
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"n_games must be a positive integer (got {n_games!r}).")
    game = Omweso(OmwesoConfig(**options))
    play_counting_turns(game, 1, seed)  # loads or compiles the code; not timed
    start = time.perf_counter()
    raw = play_counting_turns(game, n_games, seed)
    seconds = time.perf_counter() - start
    laps, decisions, games = raw["laps_per_turn"], raw["decisions_per_turn"], raw["games"]

    turns = int(laps.sum())
    plies = int(games[:, G_PLIES].sum())
    placements = int(games[:, G_PLACEMENTS].sum())
    relay = int(games[:, G_RELAY].sum())
    resow = int(games[:, G_RESOW].sum())
    lap_summary = _summary(laps) if turns else {}
    histogram = {
        _bucket_name(low, high): int(laps[low : (high + 1 if high is not None else None)].sum())
        for low, high in LAP_BUCKETS
    }
    reasons = [game.end_reason_names[int(code)] for code in games[:, G_END_REASON]]
    end_reasons: dict[str, int] = {}
    for reason in reasons:
        end_reasons[reason] = end_reasons.get(reason, 0) + 1
    win_types: dict[str, int] = {}
    for code in games[:, G_END_REASON]:
        name = omweso.WIN_TYPES.get(int(code))
        if name is not None:
            win_types[name] = win_types.get(name, 0) + 1
    annulled = games[:, G_END_REASON] == END_ENDLESS_MOVE
    annulled_laps = games[annulled, G_ANNULLED_LAPS]
    max_laps = game.config.max_laps_per_turn
    decided = games[:, G_WINNER] >= 0
    first_mover_wins = int((games[decided, G_WINNER] == games[decided, G_STARTER]).sum())
    decision_games = (games[:, G_RELAY] + games[:, G_RESOW]) > 0
    decision_cells = {str(d): int(decisions[d]) for d in range(3)}
    decision_cells["3+"] = int(decisions[3:].sum())
    return {
        "config": dict(options),
        "games": int(n_games),
        "seed": int(seed),
        "plies": plies,
        "placement_plies": placements,
        "turns": int(games[:, G_TURNS].sum()),
        "turns_per_game": _summary(np.bincount(games[:, G_TURNS])),
        "plies_per_game": _summary(np.bincount(games[:, G_PLIES])),
        "plies_per_turn": (plies - placements) / max(1, int(games[:, G_TURNS].sum())),
        "laps_per_turn": {"turns": turns, **lap_summary, "histogram": histogram},
        "decision_points": {
            "total": relay + resow,
            "relay": relay,
            "resow": resow,
            "per_turn": (relay + resow) / max(1, turns),
            "per_game": (relay + resow) / n_games,
            "turns_with_any": turns - int(decisions[0]),
            "turns_with_any_fraction": (turns - int(decisions[0])) / max(1, turns),
            "games_with_any_fraction": float(decision_games.mean()),
            "turns_by_count": decision_cells,
            "max_in_one_turn": int(np.flatnonzero(decisions).max()) if turns else 0,
        },
        "annulment": {
            "games": int(annulled.sum()),
            "rate": float(annulled.mean()),
            "by_lap_cap": int((annulled_laps >= max_laps).sum()),
            "by_repetition": int((annulled_laps < max_laps).sum()),
            "repetition_laps": sorted(int(n) for n in annulled_laps if n < max_laps),
        },
        "end_reasons": dict(sorted(end_reasons.items(), key=lambda item: -item[1])),
        "win_types": dict(sorted(win_types.items(), key=lambda item: -item[1])),
        "results": {
            "decided": int(decided.sum()),
            "first_mover_wins": first_mover_wins,
            "first_mover_win_fraction": first_mover_wins / max(1, int(decided.sum())),
            "truncated": int((games[:, G_END_REASON] == omweso.END_MAX_TURNS).sum()),
        },
        "seconds": seconds,
    }


def run_all(n_games: int, seed: int = 0) -> dict[str, Any]:
    """:func:`turn_stats` for every setup of :data:`CONFIGS`, JSON-ready."""
    return {
        "games_per_setup": int(n_games),
        "seed": int(seed),
        "percentiles": "nearest rank",
        "setups": {name: turn_stats(options, n_games, seed) for name, options in CONFIGS.items()},
    }


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "n/a"


def format_tables(results: dict[str, Any]) -> str:
    """Renders the results as the plain-text tables the script prints."""
    setups = results["setups"]
    lines = [
        f"Omweso, uniformly random legal play: {results['games_per_setup']} games per setup, seed {results['seed']} "
        "(the games of batch.play_random; percentiles by nearest rank)",
        "",
        "Games",
        f"   {'setup':<11}{'turns/game':>11}{'p50':>5}{'p90':>5}{'p99':>5}{'max':>6}{'plies/game':>11}"
        f"{'plies/turn':>11}{'annulled':>10}{'truncated':>10}{'1st mover':>10}",
    ]
    for name, r in setups.items():
        t = r["turns_per_game"]
        lines.append(
            f"   {name:<11}{t['mean']:>11.2f}{t['p50']:>5}{t['p90']:>5}{t['p99']:>5}{t['max']:>6}"
            f"{r['plies_per_game']['mean']:>11.2f}{r['plies_per_turn']:>11.3f}"
            f"{_percent(r['annulment']['games'], r['games']):>10}{_percent(r['results']['truncated'], r['games']):>10}"
            f"{_percent(r['results']['first_mover_wins'], r['results']['decided']):>10}"
        )
    lines += [
        "",
        "Laps per turn (completed turns)",
        f"   {'setup':<11}{'turns':>10}{'mean':>7}{'p50':>5}{'p90':>5}{'p99':>5}{'p99.9':>7}{'max':>6}",
    ]
    for name, r in setups.items():
        laps = r["laps_per_turn"]
        lines.append(
            f"   {name:<11}{laps['turns']:>10}{laps['mean']:>7.2f}{laps['p50']:>5}{laps['p90']:>5}{laps['p99']:>5}"
            f"{laps['p99.9']:>7}{laps['max']:>6}"
        )
    buckets = list(next(iter(setups.values()))["laps_per_turn"]["histogram"])
    header = "   " + f"{'setup':<11}" + "".join(f"{bucket:>8}" for bucket in buckets)
    lines += ["", "Laps per turn, share of turns by bucket", header]
    for name, r in setups.items():
        histogram, turns = r["laps_per_turn"]["histogram"], r["laps_per_turn"]["turns"]
        cells = []
        for bucket in buckets:
            count = histogram[bucket]
            cells.append(f"{100 * count / turns:>7.2f}%" if count else f"{'0':>8}")
        lines.append(f"   {name:<11}" + "".join(cells))
    lines += [
        "",
        "Decision points (mid-turn counter-clockwise / clockwise choice)",
        f"   {'setup':<11}{'total':>9}{'relay':>9}{'resow':>7}{'/turn':>8}{'/game':>7}{'turns>=1':>10}"
        f"{'games>=1':>10}{'max/turn':>9}",
    ]
    for name, r in setups.items():
        d = r["decision_points"]
        lines.append(
            f"   {name:<11}{d['total']:>9}{d['relay']:>9}{d['resow']:>7}{d['per_turn']:>8.4f}{d['per_game']:>7.3f}"
            f"{100 * d['turns_with_any_fraction']:>9.2f}%{100 * d['games_with_any_fraction']:>9.2f}%"
            f"{d['max_in_one_turn']:>9}"
        )
    lines += ["", "Results (end_reason counts; win_type of the decided games)"]
    for name, r in setups.items():
        a = r["annulment"]
        lines.append(
            f"   {name:<11}end_reason {r['end_reasons']}  win_type {r['win_types']}  "
            f"annulled {a['games']} ({a['by_lap_cap']} at the lap cap, {a['by_repetition']} by in-turn repetition "
            f"after {a['repetition_laps']} laps)"
        )
    total_seconds = sum(r["seconds"] for r in setups.values())
    lines += ["", f"compiled play time {total_seconds:.2f} s (compilation excluded)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Plays the games, prints the tables and writes the JSON; returns the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"games per setup (default {DEFAULT_GAMES})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games' generators (default 0)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"results file (default {DEFAULT_JSON})")
    options = parser.parse_args(argv)
    if options.games < 1:
        parser.error(f"--games must be at least 1 (got {options.games})")
    results = run_all(options.games, options.seed)
    print(format_tables(results))
    options.json.parent.mkdir(parents=True, exist_ok=True)
    options.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"results written to {options.json}")
    return results


if __name__ == "__main__":
    main()
