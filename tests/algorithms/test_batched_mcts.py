"""The batched PUCT search (mancala_envs.algorithms.batched_mcts): one game at a time and N at once agree exactly,
values keep their sign across a ply after which the same player moves again, and the network's batched
evaluation equals its rows one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from mancala_envs.agents.alphazero import AlphaZeroNetwork, encoded_width
from mancala_envs.algorithms.batched_mcts import (
    BatchedMCTS,
    choose_actions,
    dirichlet_noise,
    legal_masks,
    search_one,
    uniform_evaluator,
)
from mancala_envs.engine.state import BOARD, LEGAL, RUNNING, STATUS, STORE
from mancala_envs.games.kalah import Kalah
from mancala_envs.games.ouril import Ouril


def _positions(game, count: int, seed: int) -> np.ndarray:
    """``count`` running positions reached by random plies from the start (0 to 20 plies each)."""
    rng = np.random.default_rng(seed)
    trace = np.empty(0, np.int64)
    states = []
    while len(states) < count:
        state = game.new_state(len(states) % 2)
        for _ in range(int(rng.integers(0, 21))):
            legal = game.legal_actions(state)
            game.step(state, int(rng.choice(legal)), trace)
            if state[STATUS] != RUNNING:
                break
        if state[STATUS] == RUNNING:
            states.append(state)
    return np.stack(states)


def _network(game, seed: int = 0) -> AlphaZeroNetwork:
    rng = np.random.default_rng(seed)

    def layer(out: int, width: int) -> tuple[np.ndarray, np.ndarray]:
        return (rng.normal(0, 0.3, (out, width)).astype(np.float32), rng.normal(0, 0.1, out).astype(np.float32))

    inputs = encoded_width("one_hot", game)
    return AlphaZeroNetwork([layer(32, inputs), layer(32, 32)], layer(game.n_actions, 32), layer(1, 32), "ReLU", game,
                            "one_hot")  # fmt: skip


@pytest.mark.parametrize("game", [Kalah(), Ouril()], ids=["kalah", "ouril"])
def test_uniform_evaluator_batched_equals_one_game_at_a_time(game) -> None:
    states = _positions(game, 6, seed=3)
    masks = legal_masks(states, game.n_actions)
    noise = np.concatenate([dirichlet_noise(np.random.default_rng(seed), masks[i : i + 1], 0.3) for i, seed in
                            enumerate(range(100, 106))])  # fmt: skip
    batched = BatchedMCTS(game, 40).run(states, uniform_evaluator(game), noise)
    for i in range(len(states)):
        alone = BatchedMCTS(game, 40).run(states[i : i + 1], uniform_evaluator(game), noise[i : i + 1])
        np.testing.assert_array_equal(batched.visits[i], alone.visits[0])
        assert batched.values[i] == alone.values[0]
        assert batched.visits[i].sum() == 40
        assert (batched.visits[i][~masks[i]] == 0).all()
    # the noise made the games' searches differ: the equality above compares different counts
    assert len({tuple(row) for row in batched.visits}) > 1


def test_uniform_evaluator_spreads_visits_evenly_at_the_start() -> None:
    game = Kalah()
    result = search_one(game, game.new_state(0), uniform_evaluator(game), 12)
    np.testing.assert_array_equal(result.visits[0], [2, 2, 2, 2, 2, 2])
    np.testing.assert_array_equal(result.priors[0], np.full(6, 1 / 6))


def test_a_ply_that_keeps_the_mover_keeps_the_values_sign() -> None:
    """Kalah's start: sowing pit 2 (4 seeds) ends in the store, so the same player moves again. An evaluator that
    calls every position won for the player to move makes that move's first visit worth +1 to the root player (no
    sign flip) and every other move's -1 (the opponent moves next): the other moves are tried once, never again.
    With "the player to move loses" it is the other way round: pit 2 is tried once."""
    game = Kalah()

    def constant(value: float):
        def evaluate(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return np.ones(masks.shape), np.full(len(observations), value)

        return evaluate

    np.testing.assert_array_equal(search_one(game, game.new_state(0), constant(1.0), 60).visits[0], [1, 1, 55, 1, 1, 1])
    losing = search_one(game, game.new_state(0), constant(-1.0), 60).visits[0]
    assert losing[2] == 1 and losing.sum() == 60


def test_terminal_leaves_use_the_result_not_the_evaluator() -> None:
    """A Kalah position one ply from the end: the evaluator says 0 everywhere, yet the winning move's edge gets the
    value 1 (the game's result) on every visit."""
    game = Kalah()
    state = game.new_state(0)
    state[BOARD : BOARD + 12] = 0
    state[BOARD + 5] = 1  # player 0's last pit: one seed, sown into the store -> player 0's row is empty
    state[BOARD + 6] = 1  # player 1 keeps one seed
    state[STORE], state[STORE + 1] = 30, 16
    state[LEGAL] = game.legal_bits(state)
    game.check_state(state)
    result = search_one(game, state, uniform_evaluator(game), 5)
    np.testing.assert_array_equal(result.visits[0], [0, 0, 0, 0, 0, 5])
    assert result.values[0] == 1.0


def test_network_batch_equals_rows_and_search_agrees() -> None:
    game = Kalah()
    network = _network(game)
    states = _positions(game, 8, seed=5)
    observations = np.stack([game.observe_with_mask(s, int(s[0]))[0] for s in states])
    masks = legal_masks(states, game.n_actions)
    priors, values = network.evaluate(observations, masks)
    for i in range(len(states)):
        row_priors, row_values = network.evaluate(observations[i : i + 1], masks[i : i + 1])
        np.testing.assert_allclose(priors[i], row_priors[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(values[i], row_values[0], rtol=1e-12, atol=1e-15)
    assert np.allclose(priors.sum(axis=1), 1.0) and (priors[~masks] == 0).all()
    batched = BatchedMCTS(game, 30).run(states, network.evaluate)
    for i in range(len(states)):
        np.testing.assert_array_equal(batched.visits[i], search_one(game, states[i], network.evaluate, 30).visits[0])


def test_torch_forward_equals_numpy_forward() -> None:
    torch = pytest.importorskip("torch")
    from mancala_envs.training.alphazero_training import policy_value_net, to_network

    game = Kalah()
    torch.manual_seed(0)
    model = policy_value_net(161, (32, 16), game.n_actions)
    network = to_network(model, game, "one_hot")
    states = _positions(game, 8, seed=7)
    observations = np.stack([game.observe_with_mask(s, int(s[0]))[0] for s in states])
    features = network.encode(observations)
    logits, values = network.forward(features)
    with torch.no_grad():
        torch_logits, torch_values = model(torch.from_numpy(features))
    np.testing.assert_allclose(logits, torch_logits.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(values, torch_values.numpy(), rtol=1e-5, atol=1e-5)


def test_choose_actions_and_noise() -> None:
    rng = np.random.default_rng(0)
    visits = np.array([[3, 7, 7, 0], [0, 0, 1, 0]])
    picks = {tuple(choose_actions(visits, rng)) for _ in range(50)}
    assert picks == {(1, 2), (2, 2)}  # ties drawn, never a less visited action
    drawn = np.array([choose_actions(visits, rng, 1.0)[0] for _ in range(2000)])
    assert set(drawn) == {0, 1, 2} and abs((drawn == 0).mean() - 3 / 17) < 0.03
    masks = np.array([[True, False, True, True]])
    noise = dirichlet_noise(np.random.default_rng(1), masks, 0.3)
    assert noise[0, 1] == 0 and noise.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(noise, dirichlet_noise(np.random.default_rng(1), masks, 0.3))
