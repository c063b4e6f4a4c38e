"""Recorder wrappers: every finished game becomes a :class:`~mancala_envs.envs.records.GameRecord`.

:class:`RecordGames` wraps a PettingZoo AEC environment, :class:`GymRecordGames` the single-agent
Gymnasium env (:class:`mancala_envs.views.single_agent_env.SingleAgentEnv`), whose records hold the plies of
both sides. Each notes the start position at ``reset``, then every ply, and when the game (the
episode: a whole match in the match variants) ends it writes the record as JSON into
``directory`` (``<prefix>-<number>.json``, numbered from 0 in the order the games end) and/or
appends it to ``records``. Replay a record with :func:`mancala_envs.envs.records.replay` or
``mancala-envs replay game.json``. See ``docs/replay.md``.

Recording starts at the first ``reset`` through the wrapper: the plies of a game in progress when
the env was wrapped, or after ``load_state_dict``, are not recorded (the start of such a game is
not a position the notation can restore with its history), nor is a game that is over inside
``reset`` (a loaded position in which the player to move cannot move: no move is played).

Example:
    >>> import mancala_envs
    >>> from mancala_envs.wrappers import RecordGames
    >>> env = RecordGames(mancala_envs.make("ouril_v0", first_player=0), players=["me", "you"])
    >>> env.reset(seed=0)
    >>> env.step(5)
    >>> env.step(0)
    >>> env.current_moves()
    [{'player': 0, 'action': 5}, {'player': 1, 'action': 0}]
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseWrapper

from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.envs.records import RESULT_KEYS, GameRecord
from mancala_envs.games.game import Game

__all__ = ["GymRecordGames", "RecordGames"]

_AGENTS = ("player_0", "player_1")


@dataclasses.dataclass
class _Game:
    """The game being recorded: its start (None until known), its plies and its metadata."""

    start_state: np.ndarray | None
    plies: list[tuple[int, int, bool]]
    seed: int | None
    players: list[str] | None


class _Recorder:
    """What both wrappers share: the options, the records and how a finished game is kept."""

    records: list[GameRecord]
    games_recorded: int

    def _setup(self, directory: object, prefix: object, keep: object, wrapper: str) -> None:
        if directory is not None and not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"{wrapper} directory must be a path or None (got {type(directory).__name__}).")
        if not isinstance(prefix, str) or not prefix or os.sep in prefix or "/" in prefix:
            raise ValueError(f"{wrapper} prefix must be a non-empty file name prefix such as 'game' (got {prefix!r}).")
        if keep is not None and not isinstance(keep, bool):
            raise TypeError(f"{wrapper} keep must be True, False or None (got {keep!r}).")
        self.directory = None if directory is None else pathlib.Path(directory)
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
        self.prefix = prefix
        self.keep = self.directory is None if keep is None else keep
        self.records = []
        self.games_recorded = 0
        self._game: _Game | None = None

    def current_moves(self) -> list[dict[str, Any]]:
        """The moves of the game being recorded so far, as ``{"player", "action"}`` dicts."""
        if self._game is None:
            return []
        return [{"player": player, "action": action} for player, action, _ in self._game.plies]

    def _keep(self, game: Game, recorded: _Game, final_info: Mapping[str, Any]) -> None:
        """Builds the finished game's record, writes and/or keeps it; the game is then closed."""
        self._game = None
        assert recorded.start_state is not None, "reset sets the start before any ply"
        record = GameRecord.from_plies(
            game, recorded.start_state, recorded.plies, final_info, players=recorded.players, seed=recorded.seed
        )
        if self.directory is not None:
            record.save(self.directory / f"{self.prefix}-{self.games_recorded:06d}.json")
        if self.keep:
            self.records.append(record)
        self.games_recorded += 1


def _check_players(players: object, wrapper: str) -> list[str] | None:
    if players is None:
        return None
    if (
        isinstance(players, str)
        or not isinstance(players, Sequence)
        or len(players) != 2
        or not all(isinstance(name, str) for name in players)
    ):
        raise TypeError(f"{wrapper} players must be None or two names, one per player (got {players!r}).")
    return list(players)


