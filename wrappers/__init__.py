"""Observation-encoding wrappers, installed as ``mancala_envs.wrappers``."""

from __future__ import annotations

from mancala_envs.wrappers.flatten import FlattenObservation

__all__ = ["FlattenObservation"]
