"""What a newcomer meets first (issue 30, item 7), one table per door: the README's pictures are what
``examples/draw_boards.py`` draws, the README's ``pettingzoo.make`` call runs as written, ``demo`` and
``replay`` number legal actions and moves alike on a board that does not turn, ``render_mode="human"``
without a display says so, and the Hydra example's run folders are ignored by git."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from mancala_envs.cli import play_demo, print_replay
from mancala_envs.envs.records import GameRecord
from mancala_envs.envs.registration import make_game, resolve_env_id
from mancala_envs.games import game_classes
from mancala_envs.games.omweso import omweso_rules

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"newcomer_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def fresh_python(code: str, cwd: Path, **environment: str | None) -> subprocess.CompletedProcess[str]:
    """Runs ``code`` in a new interpreter (nothing imported before it), in ``cwd``, with the test process's
    environment changed by ``environment`` (``None`` unsets a variable)."""
    env = {**os.environ, "MANCALA_ENVS_QUIET": "1"}
    for name, value in environment.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


# --- the README's pictures ------------------------------------------------------------------------------------------
#: the README's pictures of boards: (caption, docs/img/<name>.png)
README_PICTURES = re.findall(r"!\[([^\]]+)\]\(docs/img/(\w+)\.png\)", README.read_text(encoding="utf-8"))
#: what a caption's words promise about the pictured move: (phrase, check of the env after the move)
CAPTION_FACTS: list[tuple[str, Callable[[Any], bool]]] = [
    ("just after a capture", lambda env: bool(env.last_move["captures"])),
    (
        "the last seed in an empty own pit takes the opposite pit",
        lambda env: len(env.last_move["sown"]) >= 1 and env.last_move["captures"][0][0] == env.last_move["sown"][-1],
    ),
    ("a relay move of three laps", lambda env: env.facts()["laps"] == 3),
    ("one turn of four laps", lambda env: env.facts()["laps"] == 4),
    # an Omweso capture takes the two facing pits (inner and outer): two captures, four pits
    ("two captures re-sown", lambda env: len(env.last_move["captures"]) == 4),
]


@pytest.fixture(scope="module")
def draw_boards() -> ModuleType:
    return load_example("draw_boards")


@pytest.fixture(scope="module")
def drawn(draw_boards: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The pictures draw_boards.py draws now, by name (``"ouril"``), in a folder of the test's own."""
    return {path.stem: path for path in draw_boards.draw_boards(tmp_path_factory.mktemp("img"))}


def test_the_readme_shows_every_picture_draw_boards_draws(drawn: dict[str, Path]) -> None:
    assert sorted(name for _, name in README_PICTURES) == sorted(drawn)


@pytest.mark.parametrize(("caption", "name"), README_PICTURES, ids=[name for _, name in README_PICTURES])
def test_draw_boards_redraws_the_readme_picture(caption: str, name: str, drawn: dict[str, Path]) -> None:
    from PIL import Image

    committed = np.asarray(Image.open(ROOT / "docs" / "img" / f"{name}.png").convert("RGB"), dtype=np.int16)
    redrawn = np.asarray(Image.open(drawn[name]).convert("RGB"), dtype=np.int16)
    assert redrawn.shape == committed.shape
    differing = float((np.abs(redrawn - committed).max(axis=2) > 8).mean())
    # a font rasterised a little differently may move a few pixels; another position moves thousands
    assert differing <= 0.001, f"{name}.png: {differing:.2%} of the pixels differ from docs/img/{name}.png"


@pytest.mark.parametrize(("caption", "name"), README_PICTURES, ids=[name for _, name in README_PICTURES])
def test_each_readme_caption_holds_for_its_move(caption: str, name: str, draw_boards: ModuleType) -> None:
    env = draw_boards.play_pictured_moves(f"{name}_v0")
    promised = [(phrase, check) for phrase, check in CAPTION_FACTS if phrase in caption]
    assert promised, f"no check for the caption {caption!r}: add its phrase to CAPTION_FACTS"
    for phrase, check in promised:
        assert check(env), f"{name}: the caption says {phrase!r}, the pictured move does not"


