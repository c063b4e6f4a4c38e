"""The web app of ``mancala-envs serve``: the page and its JSON API, on Starlette (the ``web`` extra).

=======================================  ==========================================================================
``GET /``                                the page (``static/index.html``; its script and style under ``/static/``)
``GET /api/catalog``                     ``{"games": [{"id", "description"}, ...], "agents": [...],
                                         "default_game": "mancala/ouril-v0", "default_opponent": "greedy"}``
``POST /api/games``                      a new game: ``{"game": "ouril", "opponent": "greedy", "seat": 0,
                                         "seed": 0, "options": {...}, "position": ...}`` (only ``game`` required)
``GET /api/games/{id}``                  the game as it stands
``POST /api/games/{id}/move``            ``{"action": 3}``: the human's move and the opponent's replies
``POST /api/games/{id}/undo``            take back the human's last move and its replies
=======================================  ==========================================================================

Every game answer is the object :mod:`mancala_envs.web.games` describes (the board as SVG, the legal moves with
their pits and words, the messages since the last answer, the log, whether it is over and the result line). A
refused request is answered ``{"error": "<message>"}`` with status 400 (bad input: the library's message for an
unknown game, agent or option; the terminal ``play``'s message for an illegal move) or 404 (no such game); the game
is unchanged. The agents think in Starlette's thread pool, off the event loop.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mancala_envs.web.games import GameTable, RequestError

__all__ = ["STATIC", "WEB_EXTRA", "create_app", "require_web"]

#: the page's files (index.html, app.js, app.css)
STATIC = Path(__file__).parent / "static"
#: how to install what the web app needs
WEB_EXTRA = "pip install 'mancala-envs[web]'"


def require_web() -> None:
    """Checks that Starlette and uvicorn are installed.

    Raises:
        ImportError: one of them is missing; the message says how to install them.
    """
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as error:
        raise ImportError(f"the web app needs Starlette and uvicorn ({error}): {WEB_EXTRA}") from None


def create_app(default_game: str = "ouril", default_opponent: str = "greedy", table: GameTable | None = None) -> Any:
    """The Starlette application (see the module docstring).

    Args:
        default_game: The game the page's picker shows first (a name or registry id).
        default_opponent: The agent the page's picker shows first (a name :func:`~mancala_envs.agents.make_agent`
            takes).
        table: Where the games are kept (a new :class:`~mancala_envs.web.games.GameTable` by default).

    Raises:
        ValueError, TypeError: an unknown default game or agent.
        ImportError: Starlette or uvicorn is missing (``pip install 'mancala-envs[web]'``).

    Example:
        >>> app = create_app("omweso", "alphabeta:3")
        >>> [route.path for route in app.routes][:3]
        ['/', '/api/catalog', '/api/games']
    """
    require_web()
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from mancala_envs.agents import make_agent
    from mancala_envs.envs.registration import find_variant, resolve_env_id

    default_game = find_variant(resolve_env_id(default_game)).id
    make_agent(default_opponent)  # refused here, with the library's message, rather than at the first game
    games = GameTable() if table is None else table

    async def body(request: Request) -> Any:
        raw = await request.body()
        if not raw.strip():
            return {}
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise RequestError(f"the request body is not JSON ({error}); send a JSON object.") from None

    async def respond(request: Request, work: Any, *, with_body: bool = False) -> JSONResponse:
        """Runs ``work`` (a :class:`GameTable` method) in the thread pool on the path's game id and the body."""
        args: list[Any] = [request.path_params["game_id"]] if "game_id" in request.path_params else []
        try:
            if with_body:
                args.append(await body(request))
            return JSONResponse(await run_in_threadpool(work, *args))
        except RequestError as refused:
            return JSONResponse({"error": str(refused)}, status_code=refused.status)

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def catalog(request: Request) -> JSONResponse:
        return JSONResponse({**GameTable.catalog(), "default_game": default_game, "default_opponent": default_opponent})

    async def new_game(request: Request) -> JSONResponse:
        return await respond(request, games.new_game, with_body=True)

    async def state(request: Request) -> JSONResponse:
        return await respond(request, games.state)

    async def move(request: Request) -> JSONResponse:
        return await respond(request, games.move, with_body=True)

    async def undo(request: Request) -> JSONResponse:
        return await respond(request, games.undo, with_body=True)

    routes = [
        Route("/", page),
        Route("/api/catalog", catalog),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", state),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/undo", undo, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.games = games
    return app
