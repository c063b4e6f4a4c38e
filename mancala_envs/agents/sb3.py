"""A saved Stable-Baselines3 model as an agent (``"sb3:path/to/model.zip"``; the train extra).

Loading a saved model does not unpickle it unless you ask for that. A Stable-Baselines3 ``.zip`` keeps
the objects that JSON cannot hold pickled inside its ``data`` entry, and unpickling runs code that the
file names, so ``MaskablePPO.load`` on a crafted file runs anything. Following PyTorch's
``weights_only`` convention, :func:`load_policy` (and with it :meth:`PolicyOpponent.load`,
:class:`SB3Agent`, the ``"sb3:PATH"`` agent and the ``"model:PATH"`` opponent) reads only the weights,
with ``torch.load(weights_only=True)``, and plain JSON, and rebuilds a known architecture (the MLP
policy of MaskablePPO or PPO). A file that needs more raises :class:`UntrustedModelError` saying how to
opt in: ``trust_remote_code=True`` (``--trust-remote-code`` on the command line) loads it in full with
Stable-Baselines3, which runs the code stored in the file. :func:`save_model`, which
``mancala-envs train`` uses, adds a JSON description (:data:`METADATA_ENTRY`) so that its models load
without the opt-in.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import os
import pickle
import re
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pettingzoo import AECEnv

from mancala_envs.agents.agent import StateAgent
from mancala_envs.common.files import open_regular, parse_json, refuse_irregular
from mancala_envs.engine.state import PLAYER
from mancala_envs.envs.aec_env import MancalaEnv, unwrap_env
from mancala_envs.games.game import Game

if TYPE_CHECKING:
    from gymnasium import spaces

__all__ = [
    "ACTIVATIONS",
    "KNOWN_POLICIES",
    "METADATA_ENTRY",
    "METADATA_FORMAT",
    "METADATA_VERSION",
    "LoadedPolicy",
    "PolicyOpponent",
    "PolicySpec",
    "SB3Agent",
    "UntrustedModelError",
    "load_policy",
    "model_metadata",
    "on_policy_policy",
    "policy_encoder",
    "read_policy_spec",
    "save_model",
    "saved_model_path",
]


def on_policy_policy(policy: Any, user: str) -> Any:
    """The policy of a Stable-Baselines3 on-policy model (``model.policy``), or ``policy`` itself if it is one.

    Args:
        policy: An SB3 model (``MaskablePPO``, ``PPO``) or its policy.
        user: The class that needs it, named in the error.

    Raises:
        TypeError: ``policy`` is neither; the message names what was given.
    """
    found = getattr(policy, "policy", policy)
    if not hasattr(found, "get_distribution") or not hasattr(found, "obs_to_tensor"):
        raise TypeError(f"{user} needs a Stable-Baselines3 on-policy model or policy (got {type(policy).__name__}).")
    return found


class PolicyOpponent:
    """Plays a Stable-Baselines3 policy (PPO or MaskablePPO, or a frozen snapshot of one).

    The policy's logits are masked with the legal actions, so it never plays an
    illegal move. Its observation is the mover's egocentric vector encoded as the
    policy expects: ``observation`` names the encoding (as ``apply_wrappers``
    takes it, e.g. ``"flat"`` or ``{"name": "one_hot", "cap": 8}``), or ``None``
    to find the one encoding whose space equals the policy's observation space.

    Args:
        policy: An SB3 model (``model.policy`` is used) or policy.
        observation: The encoding, or ``None`` to infer it when first used.
        deterministic: Play the most likely legal action instead of sampling.
        name: Shown in evaluation tables.
    """

    def __init__(
        self,
        policy: Any,
        observation: str | dict[str, Any] | None = None,
        deterministic: bool = False,
        name: str = "policy",
    ) -> None:
        self.policy = on_policy_policy(policy, "PolicyOpponent")
        self.observation = observation
        self.deterministic = bool(deterministic)
        self.name = name
        self.rng = np.random.default_rng()
        self._encoder: Any = None

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, trust_remote_code: bool = False, **kwargs: Any) -> PolicyOpponent:
        """Loads a saved MaskablePPO or PPO model onto the CPU, without unpickling it unless trusted.

        See :func:`load_policy`: by default only the weights and plain JSON are read, and the policy is
        rebuilt from a known architecture; the encoding the file names (models saved by
        :func:`save_model`, e.g. by ``mancala-envs train``) is used unless ``observation`` is given.

        Args:
            path: The ``.zip`` that ``model.save(path)`` or :func:`save_model` wrote.
            trust_remote_code: Load the file in full with Stable-Baselines3, which unpickles objects stored in
                it: **a crafted file runs arbitrary code**. Only for files you trust.
            **kwargs: ``observation``, ``deterministic`` and ``name`` (default: the file's stem), as for the class.

        Raises:
            FileNotFoundError: there is no such file.
            ImportError: stable-baselines3 or sb3-contrib is missing (``pip install 'mancala-envs[train]'``).
            UntrustedModelError: (a ``ValueError``) the file can only be loaded by unpickling it; the message
                names the opt-in.
            ValueError: the file is not a saved MaskablePPO or PPO model.
        """
        loaded = load_policy(path, trust_remote_code=trust_remote_code)
        kwargs.setdefault("name", Path(path).stem)
        if loaded.encoding is not None:
            kwargs.setdefault("observation", loaded.encoding)
        return cls(loaded.policy, **kwargs)

    def _encoder_for(self, raw: MancalaEnv) -> Any:
        if self._encoder is None:
            self._encoder = policy_encoder(raw.game, self.policy.observation_space, self.observation)
        return self._encoder

    def act(self, env: AECEnv) -> int:
        import torch

        raw = unwrap_env(env)
        observation = raw.observe(raw.agent_selection)
        mask = observation["action_mask"].astype(bool)
        encoded = self._encoder_for(raw)(observation["observation"])
        tensor, _ = self.policy.obs_to_tensor(encoded)
        with torch.no_grad():
            logits = self.policy.get_distribution(tensor).distribution.logits[0].cpu().numpy()
        logits = np.where(mask, logits.astype(np.float64), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        return int(self.rng.choice(mask.size, p=weights / weights.sum()))

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def frozen(self) -> PolicyOpponent:
        """A deep copy that later training of the original does not change (for self-play)."""
        return copy.deepcopy(self)

    def __repr__(self) -> str:
        return f"PolicyOpponent({self.name!r})"


def _identity(observation: np.ndarray) -> np.ndarray:
    return observation


def policy_encoder(
    game: Game, space: spaces.Space[Any], observation: str | Mapping[str, Any] | None = None
) -> Callable[[np.ndarray], np.ndarray]:
    """The function that turns the raw egocentric observation into what a policy with ``space`` expects.

    Args:
        game: The game.
        space: The policy's observation space.
        observation: ``"raw"`` (no encoding), an encoding as ``apply_wrappers`` names it (``"flat"``,
            ``{"name": "one_hot", "cap": 8}``), or ``None``: the encoding whose space equals ``space``. That
            is the raw observation, else an encoding with its default options, else the one encoding with
            other options that gives ``space`` (:func:`~mancala_envs.wrappers.encodings.encodings_of_space`):
            ``planes`` with any ``cap``, or ``flat`` with ``normalize=False``. ``one_hot`` with ``cap=c`` and
            ``thermometer`` with ``cap=c + 1`` have the same space, so outside their defaults they must be named.

    Raises:
        ValueError: the encoding's space differs from ``space``, no encoding matches it, or several encodings
            (none with its default options) do; the message lists them.
    """
    from gymnasium import spaces

    from mancala_envs.wrappers.encodings import encoder_class, encodings_of_space, make_encoder, parse_encoding

    if observation is not None:
        candidate_space: spaces.Box
        if observation == "raw":
            low, high = game.observation_bounds()
            encoder, candidate_space = _identity, spaces.Box(low, high, dtype=np.int32)
        else:
            name, options = parse_encoding(observation)
            built = make_encoder(name, game, **options)
            encoder, candidate_space = built.encode, built.space
        if candidate_space != space:
            raise ValueError(
                f"the policy's observation space {space} is not the space of the {observation!r} encoding "
                f"of {game.env_name}; pass the encoding the policy was trained with."
            )
        return encoder
    low, high = game.observation_bounds()
    if spaces.Box(low, high, dtype=np.int32) == space:
        return _identity
    found = encodings_of_space(game, space)
    defaults = [spec for spec in found if spec == {"name": spec["name"], **encoder_class(spec["name"]).options}]
    chosen = defaults or found
    if len(chosen) == 1:
        name, options = parse_encoding(chosen[0])
        return make_encoder(name, game, **options).encode
    if chosen:
        raise ValueError(
            f"no encoding of {game.env_name} gives the policy's observation space {space} alone: "
            f"{' and '.join(repr(spec) for spec in chosen)} {'both' if len(chosen) == 2 else 'all'} give it; "
            "pass the one it was trained on "
            "(observation= here, encoding= to mancala_envs.training.trainer.evaluate)."
        )
    raise ValueError(
        f"no encoding of {game.env_name} gives the policy's observation space {space}; pass observation= "
        "with the encoding it was trained on (e.g. {'name': 'one_hot', 'cap': 8})."
    )


class SB3Agent(StateAgent):
    """Plays a saved Stable-Baselines3 model (MaskablePPO or PPO) (``"sb3:path/to/model.zip"``).

    The model is loaded as :meth:`PolicyOpponent.load` loads model opponents: on the CPU, by default
    without unpickling anything (see :func:`load_policy`), with the observation encoding the file names or
    the one whose space equals the policy's. Its logits are masked with the legal actions. It samples from
    the masked policy with the agent's generator, or plays the most likely legal action with
    ``deterministic=True``.

    Args:
        path: The ``.zip`` written by ``model.save(path)`` or :func:`save_model` (``mancala-envs train``).
        seed: Seed of the agent's generator (sampling).
        deterministic: Play the most likely legal action.
        trust_remote_code: Load the file in full with Stable-Baselines3, which unpickles objects stored in it:
            **a crafted file runs arbitrary code**. Only for files you trust.

    Raises:
        FileNotFoundError: there is no such file.
        ImportError: stable-baselines3 or sb3-contrib is missing (``pip install 'mancala-envs[train]'``).
        UntrustedModelError: (a ``ValueError``) the file can only be loaded by unpickling it, and
            ``trust_remote_code`` is false; the message names the opt-in.
        ValueError: the file is neither a MaskablePPO nor a PPO model.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        seed: int | None = None,
        deterministic: bool = False,
        *,
        trust_remote_code: bool = False,
    ) -> None:
        super().__init__(seed)
        self.path = os.fspath(path)
        self.opponent = PolicyOpponent.load(
            path, deterministic=bool(deterministic), trust_remote_code=trust_remote_code
        )
        self.deterministic = bool(deterministic)
        self.name = f"sb3:{self.path}"
        self._encoder: Any = None
        self._encoder_game: Game | None = None

    def choose(self, game: Game, state: np.ndarray) -> int:
        """The masked policy's action for the player to move (as ``PolicyOpponent.act`` plays it)."""
        import torch

        if self._encoder is None or self._encoder_game is not game:
            self._encoder = policy_encoder(game, self.opponent.policy.observation_space, self.opponent.observation)
            self._encoder_game = game
        observation, mask = game.observe_with_mask(state, int(state[PLAYER]))
        tensor, _ = self.opponent.policy.obs_to_tensor(self._encoder(observation))
        with torch.no_grad():
            logits = self.opponent.policy.get_distribution(tensor).distribution.logits[0].cpu().numpy()
        logits = np.where(mask.astype(bool), logits.astype(np.float64), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        return int(self.rng.choice(mask.size, p=weights / weights.sum()))

    def __repr__(self) -> str:
        return f"SB3Agent({self.path!r})"


# --- saved models: what a default load reads, and what it refuses ---------------------------------------------------
#: The entry that :func:`save_model` (and so ``mancala-envs train``) adds to the model's zip: plain JSON that describes
#: the policy, so that a default load needs nothing from the pickled part of the file.
METADATA_ENTRY = "mancala_envs.json"
#: The ``"format"`` of that entry, and the version this library writes and reads.
METADATA_FORMAT = "mancala-envs policy"
METADATA_VERSION = 1

#: The algorithms, and the policy classes they save, that a default load rebuilds: ``(module, class)`` of the policy
#: class as the zip's ``data`` names it in plain text, to the algorithm.
KNOWN_POLICIES: dict[tuple[str, str], str] = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "MaskablePPO",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "PPO",
}
#: The hidden-layer activations a default load rebuilds, by the name the metadata uses (torch.nn class names).
ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid")

