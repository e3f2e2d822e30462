"""Env specs: the options a pool was made with and the spaces of one environment.

An :class:`EnvSpec` is what ``make_spec`` returns and what every pool carries as ``.spec``.
It is built from the C++ env's own declaration (``env_spec`` of the family's extension
module), so the Gymnasium spaces and dm_env specs can never drift from what the core writes.
"""

from __future__ import annotations

import collections
import keyword
import numbers
import re
from collections.abc import Iterator, Mapping
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


class Conventions(StrEnum):
    """Whose conventions a pool follows where EnvPool and the front end's own library differ
    (``make``'s ``conventions`` argument).

    ENVPOOL (default): EnvPool 1.2.5's, so that code written for EnvPool runs unchanged:
    ``observation_space`` / ``action_space`` describe one env, rewards (and dm discounts) are
    float32, infos and dm observations carry ``players.env_id``, and ``render()`` draws
    ``render_env_id``. GYMNASIUM (``env_type="gymnasium"``, what ``gymnasium.make_vec``
    gives): Gymnasium's ``VectorEnv`` contract, so that Gymnasium's vector wrappers and the
    libraries built on it see what they expect: batched ``observation_space`` /
    ``action_space`` next to ``single_*``, float64 rewards (as ``SyncVectorEnv``), ``render()``
    a tuple of every env's frame, sync mode only. DM_ENV (``env_type="dm"``): the reference
    envs' own float64 rewards and discounts, as dm_control returns them.
    """

    ENVPOOL = "envpool"
    GYMNASIUM = "gymnasium"
    DM_ENV = "dm_env"

    @classmethod
    def parse(cls, value: Any) -> Conventions:
        try:
            return cls(value)
        except ValueError:
            raise ValueError(
                f"conventions must be one of {[c.value for c in cls]}, got {value!r}"
            ) from None

    @property
    def reward_dtype(self) -> np.dtype:
        """The dtype of rewards (and dm discounts) under these conventions."""
        return np.dtype(np.float32 if self is Conventions.ENVPOOL else np.float64)


