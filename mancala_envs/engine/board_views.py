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
``mancala_envs.envs.batch._play_out``, the ply loop of ``play_random``, borrows its four arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["borrowed_view"]


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
