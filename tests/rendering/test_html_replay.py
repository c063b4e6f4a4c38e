"""Tests of the self-contained HTML replays (issue 35): ``write_html``, ``GameRecord.to_html`` / ``_repr_html_``,
``write_animation(..., "game.html")``, ``mancala-envs replay --out game.html``, in a real headless Chromium.

What is checked:

- the file: one file, no network reference (no ``src``/``href`` to http, no ``<link>``, no external script), the
  page's script and style inlined, every ply's frame in it (unpacked in Python: each frame's SVG is the one
  ``BoardSvg`` draws of the replayed position);
- in the browser (the ``browser`` fixture: Debian's Chromium driven by Playwright), for Ouril, Omweso (with its
  mid-turn choices) and Kalah: the page loads with no console error, play reaches the last ply, the slider,
  the keys and the move list move the board, and the drawn counts (each pit's ``data-seeds`` and count text,
  the stores) equal the final state of ``envs.records.replay``; the infos show the shown ply's facts;
- Jupyter: a record's ``_repr_html_`` is an iframe that plays the replay;
- refusals: an output that is not ``.html``, a missing folder, a bad fps, no records; nothing written then.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mancala_envs
from mancala_envs.engine.state import BOARD, STORE
from mancala_envs.envs.records import GameRecord, replay, replay_game, write_animation, write_html
from mancala_envs.rendering import BoardSvg
from mancala_envs.rendering.html_replay import ReplayFrame, ReplayGame, pack_frames, replay_page
from mancala_envs.wrappers import RecordGames

from support.browser import open_page
from support.command_line import run_cli

#: plies per second while a browser test plays a replay (the most a page takes)
FAST = 60


# --- helpers -------------------------------------------------------------------------------------------------
def played_record(env_id: str, seed: int) -> GameRecord:
    """The record of a seeded random game, played to its end."""
    env = RecordGames(mancala_envs.make(env_id), players=["random", "random"])
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return env.records[-1]


def final_env(record: GameRecord) -> Any:
    """The environment at the end of the record's replay."""
    *_, env = replay(record)
    return env


def page_frames(page: str) -> list[list[dict[str, Any]]]:
    """Every game's frames, unpacked from the page as the browser does."""
    data = json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)[1])
    return [json.loads(gzip.decompress(base64.b64decode(game["frames"]))) for game in data["games"]]


def drawn(page: Any) -> dict[str, Any]:
    """What the shown board draws: each pit's data-seeds and count text, each store's."""
    return page.evaluate(
        """() => {
        const svg = document.querySelector('#board svg');
        const pits = [...svg.querySelectorAll('g.pit')].map(g => [
            Number(g.dataset.pit), g.dataset.seeds, g.querySelector('text.count').textContent]);
        const stores = [...svg.querySelectorAll('g.store')].map(g => [
            Number(g.dataset.player), g.dataset.seeds, g.querySelector('text.count').textContent]);
        return {pits, stores, ply: svg.dataset.ply, shown: document.body.dataset.ply};
    }"""
    )


def assert_draws_state(page: Any, env: Any) -> None:
    board = drawn(page)
    game = env.game
    state = env.state_array
    expected = [[pit, str(int(state[BOARD + pit])), str(int(state[BOARD + pit]))] for pit in range(game.n_pits)]
    assert sorted(board["pits"]) == expected
    stores = [[player, str(int(state[STORE + player])), str(int(state[STORE + player]))] for player in (0, 1)]
    assert sorted(board["stores"]) == (stores if game.has_stores else [])


def ready(page: Any, game: int = 0) -> None:
    page.wait_for_function(
        f"document.body.dataset.ready === 'true' && document.body.dataset.game === '{game}'", timeout=5000
    )


