"""Self-play at batched speed: a learner against batched opponents, as a Stable-Baselines3 ``VecEnv``.

:class:`SelfPlayVecEnv` holds ``n_envs`` games of :class:`~mancala_envs.envs.batch.BatchedGames`. In each game
the learner has a seat (drawn for each episode) and the other seat is played by a member of an
*opponent pool*, drawn for each episode:

- ``"self"``: the learner's own current policy (the same network, as it trains): the learner plays
  both sides, and the rollout keeps its decisions at its seat of each game;
- a frozen snapshot of the learner (:meth:`SelfPlayVecEnv.snapshot`), or any Stable-Baselines3 policy
  or model (:class:`TorchPolicyOpponent`);
- the shipped ``"pretrained"`` agent, and the baselines (``"random"``, ``"greedy"``, ``"alphabeta:D"``,
  ``"mcts:N"``), or any object with ``act_batch`` (:class:`BatchOpponent`).

A step plays the learners' actions in every game with one compiled call, then, until every learner is
to move again, the opponents' plies: **one batched call per pool member** over all the games where
that member is to move (a torch policy evaluates them in one forward pass, not one call per game). So
Omweso's mid-turn choices and Kalah's extra turns stay with their mover: a learner who keeps the move
is asked again, and an opponent who keeps it plays on.

The observation is always the mover's egocentric view (the learner's, as returned), encoded with
``encoding=`` as :class:`~mancala_envs.views.vector_env.MancalaVectorEnv` encodes it. Rewards are the learner's
(0 until the end, then +1 / -1 / 0). SB3's conventions hold: same-step auto-reset,
``infos[i]["terminal_observation"]``, ``infos[i]["episode"]``, ``action_masks()``.

Each finished episode also leaves ``(member name, learner's score)`` in :attr:`SelfPlayVecEnv.results`,
which :class:`PoolRatings` turns into live Bradley-Terry ratings (``mancala-envs train --self-play``).

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch, openskill).

Example:
    >>> from mancala_envs.training.selfplay import SelfPlayVecEnv
    >>> vec_env = SelfPlayVecEnv("ouril_v0", n_envs=4, opponents=["greedy", "random"], seed=0)
    >>> vec_env.reset().shape, vec_env.action_masks().shape
    ((4, 17), (4, 6))
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from mancala_envs.agents import make_agent
from mancala_envs.agents.agent import Agent, masked_choice
from mancala_envs.agents.sb3 import on_policy_policy, policy_encoder
from mancala_envs.common.validation import check_integer, check_seed
from mancala_envs.envs.batch import BatchedGames, BatchStep
from mancala_envs.envs.learner_loop import MAX_OPENINGS, OPENINGS_REFUSAL
from mancala_envs.games.game import Game
from mancala_envs.views.sb3_vec_env import vec_env_indices
from mancala_envs.views.vector_env import encoded_space

__all__ = [
    "SELF",
    "AgentBatchOpponent",
    "BatchOpponent",
    "PoolRatings",
    "PretrainedBatchOpponent",
    "RandomBatchOpponent",
    "SelfPlayVecEnv",
    "TorchPolicyOpponent",
    "batch_opponent",
]

#: the pool member that is the learner's own current policy
SELF = "self"


@runtime_checkable
class BatchOpponent(Protocol):
    """Plays the opponent's seat in many games at once.

    Attributes:
        name: Shown in ratings and logs.
    """

    name: str

    def act_batch(
        self,
        games: BatchedGames,
        index: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Legal actions ``(k,)`` for the movers of games ``index`` (``(k,)``) of ``games``, given their raw
        egocentric observations ``(k, obs_size)`` int32 and masks ``(k, n_actions)`` bool."""
        ...


