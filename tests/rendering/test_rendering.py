"""Tests of the board pictures (issue 9): ``render_mode="rgb_array"`` and ``"human"``, ``BoardPicture``.

What is checked:

- every registered id (game names and ``mancala/...`` ids) and every Gymnasium id renders an
  ``(H, W, 3)`` ``uint8`` picture, sizes multiples of 16, the same shape at every ply, equal to
  ``BoardPicture(game).draw(state, last_move)`` from the opening to the final position;
- the picture of a position is deterministic (two envs, two processes), a new array each time;
- pixel checks of the highlights, from the picture's geometry (``centres``, ``radius``) and its
  colours: the played pit's ring, the captured pits' rings, the ``+k`` badges of the sown pits,
  Omweso's pending choice and Rio Kadalis's closed pits;
- pygame is imported at the first picture, never by the import, ``make``, ``reset`` or ``step``;
- the window of ``render_mode="human"`` (SDL's dummy driver, see conftest.py): one frame per ply,
  showing the rgb_array picture, closed by ``close()``;
- Gymnasium's ``RecordVideo`` on the single-agent env; copies of an env after a render.

PettingZoo's ``render_test`` runs in test_api.py.
"""

from __future__ import annotations

import copy
import hashlib
import math
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import mancala_envs
from mancala_envs.envs import omweso_v0
from mancala_envs.envs.registration import list_gymnasium_envs
from mancala_envs.rendering import BoardPicture
from mancala_envs.rendering.picture import CAPTURED, CLOSED, PATH, PENDING, PLAYED

ALL_IDS = mancala_envs.list_envs()
GAMES = tuple(mancala_envs.envs.registration.game_names())  # every registered game
REPO = Path(__file__).resolve().parents[2]

#: Ouril's worked example O2 (docs/rules/ouril.md, tests/games/test_ouril_rules.py): player 0 sows local 5
#: into 6, 7, 8, 9 and captures 9 (3), 8 (2) and 7 (2); pit 6 ends with 4 and stops the chain.
O2_BOARD = [6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0]
O2_STORES = [10, 9]
O2_PLAYED, O2_SOWN, O2_CAPTURED = 5, [6, 7, 8, 9], [9, 8, 7]
O2_UNTOUCHED = [0, 1, 2, 3, 4, 10, 11]

#: Omweso's worked example W9 (tests/games/test_omweso_rules.py): P0's pits, P1's pits, each in its owner's frame.
#: Player 0 sows pit 11 into 12..15, and must then choose how to relay from pit 15 (15 ccw / 31 cw).
W9 = ([2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2], [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2])

#: where the ring samples sit: the lower half of the circle, clear of the badges above each pit
LOWER_HALF = [math.radians(degrees) for degrees in range(20, 161, 20)]


# --- helpers -------------------------------------------------------------------------------------------------
def play(env: Any, rng: np.random.Generator, plies: int) -> Iterator[None]:
    """Plays up to ``plies`` random legal moves (the finished agents' ``None`` steps included), yielding after each."""
    for _ in range(plies):
        if not env.agents:
            return
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        yield


def expected(painter: BoardPicture, env: Any) -> np.ndarray:
    """The picture a fresh painter draws of the env's state and last move."""
    raw = env.unwrapped
    return painter.draw(raw.state_array, raw.state_dict()["last_move"])


def fresh(env_id: str, position: str, **options: Any) -> Any:
    """A new rgb_array env reset to ``position`` (no last move)."""
    env = mancala_envs.make(env_id, render_mode="rgb_array", **options)
    env.reset(seed=0, options={"position": position})
    return env


def ouril_o2(**options: Any) -> Any:
    """An Ouril env after the capture of example O2."""
    env = mancala_envs.make("ouril_v0", render_mode="rgb_array", first_player=0, illegal_action="raise", **options)
    env.reset(seed=0, options={"board": O2_BOARD, "stores": O2_STORES, "player": 0})
    env.step(O2_PLAYED)
    assert env.unwrapped.last_move == {
        "player": 0,
        "action": O2_PLAYED,
        "sown": O2_SOWN,
        "captures": [[9, 3], [8, 2], [7, 2]],
    }
    return env


def omweso_w9(player: int) -> Any:
    """An Omweso env at W9's mid-turn choice; for player 1 the position is W9 with the seats swapped."""
    own, other = W9
    board = own + other if player == 0 else other + own
    env = omweso_v0.env(first_player=player, render_mode="rgb_array", illegal_action="raise")
    env.reset(seed=0, options={"board": board, "player": player, "stores": [0, 0], "turn": 2})
    env.step(11)
    return env


