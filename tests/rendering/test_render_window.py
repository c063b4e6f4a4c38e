"""render_mode="human" in a real X11 window under a virtual display (Xvfb), not SDL's dummy driver.

CI installs Xvfb (.ci/run), so this runs there; on a machine without ``xvfb-run`` it is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = r"""
import json
import numpy as np
import sys
import mancala_envs

env = mancala_envs.make("omweso_v0", render_mode="human", first_player=0)
env.metadata["render_fps"] = 1000
env.reset(seed=0)
pictures = mancala_envs.make("omweso_v0", render_mode="rgb_array", first_player=0)
pictures.reset(seed=0)
before = "pygame" in sys.modules
matches = []
for action in (0, 1, 2):
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    action = int(legal[action % legal.size])
    env.step(action)  # shows the new position in the window
    pictures.step(action)
    import pygame
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
    matches.append(bool(np.array_equal(shown, pictures.render())))
print(json.dumps({"driver": pygame.display.get_driver(), "size": list(pygame.display.get_surface().get_size()),
                  "matches": matches, "pygame_before_first_step": before}))
env.close()
print(json.dumps({"closed": not pygame.display.get_init()}))
"""


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run (apt-get install xvfb)")
def test_human_window_under_a_virtual_display() -> None:
    environment = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "DISPLAY")}
    done = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown, closed = (json.loads(line) for line in done.stdout.strip().splitlines()[-2:])
    assert shown["driver"] == "x11", "the window must open on the virtual X display"
    assert shown["size"] == [784, 576]  # Omweso's picture
    assert shown["matches"] == [True, True, True], "the window shows the rgb_array picture after every step"
    assert shown["pygame_before_first_step"] is False, "reset must not start pygame"
    assert closed == {"closed": True}
