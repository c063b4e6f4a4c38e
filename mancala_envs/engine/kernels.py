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

A process compiles each rule of a game once, whichever entry points it uses:
the game's ``step`` as :func:`called` makes it (one copy with one fixed
signature, the one the environment calls too), and ``reset_state``,
``observe`` and ``legal_bits`` for the argument types the templates pass. A
copy of a template calls them *by symbol*: a name this module binds to the
rule's compiled code in each process, which links nothing into the copy. A
plain call would make numba link the rule's code into every compiled caller
and optimise it again there, and inlining it (a game's ``step`` is marked
``inline="always"``) copies its whole body into the caller: seconds of
compiling per kernel either way. By symbol, a kernel
compiles its own loop alone, and runs as fast as with a linked call (the
per-ply loops pass borrowed views, :mod:`mancala_envs.engine.board_views`, so the
call counts no references). Each copy is cached on disk by numba under its own
name (``<template>[<rules module>]``), so warm starts load it instead of
compiling.

Caching note for developers: numba keys a cache entry on the template's own
source file (a copy holds no code of the rules, whose own entries follow their
module). After editing an engine function that a rule or a template inlines,
or a constant that compiled code reads from another module, delete the caches
(``find . -name '*.nb[ic]' -delete``); installed users never meet this, since
their files do not change.

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
from typing import Any, Protocol, TypeGuard, TypeVar

import numpy as np
from llvmlite import binding as llvm
from numba import config
from numba.core import cgutils, sigutils
from numba.extending import intrinsic

from mancala_envs.engine.jit import njit

__all__ = [
    "STEP_SIGNATURE",
    "GameRules",
    "called",
    "code_global_names",
    "game_legal_bits",
    "game_observe",
    "game_reset",
    "game_step",
    "is_template",
    "per_game",
    "rule_by_symbol",
    "specialise",
]

F = TypeVar("F", bound=Callable[..., Any])


class GameRules(Protocol):
    """What :func:`specialise` needs from a game: its name and its compiled rules.

    Every :class:`~mancala_envs.games.game.Game` is one.
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


def game_observe(state: np.ndarray, params: np.ndarray, player: int, observation: np.ndarray, mask: np.ndarray) -> None:
    """The game's ``observe`` (a placeholder: only specialised copies of a template call it)."""
    raise NotImplementedError("a per-game template was called directly; call specialise(template, game)(...).")


def game_legal_bits(state: np.ndarray, params: np.ndarray) -> int:
    """The game's ``legal_bits`` (a placeholder: only specialised copies of a template call it)."""
    raise NotImplementedError("a per-game template was called directly; call specialise(template, game)(...).")


_OPTIONS = "__per_game_options__"
_COPIES: dict[tuple[Any, ...], Callable[..., Any]] = {}
_CALLED: dict[int, Callable[..., Any]] = {}
_BY_SYMBOL: dict[tuple[int, str], Callable[..., Any]] = {}
_USED: dict[Callable[..., Any], frozenset[str]] = {}


def per_game(**options: Any) -> Callable[[F], F]:
    """Marks a function as a per-game template; ``options`` are numba's (``inline="always"``...).

    The function stays plain Python: :func:`specialise` compiles a copy of it per game, with
    ``cache=True`` and ``error_model="numpy"`` unless ``options`` say otherwise.

    Args:
        **options: numba's ``njit`` options.
    """

    def mark(function: F) -> F:
        setattr(function, _OPTIONS, {"cache": True, "error_model": "numpy", **options})
        return function

    return mark


#: the one signature of a game's ``step``: (state, params, action, trace) -> return code
STEP_SIGNATURE = "int64(int64[::1], int64[::1], int64, int64[::1])"
#: the argument types each placeholder's rule is compiled for, once per process (a call converts to them)
_RULE_ARGUMENTS = {
    "game_step": "(int64[::1], int64[::1], int64, int64[::1])",
    "game_reset": "(int64[::1], int64[::1], int64)",
    "game_observe": "(int64[::1], int64[::1], int64, int32[::1], int8[::1])",
    "game_legal_bits": "(int64[::1], int64[::1])",
}


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
        dispatcher: Any = function  # a numba dispatcher (numba has no types)
        twin = _CALLED[id(function)] = njit(signature, cache=True, **kept)(dispatcher.py_func)
    return twin


def is_template(value: Any) -> TypeGuard[types.FunctionType]:
    """Whether ``value`` is a function marked with :func:`per_game`."""
    return isinstance(value, types.FunctionType) and hasattr(value, _OPTIONS)


