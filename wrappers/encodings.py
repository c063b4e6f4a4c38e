"""Observation encodings: one implementation of each, shared by the AEC and the Gymnasium wrappers
and by the ``encoding=`` option of the single-agent env and the vector envs.

An encoder is built once from a game (``env.unwrapped.game``) and turns the game's raw
egocentric int32 observation vector (the AEC ``observation`` entry, the single-agent
env's observation) into float32 features for a network. ``encode`` is plain numpy with
index arrays computed in ``__init__``: no Python loop per pit per call, and a batch of
observations (``(num_envs, obs_size)``, what a vector env steps) is encoded in one call.
:func:`encoder_from_spec` builds an encoder from a spec as ``apply_wrappers`` and
``encoding=`` take it (``"flat"``, ``{"name": "one_hot", "cap": 8}``); :func:`encodings_of_space`
goes the other way, from a space (a saved policy's) to the encodings that give it.

=================  ==========================================  =================  ===========
Encoder            Output                                      Ouril (2x6)        Omweso (4x8)
=================  ==========================================  =================  ===========
``flat``           the raw entries, divided by their upper     ``(17,)``          ``(48,)``
                   bound (``normalize=True``) or just cast
``one_hot``        each pit: ``cap + 1`` slots (0 .. cap-1,    ``(161,)``         ``(432,)``
                   last "cap or more"); other entries in [0,1]
``thermometer``    each pit: ``cap`` entries, entry i is       ``(149,)``         ``(400,)``
                   ``count > i``; other entries in [0,1]
``planes``         ``(C, rows, cols)`` planes for CNNs         ``(19, 2, 6)``     ``(30, 4, 8)``
=================  ==========================================  =================  ===========

Shapes are for the default ``cap`` of 12 (:data:`DEFAULT_CAP`). ``cap`` goes from 1 to :func:`max_cap`,
the most seeds a pit can hold (the game's seed total); a larger one raises ``ValueError`` naming the
limit, wherever it comes from (``encoding=``, a wrapper, a config, a weights file). Every encoder except
``flat`` with ``normalize=False`` gives values in [0, 1]; their spaces are ``Box(0, 1)``.

"Pits" are the entries named ``own_pit_<k>`` and ``opponent_pit_<k>`` in
``game.observation_names()``; per-pit flags such as Rio Kadalis's ``own_pit_3_closed`` are
not pits. Every other entry (stores, ``is_to_move``, ``must_feed``, ``ply``, Omweso's phase
and pending-choice entries, match points...) is a *scalar*, normalised as
``(value - low) / (high - low)`` with the game's :meth:`observation_bounds`.

Planes geometry (the learner's pits at the bottom, as the learner sees the board)::

    two-row games (n pits per row)          Omweso (16 pits per player, own frame)
    row 0: opp n-1 ... opp 1  opp 0          row 0: opp 7  ... opp 0     (opponent's outer row)
    row 1: own 0   ... own n-2 own n-1       row 1: opp 8  ... opp 15    (opponent's inner row)
                                             row 2: own 15 ... own 8     (own inner row)
                                             row 3: own 0  ... own 7     (own outer row)

So a column holds pits that face each other, and sowing runs counter-clockwise on screen.
The geometry is the game's declaration, :meth:`~mancala_envs.games.game.Game.board_rows` (the rows the
picture and the text board draw): the learner's pit ``k`` sits where player 0's pit ``k`` (global pit
``k``) is drawn, the opponent's where player 1's (global pit ``n + k``, ``n`` pits a player) is.

Planes channels, in order (``PlanesEncoder.channel_names``):

1. ``seeds>0`` .. ``seeds>{cap-1}``: thermometer planes of the seed counts;
2. ``seeds``: the count divided by the pit's upper bound;
3. ``own_pits``: 1 on the learner's pits, 0 on the opponent's;
4. one plane per per-pit flag (Rio Kadalis match: ``closed``), each pit's flag in its cell;
5. one constant plane per scalar, in the order of ``game.observation_names()``.

Example:
    >>> import mancala_envs
    >>> from mancala_envs.wrappers.encodings import make_encoder
    >>> env = mancala_envs.make("ouril_v0", first_player=0)
    >>> env.reset(seed=0)
    >>> raw = env.observe("player_0")["observation"]
    >>> encoder = make_encoder("planes", env.game, cap=4)
    >>> encoder.space.shape, encoder.channel_names[:6]
    ((11, 2, 6), ['seeds>0', 'seeds>1', 'seeds>2', 'seeds>3', 'seeds', 'own_pits'])
    >>> planes = encoder.encode(raw)
    >>> planes[3].tolist()  # count > 3: every pit holds 4
    [[1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]
    >>> planes[5].tolist()  # own_pits: the bottom row
    [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from mancala_envs.games.game import Game

__all__ = [
    "DEFAULT_CAP",
    "DEFAULT_STACK",
    "ENCODERS",
    "ENCODINGS",
    "MAX_STACK",
    "RAW",
    "FlatEncoder",
    "ObservationEncoder",
    "ObservationStack",
    "OneHotEncoder",
    "PlanesEncoder",
    "ThermometerEncoder",
    "board_cells",
    "check_stack_size",
    "encoder_class",
    "encoder_from_spec",
    "encodings_of_space",
    "env_encoder",
    "make_encoder",
    "max_cap",
    "parse_encoding",
]

#: Default seed-count cap of the one-hot, thermometer and planes encodings: 12 distinguishes
#: every count up to 11 and lumps "12 or more" together. At 12 seeds a pit laps the whole
#: board of the 2x6 games, and most pits hold fewer in play.
DEFAULT_CAP = 12
#: Default number of stacked observations (``"stack"`` without ``k``).
DEFAULT_STACK = 4
#: The most observations a stack holds (``"stack"``'s ``k``): more than a game's default ply cap (1000), so
#: a stack this long already reaches back to the start of any episode.
MAX_STACK = 1024
#: The ``encoding=`` of the envs that leaves the observation as the game's raw int32 vector (as ``None`` does).
RAW = "raw"

_PIT = re.compile(r"(own|opponent)_pit_(\d+)")
_PIT_FLAG = re.compile(r"(own|opponent)_pit_(\d+)_(\w+)")


def _check_cap(cap: object) -> int:
    if isinstance(cap, (bool, np.bool_)) or not isinstance(cap, (int, np.integer)):
        raise TypeError(f"cap must be an int >= 1, the seed count from which pits look alike (got {cap!r}).")
    if cap < 1:
        raise ValueError(f"cap={cap} is too small; use an int >= 1 (the default is {DEFAULT_CAP}).")
    return int(cap)


def max_cap(game: Game) -> int:
    """The largest ``cap`` of the one-hot, thermometer and planes encodings of ``game``: the most seeds a pit
    can hold (the upper bound of the pits in the observation, the game's seed total), or :data:`DEFAULT_CAP`
    if that is fewer. A larger cap would only add slots that no pit ever reaches.

    Example:
        >>> import mancala_envs
        >>> max_cap(mancala_envs.make("kalah_v0").game)
        48
    """
    return max(_Layout(game).max_count, DEFAULT_CAP)


def _check_cap_for(game: Game, cap: object) -> int:
    """``cap`` as an int, checked as an option (:func:`_check_cap`) and against :func:`max_cap` of ``game``,
    before anything of its size is built.

    Raises:
        TypeError: not an int.
        ValueError: below 1, or above :func:`max_cap` (the message names the limit).
    """
    cap = _check_cap(cap)
    limit = max_cap(game)
    if cap > limit:
        raise ValueError(
            f"cap={cap} is too large for {getattr(game, 'env_name', type(game).__name__)}: a pit holds at most "
            f"{limit} seeds, so use an int from 1 to {limit} (the default is {DEFAULT_CAP})."
        )
    return cap


def _check_normalize(normalize: object) -> bool:
    if not isinstance(normalize, bool):
        raise TypeError(f"normalize must be True or False (got {normalize!r}).")
    return normalize


def check_stack_size(k: object) -> int:
    """Returns ``k`` as an int, or raises unless it is an int from 1 to :data:`MAX_STACK` (the number of stacked
    observations).

    Raises:
        TypeError: ``k`` is not an int.
        ValueError: ``k`` is below 1 or above :data:`MAX_STACK`.
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an int >= 1, the number of observations to stack, at most {MAX_STACK} (got {k!r}).")
    if k < 1:
        raise ValueError(f"k={k} is too small; stack at least 1 observation (the default is {DEFAULT_STACK}).")
    if k > MAX_STACK:
        raise ValueError(
            f"k={k} is too large; stack at most MAX_STACK = {MAX_STACK} observations (the default is {DEFAULT_STACK})."
        )
    return int(k)


def _as_index(indices: np.ndarray) -> slice | np.ndarray:
    """A slice for contiguous indices (a view, cheaper than fancy indexing), else the indices."""
    if len(indices) and np.array_equal(indices, np.arange(indices[0], indices[0] + len(indices))):
        return slice(int(indices[0]), int(indices[0]) + len(indices))
    return indices


class _Layout:
    """Where the pits, per-pit flags and scalars sit in a game's observation vector."""

    def __init__(self, game: Game) -> None:
        names = game.observation_names()
        low, high = game.observation_bounds()
        self.names: list[str] = list(names)
        self.low = np.asarray(low, dtype=np.float32)
        self.high = np.asarray(high, dtype=np.float32)
        span = np.asarray(high, dtype=np.float64) - np.asarray(low, dtype=np.float64)
        self.span = np.where(span > 0, span, 1.0).astype(np.float32)
        pits: dict[tuple[str, int], int] = {}
        flags: dict[tuple[str, int, str], int] = {}
        scalars: list[int] = []
        for index, name in enumerate(names):
            if (match := _PIT.fullmatch(name)) is not None:
                pits[(match[1], int(match[2]))] = index
            elif (match := _PIT_FLAG.fullmatch(name)) is not None:
                flags[(match[1], int(match[2]), match[3])] = index
            else:
                scalars.append(index)
        own = sorted(k for side, k in pits if side == "own")
        opponent = sorted(k for side, k in pits if side == "opponent")
        n = len(own)
        if n == 0 or own != list(range(n)) or opponent != own:
            raise ValueError(
                f"{type(game).__name__}'s observation must name own_pit_0..own_pit_<n-1> and "
                f"opponent_pit_0..opponent_pit_<n-1>; it names {names}."
            )
        #: pits per player
        self.n = n
        in_order = sorted(pits.items(), key=lambda item: item[1])
        #: observation indices of the pits, in observation order
        self.pits = np.array([index for _, index in in_order], dtype=np.intp)
        #: (side, k) of each pit in ``self.pits``
        self.pit_keys = [key for key, _ in in_order]
        if (self.low[self.pits] != 0).any():
            raise ValueError(f"{type(game).__name__}'s pit counts must have a lower bound of 0.")
        #: ``self.pits`` as a slice when the pits are contiguous (faster to read)
        self.pit_index = _as_index(self.pits)
        #: the largest count a pit can hold
        self.max_count = int(self.high[self.pits].max())
        self.flags = flags
        self.scalars = np.array(scalars, dtype=np.intp)

    def count_table(self, rows: np.ndarray, cap: int) -> np.ndarray:
        """``rows`` (one per count 0..cap) extended to every count 0..max_count, counts >= cap
        reading row ``cap``: looking a count up replaces clipping it."""
        return rows[np.minimum(np.arange(self.max_count + 1), cap)].astype(np.float32)


def board_cells(game: Game, pits_per_player: int) -> tuple[tuple[int, int], dict[tuple[str, int], tuple[int, int]]]:
    """The board of the ``planes`` encoding: its ``(rows, columns)`` and the ``(row, column)`` of each pit
    ``("own" | "opponent", k)`` as the learner sees it (its own pits at the bottom).

    Both come from the game's declared rows, ``game.board_rows()`` (player 0's view, the far row first; the
    picture and the text board draw the same rows): the observation is egocentric, so the learner's pit ``k``
    is drawn where player 0's pit ``k`` (global pit ``k``) is, and the opponent's pit ``k`` where player 1's
    (global pit ``pits_per_player + k``) is.

    Raises:
        ValueError: the rows are not a full grid holding each of the ``2 * pits_per_player`` pits once.

    Example:
        >>> import mancala_envs
        >>> shape, cells = board_cells(mancala_envs.make("omweso_v0").game, 16)
        >>> shape, cells["own", 0], cells["own", 8], cells["opponent", 0]
        ((4, 8), (3, 0), (2, 7), (0, 7))
    """
    rows = [list(row) for row in game.board_rows()]
    columns = max((len(row) for row in rows), default=0)
    where = {int(pit): (r, c) for r, row in enumerate(rows) for c, pit in enumerate(row)}
    if sorted(where) != list(range(2 * pits_per_player)) or any(len(row) != columns for row in rows):
        raise ValueError(
            f"{type(game).__name__}.board_rows() must give rows of equal length that hold each of the "
            f"{2 * pits_per_player} pits 0..{2 * pits_per_player - 1} once (got {rows}); declare the rows as the "
            "picture draws them, player 0's pits 0..n-1 and player 1's n..2n-1."
        )
    cells = {
        (side, k): where[k + offset]
        for side, offset in (("own", 0), ("opponent", pits_per_player))
        for k in range(pits_per_player)
    }
    return (len(rows), columns), cells


class ObservationEncoder:
    """Turns a game's raw egocentric int32 observation into float32 features.

    Subclasses set :attr:`space` and :attr:`names` (or ``channel_names``) in ``__init__`` and
    implement :meth:`encode`.

    Attributes:
        name: The encoding's name, as :func:`make_encoder` and ``apply_wrappers`` take it.
        options: The encoding's keyword options and their defaults.
        space: The float32 ``Box`` every encoded observation lies in.
        raw_size: The length of the raw observation vector.
    """

    name: ClassVar[str] = ""
    options: ClassVar[dict[str, Any]] = {}
    space: spaces.Box
    raw_size: int

    def __init__(self, game: Game) -> None:
        self._layout = _Layout(game)
        self.raw_size = len(self._layout.names)

    @classmethod
    def check_options(cls, **options: Any) -> dict[str, Any]:
        """Validates the encoding's options; returns them with the defaults filled in.

        Raises:
            TypeError: an unknown option, or an option of the wrong type.
            ValueError: an option out of range.
        """
        unknown = sorted(set(options) - set(cls.options))
        if unknown:
            raise TypeError(
                f"the {cls.name!r} encoding takes no option {unknown[0]!r}; its options are {sorted(cls.options)}."
            )
        checked = {**cls.options, **options}
        if "cap" in checked:
            checked["cap"] = _check_cap(checked["cap"])
        if "normalize" in checked:
            checked["normalize"] = _check_normalize(checked["normalize"])
        return checked

    @classmethod
    def options_for_space(cls, game: Game, space: spaces.Space[Any]) -> dict[str, Any] | None:
        """The options (all of them) with which this encoding of ``game`` has exactly the space ``space``,
        or ``None`` if no options give it.

        The size of the one-hot, thermometer and planes spaces grows with ``cap`` by a fixed step (one entry
        per pit for each count, or one plane), so ``cap`` is read off the space's first axis and the space
        built with it is compared with ``space``.
        """
        if not isinstance(space, spaces.Box):
            return None
        default = cls(game)
        step = default._cap_step()
        if step is None:
            return None
        shape, default_shape = space.shape, default.space.shape
        if len(shape) != len(default_shape) or shape[1:] != default_shape[1:]:
            return None
        extra, remainder = divmod(shape[0] - default_shape[0], step)
        cap = cls.options["cap"] + extra
        if remainder or not 1 <= cap <= max_cap(game):
            return None
        built = default if extra == 0 else cls(game, cap=cap)  # type: ignore[call-arg]  # cls takes cap
        return {"cap": cap} if built.space == space else None

    def _cap_step(self) -> int | None:
        """How many entries of the space's first axis one more ``cap`` adds (``None``: no ``cap``)."""
        return None

    def encode(self, observation: np.ndarray) -> np.ndarray:
        """Encodes a raw observation (or a batch of them, stacked along leading axes).

        Args:
            observation: The raw int32 vector of ``raw_size`` entries.

        Returns:
            A new float32 array of shape ``space.shape`` (after the leading batch axes).
        """
        raise NotImplementedError

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        return self.encode(observation)

    def check_raw_space(self, space: spaces.Space[Any], wrapper: str) -> None:
        """Raises ``TypeError`` unless ``space`` is the game's raw observation space (int32 ``Box``
        with the game's bounds), i.e. the observation below ``wrapper`` is neither encoded nor stacked."""
        layout = self._layout
        raw = (
            isinstance(space, spaces.Box)
            and space.dtype == np.int32
            and space.shape == (self.raw_size,)
            and np.array_equal(space.low, layout.low)
            and np.array_equal(space.high, layout.high)
        )
        if not raw:
            raise TypeError(
                f"{wrapper} encodes the game's raw int32 observation ({self.raw_size} entries), but the env it "
                f"wraps gives {space!r}, already encoded or stacked. Apply one encoding directly to the env, "
                f"then the stack on top (encoding first, then the stack)."
            )

    def _raw(self, observation: np.ndarray) -> np.ndarray:
        observation = np.asarray(observation)
        if observation.shape[-1:] != (self.raw_size,):
            raise ValueError(
                f"{type(self).__name__} encodes raw observations of {self.raw_size} entries "
                f"(got shape {observation.shape}); pass the env's raw 'observation' vector."
            )
        return observation

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={getattr(self, key)!r}" for key in self.options)
        return f"{type(self).__name__}({options}) -> {self.space}"


class FlatEncoder(ObservationEncoder):
    """The raw vector as float32, each entry optionally scaled to [0, 1].

    Args:
        game: The game (``env.unwrapped.game``).
        normalize: ``True`` (default): ``(value - low) / (high - low)`` with the game's bounds
            (the lows are 0, so each entry is divided by its upper bound); the space is
            ``Box(0, 1)``. ``False``: the values as they are, in ``Box(low, high)``.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers.encodings import FlatEncoder
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=0)
        >>> FlatEncoder(env.game).encode(env.observe("player_0")["observation"])[:7]
        array([0.08333334, 0.08333334, 0.08333334, 0.08333334, 0.08333334,
               0.08333334, 0.08333334], dtype=float32)
    """

    name = "flat"
    options: ClassVar[dict[str, Any]] = {"normalize": True}

    def __init__(self, game: Game, normalize: bool = True) -> None:
        self.normalize = self.check_options(normalize=normalize)["normalize"]
        super().__init__(game)
        layout = self._layout
        self.names = list(layout.names)
        self._zero_low = not np.any(layout.low)
        if self.normalize:
            self.space = spaces.Box(0.0, 1.0, shape=(self.raw_size,), dtype=np.float32)
        else:
            low, high = game.observation_bounds()
            self.space = spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)

    @classmethod
    def options_for_space(cls, game: Game, space: spaces.Space[Any]) -> dict[str, Any] | None:
        for normalize in (True, False):
            if cls(game, normalize=normalize).space == space:
                return {"normalize": normalize}
        return None

    def encode(self, observation: np.ndarray) -> np.ndarray:
        observation = self._raw(observation)
        encoded = observation.astype(np.float32)
        if self.normalize:
            if not self._zero_low:  # every low is 0 in the games of this library: one pass
                encoded -= self._layout.low
            encoded /= self._layout.span
        return encoded


