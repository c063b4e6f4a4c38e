"""The ``"pretrained"`` agent: the small policy shipped with the package for each game, played in numpy.

Each game's policy is the actor of a MaskablePPO self-play model (an MLP: the hidden layers of
``policy.mlp_extractor.policy_net`` and the ``policy.action_net`` layer), exported by
:func:`export_pretrained` to a `safetensors <https://huggingface.co/docs/safetensors>`_ file. Loading it
reads only tensors and string metadata (``safetensors.numpy``): nothing is unpickled, and neither torch
nor Stable-Baselines3 is needed, so ``"pretrained"`` works in a core install.

**The weights folder.** One file per game, named after the game's short name
(:attr:`Game.name <mancala_envs.games.game.Game.name>`): ``ouril.safetensors``, ``rio_kadalis.safetensors``.
Beside them, ``manifest.json`` maps each file name to its SHA-256 (hex). The folder is, in order: the
``folder=`` argument, ``$MANCALA_ENVS_WEIGHTS`` when set, else the package's own
``mancala_envs/agents/weights/`` (:func:`weights_dir`). :func:`export_pretrained` writes both the file and
its manifest entry, so a folder of exported weights is ready to use.

**What a load checks**, refusing with :class:`PretrainedWeightsError` (a ``ValueError``) and the fix:
the file's SHA-256 is the manifest's (checked before anything in the file is parsed); it is a safetensors
file of this format (:data:`FORMAT`) and version (:data:`VERSION`); it was trained on this game with this
config (a variant such as ``pits_per_row=4`` is refused when the weights are the default config's); its
tensors chain into an MLP from the encoded observation to the game's actions. A game without a file
raises :class:`MissingWeightsError` (also a ``FileNotFoundError``), which lists the games that have
weights and names the command that trains some. A loaded policy is cached per folder, file and SHA-256,
so agents are cheap to build (a tournament builds two per game).

**The metadata** of a file (all strings): ``format``, ``version``, ``game`` (the env name, ``"ouril_v0"``),
``game_config`` (JSON of the game's config), ``encoding`` (JSON of the observation encoding, ``"flat"``
or ``{"name": "one_hot", "cap": 8}``), ``activation`` (the torch.nn class between hidden layers,
``"Tanh"``), ``observation_size`` (of the encoded observation), ``n_actions``, and any entries the
exporter added (the training command, seed, steps...).

Example:
    >>> from mancala_envs.agents.pretrained import weights_file_name
    >>> weights_file_name("ouril_v0")
    'ouril.safetensors'
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import struct
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents.agent import StateAgent, masked_choice
from mancala_envs.common.files import (
    atomic_write,
    check_destination,
    locked_json_update,
    parse_json,
    read_bytes_bounded,
    read_json_bounded,
)
from mancala_envs.engine.state import PLAYER
from mancala_envs.games.game import Game

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "MANIFEST",
    "MAX_MANIFEST_BYTES",
    "MAX_WEIGHTS_BYTES",
    "VERSION",
    "WEIGHTS_ENV",
    "MissingWeightsError",
    "PretrainedAgent",
    "PretrainedPolicy",
    "PretrainedWeightsError",
    "check_game_metadata",
    "check_layers",
    "checked_metadata",
    "config_json",
    "export_destination",
    "export_pretrained",
    "load_pretrained",
    "read_listed_weights",
    "safetensors_header",
    "weights_dir",
    "weights_file_name",
    "write_with_manifest",
]

#: The ``format`` metadata entry of an exported file.
FORMAT = "mancala-envs pretrained"
#: The ``version`` metadata entry this library writes and reads.
VERSION = "1"
#: The SHA-256 manifest beside the weights: ``{"ouril.safetensors": "<sha256 hex>", ...}``.
MANIFEST = "manifest.json"
#: The environment variable that names the weights folder.
WEIGHTS_ENV = "MANCALA_ENVS_WEIGHTS"

_SUFFIX = ".safetensors"
_TRAIN_COMMAND = "mancala-envs train --self-play --game {game} --export-pretrained {path}"
_RESERVED = ("format", "version", "game", "game_config", "encoding", "activation", "observation_size", "n_actions")
_MAX_HEADER_BYTES = 16 * 2**20
#: The largest weights file a load reads (the shipped ones are a few tens of kilobytes).
MAX_WEIGHTS_BYTES = 64 * 2**20
#: The largest manifest a load reads.
MAX_MANIFEST_BYTES = 2**20


def _gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return (0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))).astype(x.dtype)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


#: The activations between hidden layers, by torch.nn class name (torch's default parameters).
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0),
    "LeakyReLU": lambda x: np.where(x >= 0, x, x * 0.01),
    "ELU": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "GELU": _gelu,
    "SiLU": lambda x: x * _sigmoid(x),
    "Sigmoid": _sigmoid,
}


class PretrainedWeightsError(ValueError):
    """Pretrained weights that cannot be used: changed since export, of another format, game or config,
    or of shapes that do not make an MLP for the game. The message names the problem and the fix."""


class MissingWeightsError(PretrainedWeightsError, FileNotFoundError):
    """No pretrained weights for a game in the weights folder (the message lists the games that have
    some and names the command that trains them)."""


def weights_dir(folder: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the pretrained weights: ``folder`` when given, else ``$MANCALA_ENVS_WEIGHTS`` when set,
    else the package's ``mancala_envs/agents/weights/``.

    Raises:
        TypeError: ``folder`` is neither a path nor ``None``.
    """
    if folder is not None:
        if not isinstance(folder, (str, os.PathLike)):
            raise TypeError(f"folder must be a path or None (got {type(folder).__name__}).")
        return Path(folder)
    from_env = os.environ.get(WEIGHTS_ENV)
    if from_env:
        return Path(from_env)
    return Path(__file__).resolve().parent / "weights"


