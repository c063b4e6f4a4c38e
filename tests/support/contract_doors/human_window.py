"""Contract cases of ``render_mode="human"`` on a machine without a display (docs/contract.md, "Building an
environment"): the env is refused when it is built, before pygame is imported, with the fixes named."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium

import mancala_envs
from mancala_envs import SingleAgentEnv

from support.contract import Case, Row

ROW = Row("Building an environment", '`render_mode="human"` on a machine without a display')
#: what tells SDL where to show a window; all unset is a machine without a display
DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
WORDS = (
    'render_mode="human" needs a display to show its window',
    "xvfb-run",
    "SDL_VIDEODRIVER=dummy",
    'render_mode="rgb_array"',
)


@contextmanager
def no_display() -> Iterator[None]:
    """The process's environment without a display (the test session's ``SDL_VIDEODRIVER=dummy`` included),
    restored afterwards."""
    saved = {name: os.environ.pop(name) for name in DISPLAY_VARIABLES if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def without_a_display(build: Callable[[], Any]) -> Callable[[Any], Any]:
    def call(_: Any) -> Any:
        with no_display():
            return build()

    return call


def pygame_untouched() -> bool:
    """Whether pygame is still unimported (the refusal comes before any picture); ``frozen`` of the cases."""
    return "pygame" in sys.modules


CASES: list[Case] = [
    Case(
        "human window",
        ROW,
        "make(render_mode='human') without a display",
        without_a_display(lambda: mancala_envs.make("ouril_v0", render_mode="human")),
        RuntimeError,
        WORDS,
        frozen=lambda _: pygame_untouched(),
        exact=True,
    ),
    Case(
        "human window",
        ROW,
        "SingleAgentEnv(render_mode='human') without a display",
        without_a_display(lambda: SingleAgentEnv("omweso_v0", opponent="random", render_mode="human")),
        RuntimeError,
        WORDS,
        exact=True,
    ),
    Case(
        "human window",
        ROW,
        "gymnasium.make(render_mode='human') without a display",
        without_a_display(lambda: gymnasium.make("mancala/Kalah-v0", render_mode="human")),
        RuntimeError,
        ("needs a display", "SDL_VIDEODRIVER=dummy"),
        exact=True,
    ),
]