def ring(image: np.ndarray, centre: tuple[int, int], distances: tuple[int, ...]) -> set[tuple[int, ...]]:
    """The colours on circles of the given radii around ``centre`` (lower half only)."""
    cx, cy = centre
    return {
        tuple(int(v) for v in image[cy + round(d * math.sin(a)), cx + round(d * math.cos(a))])
        for d in distances
        for a in LOWER_HALF
    }


def highlight_ring(image: np.ndarray, painter: BoardPicture, pit: int) -> set[tuple[int, ...]]:
    """Colours just outside the bowl, where the played / captured ring (radius + 3, 5 wide) lies."""
    return ring(image, painter.centres[pit], (painter.radius, painter.radius + 1))


def pending_ring(image: np.ndarray, painter: BoardPicture, pit: int) -> set[tuple[int, ...]]:
    """Colours where the pending-choice ring (radius + 7, 4 wide) lies."""
    return ring(image, painter.centres[pit], (painter.radius + 4, painter.radius + 5))


def badge_pixels(image: np.ndarray, painter: BoardPicture, pit: int, colour: tuple[int, int, int], left: bool) -> int:
    """How many pixels of exactly ``colour`` lie where a pit's badge goes: ``centre + (+-0.78 r, -0.78 r)``."""
    cx, cy = painter.centres[pit]
    offset = int(painter.radius * 0.78)
    x = cx - offset if left else cx + offset
    y = cy - offset
    dx, dy = painter.radius // 3, painter.radius // 5
    window = image[y - dy : y + dy + 1, x - dx : x + dx + 1]
    return int(np.all(window == np.array(colour, dtype=np.uint8), axis=-1).sum())


def region(image: np.ndarray, painter: BoardPicture, pit: int) -> np.ndarray:
    """The square around a pit that holds its bowl, rings and badges."""
    cx, cy = painter.centres[pit]
    half = painter.radius + 8
    return image[cy - half : cy + half + 1, cx - half : cx + half + 1]


def assert_highlights(image: np.ndarray, painter: BoardPicture, last_move: dict[str, Any] | None) -> None:
    """The played pit is ringed in gold, captured pits in red, sown pits carry a ``+k`` badge; no other pit has any."""
    game = painter.game
    played = None if last_move is None else game.played_pit(last_move["player"], last_move["action"])
    sown = set() if last_move is None else set(last_move["sown"])
    captured = set() if last_move is None else {pit for pit, _ in last_move["captures"]}
    for pit in painter.centres:
        colours = highlight_ring(image, painter, pit)
        # A played pit that is also captured gets one ring (Modiar and Rio Kadalis can capture the pit played);
        # either colour is accepted here.
        if pit in captured and pit == played:
            assert colours and colours <= {PLAYED, CAPTURED}, (pit, colours)
        elif pit in captured:
            assert colours == {CAPTURED}, (pit, colours)
        elif pit == played:
            assert colours == {PLAYED}, (pit, colours)
        else:
            assert not colours & {PLAYED, CAPTURED}, (pit, colours)
        assert (badge_pixels(image, painter, pit, PATH, left=False) > 0) == (pit in sown), pit
        assert (badge_pixels(image, painter, pit, CAPTURED, left=True) > 0) == (pit in captured), pit


# --- every id: shape, dtype, the painter's picture at every ply -------------------------------------------------
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_rgb_array_along_a_seeded_game(env_id: str) -> None:
    env = mancala_envs.make(env_id, render_mode="rgb_array")
    painter = BoardPicture(env.unwrapped.game)
    assert painter.width % 16 == 0 and painter.height % 16 == 0
    shape = (painter.height, painter.width, 3)
    env.reset(seed=7)
    rng = np.random.default_rng(7)

    def check() -> np.ndarray:
        picture = env.render()
        assert isinstance(picture, np.ndarray)
        assert picture.dtype == np.uint8 and picture.shape == shape
        np.testing.assert_array_equal(picture, expected(painter, env))
        return picture

    assert_highlights(check(), painter, None)
    for _ in play(env, rng, 30):
        picture = check()
        info = env.unwrapped.infos.get(env.agent_selection)
        if info is not None:  # (None once every agent has left a finished game)
            # A match's new game (ply 0) names the move that ended the last one only in the caption.
            assert_highlights(picture, painter, env.unwrapped.last_move if info["ply"] > 0 else None)
    for _ in play(env, rng, 100_000):  # to the end, and past it: every agent removed
        pass
    assert env.agents == []
    check()