class _PerPitEncoder(ObservationEncoder):
    """Each pit's count through a lookup table (one row per count 0..cap), then the other entries in [0, 1]."""

    def __init__(self, game: Game, cap: int, table: np.ndarray, slot_names: list[str]) -> None:
        self.cap = _check_cap_for(game, cap)
        super().__init__(game)
        layout = self._layout
        self._table = layout.count_table(table, self.cap)  # a row of slots per count 0..max_count
        slots = self._table.shape[1]
        self._others = np.setdiff1d(np.arange(self.raw_size), layout.pits)
        self._others_index = _as_index(self._others)
        self._others_low = layout.low[self._others]
        self._others_span = layout.span[self._others]
        self._pit_width = len(layout.pits) * slots
        size = self._pit_width + len(self._others)
        self.names = [f"{layout.names[pit]}{slot}" for pit in layout.pits for slot in slot_names]
        self.names += [layout.names[index] for index in self._others]
        self.space = spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32)

    def _cap_step(self) -> int:
        return len(self._layout.pits)  # one more slot per pit

    def encode(self, observation: np.ndarray) -> np.ndarray:
        observation = self._raw(observation)
        batch = observation.shape[:-1]
        counts = observation[..., self._layout.pit_index]
        out = np.empty(batch + self.space.shape, dtype=np.float32)
        out[..., : self._pit_width] = self._table[counts].reshape((*batch, self._pit_width))
        others = observation[..., self._others_index].astype(np.float32)
        out[..., self._pit_width :] = (others - self._others_low) / self._others_span
        return out