_TRUST_ADVICE = (
    "Loading it in full (trust_remote_code=True, or --trust-remote-code on the command line) lets Stable-Baselines3 "
    "unpickle the objects stored in the file, and a crafted file runs any code it likes on this machine while it "
    "loads: opt in only for a file you trust, such as one you trained yourself. Models saved by 'mancala-envs train' "
    "(or mancala_envs.agents.sb3.save_model) load without it."
)
_MAX_JSON_BYTES = 16 * 2**20  # an SB3 ``data`` entry is a few tens of kilobytes
_MAX_POLICY_BYTES = 2**30  # the policy.pth of an MLP policy: kilobytes to a few megabytes
_NOT_A_MODEL = "is neither a MaskablePPO nor a PPO model"
_LAYER = re.compile(r"mlp_extractor\.(policy_net|value_net)\.(\d+)\.(weight|bias)")
_INIT_NAME = re.compile(r"<function (\w+)\.__init__ at ")
#: Entries of ``policy_kwargs`` at their default value, as the zip's ``data`` writes them in plain text.
_DEFAULT_POLICY_KWARGS: dict[str, tuple[Any, ...]] = {
    "features_extractor_class": ("<class 'stable_baselines3.common.torch_layers.FlattenExtractor'>",),
    "features_extractor_kwargs": (None, {}),
    "activation_fn": ("<class 'torch.nn.modules.activation.Tanh'>",),
}
_BOX_TYPE = "<class 'gymnasium.spaces.box.Box'>"
_DISCRETE_TYPE = "<class 'gymnasium.spaces.discrete.Discrete'>"
#: Entries of ``policy_kwargs`` that do not change what the policy plays (training settings, or settings that have no
#: effect with the flatten extractor on a vector observation).
_INERT_POLICY_KWARGS = frozenset({"ortho_init", "optimizer_class", "optimizer_kwargs", "share_features_extractor"})


