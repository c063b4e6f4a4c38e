"""Tests of the SVG board (issue 35): ``BoardSvg``, ``svg_of``, ``render_mode="svg"``, ``_repr_svg_``.

What is checked:

- every registered game along a seeded game: the SVG parses as XML, each pit's ``data-seeds`` and count text
  equal the state's board, the stores (or Omweso's captured tallies) equal the state's, the root says the ply
  and the player to move; nothing external (no href, no script, no id);
- the highlight: exactly the pits given get the class ``legal`` and a green ring; bad highlights are refused;
- a known move (Ouril's worked example O2): the played pit, the ``+1`` sown badges, the ``-3 -2 -2`` captured
  badges and rings, the path through the sown pits, the caption's words; Kalah's seed sown into a store;
  Omweso's pending choice; Rio Kadalis's closed pits;
- one geometry: the SVG and the pygame picture place every pit at the same centre, at the same size;
- ``render_mode="svg"`` (AEC and single-agent env, PettingZoo's and Gymnasium's checks) and ``_repr_svg_``,
  without pygame.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import mancala_envs
from mancala_envs.engine.state import BOARD, PLY, STORE
from mancala_envs.envs import omweso_v0
from mancala_envs.rendering import BoardPicture, BoardSvg, SvgDrawing, svg_of

GAMES = tuple(mancala_envs.envs.registration.game_names())
SVG = "{http://www.w3.org/2000/svg}"
REPO = Path(__file__).resolve().parents[2]

#: Ouril's worked example O2 (as tests/rendering/test_rendering.py): player 0 sows local 5 into 6, 7, 8, 9 and
#: captures 9 (3), 8 (2) and 7 (2).
O2_BOARD = [6, 2, 0, 4, 1, 4, 3, 1, 1, 2, 5, 0]
O2_STORES = [10, 9]
#: Omweso's worked example W9 (as test_rendering.py): player 0 sows pit 11 and must choose how to relay from pit 15.
W9 = ([2, 2, 0, 3, 0, 2, 2, 2, 2, 1, 0, 4, 1, 1, 1, 2], [4, 2, 2, 3, 3, 2, 2, 4, 0, 3, 2, 2, 3, 3, 2, 2])


# --- helpers -------------------------------------------------------------------------------------------------
def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def groups(root: ET.Element, kind: str) -> list[ET.Element]:
    return [element for element in root.iter(f"{SVG}g") if kind in classes(element)]


def pits_of(root: ET.Element) -> dict[int, ET.Element]:
    return {int(g.get("data-pit", "-1")): g for g in groups(root, "pit")}


def count_text(group: ET.Element) -> str:
    texts = [t for t in group.iter(f"{SVG}text") if "count" in classes(t)]
    assert len(texts) == 1, ET.tostring(group)
    return texts[0].text or ""


def badges(root: ET.Element, kind: str) -> dict[str, str]:
    """``{"pit 3": "+1", "store 0": "+1"}`` for every badge of ``kind`` (``sown`` or ``captured``)."""
    out = {}
    for badge in groups(root, "badge"):
        if kind in classes(badge):
            where = f"pit {badge.get('data-pit')}" if badge.get("data-pit") else f"store {badge.get('data-store')}"
            out[where] = next(badge.iter(f"{SVG}text")).text or ""
    return out


def rings(group: ET.Element) -> set[str]:
    return {kind for circle in group.iter(f"{SVG}circle") if "ring" in classes(circle) for kind in classes(circle)} - {
        "ring"
    }


def assert_matches_state(svg: str, game: Any, state: np.ndarray) -> ET.Element:
    """The drawn counts, stores and tallies are the state's; returns the parsed SVG."""
    root = parse(svg)
    pits = pits_of(root)
    assert sorted(pits) == list(range(game.n_pits))
    for pit, group in pits.items():
        seeds = int(state[BOARD + pit])
        assert group.get("data-seeds") == str(seeds), pit
        assert count_text(group) == str(seeds), pit
    stores = {int(g.get("data-player", "-1")): g for g in groups(root, "store")}
    if game.has_stores:
        assert sorted(stores) == [0, 1]
        for player, group in stores.items():
            assert group.get("data-seeds") == str(int(state[STORE + player]))
            assert count_text(group) == str(int(state[STORE + player]))
    else:
        assert stores == {}
    names = {int(t.get("data-player", "-1")): t for t in root.iter(f"{SVG}text") if "name" in classes(t)}
    for player in (0, 1):
        assert names[player].get("data-seeds") == str(int(state[STORE + player]))
        assert (names[player].text or "").startswith(f"player_{player}")
    assert root.get("data-ply") == str(int(state[PLY]))
    return root


