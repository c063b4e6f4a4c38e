"""``mancala-envs serve``: play any game against any agent in the browser (:mod:`mancala_envs.web`; the ``web`` extra).

``mancala-envs serve`` listens on 127.0.0.1 (this machine only) and prints the page's address; ``--port 0`` takes any
free port, ``--open`` opens the page in the default browser, ``--game`` and ``--opponent`` preset the page's pickers.
Ctrl-C stops it (the games in play are not kept). docs/web.md shows the page and its JSON API.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import webbrowser
from typing import TYPE_CHECKING, TextIO

from mancala_envs.cli.common import integer_at_least

if TYPE_CHECKING:
    from mancala_envs.web.server import WebServer

__all__ = ["SERVE_HELP", "add_serve_arguments", "open_when_started", "run_serve", "serve_interrupted"]

#: ``mancala-envs serve``'s line in ``mancala-envs --help``
SERVE_HELP = "play any game against any agent in the browser: mancala-envs serve --game omweso --opponent alphabeta:3"


def _port(text: str) -> int:
    port = integer_at_least(0, "port")(text)
    if port > 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (use 0 to 65535; 0 takes any free port)")
    return port


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the arguments of ``mancala-envs serve`` to ``parser``."""
    from mancala_envs.web.server import DEFAULT_HOST, DEFAULT_PORT

    parser.add_argument("--game", default="ouril", help="the game the page offers first (default: ouril)")
    parser.add_argument(
        "--opponent",
        default="greedy",
        help="the agent the page offers first: random, greedy, alphabeta:3, mcts:200, pretrained ... (default: greedy)",
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"the address to listen on (default: {DEFAULT_HOST}, this machine only; 0.0.0.0 lets anyone on the "
        "network play)",
    )
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"the port (default: {DEFAULT_PORT}; 0: any free port)"
    )
    parser.add_argument("--open", action="store_true", help="open the page in the default web browser")


def run_serve(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``mancala-envs serve``: serves the app until Ctrl-C.

    Raises:
        ValueError, TypeError: an unknown game or agent, or the web extra is missing (the message says how to
            install it).
        OSError: the address cannot be listened on (the port is taken, say).
    """
    from mancala_envs.web.app import create_app, require_web

    out = out or sys.stdout
    try:
        require_web()
    except ImportError as error:
        raise ValueError(str(error)) from None
    from mancala_envs.web.server import WebServer

    app = create_app(args.game, args.opponent)
    server = WebServer(app, args.host, args.port)
    print(f"mancala-envs serve: play at {server.url} (Ctrl-C stops)", file=out, flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"note: listening on {args.host}: anyone who can reach this machine can play", file=out, flush=True)
    if args.open:
        threading.Thread(target=open_when_started, args=(server,), daemon=True).start()
    server.run()


def open_when_started(server: WebServer, timeout: float = 10.0) -> None:
    """Opens the page in the default browser once the server accepts requests."""
    deadline = time.monotonic() + timeout
    while not server.server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    if server.server.started:
        webbrowser.open(server.url)


def serve_interrupted(args: argparse.Namespace) -> str:
    """What ``mancala-envs serve`` prints on Ctrl-C."""
    return "Stopped: the web app is closed (the games in play are not kept)"
