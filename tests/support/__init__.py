"""What the tests share: independent reference implementations, episode drivers, the contract vocabulary.

One copy of each helper: ``actions`` (legal actions to play, an env part-way through a game), ``refusals``
(what a refused call must leave as it was), ``properties`` (the games' property-test drivers),
``command_line`` (run the CLI in-process), ``benchmark_results`` (the benchmark scripts' JSON). A test module
imports from here, never from another test module.

``tests/`` is on ``sys.path`` (``pythonpath`` in pyproject.toml), so test modules import ``support.<module>``.
"""
