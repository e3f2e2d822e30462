"""Env specs: the options a pool was made with and the spaces of one environment.

An :class:`EnvSpec` is what ``make_spec`` returns and what every pool carries as ``.spec``.
It is built from the C++ env's own declaration (``env_spec`` of the family's extension
module), so the Gymnasium spaces and dm_env specs can never drift from what the core writes.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
from dm_env import specs as dm_specs
from gymnasium import spaces


class AutoresetMode(StrEnum):
    """What a step does once an env's episode has ended (Gymnasium 1.x names).

    NEXT_STEP (default, EnvPool's behaviour): the following step resets the env, ignores its
    action and returns the first observation with reward 0. SAME_STEP: the step that ends the
    episode already returns the next episode's first observation; the last one is in
    ``info["final_obs"]``. DISABLED: the env must be reset explicitly.
    """

    NEXT_STEP = "next_step"
    SAME_STEP = "same_step"
    DISABLED = "disabled"

    @property
    def core_value(self) -> int:
        return {"next_step": 0, "same_step": 1, "disabled": 2}[self.value]

    @classmethod
    def parse(cls, value: Any) -> AutoresetMode:
        if isinstance(value, cls):
            return value
        name = getattr(value, "name", value)  # accepts gymnasium.vector.AutoresetMode too
        if isinstance(name, str):
            key = name.lower().replace("-", "_")
            for mode in cls:
                if key in (mode.value, mode.name.lower(), mode.value.replace("_", "")):
                    return mode
        raise ValueError(
            f"autoreset_mode must be one of {[m.value for m in cls]} "
            f"(or a gymnasium.vector.AutoresetMode), got {value!r}"
        )

    def to_gymnasium(self):
        from gymnasium.vector import AutoresetMode as GymMode

        return GymMode[self.name]


@dataclass(frozen=True)
class PoolConfig:
    """Everything a pool was made with: pool options and the env's own options."""

    task_id: str
    num_envs: int
    batch_size: int
    num_threads: int
    seed: tuple[int, ...]
    max_episode_steps: int
    thread_affinity_offset: int
    autoreset_mode: AutoresetMode
    env_options: dict[str, Any] = field(default_factory=dict)
    render_mode: str | None = None
    render_env_id: int = 0
    render_width: int = 0  # 0: the env has no renderer
    render_height: int = 0
    render_camera_id: int = -1

    def __getattr__(self, name: str) -> Any:
        # EnvPool exposes env options as attributes of spec.config, next to pool options.
        options = self.__dict__.get("env_options", {})
        if name in options:
            return options[name]
        raise AttributeError(name)

    def _asdict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "env_options"}
        out.update(self.env_options)
        return out


_NUMPY_DTYPES = {
    "bool": np.bool_,
    "int8": np.int8,
    "uint8": np.uint8,
    "int32": np.int32,
    "int64": np.int64,
    "float32": np.float32,
    "float64": np.float64,
}


