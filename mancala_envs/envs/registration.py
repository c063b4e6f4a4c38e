"""Every game and named variant, registered by id.

Importing :mod:`mancala_envs` registers each id below in PettingZoo's AEC
registry, so ``pettingzoo.make("aec", "mancala/ouril-mini-v0")`` works, and
:func:`make` / :func:`list_envs` give the same ids (and the plain game names
such as ``"ouril_v0"``) without going through PettingZoo.

It also registers each variant with Gymnasium as the single-agent view
(:class:`~mancala_envs.views.single_agent_env.SingleAgentEnv`) under a CamelCase id:
``mancala/ouril-mini-v0`` becomes ``mancala/OurilMini-v0``, so
``gymnasium.make("mancala_envs:mancala/Ouril-v0", opponent="greedy")`` works
from a fresh interpreter (Gymnasium imports ``mancala_envs`` first). Every
keyword of ``SingleAgentEnv`` passes through, ``encoding=`` included
(``gymnasium.make("mancala/Ouril-v0", encoding="flat")``, and
``gymnasium.make_vec(id, num_envs, vectorization_mode="sync", encoding="flat")``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pettingzoo.env_registry.registration import aec_registry, register

from mancala_envs.games import game_classes
from mancala_envs.games.game import Game, config_from_kwargs

if TYPE_CHECKING:
    from mancala_envs.envs.aec_env import MancalaEnv

__all__ = [
    "NAMESPACE",
    "VARIANTS",
    "EnvVariant",
    "find_variant",
    "game_names",
    "gymnasium_id",
    "list_envs",
    "list_gymnasium_envs",
    "make",
    "make_game",
    "register_all",
    "resolve_env_id",
    "variant_of",
]

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


def _variants() -> tuple[EnvVariant, ...]:
    variants = []
    for cls in game_classes():
        module = f"mancala_envs.envs.{cls.name}_v{cls.version}"
        for variant in cls.variants:
            variants.append(
                EnvVariant(
                    f"{NAMESPACE}/{variant.name}-v{cls.version}", module, dict(variant.options), variant.description
                )
            )
    return tuple(variants)


def _game_names() -> dict[str, str]:
    return {
        f"{cls.name}_v{cls.version}": f"{NAMESPACE}/{cls.variants[0].name}-v{cls.version}" for cls in game_classes()
    }


#: every registered id, derived from the games' declared variants (:data:`mancala_envs.games.GAME_MODULES`);
#: :func:`register_all` brings it up to date with the list
VARIANTS: tuple[EnvVariant, ...] = _variants()

#: the plain game names (``"ouril_v0"``) and the id of each game's first variant
_GAME_NAMES = _game_names()


def gymnasium_id(env_id: str) -> str:
    """The Gymnasium id of a PettingZoo id: ``"mancala/rio-kadalis-cw-v0"`` -> ``"mancala/RioKadalisCw-v0"``."""
    namespace, name = env_id.split("/", 1)
    stem, version = name.rsplit("-v", 1)
    return f"{namespace}/{''.join(part.capitalize() for part in stem.split('-'))}-v{version}"


#: the ids register_all put in PettingZoo's and Gymnasium's registries (only these are taken out again)
_REGISTERED_AEC: set[str] = set()
_REGISTERED_GYMNASIUM: set[str] = set()

GYMNASIUM_ENTRY_POINT = "mancala_envs.views.single_agent_env:SingleAgentEnv"
#: what ``gymnasium.make_vec(id, num_envs)`` builds by default (``vectorization_mode="vector_entry_point"``):
#: the games stepped by one compiled call, every keyword (``opponent=``, ``encoding=``, ``autoreset_mode=``,
#: game options) passed to it; ``vectorization_mode="sync"``/``"async"`` vectorise SingleAgentEnv (any
#: opponent, and Gymnasium's ``wrappers=``, which it refuses for a vector entry point), which takes the same
#: ``encoding=`` and encodes with the same encoders
GYMNASIUM_VECTOR_ENTRY_POINT = "mancala_envs.views.vector_env:MancalaVectorEnv"


def register_all() -> None:
    """Registers every variant with PettingZoo, and its single-agent view with Gymnasium (idempotent).

    The Gymnasium kwargs are plain JSON (the PettingZoo id and the default opponent), so
    ``EnvSpec.to_json()`` round-trips; every keyword of ``gymnasium.make`` overrides them.

    It reads the list of games as it is now: after a game is added to :data:`mancala_envs.games.GAME_MODULES`
    (a plugin's game, the test suite's toy game), calling it again registers that game everywhere a game is
    registered (:data:`VARIANTS`, :func:`make`, :func:`list_envs`, :func:`game_names`, the public module
    ``mancala_envs.envs.<name>_v<version>``, PettingZoo's and Gymnasium's registries); after one is removed from
    the list, it unregisters that game's ids.

    Example:
        >>> from mancala_envs.envs.registration import game_names, register_all
        >>> register_all()  # the list is unchanged: nothing changes
        >>> game_names()[0]
        'ouril_v0'
    """
    import gymnasium

    from mancala_envs.envs import sync_public_modules

    global VARIANTS
    VARIANTS = _variants()
    _GAME_NAMES.clear()
    _GAME_NAMES.update(_game_names())
    sync_public_modules()
    for stale in _REGISTERED_AEC - {variant.id for variant in VARIANTS}:  # a game taken out of the list
        aec_registry.pop(stale, None)
        _REGISTERED_AEC.discard(stale)
    for stale in _REGISTERED_GYMNASIUM - {variant.gymnasium_id for variant in VARIANTS}:
        gymnasium.registry.pop(stale, None)
        _REGISTERED_GYMNASIUM.discard(stale)
    for variant in VARIANTS:
        if variant.id not in aec_registry:
            register("aec", variant.id, entry_point=variant.entry_point, kwargs=dict(variant.kwargs))
            _REGISTERED_AEC.add(variant.id)
        if variant.gymnasium_id not in gymnasium.registry:
            _REGISTERED_GYMNASIUM.add(variant.gymnasium_id)
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


def find_variant(env_id: str) -> EnvVariant:
    """The registered variant of ``env_id``: a game name (``"ouril_v0"``) or an id, with or without the
    ``mancala/`` namespace (``"ouril-mini-v0"``, ``"mancala/ouril-mini-v0"``).

    Raises:
        TypeError: ``env_id`` is not a string.
        ValueError: no such id; the message lists them.
    """
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


def variant_of(game: Game) -> EnvVariant | None:
    """The registered variant whose rules are ``game``'s (the same game and config), or None for a config no id
    registers (``make("ouril_v0", pits_per_row=5)``): what a record names as its env, and the description a
    prompt gives."""
    for variant in VARIANTS:
        same_game = variant.module.rsplit(".", 1)[-1] == game.env_name
        if same_game and config_from_kwargs(game.config_class, None, **variant.kwargs) == game.config:
            return variant
    return None


def make(env_id: str, **kwargs: Any) -> MancalaEnv:
    """Creates a registered environment (wrapped as by its module's ``env``).

    Args:
        env_id: A game name such as ``"ouril_v0"`` or a registry id such as
            ``"mancala/ouril-mini-v0"`` (the namespace may be left out).
        **kwargs: Game and environment options; they override the variant's.

    Returns:
        The AEC environment (a :class:`~mancala_envs.envs.aec_env.MancalaEnv`).

    Example:
        >>> import mancala_envs
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=1)
        >>> env.agent_selection
        'player_0'
    """
    variant = find_variant(env_id)
    module = importlib.import_module(variant.module)
    options = {**variant.kwargs, **kwargs}
    return module.env(**options)


def resolve_env_id(name: str) -> str:
    """A game's short name as its plain env name (``"ouril"`` -> ``"ouril_v0"``); any other name is
    returned as given, for :func:`make` to check."""
    for cls in game_classes():
        if name == cls.name:
            return f"{cls.name}_v{cls.version}"
    return name


def game_names() -> list[str]:
    """The plain game names, one per game: ``["ouril_v0", "urim_v0", ...]``."""
    return list(_GAME_NAMES)


def make_game(env_id: str, **options: Any) -> Game:
    """The :class:`~mancala_envs.games.game.Game` of a registered id, with game options (no env options).

    What :class:`~mancala_envs.envs.batch.BatchedGames` builds instead of an env: the variant's options, then
    ``options`` (config fields, or a whole ``config=``), checked by the game's config.

    Raises:
        ValueError / TypeError: an unknown id, an unknown option or an invalid value (the config's messages).
    """
    variant = find_variant(env_id)
    module = importlib.import_module(variant.module)
    game_class = module.GAME
    config = config_from_kwargs(game_class.config_class, options.pop("config", None), **{**variant.kwargs, **options})
    return game_class(config)


def list_envs(verbose: bool = False) -> list[str]:
    """Returns the game names and every registered id.

    Args:
        verbose: Append each variant's description (``"id: description"``).
    """
    names = list(_GAME_NAMES)
    if verbose:
        return names + [f"{v.id}: {v.description}" for v in VARIANTS]
    return names + [v.id for v in VARIANTS]
