"""The window of ``render_mode="human"``: the board picture shown with pygame-ce.

The window opens at the first ``render()`` or ``step`` (never at import or ``reset``) and is
closed by the env's ``close()``. It works under a virtual display (Xvfb) and with
``SDL_VIDEODRIVER=dummy`` (a headless run by choice: the pictures are drawn, nothing is shown).

Where there is no display to open it on, ``render_mode="human"`` is refused with a
``RuntimeError`` that names the fixes (:func:`check_display`): at the env's construction when
no display is set at all (Linux and the BSDs: neither ``DISPLAY`` nor ``WAYLAND_DISPLAY``, and
no ``SDL_VIDEODRIVER`` chosen), and when the window opens if SDL cannot open the display that
is set (pygame-ce would otherwise fall back to drawing off screen and carry on, showing nothing).
The window opens (:meth:`BoardWindow.open`) before anything changes: at the first ``render()``, at the start
of the first ``step`` (before the move is played) or of a ``SingleAgentEnv``'s ``reset``, so a refused call
leaves the env as it was.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mancala_envs.rendering.picture import import_pygame

__all__ = ["BoardWindow", "check_display"]

#: SDL's video drivers that draw without showing a window
HEADLESS_DRIVERS = ("offscreen", "dummy")


def _no_display(why: str) -> RuntimeError:
    return RuntimeError(
        f'render_mode="human" needs a display to show its window, and {why}. Run under a display (or a '
        "virtual one: xvfb-run python ...), set SDL_VIDEODRIVER=dummy to run headless on purpose (the "
        'window is drawn but not shown), or use render_mode="rgb_array" to get each picture as an array.'
    )


def check_display() -> None:
    """Refuses ``render_mode="human"`` on a machine that has no display at all, before anything is built.

    On Linux and the BSDs, SDL shows windows through an X11 or Wayland display: with neither
    ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set, and no video driver chosen in ``SDL_VIDEODRIVER``, no
    window can be shown. A chosen ``SDL_VIDEODRIVER`` (``dummy`` or ``offscreen`` for a headless run
    by choice, ``kmsdrm`` for a console) is always allowed; so are macOS and Windows. pygame is not
    imported.

    Raises:
        RuntimeError: there is no display; the message names the fixes (a display, ``xvfb-run``,
            ``SDL_VIDEODRIVER=dummy``, ``render_mode="rgb_array"``).
    """
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return
    if os.environ.get("SDL_VIDEODRIVER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    raise _no_display("no display is set (DISPLAY and WAYLAND_DISPLAY are unset, and SDL_VIDEODRIVER too)")


class BoardWindow:
    """A pygame window that shows pictures at a fixed frame rate.

    Args:
        title: The window's caption.
        fps: Frames per second: :meth:`show` waits so that frames are at least ``1 / fps`` apart.
    """

    def __init__(self, title: str, fps: float) -> None:
        self.title = title
        self.fps = fps
        self._screen: Any = None
        self._clock: Any = None

    @property
    def is_open(self) -> bool:
        """Whether the window is on screen."""
        return self._screen is not None

    def open(self, size: tuple[int, int]) -> None:
        """Opens the window at ``size`` (width, height) pixels unless it is open: a no-op then.

        The env calls it before it changes anything (at the start of ``step``), so that a display that
        cannot be opened is refused before a move is played, not at the picture after it.

        Raises:
            RuntimeError: SDL cannot open a display (and ``SDL_VIDEODRIVER`` chose no headless driver);
                the message names the fixes. pygame's display is left closed.
        """
        pygame = import_pygame()
        # (Re)open when not open, or when another env's close() shut pygame's one display meanwhile.
        if self._screen is None or not pygame.display.get_init() or pygame.display.get_surface() is not self._screen:
            try:
                pygame.display.init()
            except pygame.error as error:
                raise _no_display(f"SDL could not open one ({error})") from None
            driver = pygame.display.get_driver()
            if driver in HEADLESS_DRIVERS and not os.environ.get("SDL_VIDEODRIVER"):
                pygame.display.quit()  # SDL fell back to drawing off screen: nothing would be shown
                names = ("DISPLAY", "WAYLAND_DISPLAY")
                shown = ", ".join(f"{name}={os.environ[name]!r}" for name in names if os.environ.get(name))
                raise _no_display(f"SDL could not open one ({shown or 'none is set'}) and fell back to off-screen")
            pygame.display.set_caption(self.title)
            self._screen = pygame.display.set_mode(size)
            self._clock = pygame.time.Clock()

    def show(self, surface: Any) -> None:
        """Shows ``surface`` (a pygame ``Surface``), opening the window first if it is not open (:meth:`open`).

        Raises:
            RuntimeError: as :meth:`open`.
        """
        pygame = import_pygame()
        self.open(surface.get_size())
        pygame.event.pump()  # keeps the window responsive
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        """Closes the window (a no-op when it is not open)."""
        if self._screen is not None:
            pygame = import_pygame()
            pygame.display.quit()
            self._screen = None
            self._clock = None