class OneHotEncoder(_PerPitEncoder):
    """Each pit's count as a one-hot of ``cap + 1`` slots; every other entry scaled to [0, 1].

    Slot ``i < cap`` is 1 when the pit holds exactly ``i`` seeds, slot ``cap`` when it holds
    ``cap`` or more. The pits come first, in the observation's order (own pits, then the
    opponent's), then the other entries in their order. ``names`` names each output entry
    (``"own_pit_0==3"``, ``"own_pit_0>=12"``...).

    Args:
        game: The game (``env.unwrapped.game``).
        cap: An int from 1 to :func:`max_cap` of the game (default :data:`DEFAULT_CAP` = 12).

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers.encodings import OneHotEncoder
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=0)
        >>> encoder = OneHotEncoder(env.game, cap=5)
        >>> encoder.space.shape
        (77,)
        >>> encoder.encode(env.observe("player_0")["observation"])[:6].tolist()  # own pit 0 holds 4
        [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    """

    name = "one_hot"
    options: ClassVar[dict[str, Any]] = {"cap": DEFAULT_CAP}

    def __init__(self, game: Game, cap: int = DEFAULT_CAP) -> None:
        cap = _check_cap_for(game, cap)  # before the table of cap + 1 rows is built
        slot_names = [f"=={i}" for i in range(cap)] + [f">={cap}"]
        super().__init__(game, cap, np.eye(cap + 1), slot_names)


