"""A record of what the last ply did: the pits it sowed and the pits it captured.

The engine writes into a caller-owned ``int64`` array so that recording costs
no allocation. A zero-length array switches recording off (random play and
search use that)::

    trace[0]                       number of seeds sown (may exceed SOWN_CAPACITY)
    trace[1]                       number of captured pits
    trace[2 : 2 + SOWN_CAPACITY]   pits in the order they received a seed
    trace[CAPTURES : ...]          (pit, seeds) pairs in capture order
"""

from __future__ import annotations

import numpy as np

from mancala_envs.engine.jit import njit

__all__ = [
    "CAPTURE_CAPACITY",
    "SOWN_CAPACITY",
    "TRACE_SIZE",
    "new_trace",
    "read_trace",
    "trace_capture",
    "trace_clear",
    "trace_sow",
]

SOWN_CAPACITY = 4096
CAPTURE_CAPACITY = 256
_SOWN = 2
_CAPTURES = _SOWN + SOWN_CAPACITY
TRACE_SIZE = _CAPTURES + 2 * CAPTURE_CAPACITY


def new_trace() -> np.ndarray:
    """Returns an empty trace buffer ready for the engine to fill."""
    return np.zeros(TRACE_SIZE, dtype=np.int64)


@njit(cache=True, inline="always", error_model="numpy")
def trace_clear(trace: np.ndarray) -> None:
    """Forgets the previous ply's record."""
    if trace.shape[0] == 0:
        return
    trace[0] = 0
    trace[1] = 0


@njit(cache=True, inline="always", error_model="numpy")
def trace_sow(trace: np.ndarray, pit: int) -> None:
    """Records that ``pit`` received one seed."""
    if trace.shape[0] == 0:
        return
    count = trace[0]
    if count < SOWN_CAPACITY:
        trace[_SOWN + count] = pit
    trace[0] = count + 1


@njit(cache=True, inline="always", error_model="numpy")
def trace_capture(trace: np.ndarray, pit: int, seeds: int) -> None:
    """Records that ``seeds`` seeds were captured from ``pit``."""
    if trace.shape[0] == 0:
        return
    count = trace[1]
    if count < CAPTURE_CAPACITY:
        trace[_CAPTURES + 2 * count] = pit
        trace[_CAPTURES + 2 * count + 1] = seeds
    trace[1] = count + 1


def read_trace(trace: np.ndarray) -> tuple[list[int], list[list[int]]]:
    """Decodes a trace buffer.

    Args:
        trace: A buffer filled by the engine.

    Returns:
        The sown pits in order (at most ``SOWN_CAPACITY`` of them) and the
        ``[pit, seeds]`` captures in order.
    """
    sown = trace[_SOWN : _SOWN + min(trace.item(0), SOWN_CAPACITY)].tolist()
    capture_count = trace.item(1)
    if capture_count == 0:
        return sown, []
    flat = trace[_CAPTURES : _CAPTURES + 2 * min(capture_count, CAPTURE_CAPACITY)].tolist()
    return sown, [flat[i : i + 2] for i in range(0, len(flat), 2)]
