"""Every game and named variant, registered by id.

Importing :mod:`mancala_envs` registers each id below in PettingZoo's AEC
registry, so ``pettingzoo.make("aec", "mancala/ouril-mini-v0")`` works, and
:func:`make` / :func:`list_envs` give the same ids (and the plain game names
such as ``"ouril_v0"``) without going through PettingZoo.

It also registers each variant with Gymnasium as the single-agent view
(:class:`~mancala_envs.single_agent.SingleAgentEnv`) under a CamelCase id:
``mancala/ouril-mini-v0`` becomes ``mancala/OurilMini-v0``, so
``gymnasium.make("mancala_envs:mancala/Ouril-v0", opponent="greedy")`` works
from a fresh interpreter (Gymnasium imports ``mancala_envs`` first).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pettingzoo.env_registry.registration import aec_registry, register

__all__ = ["NAMESPACE", "VARIANTS", "EnvVariant", "gymnasium_id", "list_envs", "list_gymnasium_envs", "make", "register_all"]

NAMESPACE = "mancala"


@dataclass(frozen=True)
class EnvVariant:
    """A registered environment: a game module plus fixed, JSON-serialisable options.

    Attributes:
        id: The registry id, e.g. ``"mancala/ouril-mini-v0"``.
        module: The public game module (``mancala_envs.envs.<name>``).
        kwargs: Options passed to the module's ``env`` function.
        description: One line for ``list_envs(verbose=True)``.
    """

    id: str
    module: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    @property
    def entry_point(self) -> str:
        """The ``module:function`` string PettingZoo imports."""
        return f"{self.module}:env"

    @property
    def gymnasium_id(self) -> str:
        """The id of the single-agent view in Gymnasium's registry (``mancala/OurilMini-v0``)."""
        return gymnasium_id(self.id)


VARIANTS: tuple[EnvVariant, ...] = (
    EnvVariant("mancala/ouril-v0", "mancala_envs.envs.ouril_v0", {}, "Ouril, 2x6, 4 seeds per pit"),
    EnvVariant(
        "mancala/ouril-mini-v0",
        "mancala_envs.envs.ouril_v0",
        {"pits_per_row": 4},
        "Ouril on the 2x4 board for children and beginners",
    ),
    EnvVariant("mancala/urim-v0", "mancala_envs.envs.urim_v0", {}, "Urim, 2x6, 3 seeds per pit (T = 36)"),
    EnvVariant(
        "mancala/urim7-v0",
        "mancala_envs.envs.urim_v0",
        {"pits_per_row": 7},
        "Urim on the 2x7 board, 3 seeds per pit (T = 42)",
    ),
    EnvVariant(
        "mancala/urim48-v0",
        "mancala_envs.envs.urim_v0",
        {"seeds_per_pit": 4},
        "Urim with 4 seeds per pit (T = 48, the Mancala World reading)",
    ),
    EnvVariant(
        "mancala/urim-match-v0",
        "mancala_envs.envs.urim_v0",
        {"match_target": 10},
        "Urim match: games until a player has 10 match points",
    ),
    EnvVariant("mancala/modiar-v0", "mancala_envs.envs.modiar_v0", {}, "Modiar, 2x3, 7 stones per pit (T = 42)"),
    EnvVariant(
        "mancala/rio-kadalis-v0",
        "mancala_envs.envs.rio_kadalis_v0",
        {},
        "Rio Kadalis, 2x6, 4 seeds per pit, relay sowing, fours",
    ),
    EnvVariant(
        "mancala/rio-kadalis5-v0",
        "mancala_envs.envs.rio_kadalis_v0",
        {"pits_per_row": 5},
        "Rio Kadalis on the 2x5 board (Habr Awal, T = 40)",
    ),
    EnvVariant(
        "mancala/rio-kadalis-cw-v0",
        "mancala_envs.envs.rio_kadalis_v0",
        {"direction": "cw"},
        "Rio Kadalis sown clockwise",
    ),
    EnvVariant(
        "mancala/rio-kadalis-match-v0",
        "mancala_envs.envs.rio_kadalis_v0",
        {"match": True},
        "Rio Kadalis match: refill, closed pits, until a player cannot fill a pit",
    ),
    EnvVariant(
        "mancala/omweso-v0",
        "mancala_envs.envs.omweso_v0",
        {},
        "Omweso, 4x8, 64 seeds, 4 in each outer pit, relay sowing, reverse captures",
    ),
    EnvVariant(
        "mancala/omweso-two-each-v0",
        "mancala_envs.envs.omweso_v0",
        {"setup": "two_each"},
        "Omweso starting with 2 seeds in every pit",
    ),
    EnvVariant(
        "mancala/omweso-placement-v0",
        "mancala_envs.envs.omweso_v0",
        {"setup": "placement"},
        "Omweso with a placement phase: each player arranges 32 seeds (at most 10 per pit)",
    ),
    EnvVariant(
        "mancala/omweso-no-midturn-reverse-v0",
        "mancala_envs.envs.omweso_v0",
        {"midturn_reverse": False},
        "Omweso where only the opening lap may be clockwise (no mid-turn choices)",
    ),
    EnvVariant(
        "mancala/omweso-match-v0",
        "mancala_envs.envs.omweso_v0",
        {"match_target": 12},
        "Omweso match: games until a player has 12 points (akawumbi wins at once)",
    ),
)