def weights_file_name(game: Game | str) -> str:
    """The file of ``game``'s weights in a weights folder: its short name, ``"ouril.safetensors"``.

    Example:
        >>> weights_file_name("rio_kadalis_v0")
        'rio_kadalis.safetensors'
    """
    return _as_game(game).name + _SUFFIX


def _as_game(game: Game | str) -> Game:
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        from mancala_envs.envs.registration import make_game, resolve_env_id

        return make_game(resolve_env_id(game))
    raise TypeError(
        f"game must be a mancala_envs Game, or a game name or env id such as 'ouril' or 'ouril_v0' "
        f"(got {type(game).__name__})."
    )


def config_json(game: Game) -> str:
    """``game``'s config as the ``game_config`` metadata entry of its weights (JSON, sorted keys)."""
    return json.dumps(dataclasses.asdict(game.config), sort_keys=True)


def _encoding_json(encoding: str | Mapping[str, Any] | None) -> str:
    if encoding is None:
        return json.dumps("raw")
    if isinstance(encoding, str):
        return json.dumps(encoding)
    if isinstance(encoding, Mapping):
        return json.dumps(dict(encoding), sort_keys=True)
    raise TypeError(
        f"encoding must be a name such as 'flat' or a dict such as {{'name': 'one_hot', 'cap': 8}} "
        f"(got {type(encoding).__name__})."
    )


def _encoder(encoding: str | Mapping[str, Any] | None, game: Game) -> Any:
    """The encoder of ``encoding`` for ``game`` (``None`` for the raw observation)."""
    from mancala_envs.wrappers.encodings import env_encoder

    return env_encoder(encoding, game)


def _encoded_size(encoding: str | Mapping[str, Any] | None, game: Game) -> tuple[int, ...]:
    encoder = _encoder(encoding, game)
    return (game.observation_size,) if encoder is None else tuple(encoder.space.shape)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_manifest(folder: Path) -> dict[str, str]:
    path = folder / MANIFEST
    if not path.exists():
        return {}
    manifest = read_json_bounded(
        path, MAX_MANIFEST_BYTES, "the weights manifest", PretrainedWeightsError, expected="a JSON weights manifest"
    )
    if not isinstance(manifest, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in manifest.items()
    ):
        raise PretrainedWeightsError(
            f'{path} must map weight file names to SHA-256 hex strings, as {{"ouril.safetensors": "<sha256>"}}; '
            "restore it, or re-export the weights of the folder with export_pretrained, which rewrites it."
        )
    return manifest


