"""A small, slow, obvious reference of Ouril and Urim for the property tests.

Written from the rules pages (docs/architecture.md, common conventions; docs/rules/urim.md;
docs/rules/ouril.md) without looking at the
engine's algorithms, and importing nothing from ``mancala_envs``. Plain lists
and loops; speed does not matter here, clarity does.

Board indexing, as in the rules page, for ``n`` pits per row::

            P1 local: n-1 ...  1    0
    top row  global: 2n-1 ... n+1   n
    bottom   global:   0  ...  n-2  n-1
            P0 local:  0  ...  n-2  n-1

Player ``p`` owns pits ``p*n .. p*n + n - 1``; action ``k`` sows local pit
``k``; sowing goes ``i -> i + 1 mod 2n``; a capture chain walks ``i -> i - 1``.

Neither game has a rule about the very first move, so unlike Modiar these
references need no first-ply flag.

Choices made where the rules page leaves room (the engine makes the same
ones):

* Ouril's match points: 1 for the winner, 0 otherwise (the rules page defines
  match points for Urim only).
* A loaded position is judged as if its player's turn had just come: a player
  without seeds passes (when grand slams are allowed, Ouril rule 5), a store at
  the Ouril threshold ends the game, a player without a legal move ends it, and
  in an Urim match such an ended game counts in the match like any other.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

__all__ = ["Referee", "Rules", "capture_chain", "legal_mask", "make_rules", "sow"]

OURIL_DEFAULTS = {
    "pits_per_row": 6,
    "skip_origin": "always",
    "grand_slam": "allowed",
    "singleton_rule": "free",
    "win_threshold": None,
    "max_plies": 1000,
    "repetition": True,
}
URIM_DEFAULTS = {
    "pits_per_row": 6,
    "seeds_per_pit": 3,
    "pit_capacity": 17,
    "trigger": (2, 3),
    "chain": (2, 3, 4),
    "grand_slam": "no_capture",
    "points_three_quarters": 2,
    "match_target": None,
    "max_games": 100,
    "max_plies": 1000,
    "repetition": True,
}


@dataclass(frozen=True)
class Rules:
    """Everything the reference needs to know about a game and its options."""

    game: str  # "ouril" or "urim"
    n: int  # pits per row
    total: int  # T, seeds in the game
    trigger: frozenset[int]  # counts the last seed must make to start a capture
    chain: frozenset[int]  # counts that extend the chain backwards
    grand_slam: str  # "allowed", "forbidden" or "no_capture"
    skip_origin_every_pass: bool  # False: only on the first pass (Ouril variant)
    capacity: int | None  # Urim: full pits are skipped while sowing
    singletons_only_if_all: bool  # Ouril rule 7 variant
    threshold: int | None  # Ouril: a store this big ends the game at once
    three_quarter_points: int  # Urim match points for >= ceil(3T/4)
    match_target: int | None  # Urim match mode
    max_games: int
    max_plies: int
    repetition: bool


def make_rules(game: str, **options: object) -> Rules:
    """Builds the rules from the same keyword options as ``mancala_envs.make``."""
    if game == "ouril":
        o = {**OURIL_DEFAULTS, **options}
        n = o["pits_per_row"]
        total = 2 * n * 4
        return Rules(
            game="ouril",
            n=n,
            total=total,
            trigger=frozenset({2, 3}),
            chain=frozenset({2, 3}),
            grand_slam=o["grand_slam"],
            skip_origin_every_pass=o["skip_origin"] == "always",
            capacity=None,
            singletons_only_if_all=o["singleton_rule"] == "only_if_all_singletons",
            # 25 on 2x6; "more than half" on 2x4 (17).
            threshold=o["win_threshold"] if o["win_threshold"] is not None else total // 2 + 1,
            three_quarter_points=1,
            match_target=None,
            max_games=1,
            max_plies=o["max_plies"],
            repetition=o["repetition"],
        )
    o = {**URIM_DEFAULTS, **options}
    n = o["pits_per_row"]
    return Rules(
        game="urim",
        n=n,
        total=2 * n * o["seeds_per_pit"],
        trigger=frozenset(o["trigger"]),
        chain=frozenset(o["chain"]),
        grand_slam=o["grand_slam"],
        skip_origin_every_pass=True,
        capacity=o["pit_capacity"],
        singletons_only_if_all=False,
        threshold=None,
        three_quarter_points=o["points_three_quarters"],
        match_target=o["match_target"],
        max_games=o["max_games"],
        max_plies=o["max_plies"],
        repetition=o["repetition"],
    )


def row(rules: Rules, player: int) -> range:
    """The global pits of ``player``'s row."""
    return range(player * rules.n, (player + 1) * rules.n)