_GAME_NAMES = {
    "ouril_v0": "mancala/ouril-v0",
    "urim_v0": "mancala/urim-v0",
    "modiar_v0": "mancala/modiar-v0",
    "rio_kadalis_v0": "mancala/rio-kadalis-v0",
    "omweso_v0": "mancala/omweso-v0",
}


def gymnasium_id(env_id: str) -> str:
    """The Gymnasium id of a PettingZoo id: ``"mancala/rio-kadalis-cw-v0"`` -> ``"mancala/RioKadalisCw-v0"``."""
    namespace, name = env_id.split("/", 1)
    stem, version = name.rsplit("-v", 1)
    return f"{namespace}/{''.join(part.capitalize() for part in stem.split('-'))}-v{version}"


GYMNASIUM_ENTRY_POINT = "mancala_envs.single_agent:SingleAgentEnv"
#: what ``gymnasium.make_vec(id, num_envs)`` builds by default (``vectorization_mode="vector_entry_point"``):
#: the games stepped by one compiled call; ``vectorization_mode="sync"``/``"async"`` vectorise SingleAgentEnv
GYMNASIUM_VECTOR_ENTRY_POINT = "mancala_envs.vector:MancalaVectorEnv"


def register_all() -> None:
    """Registers every variant with PettingZoo, and its single-agent view with Gymnasium (idempotent).

    The Gymnasium kwargs are plain JSON (the PettingZoo id and the default opponent), so
    ``EnvSpec.to_json()`` round-trips; every keyword of ``gymnasium.make`` overrides them.
    """
    import gymnasium

    for variant in VARIANTS:
        if variant.id not in aec_registry:
            register("aec", variant.id, entry_point=variant.entry_point, kwargs=dict(variant.kwargs))
        if variant.gymnasium_id not in gymnasium.registry:
            gymnasium.register(
                variant.gymnasium_id,
                entry_point=GYMNASIUM_ENTRY_POINT,
                vector_entry_point=GYMNASIUM_VECTOR_ENTRY_POINT,
                kwargs={"env_id": variant.id, "opponent": "random"},
                disable_env_checker=True,
            )


def list_gymnasium_envs() -> list[str]:
    """The Gymnasium ids of the single-agent views, one per variant."""
    return [variant.gymnasium_id for variant in VARIANTS]


def _find(env_id: str) -> EnvVariant:
    if not isinstance(env_id, str):
        raise TypeError(f"env id must be a string such as 'ouril_v0' (got {type(env_id).__name__}).")
    wanted = _GAME_NAMES.get(env_id, env_id)
    if "/" not in wanted:
        wanted = f"{NAMESPACE}/{wanted}"
    wanted = wanted.replace("_v", "-v") if wanted.rsplit("_v", 1)[-1].isdigit() else wanted
    for variant in VARIANTS:
        if variant.id == wanted:
            return variant
    raise ValueError(f"unknown environment {env_id!r}; choose one of {list_envs()}.")


def make(env_id: str, **kwargs: Any):
    """Creates a registered environment (wrapped as by its module's ``env``).

    Args:
        env_id: A game name such as ``"ouril_v0"`` or a registry id such as
            ``"mancala/ouril-mini-v0"`` (the namespace may be left out).
        **kwargs: Game and environment options; they override the variant's.

    Returns:
        The AEC environment.

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=1)
        >>> env.agent_selection
        'player_0'
    """
    import importlib

    variant = _find(env_id)
    module = importlib.import_module(variant.module)
    options = {**variant.kwargs, **kwargs}
    return module.env(**options)


def list_envs(verbose: bool = False) -> list[str]:
    """Returns the game names and every registered id.

    Args:
        verbose: Append each variant's description (``"id: description"``).
    """
    names = list(_GAME_NAMES)
    if verbose:
        return names + [f"{v.id}: {v.description}" for v in VARIANTS]
    return names + [v.id for v in VARIANTS]
