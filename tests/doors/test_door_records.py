"""The game-record door: malformed records and replay arguments raise one clear ``ValueError`` (one line
and exit status 2 on the command line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mancala_envs.envs.records import RECORD_FORMAT, GameRecord, write_animation

from support.command_line import run_cli

OURIL_START = "4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"


def _record(**changes) -> dict:
    data = {
        "format": RECORD_FORMAT,
        "env": "mancala/ouril-v0",
        "options": {},
        "start": OURIL_START,
        "moves": [{"player": 0, "action": 2}],
    }
    data.update(changes)
    return data


def test_the_base_record_loads_and_replays() -> None:
    record = GameRecord.from_dict(_record())
    assert record.make_env().game.name == "ouril"
    assert record.moves == [{"player": 0, "action": 2}]


def test_deeply_nested_json_file_is_a_value_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ValueError, match="nested too deeply"):
        GameRecord.load(path)


def test_nested_options_are_refused_without_recursion() -> None:
    value: list = []
    for _ in range(5000):
        value = [value]
    with pytest.raises(ValueError, match=r"options\.trigger"):
        GameRecord.from_dict(_record(options={"trigger": value}))
    with pytest.raises(ValueError, match=r"options\.trigger"):
        GameRecord.from_dict(
            _record(env="mancala/urim-v0", start="3,3,3,3,3,3/3,3,3,3,3,3 0,0 0", options={"trigger": [[2], [3]]})
        )


@pytest.mark.parametrize("option", ["render_mode", "reward_mode", "illegal_action", "first_player"])
def test_environment_options_are_not_game_options(option: str) -> None:
    with pytest.raises(ValueError, match=rf"game record field 'options' does not configure .*'{option}'"):
        GameRecord.from_dict(_record(options={option: "ansi" if option == "render_mode" else 0}))


def test_game_options_still_load() -> None:
    record = GameRecord.from_dict(_record(env="ouril_v0", options={"pits_per_row": 4}, start="4,4,4,4/4,4,4,4 0,0 0"))
    assert record.make_env().game.config.pits_per_row == 4


@pytest.mark.parametrize("fps", [0, 61, 30_000, 2.5, True])
def test_fps_is_bounded(tmp_path: Path, fps) -> None:
    record = GameRecord.from_dict(_record())
    with pytest.raises(ValueError, match=r"fps must be an integer between 1 and 60"):
        write_animation(record, tmp_path / "game.gif", fps=fps)
    assert list(tmp_path.iterdir()) == []


def test_empty_output_path_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    record = GameRecord.from_dict(_record())
    with pytest.raises(ValueError, match="the output path is empty"):
        write_animation(record, "")
    assert list(tmp_path.iterdir()) == []


def test_cli_replay_of_deep_json_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' * 50_000 + "1" + "}" * 50_000, encoding="utf-8")
    status, err = run_cli(["replay", str(path)], capsys)
    assert status == 2
    assert err.count("\n") == 1 and "nested too deeply" in err and "Traceback" not in err


def test_cli_replay_bad_fps_and_empty_out(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_record()), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, err = run_cli(["replay", str(path), "--out", "game.gif", "--fps", "30000"], capsys)
    assert status == 2 and "fps must be an integer between 1 and 60" in err
    status, err = run_cli(["replay", str(path), "--out", ""], capsys)
    assert status == 2 and "the output path is empty" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]