class ThermometerEncoder(_PerPitEncoder):
    """Each pit's count ``c`` as ``cap`` entries, entry ``i`` = 1 if ``c > i``; other entries scaled to [0, 1].

    A pit with ``cap`` or more seeds reads all ones. Neighbouring counts share all but one
    entry, which suits counts better than one-hot. The order is as in :class:`OneHotEncoder`;
    ``names`` reads ``"own_pit_0>0"`` .. ``"own_pit_0>11"``.

    Args:
        game: The game (``env.unwrapped.game``).
        cap: An int from 1 to :func:`max_cap` of the game (default :data:`DEFAULT_CAP` = 12).

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers.encodings import ThermometerEncoder
        >>> env = mancala_envs.make("ouril_v0", first_player=0)
        >>> env.reset(seed=0)
        >>> encoder = ThermometerEncoder(env.game, cap=6)
        >>> encoder.encode(env.observe("player_0")["observation"])[:6].tolist()  # own pit 0 holds 4
        [1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    """

    name = "thermometer"
    options: ClassVar[dict[str, Any]] = {"cap": DEFAULT_CAP}

    def __init__(self, game: Game, cap: int = DEFAULT_CAP) -> None:
        cap = _check_cap_for(game, cap)  # before the table of cap + 1 rows is built
        table = np.arange(cap + 1)[:, None] > np.arange(cap)[None, :]
        super().__init__(game, cap, table, [f">{i}" for i in range(cap)])


