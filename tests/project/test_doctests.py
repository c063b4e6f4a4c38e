"""Runs the docstring examples of every module and the README's Python quick start."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import mancala_envs

ROOT = Path(__file__).resolve().parents[2]


def _modules() -> list[str]:
    names = [mancala_envs.__name__]
    for module in pkgutil.walk_packages(mancala_envs.__path__, prefix="mancala_envs."):
        if module.name.endswith(".__main__"):
            continue  # ``python -m`` entry points: importing one runs the command line
        names.append(module.name)
    if "mancala_envs.wrappers" not in names:
        names.append("mancala_envs.wrappers")
        names.append("mancala_envs.wrappers.flatten")
    return sorted(set(names))


@pytest.mark.parametrize("module_name", _modules())
def test_docstring_examples(module_name: str) -> None:
    if module_name == "mancala_envs.training.trainer":
        pytest.importorskip("sb3_contrib", reason="mancala_envs.training.trainer needs the train extra")
    if module_name == "mancala_envs.analysis.oracle_callback":
        pytest.importorskip("stable_baselines3", reason="mancala_envs.analysis.oracle_callback needs the train extra")
    if module_name == "mancala_envs.integrations.openspiel":
        pytest.importorskip("pyspiel", reason="mancala_envs.integrations.openspiel needs the openspiel extra")
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {module_name}"


def test_docstring_examples_exist() -> None:
    """At least the public entry points carry runnable examples."""
    attempted = 0
    for name in (
        "mancala_envs.envs.registration",
        "mancala_envs.agents",
        "mancala_envs.algorithms.playouts",
        "mancala_envs.wrappers.flatten",
    ):
        attempted += doctest.testmod(importlib.import_module(name)).attempted
    assert attempted >= 8


def test_readme_quick_start_runs(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert blocks, "README.md must contain a ```python quick start"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})


# by path inside docs/: two pages may share a name (docs/agents.md, the API reference's docs/api/agents.md)
@pytest.mark.parametrize("page", sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")))
def test_docs_examples(page: str) -> None:
    """Every ``>>>`` example in the docs pages runs and prints what the page says."""
    if page == "use_with.md":  # its OpenSpiel section runs pyspiel
        pytest.importorskip("pyspiel", reason="docs/use_with.md's examples need the openspiel extra")
    path = ROOT / "docs" / page
    result = doctest.testfile(
        str(path), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0, f"{result.failed} example(s) failed in {path.relative_to(ROOT)}"
