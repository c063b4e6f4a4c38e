"""The window of ``render_mode="human"``: the board picture shown with pygame-ce.

The window opens at the first ``render()`` (never at import or ``reset``) and is
closed by the env's ``close()``. It works under a virtual display (Xvfb) and with
``SDL_VIDEODRIVER=dummy``.
"""

from __future__ import annotations

from typing import Any

from mancala_envs.rendering.picture import import_pygame

__all__ = ["BoardWindow"]


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

    def show(self, surface: Any) -> None:
        """Shows ``surface`` (a pygame ``Surface``), opening the window the first time."""
        pygame = import_pygame()
        # (Re)open when not open, or when another env's close() shut pygame's one display meanwhile.
        if self._screen is None or not pygame.display.get_init() or pygame.display.get_surface() is not self._screen:
            pygame.display.init()
            pygame.display.set_caption(self.title)
            self._screen = pygame.display.set_mode(surface.get_size())
            self._clock = pygame.time.Clock()
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
