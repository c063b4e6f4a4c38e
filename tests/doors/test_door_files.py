"""The file doors (issue 30, items 3, 10 and 11): what is read is bounded and checked, what is written is atomic.

The refusals themselves are cases of the contract matrix (``tests/support/contract_doors/files.py``); this module
holds the behaviour that is not "raises X": reads that never block or run past their limit, a table that a change on
disk cannot reach once loaded, stray files skipped in the tables folder, concurrent exports that keep every manifest
entry, a policy that never plays an illegal action, and the memory check of ``solve`` and its hint.
"""

from __future__ import annotations

import hashlib
import io
import json
import multiprocessing
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest

from mancala_envs.agents.agent import masked_choice
from mancala_envs.algorithms import retrograde as solver
from mancala_envs.cli import main
from mancala_envs.common import files
from mancala_envs.envs.registration import make_game

# --- mancala_envs.common.files ----------------------------------------------------------------------------------------


def make_fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def make_zero_link(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


def make_folder(path: Path) -> Path:
    path.mkdir()
    return path


def make_socket(path: Path) -> Path:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()
    return path


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (make_fifo, "is a FIFO (named pipe), not a regular file"),
        (make_zero_link, "is a device, not a regular file"),
        (make_folder, "is a folder, not a regular file"),
        (make_socket, "is a socket, not a regular file"),
        (lambda _path: Path("/dev/zero"), "'/dev/zero' is a device"),
    ],
    ids=["fifo", "symlink to /dev/zero", "folder", "socket", "/dev/zero"],
)
def test_only_regular_files_are_read_and_nothing_blocks(
    tmp_path: Path, make: Callable[[Path], Path], words: str
) -> None:
    class DoorError(ValueError):
        pass

    path = make(tmp_path / "thing.json")
    with pytest.raises(DoorError, match=None) as raised:  # a FIFO with no writer would block an ordinary open
        files.read_json_bounded(path, 1024, "the thing", DoorError)
    assert words in str(raised.value) and "the thing" in str(raised.value)
    with pytest.raises(DoorError, match="not a regular file"):
        files.refuse_irregular(path, "the thing", DoorError)


