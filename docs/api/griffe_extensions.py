"""The griffe extensions of the API reference (named in ``docs/mkdocs.yml``; not pages of the site).

- :class:`InstalledWrappers`: ``mancala_envs.wrappers`` lives in the top-level folder ``wrappers/``. pyproject.toml
  installs that folder as ``mancala_envs.wrappers`` (``package-dir``), which griffe's static finder cannot see (it
  looks for ``mancala_envs/wrappers/``), so this extension loads it and hangs it under ``mancala_envs``.
- :class:`DocstringReading`: the docstrings are Google style as Napoleon reads it, with two forms griffe does not
  read: the singular ``Example:`` section (griffe knows ``Examples:``) and Sphinx roles (``:class:`Game```,
  ``:func:`~mancala_envs.make```), which would show as ``:class:`` before the name. On the site it reads the first
  as ``Examples:`` and each role as the name in code (without the prefix that ``~`` shortens), linked to the name's
  entry in the API reference when the reference has one (an optional cross-reference of mkdocs-autorefs: a name
  that is not documented, a private one for instance, stays plain code, without a warning). A module's constants are
  documented by ``#:`` comments above them (as Sphinx's autodoc reads them), which griffe does not read: it makes
  each such comment the constant's docstring.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import griffe

#: the package and the subpackage installed from a folder outside it (pyproject.toml's ``package-dir``)
PACKAGE, SUBPACKAGE, FOLDER = "mancala_envs", "wrappers", "wrappers"

#: a Google section title in the singular that griffe reads only in the plural
SINGULAR_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)
#: a Sphinx role: ``:class:`name```, ``:func:`~module.name```
SPHINX_ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj|const):`(~?)([^`]+)`")
#: a role's target with a title of its own: ``Game.step <mancala_envs.games.game.Game.step>``
TITLED_TARGET = re.compile(r"(.+?)\s*<([^<>]+)>")


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


def full_name(scope: griffe.Object, target: str) -> str:
    """The full name of a role's ``target`` as Python would find it from ``scope`` (its first part resolved in the
    scope of the object whose docstring holds it); ``target`` itself when that fails."""
    first, dot, rest = target.partition(".")
    if first == PACKAGE:
        return target
    try:
        resolved = scope.resolve(first) + dot + rest
    except (griffe.NameResolutionError, griffe.AliasResolutionError, KeyError):
        return target
    # a name inside wrappers/ resolves to the folder's own module name
    return f"{PACKAGE}.{resolved}" if resolved.startswith(f"{FOLDER}.") else resolved


def site_docstring(text: str, scope: griffe.Object) -> str:
    """A docstring as the site reads it: ``Example:`` as ``Examples:``, each Sphinx role as its name in code, linked
    to its entry of the API reference when there is one (names resolved from ``scope``)."""

    def role_as_code(match: re.Match[str]) -> str:
        shortened, target = match.groups()
        shown = target.rsplit(".", 1)[-1] if shortened else target
        titled = TITLED_TARGET.fullmatch(target)
        if titled:
            shown, target = titled.groups()
        identifier = html.escape(full_name(scope, target))
        return f'<autoref identifier="{identifier}" optional><code>{html.escape(shown)}</code></autoref>'

    return SPHINX_ROLE.sub(role_as_code, SINGULAR_EXAMPLE.sub(r"\1Examples:", text))


def comment_docstring(attribute: griffe.Object) -> str | None:
    """The ``#:`` comment of an attribute: the lines just above its assignment, or the end of its line
    (``NAME = value  #: what it is``); ``None`` without one."""
    filepath = attribute.filepath
    if attribute.lineno is None or not isinstance(filepath, Path) or filepath not in attribute.lines_collection:
        return None
    lines = attribute.lines_collection[filepath]
    _, marker, after = lines[attribute.lineno - 1].partition("  #: ")
    if marker:
        return after.strip()
    above = attribute.lineno - 2
    comment: list[str] = []
    while above >= 0 and lines[above].lstrip().startswith("#:"):
        comment.insert(0, lines[above].lstrip()[2:].strip())
        above -= 1
    return "\n".join(comment) or None


class DocstringReading(griffe.Extension):
    """Rewrites each docstring with :func:`site_docstring` once the object tree is built, and gives each attribute
    without a docstring its ``#:`` comment (:func:`comment_docstring`)."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrites the docstring of ``obj`` (every kind of object, loaded by ``loader``)."""
        if obj.docstring is None and obj.is_attribute:
            comment = comment_docstring(obj)
            if comment is not None:
                obj.docstring = griffe.Docstring(
                    comment,
                    lineno=obj.lineno,
                    parent=obj,
                    parser=loader.docstring_parser,
                    parser_options=loader.docstring_options,
                )
        if obj.docstring is not None:
            obj.docstring.value = site_docstring(obj.docstring.value, obj)