@pytest.mark.parametrize("gymnasium_id", list_gymnasium_envs())
def test_rgb_array_through_gymnasium_make(gymnasium_id: str) -> None:
    env = gymnasium.make(f"mancala_envs:{gymnasium_id}", render_mode="rgb_array")
    aec = env.unwrapped.aec_env
    painter = BoardPicture(aec.game)
    shape = (painter.height, painter.width, 3)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    steps = 0
    while not done:
        if steps < 12:  # the first steps, each checked; then the rest of the episode unchecked
            picture = env.render()
            assert picture.dtype == np.uint8 and picture.shape == shape
            np.testing.assert_array_equal(picture, expected(painter, aec))
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated
        steps += 1
    picture = env.render()
    assert picture.shape == shape
    np.testing.assert_array_equal(picture, expected(painter, aec))
    env.close()


# --- determinism -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "env_id", ["mancala/ouril-v0", "mancala/modiar-v0", "mancala/rio-kadalis-match-v0", "mancala/omweso-v0"]
)
def test_a_position_always_gives_the_same_picture(env_id: str) -> None:
    source = mancala_envs.make(env_id, render_mode="rgb_array")
    source.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in play(source, rng, 6):
        pass
    position = source.position()
    for _ in play(source, rng, 1):
        pass
    other_position = source.position()
    assert other_position != position

    first, second = fresh(env_id, position), fresh(env_id, position)
    picture = first.render()
    np.testing.assert_array_equal(picture, second.render())
    assert not np.array_equal(picture, fresh(env_id, other_position).render())

    again = first.render()
    np.testing.assert_array_equal(again, picture)
    assert not np.shares_memory(again, picture), "render() must return a new array"
    picture[:] = 0  # the caller owns the array: changing it changes no later picture
    np.testing.assert_array_equal(first.render(), again)


# --- pixel checks of the highlights ------------------------------------------------------------------------------
def test_ouril_capture_highlights_the_played_sown_and_captured_pits() -> None:
    env = ouril_o2()
    painter = BoardPicture(env.unwrapped.game)
    image = env.render()
    assert highlight_ring(image, painter, O2_PLAYED) == {PLAYED}
    for pit in O2_CAPTURED:
        assert highlight_ring(image, painter, pit) == {CAPTURED}
    for pit in painter.centres:
        if pit != O2_PLAYED:
            assert PLAYED not in highlight_ring(image, painter, pit), f"pit {pit} has the played ring"
        if pit not in O2_CAPTURED:
            assert CAPTURED not in highlight_ring(image, painter, pit), f"pit {pit} has the captured ring"
    for pit in O2_SOWN:  # "+1" badges, top right
        assert badge_pixels(image, painter, pit, PATH, left=False) >= 20, pit
    for pit in O2_CAPTURED:  # "-3", "-2", "-2" badges, top left
        assert badge_pixels(image, painter, pit, CAPTURED, left=True) >= 20, pit
    for pit in O2_UNTOUCHED + [O2_PLAYED]:
        assert badge_pixels(image, painter, pit, PATH, left=False) == 0, pit
        assert badge_pixels(image, painter, pit, CAPTURED, left=True) == 0, pit
    for pit in O2_UNTOUCHED:
        assert not highlight_ring(image, painter, pit) & {PLAYED, CAPTURED, PENDING}, pit
    assert_highlights(image, painter, env.unwrapped.last_move)


def test_without_a_last_move_only_the_highlighted_pits_change() -> None:
    env = ouril_o2()
    painter = BoardPicture(env.unwrapped.game)
    highlighted = env.render()
    plain = fresh("ouril_v0", env.position()).render()  # the same position, reset: no last move
    assert plain.shape == highlighted.shape
    assert_highlights(plain, painter, None)
    for pit in [O2_PLAYED] + O2_SOWN:
        assert not np.array_equal(region(highlighted, painter, pit), region(plain, painter, pit)), pit
    for pit in O2_UNTOUCHED:
        np.testing.assert_array_equal(
            region(highlighted, painter, pit), region(plain, painter, pit), err_msg=f"pit {pit}"
        )


