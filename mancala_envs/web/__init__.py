"""Play in the browser: ``mancala-envs serve`` starts a local web app to play any game against any agent.

- :mod:`~mancala_envs.web.games`: the games in play (in memory, by id), as JSON answers; no HTTP.
- :mod:`~mancala_envs.web.app`: the Starlette app (the page and the JSON API; the ``web`` extra).
- :mod:`~mancala_envs.web.server`: the app behind uvicorn, on 127.0.0.1 by default.
- ``static/``: the page (``index.html``, ``app.js``, ``app.css``; nothing fetched from the network).

The rules messages, the plies and undo are :class:`~mancala_envs.views.play_session.PlaySession`'s, the same as the
terminal ``play``'s. docs/web.md shows the page and the API.
"""
