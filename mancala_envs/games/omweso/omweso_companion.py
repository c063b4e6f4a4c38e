"""Omweso's companion: what people need around the rules of :mod:`mancala_envs.games.omweso.omweso_rules`.

The rules (config, layout, legal moves, ``step``, ``observe`` and the ``OmwesoRules`` class binding
them to a config) are in ``omweso_rules.py``; the rules page is ``docs/rules/omweso.md``. This
module holds the mixin :class:`OmwesoCompanion`, which the game's class (``Omweso`` in this folder's
``__init__.py``) puts before ``OmwesoRules``:

- positions: ``load_position`` (and the checks of the placement phase and of a pending
  mid-turn choice), ``position_flags``, the ``check_reachable`` override and ``held_seeds``;
- inspection: ``board``, ``info``, the values of the layout's symbols (observation bounds);
- text: the spec table (``env_doc``), ``describe_action``, ``board_rows``, ``played_pit``,
  ``move_words``, ``render_text``.

The imports run one way: this module imports the rules module (as ``rules``), the
rules module imports nothing of this one, and the package's ``__init__`` binds the two into the game's
class. No import cycle, no import at the bottom of a file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mancala_envs.engine.sowing import CW
from mancala_envs.engine.state import (
    BOARD,
    END_ENDLESS_MOVE,
    END_NO_LEGAL_MOVE,
    END_REASON,
    ENDLESS,
    FIRST_MOVE_DONE,
    LAPS,
    LEGAL,
    PLAYER,
    PLY,
    RUNNING,
    STARTER,
    STATUS,
    STORE,
    TURN,
)
from mancala_envs.games.game import check_bool, check_choice, check_counts, check_int
from mancala_envs.games.omweso import omweso_rules as rules

__all__ = ["OmwesoCompanion"]

#: a pending mid-turn choice in a position: ``relay:<pit>:<anchor>`` or ``resow:<pit>:<seeds>``, ASCII digits
_PENDING = re.compile(r"(relay|resow):([0-9]+):([0-9]+)")


class OmwesoCompanion:
    """The people-facing methods of :class:`~mancala_envs.games.omweso.Omweso`: positions, infos, text.

    A mixin: it is only used as ``Omweso``'s first base, before ``Game``, so its methods use the
    game's ``config``, ``params`` and ``Game``'s helpers, and ``super()`` reaches ``Game``.
    """

    env_doc = """Omweso as a PettingZoo environment; the full page is ``docs/rules/omweso.md``.