# --- export -----------------------------------------------------------------------------------------------------------
def export_pretrained(
    policy: Any,
    path: str | os.PathLike[str],
    *,
    game: Game | str,
    encoding: str | Mapping[str, Any] | None,
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Writes the actor of a Stable-Baselines3 policy as pretrained weights, and its manifest entry.

    Only the actor is kept: the hidden layers ``policy.mlp_extractor.policy_net`` and ``policy.action_net``
    (float32 tensors ``policy_net.0.weight``, ``policy_net.0.bias``, ``policy_net.2.weight``, ...,
    ``action_net.weight``, ``action_net.bias``), with the metadata the module docstring lists. The folder's
    ``manifest.json`` gets the file's SHA-256 (it is created, or updated keeping its other entries).

    Args:
        policy: A MaskablePPO or PPO model, or its policy: the MLP policy with the flatten features extractor
            on a vector observation.
        path: The file to write (a name ending in ``.safetensors``, in a folder that exists), or a folder (created
            if missing, in a folder that exists) that gets :func:`weights_file_name` (``ouril.safetensors``), the
            name :func:`load_pretrained` looks for (:func:`export_destination`).
        game: The game the policy was trained on: a ``Game`` (with its config), or a game name or registered
            id (``"ouril"``, ``"ouril_v0"``, ``"ouril-mini-v0"``).
        encoding: The observation encoding it was trained on, as ``encoding=`` takes it (``None`` or ``"raw"``,
            ``"flat"``, ``{"name": "one_hot", "cap": 8}``).
        metadata: Extra string entries to store (the training command, seed, steps, seconds...).

    Returns:
        The path of the written file.

    Raises:
        TypeError: ``policy`` is not an SB3 actor-critic policy, or ``metadata`` is not a mapping of strings.
        ValueError: the policy is not an MLP of this kind, its spaces are not the encoding's and the game's,
            or ``metadata`` uses a reserved key, or ``path`` is refused by :func:`export_destination`.
    """
    from safetensors.numpy import save

    game = _as_game(game)
    target = export_destination(path, game)
    policy = getattr(policy, "policy", policy)
    extractor, action_net, activation_name = _actor_parts(policy)
    expected = _encoded_size(encoding, game)
    n_actions = _check_spaces(policy, game, encoding, expected)
    tensors = _actor_tensors(extractor, action_net, activation_name)
    extra = checked_metadata(metadata)
    header = {
        "format": FORMAT,
        "version": VERSION,
        "game": game.env_name,
        "game_config": config_json(game),
        "encoding": _encoding_json(encoding),
        "activation": activation_name,
        "observation_size": str(int(np.prod(expected))),
        "n_actions": str(n_actions),
        **extra,
    }
    check_layers(_layer_list(tensors, "the exported policy"), int(np.prod(expected)), n_actions, "the exported policy")
    write_with_manifest(target, save(tensors, metadata=header))
    return target


def _actor_parts(policy: Any) -> tuple[Any, Any, str]:
    """The actor of an SB3 MLP policy: its hidden layers, its action layer and its activation's name (checked)."""
    extractor = getattr(policy, "mlp_extractor", None)
    action_net = getattr(policy, "action_net", None)
    if extractor is None or action_net is None or not hasattr(extractor, "policy_net"):
        raise TypeError(
            "export_pretrained needs a Stable-Baselines3 MaskablePPO or PPO model (or its policy) with an MLP policy "
            f'("MlpPolicy"); got {type(policy).__name__}.'
        )
    if type(getattr(policy, "features_extractor", None)).__name__ != "FlattenExtractor":
        raise ValueError(
            "export_pretrained exports MLP policies on the flattened observation (the default FlattenExtractor); this "
            f'policy uses {type(getattr(policy, "features_extractor", None)).__name__}. Train with "MlpPolicy".'
        )
    activation = getattr(policy, "activation_fn", None)
    activation_name = getattr(activation, "__name__", repr(activation))
    if activation_name not in ACTIVATIONS:
        raise ValueError(
            f"the policy's activation {activation_name} is not one the pretrained agent plays; use one of "
            f"{list(ACTIVATIONS)} (policy_kwargs={{'activation_fn': torch.nn.Tanh}})."
        )
    return extractor, action_net, activation_name


def _check_spaces(policy: Any, game: Game, encoding: Any, expected: tuple[int, ...]) -> int:
    """Checks that the policy's spaces are the ``encoding`` of ``game``'s observation and its actions; returns the
    number of actions."""
    space_shape = tuple(getattr(policy.observation_space, "shape", ()) or ())
    if space_shape != expected:
        raise ValueError(
            f"the policy's observation space {policy.observation_space} does not have the shape {expected} of the "
            f"{encoding!r} encoding of {game.env_name}; pass the encoding it was trained with."
        )
    n_actions = int(getattr(policy.action_space, "n", -1))
    if n_actions != game.n_actions:
        raise ValueError(
            f"the policy has {n_actions} actions and {game.env_name} has {game.n_actions}; "
            "pass the game it was trained on."
        )
    return n_actions


def _actor_tensors(extractor: Any, action_net: Any, activation_name: str) -> dict[str, np.ndarray]:
    """The actor's weights as float32 arrays, by the names the weights file uses (only Linear layers and the
    activation are allowed)."""
    tensors: dict[str, np.ndarray] = {}
    for index, layer in enumerate(extractor.policy_net):
        kind = type(layer).__name__
        if kind == "Linear":
            tensors[f"policy_net.{index}.weight"] = _array(layer.weight)
            tensors[f"policy_net.{index}.bias"] = _array(layer.bias)
        elif kind != activation_name:
            raise ValueError(
                f"policy_net layer {index} is a {kind}; only Linear layers and the {activation_name} activation are "
                'exported. Train with "MlpPolicy".'
            )
    tensors["action_net.weight"] = _array(action_net.weight)
    tensors["action_net.bias"] = _array(action_net.bias)
    return tensors


def checked_metadata(metadata: Mapping[str, str] | None, reserved: tuple[str, ...] = _RESERVED) -> dict[str, str]:
    """The extra metadata entries of an export, checked: strings only, and none of the ``reserved`` keys the
    export writes itself (the ``"pretrained"`` export's by default).

    Raises:
        TypeError: an entry that is not a string.
        ValueError: a reserved key.
    """
    extra = dict(metadata or {})
    if not all(isinstance(key, str) and isinstance(value, str) for key, value in extra.items()):
        raise TypeError(
            "metadata must map strings to strings, as {'seed': '0', 'steps': '1000000'}; convert the values with str()."
        )
    clashes = sorted(set(extra) & set(reserved))
    if clashes:
        raise ValueError(f"metadata keys {clashes} are written by export_pretrained itself; rename them.")
    return extra


def write_with_manifest(target: Path, data: bytes) -> None:
    """Writes the weights file ``target`` whole (or not at all) and its SHA-256 into the folder's manifest
    (:data:`MANIFEST`, under its lock; a damaged manifest is refused before anything is written). Every export
    of weights into a weights folder goes through it.

    Raises:
        PretrainedWeightsError: the folder's manifest is damaged.
    """
    target.parent.mkdir(exist_ok=True)  # a folder named by ``path``; its parent was checked to exist
    _read_manifest(target.parent)  # a damaged manifest is refused before anything is written
    atomic_write(target, data)
    digest = _sha256(data)

    def add_entry(manifest: dict[str, str]) -> dict[str, str]:
        return {**manifest, target.name: digest}

    # under the manifest's lock: two processes exporting into one folder keep both entries
    locked_json_update(target.parent / MANIFEST, add_entry, lambda path: _read_manifest(path.parent))


def export_destination(path: str | os.PathLike[str], game: Game | str) -> Path:
    """The file :func:`export_pretrained` writes for ``path``, checked without writing anything: a name ending in
    ``.safetensors`` is the file (its folder must exist and be writable); any other path is a folder (created if
    missing, but its parent must exist) that gets :func:`weights_file_name`. ``train --export-pretrained`` calls
    it before training.

    Raises:
        ValueError: a missing parent folder (the message says to create it first), a folder where the file goes,
            a file where the folder goes, or a folder that cannot be written.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file or folder path (got {type(path).__name__}).")
    target = Path(path)
    what = "the exported weights (--export-pretrained)"
    if target.suffix == _SUFFIX:
        return check_destination(target, what)
    check_destination(target, what, folder=True)
    return target / weights_file_name(_as_game(game))


def _array(parameter: Any) -> np.ndarray:
    return np.ascontiguousarray(parameter.detach().cpu().numpy(), dtype=np.float32)


# --- the numpy policy -------------------------------------------------------------------------------------------------
def _layer_list(tensors: Mapping[str, np.ndarray], where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(weight, bias)`` pairs of the MLP in order (hidden layers, then the action layer)."""
    indices: set[int] = set()
    for name in tensors:
        parts = name.split(".")
        if name in ("action_net.weight", "action_net.bias"):
            continue
        if len(parts) == 3 and parts[0] == "policy_net" and parts[1].isdigit() and parts[2] in ("weight", "bias"):
            indices.add(int(parts[1]))
            continue
        raise PretrainedWeightsError(
            f"{where} holds a tensor {name!r}; a pretrained policy holds only policy_net.N.weight/bias and "
            "action_net.weight/bias. Re-export it with export_pretrained."
        )
    names = [(f"policy_net.{i}.weight", f"policy_net.{i}.bias") for i in sorted(indices)]
    names.append(("action_net.weight", "action_net.bias"))
    layers = []
    for weight_name, bias_name in names:
        if weight_name not in tensors or bias_name not in tensors:
            missing = weight_name if weight_name not in tensors else bias_name
            raise PretrainedWeightsError(f"{where} has no tensor {missing!r}; re-export it with export_pretrained.")
        layers.append((tensors[weight_name], tensors[bias_name]))
    return layers


def check_layers(layers: list[tuple[np.ndarray, np.ndarray]], inputs: int, n_actions: int, where: str) -> None:
    """Checks that the ``(weight, bias)`` layers chain from ``inputs`` features to ``n_actions`` outputs and hold
    finite floats only.

    Raises:
        PretrainedWeightsError: a layer that does not take the width before it, a value that is not a finite
            float, or a last width other than ``n_actions`` (``where`` names the file in the message).
    """
    width = inputs
    for number, (weight, bias) in enumerate(layers):
        weight, bias = np.asarray(weight), np.asarray(bias)
        if weight.ndim != 2 or bias.shape != weight.shape[:1] or weight.shape[1] != width:
            raise PretrainedWeightsError(
                f"{where}: layer {number} has weight {weight.shape} and bias {bias.shape}, which do not take the "
                f"{width} values before it (weights of another game or encoding?); re-export it with export_pretrained."
            )
        for name, values in (("weight", weight), ("bias", bias)):
            if not np.issubdtype(values.dtype, np.floating) or not np.isfinite(values).all():
                raise PretrainedWeightsError(
                    f"{where}: layer {number}'s {name} holds values that are not finite floats (NaN, infinity, or "
                    f"{values.dtype} values); every weight must be a finite float. Retrain (the training diverged) "
                    "or restore the file."
                )
        width = weight.shape[0]
    if width != n_actions:
        raise PretrainedWeightsError(
            f"{where} ends in {width} logits but the game has {n_actions} actions; re-export it with export_pretrained."
        )


class PretrainedPolicy:
    """A pretrained actor as numpy arrays: encodes a raw observation, runs the MLP, picks a legal action.

    Built by :func:`load_pretrained` (which checks the file); the arrays are read-only.

    Args:
        layers: ``(weight, bias)`` per linear layer, the hidden layers then the action layer (``weight`` is
            ``(out, in)`` as torch keeps it).
        activation: The activation between hidden layers, a name in :data:`ACTIVATIONS`.
        game: The game (and config) it plays.
        encoding: The observation encoding it reads (``"flat"``, ``{"name": "one_hot", "cap": 8}``...).
        metadata: The file's metadata (strings).

    Attributes:
        observation_size: The length of the raw observation (``game.observation_size``).
        n_actions: The number of actions (``game.n_actions``).
    """

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: str,
        game: Game,
        encoding: str | Mapping[str, Any],
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise PretrainedWeightsError(
                f"activation {activation!r} is not one the pretrained agent plays ({list(ACTIVATIONS)}); "
                "re-export the policy with one of them."
            )
        self.game = game
        self.encoding = encoding
        self.activation = activation
        self.metadata = dict(metadata or {})
        self.observation_size = game.observation_size
        self.n_actions = game.n_actions
        self._encoder = _encoder(encoding, game)
        inputs = int(np.prod(_encoded_size(encoding, game)))
        check_layers(layers, inputs, self.n_actions, "the pretrained policy")
        self.layers = []
        for weight, bias in layers:
            weight = np.array(weight, dtype=np.float32)
            bias = np.array(bias, dtype=np.float32)
            weight.flags.writeable = bias.flags.writeable = False
            self.layers.append((weight, bias))
        # The forward pass runs in float64, so that a batch and its rows one at a time round alike (float32
        # rounding differs with the batch size, enough to flip an argmax between near-equal logits).
        self._layers64 = [(weight.astype(np.float64), bias.astype(np.float64)) for weight, bias in self.layers]
        self._activate = ACTIVATIONS[activation]

    def encode(self, observations: np.ndarray) -> np.ndarray:
        """The ``(k, features)`` float32 features of ``(k, observation_size)`` raw int32 observations."""
        observations = np.asarray(observations)
        if observations.ndim != 2 or observations.shape[1] != self.observation_size:
            raise ValueError(
                f"observations must have shape (k, {self.observation_size}), raw observations of "
                f"{self.game.env_name} (got {observations.shape}); stack single ones with observation[None]."
            )
        encoded = observations if self._encoder is None else self._encoder.encode(observations)
        return np.asarray(encoded, dtype=np.float32).reshape(len(observations), -1)

    def logits(self, features: np.ndarray) -> np.ndarray:
        """The ``(k, n_actions)`` float32 logits of ``(k, features)`` encoded observations, before any mask.

        They are normalised as torch's ``Categorical`` normalises them (log-probabilities: the action layer's
        output minus its log-sum-exp per row), so they equal the SB3 policy's
        ``policy.get_distribution(obs).distribution.logits``; the choice of actions is the same either way.
        """
        return self._log_probabilities(features).astype(np.float32)

    def _log_probabilities(self, features: np.ndarray) -> np.ndarray:
        hidden = np.asarray(features, dtype=np.float64)
        for weight, bias in self._layers64[:-1]:
            hidden = self._activate(hidden @ weight.T + bias)
        weight, bias = self._layers64[-1]
        scores = hidden @ weight.T + bias
        top = scores.max(axis=1, keepdims=True)
        return scores - (top + np.log(np.exp(scores - top).sum(axis=1, keepdims=True)))

    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator | None = None,
        deterministic: bool = True,
    ) -> np.ndarray:
        """One legal action per row.

        Args:
            observations: ``(k, observation_size)`` raw int32 observations (``game.observe_with_mask``).
            masks: ``(k, n_actions)`` bool (or 0/1) legal actions.
            rng: The generator of the draws (needed unless ``deterministic``).
            deterministic: Play the most likely legal action; else draw one from the masked softmax.

        Returns:
            ``(k,)`` int64 actions.

        Raises:
            ValueError: wrong shapes, a row without a legal action, or no ``rng`` to sample with.
        """
        masks = np.asarray(masks)
        if masks.shape != (len(np.asarray(observations)), self.n_actions):
            raise ValueError(
                f"masks must have shape (k, {self.n_actions}), one row per observation (got {masks.shape})."
            )
        if rng is None and not deterministic:
            raise ValueError("sampling needs a generator: pass rng=np.random.default_rng(seed), or deterministic=True.")
        logits = self._log_probabilities(self.encode(observations))
        return masked_choice(logits, masks, rng if rng is not None else np.random.default_rng(0), deterministic)

    def __repr__(self) -> str:
        hidden = [weight.shape[0] for weight, _ in self.layers[:-1]]
        return f"PretrainedPolicy({self.game.env_name}, encoding={self.encoding!r}, hidden={hidden}, {self.activation})"