class UntrustedModelError(ValueError):
    """A saved model that cannot be loaded without unpickling it, and ``trust_remote_code`` was not given.

    The message says what is missing from the safe part of the file, and how to opt in.
    """


class _Unrecoverable(Exception):
    """What a default load cannot learn without unpickling (the reason, in words)."""


@dataclass(frozen=True)
class PolicySpec:
    """Everything needed to rebuild a saved policy without unpickling anything.

    Attributes:
        algorithm: ``"MaskablePPO"`` or ``"PPO"``.
        observation_space: The policy's observation space (a ``Box``).
        n_actions: The size of its ``Discrete`` action space.
        net_arch: The hidden layers, ``{"pi": [...], "vf": [...]}``.
        activation: The activation between hidden layers, a name in :data:`ACTIVATIONS`.
        normalize_images: Stable-Baselines3's image setting (it matters only for ``uint8`` image spaces).
        encoding: The observation encoding the policy was trained on (as ``apply_wrappers`` names it), or
            ``None`` when the file does not say (it is then found from the observation space).
        game: The game id the policy was trained on, or ``None`` when the file does not say.
    """

    algorithm: str
    observation_space: Any
    n_actions: int
    net_arch: dict[str, list[int]]
    activation: str = "Tanh"
    normalize_images: bool = True
    encoding: str | dict[str, Any] | None = None
    game: str | None = None


