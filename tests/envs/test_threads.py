"""Threads: the batched games, ``play_random`` and the vector envs give the same results whatever the thread count.

Each part of the rows runs in its own thread with its own spill area and vault, and each game draws from its
own generator, so the count changes nothing a user sees: the statistics of ``play_random``, every output of a
step (observations, masks, rewards, end flags, final infos) and every game's engine state afterwards. The
configs below make games spill (``history_capacity=3``) and reach the vault (``spill_capacity=4``), so the
per-part pools are exercised too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mancala_envs.common.errors import IllegalActionError
from mancala_envs.envs.batch import BatchedGames, available_cores, check_threads, play_random
from mancala_envs.views.vector_env import MancalaVectorEnv

THREADS = (1, 2, 3)
#: (env id, BatchedGames options): plain games, and configs that fill the spill area and the vault
BATCHES = (
    ("ouril_v0", {}),
    ("kalah_v0", {}),
    ("omweso_v0", {}),
    ("mancala/ouril-mini-v0", {"history_capacity": 3}),
    ("rio_kadalis_v0", {"history_capacity": 3, "spill_capacity": 4}),
)


def same(a: Any, b: Any) -> bool:
    """Whether two results are equal: arrays by value (object arrays entry by entry), dicts and tuples by entry."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        if not isinstance(b, np.ndarray) or a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype == object:
            return all(same(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist(), strict=True))
        return bool(np.array_equal(a, b))
    return bool(a == b)


def without_time(info: dict[str, Any]) -> dict[str, Any]:
    """An SB3 step info without the episode's wall-clock time (``episode["t"]``), which differs between envs."""
    if "episode" not in info:
        return info
    return info | {"episode": {key: value for key, value in info["episode"].items() if key != "t"}}


def states(games: Any, n: int) -> np.ndarray:
    return np.stack([games.state(game) for game in range(n)])


@pytest.mark.parametrize(("env_id", "options"), BATCHES)
def test_play_random_is_the_same_for_any_thread_count(env_id: str, options: dict[str, Any]) -> None:
    """Call after call (the rows going on from where the last call stopped), the statistics and every game's
    state are the same with 1, 2 and 3 threads; so is the one-shot ``play_random``."""
    results = {}
    for threads in THREADS:
        games = BatchedGames(env_id, 10, threads=threads, **options)
        games.reset(seed=7)
        stats = [games.play_random(count) for count in (3, 10, 0, 17, 1, 25)]
        results[threads] = (stats, states(games, 10), games.cursor)
        games.close()
    for threads in THREADS[1:]:
        assert results[threads][0] == results[1][0]
        assert np.array_equal(results[threads][1], results[1][1])
        assert results[threads][2] == results[1][2]
    once = {threads: play_random(env_id, 40, batch_size=7, seed=3, threads=threads, **options) for threads in THREADS}
    assert once[1] == once[2] == once[3]
    assert once[1].games == 40 and once[1].wins[0] + once[1].wins[1] + once[1].draws == 40


@pytest.mark.parametrize(("env_id", "options"), BATCHES)
def test_batched_steps_are_the_same_for_any_thread_count(env_id: str, options: dict[str, Any]) -> None:
    """The same actions give the same steps (ended games' finals included) and states with 1, 2 and 3 threads."""
    n = 9
    batches = {threads: BatchedGames(env_id, n, threads=threads, **options) for threads in THREADS}
    steps = {threads: games.reset(seed=5) for threads, games in batches.items()}
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(120):
        for threads in THREADS[1:]:
            assert same(tuple(steps[threads]), tuple(steps[1]))
        scores = rng.random(steps[1].action_mask.shape) * steps[1].action_mask
        actions = scores.argmax(axis=1)
        steps = {threads: games.step(actions) for threads, games in batches.items()}
        ended += steps[1].final.index.size
    for threads in THREADS[1:]:
        assert np.array_equal(states(batches[threads], n), states(batches[1], n))
        assert batches[threads].spilled_games == batches[1].spilled_games
    assert ended > 0


def test_a_rejected_step_changes_no_game_in_any_part() -> None:
    """An illegal action in the last part is found before any part plays: no game changes."""
    games = BatchedGames("kalah_v0", 6, threads=3, first_player=0)
    games.reset(seed=1)
    step = games.step(np.full(6, 2))  # pit 2's four seeds end in the store: player 0 again, pit 2 empty
    assert step.current_player.tolist() == [0] * 6 and not step.action_mask[:, 2].any()
    before = states(games, 6)
    actions = np.zeros(6, np.int64)
    actions[5] = 2
    with pytest.raises(IllegalActionError, match=r"games \[5\]"):
        games.step(actions)
    assert np.array_equal(states(games, 6), before)
    reference = BatchedGames("kalah_v0", 6, threads=1, first_player=0)
    reference.reset(seed=1)
    reference.step(np.full(6, 2))
    assert same(tuple(games.step(np.zeros(6, np.int64))), tuple(reference.step(np.zeros(6, np.int64))))


