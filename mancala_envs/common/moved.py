"""The modules that moved in 0.2.0, and the aliases that keep their old import paths working for one release.

Version 0.2.0 gave the package a layout that shows its layers (``docs/architecture.md``). Every module
that moved is listed in :data:`MOVED_MODULES`; importing it by its old name still works and returns the
very same module object, but warns with a :class:`DeprecationWarning` that names the new path::

    >>> import mancala_envs.vector       # doctest: +SKIP
    DeprecationWarning: mancala_envs.vector moved to mancala_envs.views.vector_env; import it from there
    (the old path is removed in 0.3.0).

The aliases are served by :class:`MovedModuleFinder`, which :mod:`mancala_envs` puts first on
``sys.meta_path`` when it is imported. ``CHANGELOG.md`` lists the same moves.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = [
    "MOVED_MODULES",
    "REMOVED_IN",
    "MovedModuleFinder",
    "install_moved_module_finder",
    "moved_attribute",
    "moved_name",
    "warn_moved",
]

#: the release that removes the old paths
REMOVED_IN = "0.3.0"

#: old module path -> new module path, for every module that moved in 0.2.0
MOVED_MODULES: dict[str, str] = {
    f"mancala_envs.{old}": f"mancala_envs.{new}"
    for old, new in {
        "errors": "common.errors",
        "files": "common.files",
        "stats": "common.stats",
        "validation": "common.validation",
        "engine.two_row": "engine.sow_capture",
        "engine.views": "engine.board_views",
        "games.base": "games.game",
        "games.two_row": "games.two_row_family.two_row_rules",
        "games.two_row_companion": "games.two_row_family.two_row_companion",
        "games.ouril_companion": "games.ouril.ouril_companion",
        "games.urim_companion": "games.urim.urim_companion",
        "games.modiar_companion": "games.modiar.modiar_companion",
        "games.rio_kadalis_companion": "games.rio_kadalis.rio_kadalis_companion",
        "games.omweso_companion": "games.omweso.omweso_companion",
        "games.kalah_companion": "games.kalah.kalah_companion",
        "rollout": "algorithms.playouts",
        "search": "algorithms.tree_search",
        "env": "envs.aec_env",
        "batch": "envs.batch",
        "registration": "envs.registration",
        "records": "envs.records",
        "single_agent": "views.single_agent_env",
        "opponents": "views.opponents",
        "vector": "views.vector_env",
        "vector_sb3": "views.sb3_vec_env",
        "two_seat": "views.two_seat_env",
        "agents.base": "agents.agent",
        "agents.search": "agents.search_agents",
        "openspiel": "integrations.openspiel",
        "config": "integrations.experiment_config",
        "selfplay": "training.selfplay",
        "warm": "training.warm_up",
        "oracle": "analysis.oracle",
        "tournament": "analysis.tournament",
        "play": "cli.terminal_game",
        "cli.play": "cli.play_command",
        "cli.tournament": "cli.tournament_command",
        "cli.evaluate": "cli.evaluate_command",
        "cli.solve": "cli.solve_command",
    }.items()
}


def warn_moved(old: str, new: str, stacklevel: int = 2) -> None:
    """Warns that ``old`` moved to ``new``: a :class:`DeprecationWarning` naming both and the release that removes
    the old path, attributed to the caller ``stacklevel`` frames up (the import system's frames are skipped)."""
    warnings.warn(
        f"{old} moved to {new}; import it from there (the old path is removed in {REMOVED_IN}).",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def moved_attribute(package: str, name: str) -> ModuleType:
    """The module a package's old submodule attribute ``name`` moved to, with the warning (for ``__getattr__``).

    ``mancala_envs.vector`` worked as an attribute after ``import mancala_envs``; the packages' module
    ``__getattr__`` calls this so that it still does, warning like the old import path. The module is then kept
    as the package's attribute, so that it warns once, like an import: ``from mancala_envs import vector`` reads
    the attribute twice (the import system's check, then the name's binding).

    Raises:
        AttributeError: ``package.name`` is not the old path of a moved module.
    """
    old = f"{package}.{name}"
    new = MOVED_MODULES.get(old)
    if new is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    warn_moved(old, new, stacklevel=3)
    module = importlib.import_module(new)
    setattr(sys.modules[package], name, module)
    return module


def moved_name(package: str, name: str, new_module: str) -> Any:
    """The name ``package.name``, which moved to the module ``new_module``, with the warning (for ``__getattr__``).

    ``package`` is a package or a module (``mancala_envs.analysis.oracle``, whose ``OracleCallback`` moved).

    ``mancala_envs.training`` was a module until 0.2.0 and is now a package: its ``__getattr__`` calls this, so
    that ``from mancala_envs.training import TrainConfig`` still works and warns that the name lives in
    ``mancala_envs.training.trainer``. The value is then kept as the package's attribute, so that it warns once.

    Raises:
        AttributeError: ``name`` is a dunder, a submodule of ``package`` (left to the import system, which
            imports it without ``new_module``), or a name ``new_module`` does not have.
    """
    is_package = hasattr(sys.modules.get(package), "__path__")
    if name.startswith("__") or (is_package and importlib.util.find_spec(f"{package}.{name}") is not None):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module = importlib.import_module(new_module)
    if not hasattr(module, name):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    warn_moved(f"{package}.{name}", f"{new_module}.{name}", stacklevel=3)
    value = getattr(module, name)
    setattr(sys.modules[package], name, value)
    return value


class _AliasLoader(importlib.abc.Loader):
    """Loads an old path as the module it moved to (the same object, its own spec kept)."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.real_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        # the import system's frames sit between the user's import statement and this call
        warn_moved(spec.name, self.new, stacklevel=2)
        module = importlib.import_module(self.new)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set the alias's spec on the module: give the module back its own.
        module.__spec__ = self.real_spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old path of every module of :data:`MOVED_MODULES` (and nothing else)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED_MODULES.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install_moved_module_finder() -> None:
    """Puts one :class:`MovedModuleFinder` first on ``sys.meta_path`` (again calls change nothing)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