class PlanesEncoder(ObservationEncoder):
    """Egocentric ``(C, rows, cols)`` float32 planes for convolutional networks.

    The learner's pits are at the bottom, on the board the game declares (:func:`board_cells`; the module
    docstring draws the two-row games' and Omweso's 4 x 8). ``channel_names`` lists the ``C`` channels in order:
    ``seeds>0`` .. ``seeds>{cap-1}`` (thermometer of the counts), ``seeds`` (the count over
    its upper bound), ``own_pits`` (1 on the learner's pits), one plane per per-pit flag
    (``closed`` in a Rio Kadalis match), then one constant plane per scalar entry, in the
    observation's order, scaled to [0, 1].

    Args:
        game: The game (``env.unwrapped.game``).
        cap: An int from 1 to :func:`max_cap` of the game (default :data:`DEFAULT_CAP` = 12), the number of
            thermometer planes.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers.encodings import PlanesEncoder
        >>> encoder = PlanesEncoder(mancala_envs.make("omweso_v0").game)
        >>> encoder.space.shape
        (30, 4, 8)
        >>> encoder.channel_names[12:16]
        ['seeds', 'own_pits', 'is_to_move', 'placement_phase']
    """

    name = "planes"
    options: ClassVar[dict[str, Any]] = {"cap": DEFAULT_CAP}

    def __init__(self, game: Game, cap: int = DEFAULT_CAP) -> None:
        self.cap = cap = _check_cap_for(game, cap)
        super().__init__(game)
        layout = self._layout
        (rows, cols), board = board_cells(game, layout.n)
        cells = rows * cols
        n_pits = len(layout.pits)
        # The source vector that every output cell is read from:
        # [thermometer of each pit (n_pits * cap) | every raw entry normalised (raw_size) | 0 | 1]
        normalized, zero, one = n_pits * cap, n_pits * cap + self.raw_size, n_pits * cap + self.raw_size + 1
        self._source_size = one + 1
        self._therm_width = n_pits * cap
        self._therm_table = layout.count_table(np.arange(cap + 1)[:, None] > np.arange(cap)[None, :], cap)
        flag_names = list(dict.fromkeys(flag for (_, _, flag), _ in sorted(layout.flags.items(), key=lambda kv: kv[1])))
        self.channel_names: list[str] = [f"seeds>{i}" for i in range(cap)] + ["seeds", "own_pits"]
        self.channel_names += flag_names + [layout.names[index] for index in layout.scalars]
        gather = np.full((len(self.channel_names), cells), zero, dtype=np.intp)
        for position, (side, k) in enumerate(layout.pit_keys):
            row, col = board[side, k]
            cell = row * cols + col
            gather[:cap, cell] = position * cap + np.arange(cap)
            gather[cap, cell] = normalized + layout.pits[position]
            gather[cap + 1, cell] = one if side == "own" else zero
            for channel, flag in enumerate(flag_names, start=cap + 2):
                index = layout.flags.get((side, k, flag))
                if index is not None:
                    gather[channel, cell] = normalized + index
        first_scalar = cap + 2 + len(flag_names)
        gather[first_scalar:, :] = (normalized + layout.scalars)[:, None]
        self._gather = gather.ravel()
        self.space = spaces.Box(0.0, 1.0, shape=(len(self.channel_names), rows, cols), dtype=np.float32)

    def _cap_step(self) -> int:
        return 1  # one more thermometer plane

    def encode(self, observation: np.ndarray) -> np.ndarray:
        observation = self._raw(observation)
        batch = observation.shape[:-1]
        layout = self._layout
        source = np.empty((*batch, self._source_size), dtype=np.float32)
        counts = observation[..., layout.pit_index]
        source[..., : self._therm_width] = self._therm_table[counts].reshape((*batch, self._therm_width))
        source[..., self._therm_width : self._therm_width + self.raw_size] = (
            observation.astype(np.float32) - layout.low
        ) / layout.span
        source[..., -2] = 0.0
        source[..., -1] = 1.0
        return source[..., self._gather].reshape(batch + self.space.shape)


