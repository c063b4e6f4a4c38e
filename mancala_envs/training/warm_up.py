"""Prebuilding numba's cache: compile what every entry point of a game compiles, once, ahead of use.

A game compiles at its first use in a process and numba keeps the machine code on disk (see
:mod:`mancala_envs.engine.jit` for where). :func:`warm_up` makes that first use happen now, for every
entry point: the PettingZoo env, the single-agent env and the vector envs against each compiled
opponent, the batched games, random play and the search agents. Run it when building a container
image or a cluster job's environment, with ``NUMBA_CACHE_DIR`` set to the folder the runs will use
(``mancala-envs warm-up`` on the command line; ``docs/install.md`` shows an image recipe).

It says what it compiles as it goes, on standard error: one line per game and entry point, begun when
the item starts and finished with its time (``MANCALA_ENVS_QUIET=1`` or ``progress=False`` silences it).

Example:
    >>> from mancala_envs.training.warm_up import warm_up
    >>> seconds = warm_up(["kalah"], opponents=("random",))  # doctest: +SKIP
    mancala-envs warm-up: 1 game, 3 entry points each (a cold game takes 10-60 s)
    mancala-envs warm-up: kalah (1/1): the PettingZoo env... 4.1 s
    mancala-envs warm-up: kalah (1/1): opponent random (agent, single-agent env, vector env)... 2.3 s
    mancala-envs warm-up: kalah (1/1): batched games and random play... 1.2 s
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from mancala_envs.agents import make_agent
from mancala_envs.engine.jit import compile_notice, notice_silenced, write_progress
from mancala_envs.envs.batch import BatchedGames, play_random
from mancala_envs.envs.registration import VARIANTS, find_variant, make, resolve_env_id
from mancala_envs.games import game_classes
from mancala_envs.views.single_agent_env import SingleAgentEnv
from mancala_envs.views.vector_env import MancalaVectorEnv

__all__ = ["WARM_UP_OPPONENTS", "warm_up"]

#: the compiled opponents (and search agents) compiled by default: each kind is a kernel of its own
WARM_UP_OPPONENTS = ("random", "greedy", "alphabeta:1", "mcts:2")


def _registered_id(name: object) -> str | None:
    """The PettingZoo id or game name that builds ``name``'s envs: a game (``"ouril"``, ``"ouril_v0"``), a
    PettingZoo id (``"mancala/ouril-mini-v0"``) or a Gymnasium id (``"mancala/OurilMini-v0"``); ``None``
    for anything else."""
    if not isinstance(name, str):
        return None
    name = resolve_env_id(name)
    for variant in VARIANTS:
        if name == variant.gymnasium_id:
            return variant.id
    try:
        find_variant(name)
    except ValueError:
        return None
    return name


def _first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _progress_writer(progress: bool) -> Callable[[str], None]:
    """Writes to standard error as the compile progress does (:func:`~mancala_envs.engine.jit.write_progress`: a
    closed or broken stream is no error), or nowhere: ``progress`` off or the notice silenced."""
    if not progress or notice_silenced():
        return lambda text: None
    return write_progress


@contextmanager
def _item(write: Callable[[str], None], label: str) -> Iterator[None]:
    """Says ``label`` before the item compiles and its seconds after (on one line)."""
    write(f"mancala-envs warm-up: {label}... ")
    start = time.perf_counter()
    try:
        yield
    except BaseException:
        write("failed\n")
        raise
    write(f"{time.perf_counter() - start:.1f} s\n")


def warm_up(
    games: Sequence[str] | None = None, *, opponents: Sequence[str] = WARM_UP_OPPONENTS, progress: bool = True
) -> dict[str, float]:
    """Compiles every entry point of each game (and stores it in numba's cache, where numba can write one).

    Says each item on standard error as it starts, and its time when it is done (see the module's example).

    Args:
        games: Games or variants, by game name (``"ouril"``, ``"ouril_v0"``), PettingZoo id
            (``"mancala/ouril-mini-v0"``) or Gymnasium id (``"mancala/OurilMini-v0"``); ``None``: every game.
            The compiled code is per game: one variant of a game warms them all.
        opponents: Compiled agents to build the single-agent and vector envs against, and to play one
            move with (``"random"``, ``"greedy"``, ``"alphabeta:D"``, ``"mcts:N"``).
        progress: Whether to say each item on standard error as it goes (``MANCALA_ENVS_QUIET=1`` in the
            environment silences it too).

    Returns:
        The seconds spent on each game.

    Raises:
        ValueError: an unknown game or opponent name (the message lists the known ones).
    """
    every_game = [game_class.name for game_class in game_classes()]
    names = every_game if games is None else list(games)
    found = {name: _registered_id(name) for name in names}
    unknown = [name for name, env_id in found.items() if env_id is None]
    env_ids = {name: env_id for name, env_id in found.items() if env_id is not None}
    if unknown:
        raise ValueError(
            f"unknown game(s) {unknown}; use game names from {every_game} or registered ids "
            "(`mancala-envs list` shows both forms)."
        )
    seconds: dict[str, float] = {}
    write = _progress_writer(progress)
    items = 2 + len(opponents)
    write(
        f"mancala-envs warm-up: {len(names)} game{'s' if len(names) != 1 else ''}, {items} entry points each "
        "(a cold game takes 10-60 s; one already in numba's cache, about a second)\n"
    )
    notice_was_on = compile_notice(False)  # this call is the compiling, and says so item by item
    try:
        for number, name in enumerate(names, 1):
            start = time.perf_counter()
            env_id = env_ids[name]
            game = f"{name} ({number}/{len(names)})"
            with _item(write, f"{game}: the PettingZoo env"):
                env = make(env_id)
                env.reset(seed=0)
                observation, *_ = env.last()
                env.step(_first_legal(observation["action_mask"]))
            for opponent in opponents:
                with _item(write, f"{game}: opponent {opponent} (agent, single-agent env, vector env)"):
                    make_agent(opponent, seed=0).act(env)
                    single = SingleAgentEnv(env_id, opponent=opponent)
                    _, info = single.reset(seed=0)
                    single.step(_first_legal(info["action_mask"]))
                    vector = MancalaVectorEnv(env_id, num_envs=2, opponent=opponent)
                    _, infos = vector.reset(seed=0)
                    vector.step(np.array([_first_legal(mask) for mask in infos["action_mask"]]))
                    vector.close()
            with _item(write, f"{game}: batched games and random play"):
                batch = BatchedGames(env_id, 2)
                step = batch.reset(seed=0)
                batch.step(np.array([_first_legal(mask) for mask in step.action_mask]))
                play_random(env_id, 2, batch_size=2)
            seconds[name] = time.perf_counter() - start
    finally:
        compile_notice(notice_was_on)
    return seconds