# --- load -------------------------------------------------------------------------------------------------------------
_CACHE: dict[tuple[str, str, str], PretrainedPolicy] = {}
_CACHE_LOCK = threading.Lock()


def safetensors_header(data: bytes, where: str) -> dict[str, Any]:
    """The JSON header of a safetensors file (its ``__metadata__`` included), before any tensor is read.

    Raises:
        PretrainedWeightsError: ``data`` is not a safetensors file (``where`` names it in the message).
    """
    not_one = (
        f"{where} is not a safetensors file of pretrained weights; restore the file or re-export it with "
        "export_pretrained."
    )
    if len(data) < 8:
        raise PretrainedWeightsError(not_one)
    (size,) = struct.unpack("<Q", data[:8])
    if size > min(_MAX_HEADER_BYTES, len(data) - 8):
        raise PretrainedWeightsError(not_one)
    try:
        header = parse_json(data[8 : 8 + size], f"the header of {where}", PretrainedWeightsError)
    except PretrainedWeightsError as error:
        raise PretrainedWeightsError(f"{error} ({not_one})") from None
    if not isinstance(header, dict):
        raise PretrainedWeightsError(not_one)
    return header


def _parse(data: bytes, game: Game, where: str) -> PretrainedPolicy:
    from safetensors import SafetensorError
    from safetensors.numpy import load

    metadata = safetensors_header(data, where).get("__metadata__")
    if not isinstance(metadata, dict):
        metadata = {}
    if metadata.get("format") != FORMAT:
        raise PretrainedWeightsError(
            f"{where} is a safetensors file but not pretrained weights of mancala-envs (format "
            f"{metadata.get('format')!r}, expected {FORMAT!r}); re-export it with export_pretrained."
        )
    if metadata.get("version") != VERSION:
        raise PretrainedWeightsError(
            f"{where} holds pretrained weights of version {metadata.get('version')!r}; this mancala-envs reads version "
            f"{VERSION!r}. Re-export them with this version's export_pretrained, or install the mancala-envs that "
            "wrote them."
        )
    missing = [key for key in _RESERVED if key not in metadata]
    if missing:
        raise PretrainedWeightsError(f"{where} lacks the metadata {missing}; re-export it with export_pretrained.")
    not_text = sorted(str(key) for key, value in metadata.items() if not isinstance(value, str))
    if not_text:
        raise PretrainedWeightsError(
            f"{where} has metadata entries that are not strings ({not_text}); safetensors metadata maps strings to "
            "strings. Re-export it with export_pretrained."
        )
    check_game_metadata(metadata, game, where)
    try:
        encoding = parse_json(metadata["encoding"], f"the encoding entry of {where}", PretrainedWeightsError)
        _encoded_size(encoding, game)
    except (TypeError, ValueError) as error:
        raise PretrainedWeightsError(
            f"{where} names an observation encoding this mancala-envs cannot build ({error}); re-export it."
        ) from None
    try:
        tensors = load(data)
    except (SafetensorError, ValueError) as error:
        raise PretrainedWeightsError(
            f"{where} is not a readable safetensors file ({error}); restore the file or re-export it with "
            "export_pretrained."
        ) from None
    for name, tensor in tensors.items():
        if tensor.dtype != np.float32:
            raise PretrainedWeightsError(f"{where}: tensor {name!r} is {tensor.dtype}, not float32; re-export it.")
    layers = _layer_list(tensors, where)
    inputs = int(np.prod(_encoded_size(encoding, game)))
    check_layers(layers, inputs, game.n_actions, where)
    stated = (metadata["observation_size"], metadata["n_actions"])
    if stated != (str(inputs), str(game.n_actions)):
        raise PretrainedWeightsError(
            f"{where} states observation_size {stated[0]} and n_actions {stated[1]}, but its encoding of "
            f"{game.env_name} gives {inputs} and the game has {game.n_actions} actions; re-export it with "
            "export_pretrained."
        )
    return PretrainedPolicy(layers, metadata["activation"], game, encoding, metadata)