def infos(page: Any) -> dict[str, str]:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#infos dt')].map(
            dt => [dt.textContent, dt.nextElementSibling.textContent]))"""
    )


@pytest.fixture(scope="module")
def records() -> dict[str, GameRecord]:
    """Ouril and Kalah games to their ends, and an Omweso game with mid-turn choices."""
    made = {"ouril": played_record("ouril_v0", 3), "kalah": played_record("kalah_v0", 3)}
    omweso = played_record("omweso_v0", 5)
    assert any(move["move"].startswith(("relays from", "re-sows")) for move in omweso.moves)
    made["omweso"] = omweso
    return made


# --- the file ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["ouril", "omweso", "kalah"])
def test_the_page_is_one_file_with_every_ply_drawn(name: str, records: dict[str, GameRecord], tmp_path: Path) -> None:
    record = records[name]
    path = write_html(record, tmp_path / "game.html")
    assert path == tmp_path / "game.html" and sorted(tmp_path.iterdir()) == [path]
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "<link" not in page and not re.search(r"<script[^>]*\ssrc=", page) and "@import" not in page
    assert "DecompressionStream" in page and "#moves" in page  # replay.js and replay.css, inlined
    (frames,) = page_frames(page)
    assert len(frames) == len(record.moves) + 1
    painter = None
    for number, env in enumerate(replay(record)):
        painter = painter or BoardSvg(env.game)
        assert frames[number]["svg"] == painter.draw(env.state_array, env.last_move), number
        assert frames[number]["facts"]["ply"] == env.facts()["ply"]
        assert (frames[number]["move"] is None) == (number == 0)
    assert frames[-1]["facts"]["winner"] == record.result["winner"]
    assert frames[-1]["facts"]["scores"] == record.result["scores"]
    assert frames[1]["move"] == f"player_{record.moves[0]['player']}: {record.moves[0]['move']}"


def test_the_same_record_gives_the_same_page(records: dict[str, GameRecord], tmp_path: Path) -> None:
    first = write_html(records["kalah"], tmp_path / "a.html").read_bytes()
    again = write_html(records["kalah"], tmp_path / "b.html").read_bytes()
    assert first == again == records["kalah"].to_html().encode("utf-8")


def test_write_animation_and_the_cli_write_the_html_replay(
    records: dict[str, GameRecord], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = records["kalah"]
    expected = record.to_html()
    assert write_animation(record, tmp_path / "anim.html") == [tmp_path / "anim.html"]
    assert (tmp_path / "anim.html").read_text(encoding="utf-8") == expected
    saved = record.save(tmp_path / "game.json")
    status, err = run_cli(["replay", str(saved), "--out", str(tmp_path / "cli.HTML")], capsys)
    assert (status, err) == (0, "")
    assert (tmp_path / "cli.HTML").read_text(encoding="utf-8") == expected


# --- in the browser --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["ouril", "omweso", "kalah"])
def test_play_reaches_the_last_ply_and_draws_the_records_final_board(
    name: str, records: dict[str, GameRecord], tmp_path: Path, browser: Any
) -> None:
    record = records[name]
    path = write_html(record, tmp_path / "game.html", fps=FAST)
    last = len(record.moves)
    with open_page(browser, path.as_uri()) as watched:
        page = watched.page
        ready(page)
        assert page.evaluate("document.body.dataset.ply") == "0"
        assert page.get_attribute("#ply", "max") == str(last)
        assert page.locator("#moves li").count() == last + 1
        page.click("#play")
        page.wait_for_function(f"document.body.dataset.ply === '{last}'", timeout=10000)
        assert page.evaluate("document.body.dataset.playing") == "false"  # stops at the end
        assert page.input_value("#ply") == str(last)
        env = final_env(record)
        assert_draws_state(page, env)
        shown = infos(page)
        facts = env.facts()
        assert shown["ply"] == str(facts["ply"]) and shown["scores"] == json.dumps(facts["scores"]).replace(" ", "")
        assert shown["winner"] == ("none" if facts["winner"] is None else str(facts["winner"]))
        assert shown["end_reason"] == facts["end_reason"]
        watched.assert_no_errors()


def test_slider_keys_and_move_list_move_the_board(records: dict[str, GameRecord], tmp_path: Path, browser: Any) -> None:
    record = records["omweso"]
    path = write_html(record, tmp_path / "game.html")
    positions = list(replay_positions(record))
    choice = next(n for n, move in enumerate(record.moves, start=1) if move["move"].startswith("relays from"))
    with open_page(browser, path.as_uri()) as watched:
        page = watched.page
        ready(page)
        page.fill("#ply", str(len(record.moves)))  # the slider to its end
        assert page.evaluate("document.body.dataset.ply") == str(len(record.moves))
        assert_draws_state(page, final_env(record))
        page.fill("#ply", str(choice - 1))  # the ply before a relay choice: the pending pit is ringed
        assert page.locator("#board g.pit.pending").count() == 1
        assert drawn(page)["ply"] == str(positions[choice - 1]["ply"])
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.body.dataset.ply") == str(choice)
        assert_counts(page, positions[choice])
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        assert page.evaluate("document.body.dataset.ply") == str(choice - 2)
        page.keyboard.press("End")
        assert page.evaluate("document.body.dataset.ply") == str(len(record.moves))
        page.keyboard.press("Home")
        assert page.evaluate("document.body.dataset.ply") == "0"
        page.click("#moves li[data-ply='3'] button")
        assert page.evaluate("document.body.dataset.ply") == "3"
        assert_counts(page, positions[3])
        assert page.locator("#moves li.current").get_attribute("data-ply") == "3"
        page.click("#forward")
        page.click("#forward")
        page.click("#back")
        assert page.evaluate("document.body.dataset.ply") == "4"
        page.click("#last")
        assert page.evaluate("document.body.dataset.ply") == str(len(record.moves))
        page.click("#first")
        assert page.evaluate("document.body.dataset.ply") == "0"
        assert_counts(page, positions[0])
        watched.assert_no_errors()


def replay_positions(record: GameRecord) -> Any:
    for env in replay(record):
        yield {
            "ply": env.facts()["ply"],
            "board": [str(int(seeds)) for seeds in env.state_array[BOARD : BOARD + env.game.n_pits]],
        }


def assert_counts(page: Any, position: dict[str, Any]) -> None:
    board = drawn(page)
    pits = sorted(board["pits"])
    assert [seeds for _, seeds, _ in pits] == position["board"]
    assert [text for _, _, text in pits] == position["board"]


def test_jupyter_shows_a_record_as_its_replay(records: dict[str, GameRecord], browser: Any) -> None:
    record = records["kalah"]
    shown = record._repr_html_()
    assert shown.startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')
    with open_page(browser) as watched:
        page = watched.page
        page.set_content(f"<html><body>{shown}</body></html>")
        frame = page.frames[1]
        frame.wait_for_function("document.body.dataset.ready === 'true'", timeout=5000)
        frame.click("#last")
        assert frame.evaluate("document.body.dataset.ply") == str(len(record.moves))
        watched.assert_no_errors()


# --- the page's builder ------------------------------------------------------------------------------------------
def test_replay_page_keeps_script_endings_out_of_the_data() -> None:
    frame = ReplayFrame(svg="<svg></svg>", facts={"note": "</script><!-- x"}, move="</script>")
    page = replay_page(ReplayGame("a </script> game", [frame]))
    assert page.count("</script>") == 2  # the data's and the script's own ends, nothing from the data
    assert "a &lt;/script&gt; game" in page
    assert json.loads(gzip.decompress(base64.b64decode(pack_frames([frame]))))[0]["move"] == "</script>"


def test_replay_game_names_the_players_and_result(records: dict[str, GameRecord]) -> None:
    game = replay_game(records["kalah"])
    result = records["kalah"].result
    assert game.title == "Kalah: random vs random"
    winner = "a draw" if result["winner"] is None else f"player_{result['winner']} wins"
    assert game.details["result"] == winner and game.details["moves"] == len(records["kalah"].moves)
    assert replay_game(records["kalah"], title="mine").title == "mine"


# --- refusals --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("game.htm", "cannot write '{dir}/game.htm' as an HTML replay: give a path ending in .html (e.g. game.html)."),
        ("game.svg", "as an HTML replay: give a path ending in .html"),
        ("no/such/game.html", "no/such"),
    ],
)
def test_write_html_refuses_a_bad_out(out: str, words: str, records: dict[str, GameRecord], tmp_path: Path) -> None:
    with pytest.raises(ValueError) as caught:
        write_html(records["kalah"], tmp_path / out)
    assert words.format(dir=tmp_path) in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_write_html_refuses_bad_arguments(records: dict[str, GameRecord], tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    with pytest.raises(ValueError, match=r"fps must be an integer between 1 and 60 \(got 0\)"):
        write_html(records["kalah"], out, fps=0)
    with pytest.raises(ValueError, match="records is an empty list; give at least one GameRecord"):
        write_html([], out)
    with pytest.raises(ValueError, match=r"titles must be a list of 2 names, one per record"):
        write_html([records["kalah"], records["ouril"]], out, titles=["one"])
    with pytest.raises(TypeError, match="record must be a GameRecord or the path of a saved one"):
        write_html([3], out)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="fps must be an int from 1 to 60"):
        replay_page(ReplayGame("x", [ReplayFrame("<svg></svg>")]), fps=61)
    with pytest.raises(ValueError, match=r"games\[0\] \('x'\) has no frames"):
        replay_page([ReplayGame("x", [])])
    assert list(tmp_path.iterdir()) == []


def test_a_record_that_does_not_replay_writes_nothing(tmp_path: Path) -> None:
    record = GameRecord("ouril_v0", {}, "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0", [{"player": 1, "action": 0}])
    with pytest.raises(ValueError, match=r"is by player_1, but player_0 is to move after the start"):
        write_html(record, tmp_path / "game.html")
    assert list(tmp_path.iterdir()) == []


def test_cli_replay_refuses_an_unknown_suffix(
    records: dict[str, GameRecord], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = records["kalah"].save(tmp_path / "game.json")
    status, err = run_cli(["replay", str(saved), "--out", str(tmp_path / "game.txt")], capsys)
    assert status == 2
    assert ".html (the HTML replay)" in err and "cannot write" in err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["game.json"]