#: The encoders by name.
ENCODERS: dict[str, type[ObservationEncoder]] = {
    encoder.name: encoder for encoder in (FlatEncoder, OneHotEncoder, ThermometerEncoder, PlanesEncoder)
}
#: The encoding names, as :func:`make_encoder` and ``apply_wrappers`` take them.
ENCODINGS: tuple[str, ...] = tuple(ENCODERS)


def make_encoder(name: str, game: Game, **options: Any) -> ObservationEncoder:
    """Builds the encoder called ``name`` for ``game``.

    Args:
        name: One of :data:`ENCODINGS`: ``"flat"``, ``"one_hot"``, ``"thermometer"``, ``"planes"``.
        game: The game (``env.unwrapped.game``).
        **options: The encoding's options: ``normalize`` for ``"flat"``, ``cap`` for the others.

    Raises:
        ValueError: an unknown name (the message lists the names), or an option out of range.
        TypeError: an option the encoding does not take, or of the wrong type.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers.encodings import make_encoder
        >>> make_encoder("one_hot", mancala_envs.make("urim_v0").game, cap=8).space.shape
        (113,)
    """
    encoder = encoder_class(name)
    encoder.check_options(**options)
    return encoder(game, **options)


def parse_encoding(spec: str | Mapping[str, Any], kind: str = "encoding") -> tuple[str, dict[str, Any]]:
    """The encoding's name and the options given with it, from a spec as ``encoding=`` and ``apply_wrappers``
    take it: a name (``"one_hot"``) or a dict naming one with its options (``{"name": "one_hot", "cap": 8}``).

    Only the form is checked here; :func:`make_encoder` checks the name and the options. ``kind`` names the
    spec in the messages (``apply_wrappers`` parses its wrapper specs here too, as ``"wrapper"``).

    Raises:
        TypeError: ``spec`` is neither a name nor a dict with a ``name``.

    Example:
        >>> parse_encoding({"name": "one_hot", "cap": 8})
        ('one_hot', {'cap': 8})
    """
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping):
        if "name" not in spec:
            raise TypeError(f"{kind} spec {dict(spec)!r} has no 'name'; write it as {{'name': 'one_hot', 'cap': 8}}.")
        return spec["name"], {key: value for key, value in spec.items() if key != "name"}
    what = "an encoding" if kind == "encoding" else f"a {kind} spec"
    raise TypeError(
        f"{what} must be a name such as 'one_hot' or a dict such as "
        f"{{'name': 'one_hot', 'cap': 8}} (got {type(spec).__name__})."
    )


