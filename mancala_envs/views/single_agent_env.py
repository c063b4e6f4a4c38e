"""The single-agent Gymnasium view: one learner against a pluggable opponent.

:class:`SingleAgentEnv` wraps a game's PettingZoo AEC environment. The learner
plays one seat; the opponent (see :mod:`mancala_envs.views.opponents`) plays the
other, inside :meth:`SingleAgentEnv.step` and :meth:`SingleAgentEnv.reset`, until
it is the learner's turn again or the game is over. Omweso's mid-turn choices
stay with the player who faces them, so a learner's decision point comes back to
the learner and an opponent's is answered by the opponent.

================  =============================================================
Observation       The learner's egocentric int32 vector (the AEC ``observation``
                  entry, the game's documented index table); with ``encoding=``
                  (``"flat"``, ``{"name": "one_hot", "cap": 8}``...), the float32
                  features of that encoding of :mod:`mancala_envs.wrappers.encodings`,
                  as :class:`~mancala_envs.views.vector_env.MancalaVectorEnv` gives them
Action            ``Discrete(n_actions)`` of the game
Action mask       ``action_masks()`` (bool, for sb3-contrib's MaskablePPO, also
                  through ``SubprocVecEnv``) and ``info["action_mask"]`` (int8)
Reward            The learner's own reward, 0 until the end, then +1 / -1 / 0
                  (``reward_mode="win_loss"``) or the match-point difference;
                  also when the opponent's move ends the game
Seat              Drawn each episode from the env's seeded generator, or fixed
                  with ``learner_seat``
================  =============================================================

Illegal actions (what Gymnasium's and SB3's ``check_env`` send, since they sample
the action space without the mask): with ``illegal_action="penalty"`` (default)
the episode terminates at once with reward -1 and ``info["illegal_action"] = True``
(and, as at every end, the game's facts: ``winner`` the opponent, ``end_reason`` ``"illegal_action"``),
and the board is not changed; with ``"raise"`` an
:class:`~mancala_envs.common.errors.IllegalActionError` is raised and nothing changes.

``encoding=`` is what ``gymnasium.make(id, encoding=...)`` and
``gymnasium.make_vec(id, num_envs, vectorization_mode="sync", encoding=...)`` pass on, so one
SingleAgentEnv per game (any opponent) and the compiled vector env (``make_vec``'s default mode)
give the same encoded observations. The wrappers of :mod:`mancala_envs.wrappers`
(``GymFlattenObservation``... ``GymStackObservation``) apply the same encoders to a raw env.

An opponent that raises (a user's callable returning an illegal move, say) ends the episode:
the error propagates from ``step``/``reset`` and the env must be reset, so the learner is never
handed the opponent's seat.

Example:
    >>> from mancala_envs.views.single_agent_env import SingleAgentEnv
    >>> env = SingleAgentEnv("ouril_v0", opponent="greedy", learner_seat=0)
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, info["action_mask"].tolist()
    ((17,), [1, 1, 1, 1, 1, 1])
    >>> observation, reward, terminated, truncated, info = env.step(5)
    >>> reward, terminated
    (0.0, False)
    >>> SingleAgentEnv("ouril_v0", encoding={"name": "one_hot", "cap": 8}).observation_space
    Box(0.0, 1.0, (113,), float32)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from mancala_envs.agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, RandomAgent
from mancala_envs.algorithms.tree_search import ALPHABETA, GREEDY, MCTS, RANDOM, UCT_C, opponent_kinds, opponent_turn
from mancala_envs.common.errors import GameOverError, IllegalActionError
from mancala_envs.common.validation import check_action, check_seed
from mancala_envs.envs.aec_env import MancalaEnv
from mancala_envs.envs.learner_loop import MAX_OPENINGS, OPENINGS_REFUSAL
from mancala_envs.envs.registration import make
from mancala_envs.views.opponents import AgentOpponent, Opponent, OpponentPool, OpponentSpec, make_opponent

__all__ = ["ILLEGAL_ACTION_POLICIES", "SingleAgentEnv"]

ILLEGAL_ACTION_POLICIES = ("penalty", "raise")
AGENTS = ("player_0", "player_1")
SEED_BOUND = 2**31 - 1


class SingleAgentEnv(gymnasium.Env):
    """One learner against an opponent, as a Gymnasium environment.

    Args:
        env_id: A registered game or variant (``"ouril_v0"``, ``"mancala/omweso-two-each-v0"``...).
        opponent: Who plays the other seat (see :func:`~mancala_envs.views.opponents.make_opponent`):
            a baseline name, ``"model:path.zip"``, an agent, a callable
            ``policy(observation, action_mask) -> int``, or a list (one drawn per episode).
        learner_seat: ``None`` (default): drawn at each reset; ``0`` or ``1``: always that seat.
        illegal_action: ``"penalty"`` (default) or ``"raise"``; see the module docstring.
        render_mode: ``None``, ``"ansi"`` (the text board), ``"rgb_array"`` (the picture of the
            board as an ``(H, W, 3)`` ``uint8`` array, for ``RecordVideo``), ``"svg"`` (the board as an
            ``<svg>`` string) or ``"human"`` (the picture in a window, shown after every ply of either
            side); see :class:`~mancala_envs.envs.aec_env.MancalaEnv`.
        encoding: ``None`` or ``"raw"`` (default): the raw int32 observation; or an encoding of
            :mod:`mancala_envs.wrappers.encodings` by name (``"flat"``, ``"one_hot"``, ``"thermometer"``,
            ``"planes"``) or as a dict with its options (``{"name": "one_hot", "cap": 8}``), as
            :class:`~mancala_envs.views.vector_env.MancalaVectorEnv` and ``apply_wrappers`` take it: the observation
            is then the encoder's float32 features, and the observation space the encoder's.
        **options: Game options and AEC options (``first_player``, ``reward_mode``), as for
            :func:`mancala_envs.make`.

    Attributes:
        encoder: The :class:`~mancala_envs.wrappers.encodings.ObservationEncoder` in use, or ``None`` (raw).

    Raises:
        ValueError: an unknown id, opponent name, seat, policy or encoding (``"stack"`` included: wrap the
            env in ``GymStackObservation`` to stack); invalid game or encoding options.
        TypeError: an option of the wrong type, or an opponent or encoding of an unusable kind.
    """

    # an instance attribute in Gymnasium's Env (each env may set its own), so not a ClassVar here
    metadata = {"render_modes": ["ansi", "human", "rgb_array", "svg"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        env_id: str = "ouril_v0",
        opponent: OpponentSpec = "random",
        learner_seat: int | None = None,
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        encoding: str | Mapping[str, Any] | None = None,
        **options: Any,
    ) -> None:
        if learner_seat is not None and (isinstance(learner_seat, bool) or learner_seat not in (0, 1)):
            raise ValueError(f"learner_seat must be 0, 1 or None (drawn each episode); got {learner_seat!r}.")
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTION_POLICIES)} (got {illegal_action!r}).")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']} (got {render_mode!r})."
            )
        self.env_id = env_id
        self.aec_env: MancalaEnv = make(env_id, render_mode=render_mode, illegal_action="raise", **options)
        self.game = self.aec_env.game
        self.learner_seat = learner_seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self._opponent_spec = opponent
        self._opponents = make_opponent(opponent)
        self.opponent: Opponent = (
            self._opponents.members[0] if isinstance(self._opponents, OpponentPool) else self._opponents
        )
        self.encoding: str | Mapping[str, Any] = "raw" if encoding is None else encoding
        from mancala_envs.wrappers.encodings import env_encoder  # the encoders load only when an env is built

        self.encoder = env_encoder(encoding, self.game)
        if self.encoder is None:
            self.observation_space = cast(spaces.Dict, self.aec_env.observation_space(AGENTS[0]))["observation"]
        else:
            self.observation_space = self.encoder.space
        self.action_space = spaces.Discrete(self.game.n_actions)
        self.seat = 0 if learner_seat is None else learner_seat
        self.learner = AGENTS[self.seat]
        self._n_actions = self.game.n_actions
        self._over = True
        self._has_reset = False
        self._compiled: tuple[Any, np.ndarray] | None = None  # the compiled opponent's kernel and settings
        self._words = np.ones(4, np.int64)  # the compiled opponent's generator, seeded at each reset
        self._trial = np.empty(self.game.state_size, np.int64)  # the greedy rule's scratch state

    # --- opponents ------------------------------------------------------------------
    def set_opponent(self, opponent: OpponentSpec) -> None:
        """Replaces the opponent from the next episode on (self-play refreshes call it via ``env_method``).

        Raises:
            TypeError / ValueError: as :func:`~mancala_envs.views.opponents.make_opponent`; the env is unchanged.
        """
        built = make_opponent(opponent)
        built.reseed(int(self.np_random.integers(SEED_BOUND)))
        self._opponent_spec = opponent
        self._opponents = built

    @property
    def opponent_spec(self) -> OpponentSpec:
        """The opponent as given to the constructor or to :meth:`set_opponent` (a name, an agent, a list)."""
        return self._opponent_spec

    @property
    def opponents(self) -> Opponent | OpponentPool:
        """The built opponent, or the pool each episode draws its opponent from."""
        return self._opponents

    # --- inspection -----------------------------------------------------------------
    @property
    def has_reset(self) -> bool:
        """Whether :meth:`reset` has been called (``step`` needs it)."""
        return self._has_reset

    @property
    def episode_over(self) -> bool:
        """Whether the episode has ended (``True`` before the first reset too): the next call must be ``reset``."""
        return self._over

    @property
    def generator_state(self) -> Mapping[str, Any] | None:
        """The env's random generator's state, ``None`` while it has none (reading ``np_random`` would create
        one)."""
        return None if self._np_random is None else self._np_random.bit_generator.state

    # --- Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts an episode: draws the seat and the opponent, then lets the opponent move first if it starts.

        Args:
            seed: Seeds the env's generator, which draws the seat, the opponent of a pool, the AEC env's
                first player and the opponents' own generators.
            options: Passed to the AEC env's ``reset`` (a starting ``position`` or ``board``...).

        Raises:
            TypeError: a seed that is neither ``None`` nor an integer (a bool, a float, a string); numpy integers
                are integers (:func:`~mancala_envs.common.validation.check_seed`, as every env checks a seed).
            ValueError: a negative seed, or a bad position in ``options``: the env is unchanged (its generator,
                seat, opponent and game). A position whose game ends before the learner's first move is refused
                too, after the opponent's moves: that episode is over; reset with another position. A new game
                whose opening ends it so is played again instead (on small Kalah boards the first player's turn
                may end the game), up to ``MAX_OPENINGS`` games in a row: then the learner never moves
                (:data:`~mancala_envs.envs.learner_loop.OPENINGS_REFUSAL` says what to change).
            RuntimeError: ``render_mode="human"`` and SDL cannot open the display that is set (the window opens
                here, before anything changes: the env is as it was).
        """
        seed = check_seed(seed)
        self.aec_env.open_window()  # render_mode="human": a display that cannot be opened is refused before any change
        # Nothing changes until the AEC env has accepted the options (it refuses a bad position unchanged): the
        # draws come from the new generator, or from a copy of the current one while options may be refused, and
        # are kept only then.
        rng_seed: int | None
        if seed is not None:
            rng, rng_seed = seeding.np_random(seed)
        else:
            rng, rng_seed = self.np_random, self._np_random_seed
            if options is not None:
                rng = copy.deepcopy(rng)
        opponent_seed = aec_seed = None  # unseeded resets continue the AEC env's generator (a new one costs ~50 us)
        if seed is not None:
            opponent_seed = int(rng.integers(SEED_BOUND))
            aec_seed = int(rng.integers(SEED_BOUND))
        for opening in range(MAX_OPENINGS):
            # A new game whose opening ends it before the learner's first move is played again, with the seat,
            # opponent and first player drawn anew (as the vector envs' learner loop does); a given position is not.
            seat = int(rng.integers(2)) if self.learner_seat is None else self.learner_seat
            opponent = self._opponents.draw(rng) if isinstance(self._opponents, OpponentPool) else self._opponents
            self.aec_env.reset(seed=aec_seed if opening == 0 else None, options=options)
            if opening == 0:
                self._np_random, self._np_random_seed = rng, rng_seed
                if opponent_seed is not None:
                    self._opponents.reseed(opponent_seed)
            self.seat, self.learner, self.opponent = seat, AGENTS[seat], opponent
            self._compiled = self._compiled_opponent()
            self._has_reset = True
            self._over = False
            self._play_opponent_or_end()
            if not self._over:
                break
            if self.aec_env.asks_for_position(options):
                raise ValueError(
                    "the game ended before the learner's first move; start from a position in which the learner moves."
                )
        else:
            raise ValueError(OPENINGS_REFUSAL)
        observation, mask = self._observe()
        return observation, self._info(mask)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Plays the learner's action, then the opponent's moves until the learner is to move again.

        Raises:
            RuntimeError: ``step`` before ``reset``.
            GameOverError: ``step`` after the episode ended (call ``reset``).
            TypeError / ValueError: the action is not an integer in ``0 .. n_actions - 1``.
            IllegalActionError: an illegal action with ``illegal_action="raise"``.
        """
        if not self._has_reset:
            raise RuntimeError("step() was called before reset(); call env.reset() first.")
        if self._over:
            raise GameOverError("step() was called after the episode ended; call reset() to start a new one.")
        action = self._check_action(action)
        raw = self.aec_env
        if not (raw.legal_bits >> action) & 1:
            return self._illegal(action)
        if self._compiled is not None:
            self._play_turn_compiled(action)
        else:
            raw.step(action)
        if raw.agent_selection != self.learner:
            self._play_opponent_or_end()
        observation, mask = self._observe()
        reward = float(raw.cumulative_reward(self.learner))
        terminated = bool(raw.terminations[self.learner])
        truncated = bool(raw.truncations[self.learner])
        self._over = terminated or truncated
        info = self._final_info(mask) if self._over else self._info(mask)
        return observation, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all False once the episode is over)."""
        if not self._has_reset or self._over:
            return np.zeros(self._n_actions, dtype=bool)
        return self._mask.view(bool).copy()

    def render(self) -> str | np.ndarray | None:
        """The board as text (``"ansi"``), as a picture (``"rgb_array"``) or in a window (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() was called without a render_mode; pass render_mode='ansi', 'rgb_array', 'svg' or 'human'."
            )
            return None
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()

    # --- helpers ---------------------------------------------------------------------
    def _play_opponent_or_end(self) -> None:
        """:meth:`_play_opponent`; if the opponent fails (raises), the episode is over and the error propagates,
        so that the learner is never handed the opponent's seat."""
        try:
            self._play_opponent()
        except BaseException:
            self._over = True
            raise

    def _play_opponent(self) -> None:
        """The opponent moves until the learner is to move or the game is over.

        A baseline or search agent plays in compiled code (one call for all its plies, drawing from a
        generator seeded by its own); every other opponent goes through the AEC env's ``step``.
        """
        raw = self.aec_env
        opponent = self.opponent
        other = AGENTS[1 - self.seat]
        while raw.agents and raw.agent_selection == other and not (raw.terminations[other] or raw.truncations[other]):
            if self._compiled is not None:
                _, plies, action = self._run_compiled(-1)
                if plies:
                    raw.commit_plies(1 - self.seat, 1 - self.seat, action)
                    continue
            raw.step(opponent.act(raw))
        self._over = not raw.agents or raw.terminations[self.learner] or raw.truncations[self.learner]

    def _compiled_opponent(self) -> tuple[Any, np.ndarray] | None:
        """The kernel and settings of the opponent when it can play in compiled code: a baseline or search
        agent (``random``, ``greedy``, ``alphabeta:D``, ``mcts:N`` with the default constant), while no
        recorder watches single plies and no window shows them; else ``None``. Its generator is seeded
        from the agent's own here, once per episode."""
        if not isinstance(self.opponent, AgentOpponent) or self.aec_env.ply_observers or self.render_mode == "human":
            return None
        agent = self.opponent.agent
        kind = type(agent)
        if kind is RandomAgent:
            found = (RANDOM, 0)
        elif kind is GreedyAgent:
            found = (GREEDY, 0)
        elif kind is AlphaBetaAgent and agent.budget is None:  # a time budget is not a compiled opponent's
            found = (ALPHABETA, agent.depth)
        elif kind is MCTSAgent and agent.c == UCT_C:
            found = (MCTS, agent.simulations)
        else:
            return None
        game = self.game
        settings = np.array([game.history_start, game.n_actions, found[1], game.max_episode_plies, found[0]], np.int64)
        self._words = agent.rng.integers(1, 1 << 32, size=4, dtype=np.int64)
        return self.game.compiled(opponent_turn, OPPONENT_KINDS=opponent_kinds([found[0]])), settings

    def _run_compiled(self, action: int) -> tuple[int, int, int]:
        """``action`` (-1: none) and the compiled opponent's replies."""
        assert self._compiled is not None, "called only with a compiled opponent"
        kernel, settings = self._compiled
        return self.aec_env.run_kernel(kernel, action, settings, self._words, self._trial)

    def _play_turn_compiled(self, action: int) -> None:
        """The learner's (legal) action and the compiled opponent's replies in one compiled call; the AEC env's
        bookkeeping is then settled as its ``step`` would have left it after the last of these plies."""
        raw = self.aec_env
        _, plies, reply = self._run_compiled(action)
        if plies:
            raw.commit_plies(self.seat, 1 - self.seat, reply)
        else:
            raw.commit_plies(self.seat, self.seat, action)

    def _illegal(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """An illegal learner action: raises, or ends the episode with -1 and the board unchanged."""
        legal = [a for a in range(self._n_actions) if (self.aec_env.legal_bits >> a) & 1]
        if self.illegal_action == "raise":
            raise IllegalActionError(
                f"action {action} is illegal for the learner here; legal actions are {legal}. "
                "Use env.action_masks() or info['action_mask'] to choose, or illegal_action='penalty'."
            )
        self.aec_env.forfeit(self.learner)  # the game ends as the AEC env's "penalty" ends it; the board stays
        self._over = True
        observation, mask = self._observe()
        info = self._final_info(mask)
        info["illegal_action"] = True
        return observation, -1.0, True, False, info

    def _observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's observation (encoded when ``encoding`` asks for it) and mask."""
        observation, mask = self.aec_env.observe_player(self.seat)
        if self._over:
            mask = np.zeros(self._n_actions, dtype=np.int8)
        self._mask = mask  # what action_masks() reads until the next step or reset
        if self.encoder is not None:
            observation = self.encoder.encode(observation)
        return observation, mask

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        """The step's info; its mask is a copy of the one :meth:`action_masks` reads (the caller's own)."""
        return {"action_mask": mask.copy(), "learner_seat": self.seat}

    def _final_info(self, mask: np.ndarray) -> dict[str, Any]:
        """The info of an episode's last step: the AEC env's facts of the ended game added (copies: the caller's
        own)."""
        info = self._info(mask)
        info.update(self.aec_env.new_info())  # the learner's info, built anew: nothing shared with aec_env.infos
        if info.get("winner", 0) is None:
            # -1 for a draw, not None: vector envs stack info values into typed arrays
            info["winner"] = -1
        return info

    def _check_action(self, action: object) -> int:
        if type(action) is int and 0 <= action < self._n_actions:
            return action
        return check_action(action, self._n_actions)

    def __repr__(self) -> str:
        encoding = "" if self.encoder is None else f", encoding={self.encoding!r}"
        return (
            f"SingleAgentEnv({self.env_id!r}, opponent={self._opponent_spec!r}, learner_seat={self.learner_seat!r}"
            f"{encoding})"
        )