def check_game_metadata(
    metadata: Mapping[str, str], game: Game, where: str, train_command: str = _TRAIN_COMMAND
) -> None:
    """Checks that a weights file's ``game`` and ``game_config`` metadata are ``game``'s (its env name and config);
    the refusal names ``train_command`` (``{game}`` and ``{path}`` filled in) as the fix. Shared by the
    ``"pretrained"`` and ``"az:N"`` agents' loads.

    Raises:
        PretrainedWeightsError: another game, or another config of it.
    """
    train = train_command.format(game=game.name, path="FOLDER")
    if metadata["game"] != game.env_name:
        raise PretrainedWeightsError(
            f"{where} holds weights trained on {metadata['game']}, not {game.env_name}; restore the file of "
            f"{game.name}, or train one with `{train}`."
        )
    trained = parse_json(metadata["game_config"], f"the game_config entry of {where}", PretrainedWeightsError)
    if not isinstance(trained, dict):
        raise PretrainedWeightsError(f"{where} has a game_config entry that is not a JSON object; re-export it.")
    wanted = json.loads(config_json(game))
    if trained != wanted:
        changed = ", ".join(
            f"{key}={wanted.get(key)!r} (the weights': {trained.get(key)!r})"
            for key in sorted(set(trained) | set(wanted))
            if trained.get(key) != wanted.get(key)
        )
        raise PretrainedWeightsError(
            f"the pretrained {game.name} weights in {where} exist only for the config they were trained on, and this "
            f"game differs: {changed}. Play that config, or train weights for this one with `{train}` plus its options "
            f"and pass their folder (folder=, or ${WEIGHTS_ENV})."
        )