def test_a_game_without_pictured_moves_is_named(draw_boards: ModuleType) -> None:
    with pytest.raises(KeyError, match="'ouril-mini' has no entry in PICTURED_MOVES"):
        draw_boards.play_pictured_moves("ouril-mini")


# --- pettingzoo.make ------------------------------------------------------------------------------------------------
def quick_start() -> str:
    match = re.search(r"## Quick start\n+```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert match, "README.md's Quick start must open with a ```python block"
    return match.group(1)


def test_the_quick_start_calls_pettingzoo_make_after_importing_mancala_envs() -> None:
    code_lines = [line.split("#")[0] for line in quick_start().splitlines()]
    calls = [n for n, line in enumerate(code_lines) if 'pettingzoo.make("aec", "mancala/' in line]
    assert calls, "the quick start must call pettingzoo.make (as code, not in a comment)"
    assert any(line.strip() == "import mancala_envs" for line in code_lines[: calls[0]])


def test_the_readme_quick_start_runs_as_written_in_a_fresh_interpreter(tmp_path: Path) -> None:
    done = fresh_python(quick_start(), tmp_path, SDL_VIDEODRIVER="dummy")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("env_id", "error"),
    [
        ("mancala/ouril-v0", "NamespaceNotFound: Namespace 'mancala' not found"),
        ("mancala_envs:mancala/ouril-v0", "Malformed environment ID"),  # no Gymnasium-style module:id form
    ],
)
def test_pettingzoo_loads_no_plugin_so_the_import_is_needed(env_id: str, error: str, tmp_path: Path) -> None:
    """Why every doc shows ``import mancala_envs`` first: PettingZoo finds ids only in its registry, which
    nothing fills before the import (no entry points). If this changes, the docs' wording can change."""
    done = fresh_python(f"import pettingzoo\npettingzoo.make('aec', {env_id!r})", tmp_path)
    assert done.returncode == 1 and error in done.stderr, done.stderr


#: what says, beside a pettingzoo.make call, that mancala_envs must be imported first
IMPORT_SAID = re.compile(r"import mancala_envs|`mancala_envs` is imported|Importing :mod:`mancala_envs`")
DOCS = [README, *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "mancala_envs").rglob("*.py"))]
#: every pettingzoo.make call the docs and docstrings show: (file, line, the text around it)
PETTINGZOO_CALLS = [
    (path, text.count("\n", 0, call.start()) + 1, text[max(0, call.start() - 250) : call.end() + 150])
    for path in DOCS
    for text in [path.read_text(encoding="utf-8")]
    for call in re.finditer(r"pettingzoo\.make\(", text)
]


def test_the_docs_show_pettingzoo_make() -> None:
    assert {path.name for path, _, _ in PETTINGZOO_CALLS} >= {"README.md", "use_with.md", "__init__.py"}


@pytest.mark.parametrize(
    ("path", "line", "around"),
    PETTINGZOO_CALLS,
    ids=[f"{path.relative_to(ROOT)}:{line}" for path, line, _ in PETTINGZOO_CALLS],
)
def test_every_pettingzoo_make_in_the_docs_says_to_import_mancala_envs(path: Path, line: int, around: str) -> None:
    assert IMPORT_SAID.search(around), f"{path.relative_to(ROOT)}:{line}: pettingzoo.make without `import mancala_envs`"


# --- demo and replay ------------------------------------------------------------------------------------------------
#: every game of the list (mancala_envs.games.GAME_MODULES), by its short name
GAMES = [game_class.name for game_class in game_classes()]
HEADER = re.compile(r"^\S+ .*ply \d+  (player_[01]) to (?:move|choose mid-turn|place)(.*)$")
DEMO_PLY = re.compile(r"^(player_[01]) \(\w+\) (.*) \(action (\d+)\), captures \d+$")
REPLAY_MOVE = re.compile(r"^(\d+)\. (player_[01]) (.*) \(action (\d+)\)$")


