"""A small, slow, obvious referee of Omweso for the property tests.

Written from the rules page (docs/rules/omweso.md; docs/architecture.md, common conventions) and the rules
choices the library documents, without looking at the engine's algorithms. It
imports nothing from ``mancala_envs``. Plain lists and loops: clarity matters
here, speed does not.

Each player ``p`` has a ring of 16 pits in their own frame (``pits[p][k]``)::

    inner row:  15 14 13 12 11 10  9  8     (as p sees it)
    outer row:   0  1  2  3  4  5  6  7

counter-clockwise is ``k -> k + 1 mod 16``, clockwise ``k -> k - 1 mod 16``.
The flat board of the engine is ``pits[0] + pits[1]`` (index ``16 * p + k``).
Actions are ``mode * 16 + k``: 0 counter-clockwise, 1 clockwise, 2 the
three-seed special; while placing, ``k`` adds one seed to own pit ``k``.

The choices the referee follows (the library documents the same ones):

* Captures are off while fewer than ``no_capture_turns`` turns are complete
  (a turn is a whole sowing move; placement plies and mid-turn choices are no turns).
* A clockwise lap is sown only when it captures directly, from a pit of
  ``{0, 1, 14, 15}``: as the move, at a relay, or re-sowing seeds that a
  clockwise lap captured. Each such chance in mid-turn is a decision point
  (``midturn_reverse``) where the mover picks ``k`` or ``16 + k``.
* Captured seeds are re-sown from the pit after the anchor (or into the
  anchor with ``resow_into_anchor``); the anchor is the start pit of the lap
  that captured and does not move on a capture, only on a relay.
* Endless turns: before each lap that lifts a pit (the move's first lap and
  every relay) the key (board, pit, direction) is looked up in the turn's
  memory and stored; a repeat annuls the game. The memory is cleared on every
  capture and at every decision point. Re-sow laps are not looked up (they
  follow a capture). The lap cap counts the laps of the whole turn, across
  decision points, and is checked at the start of every lap.
* Results at the end of a turn, first match wins: akawumbi (12), emitwe-ebiri
  (2), front-row clear (2), akakyala (2), bulijo (1), then the ``max_turns``
  truncation (a draw).
* Placement: the starter places 32 seeds (at most ``placement_cap`` a pit),
  then the other player, then the starter sows.
* A match (``match_target``) alternates the starter, gives annulled and
  truncated games no points, and ends at once on an akawumbi.
* A loaded position whose player to move has no pit with 2 seeds is lost by
  that player at once (bulijo).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

__all__ = ["CCW", "CW", "LEFT4", "CWLapDidNotCapture", "Referee", "Rules"]

RING = 16
TOTAL = 64
PER_PLAYER = 32
LEFT4 = (0, 1, 14, 15)
CCW = 1
CW = -1
POINTS = {"no_legal_move": 1, "emitwe_ebiri": 2, "front_row_clear": 2, "akakyala": 2, "akawumbi": 12}


@dataclass(frozen=True)
class Rules:
    setup: str = "outer4"
    placement_cap: int = 10
    midturn_reverse: bool = True
    three_seed_opening: bool = True
    no_capture_turns: int = 2
    resow_into_anchor: bool = False
    front_row_clear_2pts: bool = True
    akakyala_rule: bool = False
    match_target: int | None = None
    max_games: int = 100
    max_laps_per_turn: int = 2000
    max_turns: int = 2000


class CWLapDidNotCapture(AssertionError):
    """Raised if the referee ever sows a clockwise lap that does not capture (rule 8 says it cannot)."""


class Referee:
    """One Omweso game (or match) in plain Python."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.pits = [[0] * RING, [0] * RING]
        self.player = 0
        self.starter = 0
        self.phase = "sowing"
        self.turn = 0
        self.first_capture_done = False
        self.captured = [0, 0]  # seeds captured this game (a tally; they go back on the board)
        self.capture_turns = [0, 0]  # turns of this game in which each player captured
        # the turn in progress
        self.pending: dict | None = None
        self.hand = 0  # captured seeds waiting in hand at a re-sow decision point
        self.anchor = 0
        self.laps = 0
        self.memory: set = set()
        self.turn_captured = False
        self.captured_at = set()  # own inner pits where the mover captured this turn
        self.last_capture_at_end = False
        # the result
        self.status = "running"
        self.end_reason: str | None = None
        self.winner: int | None = None
        self.points = [0, 0]
        self.game_scores = [0, 0]
        self.last_game_end: str | None = None
        self.match = [0, 0]
        self.games_played = 0  # games finished in a match (a single game leaves it at 0)
        # what the last ply did
        self.sown: list[int] = []
        self.captures: list[list[int]] = []
        self.cw_laps: list[bool] = []  # for every clockwise lap of the last ply: did it capture?

    # --- building ----------------------------------------------------------------------------------------
    @classmethod
    def start(cls, rules: Rules, first_player: int) -> Referee:
        referee = cls(rules)
        referee._new_game(first_player)
        return referee

    @classmethod
    def load(
        cls,
        rules: Rules,
        board: list[int],
        player: int,
        turn: int | None = None,
        first_capture_done: bool = True,
        stores: tuple[int, int] = (0, 0),
    ) -> Referee:
        assert len(board) == 2 * RING and sum(board) == TOTAL
        referee = cls(rules)
        referee.pits = [list(board[:RING]), list(board[RING:])]
        referee.player = referee.starter = player
        referee.turn = rules.no_capture_turns if turn is None else turn
        referee.first_capture_done = first_capture_done
        referee.captured = list(stores)
        if not referee.legal():
            referee._win(1 - player, "no_legal_move")
        return referee

    def clone(self) -> Referee:
        return copy.deepcopy(self)

    def _new_game(self, starter: int) -> None:
        setup = self.rules.setup
        for p in range(2):
            if setup == "outer4":
                self.pits[p] = [4] * 8 + [0] * 8
            elif setup == "two_each":
                self.pits[p] = [2] * RING
            else:
                self.pits[p] = [0] * RING
        self.phase = "placement" if setup == "placement" else "sowing"
        self.player = self.starter = starter
        self.turn = 0
        self.first_capture_done = False
        self.captured = [0, 0]
        self.capture_turns = [0, 0]
        self.pending = None
        self.hand = 0
        self.laps = 0
        self.memory = set()
        self.turn_captured = False
        self.captured_at = set()
        self.last_capture_at_end = False

    # --- views ----------------------------------------------------------------------------------------------
    @property
    def board(self) -> list[int]:
        return self.pits[0] + self.pits[1]

    @property
    def captures_enabled(self) -> bool:
        return self.turn >= self.rules.no_capture_turns

    def seeds_to_place(self) -> int:
        return PER_PLAYER - sum(self.pits[self.player]) if self.phase == "placement" else 0

    def pending_view(self) -> dict | None:
        if self.status != "running" or self.pending is None:
            return None
        view = dict(self.pending)
        view["actions"] = [view["pit"], RING + view["pit"]]
        return view

    # --- rule 8: does a clockwise lap capture directly? ----------------------------------------------------
    def _lap_path(self, first: int, hand: int, step: int) -> list[int]:
        return [(first + i * step) % RING for i in range(hand)]

    def _would_capture(self, ring: list[int], path: list[int]) -> bool:
        """Sows a copy of ``ring`` along ``path``; tells whether the last seed captures."""
        ring = list(ring)
        for pit in path[:-1]:
            ring[pit] += 1
        last = path[-1]
        return ring[last] > 0 and self._capture_possible(last)

    def _capture_possible(self, last: int) -> bool:
        opponent = self.pits[1 - self.player]
        return self.captures_enabled and last >= 8 and opponent[23 - last] > 0 and opponent[last - 8] > 0

    def _cw_relay_captures(self, pit: int) -> bool:
        ring = list(self.pits[self.player])
        hand = ring[pit]
        if pit not in LEFT4 or hand < 2:
            return False
        ring[pit] = 0
        return self._would_capture(ring, self._lap_path(pit - 1, hand, CW))

    def _cw_resow_captures(self, hand: int) -> bool:
        if self.anchor not in LEFT4:
            return False
        first = self.anchor if self.rules.resow_into_anchor else self.anchor - 1
        return self._would_capture(self.pits[self.player], self._lap_path(first, hand, CW))

    # --- legal actions --------------------------------------------------------------------------------------
    def legal(self) -> set[int]:
        if self.status != "running":
            return set()
        own = self.pits[self.player]
        if self.phase == "placement":
            return {k for k in range(RING) if own[k] < self.rules.placement_cap}
        if self.pending is not None:
            k = self.pending["pit"]
            return {k, RING + k}
        actions = {k for k in range(RING) if own[k] >= 2}
        actions |= {RING + k for k in LEFT4 if self._cw_relay_captures(k)}
        if self.rules.three_seed_opening and not self.first_capture_done:
            actions |= {2 * RING + k for k in range(RING) if own[k] == 3}
        return actions

    # --- playing ---------------------------------------------------------------------------------------------
    def play(self, action: int) -> None:
        assert action in self.legal(), f"illegal action {action}"
        self.sown, self.captures, self.cw_laps = [], [], []
        p = self.player
        if self.phase == "placement":
            self.pits[p][action] += 1
            self.sown.append(RING * p + action)
            self.laps = 0
            if sum(self.pits[p]) == PER_PLAYER:
                if p == self.starter:
                    self.player = 1 - p
                else:
                    self.phase = "sowing"
                    self.player = self.starter
            return
        mode, k = divmod(action, RING)
        direction = CW if mode == 1 else CCW
        if self.pending is not None:
            kind = self.pending["kind"]
            self.pending = None
            if kind == "relay":
                self._run(("lift", k, direction))
            else:
                hand, self.hand = self.hand, 0
                self._run(("resow", hand, direction))
            return
        # a new turn
        self.laps = 0
        self.memory = set()
        self.turn_captured = False
        self.captured_at = set()
        self.last_capture_at_end = False
        if mode == 2:  # the three-seed special: 2 seeds into k+1, 1 into k+2, the turn ends
            own = self.pits[p]
            own[k] = 0
            for pit in ((k + 1) % RING, (k + 1) % RING, (k + 2) % RING):
                own[pit] += 1
                self.sown.append(RING * p + pit)
            self.laps = 1
            self._end_turn()
            return
        self._run(("lift", k, direction))

    def _run(self, lap: tuple) -> None:
        """Sows laps until the turn ends, a decision point comes, or the turn proves endless."""
        p = self.player
        own = self.pits[p]
        opponent = self.pits[1 - p]
        while True:
            kind, value, direction = lap
            if self.laps >= self.rules.max_laps_per_turn:
                if kind == "resow":
                    self.hand = value
                self._annul()
                return
            if kind == "lift":
                pit = value
                key = (tuple(self.board), pit, direction)
                if key in self.memory:
                    self._annul()
                    return
                self.memory.add(key)
                hand = own[pit]
                own[pit] = 0
                self.anchor = pit
                path = self._lap_path(pit + direction, hand, direction)
            else:
                hand = value
                first = self.anchor if self.rules.resow_into_anchor else self.anchor + direction
                path = self._lap_path(first, hand, direction)
            self.laps += 1
            for pit in path[:-1]:
                own[pit] += 1
                self.sown.append(RING * p + pit)
            last = path[-1]
            occupied = own[last] > 0
            own[last] += 1
            self.sown.append(RING * p + last)
            if not occupied:
                if direction == CW:
                    self.cw_laps.append(False)
                    raise CWLapDidNotCapture(f"clockwise lap ended in empty pit {last}")
                self._end_turn()
                return
            if self._capture_possible(last):
                if direction == CW:
                    self.cw_laps.append(True)
                inner, outer = 23 - last, last - 8
                seeds = opponent[inner] + opponent[outer]
                self.captures.append([RING * (1 - p) + inner, opponent[inner]])
                self.captures.append([RING * (1 - p) + outer, opponent[outer]])
                opponent[inner] = opponent[outer] = 0
                self.captured[p] += seeds
                self.first_capture_done = True
                self.turn_captured = True
                self.captured_at.add(last)
                self.last_capture_at_end = last in (15, 8)
                self.memory = set()
                if direction == CW and self.rules.midturn_reverse and self._cw_resow_captures(seeds):
                    self.hand = seeds
                    if self.laps >= self.rules.max_laps_per_turn:  # no choice once the cap is reached
                        self._annul()
                        return
                    self.pending = {"kind": "resow", "pit": self.anchor, "seeds": seeds, "anchor": self.anchor}
                    self.memory = set()
                    return
                lap = ("resow", seeds, CCW)
                continue
            if direction == CW:
                self.cw_laps.append(False)
                raise CWLapDidNotCapture(f"clockwise lap relays from pit {last}")
            # relay from the last pit; it becomes the anchor
            if self.rules.midturn_reverse and self._cw_relay_captures(last):
                if self.laps >= self.rules.max_laps_per_turn:  # no choice once the cap is reached
                    self._annul()
                    return
                # the relay pit becomes the anchor once it is lifted; until then the anchor stays
                self.pending = {"kind": "relay", "pit": last, "seeds": own[last], "anchor": self.anchor}
                self.memory = set()
                return
            lap = ("lift", last, CCW)

    def _end_turn(self) -> None:
        p, q = self.player, 1 - self.player
        self.turn += 1
        if self.turn_captured:
            self.capture_turns[p] += 1
        opponent = self.pits[q]
        if self.turn_captured and self.last_capture_at_end and sum(opponent) == 0:
            self._win(p, "akawumbi")
        elif {15, 8} <= self.captured_at:
            self._win(p, "emitwe_ebiri")
        elif self.rules.front_row_clear_2pts and self.turn_captured and not any(opponent[8:]):
            self._win(p, "front_row_clear")
        elif (
            self.rules.akakyala_rule
            and self.turn_captured
            and self.capture_turns[p] >= 2
            and self.capture_turns[q] == 0
        ):
            self._win(p, "akakyala")
        elif max(opponent) < 2:
            self._win(p, "no_legal_move")
        elif self.turn >= self.rules.max_turns:
            self._game_over(None, "max_turns", "truncated")
        else:
            self.player = q

    # --- the end of a game ---------------------------------------------------------------------------------------
    def _win(self, winner: int, reason: str) -> None:
        self._game_over(winner, reason, "terminated")

    def _annul(self) -> None:
        self._game_over(None, "endless_move", "terminated")

    def _game_over(self, winner: int | None, reason: str, status: str) -> None:
        points = [0, 0]
        if winner is not None:
            points[winner] = POINTS[reason]
        self.last_game_end = reason
        self.game_scores = list(self.captured)
        self.pending = None
        if self.rules.match_target is None:
            self.status, self.end_reason, self.winner, self.points = status, reason, winner, points
            return
        self.match = [self.match[0] + points[0], self.match[1] + points[1]]
        self.games_played += 1
        if reason == "akawumbi":
            self.status, self.end_reason = "terminated", "akawumbi"
        elif max(self.match) >= self.rules.match_target:
            self.status, self.end_reason = "terminated", "match_target"
        elif self.games_played >= self.rules.max_games:
            self.status, self.end_reason = "truncated", "max_games"
        else:
            self.hand = 0
            self._new_game(1 - self.starter)
            return
        self.points = points
        if self.match[0] != self.match[1]:
            self.winner = 0 if self.match[0] > self.match[1] else 1
        else:
            self.winner = None
