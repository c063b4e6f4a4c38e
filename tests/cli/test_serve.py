"""``mancala-envs serve``: its refusals (one line, status 2, before anything listens), and the real command in a
process of its own: ``--port 0`` prints the page's address, which answers, and Ctrl-C stops it cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request

import pytest

from mancala_envs.cli import main
from mancala_envs.cli.serve_command import open_when_started
from mancala_envs.web.app import create_app
from mancala_envs.web.server import WebServer


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "70000"], "argument --port: invalid port '70000' (use 0 to 65535; 0 takes any free port)"),
        (["--port", "-1"], "argument --port: invalid port '-1' (use an integer >= 0)"),
        (["--port", "http"], "argument --port: invalid port 'http' (use an integer >= 0)"),
        (["--game", "nope"], "unknown environment 'nope'; choose one of ['ouril_v0', "),
        (["--opponent", "wizard"], "unknown agent 'wizard'; choose one of "),
        (["--opponent", "mcts:0"], "mcts simulations must be an integer from 1 to 1000000 as in 'mcts:400'"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(capsys, argv, message):
    assert main(["serve", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("mancala-envs: error: ") and captured.err.count("\n") == 1
    assert message in captured.err


def test_a_port_in_use_is_refused_with_what_to_do(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"mancala-envs: error: cannot listen on 127.0.0.1:{port}: Address already in use; "
        "choose another --port (0: any free one).\n"
    )
    assert captured.out == ""


def test_serve_prints_its_address_answers_there_and_stops_on_ctrl_c(tmp_path):
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "mancala_envs", "serve", "--port", "0", "--game", "omweso", "--opponent", "random"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, cwd=tmp_path
    )
    try:
        first_line: list[str] = []
        reader = threading.Thread(target=lambda: first_line.append(process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(60)
        assert first_line, "serve printed no address within 60 s"
        match = re.fullmatch(
            r"mancala-envs serve: play at (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops\)\n", first_line[0]
        )
        assert match, first_line[0]
        url = match.group(1)
        assert 0 < int(match.group(2)) < 65536
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200 and '<script src="/static/app.js"></script>' in page.read().decode()
        with urllib.request.urlopen(url + "api/catalog", timeout=10) as answer:
            catalog = json.load(answer)
        assert catalog["default_game"] == "mancala/omweso-v0" and catalog["default_opponent"] == "random"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130
    assert out == "Stopped: the web app is closed (the games in play are not kept)\n"
    assert "Traceback" not in err


def test_open_shows_the_page_once_the_server_answers(monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", opened.append)
    server = WebServer(create_app(), port=0)
    server.start_in_thread()
    try:
        open_when_started(server)
    finally:
        server.stop()
    assert opened == [server.url]


def test_without_the_web_extra_the_error_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    with pytest.raises(
        ImportError, match=r"the web app needs Starlette and uvicorn \(.*\): pip install 'mancala-envs\[web\]'"
    ):
        create_app()
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala-envs: error: the web app needs Starlette and uvicorn (")
    assert err.endswith(": pip install 'mancala-envs[web]'\n")


def test_an_address_not_of_this_machine_is_refused(capsys):
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): documentation only, never a machine's own address
    assert main(["serve", "--host", "192.0.2.1", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala-envs: error: cannot listen on 192.0.2.1:0: ") and err.count("\n") == 1
    assert err.endswith("; use an address of this machine.\n")