| Import      | ``from mancala_envs.envs import omweso_v0``                                               |
|-------------|-------------------------------------------------------------------------------------------|
| Ids         | ``mancala/omweso-v0``, ``mancala/omweso-two-each-v0``, ``mancala/omweso-placement-v0``,    |
|             | ``mancala/omweso-no-midturn-reverse-v0``, ``mancala/omweso-match-v0`` (to 12 points)       |
| Actions     | Discrete(48): ``mode * 16 + k``; mode 0 sow own pit k counter-clockwise, 1 clockwise,      |
|             | 2 the three-seed special; while placing, action k adds a seed to own pit k                 |
| Agents      | ``player_0``, ``player_1`` (the same agent acts again at a mid-turn decision point)        |
| Observation | Dict(observation=Box(int32, (48,)) (match: (50,)), action_mask=Box(0, 1, (48,), int8))    |
| Rewards     | +1 win, -1 loss, 0 draw or annulled, at the end (``reward_mode="match_points"``: points)   |
"""

    # --- positions ---------------------------------------------------------------------------------------
    def load_position(
        self,
        state: np.ndarray,
        board: Sequence[int],
        stores: Sequence[int] = (0, 0),
        player: int = 0,
        turn: int | None = None,
        first_capture_done: bool = True,
        capturing_turns: Sequence[int] = (0, 0),
        phase: str = "sowing",
        pending: str | None = None,
        turn_captures: int = 0,
        laps: int | None = None,
        **unknown: Any,
    ) -> None:
        """Replaces the game in ``state`` by an arbitrary position.

        Args:
            state: The state to overwrite (left untouched on error).
            board: 32 seed counts: player 0's pits 0..15 in player 0's own frame,
                then player 1's pits 0..15 in player 1's own frame (64 in all, less
                the seeds in hand of a pending re-sow; while placing, the seeds placed).
            stores: Seeds each player has captured so far (a tally only).
            player: The player to move (or to place), 0 or 1.
            turn: Turns already played; the default, ``no_capture_turns``, is the
                first turn with captures enabled (0 while placing).
            first_capture_done: Whether anybody has captured yet (the three-seed
                special is legal only before the first capture).
            capturing_turns: Turns in which player 0 and player 1 captured so far
                (the akakyala rule counts them).
            phase: ``"sowing"`` (default) or ``"placement"`` (``setup="placement"``
                only): ``player`` is placing; the other side is empty (``player``
                places first) or holds 32 (``player`` places second).
            pending: A mid-turn choice waiting for ``player``: ``"relay:<pit>:<anchor>"``
                (the relay pit, still full, and the start of the lap that ended there) or
                ``"resow:<pit>:<seeds>"`` (the anchor and the captured seeds in hand).
            turn_captures: With ``pending``: the turn's capture flags, the sum of 1
                (captured), 2 (at own pit 15), 4 (at own pit 8), 8 (latest capture at
                one of those two).
            laps: With ``pending``: laps sown so far in the turn (default 1).

        Raises:
            ValueError: any count, flag or combination that no game could reach,
                named in the message.
        """
        if unknown:
            raise TypeError(
                f"omweso positions have no flag {', '.join(map(repr, sorted(unknown)))}; "
                f"the flags are {sorted(self.position_options)}."
            )
        config = self.config
        values = check_counts("board", board, rules.N_PITS, rules.TOTAL_SEEDS)
        tallies = check_counts("stores", stores, 2)
        check_int("player", player, 0, 1)
        check_choice("phase", phase, ("sowing", "placement"))
        placing = phase == "placement"
        if turn is None:
            turn = 0 if placing else config.no_capture_turns
        capture_turns = self._check_turn_fields(turn, first_capture_done, capturing_turns, config.max_turns - 1)
        own = rules.RING * int(player)
        other = rules.RING - own
        hand = 0
        kind = rules.PENDING_NONE
        pit = anchor = 0
        if pending is None and (turn_captures != 0 or laps is not None):
            raise ValueError("turn_captures and laps describe a turn in progress; give them only with pending.")
        if placing:
            self._check_placement(values, own, other, tallies, turn, first_capture_done, pending)
        elif pending is not None:
            kind, pit, anchor, hand = self._check_pending(values, own, other, pending, turn, turn_captures)
        if pending is not None:
            laps = 1 if laps is None else laps
            check_int("laps", laps, 1, config.max_laps_per_turn - 1)
        if not placing and sum(values) + hand != rules.TOTAL_SEEDS:
            raise ValueError(
                f"the board holds {sum(values)} seeds (+{hand} in hand) but Omweso has {rules.TOTAL_SEEDS}; "
                "fix the counts."
            )
        fresh = np.zeros_like(state)
        rules.reset_state(fresh, self.params, int(player))
        fresh[BOARD : BOARD + rules.N_PITS] = values
        fresh[STORE : STORE + 2] = tallies
        fresh[TURN] = int(turn)
        fresh[rules.FIRST_CAPTURE] = int(bool(first_capture_done))
        fresh[rules.CAPTURE_TURNS : rules.CAPTURE_TURNS + 2] = capture_turns
        if placing:
            fresh[rules.PHASE] = rules.PHASE_PLACEMENT
            fresh[STARTER] = int(player) if sum(values[other : other + rules.RING]) == 0 else 1 - int(player)
            fresh[FIRST_MOVE_DONE] = int(sum(values) > 0)
        else:
            fresh[rules.PHASE] = rules.PHASE_SOWING
            fresh[FIRST_MOVE_DONE] = 1
        if kind != rules.PENDING_NONE:
            fresh[rules.PENDING] = kind
            fresh[rules.PENDING_PIT] = pit
            fresh[rules.ANCHOR] = anchor
            fresh[rules.HAND] = hand
            fresh[rules.TURN_FLAGS] = turn_captures
            fresh[LAPS] = laps
        fresh[LEGAL] = rules.legal_bits(fresh, self.params)
        if fresh[LEGAL] == 0:
            # The player to move cannot move: the opponent has won (bulijo), as at the start of that turn.
            rules.win(fresh, 1 - int(player), END_NO_LEGAL_MOVE, rules.POINTS_BULIJO)
            rules.game_over(fresh, self.params)
        state[:] = fresh

    def _check_placement(
        self, values: list[int], own: int, other: int, tallies: list[int], turn: int, first: bool, pending: Any
    ) -> None:
        if self.config.setup != "placement":
            raise ValueError("phase='placement' needs setup='placement'; build the env with that setup.")
        self._check_placed_seeds(values, own, other)
        if tallies != [0, 0] or turn != 0 or first or pending is not None:
            raise ValueError(
                "while placing, stores are [0, 0], turn is 0, first_capture_done is false and nothing is pending."
            )

    def _check_placed_seeds(self, values: list[int], own: int, other: int) -> None:
        """The seeds on the board while ``own`` places: fewer than 32 there, 0 or 32 on the other side."""
        mine, theirs = sum(values[own : own + rules.RING]), sum(values[other : other + rules.RING])
        if theirs not in (0, rules.SEEDS_PER_PLAYER) or mine >= rules.SEEDS_PER_PLAYER:
            raise ValueError(
                f"while placing, the placer holds {mine} seeds (fewer than 32) and the other side 0 or 32 "
                f"(got {theirs}); fix the board or the player."
            )
        if max(values) > self.config.placement_cap:
            raise ValueError(f"a pit holds {max(values)} seeds, above placement_cap={self.config.placement_cap}.")

    def _check_pending(
        self, values: list[int], own: int, other: int, pending: Any, turn: int, turn_captures: Any
    ) -> tuple[int, int, int, int]:
        form = "'relay:<pit>:<anchor>' or 'resow:<pit>:<seeds>'"
        match = _PENDING.fullmatch(pending) if isinstance(pending, str) else None
        if match is None:
            raise ValueError(f"pending={pending!r} must be {form} (pit and number in digits 0-9).")
        parts = [match[1], match[2], match[3]]
        pit, number = int(parts[1]), int(parts[2])
        check_int("turn_captures", turn_captures, 0, 15)
        if turn_captures & ~rules.CAPTURED and not turn_captures & rules.CAPTURED:
            raise ValueError(f"turn_captures={turn_captures} has column bits without the 'captured' bit 1.")
        if turn_captures & rules.LAST_CAPTURE_AT_END and not turn_captures & (
            rules.CAPTURED_COLUMN_0 | rules.CAPTURED_COLUMN_7
        ):
            raise ValueError(
                f"turn_captures={turn_captures} has bit 8 (latest capture at pit 15 or 8) without bit 2 or 4 "
                "(a capture at pit 15 or pit 8)."
            )
        if not self.config.midturn_reverse or turn < self.config.no_capture_turns or pit not in rules.LEFT4:
            raise ValueError(
                f"pending={pending!r} is not a decision point: choices come only with midturn_reverse=True, "
                f"captures enabled (turn >= {self.config.no_capture_turns}) and a pit in {list(rules.LEFT4)}."
            )
        board = np.array(values, dtype=np.int64)
        if parts[0] == "relay":
            check_int("pending anchor", number, 0, rules.RING - 1)
            seeds = values[own + pit]
            if seeds < 2 or not rules.lap_captures_directly(board, own, other, pit, seeds, CW, True):
                raise ValueError(f"pending={pending!r}: a clockwise lap from pit {pit} would not capture directly.")
            return rules.PENDING_RELAY, pit, number, 0
        start = (pit - CW) % rules.RING if self.config.resow_into_anchor else pit
        if number < 2 or not turn_captures & rules.CAPTURED:
            raise ValueError(f"pending={pending!r}: a re-sow follows a capture (2 or more seeds, turn_captures odd).")
        if not rules.lap_captures_directly(board, own, other, start, number, CW, False):
            raise ValueError(f"pending={pending!r}: re-sowing {number} seeds clockwise would not capture directly.")
        return rules.PENDING_RESOW, pit, pit, number

    def _check_turn_fields(
        self, turn: Any, first_capture_done: Any, capturing_turns: Any, turn_limit: int
    ) -> list[int]:
        """The flags about the game's turns (positions and snapshots): ``turn`` in ``0..turn_limit``, the
        first-capture flag, and capturing turns that fit them. Returns the capturing turns as ints."""
        check_int("turn", turn, 0, turn_limit)
        check_bool("first_capture_done", first_capture_done)
        capture_turns = check_counts("capturing_turns", capturing_turns, 2, turn_limit)
        if sum(capture_turns) > turn or (sum(capture_turns) > 0 and not first_capture_done):
            raise ValueError(
                f"capturing_turns={list(capturing_turns)!r} is impossible with turn={turn} and "
                f"first_capture_done={first_capture_done}; at most `turn` turns can have captured, "
                "and only after a first capture."
            )
        return capture_turns

    def header_ranges(self) -> dict[int, tuple[str, int, int | None]]:
        """Adds the caps of a game: turns (``max_turns``), laps of a turn (``max_laps_per_turn``) and
        plies (the placements, then at most ``1 + max_laps_per_turn`` per turn)."""
        config = self.config
        ranges = super().header_ranges()
        placements = 2 * rules.SEEDS_PER_PLAYER if config.setup == "placement" else 0
        ranges[PLY] = ("ply counter", 0, placements + (config.max_turns + 1) * (1 + config.max_laps_per_turn))
        ranges[TURN] = ("turn counter", 0, config.max_turns)
        ranges[LAPS] = ("lap counter", 0, config.max_laps_per_turn)
        return ranges

    def check_reachable(self, state: np.ndarray) -> None:
        """Adds the ranges of Omweso's own slots to the shared checks (see ``Game.check_reachable``)."""
        values = state[: min(len(state), rules.STATE_SIZE)].tolist()
        if len(values) == rules.STATE_SIZE:
            ranges = (
                (rules.PHASE, "phase", 0, 1),
                (rules.PENDING, "pending kind", 0, 2),
                (rules.PENDING_PIT, "pending pit", 0, rules.RING - 1),
                (rules.HAND, "seeds in hand", 0, rules.TOTAL_SEEDS),
                (rules.ANCHOR, "anchor", 0, rules.RING - 1),
                (rules.TURN_FLAGS, "turn capture flags", 0, 15),
                (rules.FIRST_CAPTURE, "first-capture flag", 0, 1),
                (rules.CAPTURE_TURNS, "player 0's capturing turns", 0, values[TURN]),
                (rules.CAPTURE_TURNS + 1, "player 1's capturing turns", 0, values[TURN]),
            )
            for slot, name, low, high in ranges:
                if not low <= values[slot] <= high:
                    raise ValueError(f"the state's {name} slot holds {values[slot]}, outside {low}..{high}.")
            if values[rules.GAME_RESULT] not in self.end_reason_names:
                raise ValueError(f"the state's last game result {values[rules.GAME_RESULT]} is unknown.")
            resow_waiting = values[rules.PENDING] == rules.PENDING_RESOW
            # an annulled endless turn leaves its seeds in hand: the game's end, or a match's last game's result
            annulled = values[END_REASON] == END_ENDLESS_MOVE or (
                values[STATUS] != RUNNING and values[rules.GAME_RESULT] == END_ENDLESS_MOVE
            )
            if values[rules.HAND] and not resow_waiting and not annulled:
                raise ValueError("the state has seeds in hand without a re-sow waiting (or an annulled turn).")
            config = self.config
            if values[PLY] > (values[TURN] + 1) * (1 + config.max_laps_per_turn) + (
                2 * rules.SEEDS_PER_PLAYER if config.setup == "placement" else 0
            ):
                raise ValueError(
                    f"the state's ply counter {values[PLY]} is more than {values[TURN]} turns can take "
                    f"(at most {1 + config.max_laps_per_turn} plies a turn)."
                )
        super().check_reachable(state)

    def load_checked_position(self, scratch: np.ndarray, fields: dict[str, Any], state: np.ndarray) -> None:
        """A running game's position loads as ``reset(options=...)`` loads it. A finished game's position
        may be one that ``reset`` refuses (the turn cap reached, seeds left in hand by an annulled turn):
        its board, tallies and turn flags get the same per-field checks, with the turn up to ``max_turns``."""
        if state[STATUS] == RUNNING:
            self.load_position(scratch, **fields)
            return
        check_counts("board", fields["board"], rules.N_PITS, rules.TOTAL_SEEDS)
        check_counts("stores", fields["stores"], 2)
        self._check_turn_fields(
            fields["turn"], fields["first_capture_done"], fields.get("capturing_turns", (0, 0)), self.config.max_turns
        )

    def position_slots(self, state: np.ndarray) -> list[int]:
        """The slots a running position decides: the phase, the turn, the capture flags and tallies, the
        seeds in hand, the endless flag, the last game's result outside a match; while placing, the
        starter; at a decision point, its pit, anchor and laps."""
        slots = [
            rules.PHASE,
            rules.PENDING,
            rules.HAND,
            rules.TURN_FLAGS,
            rules.FIRST_CAPTURE,
            rules.CAPTURE_TURNS,
            rules.CAPTURE_TURNS + 1,
            TURN,
            ENDLESS,
        ]
        if not self.is_match:
            slots.append(rules.GAME_RESULT)
        if state[rules.PHASE] == rules.PHASE_PLACEMENT:
            slots.append(STARTER)
        if state[rules.PENDING] != rules.PENDING_NONE:
            slots += [rules.PENDING_PIT, rules.ANCHOR, LAPS]
        return slots

    def held_seeds(self, state: np.ndarray) -> int | None:
        """Board plus the seeds in hand (the stores are tallies); ``None`` while seeds are being placed
        (or the game ended during the placement, by an illegal action)."""
        if state[rules.PHASE] == rules.PHASE_PLACEMENT:
            return None
        return sum(state[BOARD : BOARD + rules.N_PITS].tolist()) + int(state[rules.HAND])  # no int64 wrap-around

    def position_flags(self, state: np.ndarray) -> dict[str, Any]:
        values = state[: rules.STATE_SIZE].tolist()
        flags: dict[str, Any] = {"turn": values[TURN], "first_capture_done": values[rules.FIRST_CAPTURE] == 1}
        turns = values[rules.CAPTURE_TURNS : rules.CAPTURE_TURNS + 2]
        if turns != [0, 0]:
            flags["capturing_turns"] = turns
        if values[rules.PHASE] == rules.PHASE_PLACEMENT and values[STATUS] == RUNNING:
            flags["phase"] = "placement"
        if values[rules.PENDING] != rules.PENDING_NONE and values[STATUS] == RUNNING:
            pit = values[rules.PENDING_PIT]
            if values[rules.PENDING] == rules.PENDING_RELAY:
                flags["pending"] = f"relay:{pit}:{values[rules.ANCHOR]}"
            else:
                flags["pending"] = f"resow:{pit}:{values[rules.HAND]}"
            flags["turn_captures"] = values[rules.TURN_FLAGS]
            flags["laps"] = values[LAPS]
        return flags

    def board(self, state: np.ndarray) -> np.ndarray:
        """Returns a copy of the board: player 0's pits 0..15, then player 1's (own frames)."""
        return state[BOARD : BOARD + rules.N_PITS].copy()

    # --- observation ----------------------------------------------------------------------------------------
    def layout_values(self) -> dict[str, Any]:
        """The layout's symbols: ``max_turns`` and, in a match, ``match_top`` (the target plus the largest
        award, akawumbi's, less one: the most points a player can hold)."""
        values: dict[str, Any] = {"max_turns": self.config.max_turns, "match": self.is_match}
        if self.is_match:
            values["match_top"] = self.config.match_target + rules.POINTS_AKAWUMBI - 1
        return values

    # --- inspection -----------------------------------------------------------------------------------------
    def info(self, state: np.ndarray) -> dict[str, Any]:
        """Adds Omweso's facts: ``turn``, ``phase``, ``pending`` (the decision point, if any),
        ``laps`` (of the turn so far, or of the last turn), ``annulled``, ``win_type``,
        ``seeds_on_side``, ``captures_enabled`` and ``first_capture_done``."""
        values = state[: rules.STATE_SIZE].tolist()  # one conversion: Python ints are cheap to read
        info = self.header_info(values)
        running = values[STATUS] == RUNNING
        board = values[BOARD : BOARD + rules.N_PITS]
        pending = None
        if running and values[rules.PENDING] != rules.PENDING_NONE:
            pit = values[rules.PENDING_PIT]
            resow = values[rules.PENDING] == rules.PENDING_RESOW
            pending = {
                "kind": "resow" if resow else "relay",
                "pit": pit,
                "seeds": values[rules.HAND] if resow else board[rules.RING * values[PLAYER] + pit],
                "anchor": values[rules.ANCHOR],
                "actions": [pit, rules.RING + pit],
            }
        result = values[rules.GAME_RESULT]
        info["turn"] = values[TURN]
        info["phase"] = "placement" if running and values[rules.PHASE] == rules.PHASE_PLACEMENT else "sowing"
        info["pending"] = pending
        info["laps"] = values[LAPS]
        info["annulled"] = result == END_ENDLESS_MOVE
        info["win_type"] = rules.WIN_TYPES.get(result)
        info["last_game_end"] = self.end_reason_names[result]
        info["seeds_on_side"] = [sum(board[: rules.RING]), sum(board[rules.RING :])]
        info["seeds_in_hand"] = values[rules.HAND]
        info["captures_enabled"] = values[TURN] >= self.config.no_capture_turns
        info["first_capture_done"] = values[rules.FIRST_CAPTURE] == 1
        return info

    def describe_action(self, state: np.ndarray, action: int) -> str:
        k = action % rules.RING
        if state[rules.PHASE] == rules.PHASE_PLACEMENT:
            return f"places a seed in pit {action}"
        direction = "clockwise" if action // rules.RING == rules.MODE_CW else "counter-clockwise"
        if state[rules.PENDING] == rules.PENDING_RESOW:
            return f"re-sows the captured seeds from pit {k} {direction}"
        if state[rules.PENDING] == rules.PENDING_RELAY:
            return f"relays from pit {k} {direction}"
        if action // rules.RING == rules.MODE_THREE_SEED:
            return f"plays the three-seed special from pit {k}"
        if action // rules.RING == rules.MODE_CW:
            return f"sows pit {k} clockwise"
        return f"sows pit {k}"

    def board_rows(self) -> list[list[int]]:
        return [
            [rules.RING + 7 - c for c in range(8)],  # player 1's outer row
            [rules.RING + 8 + c for c in range(8)],  # player 1's inner row
            [15 - c for c in range(8)],  # player 0's inner row
            list(range(8)),  # player 0's outer row
        ]

    def played_pit(self, player: int, action: int) -> int:
        return rules.RING * player + action % rules.RING

    def pit_label(self, pit: int) -> str:
        """Each player's pits are named 0-15 in their own frame, as in ``describe_action`` and the text board."""
        return str(pit % rules.RING)

    def move_words(self, player: int, action: int, sown: Sequence[int]) -> str:
        pit = self.played_pit(player, action)
        label = self.pit_label(pit)
        if list(sown) == [pit]:  # a sowing never puts its first seed back into its own pit
            return f"placed a seed in pit {label}"
        mode = action // rules.RING
        if mode == rules.MODE_THREE_SEED:
            return f"played the three-seed special from pit {label}"
        return f"sowed pit {label} " + ("clockwise" if mode == rules.MODE_CW else "counter-clockwise")

    def render_text(self, state: np.ndarray) -> str:
        """The four rows as seen from player 0's seat, as the picture and the other games' text boards show
        them: player 1's rows on top and player 0's at the bottom, on every ply, whoever is to move. Each
        row's pits are labelled in their owner's frame (0-15), the numbers of ``describe_action``."""
        running = state[STATUS] == RUNNING
        mover = int(state[PLAYER])
        board = state[BOARD : BOARD + rules.N_PITS]

        def row(pits: list[int]) -> str:
            return " ".join(f"{int(board[pit]):3d}" for pit in pits)

        def labels(pits: list[int]) -> str:
            return " ".join(f"{pit % rules.RING:3d}" for pit in pits)

        rows = self.board_rows()  # player 1's outer and inner rows, then player 0's inner and outer rows
        if running:
            legal = [a for a in range(rules.N_ACTIONS) if (int(state[LEGAL]) >> a) & 1]
            if state[rules.PHASE] == rules.PHASE_PLACEMENT:
                own = rules.RING * mover
                left = rules.SEEDS_PER_PLAYER - int(board[own : own + rules.RING].sum())
                status = f"player_{mover} to place ({left} seeds left), legal actions {legal}"
            elif state[rules.PENDING] != rules.PENDING_NONE:
                pit = int(state[rules.PENDING_PIT])
                what = "re-sow the captured seeds from" if state[rules.PENDING] == rules.PENDING_RESOW else "relay from"
                status = (
                    f"player_{mover} to choose mid-turn: {what} pit {pit}: "
                    f"{pit} counter-clockwise or {rules.RING + pit} clockwise"
                )
            else:
                status = f"player_{mover} to move, legal actions {legal}"
        else:
            info = self.info(state)
            result = "draw" if info["winner"] is None else f"player_{info['winner']} wins"
            kind = f" by {info['win_type']}" if info["win_type"] and info["winner"] is not None else ""
            status = f"game over ({info['end_reason']}): {result}{kind}"
        lines = [
            f"{self.env_name}  turn {int(state[TURN])}  ply {int(state[PLY])}  {status}",
            f"  player_1 outer  [ {row(rows[0])} ]  pits {labels(rows[0])}",
            f"  player_1 inner  [ {row(rows[1])} ]  pits {labels(rows[1])}",
            f"  player_0 inner  [ {row(rows[2])} ]  pits {labels(rows[2])}",
            f"  player_0 outer  [ {row(rows[3])} ]  pits {labels(rows[3])}",
            f"  captured so far: player_0 {int(state[STORE])}, player_1 {int(state[STORE + 1])}",
        ]
        return "\n".join(lines)