def random_game(env_id: str, seed: int, plies: int) -> Any:
    """An env (full infos) after up to ``plies`` seeded random moves."""
    env = mancala_envs.make(env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return env


# --- every game: counts, stores, the root --------------------------------------------------------------------
@pytest.mark.parametrize("env_id", GAMES)
def test_every_game_draws_the_states_counts_along_a_game(env_id: str) -> None:
    env = mancala_envs.make(env_id)
    env.reset(seed=5)
    game = env.unwrapped.game
    painter = BoardSvg(game)
    rng = np.random.default_rng(5)
    drawn = 0
    while env.agents:
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        raw = env.unwrapped
        if not env.agents:
            break
        svg = painter.draw(raw.state_array, raw.last_move)
        root = assert_matches_state(svg, game, raw.state_array)
        facts = raw.facts()
        assert root.get("data-ply") == str(facts["ply"])
        to_move = facts["player_to_move"]
        assert root.get("data-to-move") == ("" if to_move is None else str(to_move))
        assert root.get("viewBox") == f"0 0 {painter.width} {painter.height}"
        for forbidden in ("href", "<script", " id=", "url(", "http://www.w3.org/1999"):
            assert forbidden not in svg, forbidden
        assert svg.count("<svg") == 1 and svg.startswith("<svg") and svg.endswith("</svg>")
        drawn += 1
    assert drawn >= 10
    # the final position: the status line says the result
    svg = painter.draw(env.unwrapped.state_array, env.unwrapped.last_move)
    status = [t for t in parse(svg).iter(f"{SVG}text") if "status" in classes(t)]
    assert len(status) == 1 and "game over after" in (status[0].text or "")
    assert parse(svg).get("data-to-move") == ""


@pytest.mark.parametrize("env_id", GAMES)
def test_svg_and_picture_share_one_geometry(env_id: str) -> None:
    game = mancala_envs.make(env_id).unwrapped.game
    for cell in (48, 88, 120):
        svg, picture = BoardSvg(game, cell), BoardPicture(game, cell)
        assert (svg.width, svg.height, svg.radius) == (picture.width, picture.height, picture.radius)
        assert svg.centres == picture.centres and svg.store_centres == picture.store_centres
    env = random_game(env_id, 1, 3)
    root = parse(BoardSvg(game).draw(env.unwrapped.state_array))
    for pit, group in pits_of(root).items():
        text = next(t for t in group.iter(f"{SVG}text") if "count" in classes(t))
        assert (float(text.get("x", "nan")), float(text.get("y", "nan"))) == BoardSvg(game).centres[pit]


# --- the highlight ------------------------------------------------------------------------------------------
def test_highlight_rings_exactly_the_pits_given() -> None:
    env = mancala_envs.make("ouril_v0")
    env.reset(seed=0)
    raw = env.unwrapped
    legal = [int(pit) for pit in np.flatnonzero(env.last()[0]["action_mask"])]
    pits = [raw.game.played_pit(raw.facts()["player_to_move"], action) for action in legal]
    root = parse(BoardSvg(raw.game).draw(raw.state_array, highlight=pits))
    for pit, group in pits_of(root).items():
        assert ("legal" in classes(group)) == (pit in pits), pit
        assert ("legal" in rings(group)) == (pit in pits), pit
    plain = parse(BoardSvg(raw.game).draw(raw.state_array))
    assert not any("legal" in classes(group) for group in pits_of(plain).values())
    green = [c for c in root.iter(f"{SVG}circle") if "legal" in classes(c)]
    assert {c.get("stroke") for c in green} == {"#2ea043"}


@pytest.mark.parametrize(
    ("highlight", "words"),
    [
        ([12], "highlight holds 12, which is not a pit of ouril: pass global pit numbers, ints in 0..11."),
        ([-1], "highlight holds -1, which is not a pit of ouril"),
        ([True], "highlight holds True"),
        ([1.0], "highlight holds 1.0"),
        ("0", "highlight must be an iterable of pits (ints in 0..11), got '0'; pass e.g. highlight=[0, 3]."),
        (3, "highlight must be an iterable of pits"),
    ],
)
def test_bad_highlight_is_refused(highlight: Any, words: str) -> None:
    env = mancala_envs.make("ouril_v0")
    env.reset(seed=0)
    with pytest.raises(ValueError) as caught:
        BoardSvg(env.unwrapped.game).draw(env.unwrapped.state_array, highlight=highlight)
    assert words in str(caught.value)


@pytest.mark.parametrize("cell", [True, 88.0, 47, -88])
def test_invalid_cell_is_refused(cell: Any) -> None:
    game = mancala_envs.make("ouril_v0").unwrapped.game
    with pytest.raises(ValueError, match=rf"cell must be an int >= 48 pixels \(got {cell!r}\)"):
        BoardSvg(game, cell=cell)


def test_a_state_of_another_game_is_refused() -> None:
    ouril = mancala_envs.make("ouril_v0")
    ouril.reset(seed=0)
    omweso = mancala_envs.make("omweso_v0").unwrapped.game
    with pytest.raises((TypeError, ValueError)):
        BoardSvg(omweso).draw(ouril.unwrapped.state_array)


# --- a known move ---------------------------------------------------------------------------------------------
def test_ouril_capture_draws_the_played_sown_and_captured_pits() -> None:
    env = mancala_envs.make("ouril_v0", first_player=0, illegal_action="raise", render_mode="svg")
    env.reset(seed=0, options={"board": O2_BOARD, "stores": O2_STORES, "player": 0})
    env.step(5)
    assert env.unwrapped.last_move == {
        "player": 0,
        "action": 5,
        "sown": [6, 7, 8, 9],
        "captures": [[9, 3], [8, 2], [7, 2]],
    }
    svg = env.render()
    root = parse(svg)
    assert badges(root, "sown") == {"pit 6": "+1", "pit 7": "+1", "pit 8": "+1", "pit 9": "+1"}
    assert badges(root, "captured") == {"pit 9": "-3", "pit 8": "-2", "pit 7": "-2"}
    pits = pits_of(root)
    assert {pit for pit, g in pits.items() if "played" in classes(g)} == {5}
    assert {pit for pit, g in pits.items() if "captured" in classes(g)} == {7, 8, 9}
    assert rings(pits[5]) == {"played"} and rings(pits[9]) == {"captured"} and rings(pits[0]) == set()
    assert [pits[pit].get("data-seeds") for pit in (5, 6, 7, 8, 9)] == ["0", "4", "0", "0", "0"]
    painter = BoardSvg(env.unwrapped.game)
    path = next(root.iter(f"{SVG}polyline"))
    assert "path" in classes(path)
    expected = [painter.centres[pit] for pit in (5, 6, 7, 8, 9)]
    assert path.get("points") == " ".join(f"{x},{y}" for x, y in expected)
    arrow = [p for p in root.iter(f"{SVG}polygon") if "arrow" in classes(p)]
    assert len(arrow) == 1
    caption = [t.text for t in root.iter(f"{SVG}text") if "caption" in classes(t)]
    assert caption == ["last move: player_0 sowed pit 5, 4 seeds sown, captured 7"]
    stores = {g.get("data-player"): g.get("data-seeds") for g in groups(root, "store")}
    assert stores == {"0": "17", "1": "9"}


def test_without_a_last_move_nothing_is_highlighted() -> None:
    env = mancala_envs.make("ouril_v0", first_player=0)
    env.reset(seed=0, options={"board": O2_BOARD, "stores": O2_STORES, "player": 0})
    root = parse(env.unwrapped._repr_svg_() or "")
    assert badges(root, "sown") == {} and badges(root, "captured") == {}
    assert not list(root.iter(f"{SVG}polyline"))
    assert not [t for t in root.iter(f"{SVG}text") if "caption" in classes(t)]
    assert all(rings(g) == set() for g in pits_of(root).values())


def test_kalah_seed_sown_into_the_store_gets_a_badge_on_the_store() -> None:
    env = mancala_envs.make("kalah_v0", first_player=0, illegal_action="raise")
    env.reset(seed=0)
    env.step(2)  # 4 seeds from pit 2: pits 3, 4, 5 and player 0's store
    last_move = env.unwrapped.last_move
    game = env.unwrapped.game
    assert last_move["sown"] == [3, 4, 5, game.n_pits]
    root = parse(svg_of(game, env.unwrapped.state_array, last_move).svg)
    assert badges(root, "sown") == {"pit 3": "+1", "pit 4": "+1", "pit 5": "+1", "store 0": "+1"}
    path = next(root.iter(f"{SVG}polyline")).get("points", "").split()
    x, y = BoardSvg(game).store_centres[game.n_pits]
    assert path[-1] == f"{x},{y}"


@pytest.mark.parametrize("player", [0, 1])
def test_omweso_pending_choice_is_ringed(player: int) -> None:
    own, other = W9
    env = omweso_v0.env(first_player=player, illegal_action="raise", render_mode="svg")
    env.reset(seed=0, options={"board": own + other if player == 0 else other + own, "player": player,
                               "stores": [0, 0], "turn": 2})  # fmt: skip
    env.step(11)
    root = parse(env.render())
    pits = pits_of(root)
    pending = 16 * player + 15
    assert {pit for pit, g in pits.items() if "pending" in classes(g)} == {pending}
    assert "pending" in rings(pits[pending])
    assert {pit for pit, g in pits.items() if "played" in classes(g)} == {16 * player + 11}
    status = next(t.text for t in root.iter(f"{SVG}text") if "status" in classes(t))
    # the caption names the pit as the moves' words and the text board do: in the mover's own frame, 0-15
    assert status is not None and "choosing: relay from pit 15 (15 ccw / 31 cw)" in status
    assert len(pits) == 32 and groups(root, "store") == []


def test_rio_kadalis_closed_pits_are_marked() -> None:
    env = mancala_envs.make("mancala/rio-kadalis-match-v0")
    env.reset(seed=0, options={"position": "0,0,4,4,4,4/4,4,4,4,4,0 4,4 0 closed=0,1,11 reserves=0,4"})
    root = parse(env.unwrapped._repr_svg_() or "")
    assert {pit for pit, g in pits_of(root).items() if "closed" in classes(g)} == {0, 1, 11}


# --- the env: render_mode="svg", _repr_svg_ -------------------------------------------------------------------
@pytest.mark.parametrize("env_id", GAMES)
def test_render_mode_svg_is_the_boards_drawing(env_id: str) -> None:
    env = mancala_envs.make(env_id, render_mode="svg")
    assert "svg" in env.metadata["render_modes"]
    assert env.unwrapped._repr_svg_() is None  # before reset
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(4):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    raw = env.unwrapped
    svg = env.render()
    assert isinstance(svg, str)
    assert svg == BoardSvg(raw.game).draw(raw.state_array, raw.last_move) == raw._repr_svg_()
    assert_matches_state(svg, raw.game, raw.state_array)


def test_svg_drawing_shows_in_jupyter() -> None:
    env = mancala_envs.make("ouril_v0")
    env.reset(seed=0)
    drawing = svg_of(env.unwrapped.game, env.unwrapped.state_array)
    assert isinstance(drawing, SvgDrawing)
    assert drawing._repr_svg_() == str(drawing) == BoardSvg(env.unwrapped.game).draw(env.unwrapped.state_array)
    assert BoardSvg(env.unwrapped.game).drawing(env.unwrapped.state_array).svg == drawing.svg


def test_single_agent_env_renders_svg_and_passes_gymnasiums_checker() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("mancala_envs:mancala/Ouril-v0", render_mode="svg")
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    svg = env.render()
    assert isinstance(svg, str) and svg.startswith("<svg")
    check_env(env.unwrapped, skip_render_check=False)


SVG_WITHOUT_PYGAME = """
import sys
import mancala_envs
env = mancala_envs.make("omweso_v0", render_mode="svg")
env.reset(seed=0)
env.step(int(env.last()[0]["action_mask"].nonzero()[0][0]))
svg = env.render()
assert svg.startswith("<svg"), svg[:40]
assert "pygame" not in sys.modules, "render_mode='svg' imported pygame"
print("ok")
"""


def test_svg_mode_needs_no_pygame() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SVG_WITHOUT_PYGAME], capture_output=True, text=True, cwd=REPO, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# --- the pits' names: the picture, the captions and the moves' words agree -------------------------------------
def test_pit_labels_follow_the_games_notation() -> None:
    """Under each bowl the pit's name as the moves' words and the text board say it: the global index in the two-row
    games, each player's own 0-15 in Omweso (player 1's pit 17 is their pit 1)."""
    from collections import Counter

    def labels(env_id: str) -> Counter[str]:
        env = mancala_envs.make(env_id, render_mode="svg")
        env.reset(seed=0)
        root = parse(env.render())
        return Counter(t.text for t in root.iter(f"{SVG}text") if "label" in classes(t))

    assert labels("ouril_v0") == Counter(str(pit) for pit in range(12))
    assert labels("omweso_v0") == Counter(str(pit % 16) for pit in range(32))
    omweso = mancala_envs.make("omweso_v0").game
    assert omweso.pit_label(17) == "1"
    assert omweso.move_words(1, 1, [18, 19]) == "sowed pit 1 counter-clockwise"
    assert omweso.move_words(1, 17, [16, 31]) == "sowed pit 1 clockwise"
    assert mancala_envs.make("ouril_v0").game.move_words(1, 3, [10, 11]) == "sowed pit 9"