# --- Omweso: the mid-turn choice, the placement phase --------------------------------------------------------------
@pytest.mark.parametrize("player", [0, 1])
def test_omweso_pending_choice_is_ringed(player: int) -> None:
    env = omweso_w9(player)
    pending = env.unwrapped.facts()["pending"]
    assert pending is not None and pending["kind"] == "relay"
    game = env.unwrapped.game
    pending_pit = game.played_pit(player, pending["pit"])  # the pit is in the mover's own frame
    assert pending_pit == 16 * player + 15
    painter = BoardPicture(game)
    image = env.render()
    np.testing.assert_array_equal(image, expected(painter, env))
    assert pending_ring(image, painter, pending_pit) == {PENDING}
    for pit in painter.centres:
        if pit != pending_pit:
            assert PENDING not in pending_ring(image, painter, pit), pit
    assert_highlights(image, painter, env.unwrapped.last_move)
    assert highlight_ring(image, painter, 16 * player + 11) == {PLAYED}

    # The same board and flags without the pending choice: no violet ring, another header.
    position = env.position()
    assert " pending=" in position
    with_choice = fresh("omweso_v0", position).render()
    without = " ".join(part for part in position.split() if not part.startswith(("pending=", "laps=")))
    no_choice_env = fresh("omweso_v0", without)
    assert no_choice_env.unwrapped.facts()["pending"] is None
    no_choice = no_choice_env.render()
    assert PENDING not in pending_ring(no_choice, painter, pending_pit)
    header = painter.board_rect[1] - painter.name_band
    assert not np.array_equal(with_choice[:header], no_choice[:header]), "the header must name the choice"
    for pit in painter.centres:
        same = np.array_equal(region(with_choice, painter, pit), region(no_choice, painter, pit))
        assert same == (pit != pending_pit), pit


def test_omweso_placement_renders() -> None:
    env = mancala_envs.make("mancala/omweso-placement-v0", render_mode="rgb_array")
    painter = BoardPicture(env.unwrapped.game)
    env.reset(seed=2)
    assert env.unwrapped.facts()["phase"] == "placement"
    opening = env.render()
    assert opening.shape == (painter.height, painter.width, 3)
    rng = np.random.default_rng(2)
    for _ in play(env, rng, 5):
        image = env.render()
        np.testing.assert_array_equal(image, expected(painter, env))
        last_move = env.unwrapped.state_dict()["last_move"]
        pit = env.unwrapped.game.played_pit(last_move["player"], last_move["action"])
        assert last_move["sown"] == [pit]  # a placement puts one seed into the pit played
        assert highlight_ring(image, painter, pit) == {PLAYED}
        assert_highlights(image, painter, last_move)


# --- Rio Kadalis: closed pits ---------------------------------------------------------------------------------------
def closed_colours(image: np.ndarray, painter: BoardPicture, pit: int) -> set[tuple[int, ...]]:
    """Colours inside a bowl, off the cross of a closed pit and off the seed dots."""
    cx, cy = painter.centres[pit]
    d = painter.radius // 2
    return {tuple(int(v) for v in image[y, x]) for x, y in ((cx, cy - d), (cx, cy + d), (cx - d, cy), (cx + d, cy))}


def assert_closed_pits(image: np.ndarray, painter: BoardPicture, closed: set[int]) -> None:
    for pit in painter.centres:
        colours = closed_colours(image, painter, pit)
        if pit in closed:
            assert colours == {CLOSED}, (pit, colours)
        else:
            assert CLOSED not in colours, (pit, colours)


def test_rio_kadalis_closed_pits_from_a_position() -> None:
    env = fresh("mancala/rio-kadalis-match-v0", "0,0,4,4,4,4/4,4,4,4,4,0 4,4 0 closed=0,1,11 reserves=0,4")
    assert env.unwrapped.facts()["closed_pits"] == [0, 1, 11]
    painter = BoardPicture(env.unwrapped.game)
    image = env.render()
    assert_closed_pits(image, painter, {0, 1, 11})
    open_env = fresh("mancala/rio-kadalis-match-v0", "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0")
    assert_closed_pits(open_env.render(), painter, set())


def test_rio_kadalis_match_new_round_shows_closed_pits_and_names_the_last_move_only_in_the_caption() -> None:
    env = mancala_envs.make("mancala/rio-kadalis-match-v0", render_mode="rgb_array")
    painter = BoardPicture(env.unwrapped.game)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in play(env, rng, 5000):
        info = env.unwrapped.facts() if env.agents else None
        if info is not None and info["ply"] == 0 and info["closed_pits"]:
            break
    else:
        pytest.fail("no round of the seeded match started with closed pits")
    closed = set(info["closed_pits"])
    assert info["last_move"] is not None  # the move that ended the last round
    image = env.render()
    np.testing.assert_array_equal(image, expected(painter, env))
    assert_closed_pits(image, painter, closed)
    assert_highlights(image, painter, None)  # the last round's move is not drawn on the new board
    # The same position without a last move: only the caption line differs.
    plain = fresh("mancala/rio-kadalis-match-v0", env.position()).render()
    header = painter.board_rect[1] - painter.name_band
    assert not np.array_equal(image[:header], plain[:header])
    np.testing.assert_array_equal(image[header:], plain[header:])