def row_seeds(rules: Rules, board: list[int], player: int) -> int:
    return sum(board[pit] for pit in row(rules, player))


# --- one move -----------------------------------------------------------------------------------


def sow(rules: Rules, board: list[int], origin: int) -> tuple[list[int], int]:
    """Lifts ``origin`` and sows CCW one seed per pit; returns the new board and the last pit.

    Skipped pits take no seed: the origin (on every pass, or on the first pass
    only) and, in Urim, any pit already holding ``capacity`` seeds.
    """
    board = list(board)
    seeds = board[origin]
    board[origin] = 0
    pit = origin
    passes_over_origin = 0
    while seeds > 0:
        pit = (pit + 1) % (2 * rules.n)
        if pit == origin:
            passes_over_origin += 1
            if rules.skip_origin_every_pass or passes_over_origin == 1:
                continue
        if rules.capacity is not None and board[pit] >= rules.capacity:
            continue
        board[pit] += 1
        seeds -= 1
    return board, pit


def capture_chain(rules: Rules, board: list[int], player: int, last: int) -> list[int]:
    """The opponent pits a lap ending in ``last`` would capture, before the grand-slam rule."""
    opponent_row = row(rules, 1 - player)
    if last not in opponent_row or board[last] not in rules.trigger:
        return []
    pits = [last]
    pit = last - 1
    while pit in opponent_row and board[pit] in rules.chain:
        pits.append(pit)
        pit -= 1
    return pits


def is_grand_slam(rules: Rules, board: list[int], player: int, pits: list[int]) -> bool:
    """Whether capturing ``pits`` would leave the opponent's row empty."""
    return bool(pits) and all(board[pit] == 0 or pit in pits for pit in row(rules, 1 - player))


def legal_mask(rules: Rules, board: list[int], player: int) -> list[int]:
    """The legal actions of ``player`` (1 = legal), one per local pit."""
    own_row = row(rules, player)
    opponent_starving = row_seeds(rules, board, 1 - player) == 0
    all_singletons = all(board[pit] <= 1 for pit in own_row)
    mask = []
    for local in range(rules.n):
        origin = player * rules.n + local
        legal = board[origin] > 0
        # Ouril rule 7 (variant), applied before feeding.
        if legal and rules.singletons_only_if_all and board[origin] == 1 and not all_singletons:
            legal = False
        after, last = sow(rules, board, origin) if legal else (board, origin)
        # Feeding: the move must drop a seed into the empty opponent row.
        if legal and opponent_starving and row_seeds(rules, after, 1 - player) == 0:
            legal = False
        if legal and rules.grand_slam == "forbidden":
            legal = not is_grand_slam(rules, after, player, capture_chain(rules, after, player, last))
        mask.append(int(legal))
    return mask


# --- a whole game (or Urim match) -------------------------------------------------------------


