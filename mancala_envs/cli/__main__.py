"""``python -m mancala_envs.cli``: the ``mancala-envs`` command."""

import sys

from mancala_envs.cli import main

if __name__ == "__main__":
    sys.exit(main())