def read_listed_weights(
    game: Game, file_name: str, folder: str | os.PathLike[str] | None, train_command: str
) -> tuple[Path, bytes, str]:
    """Reads the weights file ``file_name`` of ``game`` from a weights folder (:func:`weights_dir`) after checking
    its SHA-256 against the folder's :data:`MANIFEST`: the door of every load of weights (``"pretrained"``,
    ``"az:N"``), before anything in the file is parsed.

    Args:
        game: The game (named in the messages).
        file_name: The file in the folder (``"kalah.safetensors"``, ``"kalah_az.safetensors"``).
        folder: The weights folder, or ``None`` for the default (:func:`weights_dir`).
        train_command: The command that makes such a file, named in the refusal of a missing one (``{game}``
            and ``{path}`` are filled in).

    Returns:
        The file's path, its bytes and their SHA-256 (hex).

    Raises:
        MissingWeightsError: no such file (the message lists the files of its kind there and the command).
        PretrainedWeightsError: the file is too large, not in the manifest, or its SHA-256 differs.
    """
    where_dir = weights_dir(folder)
    path = where_dir / file_name
    if not path.exists():
        kind = file_name[len(game.name) :]  # "_az.safetensors" or ".safetensors"
        available = (
            sorted(
                p.name[: -len(kind)]
                for p in where_dir.glob(f"*{kind}")
                if kind != _SUFFIX or not p.name.endswith("_az" + _SUFFIX)
            )
            if where_dir.is_dir()
            else []
        )
        have = ", ".join(available) if available else "none"
        raise MissingWeightsError(
            f"no {'pretrained' if kind == _SUFFIX else 'AlphaZero'} weights for {game.name} in {where_dir} (looked "
            f"for {path.name}; games with weights there: {have}). Train and export some with "
            f"`{train_command.format(game=game.name, path=where_dir)}`, or point ${WEIGHTS_ENV} (or folder=) at a "
            f"folder that holds {path.name}."
        )
    data = read_bytes_bounded(path, MAX_WEIGHTS_BYTES, "the weights file", PretrainedWeightsError)
    digest = _sha256(data)
    recorded = _read_manifest(where_dir).get(path.name)
    if recorded is None:
        raise PretrainedWeightsError(
            f"{path} is not listed in {where_dir / MANIFEST}, so it cannot be checked; export it with "
            "mancala_envs.agents.pretrained.export_pretrained (which records its SHA-256), or restore the manifest."
        )
    if recorded.lower() != digest:
        raise PretrainedWeightsError(
            f"{path} has SHA-256 {digest}, not the {recorded} of {MANIFEST}: it was changed or damaged since it was "
            "exported; re-export it or restore the file."
        )
    return path, data, digest