def legal_actions(header: re.Match[str]) -> list[int]:
    """The actions a board's header offers: ``legal actions [0, 1, 3]``, or Omweso's mid-turn choice
    ``... 5 counter-clockwise or 21 clockwise``."""
    listed = re.search(r"legal actions \[([\d, ]*)\]", header.group(2))
    if listed:
        return [int(action) for action in listed.group(1).split(", ")]
    choice = re.search(r"(\d+) counter-clockwise or (\d+) clockwise$", header.group(2))
    assert choice, f"a header without its actions: {header.group(0)!r}"
    return [int(choice.group(1)), int(choice.group(2))]


def boards(text: str) -> list[list[str]]:
    """The text boards of a demo or replay print-out, each as its lines (the header first)."""
    found: list[list[str]] = []
    for line in text.splitlines():
        if HEADER.match(line) or re.match(r"^\S+ .*game over", line):
            found.append([line])
        elif found and line.startswith("  ") and len(found[-1]) < 8:
            found[-1].append(line)
    return found


def pit_label(game: Any, player: int, action: int) -> int:
    """The number the text board labels the pit of ``player``'s ``action`` with: the global index, or
    Omweso's own-frame index (each side's pits are labelled 0-15 there)."""
    pit = game.played_pit(player, action)
    return pit % omweso_rules.RING if game.env_name.startswith("omweso") else pit


@pytest.fixture(scope="module", params=GAMES)
def demo(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, GameRecord]:
    """(game, demo print-out, its record) of one seeded game per game, greedy against random."""
    path = tmp_path_factory.mktemp("demo") / "game.json"
    out = StringIO()
    play_demo(request.param, ["greedy", "random"], seed=2, out=out, record=path)
    return request.param, out.getvalue(), GameRecord.load(path)


def test_demo_names_each_move_by_the_number_its_legal_list_uses(demo: tuple[str, str, GameRecord]) -> None:
    name, text, record = demo
    game = make_game(resolve_env_id(name))
    mover, legal, plies = None, None, 0
    for line in text.splitlines():
        header = HEADER.match(line)
        if header:
            mover, legal = header.group(1), legal_actions(header)
            continue
        ply = DEMO_PLY.match(line)
        if not ply:
            assert not re.match(r"^player_[01] \(", line), f"a ply without its action number: {line!r}"
            continue
        player, words, action = ply.group(1), ply.group(2), int(ply.group(3))
        assert player == mover, line
        assert legal is not None and action in legal, f"{line!r} after {legal}"
        assert re.search(rf"\bpit {pit_label(game, int(player[-1]), action)}\b", words), line
        assert record.moves[plies]["action"] == action
        plies += 1
    assert plies == len(record.moves) > 6


def test_replay_names_each_move_by_the_number_its_legal_list_uses(demo: tuple[str, str, GameRecord]) -> None:
    _, _, record = demo
    out = StringIO()
    print_replay(record, out)
    legal_before = [header for header in (HEADER.match(board[0]) for board in boards(out.getvalue())) if header]
    moves = [match for match in map(REPLAY_MOVE.match, out.getvalue().splitlines()) if match]
    assert len(moves) == len(record.moves)
    for number, (move, header) in enumerate(zip(moves, legal_before, strict=False), start=1):
        assert int(move.group(1)) == number and move.group(2) == header.group(1)
        assert int(move.group(4)) == record.moves[number - 1]["action"]
        assert int(move.group(4)) in legal_actions(header)
        assert move.group(3) == record.moves[number - 1]["move"]


def row_owners(board: list[str]) -> list[tuple[int, str]]:
    """(line within the board, player) of each row of pits a text board shows."""
    return [(n, owner.group(1)) for n, line in enumerate(board) if (owner := re.match(r"^  (player_[01]) ", line))]


