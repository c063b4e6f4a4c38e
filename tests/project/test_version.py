"""The version is written once (mancala_envs.__version__) and the installed metadata is that version."""

from __future__ import annotations

import ast
from importlib.metadata import version
from pathlib import Path

import tomllib

import mancala_envs

ROOT = Path(__file__).resolve().parents[2]


def test_installed_metadata_version_is_the_package_version() -> None:
    assert version("mancala-envs") == mancala_envs.__version__


def test_pyproject_reads_the_version_from_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mancala_envs.__version__"}


def test_the_version_is_a_literal_in_the_package_init() -> None:
    # setuptools reads a literal without importing the package (a build needs none of its dependencies)
    tree = ast.parse((ROOT / "mancala_envs" / "__init__.py").read_text(encoding="utf-8"))
    values = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(target, "id", None) for target in node.targets] == ["__version__"]
        and isinstance(node.value, ast.Constant)
    ]
    assert values == [mancala_envs.__version__]
