"""Contract cases of the file doors (docs/contract.md): pretrained weights and saved models ("weights"), perfect-play
tables ("tables"), game records ("records"), and the commands that read them.

Each subject is a fresh folder already holding the hostile file (a FIFO, a symlink to ``/dev/zero``, a folder in a
file's place, a file past its limit, a malformed one), so that ``frozen`` checks that a refused load changes nothing
in it. Sizes that depend on the machine's memory are fixed with ``mock.patch`` of ``solver.available_memory``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from mancala_envs.agents import pretrained
from mancala_envs.algorithms import retrograde as solver
from mancala_envs.cli import main
from mancala_envs.envs.records import GameRecord
from mancala_envs.envs.registration import make_game

from support.contract import EXIT_2, Case, Row

WEIGHTS = "Pretrained weights and saved models"
RECORDS = "Game records"
TABLES = "Perfect-play tables"
CLI = "The command line"
GIB = 2**30

CASES: list[Case] = []


def case(
    door: str, section: str, row: str, name: str, call: Callable[[Any], Any], error: Any, *words: str, **more: Any
) -> None:
    CASES.append(Case(door, Row(section, row), name, call, error, words, **more))


def snapshot(path: Path) -> list[tuple[str, str, str]]:
    """What a folder holds, without opening anything but regular files: (name, kind, SHA-256 or link target)."""
    found = []
    for item in sorted(path.rglob("*")):
        name = str(item.relative_to(path))
        if item.is_symlink():
            found.append((name, "link", os.readlink(item)))
        elif item.is_fifo():
            found.append((name, "fifo", ""))
        elif item.is_dir():
            found.append((name, "folder", ""))
        else:
            found.append((name, "file", hashlib.sha256(item.read_bytes()).hexdigest()))
    return found


def replace_with(kind: str, path: Path, data: bytes = b"") -> None:
    """Puts a hostile ``kind`` of file at ``path``: "folder", "fifo", "zero" (a symlink to /dev/zero), "sparse"
    (a file of ``len(data)`` bytes' worth of holes: its size is ``int(data)``), or "bytes" (``data``)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "sparse":
        with open(path, "wb") as file:
            file.truncate(int(data))
    else:
        path.write_bytes(data)


# --- weights -------------------------------------------------------------------------------------------------------
def package_weights() -> Path:
    return Path(pretrained.__file__).resolve().parent / "weights"


def weights_folder(change: Callable[[Path], Any] | None = None) -> Callable[[], Path]:
    """A builder of a folder holding the package's Ouril weights and their manifest entry, then ``change``d."""

    def build() -> Path:
        path = Path(tempfile.mkdtemp(prefix="contract-weights-"))
        shutil.copy(package_weights() / "ouril.safetensors", path / "ouril.safetensors")
        sha = hashlib.sha256((path / "ouril.safetensors").read_bytes()).hexdigest()
        (path / "manifest.json").write_text(json.dumps({"ouril.safetensors": sha}))
        if change is not None:
            change(path)
        return path

    return build


def listed_weights(data: bytes) -> Callable[[Path], None]:
    """Writes ``data`` as the Ouril weights, with its SHA-256 in the manifest (so the checks after the hash run)."""

    def change(path: Path) -> None:
        (path / "ouril.safetensors").write_bytes(data)
        (path / "manifest.json").write_text(json.dumps({"ouril.safetensors": hashlib.sha256(data).hexdigest()}))

    return change


def safetensors_bytes(header: bytes) -> bytes:
    return struct.pack("<Q", len(header)) + header


def ouril_metadata(**changes: Any) -> dict[str, Any]:
    from safetensors import safe_open

    with safe_open(str(package_weights() / "ouril.safetensors"), "numpy") as file:
        metadata = dict(file.metadata())
    metadata.update(changes)
    return metadata


def header_with_metadata(**changes: Any) -> bytes:
    return safetensors_bytes(json.dumps({"__metadata__": ouril_metadata(**changes)}).encode())


def nan_weights() -> bytes:
    from safetensors.numpy import load, save

    tensors = load((package_weights() / "ouril.safetensors").read_bytes())
    spoiled = dict(tensors)
    spoiled["action_net.bias"] = tensors["action_net.bias"].copy()
    spoiled["action_net.bias"][0] = np.nan
    return save(spoiled, metadata=ouril_metadata())


def load_ouril(path: Path) -> Any:
    return pretrained.load_pretrained("ouril", path)


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as file:
        file.write(data)


def in_file(name: str, kind: str, data: bytes = b"") -> Callable[[Path], None]:
    return lambda path: replace_with(kind, path / name, data)


def weights_case(
    row: str, name: str, change: Callable[[Path], Any], *words: str, error: type = pretrained.PretrainedWeightsError
) -> None:
    case("weights", WEIGHTS, row, name, load_ouril, error, *words, subject=weights_folder(change), frozen=snapshot)


case(
    "weights",
    WEIGHTS,
    "no weights file for the game in the folder",
    "load_pretrained of kalah where only ouril is",
    lambda path: pretrained.load_pretrained("kalah", path),
    pretrained.MissingWeightsError,
    "no pretrained weights for kalah in",
    "games with weights there: ouril",
    subject=weights_folder(),
    frozen=snapshot,
)
row = "a manifest or weights file that is not a regular file"
for name, change, words in (
    ("manifest a folder", in_file("manifest.json", "folder"), ("manifest.json' is a folder, not a regular file",)),
    ("manifest a FIFO", in_file("manifest.json", "fifo"), ("is a FIFO (named pipe), not a regular file",)),
    ("manifest a symlink to /dev/zero", in_file("manifest.json", "zero"), ("is a device, not a regular file",)),
    (
        "manifest of 2 MiB",
        in_file("manifest.json", "sparse", str(2 * 2**20).encode()),
        ("is larger than 1048576 bytes, the limit for it",),
    ),
    ("weights a folder", in_file("ouril.safetensors", "folder"), ("ouril.safetensors' is a folder",)),
    ("weights a FIFO", in_file("ouril.safetensors", "fifo"), ("is a FIFO (named pipe)",)),
    ("weights a symlink to /dev/zero", in_file("ouril.safetensors", "zero"), ("is a device",)),
    (
        "weights of 65 MiB",
        in_file("ouril.safetensors", "sparse", str(65 * 2**20).encode()),
        ("is larger than 67108864 bytes, the limit for it",),
    ),
):
    weights_case(row, name, change, *words)
row = "a manifest that is not JSON"
for name, text, words in (
    ("manifest not JSON", "{", ("is not a JSON weights manifest",)),
    ("manifest not UTF-8", "\udcff", ("is not a JSON weights manifest",)),
    ("manifest nested 100,000 levels", "[" * 100_000 + "]" * 100_000, ("nested too deeply",)),
    ("manifest nested 65 levels", "[" * 65 + "]" * 65, ("nested too deeply", "more than 64 levels")),
    ("manifest a list", "[]", ("must map weight file names to SHA-256 hex strings",)),
    ("manifest a number for a SHA-256", '{"ouril.safetensors": 5}', ("must map weight file names to SHA-256",)),
    ("manifest with NaN", '{"ouril.safetensors": NaN}', ("non-standard JSON number NaN",)),
):
    weights_case(row, name, in_file("manifest.json", "bytes", text.encode("utf-8", "surrogateescape")), *words)
row = "a weights file not in the manifest"
weights_case(row, "weights not listed", in_file("manifest.json", "bytes", b"{}"), "is not listed in")
weights_case(
    row,
    "weights with a byte more",
    lambda path: append(path / "ouril.safetensors", b"\0"),
    "it was changed or damaged since it was exported",
)
row = "a weights file (with its SHA-256 in the manifest)"
for name, data, words in (
    (
        "header nested too deeply",
        safetensors_bytes(b"[" * 5000 + b"]" * 5000),
        ("nested too deeply", "is not a safetensors file of pretrained weights"),
    ),
    ("header not JSON", safetensors_bytes(b"{"), ("is not a safetensors file of pretrained weights",)),
    ("metadata a number", header_with_metadata(n_actions=6), ("metadata entries that are not strings", "n_actions")),
    ("game_config a list", header_with_metadata(game_config="[1]"), ("game_config entry that is not a JSON object",)),
    (
        "game_config nested too deeply",
        header_with_metadata(game_config="[" * 100 + "]" * 100),
        ("game_config entry", "nested too deeply"),
    ),
    (
        "encoding nested too deeply",
        header_with_metadata(encoding="[" * 100 + "]" * 100),
        ("names an observation encoding",),
    ),
):
    weights_case(row, name, listed_weights(data), *words)
row = "weights holding `NaN` or an infinity"
weights_case(
    row, "a NaN bias", lambda path: listed_weights(nan_weights())(path), "holds values that are not finite floats"
)


def policy_with_infinity(_: Any) -> Any:
    game = make_game("ouril_v0")
    layers = [
        (np.zeros((game.n_actions, game.observation_size), np.float32), np.full(game.n_actions, -np.inf, np.float32))
    ]
    return pretrained.PretrainedPolicy(layers, "Tanh", game, "raw")


case(
    "weights",
    WEIGHTS,
    row,
    "PretrainedPolicy with -inf biases",
    policy_with_infinity,
    pretrained.PretrainedWeightsError,
    "layer 0's bias holds values that are not finite floats",
)
row = "`load_policy(path)` (`sb3:PATH`)"


def zip_model(entries: dict[str, bytes]) -> Callable[[Path], None]:
    def change(path: Path) -> None:
        with zipfile.ZipFile(path / "m.zip", "w") as archive:
            for name, data in entries.items():
                archive.writestr(name, data)

    return change


def load_model(path: Path) -> Any:
    from mancala_envs.agents.sb3 import load_policy

    return load_policy(path / "m.zip")


for name, change, words in (
    ("load_policy of a FIFO", in_file("m.zip", "fifo"), ("is a FIFO (named pipe), not a regular file",)),
    ("load_policy of a symlink to /dev/zero", in_file("m.zip", "zero"), ("is a device, not a regular file",)),
    ("load_policy of a folder", in_file("m.zip", "folder"), ("is a folder, not a regular file",)),
    (
        "load_policy of a data entry nested too deeply",
        zip_model({"policy.pth": b"", "data": b"[" * 100_000}),
        ("its data entry is nested too deeply",),
    ),
):
    case("weights", WEIGHTS, row, name, load_model, ValueError, *words, subject=weights_folder(change), frozen=snapshot)


# --- tables --------------------------------------------------------------------------------------------------------
def kalah() -> Any:
    return make_game("kalah_v0")


def table_folder(change: Callable[[Path, Path], Any] | None = None) -> Callable[[], Path]:
    """A builder of a folder holding a saved Kalah table of at most 2 seeds, then ``change(values, description)``."""

    def build() -> Path:
        path = Path(tempfile.mkdtemp(prefix="contract-tables-"))
        solver.save_table(solver.build_table(kalah(), 2), path)
        if change is not None:
            change(*solver.table_paths(kalah(), 2, path))
        return path

    return build


def load_kalah(path: Path) -> Any:
    return solver.load_table(kalah(), 2, path)


def described(**changes: Any) -> Callable[[Path, Path], None]:
    def change(_values: Path, info: Path) -> None:
        info.write_text(json.dumps({**json.loads(info.read_text()), **changes}))

    return change


def values_with_hash(data: bytes) -> Callable[[Path, Path], None]:
    """Writes ``data`` as the values file and records its SHA-256, so the checks after the hash run."""

    def change(values: Path, info: Path) -> None:
        values.write_bytes(data)
        described(sha256=hashlib.sha256(data).hexdigest())(values, info)

    return change


def npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def table_case(row: str, name: str, change: Callable[[Path, Path], Any], *words: str) -> None:
    case(
        "tables",
        TABLES,
        row,
        name,
        load_kalah,
        solver.TableError,
        *words,
        subject=table_folder(change),
        frozen=snapshot,
    )


row = "a description or values file that is not a regular file"
for name, change, words in (
    ("description a folder", lambda _v, info: replace_with("folder", info), ("is a folder, not a regular file",)),
    ("description a FIFO", lambda _v, info: replace_with("fifo", info), ("is a FIFO (named pipe)",)),
    ("description a symlink to /dev/zero", lambda _v, info: replace_with("zero", info), ("is a device",)),
    (
        "description of 2 MiB",
        lambda _v, info: replace_with("sparse", info, str(2 * 2**20).encode()),
        ("is larger than 1048576 bytes, the limit for it", "rebuild it with `mancala-envs solve kalah --max-seeds 2"),
    ),
    ("description nested too deeply", lambda _v, info: info.write_text("[" * 100_000), ("nested too deeply",)),
    ("values a folder", lambda values, _i: replace_with("folder", values), ("is a folder, not a regular file",)),
    ("values a FIFO", lambda values, _i: replace_with("fifo", values), ("is a FIFO (named pipe)",)),
    ("values a symlink to /dev/zero", lambda values, _i: replace_with("zero", values), ("is a device",)),
    (
        "values with 1 MiB more",
        lambda values, _i: append(values, bytes(2**20)),
        ("is larger than", "bytes, the limit for it"),
    ),
):
    table_case(row, name, change, *words)
row = "a description whose `sha256` is not a string"
for name, change, words in (
    ("sha256 a number", described(sha256=5), ("has a malformed sha256 or build entry",)),
    ("build a list", described(build=[1]), ("has a malformed sha256 or build entry",)),
    ("values not .npy, with its hash", values_with_hash(b"junk" * 10), ("is not a table",)),
    (
        "values of another shape, with its hash",
        values_with_hash(npy_bytes(np.zeros((3, 10), np.uint8))),
        ("holds (3, 10) uint8 values",),
    ),
    (
        "values of another dtype, with its hash",
        values_with_hash(npy_bytes(np.zeros((3, 2 * 91), np.int16))),
        ("int16",),
    ),
):
    table_case(row, name, change, *words)
row = "`load_table` with `max_seeds` other than `None`, `-1` or 0 to the game's seeds"
for value in (49, -2, "2", True, 2.0):
    case(
        "tables",
        TABLES,
        row,
        f"load_table max_seeds={value!r}",
        lambda path, v=value: solver.load_table(kalah(), v, path),
        solver.TableError,
        "max_seeds must be None (the whole game), -1 (the largest saved table) or an int from 0 to 48",
        subject=table_folder(),
        frozen=snapshot,
    )


def with_memory(memory: int, call: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def patched(subject: Any) -> Any:
        with mock.patch.object(solver, "available_memory", return_value=memory):
            return call(subject)

    return patched


row = "`build_table` or `load_table` of a table larger than the memory available"
case(
    "tables",
    TABLES,
    row,
    "build_table of the whole Ouril game with 16 GiB",
    with_memory(16 * GIB, lambda _: solver.build_table(make_game("ouril_v0"))),
    solver.TableError,
    "building the ouril table of max_seeds=48 needs about 56.00 TiB of memory and this machine has 16.00 GiB "
    "available; the largest that fits is --max-seeds 19",
    "`mancala-envs solve ouril --max-seeds 19`",
)
case(
    "tables",
    TABLES,
    row,
    "build_table of Kalah with 22 seeds with 1 GiB",
    with_memory(GIB, lambda _: solver.build_table(kalah(), 22)),
    solver.TableError,
    "building the kalah table of max_seeds=22 needs about 1.02 GiB of memory and this machine has 1.00 GiB available",
    "the largest that fits is --max-seeds 21 (max_seeds=21): `mancala-envs solve kalah --max-seeds 21`",
)
case(
    "tables",
    TABLES,
    row,
    "load_table of a 2-seed Kalah table with 100 bytes",
    with_memory(100, load_kalah),
    solver.TableError,
    "loading the kalah table of max_seeds=2 needs about 182 bytes",
    "this machine has 100 bytes available; no table of it fits",
    subject=table_folder(),
    frozen=snapshot,
)
row = "`load_table(game, -1)` (`mancala-envs evaluate --oracle`) with no table"
case(
    "tables",
    TABLES,
    row,
    "load_table(ouril, -1) in an empty folder with 16 GiB",
    with_memory(16 * GIB, lambda path: solver.load_table(make_game("ouril_v0"), -1, path)),
    solver.TableError,
    "the whole game's table needs about 56.00 TiB of memory and this machine has 16.00 GiB available",
    "so build an endgame table with `mancala-envs solve ouril --max-seeds 19 --dir ",
    subject=lambda: Path(tempfile.mkdtemp(prefix="contract-tables-")),
    frozen=snapshot,
)
row = "`mancala-envs solve` with any of the above"
case(
    "tables",
    TABLES,
    row,
    "mancala-envs solve ouril with 16 GiB",
    with_memory(16 * GIB, lambda path: main(["solve", "ouril", "--dir", str(path)])),
    EXIT_2,
    "mancala-envs: error: building the ouril table of max_seeds=48 needs about 56.00 TiB",
    "`mancala-envs solve ouril --max-seeds 19`",
    subject=lambda: Path(tempfile.mkdtemp(prefix="contract-tables-")),
    frozen=snapshot,
)
case(
    "tables",
    TABLES,
    row,
    "mancala-envs evaluate greedy --game ouril --oracle with 16 GiB",
    with_memory(
        16 * GIB,
        lambda path: main(["evaluate", "greedy", "--game", "ouril", "--oracle", "--games", "1", "--tables", str(path)]),
    ),
    EXIT_2,
    "so build an endgame table with `mancala-envs solve ouril --max-seeds 19 --dir ",
    subject=lambda: Path(tempfile.mkdtemp(prefix="contract-tables-")),
    frozen=snapshot,
)


# --- records -------------------------------------------------------------------------------------------------------
def records_folder(change: Callable[[Path], Any]) -> Callable[[], Path]:
    def build() -> Path:
        path = Path(tempfile.mkdtemp(prefix="contract-records-"))
        change(path / "game.json")
        return path

    return build


row = "`load` of a path that is not a regular file"
for name, kind, data, words in (
    ("a folder", "folder", b"", ("game.json' is a folder, not a regular file",)),
    ("a FIFO", "fifo", b"", ("is a FIFO (named pipe), not a regular file",)),
    ("a symlink to /dev/zero", "zero", b"", ("is a device, not a regular file",)),
    (
        "a file of 64 MiB and a byte",
        "sparse",
        str(64 * 2**20 + 1).encode(),
        ("is larger than 67108864 bytes, the limit for it",),
    ),
):
    case(
        "records",
        RECORDS,
        row,
        f"load {name}",
        lambda path: GameRecord.load(path / "game.json"),
        ValueError,
        *words,
        subject=records_folder(lambda p, k=kind, d=data: replace_with(k, p, d)),
        frozen=snapshot,
    )
case(
    "records",
    RECORDS,
    row,
    "load /dev/zero",
    lambda _: GameRecord.load("/dev/zero"),
    ValueError,
    "the game record '/dev/zero' is a device, not a regular file",
)
row = "`load` of a file that is not JSON, or JSON nested too deeply"
for name, data, words in (
    ("not UTF-8", b"\xff\xfe{}", ("is not a JSON game record: it is not UTF-8 text",)),
    ("NaN", b'{"format": NaN}', ("is not a JSON game record: it holds the non-standard JSON number NaN",)),
    ("nested 65 levels", b"[" * 65 + b"]" * 65, ("nested too deeply to be a JSON game record (more than 64 levels",)),
):
    case(
        "records",
        RECORDS,
        row,
        f"load {name} (files door)",
        lambda path: GameRecord.load(path / "game.json"),
        ValueError,
        *words,
        subject=records_folder(lambda p, d=data: p.write_bytes(d)),
        frozen=snapshot,
    )
case(
    "records",
    CLI,
    "$ mancala-envs replay /dev/zero",
    "mancala-envs replay /dev/zero",
    lambda _: main(["replay", "/dev/zero"]),
    EXIT_2,
    "mancala-envs: error: the game record '/dev/zero' is a device, not a regular file",
)

row = "`save_table(table, folder)` with a `folder` whose parent folder does not exist"


def _folder_with_a_file() -> Path:
    """A new folder holding one file, ``taken`` (the contract matrix removes it after the case)."""
    path = Path(tempfile.mkdtemp(prefix="contract-save-table-"))
    (path / "taken").write_text("a file")
    return path


for name, where, words in (
    ("two folders deep", "new/tables", ("cannot write the table to ", "new' does not exist; create it first")),
    ("onto a file", "taken", ("taken': it is a file, not a folder; pass a folder.",)),
    ("under a file", "taken/tables", ("taken' is not a folder",)),
):
    case(
        "tables",
        TABLES,
        row,
        f"save_table into {name}",
        lambda folder, w=where: solver.save_table(solver.build_table(kalah(), 1), folder / w),
        ValueError,
        *words,
        subject=_folder_with_a_file,
        frozen=snapshot,
    )
