"""What the tests share: independent reference implementations, episode drivers, the contract vocabulary.

``tests/`` is on ``sys.path`` (``pythonpath`` in pyproject.toml), so test modules import ``support.<module>``.
"""