@dataclass(frozen=True)
class PoolConfig(Mapping):
    """Everything a pool was made with: pool options and the env's own options.

    Read it by attribute (``config.num_envs``, like EnvPool's ``spec.config``) or by key
    (``config["num_envs"]``, ``dict(config)``, like EnvPool's ``env.config`` dict); the env's
    options are entries too (``config["frame_skip"]``).

    ``env_options`` are the options common to every env (the env type's defaults, the task's,
    then ``make``'s keywords); ``per_env_options`` what each env changes on top of them (one
    dict per env, empty when ``make`` got none), so ``config["gravity"]`` is the common value
    and :meth:`env_options_of` the one env ``i`` was built with.
    """

    task_id: str
    num_envs: int
    batch_size: int
    num_threads: int
    seed: tuple[int, ...]
    max_episode_steps: int
    thread_affinity_offset: int
    autoreset_mode: AutoresetMode
    env_options: dict[str, Any] = field(default_factory=dict)
    per_env_options: tuple[dict[str, Any], ...] = ()
    render_mode: str | None = None
    render_env_id: int = 0
    render_width: int = 0  # 0: the env has no renderer
    render_height: int = 0
    render_camera_id: int = -1
    conventions: Conventions = Conventions.ENVPOOL
    reward_threshold: float | None = None
    # EnvPool's options, accepted so its calls run: envfleet's envs have one player each, and
    # its resets return infos (the pre-0.26 reset is make_gym's legacy_api=True).
    max_num_players: int = 1
    gym_reset_return_info: bool = True

    def __getattr__(self, name: str) -> Any:
        # EnvPool exposes env options as attributes of spec.config, next to pool options.
        options = self.__dict__.get("env_options", {})
        if name in options:
            return options[name]
        raise AttributeError(name)

    def env_options_of(self, env_id: int) -> dict[str, Any]:
        """Every option of env ``env_id``: the common ones updated with its own."""
        if isinstance(env_id, bool) or not isinstance(env_id, numbers.Integral):
            raise TypeError(f"env_id must be an int, got {env_id!r}")
        if not 0 <= env_id < self.num_envs:
            raise ValueError(f"env_id must be in [0, {self.num_envs - 1}], got {env_id}")
        own = self.per_env_options[env_id] if self.per_env_options else {}
        return {**self.env_options, **own}

    def _asdict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "env_options"}
        out.update(self.env_options)
        return out

    def __getitem__(self, key: str) -> Any:
        if key != "env_options":
            if key in self.env_options:
                return self.env_options[key]
            if key in self.__dict__:
                return self.__dict__[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        yield from (k for k in self.__dict__ if k != "env_options")
        yield from self.env_options

    def __len__(self) -> int:
        return len(self.__dict__) - 1 + len(self.env_options)


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
        low = _bound(d["low"], shape, dtype, low=True, discrete=bool(d["discrete"]))
        high = _bound(d["high"], shape, dtype, low=False, discrete=bool(d["discrete"]))
        return cls(d["name"], dtype, shape, low, high, bool(d["discrete"]))

    def space(self) -> spaces.Space:
        # Discrete spaces carry the arrays' dtype (int64 but for MiniGrid's int32 direction,
        # whose space EnvPool states as int64 while it returns int32 arrays).
        if self.discrete and self.shape == ():
            start = int(self.low)
            return spaces.Discrete(int(self.high) - start + 1, start=start, dtype=self.dtype)
        if self.discrete:
            return spaces.MultiDiscrete(
                (self.high - self.low + 1).astype(self.dtype),
                start=self.low.astype(self.dtype),
                dtype=self.dtype,
            )
        if self.dtype == np.bool_:
            return spaces.MultiBinary(list(self.shape) if self.shape else 1)
        return spaces.Box(self.low, self.high, self.shape, self.dtype)

    def dm_spec(self) -> dm_specs.Array:
        if self.discrete and self.shape == () and int(self.low) == 0:
            return dm_specs.DiscreteArray(int(self.high) + 1, dtype=self.dtype, name=self.name)
        if np.all(np.isfinite(self.low)) or np.all(np.isfinite(self.high)):
            return dm_specs.BoundedArray(
                self.shape, self.dtype, _uniform(self.low), _uniform(self.high), name=self.name
            )
        return dm_specs.Array(self.shape, self.dtype, name=self.name)

    def array_spec(self, per_player: bool = False) -> ArraySpec:
        """This array as an entry of EnvPool's ``state_array_spec`` / ``action_array_spec``."""
        shape = [-1] * per_player + list(self.shape)
        return ArraySpec(self.dtype, shape, _uniform(self.low), _uniform(self.high))


@dataclass(frozen=True)
class ArraySpec:
    """An entry of EnvPool's ``state_array_spec`` / ``action_array_spec``: ``shape`` is a list
    whose leading -1, where there is one, stands for the players of an env; ``minimum`` and
    ``maximum`` are scalars where every element has the same bound (as in EnvPool)."""

    dtype: np.dtype
    shape: list[int]
    minimum: Any
    maximum: Any

    @classmethod
    def scalar(cls, dtype: Any, per_player: bool = False) -> ArraySpec:
        """A number per env (or per player) over its dtype's whole range."""
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            low, high = False, True
        elif dtype.kind == "f":
            low, high = np.finfo(dtype).min, np.finfo(dtype).max
        else:
            low, high = np.iinfo(dtype).min, np.iinfo(dtype).max
        return cls(dtype, [-1] * per_player, low, high)


def _uniform(bound: np.ndarray) -> Any:
    """A bound array as one number where all its elements are equal: dm_env and EnvPool then
    state the scalar (``maximum == 255`` for images)."""
    flat = bound.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return flat[0]
    return bound


def _bound(
    values: list[float], shape: tuple[int, ...], dtype: np.dtype, low: bool, discrete: bool
) -> np.ndarray:
    """One bound of an array, at its full shape. Integer bounds are int64, except those of an
    image-like (not discrete) array whose bounds fit its own dtype, which stay in that dtype:
    a large frame (from_pixels at 16384x16384) would otherwise take 8 bytes per pixel here."""
    integer = np.issubdtype(dtype, np.integer)
    if not values:
        if integer:
            info = np.iinfo(dtype)
            value = info.min if low else info.max
        elif dtype == np.bool_:
            value = 0 if low else 1
        else:
            value = -np.inf if low else np.inf
        values = [value]
    array = np.asarray(values, dtype=np.float64)
    if integer:
        # Float bounds past int64 saturate (2**63 itself, int64's max as a float, does not fit).
        array = np.clip(array, -(2.0**63), np.nextafter(2.0**63, 0))
        own = np.iinfo(dtype)
        fits = not discrete and bool(np.all((array >= own.min) & (array <= own.max)))
        target = dtype if fits else np.dtype(np.int64)
    else:
        target = np.dtype(np.int8) if dtype == np.bool_ else dtype
    if array.size == 1:  # uniform: no full-shape float64 temporary
        return np.full(shape, array.reshape(-1)[0], dtype=target)
    return array.reshape(shape).astype(target)


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


# EnvPool's dm observations nest the players' env ids: ``ts.observation.players.env_id``.
PLAYERS = collections.namedtuple("players", ["env_id"])

# Observation keys named "outer:inner" are the entries of a dict inside the observation dict,
# obs["outer"]["inner"] (FrankaKitchen's achieved_goal and desired_goal, dicts of tasks), as
# EnvPool names their arrays ("obs:desired_goal:kettle").
NEST_SEPARATOR = ":"


class ObsNesting:
    """How the flat observation keys of a dict layout nest: built once per spec, applied to
    every batch. Keys keep the env's order, each dict placed where its first key is."""

    def __init__(self, names: list[str]):
        self.tree: dict[str, Any] = {}  # nested dicts whose leaves are the keys' indices
        for index, name in enumerate(names):
            *outer, inner = name.split(NEST_SEPARATOR)
            node = self.tree
            for part in outer:
                node = node.setdefault(part, {})
                if not isinstance(node, dict):
                    raise ValueError(f"observation key {name!r} nests under an array")
            if inner in node:
                raise ValueError(f"observation key {name!r} is declared twice")
            node[inner] = index
        # dm_env's namedtuples: one class per nested dict, named after its key, its fields
        # made identifiers ("bottom burner" -> bottom_burner), as EnvPool's.
        self._tuple_classes: dict[int, type] = {}
        self._make_tuple_classes(self.tree)

    @property
    def names(self) -> list[str]:
        """The observation's own keys, the nested dicts' included."""
        return list(self.tree)

    def dict(self, values: Any) -> dict[str, Any]:
        """The nested dict of ``values`` (one per flat key, in order)."""
        return self._fill(self.tree, values, tuples=False)

    def tuple_values(self, values: Any) -> list[Any]:
        """The values of the observation's own keys for dm_env, the nested dicts as
        namedtuples."""
        return [
            self._fill(node, values, tuples=True) if isinstance(node, dict) else values[node]
            for node in self.tree.values()
        ]

    def _fill(self, tree: dict[str, Any], values: Any, tuples: bool) -> Any:
        items = [
            self._fill(node, values, tuples) if isinstance(node, dict) else values[node]
            for node in tree.values()
        ]
        if tuples:
            return self._tuple_classes[id(tree)](*items)
        return dict(zip(tree, items, strict=True))

    def _make_tuple_classes(self, tree: dict[str, Any]) -> None:
        for name, node in tree.items():
            if isinstance(node, dict):
                self._make_tuple_classes(node)
                self._tuple_classes[id(node)] = collections.namedtuple(
                    _identifier(name), [_identifier(key) for key in node]
                )


def _identifier(name: str) -> str:
    """``name`` as a namedtuple field: characters other than letters, digits and _ become _
    (and what is still no field name, a keyword or a leading _ or digit, gets a "k" first)."""
    out = re.sub(r"\W", "_", name)
    valid = out.isidentifier() and not keyword.iskeyword(out) and not out.startswith("_")
    return out if valid else f"k{out}"


def _nested_space(tree: dict[str, Any]) -> spaces.Dict:
    """The Dict space of an ObsNesting tree whose leaves are spaces."""
    return spaces.Dict(
        collections.OrderedDict(
            (k, _nested_space(v) if isinstance(v, dict) else v) for k, v in tree.items()
        )
    )


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
    ):
        self._config = config
        self.env_type = env_type
        self.module = module  # the extension module that builds env_type
        self.obs_layout: str = core_spec["obs_layout"]
        self.obs_keys = [ArrayInfo.from_core(d) for d in core_spec["obs"]]
        # How observations reach Gymnasium-style front ends. Under EnvPool's conventions a
        # dict of one entry is that entry's array, EnvPool's rule ("if only one key starts
        # with obs, it returns that space"): dm_control's from_pixels {"pixels": ...}.
        self.gym_obs_layout: str = self.obs_layout
        if (
            config.conventions is Conventions.ENVPOOL
            and self.obs_layout == "dict"
            and len(self.obs_keys) == 1
        ):
            self.gym_obs_layout = "single"
        # Dicts inside the observation dict (keys named "outer:inner"); None where it is flat.
        self.obs_nesting: ObsNesting | None = None
        if self.obs_layout == "dict" and any(NEST_SEPARATOR in k.name for k in self.obs_keys):
            self.obs_nesting = ObsNesting([k.name for k in self.obs_keys])
        self.info_keys = [ArrayInfo.from_core(d) for d in core_spec["info"]]
        self.action_key = ArrayInfo.from_core(core_spec["action"])
        self.reward_range: tuple[float, float] = tuple(core_spec["reward_range"])
        self.render = RenderInfo(**core_spec["render"])
        self.observation_space = self._observation_space()
        self.action_space = self.action_key.space()
        # Plain attributes, as on EnvPool's specs (and Gymnasium's EnvSpec, a mutable
        # dataclass): code written for EnvPool assigns them (EnvPool's SB3 example sets
        # ``env.spec.id = env_id`` before wrapping). They describe the task to its readers;
        # the pool runs on ``config``, which no assignment changes.
        self.task_id: str = config.task_id
        self.id: str = config.task_id  # the task id, as Gymnasium's EnvSpec names it
        # The pool's time limit, as Gymnasium's EnvSpec names it (None: no limit).
        self.max_episode_steps: int | None = config.max_episode_steps or None

    @property
    def config(self) -> PoolConfig:
        """What the pool was (or will be) made with: read-only, as on EnvPool's specs, since
        the pool runs on it."""
        return self._config

    @property
    def reward_threshold(self) -> float | None:
        """The task's "solved" score (Gymnasium's ``reward_threshold``; None: none)."""
        return self.config.reward_threshold

    @property
    def action_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's view of what ``send`` takes: the env ids, each player's env id and the
        action."""
        return {
            "env_id": ArraySpec.scalar(np.int32),
            "players.env_id": ArraySpec.scalar(np.int32, per_player=True),
            "action": self.action_key.array_spec(per_player=True),
        }

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's view of what ``recv`` returns, one entry per array (``obs`` or
        ``obs:<key>``, ``info:<key>``, and the pool's own)."""
        reward = self.config.conventions.reward_dtype
        out = {
            "info:env_id": ArraySpec.scalar(np.int32),
            "info:players.env_id": ArraySpec.scalar(np.int32, per_player=True),
            "elapsed_step": ArraySpec.scalar(np.int32),
            "done": ArraySpec.scalar(np.bool_),
            "reward": ArraySpec.scalar(reward, per_player=True),
            "discount": ArraySpec(reward, [-1], 0.0, 1.0),
            "step_type": ArraySpec.scalar(np.int32),
            "trunc": ArraySpec.scalar(np.bool_),
        }
        for key in self.obs_keys:
            name = "obs" if self.obs_layout == "single" else f"obs:{key.name}"
            out[name] = key.array_spec()
        for key in self.info_keys:
            out[f"info:{key.name}"] = key.array_spec(per_player=key.shape == ())
        return out

    @property
    def gymnasium_observation_space(self) -> spaces.Space:
        """``observation_space``, by EnvPool's other name for it."""
        return self.observation_space

    @property
    def gymnasium_action_space(self) -> spaces.Space:
        """``action_space``, by EnvPool's other name for it."""
        return self.action_space

    def _observation_space(self) -> spaces.Space:
        if self.gym_obs_layout == "single":
            return self.obs_keys[0].space()
        if self.gym_obs_layout == "tuple":
            return spaces.Tuple([key.space() for key in self.obs_keys])
        # An OrderedDict: a plain dict would be sorted by Gymnasium, and the observations (and
        # dm_control, EnvPool) keep the env's own key order.
        if self.obs_nesting is not None:
            return _nested_space(self.obs_nesting.dict([k.space() for k in self.obs_keys]))
        return spaces.Dict(collections.OrderedDict((k.name, k.space()) for k in self.obs_keys))

    def observation_spec(self):
        """dm_env specs of one env's observation: obs keys, info keys and env_id (and, under
        EnvPool's conventions, ``players.env_id``)."""
        fields = [key.dm_spec() for key in self.obs_keys + self.info_keys]
        fields.append(dm_specs.Array((), np.int32, name="env_id"))
        values = {f.name: f for f in fields}
        if self.obs_nesting is not None:  # nested namedtuples of specs named by their keys
            obs = [
                key.dm_spec().replace(name=key.name.rsplit(NEST_SEPARATOR, 1)[-1])
                for key in self.obs_keys
            ]
            nested = zip(self.obs_nesting.names, self.obs_nesting.tuple_values(obs), strict=True)
            values = {**dict(nested), **{f.name: f for f in fields[len(obs) :]}}
        if self.config.conventions is Conventions.ENVPOOL:
            values["players"] = PLAYERS(dm_specs.Array((), np.int32, name="env_id"))
        State = collections.namedtuple("State", list(values))  # noqa: N806
        return State(**values)

    def action_spec(self) -> dm_specs.Array:
        return self.action_key.dm_spec()

    def reward_spec(self) -> dm_specs.Array:
        return dm_specs.Array((), self.config.conventions.reward_dtype, name="reward")

    def discount_spec(self) -> dm_specs.BoundedArray:
        dtype = self.config.conventions.reward_dtype
        return dm_specs.BoundedArray((), dtype, 0.0, 1.0, name="discount")

    def __repr__(self) -> str:
        return (
            f"EnvSpec({self.config.task_id!r}, num_envs={self.config.num_envs}, "
            f"batch_size={self.config.batch_size}, observation_space={self.observation_space}, "
            f"action_space={self.action_space})"
        )


class GoalEnvSpec(EnvSpec):
    """The spec of a goal-conditioned task (Gymnasium-Robotics' GoalEnv: Fetch, Shadow Hand,
    PointMaze): an EnvSpec with the task's reward, termination and truncation as functions of
    goals, for relabelling (HER). Each takes batches: ``achieved_goal`` and ``desired_goal`` of
    shape (..., goal) and the matching ``info`` (a dict of arrays, or None where the task reads
    none), and returns one value per goal pair, equal to what the reference's method returns
    for each pair. They are computed with the pool's common env options (``config``)."""

    def __init__(self, config: PoolConfig, env_type: str, core_spec: dict, module: Any, goal):
        super().__init__(config, env_type, core_spec, module)
        self._goal = goal

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """GoalEnv.compute_reward over a batch of goal pairs."""
        return self._goal.compute_reward(achieved_goal, desired_goal, info)

    def compute_terminated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """GoalEnv.compute_terminated over a batch of goal pairs."""
        return self._goal.compute_terminated(achieved_goal, desired_goal, info)

    def compute_truncated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """GoalEnv.compute_truncated over a batch of goal pairs."""
        return self._goal.compute_truncated(achieved_goal, desired_goal, info)