class RecordGames(_Recorder, BaseWrapper):
    """AEC wrapper: records every game played through it as a :class:`~mancala_envs.envs.records.GameRecord`.

    ``reset`` notes the start position; each ``step`` of a live agent notes ``(player, action)``,
    including a final illegal action under ``illegal_action="penalty"`` (kept with
    ``"illegal": true``, and the record's result says ``illegal_action``). When the game ends, the
    record is written and/or kept. Everything else passes through unchanged; steps that raise
    (bad actions, ``illegal_action="raise"``) record nothing.

    Args:
        env: A mancala_envs AEC environment, raw or under other AEC wrappers.
        directory: If given, each record is written there as ``<prefix>-<number>.json`` (the
            directory is created; files of the same name are replaced).
        prefix: The file name prefix (default ``"game"``).
        keep: Whether to append each record to :attr:`records`; ``None`` (default) keeps them only
            when no ``directory`` is given.
        players: Optional names of player_0 and player_1, written into every record.

    Attributes:
        records: The kept records, oldest first.
        games_recorded: How many games were recorded (written or kept).

    Raises:
        TypeError: ``env`` is not a mancala_envs AEC environment, or an argument of the wrong type.
        ValueError: an empty ``prefix`` or one with a path separator.
    """

    def __init__(
        self,
        env: AECEnv,
        directory: str | os.PathLike[str] | None = None,
        prefix: str = "game",
        keep: bool | None = None,
        players: Sequence[str] | None = None,
    ) -> None:
        wrapper = type(self).__name__
        if isinstance(env, ParallelEnv) or not isinstance(env, AECEnv) or not isinstance(env.unwrapped, MancalaEnv):
            raise TypeError(
                f"{wrapper} wraps a mancala_envs AEC environment such as mancala_envs.make('ouril_v0') "
                f"(got {type(env).__name__}); for the single-agent env use GymRecordGames. To record a parallel "
                "env, record the AEC env, then convert it: turn_based_aec_to_parallel(RecordGames(env))."
            )
        self._players = _check_players(players, wrapper)
        self._setup(directory, prefix, keep, wrapper)
        BaseWrapper.__init__(self, env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Resets the env (a rejected reset changes nothing) and starts recording the new game."""
        self.env.reset(seed=seed, options=options)
        raw = self.env.unwrapped
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            # A loaded position in which the player to move cannot move: the game ended inside reset, which
            # settled the board, so there is neither a move nor a start position to record.
            self._game = None
            return
        self._game = _Game(raw.state_array, [], None if seed is None else int(seed), self._players)

    def step(self, action: Any) -> None:
        """Steps the env; a ply of a live agent is noted, and the record is kept when the game ends."""
        env = self.env
        raw = env.unwrapped
        agent = raw.agent_selection if raw.agents else None
        live = agent is not None and not (raw.terminations[agent] or raw.truncations[agent])
        env.step(action)  # a rejected action raises here, before anything is noted
        recorded = self._game
        if not live or recorded is None:
            return
        over = raw.terminations[agent] or raw.truncations[agent]
        info = raw.facts() if over else None
        illegal = info is not None and info["end_reason"] == "illegal_action"
        recorded.plies.append((_AGENTS.index(agent), int(action), illegal))
        if info is not None:  # the game is over
            self._keep(raw.game, recorded, info)

    def load_state_dict(self, snapshot: dict[str, Any]) -> None:
        """Restores a snapshot; the game it holds is not recorded (recording resumes at the next reset)."""
        self.env.load_state_dict(snapshot)
        self._game = None


class GymRecordGames(_Recorder, gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Gymnasium wrapper of the single-agent env: records every game, the plies of both sides.

    It registers an observer on the AEC env under the single-agent env
    (``env.unwrapped.aec_env``), so every ply is seen, the opponent's included (the random
    baseline then plays through the AEC env's ``step`` rather than in compiled code, which is
    slower). The start position is the one before the first ply, also when the opponent moves
    first inside ``reset``. A learner's illegal action under ``illegal_action="penalty"`` ends
    the record as the AEC env's penalty would (``"illegal": true``, result ``illegal_action``).
    ``action_masks()`` is forwarded for MaskablePPO.

    Args:
        env: A :class:`~mancala_envs.views.single_agent_env.SingleAgentEnv`, raw or under Gymnasium wrappers.
        directory: If given, each record is written there, as for :class:`RecordGames`.
        prefix: The file name prefix, as for :class:`RecordGames` (default ``"game"``).
        keep: Whether to keep each record in :attr:`records`, as for :class:`RecordGames`.
        learner_name: The learner's name in each record's ``players``; the opponent's is its ``name``.

    Attributes:
        records: The kept records, oldest first.
        games_recorded: How many games were recorded (written or kept).

    Raises:
        TypeError: ``env`` is not a single-agent env of this library, or an argument of the wrong type.
        ValueError: an empty ``prefix`` or one with a path separator.

    Example:
        >>> from mancala_envs.views.single_agent_env import SingleAgentEnv
        >>> from mancala_envs.wrappers import GymRecordGames
        >>> env = GymRecordGames(SingleAgentEnv("ouril_v0", opponent="greedy", learner_seat=1, first_player=0))
        >>> observation, info = env.reset(seed=0)
        >>> env.current_moves()  # the opponent, in seat 0, has moved inside reset
        [{'player': 0, 'action': 4}]
    """

    def __init__(
        self,
        env: gymnasium.Env,
        directory: str | os.PathLike[str] | None = None,
        prefix: str = "game",
        keep: bool | None = None,
        learner_name: str = "learner",
    ) -> None:
        wrapper = type(self).__name__
        if isinstance(env, AECEnv) or not isinstance(env, gymnasium.Env):
            raise TypeError(
                f"{wrapper} wraps the single-agent env, mancala_envs.views.single_agent_env.SingleAgentEnv('ouril_v0') "
                f"(got {type(env).__name__}); for a PettingZoo AEC env use RecordGames."
            )
        aec_env = getattr(env.unwrapped, "aec_env", None)
        if not isinstance(aec_env, MancalaEnv):
            raise TypeError(f"{wrapper} needs a mancala_envs single-agent env (env.unwrapped.aec_env); got {env!r}.")
        if not isinstance(learner_name, str):
            raise TypeError(f"{wrapper} learner_name must be a string (got {learner_name!r}).")
        gymnasium.utils.RecordConstructorArgs.__init__(
            self,
            directory=None if directory is None else os.fspath(directory),
            prefix=prefix,
            keep=keep,
            learner_name=learner_name,
        )
        self._setup(directory, prefix, keep, wrapper)
        gymnasium.Wrapper.__init__(self, env)
        self.learner_name = learner_name
        self._aec_env = aec_env
        self._twin: MancalaEnv | None = None  # rebuilds the start when the opponent moved first
        aec_env.ply_observers.append(self._on_ply)

    def _on_ply(self, player: int, action: int) -> None:
        if self._game is not None:
            self._game.plies.append((player, action, False))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Resets the env (the opponent may move first) and starts recording the new game."""
        before = self._game
        self._game = _Game(None, [], None if seed is None else int(seed), None)
        try:
            observation, info = self.env.reset(seed=seed, options=options)
        except BaseException:
            self._game = before
            raise
        single: Any = self.env.unwrapped  # the single-agent view (a higher layer: not imported here)
        seat = single.seat
        opponent = getattr(single.opponent, "name", "opponent")
        self._game.players = [self.learner_name, opponent] if seat == 0 else [opponent, self.learner_name]
        if self._game.plies:
            self._game.start_state = self._start_before(self._game.plies[0][0], options)
        else:
            self._game.start_state = self._aec_env.state_array
        return observation, info

    def _start_before(self, first_player: int, options: dict[str, Any] | None) -> np.ndarray:
        """The position before the opponent's first ply: the AEC reset again, on a twin, with that first player."""
        if self._twin is None:
            self._twin = MancalaEnv(self._aec_env.game)
        self._twin.first_player = first_player
        self._twin.reset(options=options)
        return self._twin.state_array

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the env (the learner's ply and the opponent's replies are noted); keeps the record at the end."""
        recorded = self._game
        result = self.env.step(action)
        _, _, terminated, truncated, info = result
        if recorded is None or not (terminated or truncated):
            return result
        single: Any = self.env.unwrapped  # the single-agent view (a higher layer: not imported here)
        if info.get("illegal_action"):
            self._keep(single.game, recorded, self._penalty_end(single.seat, action, recorded))
        else:
            self._keep(single.game, recorded, self._aec_env.facts())
        return result

    def _penalty_end(self, seat: int, action: Any, recorded: _Game) -> dict[str, Any]:
        """The learner's illegal action, noted; the final infos are the AEC env's, which the single-agent
        env ended with its penalty (``MancalaEnv.forfeit``), the board as it was."""
        action = int(np.asarray(action).reshape(()))
        recorded.plies.append((seat, action, True))
        facts = self._aec_env.facts()
        return {key: facts[key] for key in RESULT_KEYS}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans, from the env below (for MaskablePPO)."""
        return self.env.get_wrapper_attr("action_masks")()

    def close(self) -> None:
        """Stops observing the AEC env's plies and closes the env."""
        if self._on_ply in self._aec_env.ply_observers:
            self._aec_env.ply_observers.remove(self._on_ply)
        super().close()
