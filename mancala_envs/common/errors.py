"""Exceptions raised by mancala_envs."""

from __future__ import annotations

__all__ = ["GameOverError", "IllegalActionError", "is_ctrl_c"]


class IllegalActionError(ValueError):
    """An action is in range but not legal in the current position."""


class GameOverError(RuntimeError):
    """``step`` was called after the episode ended."""


def is_ctrl_c(error: BaseException | None) -> bool:
    """Whether ``error`` is Ctrl-C: a ``KeyboardInterrupt``, or the ``SystemError`` numba raises when the interrupt
    lands while compiled code calls back into Python (``returned a result with an exception set``, with the
    ``KeyboardInterrupt`` as its cause). The long work (``run_tournament``,
    ``mancala_envs.training.trainer.train``, the commands) treats both as Ctrl-C and keeps what it made."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        if not isinstance(error, SystemError):
            return False
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False