@pytest.mark.parametrize("opponent", ["random", "greedy", "mcts:8"])
@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_vector_env_steps_are_the_same_for_any_thread_count(opponent: str, mode: str) -> None:
    n = 7
    envs = {
        threads: MancalaVectorEnv(
            "mancala/ouril-mini-v0",
            num_envs=n,
            opponent=opponent,
            autoreset_mode=mode,
            history_capacity=3,
            threads=threads,
        )
        for threads in (1, 2, 3)
    }
    outputs = {threads: env.reset(seed=11) for threads, env in envs.items()}
    rng = np.random.default_rng(11)
    ended = 0
    for _ in range(60):
        for threads in (2, 3):
            assert same(outputs[threads], outputs[1])
        masks = envs[1].action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        outputs = {threads: env.step(actions) for threads, env in envs.items()}
        ended += int((outputs[1][2] | outputs[1][3]).sum())
    for threads in (2, 3):
        assert np.array_equal(states(envs[threads], n), states(envs[1], n))
    assert ended > 0
    for env in envs.values():
        env.close()


def test_sb3_vec_env_steps_are_the_same_for_any_thread_count() -> None:
    pytest.importorskip("stable_baselines3", reason="the SB3 adapter needs the train extra")
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    envs = {
        threads: MancalaSB3VecEnv("kalah_v0", n_envs=6, opponent="greedy", seed=2, threads=threads)
        for threads in (1, 2)
    }
    observations = {threads: env.reset() for threads, env in envs.items()}
    assert np.array_equal(observations[1], observations[2])
    rng = np.random.default_rng(2)
    dones = 0
    for _ in range(80):
        masks = envs[1].action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        results = {threads: env.step(actions) for threads, env in envs.items()}
        observation, rewards, done, infos = results[1]
        other = results[2]
        assert np.array_equal(other[0], observation) and np.array_equal(other[1], rewards)
        assert np.array_equal(other[2], done)
        assert same([without_time(info) for info in other[3]], [without_time(info) for info in infos])
        dones += int(done.sum())
    assert dones > 0
    for env in envs.values():
        env.close()


def test_more_threads_than_games_and_the_default() -> None:
    games = BatchedGames("ouril_v0", 2, threads=8)
    assert games.threads == 2  # a part per game at most
    assert games.reset(seed=0).observation.shape == (2, 17)
    cores = available_cores()
    assert check_threads(None) == cores
    assert BatchedGames("ouril_v0", 64 * cores).threads == cores
    assert BatchedGames("ouril_v0", 64).threads == 1  # the default gives a thread 64 games at least
    assert MancalaVectorEnv("ouril_v0", num_envs=4).threads == 1
    assert MancalaVectorEnv("ouril_v0", num_envs=4, threads=2).threads == 2


@pytest.mark.parametrize(
    ("threads", "error"),
    [(0, ValueError), (-2, ValueError), (True, TypeError), (False, TypeError), (1.5, TypeError), ("2", TypeError)],
)
def test_bad_thread_counts_are_refused_everywhere(threads: Any, error: type) -> None:
    match = "threads"
    with pytest.raises(error, match=match):
        BatchedGames("ouril_v0", 4, threads=threads)
    with pytest.raises(error, match=match):
        play_random("ouril_v0", 4, threads=threads)
    with pytest.raises(error, match=match):
        MancalaVectorEnv("ouril_v0", num_envs=4, threads=threads)
    pytest.importorskip("stable_baselines3", reason="the SB3 adapter needs the train extra")
    from mancala_envs.views.sb3_vec_env import MancalaSB3VecEnv

    with pytest.raises(error, match=match):
        MancalaSB3VecEnv("ouril_v0", n_envs=4, threads=threads)


def test_a_failing_part_raises_once_every_part_has_returned() -> None:
    """An error in any part reaches the caller, and only after the other parts are done with the rows."""
    import time

    games = BatchedGames("ouril_v0", 4, threads=2)
    done: list[int] = []

    def call(part: int, rows: slice) -> int:
        if part == failing:
            raise RuntimeError(f"part {part} failed")
        time.sleep(0.1)
        done.append(part)
        return rows.stop - rows.start

    for failing in (0, 1):
        done.clear()
        with pytest.raises(RuntimeError, match=f"part {failing} failed"):
            games.in_parts(call)
        assert done == [1 - failing]
    failing = -1
    assert games.in_parts(call) == [2, 2]
    games.close()