def encoder_from_spec(spec: str | Mapping[str, Any], game: Game) -> ObservationEncoder:
    """Builds the encoder that ``spec`` names, for ``game``.

    The spec is written as ``apply_wrappers`` and the envs' ``encoding=`` take it: a name
    (``"one_hot"``) or a dict naming one with its options (``{"name": "one_hot", "cap": 8}``). The
    encoder's :meth:`~ObservationEncoder.encode` takes one raw observation or a batch of them, so the
    wrappers and the single-agent env (one observation) and the vector envs (a batch per step) share this
    one implementation.

    Raises:
        TypeError: ``spec`` is neither a name nor a dict with a ``name``; an option the encoding does not
            take, or of the wrong type.
        ValueError: an unknown encoding (the message lists them), or an option out of range.

    Example:
        >>> import mancala_envs
        >>> from mancala_envs.wrappers.encodings import encoder_from_spec
        >>> encoder = encoder_from_spec({"name": "thermometer", "cap": 4}, mancala_envs.make("ouril_v0").game)
        >>> encoder.encode(np.zeros((3, encoder.raw_size), np.int32)).shape  # a batch of three
        (3, 53)
    """
    name, options = parse_encoding(spec)
    return make_encoder(name, game, **options)


def env_encoder(encoding: str | Mapping[str, Any] | None, game: Game) -> ObservationEncoder | None:
    """The encoder that an env's ``encoding=`` option names, or ``None`` for the raw observation.

    What :class:`~mancala_envs.views.single_agent_env.SingleAgentEnv` builds from its ``encoding=``: ``None`` and
    :data:`RAW` (``"raw"``) keep the raw int32 vector; any other spec is built by :func:`encoder_from_spec`.

    Raises:
        ValueError: ``"stack"`` (an env encodes its observation but does not stack it; the message says how to
            stack), an unknown encoding, or an option out of range.
        TypeError: as :func:`encoder_from_spec`.
    """
    if encoding is None or (isinstance(encoding, str) and encoding == RAW):
        return None
    name, _ = parse_encoding(encoding)
    if name == "stack":
        raise ValueError(
            "encoding= encodes the observation but does not stack it; to stack, wrap the env: "
            "GymStackObservation(env, k=4) (over the encoded observation), or one env per game: "
            "gymnasium.make_vec(id, num_envs, vectorization_mode='sync', encoding=..., wrappers=[GymStackObservation])."
        )
    if not isinstance(name, str) or name not in ENCODERS:
        raise ValueError(
            f"unknown encoding {name!r}; choose {RAW!r} (the raw observation) or one of {list(ENCODINGS)}."
        )
    return encoder_from_spec(encoding, game)


