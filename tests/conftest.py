"""Test-session settings: pygame's windows go to SDL's dummy video driver (no display needed)."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
