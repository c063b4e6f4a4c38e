"""The AlphaZero-style agent (``"az:N"``): a policy-value network, played in numpy, with PUCT search at move time.

The network is a small MLP trained by :mod:`mancala_envs.training.alphazero_training` (self-play with the batched
search of :mod:`mancala_envs.algorithms.batched_mcts`): a trunk of hidden layers on the encoded observation
of the player to move, then two heads, the **policy** (a logit per action) and the **value** (one number,
squashed by ``tanh`` into [-1, 1]: the expected result for the player to move). It is played here in numpy
(float64, so that a batch and its rows one at a time give the same numbers), so ``"az:N"`` needs no torch.

**The weights file** is ``<game>_az.safetensors`` (:func:`alphazero_file_name`) in the weights folder of the
``"pretrained"`` agent (:func:`~mancala_envs.agents.pretrained.weights_dir`), listed in the same SHA-256
manifest and read through the same door (:func:`~mancala_envs.agents.pretrained.read_listed_weights`): its
SHA-256 is checked before anything in it is parsed, then its metadata (``format`` :data:`FORMAT`, ``version``
:data:`VERSION`, ``game``, ``game_config``, ``encoding``, ``activation``, ``observation_size``, ``n_actions``)
and its tensors (float32, finite, shapes that chain): ``trunk.0.weight``, ``trunk.0.bias``, ``trunk.1.weight``,
..., ``policy.weight``, ``policy.bias``, ``value.weight``, ``value.bias`` (weights ``(out, in)`` as torch keeps
them). A refusal is a :class:`~mancala_envs.agents.pretrained.PretrainedWeightsError` naming the fix; a game
without a file raises :class:`~mancala_envs.agents.pretrained.MissingWeightsError` naming the training command
(:data:`TRAIN_COMMAND`).

Example:
    >>> from mancala_envs.agents.alphazero import alphazero_file_name
    >>> alphazero_file_name("kalah_v0")
    'kalah_az.safetensors'
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents.agent import StateAgent, masked_choice
from mancala_envs.agents.pretrained import (
    ACTIVATIONS,
    PretrainedWeightsError,
    check_game_metadata,
    check_layers,
    checked_metadata,
    config_json,
    read_listed_weights,
    safetensors_header,
    weights_file_name,
    write_with_manifest,
)
from mancala_envs.algorithms.batched_mcts import (
    DEFAULT_C_PUCT,
    BatchedMCTS,
    check_c_puct,
    check_simulations,
    choose_actions,
)
from mancala_envs.common.files import check_destination
from mancala_envs.engine.state import PLAYER
from mancala_envs.games.game import Game

__all__ = [
    "FORMAT",
    "TRAIN_COMMAND",
    "VERSION",
    "AlphaZeroAgent",
    "AlphaZeroNetwork",
    "alphazero_destination",
    "alphazero_file_name",
    "encoded_width",
    "export_alphazero",
    "load_alphazero",
]

#: The ``format`` metadata entry of an AlphaZero weights file.
FORMAT = "mancala-envs alphazero"
#: The ``version`` metadata entry this library writes and reads.
VERSION = "1"
#: The command that trains and exports a game's AlphaZero weights (named by the refusal of missing weights).
TRAIN_COMMAND = "mancala-envs train --alphazero --game {game} --export-pretrained {path}"
_SUFFIX = "_az.safetensors"
_RESERVED = ("format", "version", "game", "game_config", "encoding", "activation", "observation_size", "n_actions")


def _as_game(game: Game | str) -> Game:
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        from mancala_envs.envs.registration import make_game, resolve_env_id

        return make_game(resolve_env_id(game))
    raise TypeError(f"game must be a mancala_envs Game, or a game name such as 'kalah' (got {type(game).__name__}).")


def alphazero_file_name(game: Game | str) -> str:
    """The file of ``game``'s AlphaZero weights in a weights folder: ``"kalah_az.safetensors"``."""
    return weights_file_name(game).removesuffix(".safetensors") + _SUFFIX


def _encoder(encoding: str | Mapping[str, Any] | None, game: Game) -> Any:
    from mancala_envs.wrappers.encodings import env_encoder

    return env_encoder(encoding, game)


