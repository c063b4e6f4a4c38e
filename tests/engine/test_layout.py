"""Each game declares its layout once (``LAYOUT``): the declaration, the compiled code and the docs agree."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from mancala_envs.engine import state as header
from mancala_envs.engine.layout import Feature, Field, Layout
from mancala_envs.engine.state import BOARD, GAME_SLOTS, HEADER_SIZE, RUNNING, STATUS
from mancala_envs.engine.trace import new_trace
from mancala_envs.envs.registration import VARIANTS, make_game
from mancala_envs.games import game_classes

ROOT = Path(__file__).resolve().parents[2]
GAME_CLASSES = game_classes()


def _rules_and_companion(game_class: type) -> tuple[ModuleType, ModuleType]:
    """A game's two modules, by the shape of a game's folder: ``<folder>/<folder>_rules.py`` and
    ``<folder>/<folder>_companion.py``, the folder being the package that exposes the game's class."""
    package = game_class.__module__
    prefix = f"{package}.{package.rsplit('.', 1)[-1]}"  # mancala_envs.games.kalah.kalah
    return importlib.import_module(f"{prefix}_rules"), importlib.import_module(f"{prefix}_companion")


def _load_docs_script():
    spec = importlib.util.spec_from_file_location("update_tables", ROOT / "docs" / "update_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rules_pages_tables_match_the_layouts() -> None:
    stale = _load_docs_script().stale_pages()
    assert stale == [], f"run python docs/update_tables.py: {stale}"


def test_docs_script_refuses_a_page_without_markers() -> None:
    script = _load_docs_script()
    with pytest.raises(ValueError, match="observation table markers"):
        script.updated_page("# Ouril\n\nno tables here\n", GAME_CLASSES[0])


@pytest.mark.parametrize("game_class", GAME_CLASSES, ids=lambda cls: cls.name)
def test_every_game_declares_a_layout_of_its_own_module(game_class: type) -> None:
    module, _companion = _rules_and_companion(game_class)
    assert game_class.layout is module.LAYOUT
    assert importlib.import_module(game_class.__module__).LAYOUT is module.LAYOUT  # the folder re-exports it
    layout = game_class.layout
    # The game's own slots are out of the shared header's way: in its free part, or after the board.
    for field in layout.slots:
        index = layout.slot(field.name)
        assert index >= GAME_SLOTS
        assert index + field.size <= HEADER_SIZE or index >= BOARD
        # The rules module's constant of that name is the declared slot.
        assert getattr(module, field.name) == index
    for field in layout.params:
        assert getattr(module, field.name) == layout.param(field.name), field.name
    for name in layout.header:
        assert getattr(header, name) < GAME_SLOTS


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_params_and_observation_follow_the_declaration(variant) -> None:
    game = make_game(variant.id)
    layout = game.layout
    assert game.params.shape == (layout.n_params,)
    names = game.observation_names()
    low, high = game.observation_bounds()
    assert len(names) == len(set(names)) == game.observation_size == low.shape[0] == high.shape[0]
    assert (low == 0).all() and (high >= 1).all()
    # The compiled observe writes exactly the declared entries: no more (it would overrun the
    # buffer) and no fewer (a sentinel would survive), for both players along a random game.
    rng = np.random.default_rng(7)
    state = game.new_state(0)
    trace = new_trace()
    for _ in range(60):
        for player in (0, 1):
            observation = np.full(game.observation_size + 1, -7, dtype=np.int32)
            mask = np.empty(game.n_actions, dtype=np.int8)
            game.observe_function(state, game.params, player, observation, mask)
            assert (observation[:-1] != -7).all(), [n for n, v in zip(names, observation, strict=False) if v == -7]
            assert observation[-1] == -7
            assert ((observation[:-1] >= low) & (observation[:-1] <= high)).all()
        if state[STATUS] != RUNNING:
            break
        game.step(state, int(rng.choice(game.legal_actions(state))), trace)


def test_pack_params_names_what_is_missing_or_unknown() -> None:
    layout = Layout(params=(Field("A", "a"), Field("PAIR", "two values", size=2)))
    assert layout.pack_params(A=3, PAIR=[4, 5]).tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match=r"missing \['PAIR'\], unknown \['B'\]"):
        layout.pack_params(A=1, B=2)
    with pytest.raises(ValueError, match="'PAIR' takes 2 values"):
        layout.pack_params(A=1, PAIR=[1])


def test_layout_refuses_inconsistent_declarations() -> None:
    with pytest.raises(ValueError, match="not shared slots"):
        Layout(header=("NOT_A_SLOT",))
    with pytest.raises(ValueError, match="declared twice"):
        Layout(params=(Field("A", "a"), Field("A", "again")))
    with pytest.raises(ValueError, match="free"):
        Layout(slots=(Field("BIG", "too many", size=HEADER_SIZE),))
    with pytest.raises(ValueError, match="without saying what they stand for"):
        Layout(observation=(Feature("x", "T", "x"),))
    with pytest.raises(ValueError, match="follows a conditional one"):
        Layout(observation=(Feature("a", 1, "a", when="m"), Feature("b", 1, "b")), symbols={"m": "match"})


def test_tables_print_symbolic_indices() -> None:
    layout = Layout(
        observation=(
            Feature("own_pit_{k}", "T", "own pits", count="n"),
            Feature("flag", 1, "a flag"),
            Feature("closed_{k}", 1, "closed pits", count="n", when="match"),
        ),
        symbols={"n": "pits per row", "T": "seeds", "match": "a match"},
    )
    assert layout.observation_table().splitlines()[2:5] == [
        "| 0 – n−1 | `own_pit_k` | 0 – T | own pits |",
        "| n | `flag` | 0 – 1 | a flag |",
        "| n+1 – 2n | `closed_k` | 0 – 1 | closed pits (only when `match`) |",
    ]
    assert layout.observation_names({"n": 2, "T": 8}) == ["own_pit_0", "own_pit_1", "flag"]
    assert layout.observation_names({"n": 1, "T": 8, "match": True})[-1] == "closed_0"


@pytest.mark.parametrize("game_class", GAME_CLASSES, ids=lambda cls: cls.name)
def test_every_game_is_a_rules_module_plus_a_companion(game_class: type) -> None:
    rules, companion = _rules_and_companion(game_class)
    mixin = getattr(companion, f"{game_class.__name__}Companion")
    rules_class = getattr(rules, f"{game_class.__name__}Rules")
    # The companion comes first among the class's bases, so its people-side methods win.
    assert game_class.__bases__ == (mixin, rules_class)
    assert importlib.import_module(game_class.__module__).GAME is game_class
    # The imports run one way: the companion imports the rules module, the rules module nothing of the companion.
    assert not [value for value in vars(rules).values() if getattr(value, "__module__", None) == companion.__name__]
    assert companion.__name__ not in {getattr(value, "__name__", None) for value in vars(rules).values()}
    assert game_class.env_doc == mixin.__dict__["env_doc"]
    assert game_class.__name__ in game_class.env_doc or game_class.name.replace("_", " ").title() in game_class.env_doc
    # The rules module defines no people-side method itself: positions, infos and text are the companion's.
    people_side = {
        "load_position",
        "position_flags",
        "check_position_flags",
        "apply_position_flags",
        "info",
        "render_text",
        "describe_action",
        "move_words",
        "layout_values",
        "env_doc",
    }
    assert not people_side & set(vars(game_class)), sorted(people_side & set(vars(game_class)))
    assert not people_side & set(vars(rules_class)), sorted(people_side & set(vars(rules_class)))
