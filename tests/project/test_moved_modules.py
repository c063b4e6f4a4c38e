"""The old import paths of the modules that moved in 0.2.0: each imports the very module of its new path, with a
``DeprecationWarning`` that names the new path and points at the user's line; the new paths import without a
warning; ``CHANGELOG.md`` lists every move.

The imports run in fresh interpreters: an old path warns only the first time a process imports it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from mancala_envs.common.moved import MOVED_MODULES, REMOVED_IN

ROOT = Path(__file__).resolve().parents[2]

#: Run in a fresh interpreter: every old path first as an attribute of its package, then by an import statement
#: (compiled as the file "<user>", so that the warning's location can be checked), and the results as JSON.
PROBE = textwrap.dedent(
    """
    import importlib, json, sys, warnings
    import mancala_envs
    from mancala_envs.common.moved import MOVED_MODULES

    def caught_warnings(run):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = run()
            except Exception as error:
                value = f"{type(error).__name__}: {error}"
        return value, [[w.category.__name__, str(w.message), w.filename] for w in caught]

    results = {}
    for old, new in MOVED_MODULES.items():
        parent, _, name = old.rpartition(".")
        value, caught = caught_warnings(lambda: getattr(importlib.import_module(parent), name))
        same = value is importlib.import_module(new)
        results[old] = {"attribute_same": same, "attribute_value": None if same else str(value),
                        "attribute_warnings": caught, "imported_before": old in sys.modules}
    for old, new in MOVED_MODULES.items():
        namespace = {}
        value, caught = caught_warnings(lambda: exec(compile(f"import {old} as alias", "<user>", "exec"), namespace))
        module = namespace.get("alias")
        results[old].update(
            import_error=value, import_warnings=caught, import_same=module is importlib.import_module(new),
            spec_name=getattr(getattr(module, "__spec__", None), "name", None), name=getattr(module, "__name__", None),
        )
    print(json.dumps(results))
    """
)


def run_python(code: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *options, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT, check=False
    )


@pytest.fixture(scope="module")
def probe() -> dict[str, Any]:
    """What a fresh interpreter saw for every old path (one interpreter for all of them)."""
    result = run_python(PROBE)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def moved_message(old: str) -> str:
    return f"{old} moved to {MOVED_MODULES[old]}; import it from there (the old path is removed in {REMOVED_IN})."


@pytest.mark.parametrize("old", list(MOVED_MODULES))
def test_an_old_import_path_is_the_new_module_and_warns(probe: dict[str, Any], old: str) -> None:
    seen = probe[old]
    assert seen["imported_before"] is False  # nothing of the package imports an old path
    assert seen["import_error"] is None
    assert seen["import_same"] is True
    # the module keeps its own name and spec (pickles, reload and inspect see the new path)
    assert seen["spec_name"] == seen["name"] == MOVED_MODULES[old]
    assert seen["import_warnings"] == [["DeprecationWarning", moved_message(old), "<user>"]]


@pytest.mark.parametrize("old", list(MOVED_MODULES))
def test_an_old_attribute_is_the_new_module_and_warns(probe: dict[str, Any], old: str) -> None:
    seen = probe[old]
    assert seen["attribute_value"] is None and seen["attribute_same"] is True
    assert seen["attribute_warnings"] == [["DeprecationWarning", moved_message(old), "<string>"]]


def test_an_old_path_imported_first_thing_warns_and_an_error_filter_refuses_it() -> None:
    result = run_python(
        "import mancala_envs.vector as v, mancala_envs.views.vector_env as n; assert v is n", "-W", "error"
    )
    assert result.returncode == 1
    assert f"DeprecationWarning: {moved_message('mancala_envs.vector')}" in result.stderr
    result = run_python(
        "import warnings; warnings.simplefilter('always')\n"
        "from mancala_envs.agents import base\nimport mancala_envs.agents.agent as agent\nassert base is agent"
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("DeprecationWarning") == 1
    assert f"<string>:2: DeprecationWarning: {moved_message('mancala_envs.agents.base')}" in result.stderr


def test_the_old_training_module_names_warn_and_resolve() -> None:
    result = run_python(
        "import warnings; warnings.simplefilter('always')\n"
        "from mancala_envs.training import TrainConfig\n"
        "from mancala_envs.training.trainer import TrainConfig as new\n"
        "assert TrainConfig is new"
    )
    assert result.returncode == 0, result.stderr
    assert (
        "<string>:2: DeprecationWarning: mancala_envs.training.TrainConfig moved to "
        "mancala_envs.training.trainer.TrainConfig; import it from there (the old path is removed in "
        f"{REMOVED_IN})."
    ) in result.stderr
    assert result.stderr.count("DeprecationWarning") == 1


def test_the_oracle_callback_warns_once_and_resolves() -> None:
    result = run_python(
        "import warnings; warnings.simplefilter('always')\n"
        "from mancala_envs.analysis.oracle import OracleCallback\n"
        "from mancala_envs.analysis.oracle_callback import OracleCallback as new\n"
        "assert OracleCallback is new"
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        "<string>:2: DeprecationWarning: mancala_envs.analysis.oracle.OracleCallback moved to "
        "mancala_envs.analysis.oracle_callback.OracleCallback; import it from there (the old path is removed in "
        f"{REMOVED_IN}).\n"
    )


def test_a_training_submodule_is_imported_as_itself_without_a_warning() -> None:
    result = run_python(
        "import sys\nfrom mancala_envs.training import selfplay\n"
        "assert selfplay.__name__ == 'mancala_envs.training.selfplay'\n"
        "assert 'mancala_envs.training.trainer' not in sys.modules\n"
        "import mancala_envs.training as training\n"
        "try:\n    training.no_such_name\nexcept AttributeError as error:\n    print(error)",
        "-W",
        "error",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "module 'mancala_envs.training' has no attribute 'no_such_name'\n"


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import mancala_envs

    with pytest.raises(AttributeError, match="module 'mancala_envs' has no attribute 'no_such_module'"):
        _ = mancala_envs.no_such_module  # type: ignore[attr-defined]


def installed_modules() -> list[str]:
    """Every module the package installs (its folders as ``pyproject.toml`` lists them), but the ``__main__``s."""
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = setuptools.get("package-dir", {})
    names = []
    for package in setuptools["packages"]:
        mapped = max((name for name in folders if package == name or package.startswith(name + ".")), key=len)
        folder = ROOT / folders[mapped] / Path(*package[len(mapped) :].lstrip(".").split("."))
        names.append(package)
        names += [f"{package}.{path.stem}" for path in sorted(folder.glob("*.py")) if path.stem[0] != "_"]
    return sorted(names)


def test_the_new_paths_import_without_a_warning() -> None:
    modules = installed_modules()
    assert "mancala_envs.wrappers.encodings" in modules and "mancala_envs.games.kalah" in modules
    result = run_python("import mancala_envs, " + ", ".join(modules), "-W", "error")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stderr == ""


def test_every_move_is_in_the_changelog() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    missing = [old for old, new in MOVED_MODULES.items() if f"| `{old}` | `{new}` |" not in changelog]
    assert missing == [], "run python docs/update_architecture.py: it writes CHANGELOG.md's list of moves"


def test_every_package_of_an_old_path_serves_it_as_an_attribute() -> None:
    """A package whose submodule moved defines a module ``__getattr__`` (``moved_attribute``), or the old
    ``package.name`` attribute would be an AttributeError after ``import mancala_envs``."""
    import importlib

    parents = sorted({old.rpartition(".")[0] for old in MOVED_MODULES})
    assert [parent for parent in parents if not hasattr(importlib.import_module(parent), "__getattr__")] == []
