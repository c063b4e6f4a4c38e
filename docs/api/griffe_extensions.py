"""The griffe extensions of the API reference (named in ``docs/mkdocs.yml``; not pages of the site).

- :class:`InstalledWrappers`: ``mancala_envs.wrappers`` lives in the top-level folder ``wrappers/``. pyproject.toml
  installs that folder as ``mancala_envs.wrappers`` (``package-dir``), which griffe's static finder cannot see (it
  looks for ``mancala_envs/wrappers/``), so this extension loads it and hangs it under ``mancala_envs``.
- :class:`DocstringReading`: the docstrings are Google style as Napoleon reads it, with two forms griffe does not
  read: the singular ``Example:`` section (griffe knows ``Examples:``) and Sphinx roles (``:class:`Game```,
  ``:func:`~mancala_envs.make```), which would show as ``:class:`` before the name. It reads the first as
  ``Examples:`` and the roles as code (the name, without the ``~``-shortened prefix), on the site only.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: the package and the subpackage installed from a folder outside it (pyproject.toml's ``package-dir``)
PACKAGE, SUBPACKAGE, FOLDER = "mancala_envs", "wrappers", "wrappers"

#: a Google section title in the singular that griffe reads only in the plural
SINGULAR_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)
#: a Sphinx role: ``:class:`name```, ``:func:`~module.name```
SPHINX_ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj|const):`(~?)([^`]+)`")


class InstalledWrappers(griffe.Extension):
    """Loads the folder ``wrappers/`` as ``mancala_envs.wrappers`` once ``mancala_envs`` is loaded."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Attaches ``wrappers/`` to ``mancala_envs`` (``pkg``: the package loaded by ``loader``)."""
        if pkg.path != PACKAGE or SUBPACKAGE in pkg.members:
            return
        folder = loader.load(FOLDER, try_relative_path=False)
        assert isinstance(folder, griffe.Module)
        del loader.modules_collection.members[FOLDER]
        pkg.set_member(SUBPACKAGE, folder)


def role_as_code(match: re.Match[str]) -> str:
    """The code text of a Sphinx role: its target, or the target's last name when it starts with ``~``."""
    shortened, target = match.groups()
    return f"``{target.rsplit('.', 1)[-1] if shortened else target}``"


def site_docstring(text: str) -> str:
    """A docstring as the site reads it: ``Example:`` as ``Examples:``, Sphinx roles as code."""
    return SPHINX_ROLE.sub(role_as_code, SINGULAR_EXAMPLE.sub(r"\1Examples:", text))


class DocstringReading(griffe.Extension):
    """Rewrites each docstring with :func:`site_docstring` once the object tree is built."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrites the docstring of ``obj`` (every kind of object, loaded by ``loader``)."""
        if obj.docstring is not None:
            obj.docstring.value = site_docstring(obj.docstring.value)