@pytest.mark.parametrize("printout", ["demo", "replay"])
def test_the_text_board_keeps_player_0_on_the_same_side_every_ply(
    printout: str, demo: tuple[str, str, GameRecord]
) -> None:
    name, text, record = demo
    if printout == "replay":
        out = StringIO()
        print_replay(record, out)
        text = out.getvalue()
    shown = boards(text)
    assert len(shown) == len(record.moves) + 1
    first = row_owners(shown[0])
    assert [player for _, player in first][-1] == "player_0", "player_0's row is at the bottom"
    assert first[0][1] == "player_1", "player_1's row is at the top"
    movers = {HEADER.match(board[0]).group(1) for board in shown[:-1]}
    assert movers == {"player_0", "player_1"}, "both players move in the game (the board would turn)"
    for ply, board in enumerate(shown):
        assert row_owners(board) == first, f"{name} {printout}: the board turned at ply {ply}"


# --- render_mode="human" without a display --------------------------------------------------------------------------
HUMAN = """
import json, sys
import mancala_envs
outcome = {}
try:
    env = mancala_envs.make("ouril_v0", render_mode="human")
    outcome["built"] = True
    env.reset(seed=0)
    env.render()
    import pygame
    outcome["driver"] = pygame.display.get_driver()
    env.close()
except RuntimeError as error:
    outcome["error"] = str(error)
outcome["pygame_imported"] = "pygame" in sys.modules
if outcome["pygame_imported"]:
    import pygame
    outcome["display_open"] = pygame.display.get_init()
print(json.dumps(outcome))
"""
NO_DISPLAY = {"DISPLAY": None, "WAYLAND_DISPLAY": None, "SDL_VIDEODRIVER": None}
FIXES = ["xvfb-run", "SDL_VIDEODRIVER=dummy", 'render_mode="rgb_array"']


@pytest.mark.parametrize(
    ("setting", "environment", "expected"),
    [
        # nothing to show a window on: refused when the env is built, before pygame is imported
        (
            "no display",
            {},
            {
                "built": None,
                "pygame_imported": False,
                "error": [
                    'render_mode="human" needs a display to show its window',
                    "DISPLAY and WAYLAND_DISPLAY are unset",
                    *FIXES,
                ],
            },
        ),
        # headless by choice: the picture is drawn, nothing is shown, no error
        ("dummy driver", {"SDL_VIDEODRIVER": "dummy"}, {"built": True, "driver": ["dummy", "offscreen"]}),
        ("offscreen driver", {"SDL_VIDEODRIVER": "offscreen"}, {"built": True, "driver": ["offscreen"]}),
        # a display is named but SDL cannot open it: refused when the window opens, and pygame's display closed
        (
            "unreachable display",
            {"DISPLAY": ":4093"},
            {
                "built": True,
                "pygame_imported": True,
                "display_open": False,
                "error": ["SDL could not open one", "DISPLAY=':4093'", *FIXES],
            },
        ),
    ],
)
def test_human_window_without_a_display(
    setting: str, environment: dict[str, str], expected: dict[str, Any], tmp_path: Path
) -> None:
    done = fresh_python(HUMAN, tmp_path, **{**NO_DISPLAY, **environment})
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    for key, value in expected.items():
        if key == "error":
            assert all(word in outcome["error"] for word in value), outcome
        elif key == "driver":
            assert outcome["driver"] in value and "error" not in outcome, outcome
        else:
            assert outcome.get(key) == value, (key, outcome)


