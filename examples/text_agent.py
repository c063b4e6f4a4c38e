"""A scripted text agent evaluated like a language model: it reads the prompt and answers in words.

The agent (:class:`MostSeedsAgent`) stands in for a model behind an API: it gets the text view's prompt
(:mod:`mancala_envs.views.text_view`), finds the legal moves and the board in it, and answers with the move whose
pit holds the most seeds. To show the parser's tolerance and the arena's retries it answers with chatter now and
then ("Let me think... I'll play move 3."), and every few decisions its first answer names a move that does not
exist, so the arena asks again with the parser's message appended. No network, no model download::

    python examples/text_agent.py --env-id mancala/kalah-v0 --games 4 --opponents random greedy

To evaluate a real model, pass any function ``prompt -> reply`` to
:func:`~mancala_envs.analysis.text_arena.evaluate_text_agent` instead of the scripted agent.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass, field

from mancala_envs.analysis.text_arena import TextArenaResult, evaluate_text_agent

#: a legal move's line in the prompt: ``"  move 3: sows pit 9"``
MOVE_LINE = re.compile(r"^  move (\d+): .*?\bpit (\d+)", re.MULTILINE)
#: a row of the board: ``"  player_1 [   4   4 ]  store 0"`` or ``"  player_0 inner  [ ... ]  pits  15 ..."``
ROW_LINE = re.compile(r"^  (player_[01])\b[^\[]*\[([\d ]+)\](?:.*\bpits((?:\s+\d+)+))?")
#: a line of pit labels of a two-row board: ``"  pit         11  10   9"``
LABEL_LINE = re.compile(r"^  pit((?:\s+\d+)+)\s*$")


@dataclass
class Args:
    env_id: str = "mancala/kalah-v0"
    """a game name or registry id (every registered game works)"""
    games: int = 4
    """games against each opponent (seats alternate)"""
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """the opponents' agent names (make_agent); the ladder's cheap anchors if none are given"""
    retries: int = 2
    """times a decision is asked again after an illegal reply, before the agent forfeits"""
    seed: int = 0
    """seeds every game"""
    show_prompt: bool = False
    """print the first prompt the agent was shown"""


def pit_seeds(prompt: str) -> dict[tuple[str, int], int]:
    """The seeds of every pit the prompt's board shows, by ``(owner, pit label)``.

    Two-row boards label the pits on their own lines (above the top row, below the bottom row); four-row boards
    after each row (``pits 7 6 5 ...``, each side in its own frame).
    """
    seeds: dict[tuple[str, int], int] = {}
    lines = prompt.splitlines()
    for index, line in enumerate(lines):
        row = ROW_LINE.match(line)
        if row is None:
            continue
        owner, counts = row.group(1), [int(count) for count in row.group(2).split()]
        labels_text = row.group(3)
        if labels_text is None:  # the label line just above (top row) or just below (bottom row)
            for near in (lines[index - 1], lines[index + 1] if index + 1 < len(lines) else ""):
                label_line = LABEL_LINE.match(near)
                if label_line is not None:
                    labels_text = label_line.group(1)
                    break
        if labels_text is None:
            continue
        labels = [int(label) for label in labels_text.split()]
        seeds.update(((owner, label), count) for label, count in zip(labels, counts, strict=True))
    return seeds


class MostSeedsAgent:
    """A scripted text agent: the legal move whose pit holds the most seeds (the first of equals).

    Args:
        chatter_every: Every ``chatter_every``-th decision is answered in a sentence rather than ``"move k"``.
        mistake_every: Every ``mistake_every``-th decision's first answer names a move that does not exist
            (the arena then asks again).
    """

    name = "most-seeds"

    def __init__(self, chatter_every: int = 3, mistake_every: int = 5) -> None:
        self.chatter_every = chatter_every
        self.mistake_every = mistake_every
        self.decisions = 0

    def __call__(self, prompt: str) -> str:
        retry = "was not accepted." in prompt
        if not retry:
            self.decisions += 1
            if self.decisions % self.mistake_every == 0:
                return "move 99"
        mover = re.search(r"You are (player_[01])\.", prompt)
        if mover is None:
            raise ValueError("the prompt names no player; is it a mancala_envs text view prompt?")
        seeds = pit_seeds(prompt)
        moves = [(int(move), int(pit)) for move, pit in MOVE_LINE.findall(prompt.split("Legal moves:")[-1])]
        if not moves:
            raise ValueError("the prompt lists no legal move; is it a mancala_envs text view prompt?")
        # a pit is found by its owner and label (four rows), or by its label alone (two rows: global labels)
        by_label = {label: count for (_, label), count in seeds.items()}
        chosen, _ = max(
            moves, key=lambda move: (seeds.get((mover.group(1), move[1]), by_label.get(move[1], 0)), -move[0])
        )
        if self.decisions % self.chatter_every == 0:
            return f"Let me think... the fullest pit is best. I'll play **move {chosen}**."
        return f"move {chosen}"


def run(args: Args) -> TextArenaResult:
    """Evaluates :class:`MostSeedsAgent` with the arena and prints the table (and the first prompt if asked)."""
    agent = MostSeedsAgent()
    started = time.perf_counter()
    result = evaluate_text_agent(
        agent,
        args.env_id,
        opponents=args.opponents or None,
        games=args.games,
        retries=args.retries,
        seed=args.seed,
        name=agent.name,
    )
    seconds = time.perf_counter() - started
    if args.show_prompt and result.transcripts:
        print(result.transcripts[0]["exchanges"][0]["prompt"], end="\n\n")
    print(result.format_table())
    total = result.total()
    print(f"{total.replies} replies in {seconds:.2f} s ({total.replies / seconds:.0f} replies per second)")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = Args()
    parser.add_argument("--env-id", default=defaults.env_id)
    parser.add_argument("--games", type=int, default=defaults.games)
    parser.add_argument("--opponents", nargs="*", default=defaults.opponents)
    parser.add_argument("--retries", type=int, default=defaults.retries)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--show-prompt", action="store_true")
    run(Args(**vars(parser.parse_args())))


if __name__ == "__main__":
    main()
