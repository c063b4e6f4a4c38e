"""The checks of user input that several modules share: integers in a range, seeds, actions.

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for one out of
range, with a message that names the argument, the accepted values and what was given. ``bool``
is never taken for an integer, and numpy integers are.

These are the one rule of every door (docs/contract.md, "Types and shared arrays"): a seed is
:func:`check_seed`'s, one action :func:`check_action`'s and the actions of a batch of games
:func:`check_action_array`'s, whichever env takes them.

Example:
    >>> check_integer("n_games", 8, 1)
    8
    >>> check_integer("depth", 0, 1, 64)
    Traceback (most recent call last):
    ...
    ValueError: depth must be an integer from 1 to 64 (got 0).
    >>> check_seed(None) is None
    True
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

__all__ = [
    "MAX_GAMES",
    "check_action",
    "check_action_array",
    "check_game_count",
    "check_integer",
    "check_seed",
    "is_integer",
]


def _shown(value: Any) -> str:
    """``value`` as a message shows it: a numpy scalar as the Python value it holds (``True``, ``2.0``, not
    numpy's ``np.True_``, ``np.float64(2.0)``), anything else by its ``repr``."""
    return repr(value.item()) if isinstance(value, np.generic) else repr(value)


def is_integer(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy integer (not a bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_integer(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an ``int``, after checking that it is an integer in ``[low, high]``.

    Raises:
        TypeError: not an integer.
        ValueError: out of range.
    """
    bound = f"from {low} to {high}" if high is not None else f">= {low}"
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer {bound} (got {type(value).__name__} {_shown(value)}).")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer {bound} (got {value}).")
    return int(value)


def check_seed(value: Any, name: str = "seed") -> int | None:
    """A seed: ``None`` (fresh entropy, or the generator goes on) or an integer >= 0, as an ``int``.

    Raises:
        TypeError: neither ``None`` nor an integer.
        ValueError: a negative integer.
    """
    if value is None:
        return None
    if not is_integer(value):
        raise TypeError(f"{name} must be None or an integer >= 0 (got {type(value).__name__} {_shown(value)}).")
    if value < 0:
        raise ValueError(f"{name} must be None or an integer >= 0 (got {value}).")
    return int(value)


def check_action(action: Any, n_actions: int) -> int:
    """An action as an ``int`` in ``0 .. n_actions - 1``: a Python or numpy integer, or a 0-d integer
    array. Every entry point takes the same forms (docs/contract.md): a one-element 1-d array such as
    ``np.array([1])`` is refused like any other 1-d array.

    Args:
        action: The action to check.
        n_actions: The size of the action space.

    Raises:
        TypeError: not an integer (``None`` and bools included).
        ValueError: out of range.
    """
    if isinstance(action, np.integer) and 0 <= action < n_actions:
        return int(action)
    if isinstance(action, (bool, np.bool_)) or action is None:
        raise TypeError(
            f"action {_shown(action)} is not an integer; pass an int in 0..{n_actions - 1} "
            "(None is only for agents that are already done)."
        )
    if isinstance(action, np.ndarray):
        if action.shape != () or not np.issubdtype(action.dtype, np.integer):
            raise TypeError(
                f"action array {action!r} is not an integer action; pass an int in 0..{n_actions - 1} "
                "(or a 0-d integer array)."
            )
        action = action.reshape(()).item()
    try:
        index = operator.index(action)
    except TypeError:
        raise TypeError(
            f"action {_shown(action)} of type {type(action).__name__} is not an integer; pass an int in "
            f"0..{n_actions - 1}."
        ) from None
    if not 0 <= index < n_actions:
        raise ValueError(f"action {index} is out of range; actions are 0..{n_actions - 1}.")
    return index


def check_action_array(actions: Any, n_games: int, n_actions: int) -> np.ndarray:
    """The actions of a batch of ``n_games`` games as an ``int64`` array, after checking their form: exactly
    the shape ``(n_games,)`` (no other shape of the same size), an integer dtype (a bool or float array is
    refused, even of whole numbers), every entry in ``0 .. n_actions - 1``. Legality is the batch's to check.

    Args:
        actions: An array (or a list) of one action per game.
        n_games: The games of the batch.
        n_actions: The size of each game's action space.

    Raises:
        ValueError: another shape, or an action out of range (the first games concerned are named).
        TypeError: not an integer dtype.
    """
    array = np.asarray(actions)
    if array.shape != (n_games,):
        raise ValueError(f"actions must have shape ({n_games},), one per game (got {array.shape}).")
    if array.dtype.kind not in "iu":
        huge = array.dtype == object and all(is_integer(action) for action in array)  # Python ints beyond int64
        bad = [game for game, action in enumerate(array) if not 0 <= action < n_actions] if huge else []
        if bad:
            raise ValueError(
                f"actions out of range in games {bad[:5]} (e.g. {array[bad[0]]}); actions are 0..{n_actions - 1}."
            )
        raise TypeError(
            f"actions must be integers (got dtype {array.dtype}); pass an int array such as "
            f"np.zeros({n_games}, dtype=np.int64)."
        )
    given = array
    array = array.astype(np.int64, copy=False)  # a uint64 beyond int64 wraps to a negative action, refused below
    if np.count_nonzero(array.view(np.uint64) >= n_actions):  # a negative action reads as a huge unsigned one
        out = np.flatnonzero((array < 0) | (array >= n_actions))
        raise ValueError(
            f"actions out of range in games {out[:5].tolist()} (e.g. {int(given[out[0]])}); "
            f"actions are 0..{n_actions - 1}."
        )
    return array


#: The most games one tournament or evaluation plays (pairs times games per pair): every game's result is kept in memory
#: and written to the JSON (about 200 bytes each).
MAX_GAMES = 1_000_000


def check_game_count(what: str, groups: int, group: str, games: int, fewer: str) -> None:
    """Refuses more than :data:`MAX_GAMES` games in all: ``groups`` pairs or opponents times ``games`` each.

    The one check of that limit, for ``mancala_envs.analysis.tournament.run_tournament``,
    ``mancala_envs.analysis.oracle.oracle_evaluate`` and the evaluation of ``mancala_envs.training.trainer``.

    Args:
        what: Who plays them, for the message (``"a tournament"``).
        groups: How many pairs or opponents.
        group: What one of them is called (``"pair"``, ``"opponent"``).
        games: Games per pair or opponent.
        fewer: The fix, as a sentence (``"Play fewer games per pair (--games) or fewer agents."``).

    Raises:
        ValueError: more than :data:`MAX_GAMES` games in all; the message names the limit.
    """
    if groups * games > MAX_GAMES:
        raise ValueError(
            f"{what} plays at most {MAX_GAMES} games (MAX_GAMES); {groups} {group}(s) x {games} games per {group} is "
            f"{groups * games}. {fewer}"
        )
