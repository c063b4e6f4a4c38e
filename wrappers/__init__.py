"""Observation-encoding wrappers, installed as ``mancala_envs.wrappers``.

Each encoding of :mod:`mancala_envs.wrappers.encodings` comes in two forms: an AEC wrapper for
the PettingZoo environments (:mod:`mancala_envs.wrappers.aec`, ``FlattenObservation``...) and a
Gymnasium wrapper for the single-agent env (:mod:`mancala_envs.wrappers.single_agent`,
``GymFlattenObservation``...). :func:`apply_wrappers` picks the form from the env.
See ``docs/wrappers.md``. The recorders :class:`RecordGames` (AEC) and :class:`GymRecordGames`
(single-agent) write every finished game as a JSON record (``docs/replay.md``).
:func:`turn_based_parallel` converts an AEC env (wrapped or not) to PettingZoo's parallel API, the one
conversion that suits these turn-based games (``docs/wrappers.md``, "The parallel API").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.wrappers.aec import (
    EncodeObservation,
    OneHotObservation,
    PlanesObservation,
    StackObservation,
    ThermometerObservation,
)
from mancala_envs.wrappers.encodings import (
    DEFAULT_CAP,
    DEFAULT_STACK,
    ENCODERS,
    ENCODINGS,
    FlatEncoder,
    ObservationEncoder,
    OneHotEncoder,
    PlanesEncoder,
    ThermometerEncoder,
    make_encoder,
    parse_encoding,
)
from mancala_envs.wrappers.flatten import FlattenObservation
from mancala_envs.wrappers.recorder import GymRecordGames, RecordGames
from mancala_envs.wrappers.single_agent import (
    GymEncodeObservation,
    GymFlattenObservation,
    GymOneHotObservation,
    GymPlanesObservation,
    GymStackObservation,
    GymThermometerObservation,
    is_vector_env,
    vector_env_advice,
)

__all__ = [
    "DEFAULT_CAP",
    "DEFAULT_STACK",
    "ENCODINGS",
    "WRAPPER_NAMES",
    "EncodeObservation",
    "FlatEncoder",
    "FlattenObservation",
    "GymEncodeObservation",
    "GymFlattenObservation",
    "GymOneHotObservation",
    "GymPlanesObservation",
    "GymRecordGames",
    "GymStackObservation",
    "GymThermometerObservation",
    "ObservationEncoder",
    "OneHotEncoder",
    "OneHotObservation",
    "PlanesEncoder",
    "PlanesObservation",
    "RecordGames",
    "StackObservation",
    "ThermometerEncoder",
    "ThermometerObservation",
    "apply_wrappers",
    "make_encoder",
    "turn_based_parallel",
]

#: The names ``apply_wrappers`` takes: the encodings, then ``"stack"``.
WRAPPER_NAMES: tuple[str, ...] = (*ENCODINGS, "stack")

_AEC_FORMS: dict[str, type] = {
    "flat": FlattenObservation,
    "one_hot": OneHotObservation,
    "thermometer": ThermometerObservation,
    "planes": PlanesObservation,
    "stack": StackObservation,
}
_GYM_FORMS: dict[str, type] = {
    "flat": GymFlattenObservation,
    "one_hot": GymOneHotObservation,
    "thermometer": GymThermometerObservation,
    "planes": GymPlanesObservation,
    "stack": GymStackObservation,
}
_OPTIONS: dict[str, dict[str, Any]] = {
    **{name: dict(ENCODERS[name].options) for name in ENCODINGS},
    "stack": {"k": DEFAULT_STACK},
}


def _parse_spec(spec: Any) -> tuple[str, dict[str, Any]]:
    name, options = parse_encoding(spec, kind="wrapper")
    if not isinstance(name, str) or name not in _OPTIONS:
        raise ValueError(f"unknown wrapper {name!r}; choose one of {list(WRAPPER_NAMES)}.")
    unknown = sorted(set(options) - set(_OPTIONS[name]), key=str)
    if unknown:
        raise TypeError(f"wrapper {name!r} takes no option {unknown[0]!r}; its options are {sorted(_OPTIONS[name])}.")
    return name, {**_OPTIONS[name], **options}


def apply_wrappers(env: Any, specs: Sequence[str | Mapping[str, Any]]) -> Any:
    """Wraps ``env`` in the wrappers ``specs`` names, innermost first.

    The form follows the env: a PettingZoo AEC env gets the AEC wrappers
    (``FlattenObservation``, ``OneHotObservation``... ``StackObservation``), a Gymnasium env
    (the single-agent env) the Gymnasium ones (``GymFlattenObservation``...). A vector env is refused:
    it takes its encoding as ``encoding=`` (``gymnasium.make_vec(id, num_envs, encoding="flat")``).

    Args:
        env: A mancala_envs AEC env or a single-agent Gymnasium env.
        specs: A list of names among :data:`WRAPPER_NAMES` (``"flat"``, ``"one_hot"``,
            ``"thermometer"``, ``"planes"``, ``"stack"``) or dicts naming one with its options:
            ``{"name": "one_hot", "cap": 8}``, ``{"name": "flat", "normalize": False}``,
            ``{"name": "stack", "k": 4}``. Defaults: ``cap=12``, ``k=4`` and
            ``normalize=True`` (in both forms). An encoding goes before the stack.

    Returns:
        The wrapped env (``env`` itself for an empty list).

    Raises:
        ValueError: an unknown wrapper name (the message lists the names), or an option out of range.
        TypeError: ``specs`` is not a list, a spec is neither a name nor a dict with a ``name``, an
            option is unknown (the message lists the wrapper's options) or of the wrong type, ``env``
            is neither an AEC nor a Gymnasium env, or an encoding comes after another or after the stack.
            Also for a vector env (Gymnasium's, ``MancalaVectorEnv``, Stable-Baselines3's): the message says to
            pass the encoding as ``encoding=`` to ``gymnasium.make_vec``, ``MancalaVectorEnv`` or
            ``MancalaSB3VecEnv`` (and, to stack, to wrap one env per game).

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers import apply_wrappers
        >>> env = apply_wrappers(mancala_envs.make("ouril_v0"), [{"name": "one_hot", "cap": 8}, "stack"])
        >>> type(env).__name__, env.observation_space("player_0")["observation"].shape
        ('StackObservation', (452,))
    """
    if isinstance(specs, (str, Mapping)) or not isinstance(specs, Sequence):
        raise TypeError(
            f"specs must be a list of wrapper specs such as ['one_hot', {{'name': 'stack', 'k': 4}}] "
            f"(got {specs!r}); put a single spec in a list."
        )
    parsed = [_parse_spec(spec) for spec in specs]  # every spec is checked before anything is built
    if is_vector_env(env):
        advice = _vector_advice(parsed)
        raise TypeError(f"apply_wrappers wraps one env, not a vector env ({type(env).__name__}); {advice}.")
    if isinstance(env, AECEnv):
        forms = _AEC_FORMS
    elif isinstance(env, gymnasium.Env):
        forms = _GYM_FORMS
    elif isinstance(env, ParallelEnv):
        raise TypeError(
            "apply_wrappers takes an AEC env, not a parallel one; wrap the AEC env first, then convert it: "
            "pettingzoo.utils.conversions.turn_based_aec_to_parallel(apply_wrappers(env, specs)), or "
            "mancala_envs.wrappers.turn_based_parallel(apply_wrappers(env, specs)) (PettingZoo's aec_to_parallel "
            "refuses these turn-based envs)."
        )
    else:
        raise TypeError(
            f"apply_wrappers takes a PettingZoo AEC env or a Gymnasium env (got {type(env).__name__}); pass one "
            "such as mancala_envs.make('ouril_v0') or mancala_envs.views.single_agent_env.SingleAgentEnv('ouril_v0')."
        )
    for name, options in parsed:
        env = forms[name](env, **options)
    return env


def _vector_advice(parsed: list[tuple[str, dict[str, Any]]]) -> str:
    """What to do instead of applying the parsed specs to a vector env (the encoding goes to ``encoding=``)."""
    encoding = options = stack = None
    for name, given in parsed:
        changed = {key: value for key, value in given.items() if value != _OPTIONS[name][key]}
        if name == "stack":
            stack = f"lambda env: GymStackObservation(env, k={given['k']})" if changed else "GymStackObservation"
        elif encoding is None:
            encoding, options = name, changed
    return vector_env_advice(encoding, options, stack)


def turn_based_parallel(env: AECEnv) -> ParallelEnv:
    """PettingZoo's parallel API over a mancala_envs AEC env: ``turn_based_aec_to_parallel(env)``.

    The games are turn-based, so ``pettingzoo.utils.conversions.aec_to_parallel`` refuses them
    (``metadata["is_parallelizable"]`` is False: it would play every agent's action in each parallel
    step, the second one chosen before the first was played). ``turn_based_aec_to_parallel`` plays one
    ply per parallel step, and this function returns exactly what it returns, after checking ``env``.
    With PettingZoo 1.27 the parallel env behaves as follows:

    - ``reset`` returns both agents' observations; exactly one agent, the one to act, has a mask
      that is not all zero (``infos[agent]["player_to_move"]`` gives it too; the infos of ``reset``
      have no ``active_agent``).
    - ``step(actions)`` reads only ``actions[agent_to_act]``, which the AEC env's ``step`` checks
      as usual (an illegal action under ``illegal_action="penalty"`` ends the game). The other
      agent's entry is never read: it may hold anything, or be left out.
    - It returns both agents' observations, the AEC env's rewards of that one ply (0 until the last
      step, which carries the final rewards), both agents' terminations and truncations, and their
      infos with ``infos[agent]["active_agent"]``, the agent to act at the next step. That is the same
      agent again after a Kalah extra turn, an Omweso decision point or placement ply, an automatic
      pass (Ouril, Urim) or a new game of a match that the same agent starts.
    - The last step's infos have no ``active_agent``, its masks are all zero, and ``agents`` is
      empty after it: call ``reset``.

    Convert last: observation wrappers (``apply_wrappers``, ``FlattenObservation``...) and
    :class:`RecordGames` take the AEC env.

    Args:
        env: A mancala_envs AEC environment, raw (``mancala_envs.make(...)``) or wrapped.

    Returns:
        ``pettingzoo.utils.conversions.turn_based_aec_to_parallel(env)``.

    Raises:
        TypeError: ``env`` is already a parallel env, or is not a mancala_envs AEC environment.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers import turn_based_parallel
        >>> env = turn_based_parallel(mancala_envs.make("kalah_v0", first_player=0))
        >>> observations, infos = env.reset(seed=0)
        >>> observations["player_1"]["action_mask"].tolist()  # player_0 acts first
        [0, 0, 0, 0, 0, 0]
        >>> observations, rewards, terminations, truncations, infos = env.step({"player_0": 2})
        >>> infos["player_0"]["active_agent"]  # the last seed fell into the store: player_0 again
        'player_0'
        >>> observations, rewards, terminations, truncations, infos = env.step({"player_0": 5, "player_1": None})
        >>> infos["player_0"]["active_agent"], rewards
        ('player_1', {'player_0': 0, 'player_1': 0})
    """
    if isinstance(env, ParallelEnv):
        raise TypeError(
            f"turn_based_parallel takes an AEC env; {type(env).__name__} is already a parallel one. Pass the AEC "
            "env it was made from, such as mancala_envs.make('ouril_v0')."
        )
    if not isinstance(env, AECEnv) or not isinstance(getattr(env, "unwrapped", None), MancalaEnv):
        hint = "; the single-agent env has no parallel form" if isinstance(env, gymnasium.Env) else ""
        raise TypeError(
            f"turn_based_parallel takes a mancala_envs AEC environment (got {type(env).__name__}); pass one such "
            f"as mancala_envs.make('ouril_v0'), wrapped or not{hint}."
        )
    return turn_based_aec_to_parallel(env)