# --- pygame is imported at the first picture only ----------------------------------------------------------------
PYGAME_SCRIPT = """
import hashlib, sys
import numpy as np
import mancala_envs
def pygame_loaded():
    return "pygame" in sys.modules
assert not pygame_loaded(), "import mancala_envs imported pygame"
for name in mancala_envs.list_envs():
    for mode in ("rgb_array", "human"):
        env = mancala_envs.make(name, render_mode=mode, first_player=0)
        env.reset(seed=0)
        assert not pygame_loaded(), f"make or reset of {name} ({mode}) imported pygame"
env = mancala_envs.make("ouril_v0", render_mode="rgb_array", first_player=0)
env.reset(seed=0)
env.step(0)
env.step(2)
assert not pygame_loaded(), "step imported pygame"
import gymnasium
single = gymnasium.make("mancala_envs:mancala/Ouril-v0", render_mode="rgb_array")
_, info = single.reset(seed=0)
single.step(int(np.flatnonzero(info["action_mask"])[0]))
assert not pygame_loaded(), "the single-agent env imported pygame"
picture = env.render()
assert pygame_loaded(), "render() drew without pygame?"
print(hashlib.sha256(picture.tobytes()).hexdigest(), *picture.shape)
"""


def test_pygame_is_imported_at_the_first_picture_only() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PYGAME_SCRIPT],
        check=False,
        cwd=REPO,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # Nothing else on stdout: no pygame greeting. The picture is the same as this process draws.
    env = mancala_envs.make("ouril_v0", render_mode="rgb_array", first_player=0)
    env.reset(seed=0)
    env.step(0)
    env.step(2)
    picture = env.render()
    here = f"{hashlib.sha256(picture.tobytes()).hexdigest()} {' '.join(map(str, picture.shape))}"
    assert result.stdout.strip() == here


# --- the window of render_mode="human" ---------------------------------------------------------------------------
def shown() -> np.ndarray:
    import pygame

    return pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)