@dataclass(frozen=True)
class LoadedPolicy:
    """What :func:`load_policy` returns.

    Attributes:
        policy: The Stable-Baselines3 policy (a ``torch.nn.Module`` on the CPU, in evaluation mode).
        algorithm: ``"MaskablePPO"`` or ``"PPO"``.
        encoding: The observation encoding the file names, or ``None``.
        game: The game id the file names, or ``None``.
        trusted: ``True`` when the file was loaded in full by Stable-Baselines3 (``trust_remote_code=True``).
    """

    policy: Any
    algorithm: str
    encoding: str | dict[str, Any] | None = None
    game: str | None = None
    trusted: bool = False


def _missing_extra(what: str) -> ImportError:
    """The error for a missing train extra, with the command that installs it."""
    return ImportError(f"a saved {what} needs stable-baselines3 and sb3-contrib: pip install 'mancala-envs[train]'")


def _require_sb3() -> None:
    try:
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:  # pragma: no cover - depends on the installed extras
        raise _missing_extra("model") from error


def _policy_class(algorithm: str) -> Any:
    try:
        if algorithm == "MaskablePPO":
            import sb3_contrib  # noqa: F401  (the package itself: a cached submodule would hide its absence)
            from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

            return MaskableActorCriticPolicy
        from stable_baselines3.common.policies import ActorCriticPolicy

        return ActorCriticPolicy
    except ImportError as error:
        raise _missing_extra(f"{algorithm} model") from error


def _no_learning(_progress: float) -> float:
    """The learning-rate schedule of a rebuilt policy: it plays, it does not train."""
    return 0.0


def load_policy(path: str | os.PathLike[str], *, trust_remote_code: bool = False) -> LoadedPolicy:
    """Loads the policy of a saved MaskablePPO or PPO model onto the CPU, by default without unpickling anything.

    A Stable-Baselines3 ``.zip`` holds the weights (``policy.pth``) and a JSON ``data`` entry in which the
    objects that JSON cannot hold (the policy class, the spaces, the schedules ...) are pickled (the
    ``":serialized:"`` entries). Unpickling runs code named by the file, so a crafted file runs anything. Like
    ``torch.load(weights_only=True)``, the default load reads only what needs no unpickling:

    - the weights, with ``torch.load(..., weights_only=True)``;
    - the JSON entry :data:`METADATA_ENTRY` that :func:`save_model` writes (``mancala-envs train`` uses it): the
      algorithm, the observation space, the layers, the activation, the encoding and the game;
    - without that entry, the plain-text parts of ``data``: the policy class's module and name, the observation
      space's dtype, shape and bounds, the action count and ``policy_kwargs``; the layer sizes come from the
      weights' shapes.

    It rebuilds the policy only if it is one of :data:`KNOWN_POLICIES` (``MlpPolicy`` of MaskablePPO or PPO) with
    the flatten extractor, a ``Box`` observation, a ``Discrete`` action space and an activation of
    :data:`ACTIVATIONS`, and raises :class:`UntrustedModelError` for anything else.

    Args:
        path: The ``.zip`` that ``model.save(path)`` or :func:`save_model` wrote.
        trust_remote_code: Load the file in full with Stable-Baselines3's own loader (``MaskablePPO.load``, then
            ``PPO.load``), which unpickles its ``":serialized:"`` entries: **a crafted file runs arbitrary code**.
            Only for files you trust.

    Returns:
        The policy, with the algorithm, encoding and game the file names.

    Raises:
        FileNotFoundError: there is no such file.
        ImportError: stable-baselines3 or sb3-contrib is missing (``pip install 'mancala-envs[train]'``).
        UntrustedModelError: (a ``ValueError``) the file can only be loaded by unpickling it, and
            ``trust_remote_code`` is false; the message says what is missing.
        ValueError: the file is not a saved MaskablePPO or PPO model.
    """
    path = Path(path)
    if not path.is_file() and saved_model_path(path).is_file():  # "sb3:X" finds the X.zip that save_model("X") wrote
        path = saved_model_path(path)
    refuse_irregular(path, "the saved model", ValueError)  # a folder, FIFO or device is named, never opened
    if not path.is_file():
        raise FileNotFoundError(f"no saved model at {str(path)!r}; pass the .zip that model.save() wrote.")
    _require_sb3()
    if trust_remote_code:
        return _load_in_full(path)
    spec, weights = read_policy_spec(path)
    policy_class = _policy_class(spec.algorithm)
    from gymnasium import spaces

    policy = policy_class(
        spec.observation_space,
        spaces.Discrete(spec.n_actions),
        _no_learning,
        net_arch={"pi": list(spec.net_arch["pi"]), "vf": list(spec.net_arch["vf"])},
        activation_fn=_activation_class(spec.activation),
        ortho_init=False,
        normalize_images=spec.normalize_images,
    )
    try:
        policy.load_state_dict(weights, strict=True)
    except RuntimeError as error:
        raise ValueError(
            f"{str(path)!r}: the weights do not fit the policy its description gives ({error}); the file is damaged "
            "or was edited."
        ) from None
    policy.set_training_mode(False)
    return LoadedPolicy(policy, spec.algorithm, spec.encoding, spec.game, trusted=False)