def load_pretrained(game: Game | str, folder: str | os.PathLike[str] | None = None) -> PretrainedPolicy:
    """Loads ``game``'s pretrained policy from a weights folder, checking it first (see the module docstring).

    Args:
        game: The game (with its config), or a game name or registered id (``"ouril"``, ``"ouril_v0"``).
        folder: The weights folder (default: :func:`weights_dir`: ``$MANCALA_ENVS_WEIGHTS``, else the package's).

    Returns:
        The policy, cached per folder, file and SHA-256 (a later call returns the same object).

    Raises:
        MissingWeightsError: (a ``FileNotFoundError`` and a ``PretrainedWeightsError``) no file for the game; the
            message lists the games that have weights and the command that trains them.
        PretrainedWeightsError: (a ``ValueError``) the file is not in the manifest or its SHA-256 differs, it is not
            pretrained weights of this format and version, it was trained on another game or config, or its
            tensors do not make an MLP for the game.
    """
    game = _as_game(game)
    path, data, digest = read_listed_weights(game, weights_file_name(game), folder, _TRAIN_COMMAND)
    where_dir = path.parent
    key = (str(where_dir.resolve()), path.name, digest)
    with _CACHE_LOCK:
        policy = _CACHE.get(key)
    if policy is None:
        policy = _parse(data, game, str(path))
        with _CACHE_LOCK:
            policy = _CACHE.setdefault(key, policy)
    else:
        check_game_metadata(policy.metadata, game, str(path))
    return policy