#: a refused window changes nothing: every call that would show the window is tried on a display that cannot be
#: opened, and the env's snapshot (``state_dict``) compared with the one before it
HALF_APPLIED = """
import json
import numpy as np
import mancala_envs
from mancala_envs.views.single_agent_env import SingleAgentEnv

def snapshot(env):
    return json.dumps(env.unwrapped.state_dict(), sort_keys=True)

def attempt(call):
    try:
        call()
    except RuntimeError as error:
        return str(error)
    return "done"

outcome = {}
env = mancala_envs.make("ouril_v0", render_mode="human")
env.reset(seed=0)
before = snapshot(env)
legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
outcome["step"] = attempt(lambda: env.step(legal))
outcome["step leaves the env as it was"] = snapshot(env) == before
outcome["render"] = attempt(env.render)
outcome["step after render"] = attempt(lambda: env.step(legal))
outcome["step after render leaves the env as it was"] = snapshot(env) == before
penalty = mancala_envs.make("ouril_v0", render_mode="human", illegal_action="penalty")
penalty.reset(options={"board": [0] + [4] * 10 + [8], "player": 0})  # pit 0 is empty: action 0 is illegal
before = snapshot(penalty)
outcome["illegal step under penalty"] = attempt(lambda: penalty.step(0))
outcome["illegal step leaves the env as it was"] = snapshot(penalty) == before
single = SingleAgentEnv("ouril_v0", learner_seat=1, render_mode="human")  # the opponent moves first
outcome["single-agent reset"] = attempt(lambda: single.reset(seed=0))
outcome["single-agent reset leaves the env unreset"] = attempt(lambda: single.aec_env.state_dict())
print(json.dumps(outcome))
"""
REFUSED = ["SDL could not open one", "DISPLAY=':4093'", *FIXES]
NOT_RESET = "state_dict() was called before reset(); call env.reset() first."


@pytest.mark.parametrize(
    ("setting", "environment", "expected"),
    [
        # the display cannot be opened: each call is refused before it changes anything (the move is not played)
        (
            "unreachable display",
            {"DISPLAY": ":4093"},
            {
                "step": REFUSED,
                "step leaves the env as it was": True,
                "render": REFUSED,
                "step after render": REFUSED,
                "step after render leaves the env as it was": True,
                "illegal step under penalty": REFUSED,
                "illegal step leaves the env as it was": True,
                "single-agent reset": REFUSED,
                "single-agent reset leaves the env unreset": [NOT_RESET],
            },
        ),
        # headless by choice: the same calls play their moves (what the comparisons above would see change)
        (
            "dummy driver",
            {"SDL_VIDEODRIVER": "dummy"},
            {
                "step": ["done"],
                "step leaves the env as it was": False,
                "render": ["done"],
                "illegal step under penalty": ["done"],
                "illegal step leaves the env as it was": False,
                "single-agent reset": ["done"],
            },
        ),
    ],
)
def test_a_window_that_cannot_open_leaves_the_env_as_it_was(
    setting: str, environment: dict[str, str], expected: dict[str, Any], tmp_path: Path
) -> None:
    """Nothing half-applied: the window opens before ``step`` plays its move (and before ``SingleAgentEnv.reset``
    starts its episode), so a display that cannot be opened is refused with the env unchanged."""
    done = fresh_python(HALF_APPLIED, tmp_path, **{**NO_DISPLAY, **environment})
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    for key, value in expected.items():
        if isinstance(value, list):
            assert all(word in outcome[key] for word in value), (key, outcome[key])
        else:
            assert outcome[key] is value, (key, outcome)


# --- the Hydra example's run folders --------------------------------------------------------------------------------
def test_the_hydra_examples_run_folders_are_ignored_by_git() -> None:
    """Where Hydra writes when the example is started from the repository (its run and multirun folders, as the
    example's config composes them) and from its own folder: git ignores all of it."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "examples" / "hydra" / "conf"), version_base=None):
        config = compose("config", return_hydra_config=True)
    run_dir, sweep_dir = str(config.hydra.run.dir), str(config.hydra.sweep.dir)
    assert run_dir.startswith("outputs/") and sweep_dir.startswith("multirun/")
    written = [
        f"{run_dir}/.hydra/config.yaml",
        f"{run_dir}/train.log",
        f"{sweep_dir}/0/.hydra/config.yaml",
        f"examples/hydra/{run_dir}/train.log",
    ]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--verbose", *written],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ignored = [line.split("\t")[-1] for line in done.stdout.splitlines()]
    assert ignored == written