def specialise(template: Callable[..., Any], game: GameRules, **constants: int) -> Callable[..., Any]:
    """The compiled copy of ``template`` for ``game`` (made once per template, rules module and constants).

    Nothing is compiled here: numba compiles the copy at its first call, or loads it from its cache.

    Args:
        template: A function marked with :func:`per_game`.
        game: A game (anything with the attributes of :class:`GameRules`).
        **constants: Module-level integer constants of the templates to fix in this copy (and in the
            copies of the templates it calls), e.g. ``OPPONENT_KINDS=4``: numba drops the branches that
            a constant rules out before compiling, so the copy compiles only what it can run.

    Raises:
        TypeError: ``template`` is not marked with :func:`per_game`, or ``game`` lacks a rule.
    """
    if not is_template(template):
        raise TypeError(
            f"{getattr(template, '__qualname__', template)!r} is not a per-game template; mark it with @per_game()."
        )
    rules = {
        "game_reset": _rule(game, "reset_function"),
        "game_step": _rule(game, "step_function"),
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
        raise TypeError(
            f"{type(game).__name__} has no {attribute}; a game names its compiled rules as class attributes."
        )
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
    names = code_global_names(template.__code__)
    namespace.update((name, _by_symbol(name, rule)) for name, rule in rules.items() if name in names)
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
    for name in names:
        value = namespace.get(name)
        if is_template(value):
            namespace[name] = _copy(value, rules, constants)
    return copy


# --- calling a rule by its symbol -----------------------------------------------------------------------------
def rule_by_symbol(placeholder: str, rule: Callable[..., Any]) -> Callable[..., Any]:
    """What compiled code calls instead of the compiled ``rule`` so that its code is not linked in (the rule
    compiled, or loaded, once now, for the argument types of ``placeholder``: ``"game_legal_bits"``...).

    The calls a template's copy makes (see :func:`specialise`); :class:`~mancala_envs.games.game.Game` binds
    a rules module's ``reset_state`` with its call of ``legal_bits`` made this way.
    """
    return _by_symbol(placeholder, rule)


def _by_symbol(placeholder: str, rule: Callable[..., Any]) -> Callable[..., Any]:
    """What a template's ``placeholder`` becomes in a compiled copy: a call of the rule's one compiled
    version through a symbol of this module (the game's ``step`` goes through :func:`called`).

    A call of a compiled function from compiled code makes numba link the callee's code into the
    caller's and optimise it again there: each kernel would compile the game's rules once more (seconds
    each). A call by symbol links nothing: the process compiles (or loads) each rule once, the kernels
    jump to it, and the code of a cached kernel names the symbol, which each process binds to its own
    copy of the rule before it compiles or loads a kernel. The call is numba's own calling convention
    (as a linked call, or one of numba's first-class functions), so it costs what a linked call costs;
    an error the rule raises propagates as from any call. With numba's JIT off it is the rule itself.
    """
    if config.DISABLE_JIT or not hasattr(rule, "py_func"):
        return rule
    key = (id(rule), placeholder)
    caller = _BY_SYMBOL.get(key)
    if caller is None:
        compiled: Any = called(rule) if placeholder == "game_step" else rule  # a numba dispatcher (untyped)
        arguments = tuple(sigutils.normalize_signature(_RULE_ARGUMENTS[placeholder])[0])
        result = compiled.overloads.get(arguments)
        if result is None:  # compiled here, or loaded from numba's cache
            compiled.compile(arguments)
            result = compiled.overloads[arguments]
        function: Any = rule  # a numba dispatcher (untyped)
        # Named after the rule's source code (its code object's name), which a copy of the rule keeps
        # (Game's reset_state with legal_bits by symbol): a kernel cached before the copy calls it all the same.
        symbol = f"mancala_envs.rule:{function.py_func.__module__}.{function.py_func.__code__.co_qualname}"
        llvm.add_symbol(symbol, result.library.get_pointer_to_function(result.fndesc.llvm_func_name))
        caller = _BY_SYMBOL[key] = _symbol_call(symbol, result.signature)
    return caller


def _symbol_call(symbol: str, signature: Any) -> Callable[..., Any]:
    """An intrinsic that calls the compiled function bound to ``symbol``, whose signature is
    ``signature`` (the arguments are converted to its types, as a call of that function would)."""

    def typer(typing_context: Any, given: tuple[Any, ...]) -> Any:
        if len(given) != len(signature.args):
            return None
        if not all(typing_context.can_convert(have, want) for have, want in zip(given, signature.args, strict=True)):
            return None

        def codegen(context: Any, builder: Any, call: Any, values: Any) -> Any:
            values = [  # as many of each: the typer above accepted only that many arguments
                context.cast(builder, value, have, want)
                for value, have, want in zip(values, call.args, signature.args, strict=True)
            ]
            function_type = context.call_conv.get_function_type(signature.return_type, signature.args)
            function = cgutils.get_or_insert_function(builder.module, function_type, symbol)
            status, result = context.call_conv.call_function(
                builder, function, signature.return_type, signature.args, values
            )
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return result

        return signature.return_type(*given), codegen

    # numba's intrinsic reads the arity from the signature: one function per arity
    def rule_2(typing_context: Any, a: Any, b: Any) -> Any:
        return typer(typing_context, (a, b))

    def rule_3(typing_context: Any, a: Any, b: Any, c: Any) -> Any:
        return typer(typing_context, (a, b, c))

    def rule_4(typing_context: Any, a: Any, b: Any, c: Any, d: Any) -> Any:
        return typer(typing_context, (a, b, c, d))

    def rule_5(typing_context: Any, a: Any, b: Any, c: Any, d: Any, e: Any) -> Any:
        return typer(typing_context, (a, b, c, d, e))

    arity = len(signature.args)
    by_arity: dict[int, Callable[..., Any]] = {2: rule_2, 3: rule_3, 4: rule_4, 5: rule_5}
    if arity not in by_arity:
        raise TypeError(f"a rule takes 2 to 5 arguments (got {arity}).")
    rule = by_arity[arity]
    rule.__name__ = rule.__qualname__ = symbol.rpartition(".")[2]
    return intrinsic(rule)


def _names_used(template: Callable[..., Any], seen: frozenset[Any] = frozenset()) -> set[str]:
    """The global names that ``template`` and the templates it calls (transitively) read: a constant
    fixes a copy only where it is read, so a template that never reads it has one copy for all values."""
    names = code_global_names(template.__code__)
    for name in list(names):
        value = template.__globals__.get(name)
        if is_template(value) and value not in seen:
            names |= _names_used(value, seen | {template})
    return names


def code_global_names(code: types.CodeType) -> set[str]:
    """The global names ``code`` (and the code nested in it: comprehensions, inner functions) reads."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= code_global_names(constant)
    return names