def encodings_of_space(game: Game, space: spaces.Space[Any]) -> list[dict[str, Any]]:
    """Every encoding of ``game`` whose space is ``space``, as specs with all their options
    (``[{"name": "planes", "cap": 8}]``), in the order of :data:`ENCODINGS`.

    Used to find the encoding a policy was trained on from its observation space. One space may belong to
    several encodings: ``one_hot`` with ``cap=c`` and ``thermometer`` with ``cap=c + 1`` both give
    ``Box(0, 1, (pits * (c + 1) + others,))``, and ``thermometer`` with ``cap=1`` has the space of ``flat``.

    Example:
        >>> import mancala_envs
        >>> game = mancala_envs.make("ouril_v0").game
        >>> encodings_of_space(game, make_encoder("planes", game, cap=8).space)
        [{'name': 'planes', 'cap': 8}]
        >>> encodings_of_space(game, make_encoder("one_hot", game, cap=8).space)
        [{'name': 'one_hot', 'cap': 8}, {'name': 'thermometer', 'cap': 9}]
    """
    found = []
    for name, encoder in ENCODERS.items():
        options = encoder.options_for_space(game, space)
        if options is not None:
            found.append({"name": name, **options})
    return found


def encoder_class(name: object) -> type[ObservationEncoder]:
    """The encoder class called ``name``; raises ``ValueError`` listing the names if there is none."""
    if not isinstance(name, str) or name not in ENCODERS:
        raise ValueError(f"unknown encoding {name!r}; choose one of {list(ENCODINGS)}.")
    return ENCODERS[name]


class ObservationStack:
    """The last ``k`` observations of one agent, concatenated along axis 0, oldest first.

    The stack holds the ``k - 1`` observations committed last (zeros before the first) and
    puts the observation passed to :meth:`stacked` after them: a vector ``(n,)`` becomes
    ``(k * n,)``, planes ``(C, R, W)`` become ``(k * C, R, W)``.

    Args:
        space: The ``Box`` of one observation.
        k: The number of observations, an int >= 1.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> stack = ObservationStack(spaces.Box(0, 9, (2,), dtype=np.int32), k=3)
        >>> stack.commit(np.array([1, 2], dtype=np.int32))
        >>> stack.stacked(np.array([3, 4], dtype=np.int32)).tolist()
        [0, 0, 1, 2, 3, 4]
    """

    def __init__(self, space: spaces.Box, k: int) -> None:
        self.k = check_stack_size(k)
        if not isinstance(space, spaces.Box) or len(space.shape) == 0:
            raise TypeError(f"only Box observations with at least one axis can be stacked (got {space!r}).")
        self.frame_shape = space.shape
        tiled_low = np.concatenate([np.minimum(space.low, 0)] * self.k, axis=0)
        tiled_high = np.concatenate([np.maximum(space.high, 0)] * self.k, axis=0)
        #: the space of a stacked observation (zeros before the first observation included)
        self.space = spaces.Box(tiled_low, tiled_high, dtype=space.dtype)
        self._frames = np.zeros((self.k, *space.shape), dtype=space.dtype)

    def clear(self) -> None:
        """Forgets every committed observation (a new episode)."""
        self._frames[:] = 0

    def commit(self, observation: np.ndarray) -> None:
        """Remembers ``observation`` as the newest of the past ones."""
        if self.k > 1:
            self._frames[:-2] = self._frames[1:-1]
            self._frames[-2] = observation

    def stacked(self, observation: np.ndarray) -> np.ndarray:
        """The committed observations followed by ``observation`` (not committed), as a new array."""
        frames = self._frames.copy()
        frames[-1] = observation
        return frames.reshape(self.space.shape)
