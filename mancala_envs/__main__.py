"""``python -m mancala_envs``: the ``mancala-envs`` command line."""

from __future__ import annotations

import sys

from mancala_envs.cli import main

if __name__ == "__main__":
    sys.exit(main())