class Referee:
    """A game in progress: position, ply count, repetition memory and, at the end, the result.

    Attributes mirror what the environment reports: ``board``, ``stores``,
    ``player`` (to move), ``ply``, ``passes`` (automatic passes after the last
    ply), ``status`` (``"running"``, ``"terminated"``, ``"truncated"``),
    ``end_reason``, ``scores``, ``winner`` (``None`` for a draw), ``points``
    (match points of the finished game), ``match`` and ``games_played``.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.match = [0, 0]
        self.games_played = 0

    @classmethod
    def start(cls, rules: Rules, first_player: int) -> Referee:
        """The opening position, ``first_player`` to move."""
        referee = cls(rules)
        referee._begin_game(referee._opening(), [0, 0], first_player)
        return referee

    @classmethod
    def load(cls, rules: Rules, board: list[int], stores: list[int], player: int) -> Referee:
        """An arbitrary position with ``player`` to move and a fresh memory."""
        referee = cls(rules)
        referee._begin_game(list(board), list(stores), player)
        return referee

    def _opening(self) -> list[int]:
        return [self.rules.total // (2 * self.rules.n)] * (2 * self.rules.n)

    def _begin_game(self, board: list[int], stores: list[int], player: int) -> None:
        rules = self.rules
        self.board = board
        self.stores = stores
        self.player = player
        self.starter = player
        self.ply = 0
        self.passes = 0
        self.status = "running"
        self.end_reason: str | None = None
        self.scores: list[int] | None = None
        self.winner: int | None = None
        self.points = [0, 0]
        self._pass_if_without_seeds()
        self.seen = {(tuple(board), self.player)}
        if rules.threshold is not None and max(stores) >= rules.threshold:
            self._finish("terminated", "threshold", collect=False)
        elif not any(self.mask()):
            self._end_without_move()

    def clone(self) -> Referee:
        """An independent copy (cheaper than ``copy.deepcopy``)."""
        twin = copy.copy(self)
        twin.board, twin.stores = list(self.board), list(self.stores)
        twin.points, twin.match = list(self.points), list(self.match)
        twin.seen = set(self.seen)
        return twin

    def mask(self) -> list[int]:
        if self.status != "running":
            return [0] * self.rules.n
        return legal_mask(self.rules, self.board, self.player)

    def play(self, action: int) -> None:
        """Plays a legal ``action`` for the player to move."""
        rules = self.rules
        if self.status != "running" or not self.mask()[action]:
            raise ValueError(f"action {action} is not legal here; the reference only plays legal moves.")
        mover = self.player
        board, last = sow(rules, self.board, mover * rules.n + action)
        captured = capture_chain(rules, board, mover, last)
        if rules.grand_slam == "no_capture" and is_grand_slam(rules, board, mover, captured):
            captured = []
        for pit in captured:
            self.stores[mover] += board[pit]
            board[pit] = 0
        self.board = board
        self.ply += 1
        self.passes = 0
        if captured:
            self.seen = set()  # captured seeds never come back
        # Ouril: a store at the threshold ends the game at once, nothing collected.
        if rules.threshold is not None and self.stores[mover] >= rules.threshold:
            self._finish("terminated", "threshold", collect=False)
            return
        self.player = 1 - mover
        self._pass_if_without_seeds()
        # End checks, in the order of §0.6: no legal move, repetition, ply cap.
        if not any(self.mask()):
            self._end_without_move()
            return
        position = (tuple(board), self.player)
        if rules.repetition and position in self.seen:
            self._finish("terminated", "repetition", collect=True)
            return
        self.seen.add(position)
        if self.ply >= rules.max_plies:
            self._finish("truncated", "max_plies", collect=True)

    def _pass_if_without_seeds(self) -> None:
        """After an allowed grand slam the emptied player passes, and the other must feed."""
        board, player = self.board, self.player
        if (
            self.rules.grand_slam == "allowed"
            and row_seeds(self.rules, board, player) == 0
            and row_seeds(self.rules, board, 1 - player) > 0
        ):
            self.passes = 1
            self.player = 1 - player

    def _end_without_move(self) -> None:
        starving = row_seeds(self.rules, self.board, 1 - self.player) == 0
        self._finish("terminated", "no_feeding_move" if starving else "no_legal_move", collect=True)

    def _finish(self, status: str, reason: str, collect: bool) -> None:
        rules = self.rules
        if collect:  # every seed goes to the owner of its row
            for player in range(2):
                self.stores[player] += row_seeds(rules, self.board, player)
            self.board = [0] * (2 * rules.n)
        self.status = status
        self.end_reason = reason
        self.scores = list(self.stores)
        if self.scores[0] == self.scores[1]:
            self.winner = None
        else:
            self.winner = 0 if self.scores[0] > self.scores[1] else 1
        if rules.game == "ouril":
            self.points = [int(self.winner == player) for player in range(2)]
        else:
            self.points = [self._urim_points(score) for score in self.scores]
        if rules.match_target is not None:
            self._close_match_game()

    def _urim_points(self, score: int) -> int:
        total = self.rules.total
        if score >= math.ceil(3 * total / 4):
            return self.rules.three_quarter_points
        return 1 if 2 * score > total else 0

    def _close_match_game(self) -> None:
        rules = self.rules
        self.match = [self.match[p] + self.points[p] for p in range(2)]
        self.games_played += 1
        if max(self.match) >= rules.match_target:
            self.status, self.end_reason = "terminated", "match_target"
        elif self.games_played >= rules.max_games:
            self.status, self.end_reason = "truncated", "max_games"
        else:  # the next game, the other player starting
            self._begin_game(self._opening(), [0, 0], 1 - self.starter)
            return
        if self.match[0] == self.match[1]:
            self.winner = None
        else:
            self.winner = 0 if self.match[0] > self.match[1] else 1
