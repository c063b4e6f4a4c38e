"""A game's layout, declared once: its state slots, its ``params`` entries and its observation.

Each rules module declares a :class:`Layout` near its top and takes its constants from it
(``FOURS = LAYOUT.slot("FOURS")``, ``DIRECTION = LAYOUT.param("DIRECTION")``). Everything else that
depends on the layout derives from the same declaration:

- the ``params`` array a config becomes (:meth:`Layout.pack_params` refuses a missing or unknown entry);
- the observation's names and bounds (:meth:`Layout.observation_names`, :meth:`Layout.observation_bounds`),
  which the env's ``observation_space`` uses;
- the tables of each game's rules page (:meth:`Layout.observation_table`, :meth:`Layout.state_table`),
  which ``docs/update_tables.py`` writes and a test keeps in step with the code.

Sizes that depend on the config are written as symbols: an observation run of ``"n"`` entries (the
pits per row) or a bound ``"T"`` (the seed total). The game gives their values for its config
(``Game.layout_values``); the docs tables print the symbols.

Example:
    >>> layout = Layout(
    ...     header=("PLAYER", "STORE"),
    ...     params=(Field("ROW_SIZE", "pits per row, n"),),
    ...     observation=(Feature("own_pit_{k}", "T", "seeds in own pit k", count="n"),),
    ...     symbols={"n": "pits per row", "T": "seeds in the game"},
    ... )
    >>> layout.observation_names({"n": 2, "T": 8})
    ['own_pit_0', 'own_pit_1']
    >>> layout.pack_params(ROW_SIZE=2).tolist()
    [2]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from mancala_envs.engine import state as header_slots
from mancala_envs.engine.state import GAME_SLOTS, HEADER_SIZE

__all__ = ["Feature", "Field", "Layout"]

#: a size or a bound: a number, or a symbol whose value the game gives for its config
Size = int | str


@dataclasses.dataclass(frozen=True)
class Field:
    """A named run of state slots or ``params`` entries.

    Attributes:
        name: The constant's name, e.g. ``"RESERVE"``; the run's first index is ``layout.slot(name)``.
        meaning: One line for the docs table.
        size: How many consecutive entries the run takes (``2``: one per player).
    """

    name: str
    meaning: str
    size: int = 1


@dataclasses.dataclass(frozen=True)
class Feature:
    """An entry of the observation vector, or a run of ``count`` entries named ``name.format(k=k)``.

    Attributes:
        name: The entry's name, e.g. ``"own_store"``; a run's name holds ``{k}``: ``"own_pit_{k}"``.
        high: Its upper bound (the lower bound is 0): a number or a symbol such as ``"T"``.
        meaning: One line for the docs table.
        count: Entries in the run: a number, or ``"n"`` (the pits per row).
        when: A symbol: the entry exists only when its value is true (``"match"``); ``None``: always.
    """

    name: str
    high: Size
    meaning: str
    count: Size = 1
    when: str | None = None


def _value(size: Size, values: Mapping[str, Any]) -> int:
    if isinstance(size, int):
        return size
    if size not in values:
        raise KeyError(f"the layout uses the symbol {size!r}, which the game's layout_values() does not give.")
    return int(values[size])


def _linear(size: Size) -> tuple[int, int]:
    """A count as ``(multiple of n, constant)``: the docs tables print indices such as ``2n+5``."""
    if isinstance(size, int):
        return 0, size
    if size == "n":
        return 1, 0
    raise ValueError(f"an observation run's count must be a number or 'n' (got {size!r}).")


def _index_text(n_part: int, constant: int) -> str:
    if n_part == 0:
        return str(constant)
    term = "n" if n_part == 1 else f"{n_part}n"
    if constant == 0:
        return term
    return f"{term}+{constant}" if constant > 0 else f"{term}−{-constant}"


def _shown(size: Size) -> str:
    return f"`{size}`" if isinstance(size, str) and len(size) > 1 else str(size)


class Layout:
    """A game's state slots, ``params`` entries and observation entries, declared once.

    Args:
        header: The shared header slots the game uses (names from :mod:`mancala_envs.engine.state`).
        slots: The game's own state slots, numbered from ``slots_start``.
        slots_start: The first own slot: ``GAME_SLOTS`` (the header's free part, the default) or, for a
            game with more own slots than that part holds, the slot after its board.
        params: The entries of the game's ``params`` array, in order.
        observation: The observation vector's entries, in order; entries with a ``when`` come last.
        symbols: What each symbol the declaration uses stands for (printed under the docs tables).

    Raises:
        ValueError: a header name that is not a shared slot, own slots that overflow the header, a name
            declared twice, or a conditional observation entry followed by an unconditional one.
    """

    def __init__(
        self,
        *,
        header: tuple[str, ...] = (),
        slots: tuple[Field, ...] = (),
        slots_start: int = GAME_SLOTS,
        params: tuple[Field, ...] = (),
        observation: tuple[Feature, ...] = (),
        symbols: Mapping[str, str] | None = None,
    ) -> None:
        unknown = [name for name in header if not isinstance(getattr(header_slots, name, None), int)]
        if unknown:
            raise ValueError(f"header slots {unknown} are not shared slots of mancala_envs.engine.state.")
        self.header = tuple(header)
        self.slots = tuple(slots)
        self.slots_start = slots_start
        self.params = tuple(params)
        self.observation = tuple(observation)
        self.symbols = dict(symbols or {})
        used = {
            size
            for feature in observation
            for size in (feature.high, feature.count, feature.when)
            if isinstance(size, str)
        }
        if used - set(self.symbols):
            raise ValueError(
                f"the layout uses symbols {sorted(used - set(self.symbols))} without saying what they "
                "stand for; add them to symbols."
            )
        self._slot_index = self._number(slots, slots_start, "slot")
        self._param_index = self._number(params, 0, "param")
        self.slots_end = slots_start + sum(field.size for field in slots)
        if slots_start == GAME_SLOTS and self.slots_end > HEADER_SIZE:
            raise ValueError(
                f"the own slots take {self.slots_end - GAME_SLOTS} slots; the header has "
                f"{HEADER_SIZE - GAME_SLOTS} free (put them after the board with slots_start)."
            )
        self.n_params = sum(field.size for field in params)
        seen_conditional = False
        for feature in observation:
            if feature.when is None and seen_conditional:
                raise ValueError(
                    f"observation entry {feature.name!r} follows a conditional one; put conditional "
                    "entries last, so that every index before them stays fixed."
                )
            seen_conditional = seen_conditional or feature.when is not None

    @staticmethod
    def _number(fields: tuple[Field, ...], start: int, kind: str) -> dict[str, int]:
        index: dict[str, int] = {}
        for field in fields:
            if field.name in index:
                raise ValueError(f"{kind} {field.name!r} is declared twice.")
            index[field.name] = start
            start += field.size
        return index

    def extended(
        self,
        *,
        header: tuple[str, ...] = (),
        slots: tuple[Field, ...] = (),
        slots_start: int | None = None,
        params: tuple[Field, ...] = (),
        observation: tuple[Feature, ...] = (),
        symbols: Mapping[str, str] | None = None,
    ) -> Layout:
        """This layout with more entries appended (a family's shared layout, extended by one game)."""
        return Layout(
            header=self.header + tuple(name for name in header if name not in self.header),
            slots=self.slots + slots,
            slots_start=self.slots_start if slots_start is None else slots_start,
            params=self.params + params,
            observation=self.observation + observation,
            symbols={**self.symbols, **(symbols or {})},
        )

    # --- constants ------------------------------------------------------------------------------------
    def slot(self, name: str) -> int:
        """The state index of the game's own slot ``name`` (the first of its run)."""
        return self._slot_index[name]

    def param(self, name: str) -> int:
        """The ``params`` index of entry ``name`` (the first of its run)."""
        return self._param_index[name]

    def pack_params(self, **values: int | list[int]) -> np.ndarray:
        """The ``params`` array (``int64``) from a value per declared entry (a list for a run).

        Raises:
            ValueError: an entry is missing, unknown, or a run has the wrong length.
        """
        missing = [field.name for field in self.params if field.name not in values]
        unknown = sorted(set(values) - set(self._param_index))
        if missing or unknown:
            raise ValueError(f"params: missing {missing}, unknown {unknown}; give one value per declared entry.")
        packed: list[int] = []
        for field in self.params:
            value = values[field.name]
            entries = list(value) if isinstance(value, (list, tuple)) else [value]
            if len(entries) != field.size:
                raise ValueError(f"params entry {field.name!r} takes {field.size} values (got {len(entries)}).")
            packed.extend(int(entry) for entry in entries)
        return np.array(packed, dtype=np.int64)

    # --- observation ----------------------------------------------------------------------------------
    def features(self, values: Mapping[str, Any]) -> list[Feature]:
        """The observation entries present for a config (those whose ``when`` holds)."""
        return [feature for feature in self.observation if feature.when is None or values.get(feature.when)]

    def observation_names(self, values: Mapping[str, Any]) -> list[str]:
        """The names of the observation vector's entries, in order, for a config's ``values``."""
        names: list[str] = []
        for feature in self.features(values):
            count = _value(feature.count, values)
            if "{k}" in feature.name:
                names.extend(feature.name.format(k=k) for k in range(count))
            else:
                names.extend([feature.name] * count)
        return names

    def observation_bounds(self, values: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """The ``(low, high)`` int32 arrays of the observation vector for a config's ``values``."""
        highs: list[int] = []
        for feature in self.features(values):
            highs.extend([_value(feature.high, values)] * _value(feature.count, values))
        high = np.array(highs, dtype=np.int32)
        return np.zeros_like(high), high

    # --- docs tables ----------------------------------------------------------------------------------
    def observation_table(self) -> str:
        """The rules page's observation table (Markdown): index, name, range, meaning."""
        rows = ["| Index | Name | Range | Meaning |", "|---|---|---|---|"]
        n_part, constant = 0, 0
        for feature in self.observation:
            count_n, count_c = _linear(feature.count)
            first = _index_text(n_part, constant)
            n_part, constant = n_part + count_n, constant + count_c
            last = _index_text(n_part, constant - 1)
            index = first if (count_n, count_c) == (0, 1) else f"{first} – {last}"
            name = feature.name.replace("{k}", "k")
            meaning = feature.meaning if feature.when is None else f"{feature.meaning} (only when `{feature.when}`)"
            rows.append(f"| {index} | `{name}` | 0 – {_shown(feature.high)} | {meaning} |")
        legend = "; ".join(f"{_shown(symbol)}: {meaning}" for symbol, meaning in self.symbols.items())
        return "\n".join(rows) + (f"\n\n{legend}." if legend else "")

    def state_table(self) -> str:
        """The rules page's state table (Markdown): the game's own slots, the shared slots it uses, its params."""
        rows = ["| Part | Index | Name | Meaning |", "|---|---|---|---|"]
        for field in self.slots:
            index = self.slot(field.name)
            where = "header" if self.slots_start == GAME_SLOTS else "after the board"
            span = str(index) if field.size == 1 else f"{index} – {index + field.size - 1}"
            rows.append(f"| own slot ({where}) | {span} | `{field.name}` | {field.meaning} |")
        for field in self.params:
            index = self.param(field.name)
            span = str(index) if field.size == 1 else f"{index} – {index + field.size - 1}"
            rows.append(f"| params | {span} | `{field.name}` | {field.meaning} |")
        shared = ", ".join(f"`{name}`" for name in self.header)
        return "\n".join(rows) + f"\n\nShared header slots it uses: {shared}."
