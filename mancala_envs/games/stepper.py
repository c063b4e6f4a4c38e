"""A game played from Python at the cost of one small compiled call a ply: :class:`Stepper`.

:meth:`Game.step <mancala_envs.games.game.Game.step>` takes four arguments, three of them arrays, and
numba's dispatch and the unboxing of those arrays cost several times a ply of compiled work (a Kalah
ply is about 45 ns; a call of ``Game.step`` about 300 ns more). A search written in Python calls it in
its innermost loop. A :class:`Stepper` (``game.stepper()``) owns one ``int64`` buffer holding the
state, the game's params and (optionally) the trace, checks it once at construction, finds the entry
points of its compiled functions once, and then calls them with two Python ints: the buffer's address
and the action. :meth:`Stepper.step` returns the legal actions of the position it reaches as a bit
mask (0 once the game is over), so that a loop needs one call a ply::

    stepper = game.stepper()
    bits = stepper.reset(0)
    while bits:
        legal = [a for a in range(game.n_actions) if bits >> a & 1]
        bits = stepper.step(legal[0])

The compiled functions are per-game templates (:mod:`mancala_envs.engine.kernels`): each calls the
game's ``reset_state`` and ``step`` by symbol, so a stepper compiles two small functions of its own
and none of the rules again (the rules the environment compiles are shared), and compiles them only
when a stepper is first made.

Nothing a caller passes reaches the compiled code unchecked: the action must be an ``int`` (or a
numpy integer) and is refused (``ValueError``) out of range, when not legal, or after the end;
:meth:`Stepper.load` checks a state with :meth:`Game.check_state <mancala_envs.games.game.Game.check_state>`
before copying it in. The buffer is the stepper's own and never handed out writable.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic

from mancala_envs.engine.kernels import game_reset, game_step, per_game
from mancala_envs.engine.state import GAME_OVER, ILLEGAL, LEGAL, PLAYER, STATUS
from mancala_envs.engine.trace import TRACE_SIZE, read_trace

if TYPE_CHECKING:
    from mancala_envs.games.game import Game

__all__ = ["Stepper"]

#: the buffer's first slots: where the params start, where the trace starts, where the buffer ends
PARAMS_START = 0
TRACE_START = 1
BUFFER_END = 2
#: the state starts after these slots
HEAD = 3


# --- the compiled side --------------------------------------------------------------------------------------
@intrinsic
def _slots_at(typingctx: Any, address: types.Type, length: types.Type) -> Any:
    """A 1-d C-contiguous ``int64`` array of ``length`` slots at memory ``address``, owning nothing (null
    meminfo: no reference counting). Only for the address of a live buffer the caller keeps alive."""
    if not isinstance(address, types.Integer) or not isinstance(length, types.Integer):
        return None
    array_type = types.Array(types.int64, 1, "C")

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        pointer = builder.inttoptr(
            context.cast(builder, args[0], signature.args[0], types.intp),
            context.get_value_type(types.CPointer(types.int64)),
        )
        array = context.make_array(array_type)(context, builder)
        context.populate_array(
            array,
            data=pointer,
            shape=[context.cast(builder, args[1], signature.args[1], types.intp)],
            strides=[context.get_constant(types.intp, 8)],
            itemsize=context.get_constant(types.intp, 8),
            meminfo=None,
        )
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()

    return array_type(address, length), codegen


@per_game()
def stepper_step(address: int, action: int) -> int:
    """Plays ``action`` in the buffer at ``address``: the legal bits of the position reached (0 once the
    game is over), or ``-ILLEGAL`` / ``-GAME_OVER`` with nothing changed."""
    head = _slots_at(address, HEAD)
    buffer = _slots_at(address, head[BUFFER_END])
    state = buffer[HEAD : head[PARAMS_START]]
    code = game_step(state, buffer[head[PARAMS_START] : head[TRACE_START]], action, buffer[head[TRACE_START] :])
    if code != 0:
        return -code
    return state[LEGAL]


@per_game()
def stepper_reset(address: int, first_player: int) -> int:
    """Writes the opening with ``first_player`` to move into the buffer at ``address``; its legal bits."""
    head = _slots_at(address, HEAD)
    buffer = _slots_at(address, head[BUFFER_END])
    state = buffer[HEAD : head[PARAMS_START]]
    game_reset(state, buffer[head[PARAMS_START] : head[TRACE_START]], first_player)
    return state[LEGAL]


# --- the Python side ----------------------------------------------------------------------------------------
def _python_entry(function: Any, game: Game, buffer: np.ndarray) -> Any:
    """``function``'s stand-in with numba's JIT off: the same call on views of ``buffer``."""
    state = buffer[HEAD : buffer[PARAMS_START]]
    params = buffer[buffer[PARAMS_START] : buffer[TRACE_START]]
    trace = buffer[buffer[TRACE_START] :]
    if function is stepper_step:

        def step(address: int, action: int) -> int:
            code = game.step_function(state, params, action, trace)
            return -int(code) if code else int(state[LEGAL])

        return step

    def reset(address: int, first_player: int) -> int:
        game.reset_function(state, params, first_player)
        return int(state[LEGAL])

    return reset


class Stepper:
    """One game of ``game`` played from Python, one compiled call a ply (made by :meth:`Game.stepper`).

    Attributes:
        game: The game whose rules it plays.
    """

    game: Game

    def __init__(self, game: Game, first_player: int = 0, *, trace: bool = False) -> None:
        """Builds the buffer and finds the compiled entry points (compiled here the first time in a process).

        Args:
            game: The game to play.
            first_player: Who moves first in the opening the stepper starts from.
            trace: Whether each ply records the pits it sowed and captured (:meth:`last_trace`).

        Raises:
            ValueError: ``first_player`` is not 0 or 1.
        """
        _check_player(first_player)
        params = np.ascontiguousarray(game.params, dtype=np.int64)
        params_start = HEAD + game.state_size
        trace_start = params_start + params.size
        buffer = np.zeros(trace_start + (TRACE_SIZE if trace else 0), dtype=np.int64)
        buffer[PARAMS_START], buffer[TRACE_START], buffer[BUFFER_END] = params_start, trace_start, buffer.size
        buffer[params_start:trace_start] = params
        self._setup(game, buffer, _entries(game))
        self.reset(first_player)

    def _setup(self, game: Game, buffer: np.ndarray, entries: tuple[Any, Any]) -> None:
        # The checks the compiled code relies on, made once: its own buffer, int64, 1-d, C-contiguous, aligned.
        if not (
            buffer.dtype == np.int64
            and buffer.ndim == 1
            and buffer.flags.c_contiguous
            and buffer.flags.aligned
            and buffer.flags.owndata
            and buffer.size == buffer[BUFFER_END]
        ):
            raise RuntimeError("a stepper's buffer must be its own C-contiguous int64 array (an internal error).")
        self.game = game
        self._buffer = buffer
        self._address = buffer.ctypes.data
        params_start = int(buffer[PARAMS_START])
        self._state = buffer[HEAD:params_start]
        self._view = buffer[HEAD:params_start]
        self._view.flags.writeable = False
        self._entries = entries
        step_entry, reset_entry = entries
        if config.DISABLE_JIT:
            step_entry = _python_entry(stepper_step, game, buffer)
            reset_entry = _python_entry(stepper_reset, game, buffer)
        self._step = functools.partial(step_entry, self._address)
        self._reset = functools.partial(reset_entry, self._address)

    @property
    def state(self) -> np.ndarray:
        """A read-only view of the live state (it changes with each ply; ``np.array(stepper.state)`` keeps a
        copy), the array the :class:`~mancala_envs.games.game.Game` methods read (``game.board(stepper.state)``)."""
        return self._view

    # --- playing ----------------------------------------------------------------------------------------------
    def reset(self, first_player: int = 0) -> int:
        """Starts a new game (a match: a new match) with ``first_player`` to move.

        Returns:
            The legal actions of the opening as a bit mask (bit ``k``: action ``k``).

        Raises:
            ValueError: ``first_player`` is not 0 or 1.
        """
        if type(first_player) is not int or first_player >> 1:  # the fast path: a Python 0 or 1
            _check_player(first_player)
            first_player = int(first_player)
        return self._reset(first_player)

    def step(self, action: int) -> int:
        """Plays ``action`` for the player to move (``Game.step``'s rules and codes, checked).

        Args:
            action: A legal action, an ``int`` (or numpy integer) in ``0 .. n_actions - 1``.

        Returns:
            The legal actions of the position reached as a bit mask, for the player then to move; 0 once
            the game (a match: the whole match) is over.

        Raises:
            TypeError: ``action`` is not an integer.
            ValueError: ``action`` is out of range or not legal here, or the game is over; nothing changed.
        """
        if type(action) is int:  # the fast path: a Python int, played at once
            try:
                bits: int = self._step(action)
            except OverflowError:  # beyond int64: refused below
                bits = -ILLEGAL
            if bits >= 0:
                return bits
        return self._checked_step(action)

    def _checked_step(self, action: Any) -> int:
        """:meth:`step` for a numpy integer, and every refusal."""
        if type(action) is not int and (not isinstance(action, np.integer) or isinstance(action, np.bool_)):
            raise TypeError(
                f"action must be an int in 0..{self.game.n_actions - 1} (got {type(action).__name__} {action!r}); "
                "pass one of the legal actions, e.g. from stepper.legal_actions()."
            )
        action = int(action)
        try:
            bits: int = self._step(action)
        except OverflowError:
            bits = -ILLEGAL
        if bits < 0:
            self._refuse(-bits, action)
        return bits

    def _refuse(self, code: int, action: int) -> None:
        n_actions = self.game.n_actions
        if code == GAME_OVER:
            raise ValueError(
                f"the game is over (action {action} refused); call stepper.reset() to start a new one, or check "
                "the bits step() returns: 0 means the game has ended."
            )
        if not 0 <= action < n_actions:
            raise ValueError(f"action {action} is out of range; use an action in 0..{n_actions - 1}.")
        raise ValueError(
            f"action {action} is not legal here; the legal actions are {self.legal_actions()} "
            "(stepper.legal_actions(), or the bits step() and reset() return)."
        )

    # --- reading ----------------------------------------------------------------------------------------------
    def legal_bits(self) -> int:
        """The legal actions of the player to move as a bit mask (0 once the game is over)."""
        return int(self._state[LEGAL])

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to move, in increasing order (empty once the game is over)."""
        bits = int(self._state[LEGAL])
        return [action for action in range(self.game.n_actions) if bits >> action & 1]

    def legal_mask(self) -> np.ndarray:
        """The legal actions of the player to move as a new int8 mask of ``n_actions`` entries."""
        return self.game.legal_mask(self._state)

    @property
    def player(self) -> int:
        """The player to move (0 or 1)."""
        return int(self._state[PLAYER])

    @property
    def status(self) -> int:
        """``RUNNING``, ``TERMINATED`` or ``TRUNCATED`` (see :mod:`mancala_envs.engine.state`)."""
        return int(self._state[STATUS])

    def last_trace(self) -> tuple[list[int], list[list[int]]]:
        """What the last ply did: the pits it sowed, in order, and the ``(pit, seeds)`` it captured.

        Raises:
            ValueError: the stepper was made without ``trace=True``.
        """
        trace = self._buffer[int(self._buffer[TRACE_START]) :]
        if trace.size == 0:
            raise ValueError("this stepper records no trace; make it with game.stepper(trace=True).")
        return read_trace(trace)

    # --- copies and positions ---------------------------------------------------------------------------------
    def clone(self) -> Stepper:
        """An independent stepper at the same position (for a search: play on the copy, keep this one)."""
        twin = Stepper.__new__(Stepper)
        twin._setup(self.game, self._buffer.copy(), self._entries)
        return twin

    __copy__ = clone

    def __deepcopy__(self, memo: dict[int, Any]) -> Stepper:
        return self.clone()

    def copy_from(self, other: Stepper) -> None:
        """Takes ``other``'s position (a stepper of the same game and config), without checks beyond that.

        Raises:
            TypeError: ``other`` is not a stepper of an equal game (same class and config).
        """
        if (
            not isinstance(other, Stepper)
            or type(other.game) is not type(self.game)
            or other.game.config != self.game.config
        ):
            raise TypeError(
                f"copy_from takes a Stepper of {self.game.env_name} with the same config (got "
                f"{type(other).__name__}); load() takes a state array."
            )
        self._state[:] = other._state

    def load(self, state: Any) -> None:
        """Replaces the position by ``state``, a copy of a state of this game (``env.unwrapped.state_array``,
        ``game.new_state(0)``, ``np.array(stepper.state)``), checked first: nothing changes if it fails.

        Raises:
            TypeError: ``state`` is not a writable, C-contiguous 1-d ``int64`` array of ``game.state_size``.
            ValueError: no game reaches ``state`` (the message names the first inconsistency).
        """
        self.game.check_state(state)
        self._state[:] = state

    def __getstate__(self) -> dict[str, Any]:
        return {"game": self.game, "buffer": self._buffer}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        game, buffer = saved["game"], np.array(saved["buffer"], dtype=np.int64)
        self._setup(game, buffer, _entries(game))

    def __repr__(self) -> str:
        return (
            f"Stepper({self.game.env_name}, player={self.player}, status={self.status}, legal={self.legal_bits():#b})"
        )


def _check_player(first_player: Any) -> None:
    if (type(first_player) is not int and not isinstance(first_player, np.integer)) or first_player not in (0, 1):
        raise ValueError(f"first_player={first_player!r} must be 0 or 1 (the player who moves first).")


#: (step, reset) entry points by rules module
_ENTRIES: dict[Any, tuple[Any, Any]] = {}


def _entries(game: Game) -> tuple[Any, Any]:
    """The compiled ``stepper_step`` and ``stepper_reset`` of ``game``'s rules as ``(address, int)`` calls
    that skip numba's dispatch (compiled, or loaded from numba's cache, at the first call in a process)."""
    key = (game.step_function, game.reset_function)
    entries = _ENTRIES.get(key)
    if entries is None:
        if config.DISABLE_JIT:
            entries = (stepper_step, stepper_reset)
        else:
            found = []
            for template in (stepper_step, stepper_reset):
                compiled: Any = game.compiled(template)
                signature = (types.int64, types.int64)
                if signature not in compiled.overloads:
                    compiled.compile(signature)
                found.append(compiled.overloads[signature].entry_point)
            entries = (found[0], found[1])
        _ENTRIES[key] = entries
    return entries