def _load_in_full(path: Path) -> LoadedPolicy:
    """Stable-Baselines3's own loader (it unpickles the file): the opt-in path."""
    from stable_baselines3 import PPO

    try:
        from sb3_contrib import MaskablePPO
    except ImportError as error:
        raise _missing_extra("model") from error
    errors = []
    for algorithm in (MaskablePPO, PPO):
        try:
            model = algorithm.load(path, device="cpu")
        except (KeyError, ValueError, TypeError, AttributeError, RuntimeError, OSError) as error:
            errors.append(f"{algorithm.__name__}: {error}")
            continue
        model.policy.set_training_mode(False)
        encoding, game = _described_encoding_and_game(path)
        return LoadedPolicy(model.policy, algorithm.__name__, encoding, game, trusted=True)
    raise ValueError(f"{str(path)!r} {_NOT_A_MODEL} ({'; '.join(errors)}).")


def _described_encoding_and_game(path: Path) -> tuple[str | dict[str, Any] | None, str | None]:
    """The encoding and game that the file's :data:`METADATA_ENTRY` names, or ``(None, None)`` without a valid one."""
    where = repr(str(path))
    try:
        with open_regular(path, "the saved model") as handle, zipfile.ZipFile(handle) as archive:
            if METADATA_ENTRY not in archive.namelist():
                return None, None
            spec = _spec_from_metadata(_read_json(archive, METADATA_ENTRY, where), where)
    except (ValueError, OSError, zipfile.BadZipFile):
        return None, None
    return spec.encoding, spec.game


def read_policy_spec(path: str | os.PathLike[str]) -> tuple[PolicySpec, dict[str, Any]]:
    """Reads a saved model's description and weights without unpickling anything (see :func:`load_policy`).

    Args:
        path: The ``.zip`` that ``model.save(path)`` or :func:`save_model` wrote.

    Returns:
        The description, and the weights as ``torch.load(..., weights_only=True)`` reads them.

    Raises:
        UntrustedModelError: the description or the weights are only in the file's pickled part.
        ValueError: the file is not a saved MaskablePPO or PPO model, or its description is malformed.
    """
    path = Path(path)
    where = repr(str(path))
    handle = open_regular(path, "the saved model")  # a FIFO or device is refused, never read
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError) as error:
        handle.close()
        raise ValueError(
            f"{where} {_NOT_A_MODEL}: it is not a zip archive ({error}); pass the .zip that model.save() wrote."
        ) from None
    with handle, archive:
        names = set(archive.namelist())
        if "policy.pth" not in names:
            raise ValueError(
                f"{where} {_NOT_A_MODEL}: it has no policy.pth entry; pass the .zip that model.save() wrote."
            )
        metadata = _read_json(archive, METADATA_ENTRY, where) if METADATA_ENTRY in names else None
        data = _read_json(archive, "data", where) if "data" in names else None
        if metadata is None and data is None:
            raise ValueError(f"{where} {_NOT_A_MODEL}: it has neither a data entry nor {METADATA_ENTRY}.")
        weights = _read_weights(archive, where)
    try:
        architecture = _architecture(weights)
        if metadata is not None:
            spec = _spec_from_metadata(metadata, where)
        else:
            spec = dataclasses.replace(_spec_from_data(data), net_arch=architecture[1])
        _check_against_weights(spec, architecture)
    except _Unrecoverable as reason:
        raise UntrustedModelError(
            f"{where} cannot be loaded without unpickling it: {reason}. {_TRUST_ADVICE}"
        ) from None
    return spec, weights


def _read_json(archive: zipfile.ZipFile, name: str, where: str) -> Any:
    if archive.getinfo(name).file_size > _MAX_JSON_BYTES:
        raise ValueError(f"{where}: its {name} entry is larger than {_MAX_JSON_BYTES} bytes; this is no saved model.")
    return parse_json(archive.read(name), f"{where}: its {name} entry", ValueError)


