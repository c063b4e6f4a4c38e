"""Per-game compiled kernels: generic loops compiled for one game at a time.

The loops that drive games (random play, the batched games' step, the opponents'
replies, alpha-beta and MCTS) are written once, as plain Python *templates*
marked with :func:`per_game`. A template calls the rules of "the game" through
four placeholder names, :func:`game_reset`, :func:`game_step`,
:func:`game_observe` and :func:`game_legal_bits`. :func:`specialise` turns a
template into a numba-compiled function for one game: a copy of the template
whose placeholders are that game's compiled ``reset_state``, ``step``,
``observe`` and ``legal_bits``, and whose calls to other templates are their
copies for the same game.

So using one game compiles that game's rules alone, whatever the entry point
(the PettingZoo env, the single-agent env, the vector envs, the batched games,
the search agents), and every game keeps one implementation of each rule.

A game's ``step`` is marked ``inline="always"``, which copies its whole body
into each compiled caller: the fastest code (a call passes its arrays with
reference counting, which costs a fifth of a ply), and the longest compile.
Only the templates marked ``@per_game(inline_step=True)`` get that copy: the
batched games' and the vector envs' loops, where the ply is everything. Every
other template (the single-agent env's opponent, the searches) and the
environment call one shared compiled ``step`` (:func:`called`), so a process
compiles a game's ``step`` once for all of them. Each copy is cached on disk by numba under its own name
(``<template>[<rules module>]``), so warm starts load it instead of compiling.

Caching note for developers: numba keys a cache entry on the template's own
source file. After editing a game's rules module or an engine function that a
template inlines, delete the caches (``find . -name '*.nb[ic]' -delete``);
installed users never meet this, since their files do not change.

Example:
    >>> import numpy as np
    >>> from mancala_envs.engine.kernels import game_step, per_game, specialise
    >>> @per_game(cache=False)  # numba caches only functions defined in a file
    ... def first_legal_ply(state, params, trace):
    ...     legal = state[5]
    ...     action = 0
    ...     while not (legal >> action) & 1:
    ...         action += 1
    ...     return game_step(state, params, action, trace)
    >>> from mancala_envs.games.ouril import Ouril
    >>> game = Ouril()
    >>> state = game.new_state(0)
    >>> int(specialise(first_legal_ply, game)(state, game.params, np.empty(0, np.int64)))
    0
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

from mancala_envs.engine.jit import njit

__all__ = [
    "STEP_SIGNATURE",
    "GameRules",
    "called",
    "game_legal_bits",
    "game_observe",
    "game_reset",
    "game_step",
    "is_template",
    "per_game",
    "specialise",
]

F = TypeVar("F", bound=Callable[..., Any])


class GameRules(Protocol):
    """What :func:`specialise` needs from a game: its name and its compiled rules.

    Every :class:`~mancala_envs.games.base.Game` is one.
    """

    name: str
    reset_function: Callable[..., None]
    step_function: Callable[..., int]
    observe_function: Callable[..., None]
    legal_bits_function: Callable[..., int]


# --- the placeholders a template calls ------------------------------------------------------------------------------
def game_reset(state: np.ndarray, params: np.ndarray, first_player: int) -> None:
    """The game's ``reset_state`` (a placeholder: only specialised copies of a template call it)."""
    raise NotImplementedError("a per-game template was called directly; call specialise(template, game)(...).")


def game_step(state: np.ndarray, params: np.ndarray, action: int, trace: np.ndarray) -> int:
    """The game's ``step`` (a placeholder: only specialised copies of a template call it)."""
    raise NotImplementedError("a per-game template was called directly; call specialise(template, game)(...).")


def game_observe(
    state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray
) -> None:
    """The game's ``observe`` (a placeholder: only specialised copies of a template call it)."""
    raise NotImplementedError("a per-game template was called directly; call specialise(template, game)(...).")


def game_legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """The game's ``legal_bits`` (a placeholder: only specialised copies of a template call it)."""
    raise NotImplementedError("a per-game template was called directly; call specialise(template, game)(...).")


_OPTIONS = "__per_game_options__"
_INLINE_STEP = "__per_game_inline_step__"
_COPIES: dict[tuple[Any, ...], Callable[..., Any]] = {}
_CALLED: dict[int, Callable[..., Any]] = {}
_USED: dict[Callable[..., Any], frozenset[str]] = {}


def per_game(inline_step: bool = False, **options: Any) -> Callable[[F], F]:
    """Marks a function as a per-game template; ``options`` are numba's (``inline="always"``...).

    The function stays plain Python: :func:`specialise` compiles a copy of it per game, with
    ``cache=True`` and ``error_model="numpy"`` unless ``options`` say otherwise.

    Args:
        inline_step: Copy the game's ``step`` into the compiled template (for a loop where the ply
            is all the work); by default the template calls the game's shared compiled ``step``.
        **options: numba's ``njit`` options.
    """

    def mark(function: F) -> F:
        setattr(function, _OPTIONS, {"cache": True, "error_model": "numpy", **options})
        setattr(function, _INLINE_STEP, bool(inline_step))
        return function

    return mark