@pytest.mark.parametrize("env_id", GAMES)
def test_human_window_shows_a_frame_per_ply(env_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import pygame

    env = mancala_envs.make(env_id, render_mode="human")
    env.unwrapped.metadata["render_fps"] = 1000  # the window waits 1/fps per frame
    painter = BoardPicture(env.unwrapped.game)
    env.reset(seed=1)
    assert env.unwrapped.window is None, "reset() must not open the window"
    frames: list[int] = []
    flip = pygame.display.flip
    monkeypatch.setattr(pygame.display, "flip", lambda: (frames.append(1), flip())[1])

    assert env.render() is None
    assert len(frames) == 1
    assert pygame.display.get_caption()[0] == f"mancala-envs: {env.unwrapped.game.env_name}"
    np.testing.assert_array_equal(shown(), expected(painter, env))
    rng = np.random.default_rng(1)
    for ply, _ in enumerate(play(env, rng, 8), start=2):
        assert len(frames) == ply, "each step shows one frame"
        np.testing.assert_array_equal(shown(), expected(painter, env))
    env.close()
    assert not pygame.display.get_init(), "close() must close the window"
    env.close()  # closing twice is fine
    assert env.render() is None  # a render after close opens a new window
    assert pygame.display.get_init()
    np.testing.assert_array_equal(shown(), expected(painter, env))
    env.close()
    assert not pygame.display.get_init()


def test_human_window_keeps_the_frame_rate() -> None:
    env = mancala_envs.make("ouril_v0", render_mode="human")
    env.unwrapped.metadata["render_fps"] = 25  # frames at least 40 ms apart
    env.reset(seed=0)
    env.render()
    start = time.perf_counter()
    for _ in range(3):
        env.render()
    elapsed = time.perf_counter() - start
    env.close()
    assert elapsed >= 3 * 0.04 * 0.8, f"3 frames at 25 fps took {elapsed:.3f} s"


def test_closing_a_copy_leaves_the_original_window_working() -> None:
    import pygame

    env = mancala_envs.make("ouril_v0", render_mode="human")
    env.unwrapped.metadata["render_fps"] = 1000
    env.reset(seed=0)
    env.render()
    clone = copy.deepcopy(env)
    assert clone.unwrapped.window is None and clone.unwrapped.picture is None  # no pygame objects copied
    clone.render()
    clone.close()
    try:
        env.render()  # the original was never closed: its window must still show pictures
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        assert pygame.display.get_init()
        np.testing.assert_array_equal(shown(), expected(BoardPicture(env.unwrapped.game), env))
    finally:
        env.close()


# --- Gymnasium's RecordVideo ---------------------------------------------------------------------------------------
def test_record_video_writes_a_frame_per_step(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    import imageio.v3 as iio
    import imageio_ffmpeg
    from gymnasium.wrappers import RecordVideo

    folder = tmp_path / "videos"
    env = gymnasium.make("mancala_envs:mancala/Ouril-v0", render_mode="rgb_array", opponent="greedy")
    env = RecordVideo(env, video_folder=str(folder), episode_trigger=lambda episode: True, name_prefix="ouril")
    _, info = env.reset(seed=0)
    first_picture = env.render()
    rng = np.random.default_rng(0)
    steps = 0
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated
        steps += 1
    env.close()
    videos = sorted(folder.glob("*.mp4"))
    assert [video.name for video in videos] == ["ouril-episode-0.mp4"]
    assert videos[0].stat().st_size > 0
    frames, _ = imageio_ffmpeg.count_frames_and_secs(str(videos[0]))
    assert frames == steps + 1  # the opening, then one frame per step
    with iio.imopen(videos[0], "r") as video:
        first_frame = video.read(index=0)
    assert first_frame.shape == first_picture.shape
    # The video is lossy; its first frame is still the opening's picture.
    assert np.abs(first_frame.astype(int) - first_picture.astype(int)).mean() < 8


# --- copies --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "copier", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))], ids=["deepcopy", "pickle"]
)
@pytest.mark.parametrize("env_id", ["ouril_v0", "omweso_v0"])
def test_copies_after_a_render_draw_the_same_picture(env_id: str, copier: Any) -> None:
    env = mancala_envs.make(env_id, render_mode="rgb_array")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in play(env, rng, 3):
        pass
    env.render()
    for _ in play(env, rng, 1):  # the last move is not decoded yet when the copy is made
        pass
    clone = copier(env)
    assert clone.unwrapped.picture is None and clone.unwrapped.window is None
    np.testing.assert_array_equal(clone.render(), env.render())
    for _ in play(clone, np.random.default_rng(9), 1):
        pass
    for _ in play(env, np.random.default_rng(9), 1):
        pass
    np.testing.assert_array_equal(clone.render(), env.render())


def test_single_agent_copy_after_a_render_draws_the_same_picture() -> None:
    env = gymnasium.make("mancala_envs:mancala/Omweso-v0", render_mode="rgb_array", opponent="greedy")
    _, info = env.reset(seed=1)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    picture = env.render()
    clone = copy.deepcopy(env)
    np.testing.assert_array_equal(clone.render(), picture)


# --- BoardPicture(game, cell=...) ------------------------------------------------------------------------------------
@pytest.mark.parametrize("cell", [True, False, 88.0, 47, 0, -88])
def test_invalid_cell_is_refused(cell: Any) -> None:
    game = mancala_envs.make("ouril_v0").unwrapped.game
    with pytest.raises(ValueError, match="cell"):
        BoardPicture(game, cell=cell)


@pytest.mark.parametrize("env_id", GAMES)
def test_a_bigger_cell_draws_a_bigger_picture(env_id: str) -> None:
    env = mancala_envs.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    game = env.unwrapped.game
    smallest, default, big = BoardPicture(game, cell=48), BoardPicture(game), BoardPicture(game, cell=120)
    shapes = []
    for painter in (smallest, default, big):
        picture = painter.draw(env.unwrapped.state_array)
        assert picture.dtype == np.uint8 and picture.shape == (painter.height, painter.width, 3)
        assert painter.height % 16 == 0 and painter.width % 16 == 0
        shapes.append(picture.shape)
    assert shapes[0][0] < shapes[1][0] < shapes[2][0]
    assert shapes[0][1] < shapes[1][1] < shapes[2][1]
    assert smallest.radius < default.radius < big.radius
    np.testing.assert_array_equal(default.draw(env.unwrapped.state_array), env.render())
