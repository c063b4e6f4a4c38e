"""Serving the web app with uvicorn: :class:`WebServer` binds its socket first (so port 0 gets a free port whose URL is
known before the first request), then runs in the foreground (``mancala-envs serve``) or in a thread (the tests)."""

from __future__ import annotations

import errno
import socket
import threading
import time
from typing import Any

from mancala_envs.common.validation import check_integer

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "WebServer"]

#: the address the app listens on unless told otherwise: this machine only
DEFAULT_HOST = "127.0.0.1"
#: the port unless told otherwise (0 asks the system for any free port)
DEFAULT_PORT = 8000


class WebServer:
    """The app behind uvicorn on a socket bound at construction.

    Args:
        app: The ASGI app (:func:`mancala_envs.web.app.create_app`).
        host: The address to listen on (``"127.0.0.1"``: this machine only).
        port: The port, 0 to 65535 (0: any free port; :attr:`url` says which).

    Raises:
        TypeError, ValueError: ``port`` is not an integer from 0 to 65535.
        OSError: the address cannot be bound (in use, not this machine's); the message names it.
        ImportError: uvicorn is missing (``pip install 'mancala-envs[web]'``).

    Example:
        >>> from mancala_envs.web.app import create_app
        >>> server = WebServer(create_app(), port=0)
        >>> server.start_in_thread()
        >>> server.url.startswith("http://127.0.0.1:")
        True
        >>> server.stop()
    """

    def __init__(self, app: Any, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> None:
        from mancala_envs.web.app import require_web

        require_web()
        import uvicorn

        check_integer("port", port, 0, 65535)
        if not isinstance(host, str) or not host:
            raise ValueError(f"host must be an address such as '127.0.0.1' (got {host!r}).")
        self.socket = _bind(host, port)
        self.host = host
        self.port = int(self.socket.getsockname()[1])
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The app's address: ``http://127.0.0.1:8000/`` (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def run(self) -> None:
        """Serves until Ctrl-C (or :meth:`stop` from another thread); closes the socket."""
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.socket.close()

    def start_in_thread(self, timeout: float = 10.0) -> None:
        """Serves from a daemon thread; returns once the server accepts requests.

        Raises:
            RuntimeError: it did not start within ``timeout`` seconds.
        """
        self._thread = threading.Thread(target=self.run, name="mancala-envs-web", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web server at {self.url} did not start within {timeout} s.")
            time.sleep(0.01)

    def stop(self, timeout: float = 10.0) -> None:
        """Asks the server to finish and waits for its thread (if it runs in one)."""
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``."""
    try:
        family, kind, protocol, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as error:
        raise OSError(f"cannot listen on {host!r}: {error.strerror}; use an address such as 127.0.0.1.") from None
    sock = socket.socket(family, kind, protocol)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        hint = (
            "choose another --port (0: any free one)"
            if error.errno == errno.EADDRINUSE
            else "use an address of this machine"
        )
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror}; {hint}.") from None
    sock.set_inheritable(True)
    return sock
