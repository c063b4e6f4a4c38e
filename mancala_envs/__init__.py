"""mancala-envs: traditional mancala games as reinforcement-learning environments.

Importing the package registers every game and variant with PettingZoo::

    import mancala_envs, pettingzoo
    env = pettingzoo.make("aec", "mancala/ouril-v0")
    env = mancala_envs.make("urim_v0", seeds_per_pit=4)

and registers the single-agent view of each with Gymnasium::

    import gymnasium
    env = gymnasium.make("mancala_envs:mancala/Ouril-v0", opponent="random")

A game's rules are compiled by numba at its first use in a process (cached on disk after that);
``mancala_envs.warm_up(["ouril_v0", "mancala/Kalah-v0"])`` compiles them ahead of use, for images
and cluster jobs (``docs/install.md``).
"""

from __future__ import annotations

from types import ModuleType

from mancala_envs.common.errors import GameOverError, IllegalActionError
from mancala_envs.common.moved import install_moved_module_finder, moved_attribute
from mancala_envs.envs import public_modules
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.envs.registration import VARIANTS, list_envs, list_gymnasium_envs, make, register_all
from mancala_envs.integrations.experiment_config import make_from_config
from mancala_envs.training.warm_up import warm_up
from mancala_envs.views.single_agent_env import SingleAgentEnv

__all__ = [
    "VARIANTS",
    "GameOverError",
    "IllegalActionError",
    "MancalaEnv",
    "SingleAgentEnv",
    "__version__",
    "list_envs",
    "list_gymnasium_envs",
    "make",
    "make_from_config",
    "warm_up",
]

# The public game modules (ouril_v0, urim_v0, ...), one per game of mancala_envs.games.GAME_MODULES.
globals().update(public_modules())
__all__ += list(public_modules())

#: the one place the version is written: pyproject.toml reads it ([tool.setuptools.dynamic])
__version__ = "0.1.0"


def __getattr__(name: str) -> ModuleType:
    # the modules that moved in 0.2.0, as attributes (mancala_envs.vector...): they warn
    return moved_attribute(__name__, name)


install_moved_module_finder()
register_all()