#: the one signature of a game's ``step``: (state, params, action, trace) -> return code
STEP_SIGNATURE = "int64(int64[::1], int64[::1], int64, int64[::1])"


def called(function: Callable[..., Any], signature: str = STEP_SIGNATURE) -> Callable[..., Any]:
    """The compiled ``function`` as a call, never inlined into its callers: one compiled copy that the
    environment and every template share (numba's cache file is the function's own, so a warm start
    loads it whichever door compiled it).

    The copy has the one ``signature`` (a game's ``step`` by default): without it numba would compile
    a copy per literal argument (``step(trial, params, 0, trace)`` is another copy than
    ``step(state, params, action, trace)``).

    Returns ``function`` itself when it is not inlined, or when numba's JIT is off.
    """
    options = getattr(function, "targetoptions", None)
    if options is None or options.get("inline", "never") == "never":
        return function
    twin = _CALLED.get(id(function))
    if twin is None:
        kept = {key: value for key, value in options.items() if key not in ("inline", "nopython", "boundscheck")}
        twin = _CALLED[id(function)] = njit(signature, cache=True, **kept)(function.py_func)
    return twin


def is_template(value: Any) -> bool:
    """Whether ``value`` is a function marked with :func:`per_game`."""
    return isinstance(value, types.FunctionType) and hasattr(value, _OPTIONS)


def specialise(template: Callable[..., Any], game: GameRules, **constants: int) -> Callable[..., Any]:
    """The compiled copy of ``template`` for ``game`` (made once per template, rules module and constants).

    Nothing is compiled here: numba compiles the copy at its first call, or loads it from its cache.

    Args:
        template: A function marked with :func:`per_game`.
        game: A game (anything with the attributes of :class:`GameRules`).
        **constants: Module-level integer constants of the templates to fix in this copy (and in the
            copies of the templates it calls), e.g. ``OPPONENT_KIND=2``: numba drops the branches that
            a constant rules out before compiling, so the copy compiles only what it can run.

    Raises:
        TypeError: ``template`` is not marked with :func:`per_game`, or ``game`` lacks a rule.
    """
    if not is_template(template):
        raise TypeError(f"{getattr(template, '__qualname__', template)!r} is not a per-game template; mark it with @per_game().")
    step = _rule(game, "step_function")
    rules = {
        "game_reset": _rule(game, "reset_function"),
        "game_step": step if getattr(template, _INLINE_STEP) else called(step),
        "game_observe": _rule(game, "observe_function"),
        "game_legal_bits": _rule(game, "legal_bits_function"),
    }
    for name, value in constants.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"constant {name}={value!r} must be an int.")
    return _copy(template, rules, dict(sorted(constants.items())))


def _rule(game: Any, attribute: str) -> Callable[..., Any]:
    function = getattr(game, attribute, None)
    if function is None:
        raise TypeError(f"{type(game).__name__} has no {attribute}; a game names its compiled rules as class attributes.")
    return function


def _copy(
    template: Callable[..., Any], rules: dict[str, Callable[..., Any]], constants: dict[str, int]
) -> Callable[..., Any]:
    owner = rules["game_reset"]
    owner_module = getattr(getattr(owner, "py_func", owner), "__module__", "game")
    if constants:  # only the constants some template under this one reads (the walk is cached)
        used = _USED.get(template)
        if used is None:
            used = _USED[template] = frozenset(_names_used(template))
        constants = {name: value for name, value in constants.items() if name in used}
    key = (template, *(id(function) for function in rules.values()), *constants.items())
    copy = _COPIES.get(key)
    if copy is not None:
        return copy
    namespace = dict(template.__globals__)
    namespace.update(rules)
    namespace.update(constants)
    function = types.FunctionType(
        template.__code__, namespace, template.__name__, template.__defaults__, template.__closure__
    )
    fixed = "".join(f",{name}={value}" for name, value in constants.items())
    function.__qualname__ = f"{template.__qualname__}[{owner_module}{fixed}]"
    function.__module__ = template.__module__
    function.__doc__ = template.__doc__
    copy = njit(**getattr(template, _OPTIONS))(function)
    _COPIES[key] = copy
    # The templates it calls, for the same game (after registering this copy, so recursion terminates).
    for name in _called_names(template.__code__):
        value = namespace.get(name)
        if is_template(value):
            callee_rules = dict(rules)
            if not getattr(value, _INLINE_STEP) and hasattr(rules["game_step"], "targetoptions"):
                callee_rules["game_step"] = called(rules["game_step"])
            namespace[name] = _copy(value, callee_rules, constants)
    return copy


def _names_used(template: Callable[..., Any], seen: frozenset[Any] = frozenset()) -> set[str]:
    """The global names that ``template`` and the templates it calls (transitively) read: a constant
    fixes a copy only where it is read, so a template that never reads it has one copy for all values."""
    names = _called_names(template.__code__)
    for name in list(names):
        value = template.__globals__.get(name)
        if is_template(value) and value not in seen:
            names |= _names_used(value, seen | {template})
    return names


def _called_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _called_names(constant)
    return names