def _read_weights(archive: zipfile.ZipFile, where: str) -> dict[str, Any]:
    import torch

    if archive.getinfo("policy.pth").file_size > _MAX_POLICY_BYTES:
        raise ValueError(
            f"{where}: its policy.pth entry is larger than {_MAX_POLICY_BYTES} bytes, the limit for a saved MLP "
            "policy; this is no saved model of this library's policies."
        )
    try:
        weights = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UntrustedModelError(
            f"{where} cannot be loaded without unpickling it: its policy.pth holds more than tensors "
            f"(torch.load(weights_only=True) refused it: {first_line}). {_TRUST_ADVICE}"
        ) from None
    except (RuntimeError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{where}: its policy.pth cannot be read ({error}); the file is damaged.") from None
    if not isinstance(weights, dict) or not all(
        isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in weights.items()
    ):
        raise ValueError(f"{where}: its policy.pth is not a dict of named tensors; this is no saved policy.")
    return weights


def _architecture(weights: dict[str, Any]) -> tuple[int, dict[str, list[int]], int]:
    """The input size, hidden layers and action count that the weights' names and shapes give.

    An MLP policy's weights are ``mlp_extractor.{policy_net,value_net}.{0,2,4...}.{weight,bias}`` (linear layers
    with an activation between them), ``action_net.*`` and ``value_net.*``; anything else is another architecture.
    """
    heads = ("action_net.weight", "action_net.bias", "value_net.weight", "value_net.bias")
    unknown = sorted(key for key in weights if not (_LAYER.fullmatch(key) or key in heads))
    if unknown:
        listed = ", ".join(unknown[:4]) + (" ..." if len(unknown) > 4 else "")
        raise _Unrecoverable(
            f"its policy has parameters that an MLP policy does not have ({listed}), so its architecture is known "
            "only to the pickled policy class"
        )
    missing = [key for key in heads if key not in weights]
    if missing:
        raise _Unrecoverable(f"its policy has no {missing[0]}, so it is not an actor-critic MLP policy")
    layers: dict[str, list[int]] = {}
    inputs: set[int] = set()
    for net, side, head in (("policy_net", "pi", "action_net"), ("value_net", "vf", "value_net")):
        matches = [_LAYER.fullmatch(key) for key in weights]
        indices = sorted({int(match.group(2)) for match in matches if match and match.group(1) == net})
        if indices != list(range(0, 2 * len(indices), 2)):
            raise _Unrecoverable(f"its {net} layers are numbered {indices}, not as an MLP's linear layers (0, 2 ...)")
        sizes: list[int] = []
        for index in indices:
            weight = weights.get(f"mlp_extractor.{net}.{index}.weight")
            bias = weights.get(f"mlp_extractor.{net}.{index}.bias")
            if weight is None or bias is None or weight.dim() != 2 or tuple(bias.shape) != (weight.shape[0],):
                raise _Unrecoverable(f"its {net} layer {index} is not a linear layer")
            if sizes and weight.shape[1] != sizes[-1]:
                raise _Unrecoverable(f"its {net} layer {index} does not take the previous layer's output")
            if not sizes:
                inputs.add(int(weight.shape[1]))
            sizes.append(int(weight.shape[0]))
        head_weight = weights[f"{head}.weight"]
        if head_weight.dim() != 2 or tuple(weights[f"{head}.bias"].shape) != (head_weight.shape[0],):
            raise _Unrecoverable(f"its {head} is not a linear head")
        if sizes and head_weight.shape[1] != sizes[-1]:
            raise _Unrecoverable(f"its {head} does not take the last {net} layer's output")
        if not sizes:
            inputs.add(int(head_weight.shape[1]))
        layers[side] = sizes
    if weights["value_net.weight"].shape[0] != 1:
        raise _Unrecoverable("its value_net does not give one value")
    if len(inputs) != 1:
        raise _Unrecoverable("its policy and value networks take inputs of different sizes")
    return inputs.pop(), layers, int(weights["action_net.weight"].shape[0])


def _check_against_weights(spec: PolicySpec, architecture: tuple[int, dict[str, list[int]], int]) -> None:
    n_inputs, layers, n_actions = architecture
    size = int(np.prod(spec.observation_space.shape))
    if size != n_inputs:
        raise _Unrecoverable(f"its observation space has {size} entries but its weights take {n_inputs}")
    if spec.n_actions != n_actions:
        raise _Unrecoverable(f"it names {spec.n_actions} actions but its weights score {n_actions}")
    if spec.net_arch != layers:
        raise _Unrecoverable(f"it names the layers {spec.net_arch} but its weights have {layers}")


def _activation_class(name: str) -> Any:
    import torch

    return getattr(torch.nn, name)


def _box(shape: Any, dtype: Any, low: Any, high: Any) -> Any:
    """A ``Box`` from plain values: a list of sizes, a numeric dtype name, and bounds as nested lists or numbers."""
    from gymnasium import spaces

    if not isinstance(shape, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in shape):
        raise _Unrecoverable(f"its observation shape {shape!r} is not a list of positive sizes")
    try:
        kind = np.dtype(dtype) if isinstance(dtype, str) else None
    except TypeError:
        kind = None
    if kind is None or kind.kind not in "biuf":
        raise _Unrecoverable(f"its observation dtype {dtype!r} is not a numeric dtype")
    bounds = []
    for bound in (low, high):
        try:
            values = np.asarray(bound, dtype=np.float64)
        except (TypeError, ValueError):
            raise _Unrecoverable("its observation bounds are not numbers") from None
        if values.size != int(np.prod(shape)):
            raise _Unrecoverable(f"its observation bounds do not have the shape {shape}")
        bounds.append(values.reshape(shape).astype(kind))
    return spaces.Box(bounds[0], bounds[1], shape=tuple(shape), dtype=kind)


def _printed_array(text: Any, what: str) -> list[float]:
    """The numbers of an array as numpy prints it (``"[0 0 48]"``, ``"[[0. 1.]\\n [1. 0.]]"``)."""
    if not isinstance(text, str) or "..." in text:
        raise _Unrecoverable(f"the {what} of its observation space are not written out in plain text")
    try:
        return [float(word) for word in text.replace("[", " ").replace("]", " ").split()]
    except ValueError:
        raise _Unrecoverable(f"the {what} of its observation space are not written out in plain text") from None


def _spec_from_data(data: Any) -> PolicySpec:
    """The description from the plain-text parts of SB3's ``data`` entry (its ``":serialized:"`` parts are not read)."""
    if not isinstance(data, dict):
        raise _Unrecoverable("its data entry is not a JSON object")
    policy_class = data.get("policy_class")
    module = policy_class.get("__module__") if isinstance(policy_class, dict) else None
    init = policy_class.get("__init__") if isinstance(policy_class, dict) else None
    match = _INIT_NAME.match(init) if isinstance(init, str) else None
    algorithm = KNOWN_POLICIES.get((module, match.group(1))) if match and isinstance(module, str) else None
    if algorithm is None:
        named = f"{module}.{match.group(1)}" if match else "a class it names only in pickled form"
        raise _Unrecoverable(
            f"its policy class is {named}, not one this loader rebuilds "
            f"({', '.join(f'{m}.{c}' for m, c in KNOWN_POLICIES)})"
        )
    activation = "Tanh"
    normalize_images = True
    policy_kwargs = data.get("policy_kwargs", {})
    if policy_kwargs is None:
        policy_kwargs = {}
    if not isinstance(policy_kwargs, dict):
        raise _Unrecoverable("its policy_kwargs are not a JSON object")
    for key, value in policy_kwargs.items():
        at_default = value in _DEFAULT_POLICY_KWARGS.get(key, ())
        if key in (":type:", ":serialized:", "net_arch") or key in _INERT_POLICY_KWARGS or at_default:
            continue  # the layers come from the weights; the pickled copy is not read
        if key == "activation_fn":
            names = [name for name in ACTIVATIONS if value == f"<class 'torch.nn.modules.activation.{name}'>"]
            if not names:
                raise _Unrecoverable(f"its activation_fn is {value!r}, not one of torch.nn's {', '.join(ACTIVATIONS)}")
            activation = names[0]
        elif key == "normalize_images" and isinstance(value, bool):
            normalize_images = value
        else:
            raise _Unrecoverable(f"its policy_kwargs set {key} = {value!r}, which this loader does not rebuild")
    space = data.get("observation_space")
    if not isinstance(space, dict) or space.get(":type:") != _BOX_TYPE:
        kind = space.get(":type:") if isinstance(space, dict) else None
        raise _Unrecoverable(f"its observation space is {kind or 'not described in plain text'}, not a gymnasium Box")
    shape = space.get("_shape")
    dtype = space.get("dtype")
    if not isinstance(shape, list):
        raise _Unrecoverable("its observation shape is not written out in plain text")
    low, high = _printed_array(space.get("low"), "lower bounds"), _printed_array(space.get("high"), "upper bounds")
    observation_space = _box(shape, dtype, low, high)
    actions = data.get("action_space")
    if not isinstance(actions, dict) or actions.get(":type:") != _DISCRETE_TYPE:
        kind = actions.get(":type:") if isinstance(actions, dict) else None
        raise _Unrecoverable(f"its action space is {kind or 'not described in plain text'}, not a gymnasium Discrete")
    n_actions, start = (str(actions.get(key, "")) for key in ("n", "start"))
    if not n_actions.isdigit() or int(n_actions) < 1 or start not in ("0", ""):
        raise _Unrecoverable("its action count is not written out in plain text")
    return PolicySpec(
        algorithm=algorithm,
        observation_space=observation_space,
        n_actions=int(n_actions),
        net_arch={"pi": [], "vf": []},  # the caller takes the layers from the weights
        activation=activation,
        normalize_images=normalize_images,
    )


def _spec_from_metadata(metadata: Any, where: str) -> PolicySpec:
    """The description from :data:`METADATA_ENTRY` (written by :func:`save_model`), checked field by field."""

    def bad(what: str) -> ValueError:
        return ValueError(f"{where}: its {METADATA_ENTRY} {what}; the file is damaged or was edited.")

    if not isinstance(metadata, dict) or metadata.get("format") != METADATA_FORMAT:
        raise bad(f"is not a {METADATA_FORMAT!r} description")
    version = metadata.get("version")
    if version != METADATA_VERSION:
        raise ValueError(
            f"{where}: its {METADATA_ENTRY} has version {version!r}, and this mancala-envs reads version "
            f"{METADATA_VERSION}; upgrade mancala-envs (pip install -U mancala-envs)."
        )
    algorithm = metadata.get("algorithm")
    if not isinstance(algorithm, str) or algorithm not in KNOWN_POLICIES.values():
        raise bad(f"names the algorithm {algorithm!r}, not one of {sorted(set(KNOWN_POLICIES.values()))}")
    activation = metadata.get("activation")
    if activation not in ACTIVATIONS:
        raise bad(f"names the activation {activation!r}, not one of {list(ACTIVATIONS)}")
    net_arch = metadata.get("net_arch")
    if not (
        isinstance(net_arch, dict)
        and set(net_arch) == {"pi", "vf"}
        and all(
            isinstance(sizes, list) and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes)
            for sizes in net_arch.values()
        )
    ):
        raise bad(f"names the layers {net_arch!r}, not {{'pi': [sizes], 'vf': [sizes]}}")
    space = metadata.get("observation_space")
    if not isinstance(space, dict):
        raise bad("has no observation_space")
    try:
        observation_space = _box(space.get("shape"), space.get("dtype"), space.get("low"), space.get("high"))
    except _Unrecoverable as reason:
        raise bad(f"describes no valid observation space ({reason})") from None
    n_actions = metadata.get("n_actions")
    if isinstance(n_actions, bool) or not isinstance(n_actions, int) or n_actions < 1:
        raise bad(f"names {n_actions!r} actions")
    encoding = metadata.get("encoding")
    if not (
        encoding is None
        or isinstance(encoding, str)
        or (
            isinstance(encoding, dict)
            and isinstance(encoding.get("name"), str)
            and all(isinstance(key, str) for key in encoding)
        )
    ):
        raise bad(f"names the encoding {encoding!r}, not a name or a dict with a 'name'")
    game = metadata.get("game")
    if game is not None and not isinstance(game, str):
        raise bad(f"names the game {game!r}")
    return PolicySpec(
        algorithm=algorithm,
        observation_space=observation_space,
        n_actions=n_actions,
        net_arch={"pi": list(net_arch["pi"]), "vf": list(net_arch["vf"])},
        activation=activation,
        encoding=encoding,
        game=game,
    )