class RandomBatchOpponent:
    """A uniformly random legal action in every game, drawn in one vectorised call."""

    name = "random"

    def act_batch(
        self,
        games: BatchedGames,
        index: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        return masked_choice(np.zeros(masks.shape), masks, rng)


class AgentBatchOpponent:
    """An :class:`~mancala_envs.agents.agent.Agent` (a baseline or search) asked once per game, on its state.

    Args:
        agent: The agent.
        name: Shown in ratings (default: the agent's name).
    """

    def __init__(self, agent: Agent, name: str | None = None) -> None:
        self.agent = agent
        self.name: str = name or getattr(agent, "name", None) or type(agent).__name__

    def act_batch(
        self,
        games: BatchedGames,
        index: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        # The batch's own running states: the agent's unchecked door (check_state would cost more than the move).
        return np.array([self.agent.act_on_engine_state(games.game, games.state(int(i))) for i in index], np.int64)


class PretrainedBatchOpponent:
    """The shipped ``pretrained`` policy of the game: one numpy forward pass for all its games.

    Args:
        deterministic: Play the most likely legal action (default) instead of sampling.
        folder: Where the weights are (default: the package's, or ``$MANCALA_ENVS_WEIGHTS``).
    """

    name = "pretrained"

    def __init__(self, deterministic: bool = True, folder: str | None = None) -> None:
        self.deterministic = deterministic
        self.folder = folder
        self._policy: Any = None

    def act_batch(
        self,
        games: BatchedGames,
        index: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        if self._policy is None:
            from mancala_envs.agents.pretrained import load_pretrained

            self._policy = load_pretrained(games.game, self.folder)
        return self._policy.act_batch(observations, masks, rng, deterministic=self.deterministic)


class TorchPolicyOpponent:
    """A Stable-Baselines3 policy (or model) evaluated on all its games in one forward pass.

    Its logits are masked with the legal actions; it samples from them (one Gumbel-max draw from the env's
    generator) or, with ``deterministic``, plays the most likely legal action.

    Args:
        policy: An SB3 on-policy model or policy (``MaskablePPO``, ``PPO``).
        encoding: The observation encoding it was trained on (``None``: the one its space names; see
            :func:`~mancala_envs.agents.sb3.policy_encoder`).
        deterministic: Play the most likely legal action.
        name: Shown in ratings.
    """

    def __init__(
        self,
        policy: Any,
        encoding: str | Mapping[str, Any] | None = None,
        deterministic: bool = False,
        name: str = "policy",
    ) -> None:
        self.policy = on_policy_policy(policy, "TorchPolicyOpponent")
        self.encoding = encoding
        self.deterministic = deterministic
        self.name = name
        self._encoder: Any = None
        self._game: Game | None = None

    def logits(self, game: Game, observations: np.ndarray) -> np.ndarray:
        """The policy's logits ``(k, n_actions)`` for raw observations ``(k, obs_size)``, in one forward pass."""
        import torch

        if self._encoder is None or self._game is not game:
            self._encoder = policy_encoder(game, self.policy.observation_space, self.encoding)
            self._game = game
        tensor = torch.as_tensor(np.asarray(self._encoder(observations), np.float32))
        with torch.no_grad():
            return self.policy.get_distribution(tensor).distribution.logits.cpu().numpy()

    def act_batch(
        self,
        games: BatchedGames,
        index: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        return masked_choice(self.logits(games.game, observations), masks, rng, self.deterministic)

    def frozen(self, name: str | None = None) -> TorchPolicyOpponent:
        """A copy whose weights later training of the original does not change (a snapshot)."""
        snapshot = copy.copy(self)
        snapshot.policy = copy.deepcopy(self.policy)
        snapshot.policy.set_training_mode(False)
        snapshot.name = name or self.name
        return snapshot


def batch_opponent(spec: Any, seed: int | None = None, encoding: Any = None) -> BatchOpponent:
    """A pool member from an agent name, an SB3 model or policy, an agent, or an object with ``act_batch``.

    Args:
        spec: ``"random"``, ``"pretrained"``, any other agent name of :func:`~mancala_envs.agents.make_agent`
            (``"greedy"``, ``"alphabeta:2"``...), an SB3 model or policy, an :class:`Agent`, or a
            :class:`BatchOpponent`.
        seed: Seeds an agent built from a name.
        encoding: For SB3 policies: the encoding they were trained on.

    Raises:
        TypeError: none of these.
        ValueError: an unknown agent name (its message lists the names).
    """
    if isinstance(spec, str):
        if spec == SELF:
            raise ValueError(
                f"{SELF!r} is the learner itself; SelfPlayVecEnv resolves it once set_learner() is called."
            )
        if spec == "random":
            return RandomBatchOpponent()
        if spec == "pretrained":
            return PretrainedBatchOpponent()
        return AgentBatchOpponent(make_agent(spec, seed), name=spec)
    if isinstance(spec, BatchOpponent):
        return spec
    if isinstance(spec, Agent):
        return AgentBatchOpponent(spec)
    if hasattr(getattr(spec, "policy", spec), "get_distribution"):
        return TorchPolicyOpponent(spec, encoding=encoding)
    raise TypeError(
        f"opponent {spec!r} cannot play batched games; pass an agent name ('greedy', 'alphabeta:2', 'pretrained'), "
        f"{SELF!r}, an SB3 model or policy, an Agent, "
        "or an object with act_batch(games, index, observations, masks, rng)."
    )


class SelfPlayVecEnv(VecEnv):
    """``n_envs`` batched games of a learner against a pool of batched opponents, as an SB3 ``VecEnv``.

    Args:
        env_id: A registered game or variant.
        n_envs: Games stepped together.
        opponents: The pool: members as :func:`batch_opponent` takes them, or ``"self"`` (the learner's own
            current policy; see :meth:`set_learner`). One is drawn for each episode of each game.
        weights: Relative draw weights, one per member (default: equal).
        learner: The learner's model or policy, for ``"self"`` (or call :meth:`set_learner` once the model exists).
        encoding: The observation encoding (``"flat"``, ``{"name": "one_hot", "cap": 8}``, ``None``/``"raw"``).
        learner_seat: ``None`` (drawn for each episode), ``0`` or ``1``.
        seed: Seeds the games, the draws of seats and members, and the members at the first ``reset``.
        threads: Threads that step the games (see :class:`~mancala_envs.envs.batch.BatchedGames`).
        **options: Game options and ``first_player``, ``history_capacity``.

    Attributes:
        games: The :class:`~mancala_envs.envs.batch.BatchedGames` underneath.
        members: The pool's members (``None`` stands for ``"self"``).
        results: ``(member name, learner's score)`` of each episode finished since the last
            :meth:`pop_results` (score 1, 0.5 or 0).
        seconds: Wall time spent in ``reset`` and ``step`` (the opponents' moves included).
        opponent_seconds: The part of it spent choosing the opponents' moves.
    """

    def __init__(
        self,
        env_id: str = "ouril_v0",
        n_envs: int = 64,
        opponents: Sequence[Any] = (SELF,),
        weights: Sequence[float] | None = None,
        learner: Any = None,
        encoding: str | Mapping[str, Any] | None = "flat",
        learner_seat: int | None = None,
        seed: int | None = None,
        threads: int | None = None,
        **options: Any,
    ) -> None:
        from gymnasium import spaces

        check_integer("n_envs", n_envs, 1)
        if learner_seat not in (None, 0, 1) or isinstance(learner_seat, bool):
            raise ValueError(f"learner_seat must be 0, 1 or None (drawn for each episode); got {learner_seat!r}.")
        history = options.pop("history_capacity", 24)
        self.games = BatchedGames(env_id, n_envs, history_capacity=history, threads=threads, **options)
        self.env_id = env_id
        self.game = self.games.game
        self.encoding = encoding
        self.encoder, observation_space = encoded_space(encoding, self.game)
        self.render_mode = None
        super().__init__(n_envs, observation_space, spaces.Discrete(self.game.n_actions))
        self.learner_seat = learner_seat
        self._learner: TorchPolicyOpponent | None = None
        self._seed_value = None if seed is None else check_seed(seed)
        self._rng = np.random.default_rng(seed)
        self._named: dict[str, BatchOpponent] = {}
        self.members: list[BatchOpponent | None] = []
        self.weights = np.ones(1)
        self.set_pool(opponents, weights)
        if learner is not None:
            self.set_learner(learner)
        n = n_envs
        self._seats = np.zeros(n, np.int8)
        self._member = np.zeros(n, np.int64)
        self._fresh = np.ones(n, bool)
        self._openings = np.zeros(n, np.int64)  # new games in a row that the opponent's opening ended
        self._lengths = np.zeros(n, np.int64)
        self._last: BatchStep | None = None
        self._actions: np.ndarray | None = None
        self.results: list[tuple[str, float]] = []
        self.seconds = 0.0
        self.opponent_seconds = 0.0
        self.learner_steps = 0
        self.opponent_plies = 0
        self._start = time.time()

    # --- the pool ------------------------------------------------------------------------------------------
    def set_pool(self, opponents: Sequence[Any], weights: Sequence[float] | None = None) -> None:
        """Replaces the pool; games keep their current member until their episode ends (a member index past
        the new pool's end is drawn again at once)."""
        if isinstance(opponents, (str, bytes)) or not isinstance(opponents, Sequence) or not opponents:
            raise ValueError("opponents must be a non-empty list of pool members, e.g. ['self', 'greedy'].")
        members: list[BatchOpponent | None] = []
        for spec in opponents:
            if _is_self(spec):
                members.append(None)
            elif isinstance(spec, str):  # a name keeps its member (and its generator) across pool changes
                if spec not in self._named:
                    self._named[spec] = batch_opponent(
                        spec, seed=int(self._rng.integers(2**31)), encoding=self.encoding
                    )
                members.append(self._named[spec])
            else:
                members.append(batch_opponent(spec, encoding=self.encoding))
        if weights is None:
            chances = np.ones(len(members))
        else:
            chances = np.asarray(weights, np.float64)
            if chances.shape != (len(members),) or (chances < 0).any() or chances.sum() <= 0:
                raise ValueError(
                    f"weights must be {len(members)} non-negative numbers, not all zero (got {weights!r})."
                )
        self.members = members
        self.weights = chances / chances.sum()
        if hasattr(self, "_member"):
            stale = self._member >= len(members)
            self._member[stale] = self._draw_members(int(stale.sum()))

    def set_learner(self, learner: Any) -> None:
        """The learner's model or policy: the ``"self"`` member plays it (its live weights, sampled)."""
        self._learner = TorchPolicyOpponent(learner, encoding=self.encoding, name=SELF)

    def snapshot(self, name: str) -> TorchPolicyOpponent:
        """A frozen copy of the learner's current policy, named ``name`` (for the pool)."""
        if self._learner is None:
            raise RuntimeError("no learner is set; call set_learner(model) first.")
        return self._learner.frozen(name)

    def member_names(self) -> list[str]:
        """The pool's members' names (``"self"`` for the learner)."""
        return [SELF if member is None else member.name for member in self.members]

    def pop_results(self) -> list[tuple[str, float]]:
        """The episodes finished since the last call: ``(member name, learner's score)``."""
        results, self.results = self.results, []
        return results

    # --- VecEnv API -----------------------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        start = time.perf_counter()
        seeds = [s for s in self._seeds if s is not None]
        seed = int(seeds[0]) if seeds else self._seed_value
        self._seed_value = None
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for i, member in enumerate(self._named.values()):
                if isinstance(member, AgentBatchOpponent) and hasattr(member.agent, "rng"):
                    member.agent.rng = np.random.default_rng([seed, i])
        self._reset_seeds()
        self._reset_options()
        result = self.games.reset(seed=seed)
        n = self.num_envs
        self._fresh[:] = True
        self._openings[:] = 0
        self._lengths[:] = 0
        self._new_episodes(np.arange(n))
        result, _, _ = self._play_opponents(result, np.zeros(n), np.zeros(n, bool), [{} for _ in range(n)])
        self._last = result
        self.seconds += time.perf_counter() - start
        return self._encode(result.observation)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """As SB3's ``VecEnv.seed``: the next :meth:`reset` seeds the games and the draws with ``seed``, after the
        seed check of every env (:func:`~mancala_envs.common.validation.check_seed`).

        Raises:
            TypeError: neither ``None`` nor an integer (a bool, a float, a string).
            ValueError: a negative integer.
        """
        return super().seed(check_seed(seed))

    @property
    def pending_seeds(self) -> list[int | None]:
        """The seed of each game for the next :meth:`reset`, as :meth:`seed` set them (``None``: not seeded), a
        copy (SB3's ``VecEnv`` keeps them; :meth:`reset` uses and clears them)."""
        return list(self._seeds)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() was called without step_async(actions); call step(actions).")
        if self._last is None:
            raise RuntimeError("step() was called before reset(); call reset() first.")
        start = time.perf_counter()
        actions, self._actions = self._actions, None  # checked by the batch, as at every door: (n_envs,) integers
        n = self.num_envs
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        result = self.games.step(actions)
        self.learner_steps += n
        self._fresh[:] = False
        self._openings[:] = 0
        self._lengths += 1
        self._finish(result, rewards, dones, infos)
        result, rewards, dones = self._play_opponents(result, rewards, dones, infos)
        self._last = result
        self.seconds += time.perf_counter() - start
        return self._encode(result.observation), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, ``(n_envs, n_actions)`` bool."""
        if self._last is None:
            raise RuntimeError("action_masks() was called before reset(); call reset() first.")
        return self._last.action_mask.copy()

    def learner_seats(self) -> np.ndarray:
        """Each game's learner seat in its current episode."""
        return self._seats.copy()

    @property
    def has_reset(self) -> bool:
        """Whether :meth:`reset` has been called (``step`` and :meth:`action_masks` need it)."""
        return self._last is not None

    @property
    def rng_state(self) -> dict[str, Any]:
        """The state of the generator that draws the learners' seats and the pool's members
        (``numpy.random.Generator.bit_generator.state``, a copy): equal states draw the same from here on."""
        return copy.deepcopy(dict(self._rng.bit_generator.state))

    def close(self) -> None:
        self.games.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if list(self._indices(indices)) != list(range(self.num_envs)):
            raise ValueError(f"{attr_name} is shared by every game of the batch; set it for all indices.")
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list:
        chosen = list(self._indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in chosen]
        if chosen != list(range(self.num_envs)):
            raise ValueError(f"{method_name} acts on the whole batch of games; call it without indices.")
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    # --- the games -----------------------------------------------------------------------------------------
    def _draw_members(self, count: int) -> np.ndarray:
        return self._rng.choice(len(self.members), size=count, p=self.weights).astype(np.int64)

    def _new_episodes(self, games: np.ndarray) -> None:
        """Draws the learner's seat and the opponent of a new episode in ``games``."""
        if self.learner_seat is None:
            self._seats[games] = self._rng.integers(0, 2, size=games.size)
        else:
            self._seats[games] = self.learner_seat
        self._member[games] = self._draw_members(games.size)
        self._fresh[games] = True
        self._lengths[games] = 0

    def _finish(self, result: BatchStep, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """Closes the learners' episodes that ``result`` ended, and starts new ones there."""
        final = result.final
        if final.index.size == 0:
            return
        elapsed = round(time.time() - self._start, 6)
        names = self.member_names()
        restarted = []
        for k, game in enumerate(final.index):
            game = int(game)
            restarted.append(game)
            if self._fresh[game] or dones[game]:
                # the opponent's opening ended a game the learner never played: it just starts again, up to
                # MAX_OPENINGS times in a row (a learner who always sits second on Kalah 2x1 never moves)
                self._openings[game] += self._fresh[game]
                if self._openings[game] >= MAX_OPENINGS:
                    raise ValueError(OPENINGS_REFUSAL)
                continue
            seat = int(self._seats[game])
            reward = float(result.rewards[game, seat])
            rewards[game] = reward
            dones[game] = True
            truncated = bool(result.truncated[game])
            terminal = final.observation[k, seat]
            infos[game] = {
                "terminal_observation": self._encode(terminal[None])[0],
                "TimeLimit.truncated": truncated,
                "episode": {"r": reward, "l": int(self._lengths[game]), "t": elapsed},
                "winner": int(final.winner[k]),
                "learner_seat": seat,
                "opponent": names[self._member[game]],
            }
            score = 0.5 if final.winner[k] < 0 else float(final.winner[k] == seat)
            self.results.append((names[self._member[game]], score))
        self._new_episodes(np.array(restarted, np.int64))

    def _play_opponents(
        self, result: BatchStep, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]
    ) -> tuple[BatchStep, np.ndarray, np.ndarray]:
        """The opponents' plies until every learner is to move: one batched call per member each round."""
        n = self.num_envs
        while True:
            waiting = result.current_player != self._seats
            if not waiting.any():
                return result, rewards, dones
            start = time.perf_counter()
            actions = np.zeros(n, np.int64)
            for index in np.unique(self._member[waiting]):
                games = np.flatnonzero(waiting & (self._member == index))
                member = self.members[index]
                if member is None:
                    if self._learner is None:
                        raise RuntimeError(
                            f"the pool holds {SELF!r} (the learner) but no learner is set; call "
                            "set_learner(model) once the model exists (train() does)."
                        )
                    member = self._learner
                actions[games] = member.act_batch(
                    self.games, games, result.observation[games], result.action_mask[games], self._rng
                )
            self.opponent_seconds += time.perf_counter() - start
            self.opponent_plies += int(waiting.sum())
            result = self.games.step(actions, playing=waiting)
            self._finish(result, rewards, dones, infos)

    def _encode(self, observation: np.ndarray) -> np.ndarray:
        """The observations as handed out: encoded (a new array), or a copy of the raw ones (which the env keeps)."""
        return observation.copy() if self.encoder is None else self.encoder.encode(observation)

    def _indices(self, indices: VecEnvIndices) -> Iterable[int]:
        return vec_env_indices(indices, self.num_envs)

    def __repr__(self) -> str:
        return f"SelfPlayVecEnv({self.env_id!r}, n_envs={self.num_envs}, opponents={self.member_names()})"


def _is_self(member: Any) -> bool:
    return isinstance(member, str) and member == SELF


class PoolRatings:
    """Live Bradley-Terry ratings of the learner and its opponents, by openskill's ``BradleyTerryFull``.

    Each game updates the learner's rating and its opponent's (a win, a loss or a draw). Games against
    ``"self"`` (the learner's own live policy) say nothing about strength and are not rated. Ratings are on
    an Elo-like scale: ``mu`` (starting at 25) and its uncertainty ``sigma``.

    Args:
        learner: The learner's name in the ratings.
    """

    def __init__(self, learner: str = "learner") -> None:
        from openskill.models import BradleyTerryFull

        self.model = BradleyTerryFull()
        self.learner = learner
        self.players: dict[str, Any] = {learner: self.model.rating(name=learner)}
        self.games: dict[str, list[float]] = {}

    def rating(self, name: str) -> Any:
        """The openskill rating of ``name`` (created at the prior when first seen)."""
        if name not in self.players:
            self.players[name] = self.model.rating(name=name)
        return self.players[name]

    def record(self, opponent: str, score: float) -> None:
        """One game of the learner against ``opponent``: the learner's score 1, 0.5 or 0."""
        if opponent == SELF:
            return
        self.games.setdefault(opponent, []).append(score)
        learner, other = self.rating(self.learner), self.rating(opponent)
        ranks = [0, 0] if score == 0.5 else ([0, 1] if score > 0.5 else [1, 0])
        (learner,), (other,) = self.model.rate([[learner], [other]], ranks=ranks)
        self.players[self.learner], self.players[opponent] = learner, other

    def add_player(self, name: str, like: str | None = None) -> None:
        """Adds ``name`` with the rating of ``like`` (a snapshot starts where the learner stands)."""
        source = self.rating(like) if like is not None else None
        if source is None:
            self.players[name] = self.model.rating(name=name)
        else:
            self.players[name] = self.model.rating(mu=source.mu, sigma=source.sigma, name=name)

    def table(self) -> dict[str, tuple[float, float]]:
        """``{name: (mu, sigma)}`` of every rated player."""
        return {name: (float(r.mu), float(r.sigma)) for name, r in self.players.items()}

    def score(self, opponent: str, last: int | None = None) -> float:
        """The learner's mean score against ``opponent`` (over its ``last`` games), or NaN before any."""
        games = self.games.get(opponent, [])
        if last is not None:
            games = games[-last:]
        return float(np.mean(games)) if games else float("nan")