@pytest.mark.parametrize(
    ("size", "limit", "refused"),
    [(0, 0, False), (10, 10, False), (11, 10, True), (2**40, 2**20, True)],  # a sparse terabyte: only its size read
)
def test_reads_stop_at_their_limit(tmp_path: Path, size: int, limit: int, refused: bool) -> None:
    path = tmp_path / "data.bin"
    with open(path, "wb") as file:
        file.truncate(size)
    if refused:
        with pytest.raises(ValueError, match=f"is larger than {limit} bytes, the limit for it"):
            files.read_bytes_bounded(path, limit, "the data")
    else:
        assert files.read_bytes_bounded(path, limit, "the data") == bytes(size)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 64 + "]" * 64, None),
        ("[" * 65 + "]" * 65, "nested too deeply to be valid JSON (more than 64 levels, the limit)"),
        ('{"a": ' * 65 + "1" + "}" * 65, "nested too deeply"),
        ("[" * 200_000, "nested too deeply"),
        ("[NaN]", "non-standard JSON number NaN"),
        ("[-Infinity]", "non-standard JSON number -Infinity"),
        (b"\xff", "is not valid JSON: it is not UTF-8 text"),
        ("{", "is not valid JSON (Expecting property name"),
    ],
    ids=["64 levels", "65 levels", "65 objects", "200,000 open", "NaN", "-Infinity", "not UTF-8", "not JSON"],
)
def test_json_is_parsed_with_a_nesting_limit(text: str | bytes, words: str | None) -> None:
    if words is None:
        value = files.parse_json(text, "the text")
        for _ in range(63):
            value = value[0]
        assert value == []
    else:
        with pytest.raises(ValueError) as raised:
            files.parse_json(text, "the text")
        assert words in str(raised.value) and type(raised.value) is ValueError


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "file.json"
    files.atomic_write(path, b"old")

    def half_then_fail(file: Any) -> None:
        file.write(b"new, half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        files.atomic_write(path, half_then_fail)
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.json"]


@pytest.mark.parametrize(
    ("where", "error", "words"),
    [
        ("missing/file.json", FileNotFoundError, "does not exist; create it first"),
        ("a-file/file.json", NotADirectoryError, "is not a folder; create it first"),
        ("a-folder", IsADirectoryError, "it is a folder; pass the path of a file in it"),
    ],
    ids=["missing folder", "file as folder", "folder as file"],
)
def test_an_atomic_write_that_cannot_start_names_the_target_not_a_temporary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, error: type[OSError], words: str
) -> None:
    """The temporary file's name (``.file.json.x1y2.tmp``) appeared in the error, and so in the command's line
    (``demo --record``, ``tournament --json``), instead of the path the user gave."""
    (tmp_path / "a-file").write_text("")
    (tmp_path / "a-folder").mkdir()
    target = tmp_path / where
    with pytest.raises(error) as raised:
        files.atomic_write(target, b"new")
    assert raised.value.filename == str(target) and words in str(raised.value) and ".tmp" not in str(raised.value)
    assert main(["demo", "--game", "kalah", "--record", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mancala-envs: error: cannot write {str(target)!r}: ") and ".tmp" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "a-folder"]
    assert list((tmp_path / "a-folder").iterdir()) == []


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_an_atomic_write_leaves_the_mode_an_ordinary_write_would(tmp_path: Path, umask: int) -> None:
    """A new file gets 0666 less the umask (not mkstemp's 0600); a rewritten file keeps its mode."""
    previous = os.umask(umask)
    try:
        files.atomic_write(tmp_path / "new.json", b"{}")
        (tmp_path / "plain.json").write_bytes(b"{}")
    finally:
        os.umask(previous)
    mode = stat.S_IMODE((tmp_path / "new.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.json").stat().st_mode)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o666 & ~umask
    (tmp_path / "new.json").chmod(0o640)
    files.atomic_write(tmp_path / "new.json", b"[]")
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640


def _add_entries(path: str, prefix: str, count: int) -> None:
    for number in range(count):
        files.locked_json_update(
            Path(path),
            lambda manifest, n=number: {**manifest, f"{prefix}{n}": n},
            lambda target: json.loads(target.read_text()) if target.exists() else {},
        )


def test_locked_updates_from_two_processes_keep_every_entry(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_add_entries, args=(str(path), prefix, 100)) for prefix in ("a", "b")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert json.loads(path.read_text()) == {f"{p}{n}": n for p in "ab" for n in range(100)}


# --- pretrained weights: concurrent exports, illegal actions --------------------------------------------------------
def _tiny_policy(game_id: str) -> Any:
    """A duck-typed SB3 MLP actor (torch layers) with the shapes of ``game_id``'s raw observation and actions."""
    import gymnasium
    import torch

    class FlattenExtractor:  # export_pretrained checks the extractor's class name
        pass

    game = make_game(game_id)
    torch.manual_seed(0)
    policy = mock.Mock(
        spec=["mlp_extractor", "action_net", "features_extractor", "activation_fn", "observation_space", "action_space"]
    )
    policy.mlp_extractor = mock.Mock(spec=["policy_net"])
    policy.mlp_extractor.policy_net = torch.nn.Sequential(torch.nn.Linear(game.observation_size, 8), torch.nn.Tanh())
    policy.action_net = torch.nn.Linear(8, game.n_actions)
    policy.features_extractor = FlattenExtractor()
    policy.activation_fn = torch.nn.Tanh
    policy.observation_space = gymnasium.spaces.Box(0, 48, (game.observation_size,), np.int32)
    policy.action_space = gymnasium.spaces.Discrete(game.n_actions)
    return policy


def _export_many(folder: str, prefix: str, count: int) -> None:
    from mancala_envs.agents.pretrained import export_pretrained

    policy = _tiny_policy("ouril_v0")
    for number in range(count):
        export_pretrained(policy, Path(folder) / f"{prefix}{number}.safetensors", game="ouril", encoding=None)


def test_two_processes_exporting_into_one_folder_keep_both_manifest_entries(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from mancala_envs.agents.pretrained import MANIFEST, load_pretrained

    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_export_many, args=(str(tmp_path), prefix, 25)) for prefix in ("a", "b")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    names = {f"{p}{n}.safetensors" for p in "ab" for n in range(25)}
    assert set(manifest) == names
    for name in names:
        assert manifest[name] == hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()
    os.replace(tmp_path / "a7.safetensors", tmp_path / "ouril.safetensors")
    manifest["ouril.safetensors"] = manifest.pop("a7.safetensors")
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert load_pretrained("ouril", tmp_path).n_actions == 6
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary left


INF = np.inf
NAN = np.nan


@pytest.mark.parametrize(
    ("logits", "mask"),
    [
        ([-INF, -INF, 3.0], [0, 1, 0]),  # the legal action's logit is -inf, an illegal one is finite
        ([-INF, -INF, -INF], [0, 0, 1]),
        ([NAN, NAN, NAN], [0, 1, 1]),
        ([5.0, NAN, -INF], [0, 1, 1]),
        ([INF, -INF, NAN], [0, 1, 0]),
        ([INF, INF, 1.0], [0, 0, 1]),
        ([1e308, -1e308, 0.0], [0, 1, 0]),
    ],
)
@pytest.mark.parametrize("deterministic", [True, False])
def test_a_policy_never_plays_an_illegal_action_whatever_its_logits(
    logits: list[float], mask: list[int], deterministic: bool
) -> None:
    rows = np.array([logits] * 50, dtype=np.float64)
    masks = np.array([mask] * 50, dtype=bool)
    actions = masked_choice(rows, masks, np.random.default_rng(0), deterministic)
    assert masks[np.arange(50), actions].all()


def test_a_nan_logit_ranks_below_every_finite_legal_one() -> None:
    actions = masked_choice(np.array([[NAN, -5.0, NAN]]), np.ones((1, 3), bool), np.random.default_rng(0), True)
    assert actions.tolist() == [1]


# --- tables: loaded into memory, stray files skipped -----------------------------------------------------------------
@pytest.fixture
def kalah_tables(tmp_path: Path) -> Path:
    """A folder with saved Kalah tables of at most 2 and 3 seeds."""
    for seeds in (2, 3):
        solver.save_table(solver.build_table(make_game("kalah_v0"), seeds), tmp_path)
    return tmp_path


def overwrite_in_place(path: Path) -> None:
    with open(path, "r+b") as file:
        file.seek(200)
        file.write(bytes(range(256)) * 2)


def truncate(path: Path) -> None:
    with open(path, "r+b") as file:
        file.truncate(0)


def replace_file(path: Path) -> None:
    path.unlink()
    path.write_bytes(b"other")


@pytest.mark.parametrize("change", [overwrite_in_place, truncate, replace_file])
def test_a_table_changed_on_disk_after_loading_keeps_its_values(
    kalah_tables: Path, change: Callable[[Path], None]
) -> None:
    game = make_game("kalah_v0")
    table = solver.load_table(game, 3, kalah_tables)
    before = np.array(table.table)
    state = _position(game, [0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1], stores=(22, 23))
    value = table.value(state)
    change(solver.table_paths(game, 3, kalah_tables)[0])
    # a memory map would see the new bytes, or kill the process with SIGBUS once the file is truncated
    assert np.array_equal(np.asarray(table.table), before)
    assert table.value(state) == value
    assert not table.table.flags.writeable


def test_the_loaded_table_is_the_saved_one(modiar_table: Any, tables_dir: Path) -> None:
    game = make_game("modiar_v0")
    values_path, info_path = solver.table_paths(game, None, tables_dir)
    assert type(modiar_table.table) is np.ndarray and not modiar_table.table.flags.writeable
    data = values_path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == json.loads(info_path.read_text())["sha256"]
    assert modiar_table.table.tobytes() == data[len(data) - modiar_table.table.nbytes :]


STRAY_TAILS = ["s²", "s٣", "s3x", "s-1", "s", "s00000", "s99999"]


@pytest.mark.parametrize("tail", STRAY_TAILS)
def test_stray_files_in_the_tables_folder_are_skipped(kalah_tables: Path, tail: str) -> None:
    game = make_game("kalah_v0")
    values_path, _info_path = solver.table_paths(game, 2, kalah_tables)
    stem = values_path.name[: -len("s2.npy")] + tail
    (kalah_tables / f"{stem}.npy").write_bytes(b"stray")
    (kalah_tables / f"{stem}.json").write_text("{}")
    assert solver.available_tables(game, kalah_tables) == [2, 3]
    assert solver.load_table(game, -1, kalah_tables).max_seeds == 3


def test_a_folder_or_a_table_without_description_is_skipped(kalah_tables: Path) -> None:
    game = make_game("kalah_v0")
    values_path, _ = solver.table_paths(game, 4, kalah_tables)
    values_path.mkdir()
    values_path.with_suffix(".json").mkdir()
    solver.table_paths(game, 5, kalah_tables)[0].write_bytes(b"no description beside it")
    assert solver.available_tables(game, kalah_tables) == [2, 3]


def test_agents_that_read_tables_play_with_a_stray_file_in_the_folder(
    kalah_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mancala_envs.agents import make_agent

    game = make_game("kalah_v0")
    values_path, _ = solver.table_paths(game, 2, kalah_tables)
    (kalah_tables / values_path.name.replace("s2", "s²")).write_bytes(b"stray")
    (kalah_tables / values_path.name.replace("s2.npy", "s².json")).write_text("{}")
    monkeypatch.setenv(solver.TABLE_ENV, str(kalah_tables))
    state = _position(game, [0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1], stores=(22, 23))
    for name in ("perfect", "alphabeta:2"):
        assert make_agent(name, seed=0).act_on_state(game, state) in game.legal_actions(state).tolist()


def _position(game: Any, board: list[int], stores: tuple[int, int]) -> np.ndarray:
    """The running Kalah position of ``board`` (player 0's six pits, then player 1's), player 0 to move."""
    state = game.new_state(0)
    text = ",".join(map(str, board[:6])) + "/" + ",".join(map(str, board[6:])) + f" {stores[0]},{stores[1]} 0"
    game.load_position(state, **game.parse_position(text))
    return state


# --- sizes: solve refuses what does not fit, and its hint is a command that works ----------------------------------
GIB = 2**30


@pytest.mark.parametrize(
    ("game_id", "memory", "fits"),
    [
        ("ouril_v0", 16 * GIB, 19),
        ("ouril_v0", 23 * GIB, 20),
        ("kalah_v0", 16 * GIB, 29),
        ("kalah_v0", GIB, 21),
        ("modiar_v0", GIB, 42),
        ("modiar_v0", 100 * 2**20, 33),
        ("urim_v0", 10**6, 5),
        ("urim_v0", 10, -1),
    ],
)
def test_the_largest_max_seeds_that_fits(game_id: str, memory: int, fits: int) -> None:
    game = make_game(game_id)
    assert solver.largest_max_seeds(game, memory) == fits
    if fits >= 0:
        assert solver.build_memory(game, fits) <= memory
    if fits < game.total_seeds:
        assert solver.build_memory(game, fits + 1) > memory


@pytest.mark.parametrize(
    ("game_id", "seeds", "measured"),
    [
        ("modiar_v0", 42, 0.4e9),
        ("kalah_v0", 18, 0.35e9),
        ("urim_v0", 16, 3.2e9),
        ("urim_v0", 14, 1.2e9),
        ("ouril_v0", 13, 0.7e9),
        ("ouril_v0", 12, 0.5e9),
    ],
)
def test_the_memory_estimate_follows_the_measured_peaks(game_id: str, seeds: int, measured: float) -> None:
    """docs/solved.md's peak resident memory of ``mancala-envs solve`` (the whole process, about 0.1 GB of it
    Python and numba) against the estimate of the table's own allocations: within a factor 0.7 to 1.6.

    Kalah's row (one byte a position since issue 32) was measured on 2026-12-04 with
    ``/usr/bin/time -v mancala-envs solve kalah --max-seeds 18 --dir DIR --quiet`` (Maximum resident set size:
    349,812 kB; 164,164 kB for K = 1, the process alone, so a smaller Kalah table is mostly the process).
    """
    estimate = solver.build_memory(make_game(game_id), seeds) + 0.1e9
    assert 0.7 * measured <= estimate <= 1.6 * measured


@pytest.mark.parametrize(
    ("files_there", "expected"),
    [
        ({"/proc/meminfo": b"MemTotal: 999 kB\nMemAvailable:  2048 kB\n"}, 2048 * 1024),
        (
            {
                "/proc/meminfo": b"MemAvailable: 2048 kB\n",
                "/sys/fs/cgroup/memory.max": b"max\n",
                "/sys/fs/cgroup/memory.current": b"10\n",
            },
            2048 * 1024,
        ),
        (
            {
                "/proc/meminfo": b"MemAvailable: 2048 kB\n",
                "/sys/fs/cgroup/memory.max": b"1000000\n",
                "/sys/fs/cgroup/memory.current": b"400000\n",
            },
            600000,
        ),
        (
            {
                "/proc/meminfo": b"MemAvailable: 1 kB\n",
                "/sys/fs/cgroup/memory.max": b"1000000\n",
                "/sys/fs/cgroup/memory.current": b"400000\n",
            },
            1024,
        ),
        (
            {
                "/proc/meminfo": b"MemAvailable: 2048 kB\n",
                "/sys/fs/cgroup/memory.max": b"100\n",
                "/sys/fs/cgroup/memory.current": b"400\n",
            },
            0,
        ),
    ],
    ids=["MemAvailable", "no cgroup limit", "cgroup limit lower", "MemAvailable lower", "cgroup over its limit"],
)
def test_available_memory_reads_memavailable_and_the_cgroup_limit(files_there: dict[str, bytes], expected: int) -> None:
    real_open = open

    def fake_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) in files_there:
            return io.BytesIO(files_there[str(path)])
        if str(path).startswith(("/proc/", "/sys/")):
            raise OSError("no such file")
        return real_open(path, *args, **kwargs)

    with mock.patch("builtins.open", fake_open):
        assert solver.available_memory() == expected


def test_available_memory_falls_back(tmp_path: Path) -> None:
    real_open = open

    def no_proc(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(("/proc/", "/sys/")):
            raise OSError("no such file")
        return real_open(path, *args, **kwargs)

    with mock.patch("builtins.open", no_proc), mock.patch("os.sysconf", side_effect=ValueError("unknown")):
        assert solver.available_memory() is None
    with mock.patch.object(solver, "available_memory", return_value=None):  # unknown memory: no refusal
        assert solver.build_table(make_game("kalah_v0"), 1).max_seeds == 1


def test_the_solve_hint_names_a_command_that_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ouril = make_game("ouril_v0")
    memory = solver.build_memory(ouril, 3) + 10
    with mock.patch.object(solver, "available_memory", return_value=memory):
        assert main(["evaluate", "greedy", "--game", "ouril", "--oracle", "--tables", str(tmp_path)]) == 2
        hint = capsys.readouterr().err
        assert f"`mancala-envs solve ouril --max-seeds 3 --dir {tmp_path}`" in hint
        assert main(["solve", "ouril", "--dir", str(tmp_path)]) == 2
        refusal = capsys.readouterr().err
        assert refusal.count("\n") == 1 and "Traceback" not in refusal
        assert f"this machine has {memory / 2**10:.2f} KiB available" in refusal
        assert "the largest that fits is --max-seeds 3" in refusal
        assert main(["solve", "ouril", "--max-seeds", "3", "--dir", str(tmp_path), "--quiet"]) == 0
    assert solver.available_tables(ouril, tmp_path) == [3]
    assert "positions: 910 " in capsys.readouterr().out


# --- other JSON files read through the same door ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "words"),
    [
        (make_fifo, "is a FIFO (named pipe)"),
        (make_zero_link, "is a device"),
        (lambda path: path.write_text("[" * 100_000) or path, "nested too deeply to be a JSON tournament result"),
    ],
    ids=["fifo", "symlink to /dev/zero", "deep"],
)
def test_a_tournament_result_is_read_through_the_file_door(
    tmp_path: Path, make: Callable[[Path], Any], words: str
) -> None:
    from mancala_envs.analysis.tournament import TournamentResult

    path = tmp_path / "result.json"
    make(path)
    with pytest.raises(ValueError) as raised:
        TournamentResult.load_json(path)
    assert words in str(raised.value)