@dataclass(frozen=True)
class ArrayInfo:
    """One array of one env, as declared by the C++ env."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    low: np.ndarray
    high: np.ndarray
    discrete: bool

    @classmethod
    def from_core(cls, d: dict) -> ArrayInfo:
        dtype = np.dtype(_NUMPY_DTYPES[d["dtype"]])
        shape = tuple(d["shape"])
        low = _bound(d["low"], shape, dtype, low=True)
        high = _bound(d["high"], shape, dtype, low=False)
        return cls(d["name"], dtype, shape, low, high, bool(d["discrete"]))

    def space(self) -> spaces.Space:
        if self.discrete and self.shape == ():
            start = int(self.low)
            return spaces.Discrete(int(self.high) - start + 1, start=start)
        if self.discrete:
            return spaces.MultiDiscrete(
                (self.high - self.low + 1).astype(np.int64), start=self.low.astype(np.int64)
            )
        if self.dtype == np.bool_:
            return spaces.MultiBinary(list(self.shape) if self.shape else 1)
        return spaces.Box(self.low, self.high, self.shape, self.dtype)

    def dm_spec(self) -> dm_specs.Array:
        if self.discrete and self.shape == () and int(self.low) == 0:
            return dm_specs.DiscreteArray(int(self.high) + 1, dtype=self.dtype, name=self.name)
        if np.all(np.isfinite(self.low)) or np.all(np.isfinite(self.high)):
            return dm_specs.BoundedArray(
                self.shape, self.dtype, self.low, self.high, name=self.name
            )
        return dm_specs.Array(self.shape, self.dtype, name=self.name)


def _bound(values: list[float], shape: tuple[int, ...], dtype: np.dtype, low: bool) -> np.ndarray:
    if not values:
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            value = info.min if low else info.max
        elif dtype == np.bool_:
            value = 0 if low else 1
        else:
            value = -np.inf if low else np.inf
        return np.full(shape, value, dtype=dtype if dtype != np.bool_ else np.int8)
    array = np.asarray(values, dtype=np.float64)
    if array.size == 1:
        array = np.full(shape, array[0])
    array = array.reshape(shape)
    if np.issubdtype(dtype, np.integer):
        return array.astype(np.int64)
    return array.astype(dtype) if dtype != np.bool_ else array


@dataclass(frozen=True)
class RenderInfo:
    """What one env can draw, as its C++ spec states it (``RenderSpec``): the reference env's
    frame size and ``render_fps``, whether other sizes may be asked for, and its camera count
    (valid camera ids: -1, the default view, to ``num_cameras - 1``)."""

    width: int
    height: int
    resizable: bool
    fps: float
    num_cameras: int

    @property
    def available(self) -> bool:
        return self.width > 0

    @property
    def render_fps(self) -> int | float:
        """``metadata["render_fps"]`` as Gymnasium's envs state it (an int where it is one)."""
        return int(self.fps) if float(self.fps).is_integer() else self.fps


class EnvSpec:
    """The spec of one task with given options: what ``make_spec`` returns.

    ``observation_space`` / ``action_space`` describe ONE environment, as in EnvPool.
    """

    def __init__(
        self,
        config: PoolConfig,
        env_type: str,
        core_spec: dict,
        module: Any,
        reward_threshold: float | None = None,
    ):
        self.config = config
        self.env_type = env_type
        self.module = module  # the extension module that builds env_type
        self.reward_threshold = reward_threshold
        self.obs_layout: str = core_spec["obs_layout"]
        self.obs_keys = [ArrayInfo.from_core(d) for d in core_spec["obs"]]
        self.info_keys = [ArrayInfo.from_core(d) for d in core_spec["info"]]
        self.action_key = ArrayInfo.from_core(core_spec["action"])
        self.reward_range: tuple[float, float] = tuple(core_spec["reward_range"])
        self.render = RenderInfo(**core_spec["render"])
        self.observation_space = self._observation_space()
        self.action_space = self.action_key.space()

    @property
    def task_id(self) -> str:
        return self.config.task_id

    @property
    def max_episode_steps(self) -> int | None:
        """The pool's time limit, as Gymnasium's ``EnvSpec`` names it (None: no limit)."""
        return self.config.max_episode_steps or None

    def _observation_space(self) -> spaces.Space:
        if self.obs_layout == "single":
            return self.obs_keys[0].space()
        if self.obs_layout == "tuple":
            return spaces.Tuple([key.space() for key in self.obs_keys])
        # An OrderedDict: a plain dict would be sorted by Gymnasium, and the observations (and
        # dm_control, EnvPool) keep the env's own key order.
        return spaces.Dict(collections.OrderedDict((k.name, k.space()) for k in self.obs_keys))

    def observation_spec(self):
        """dm_env specs of one env's observation: obs keys, info keys and env_id."""
        fields = [key.dm_spec() for key in self.obs_keys + self.info_keys]
        fields.append(dm_specs.Array((), np.int32, name="env_id"))
        State = collections.namedtuple("State", [f.name for f in fields])  # noqa: N806
        return State(*fields)

    def action_spec(self) -> dm_specs.Array:
        return self.action_key.dm_spec()

    def reward_spec(self) -> dm_specs.Array:
        return dm_specs.Array((), np.float64, name="reward")

    def discount_spec(self) -> dm_specs.BoundedArray:
        return dm_specs.BoundedArray((), np.float64, 0.0, 1.0, name="discount")

    def __repr__(self) -> str:
        return (
            f"EnvSpec({self.task_id!r}, num_envs={self.config.num_envs}, "
            f"batch_size={self.config.batch_size}, observation_space={self.observation_space}, "
            f"action_space={self.action_space})"
        )
