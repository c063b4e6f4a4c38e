"""Test helpers for the command line: run ``mancala-envs`` in-process and read what it wrote on stderr."""

from __future__ import annotations

import pytest

from mancala_envs.cli import main


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``main(argv)``'s exit status and everything it wrote on stderr."""
    status = main(argv)
    return status, capsys.readouterr().err
