"""PettingZoo's own checkers, imported once, and the warnings they emit for every Dict observation.

Shared by the API, wrapper and encoding tests.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

with warnings.catch_warnings():
    # pettingzoo.test imports pettingzoo.classic.connect_four_v3 through PettingZoo's old creation API,
    # which warns at import time. The warning is about PettingZoo's own module, not ours.
    warnings.filterwarnings("ignore", message="The old environment creation API", category=DeprecationWarning)
    from pettingzoo.test import api_test, render_test, seed_test

__all__ = ["DICT_OBSERVATION_WARNINGS", "api_test", "only_dict_observation_warnings", "render_test", "seed_test"]

# PettingZoo's checkers emit these for every environment whose observation is a Dict
# (observation vector + action mask, the layout of PettingZoo's own classic games):
#  - test_observation() warns when the observation is not an ndarray, before looking inside the dict;
#  - test_observation_action_spaces() warns when the space is neither Box nor Discrete.
# Any other warning fails the test.
DICT_OBSERVATION_WARNINGS = frozenset(
    {
        "Observation is not a NumPy array",
        "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    }
)


@contextlib.contextmanager
def only_dict_observation_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Records every warning and fails on any that PettingZoo does not emit for all Dict observations."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    unexpected = [
        f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})"
        for w in caught
        if not (issubclass(w.category, UserWarning) and str(w.message) in DICT_OBSERVATION_WARNINGS)
    ]
    assert not unexpected, "unexpected warnings:\n" + "\n".join(unexpected)
