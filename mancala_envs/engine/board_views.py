"""Borrowed array views: arrays that the compiled per-ply loops pass around without reference counting.

Every array a compiled function receives is reference-counted: numba takes a reference when the
function starts (or an inlined body binds its arguments) and gives it back when it ends, and each of
those is an atomic add on the array's counter. A ply of a two-row game costs about 140 ns, and the six
atomic adds of one call of a game's ``step`` (state, params, trace) took a quarter of it (``perf`` put 25% of
the samples of random Ouril play in ``NRT_incref`` and ``NRT_decref``).

:func:`borrowed_view` returns a view of an array with no owner (a null ``meminfo``): numba's reference
counting skips it. The view is only valid while its source array is alive. Borrow only a function's
*arguments*: the caller holds them for the whole call. A local array may be freed right after its last
use, which the creation of the view can be. Never store or return a view.
``mancala_envs.envs.batch._play_out``, the ply loop of ``play_random``, borrows its four arguments, and
every game's compiled ``step`` borrows its own (state, params, trace): a ply counts no references, whoever
calls it (``tests/engine/test_no_refcount.py`` checks the compiled code).

:func:`stack_board` is the other half: a scratch board on the stack of the compiled function that makes
it, with no owner either (a heap array would cost an allocation and its reference counting on every call).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["STACK_BOARD_SLOTS", "borrowed_view", "stack_board"]

#: the slots of a :func:`stack_board`: room for any board of the two-row games (2 x 8 pits at most) and more
STACK_BOARD_SLOTS = 64


def _borrowed_view_python(array: np.ndarray) -> np.ndarray:
    return array


@intrinsic
def _borrowed_view_compiled(typingctx: Any, array: types.Type) -> Any:
    if not isinstance(array, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(signature.args[0])(context, builder, args[0])
        view = context.make_array(signature.return_type)(context, builder)
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        view.nitems = source.nitems
        view.itemsize = source.itemsize
        view.data = source.data
        view.shape = source.shape
        view.strides = source.strides
        return view._getvalue()

    return array(array), codegen


# With numba's JIT disabled (NUMBA_DISABLE_JIT=1, the engine as plain Python) there is nothing to borrow.
borrowed_view = _borrowed_view_python if config.DISABLE_JIT else _borrowed_view_compiled
borrowed_view.__doc__ = """A view of ``array`` (same data, shape and strides) that owns no reference to it.

Only for compiled code, and only on an argument of the calling function (its caller keeps it alive);
never store or return the view. In plain Python (JIT disabled) it returns ``array`` itself.
"""


def _stack_board_python(slots: int) -> np.ndarray:
    return np.zeros(slots, np.int64)


@intrinsic
def _stack_board_compiled(typingctx: Any, slots: types.Type) -> Any:
    if not isinstance(slots, types.IntegerLiteral):
        return None
    size = slots.literal_value
    board_type = types.Array(types.int64, 1, "C")

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        # In the function's entry block: one frame slot however often the code runs, freed with the frame.
        data = cgutils.alloca_once(builder, context.get_value_type(types.int64), size=size)
        board = context.make_array(board_type)(context, builder)
        intp = context.get_value_type(types.intp)
        context.populate_array(
            board,
            data=data,
            shape=[intp(size)],
            strides=[intp(8)],
            itemsize=intp(8),
            meminfo=None,
        )
        return board._getvalue()

    return board_type(slots), codegen


stack_board = _stack_board_python if config.DISABLE_JIT else _stack_board_compiled
stack_board.__doc__ = """A scratch ``int64`` board of ``slots`` slots (a literal constant, such as
:data:`STACK_BOARD_SLOTS`) on the stack of the compiled function that calls it: no allocation, no owner, so
no reference counting. Its slots hold garbage until written.

Only for compiled code, and only inside the calling function: the memory goes with its frame, so never
store or return the board (or a view of it). In plain Python (JIT disabled) it returns a new zeroed array.
"""
