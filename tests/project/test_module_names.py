"""No two modules of the package share a file name (issue 31): a name says which module it is, everywhere.

Tracebacks, editor tabs, numba's cache files and ``grep`` all show a module by its file name, so each name is used
once in ``mancala_envs/`` and ``wrappers/`` (installed as ``mancala_envs.wrappers``). Package files
(``__init__.py``, ``__main__.py``) are the exception: their folder names them.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_FILES = {"__init__.py", "__main__.py"}


def modules_by_file_name(root: Path, *folders: Path) -> dict[str, list[str]]:
    """Each module file name under ``folders`` with the paths (relative to ``root``) that use it."""
    found: dict[str, list[str]] = defaultdict(list)
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" not in path.parts and path.name not in PACKAGE_FILES:
                found[path.name].append(path.relative_to(root).as_posix())
    return found


def test_no_module_file_name_is_used_twice() -> None:
    twice = {
        name: paths
        for name, paths in modules_by_file_name(ROOT, ROOT / "mancala_envs", ROOT / "wrappers").items()
        if len(paths) > 1
    }
    assert twice == {}, f"rename one of each pair so that every module name is used once: {twice}"


def test_the_check_finds_a_name_used_twice(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
        (tmp_path / folder / "search.py").write_text("")
    assert modules_by_file_name(tmp_path, tmp_path / "a", tmp_path / "b") == {
        "search.py": ["a/search.py", "b/search.py"]
    }


def test_the_package_root_holds_only_the_package_files() -> None:
    loose = sorted(path.name for path in (ROOT / "mancala_envs").glob("*.py") if path.name not in PACKAGE_FILES)
    assert loose == [], f"every module belongs to the subpackage of its layer (docs/architecture.md): {loose}"