# --- the agent --------------------------------------------------------------------------------------------------------
class PretrainedAgent(StateAgent):
    """Plays the game's pretrained policy for the player to move (``"pretrained"``).

    The policy of a game is loaded (:func:`load_pretrained`) at the agent's first move in that game and
    config. The agent plays the most likely legal action, or with ``deterministic=False`` draws one from the
    masked policy with its generator (so a seed gives the same moves).

    Args:
        seed: Seed of the agent's generator (sampling).
        deterministic: Play the most likely legal action (the default).
        folder: The weights folder (default: :func:`weights_dir`, ``$MANCALA_ENVS_WEIGHTS`` when set).

    Raises (at a move, not when built):
        MissingWeightsError: no weights for the game in the folder (the message names the training command).
        PretrainedWeightsError: weights that fail the checks of :func:`load_pretrained`.
    """

    name = "pretrained"

    def __init__(
        self,
        seed: int | None = None,
        deterministic: bool = True,
        folder: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(seed)
        if folder is not None and not isinstance(folder, (str, os.PathLike)):
            raise TypeError(f"folder must be a path or None (got {type(folder).__name__}).")
        if not isinstance(deterministic, (bool, np.bool_)):
            raise TypeError(f"deterministic must be True or False (got {deterministic!r}).")
        self.folder = folder
        self.deterministic = bool(deterministic)
        self._policies: dict[tuple[Any, ...], PretrainedPolicy] = {}

    def policy_for(self, game: Game) -> PretrainedPolicy:
        """The policy this agent plays ``game`` with (loaded at the first call per game and config)."""
        key = (type(game), game.config)
        policy = self._policies.get(key)
        if policy is None:
            policy = self._policies[key] = load_pretrained(game, self.folder)
        return policy

    def choose(self, game: Game, state: np.ndarray) -> int:
        policy = self.policy_for(game)
        observation, mask = game.observe_with_mask(state, int(state[PLAYER]))
        return int(policy.act_batch(observation[None], mask[None], self.rng, self.deterministic)[0])

    def __repr__(self) -> str:
        return "PretrainedAgent()" if self.folder is None else f"PretrainedAgent(folder={str(self.folder)!r})"