def model_metadata(
    model: Any,
    game: str | None = None,
    encoding: str | dict[str, Any] | None = None,
    game_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The :data:`METADATA_ENTRY` description of a MaskablePPO or PPO model with an MLP policy.

    Args:
        model: The model.
        game: The game id it was trained on.
        encoding: The observation encoding it was trained on (as ``apply_wrappers`` names it).
        game_options: The options of the game (kept if they are plain JSON).

    Raises:
        ValueError: the model is not one a default load could rebuild (another policy class, extractor,
            activation or space).
    """
    from gymnasium import spaces

    policy = model.policy
    algorithm = type(model).__name__
    key = (type(policy).__module__, type(policy).__name__)
    if KNOWN_POLICIES.get(key) != algorithm:
        raise ValueError(
            f"only MaskablePPO or PPO with their MlpPolicy can be described for a safe load (got {algorithm} with "
            f"{key[0]}.{key[1]}); save it with model.save() and load it with trust_remote_code=True."
        )
    activation: Any = getattr(policy, "activation_fn", None)
    known = getattr(activation, "__module__", None) == "torch.nn.modules.activation"
    if not known or activation.__name__ not in ACTIVATIONS:
        raise ValueError(f"the activation {activation!r} is not one of torch.nn's {', '.join(ACTIVATIONS)}.")
    observation_space, action_space = policy.observation_space, policy.action_space
    if (
        not isinstance(observation_space, spaces.Box)
        or not isinstance(action_space, spaces.Discrete)
        or int(action_space.start) != 0
    ):
        raise ValueError("only a Box observation space and a Discrete action space starting at 0 can be described.")
    try:
        _, layers, _ = _architecture(dict(policy.state_dict()))
    except _Unrecoverable as reason:
        raise ValueError(f"the policy is not an MLP policy ({reason}).") from None
    options = dict(game_options or {})
    try:
        json.dumps(options, allow_nan=False)
    except (TypeError, ValueError):
        options = {key: repr(value) for key, value in options.items()}
    return {
        "format": METADATA_FORMAT,
        "version": METADATA_VERSION,
        "algorithm": algorithm,
        "game": game,
        "game_options": options,
        "encoding": encoding,
        "net_arch": layers,
        "activation": activation.__name__,
        "normalize_images": bool(getattr(policy, "normalize_images", True)),
        "observation_space": {
            "shape": [int(n) for n in observation_space.shape],
            "dtype": str(observation_space.dtype),
            "low": observation_space.low.tolist(),
            "high": observation_space.high.tolist(),
        },
        "n_actions": int(action_space.n),
    }


def saved_model_path(path: str | os.PathLike[str]) -> Path:
    """The file a model saved at ``path`` goes to: ``path`` itself when its name ends with ``.zip``, else ``path``
    with ``.zip`` added (``"m"`` -> ``m.zip``, ``"m.v2"`` -> ``m.v2.zip``).

    :func:`save_model` (and so ``mancala-envs train --save``) writes there, and :func:`load_policy` (``"sb3:m"``,
    ``"model:m"``) reads there when ``path`` itself is no file, as Stable-Baselines3's ``load`` does.

    Example:
        >>> [saved_model_path(name).name for name in ("models/m", "m.zip", "m.v2")]
        ['m.zip', 'm.zip', 'm.v2.zip']
    """
    path = Path(path)
    return path if path.suffix == ".zip" else path.with_name(path.name + ".zip")


def save_model(
    model: Any,
    path: str | os.PathLike[str],
    game: str | None = None,
    encoding: str | dict[str, Any] | None = None,
    game_options: dict[str, Any] | None = None,
) -> Path:
    """Saves a model with ``model.save(path)`` and adds the description that lets it load without unpickling.

    The zip stays a Stable-Baselines3 file (``MaskablePPO.load`` reads it as before; it ignores the extra
    :data:`METADATA_ENTRY`), and :func:`load_policy`, ``"sb3:PATH"`` and ``"model:PATH"`` load it by default.

    Args:
        model: A MaskablePPO or PPO model with its MLP policy.
        path: Where to save (``.zip`` is added unless the name ends with it: :func:`saved_model_path`).
        game: The game id it was trained on.
        encoding: The observation encoding it was trained on (``"flat"``, ``{"name": "one_hot", "cap": 8}`` ...).
        game_options: The options of the game.

    Returns:
        The path of the zip.

    Raises:
        ValueError: the model is not one a default load could rebuild (see :func:`model_metadata`); nothing is saved.
    """
    metadata = model_metadata(model, game, encoding, game_options)
    path = saved_model_path(path)
    model.save(path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(METADATA_ENTRY, json.dumps(metadata, indent=2))
    return path
