"""The compiled mechanisms that several games share; the engine knows no game.

- the state: :mod:`~mancala_envs.engine.state` (the shared header, status values, end reasons, return codes),
  :mod:`~mancala_envs.engine.layout` (how a game declares its slots, params and observation once),
  :mod:`~mancala_envs.engine.setup` (starting a game, the refusal check of every step);
- sowing and capturing: :mod:`~mancala_envs.engine.sowing`, :mod:`~mancala_envs.engine.relay`,
  :mod:`~mancala_envs.engine.capture`, :mod:`~mancala_envs.engine.sow_capture` (the Oware-family ply);
- ending: :mod:`~mancala_envs.engine.ending`, :mod:`~mancala_envs.engine.repetition`;
- compiling: :mod:`~mancala_envs.engine.jit` (``njit`` and its cache), :mod:`~mancala_envs.engine.kernels`
  (loops compiled for one game at a time);
- helpers of compiled code: :mod:`~mancala_envs.engine.prng`, :mod:`~mancala_envs.engine.trace`,
  :mod:`~mancala_envs.engine.board_views`, :mod:`~mancala_envs.engine.arrays`, :mod:`~mancala_envs.engine.boards`.

``docs/architecture.md`` describes how the games call them.
"""

from __future__ import annotations

import types

from mancala_envs.common.moved import moved_attribute


def __getattr__(name: str) -> types.ModuleType:
    # the submodules that moved in 0.2.0, as attributes: they warn (mancala_envs.common.moved)
    return moved_attribute(__name__, name)