def encoded_width(encoding: str | Mapping[str, Any] | None, game: Game) -> int:
    """The number of features of ``game``'s observation under ``encoding`` (the network's input width)."""
    encoder = _encoder(encoding, game)
    return game.observation_size if encoder is None else int(np.prod(encoder.space.shape))


# --- the network --------------------------------------------------------------------------------------------------
Layer = tuple[np.ndarray, np.ndarray]


class AlphaZeroNetwork:
    """A policy-value MLP as numpy arrays: encodes raw observations, gives priors and values.

    Args:
        trunk: ``(weight, bias)`` of each hidden layer (``weight`` ``(out, in)``), each followed by ``activation``.
        policy: The policy head's ``(weight, bias)``: ``n_actions`` logits.
        value: The value head's ``(weight, bias)``: one number, then ``tanh``.
        activation: The activation after each trunk layer, a name in
            :data:`~mancala_envs.agents.pretrained.ACTIVATIONS` (``"ReLU"``).
        game: The game (and config) it plays.
        encoding: The observation encoding it reads (``"one_hot"``, ``"flat"``, ``None`` for the raw one).
        metadata: The file's metadata (strings).

    Raises:
        PretrainedWeightsError: an unknown activation, or layers that do not chain from the encoded observation
            to the heads, or values that are not finite floats.
    """

    def __init__(
        self,
        trunk: list[Layer],
        policy: Layer,
        value: Layer,
        activation: str,
        game: Game,
        encoding: str | Mapping[str, Any] | None,
        metadata: Mapping[str, str] | None = None,
        where: str = "the AlphaZero network",
    ) -> None:
        if activation not in ACTIVATIONS:
            raise PretrainedWeightsError(
                f"{where}: activation {activation!r} is not one the az agent plays ({list(ACTIVATIONS)}); "
                "retrain with one of them."
            )
        self.game = game
        self.encoding = encoding
        self.activation = activation
        self.metadata = dict(metadata or {})
        self.n_actions = game.n_actions
        self._encoder = _encoder(encoding, game)
        inputs = encoded_width(encoding, game)
        check_layers([*trunk, policy], inputs, game.n_actions, where)
        check_layers([*trunk, value], inputs, 1, where)
        frozen = [
            (np.array(weight, np.float32), np.array(bias, np.float32)) for weight, bias in [*trunk, policy, value]
        ]
        for weight, bias in frozen:
            weight.flags.writeable = bias.flags.writeable = False
        self.trunk, self.policy, self.value = frozen[:-2], frozen[-2], frozen[-1]
        # float64: a batch and its rows one at a time round alike (see PretrainedPolicy)
        self._trunk64 = [(w.astype(np.float64), b.astype(np.float64)) for w, b in self.trunk]
        self._policy64 = (self.policy[0].astype(np.float64), self.policy[1].astype(np.float64))
        self._value64 = (self.value[0].astype(np.float64), self.value[1].astype(np.float64))
        self._activate = ACTIVATIONS[activation]

    @property
    def hidden(self) -> list[int]:
        """The widths of the trunk's layers."""
        return [weight.shape[0] for weight, _ in self.trunk]

    def encode(self, observations: np.ndarray) -> np.ndarray:
        """The ``(k, features)`` float32 features of ``(k, observation_size)`` raw observations."""
        observations = np.asarray(observations)
        if observations.ndim != 2 or observations.shape[1] != self.game.observation_size:
            raise ValueError(
                f"observations must have shape (k, {self.game.observation_size}), raw observations of "
                f"{self.game.env_name} (got {observations.shape}); stack single ones with observation[None]."
            )
        encoded = observations if self._encoder is None else self._encoder.encode(observations)
        return np.asarray(encoded, dtype=np.float32).reshape(len(observations), -1)

    def forward(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``(k, n_actions)`` policy logits and ``(k,)`` values (in [-1, 1]) of ``(k, features)`` features,
        in float64."""
        hidden = np.asarray(features, np.float64)
        for weight, bias in self._trunk64:
            hidden = self._activate(hidden @ weight.T + bias)
        logits = hidden @ self._policy64[0].T + self._policy64[1]
        values = np.tanh(hidden @ self._value64[0].T + self._value64[1])[:, 0]
        return logits, values

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The search's evaluator (:data:`~mancala_envs.algorithms.batched_mcts.Evaluator`): the priors (softmax of
        the logits over the legal actions of ``masks``, 0 elsewhere) and values of raw observations."""
        logits, values = self.forward(self.encode(observations))
        legal = np.asarray(masks, bool)
        scores = np.where(legal, logits, -np.inf)
        top = scores.max(axis=1, keepdims=True)
        weights = np.where(legal, np.exp(scores - np.where(np.isfinite(top), top, 0.0)), 0.0)
        totals = weights.sum(axis=1, keepdims=True)
        return weights / np.where(totals > 0, totals, 1.0), values

    def tensors(self) -> dict[str, np.ndarray]:
        """The float32 tensors by the names of the weights file."""
        out: dict[str, np.ndarray] = {}
        for index, (weight, bias) in enumerate(self.trunk):
            out[f"trunk.{index}.weight"], out[f"trunk.{index}.bias"] = weight, bias
        out["policy.weight"], out["policy.bias"] = self.policy
        out["value.weight"], out["value.bias"] = self.value
        return {name: np.ascontiguousarray(array) for name, array in out.items()}

    def __repr__(self) -> str:
        name = self.game.env_name
        return f"AlphaZeroNetwork({name}, encoding={self.encoding!r}, hidden={self.hidden}, {self.activation})"


def _network_layers(tensors: Mapping[str, np.ndarray], where: str) -> tuple[list[Layer], Layer, Layer]:
    """The trunk's layers in order and the two heads, from the tensors of a weights file."""
    indices: set[int] = set()
    heads = ("policy.weight", "policy.bias", "value.weight", "value.bias")
    for name in tensors:
        parts = name.split(".")
        if name in heads:
            continue
        if len(parts) == 3 and parts[0] == "trunk" and parts[1].isdigit() and parts[2] in ("weight", "bias"):
            indices.add(int(parts[1]))
            continue
        raise PretrainedWeightsError(
            f"{where} holds a tensor {name!r}; AlphaZero weights hold only trunk.N.weight/bias, policy.weight/bias and "
            "value.weight/bias. Re-export them with export_alphazero."
        )
    if sorted(indices) != list(range(len(indices))):
        raise PretrainedWeightsError(
            f"{where} has trunk layers {sorted(indices)}, not 0, 1, 2...; re-export it with export_alphazero."
        )
    for name in heads + tuple(f"trunk.{i}.{part}" for i in indices for part in ("weight", "bias")):
        if name not in tensors:
            raise PretrainedWeightsError(f"{where} has no tensor {name!r}; re-export it with export_alphazero.")
    trunk = [(tensors[f"trunk.{i}.weight"], tensors[f"trunk.{i}.bias"]) for i in sorted(indices)]
    return trunk, (tensors["policy.weight"], tensors["policy.bias"]), (tensors["value.weight"], tensors["value.bias"])


# --- export and load -----------------------------------------------------------------------------------------------
def alphazero_destination(path: str | os.PathLike[str], game: Game | str) -> Path:
    """The file :func:`export_alphazero` writes for ``path``, checked without writing: a name ending in
    ``.safetensors`` is the file (its folder must exist); any other path is a folder (created if missing, its parent
    must exist) that gets :func:`alphazero_file_name`.

    Raises:
        TypeError: ``path`` is not a path.
        ValueError: a missing parent folder, a folder where the file goes or a file where the folder goes.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file or folder path (got {type(path).__name__}).")
    target = Path(path)
    what = "the exported AlphaZero weights"
    if target.suffix == ".safetensors":
        return check_destination(target, what)
    check_destination(target, what, folder=True)
    return target / alphazero_file_name(_as_game(game))


def export_alphazero(
    network: AlphaZeroNetwork, path: str | os.PathLike[str], metadata: Mapping[str, str] | None = None
) -> Path:
    """Writes ``network`` as an AlphaZero weights file and its manifest entry (the folder's ``manifest.json``).

    Args:
        network: The network (its game, encoding and activation go into the metadata).
        path: A ``.safetensors`` file, or a folder that gets :func:`alphazero_file_name`
            (:func:`alphazero_destination`).
        metadata: Extra string entries (the training command, seed, iterations...).

    Returns:
        The written file.

    Raises:
        TypeError / ValueError: as :func:`alphazero_destination`, or metadata that is not strings or uses a
            reserved key.
    """
    from safetensors.numpy import save

    if not isinstance(network, AlphaZeroNetwork):
        raise TypeError(f"network must be an AlphaZeroNetwork (got {type(network).__name__}).")
    game = network.game
    target = alphazero_destination(path, game)
    extra = checked_metadata(metadata, _RESERVED)
    header = {
        "format": FORMAT,
        "version": VERSION,
        "game": game.env_name,
        "game_config": config_json(game),
        "encoding": json.dumps(network.encoding if network.encoding is not None else "raw", sort_keys=True),
        "activation": network.activation,
        "observation_size": str(encoded_width(network.encoding, game)),
        "n_actions": str(game.n_actions),
        **extra,
    }
    write_with_manifest(target, save(network.tensors(), metadata=header))
    return target


_CACHE: dict[tuple[str, str, str], AlphaZeroNetwork] = {}
_CACHE_LOCK = threading.Lock()


def _parse(data: bytes, game: Game, where: str) -> AlphaZeroNetwork:
    from safetensors import SafetensorError
    from safetensors.numpy import load

    metadata = safetensors_header(data, where).get("__metadata__")
    if not isinstance(metadata, dict):
        metadata = {}
    if metadata.get("format") != FORMAT:
        raise PretrainedWeightsError(
            f"{where} is a safetensors file but not AlphaZero weights of mancala-envs (format "
            f"{metadata.get('format')!r}, expected {FORMAT!r}); export it with export_alphazero "
            f"(`{TRAIN_COMMAND.format(game=game.name, path='FOLDER')}`)."
        )
    if metadata.get("version") != VERSION:
        raise PretrainedWeightsError(
            f"{where} holds AlphaZero weights of version {metadata.get('version')!r}; this mancala-envs reads version "
            f"{VERSION!r}. Re-export them with this version, or install the mancala-envs that wrote them."
        )
    missing = [key for key in _RESERVED if key not in metadata]
    if missing:
        raise PretrainedWeightsError(f"{where} lacks the metadata {missing}; re-export it with export_alphazero.")
    if not all(isinstance(value, str) for value in metadata.values()):
        raise PretrainedWeightsError(f"{where} has metadata that is not strings; re-export it with export_alphazero.")
    check_game_metadata(metadata, game, where, TRAIN_COMMAND)
    try:
        encoding = json.loads(metadata["encoding"])
        inputs = encoded_width(encoding, game)
    except (TypeError, ValueError) as error:
        raise PretrainedWeightsError(
            f"{where} names an observation encoding this mancala-envs cannot build ({error}); re-export it."
        ) from None
    try:
        tensors = load(data)
    except (SafetensorError, ValueError) as error:
        raise PretrainedWeightsError(
            f"{where} is not a readable safetensors file ({error}); restore the file or re-export it."
        ) from None
    for name, tensor in tensors.items():
        if tensor.dtype != np.float32:
            raise PretrainedWeightsError(f"{where}: tensor {name!r} is {tensor.dtype}, not float32; re-export it.")
    stated = (metadata["observation_size"], metadata["n_actions"])
    if stated != (str(inputs), str(game.n_actions)):
        raise PretrainedWeightsError(
            f"{where} states observation_size {stated[0]} and n_actions {stated[1]}, but its encoding of "
            f"{game.env_name} gives {inputs} and the game has {game.n_actions} actions; re-export it."
        )
    trunk, policy, value = _network_layers(tensors, where)
    return AlphaZeroNetwork(trunk, policy, value, metadata["activation"], game, encoding, metadata, where)


def load_alphazero(game: Game | str, folder: str | os.PathLike[str] | None = None) -> AlphaZeroNetwork:
    """Loads ``game``'s AlphaZero network from a weights folder, checking it first (see the module docstring).

    Args:
        game: The game (with its config), or a game name or registered id (``"kalah"``).
        folder: The weights folder (default: ``$MANCALA_ENVS_WEIGHTS``, else the package's).

    Returns:
        The network, cached per folder, file and SHA-256.

    Raises:
        MissingWeightsError: no ``<game>_az.safetensors`` in the folder (the message names the training command).
        PretrainedWeightsError: the file fails a check (manifest, format, version, game, config, tensors).
    """
    game = _as_game(game)
    path, data, digest = read_listed_weights(game, alphazero_file_name(game), folder, TRAIN_COMMAND)
    key = (str(path.parent.resolve()), path.name, digest)
    with _CACHE_LOCK:
        network = _CACHE.get(key)
    if network is None:
        network = _parse(data, game, str(path))
        with _CACHE_LOCK:
            network = _CACHE.setdefault(key, network)
    else:
        check_game_metadata(network.metadata, game, str(path), TRAIN_COMMAND)
    return network


# --- the agent --------------------------------------------------------------------------------------------------------
class AlphaZeroAgent(StateAgent):
    """Plays the game's AlphaZero network (``"az:N"``): with ``simulations`` 0 the raw network (the most likely
    legal action of its policy), else the most visited root action of a PUCT search of ``simulations``
    simulations evaluated by the network (:mod:`mancala_envs.algorithms.batched_mcts`), ties drawn by the agent's
    generator. No exploration noise: the agent plays its best.

    The network is loaded (:func:`load_alphazero`) at the agent's first move in a game and config.

    Args:
        simulations: Simulations per move, 0 to :data:`~mancala_envs.algorithms.batched_mcts.MAX_SIMULATIONS`.
        seed: Seed of the agent's generator (ties).
        folder: The weights folder (default: ``$MANCALA_ENVS_WEIGHTS``, else the package's).
        c_puct: PUCT's exploration constant.

    Raises:
        TypeError: ``simulations`` not an integer, ``folder`` not a path.
        ValueError: ``simulations`` out of range.
        MissingWeightsError: (at a move) no weights for the game; the message names the training command.
        PretrainedWeightsError: (at a move) weights that fail the checks of :func:`load_alphazero`.
    """

    name = "az"

    def __init__(
        self,
        simulations: int,
        seed: int | None = None,
        *,
        folder: str | os.PathLike[str] | None = None,
        c_puct: float = DEFAULT_C_PUCT,
    ) -> None:
        super().__init__(seed)
        self.simulations = check_simulations(simulations)
        if folder is not None and not isinstance(folder, (str, os.PathLike)):
            raise TypeError(f"folder must be a path or None (got {type(folder).__name__}).")
        self.folder = folder
        self.c_puct = check_c_puct(c_puct)
        self._networks: dict[tuple[Any, ...], AlphaZeroNetwork] = {}
        self._searches: dict[tuple[Any, ...], BatchedMCTS] = {}

    def network_for(self, game: Game) -> AlphaZeroNetwork:
        """The network this agent plays ``game`` with (loaded at the first call per game and config)."""
        key = (type(game), game.config)
        network = self._networks.get(key)
        if network is None:
            network = self._networks[key] = load_alphazero(game, self.folder)
        return network

    def choose(self, game: Game, state: np.ndarray) -> int:
        network = self.network_for(game)
        if self.simulations == 0:
            observation, mask = game.observe_with_mask(state, int(state[PLAYER]))
            logits, _ = network.forward(network.encode(observation[None]))
            return int(masked_choice(logits, mask[None], self.rng, deterministic=True)[0])
        key = (type(game), game.config)
        search = self._searches.get(key)
        if search is None:
            search = self._searches[key] = BatchedMCTS(game, self.simulations, c_puct=self.c_puct)
        result = search.run(np.ascontiguousarray(state)[None], network.evaluate)
        return int(choose_actions(result.visits, self.rng)[0])

    def __repr__(self) -> str:
        where = "" if self.folder is None else f", folder={str(self.folder)!r}"
        return f"AlphaZeroAgent({self.simulations}{where})"
