"""Exceptions raised by mancala_envs."""

from __future__ import annotations

__all__ = ["GameOverError", "IllegalActionError"]


class IllegalActionError(ValueError):
    """An action is in range but not legal in the current position."""


class GameOverError(RuntimeError):
    """``step`` was called after the episode ended."""
