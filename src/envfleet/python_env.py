"""Environments written in Python, compiled by Numba, run by the C++ pool at native speed.

An env is a class: its spaces, the layout of one env's state, its options, and three plain
functions that Numba compiles in nopython mode::

    import math
    import numpy as np
    from gymnasium import spaces
    import envfleet

    class Pendulum1D(envfleet.PythonEnv):
        observation_space = spaces.Box(-np.inf, np.inf, (2,), np.float32)
        action_space = spaces.Discrete(3)
        state = {"theta": np.float64, "omega": np.float64}    # field -> dtype or (dtype, shape)
        options = {"g": 10.0}                                   # bool, int or float defaults
        max_episode_steps = 200

        @staticmethod
        def reset(state, rng, options):
            state.theta = rng.uniform(-math.pi, math.pi)
            state.omega = 0.0

        @staticmethod
        def step(state, action, rng, options):
            state.omega += 0.05 * (options.g * math.sin(state.theta) + (action - 1.0))
            state.theta += 0.05 * state.omega
            return -abs(state.theta), False                    # (reward, terminated)

        @staticmethod
        def observe(state, obs):                               # (state, obs, info) with info
            obs[0] = state.theta
            obs[1] = state.omega

    envfleet.register_python_env("Pendulum1D-v0", Pendulum1D)
    env = envfleet.make("Pendulum1D-v0", num_envs=64, g=9.81)

What the functions receive:

- ``state``: this env's record (a NumPy structured scalar in nopython code): ``state.x``,
  ``state.grid[i, j]``. It is zeroed when the env is created and then persists across
  episodes: ``reset`` must set every field the episode relies on.
- ``rng``: this env's random generator, the pool's twin of Gymnasium's ``np_random``
  (``Generator(PCG64(SeedSequence(seed + i)))``): ``rng.random()``, ``rng.uniform(low,
  high)``, ``rng.integers(low, high)`` (or ``rng.integers(high)``) draw exactly what NumPy's
  methods of those names draw, so the same calls as a Gymnasium env reproduce it bit for bit.
- ``options``: a record of the options (``options.g``), as given to ``make``; read only.
- ``action``: an int for ``Discrete``, else an array of the action space's shape; read only.
- ``obs``: the array to fill (a 0-d array for a scalar space: ``obs[()] = v``); for a
  ``Dict`` space a namedtuple of arrays (``obs.position[0] = ...``), for a ``Tuple`` space a
  tuple. ``info``: a namedtuple of the arrays declared in ``info``. These are the pool's own
  output rows: nothing is copied. ``observe`` must write every element and not change state.

``step`` returns ``(reward, terminated)``; time limits are the pool's (``max_episode_steps``).
An exception raised inside any of the functions (``raise ValueError(...)``, an ``IndexError``
from the bounds check) makes that call fail, and the pool raises :class:`envfleet.EnvError`.

Registration compiles the functions (or loads them from the disk cache), runs them once on
scratch buffers to check what they write, and registers the task id; every front end
(``make``, ``make_gym``, ``make_dm``) then takes it like a built-in id. The same class also
runs uncompiled, as a plain ``gymnasium.Env``: :func:`as_gymnasium_env` (handy to debug).
"""

from __future__ import annotations

import collections
import copy
import ctypes
import keyword
import math
import numbers
import shutil
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from envfleet import _core
from envfleet.registry import POOL_OPTIONS, register

__all__ = [
    "CompiledEnv",
    "EnvDefinitionError",
    "PythonEnv",
    "as_gymnasium_env",
    "clear_cache",
    "compile_python_env",
    "register_python_env",
]

_SUPPORTED_DTYPES = ("bool", "int8", "uint8", "int32", "int64", "float32", "float64")
_RESERVED_KEYS = ("env_id", "elapsed_step")
_SIGNATURES = {
    "reset": "reset(state, rng, options) -> None",
    "step": "step(state, action, rng, options) -> (reward, terminated)",
    "observe": "observe(state, obs) or observe(state, obs, info) -> None",
}
_VALIDATION_STEPS = 64
_GUARD = 64  # canary bytes after each scratch buffer


class EnvDefinitionError(TypeError):
    """A Python env's definition is wrong: its spaces, state, options or functions, a
    function Numba cannot compile, or functions that misbehave when run once to check them.
    Raised at registration, before any thread runs the env."""


class PythonEnv:
    """Base class of an env written in Python (see :mod:`envfleet.python_env`).

    Subclasses set ``observation_space``, ``action_space``, ``state`` (field -> dtype or
    (dtype, shape)), optionally ``info`` (key -> dtype, (dtype, shape) or a Box),
    ``options`` (name -> bool/int/float default) and ``max_episode_steps`` (0: none), and
    define ``reset``, ``step`` and ``observe`` as static methods.
    """

    observation_space: spaces.Space
    action_space: spaces.Space
    state: Mapping[str, Any] = {}
    info: Mapping[str, Any] = {}
    options: Mapping[str, bool | int | float] = {}
    max_episode_steps: int | None = 0


# ---- the layout of an env: spaces -> core spec, state/options -> dtypes -------------------


@dataclass(frozen=True)
class _Key:
    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    space: spaces.Space
    spec: dict


@dataclass(frozen=True)
class _Layout:
    name: str
    obs_layout: str
    obs: tuple[_Key, ...]
    info: tuple[_Key, ...]
    action: _Key
    action_scalar: bool
    state_dtype: np.dtype
    options_dtype: np.dtype
    option_defaults: dict[str, bool | int | float]
    max_episode_steps: int
    spec: dict
    functions: dict[str, Callable]
    observe_takes_info: bool

    def pack_options(self, values: Mapping[str, Any]) -> np.ndarray:
        """One record of options, laid out as the core packs them."""
        packed = np.zeros(1, self.options_dtype)
        for name in self.option_defaults:
            packed[name] = values[name]
        return packed


def _fail(env: Any, message: str) -> EnvDefinitionError:
    return EnvDefinitionError(f"{_env_name(env)}: {message}")


def _env_name(env: Any) -> str:
    return getattr(env, "__qualname__", None) or repr(env)


def _dtype_name(env: Any, what: str, dtype: Any) -> np.dtype:
    try:
        dtype = np.dtype(dtype)
    except TypeError as exc:
        raise _fail(env, f"{what}: {dtype!r} is not a NumPy dtype") from exc
    if dtype.name not in _SUPPORTED_DTYPES:
        raise _fail(env, f"{what}: dtype {dtype} is not supported; use one of {_SUPPORTED_DTYPES}")
    return dtype


def _bounds(values: np.ndarray, dtype: np.dtype, low: bool) -> list[float]:
    values = np.asarray(values)
    if np.issubdtype(dtype, np.integer):
        extreme = np.iinfo(dtype).min if low else np.iinfo(dtype).max
        if np.all(values == extreme):
            return []  # the core's default for an integer bound is the dtype's own extreme
    flat = values.astype(np.float64).ravel()
    if flat.size and np.all(flat == flat[0]):
        return [float(flat[0])]
    return flat.tolist()


def _array_key(env: Any, name: str, space: Any, what: str, *, action: bool = False) -> _Key:
    """A core ArraySpec (as a dict) for one Box / Discrete / MultiDiscrete / MultiBinary."""
    if isinstance(space, spaces.Discrete):
        dtype = _dtype_name(env, what, space.dtype)
        start = int(space.start)
        low, high, shape, discrete = [float(start)], [float(start + int(space.n) - 1)], (), True
    elif isinstance(space, spaces.MultiDiscrete):
        dtype = _dtype_name(env, what, space.dtype)
        shape = tuple(space.shape)
        low = _bounds(space.start, dtype, True)
        high = _bounds(space.start + space.nvec - 1, dtype, False)
        discrete = True
    elif isinstance(space, spaces.Box):
        dtype = _dtype_name(env, what, space.dtype)
        shape = tuple(space.shape)
        low, high, discrete = (
            _bounds(space.low, dtype, True),
            _bounds(space.high, dtype, False),
            False,
        )
    elif isinstance(space, spaces.MultiBinary) and not action:
        dtype, shape, low, high, discrete = np.dtype(np.bool_), tuple(space.shape), [], [], False
    else:
        kinds = "Box, Discrete or MultiDiscrete" if action else "Box, Discrete, MultiDiscrete, "
        kinds += "" if action else "MultiBinary (or a Dict / Tuple of them)"
        raise _fail(env, f"{what}: {space!r} is not supported; use {kinds}")
    if action and dtype == np.bool_:
        raise _fail(env, f"{what}: bool actions are not supported")
    spec = {
        "name": name,
        "dtype": dtype.name,
        "shape": shape,
        "low": low,
        "high": high,
        "discrete": discrete,
    }
    return _Key(name, dtype, shape, space, spec)


def _info_key(env: Any, name: str, declared: Any) -> _Key:
    what = f"info[{name!r}]"
    if isinstance(declared, spaces.Space):
        return _array_key(env, name, declared, what)
    if isinstance(declared, tuple) and len(declared) == 2:
        dtype, shape = declared
    else:
        dtype, shape = declared, ()
    dtype = _dtype_name(env, what, dtype)
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    spec = {
        "name": name,
        "dtype": dtype.name,
        "shape": shape,
        "low": [],
        "high": [],
        "discrete": False,
    }
    if dtype == np.bool_:
        space: spaces.Space = spaces.MultiBinary(list(shape) or 1)
    elif np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        space = spaces.Box(info.min, info.max, shape, dtype)
    else:
        space = spaces.Box(-np.inf, np.inf, shape, dtype)
    return _Key(name, dtype, shape, space, spec)


def _check_name(env: Any, what: str, name: Any) -> None:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise _fail(env, f"{what} {name!r} must be a Python identifier")


def _state_dtype(env: Any) -> np.dtype:
    declared = getattr(env, "state", None)
    if isinstance(declared, np.dtype):
        if declared.names is None:
            raise _fail(env, "state must be a structured dtype or a dict of field -> dtype")
        fields = [(n, declared.fields[n][0]) for n in declared.names]
    elif isinstance(declared, Mapping):
        fields = list(declared.items())
    else:
        raise _fail(
            env, f"state must be a dict of field -> dtype or (dtype, shape), got {declared!r}"
        )
    checked = []
    for name, dtype in fields:
        _check_name(env, "state field", name)
        try:
            checked.append((name, np.dtype(dtype)))
        except TypeError as exc:
            raise _fail(
                env, f"state field {name!r}: {dtype!r} is not a dtype or (dtype, shape)"
            ) from exc
        base = checked[-1][1].base
        if base.kind not in "biuf" or base.names is not None:
            raise _fail(env, f"state field {name!r}: use bool, integer or float dtypes, got {base}")
        if base.kind == "b" and checked[-1][1].shape:
            raise _fail(
                env,
                f"state field {name!r}: Numba does not support bool arrays inside a record; "
                "use np.uint8 (bool scalars are fine)",
            )
    if not checked:
        checked = [("_unused", np.dtype(np.uint8))]
    return np.dtype(checked, align=True)


def _option_defaults(env: Any) -> dict[str, bool | int | float]:
    declared = getattr(env, "options", {}) or {}
    if not isinstance(declared, Mapping):
        raise _fail(env, f"options must be a dict of name -> default, got {declared!r}")
    defaults: dict[str, bool | int | float] = {}
    for name, value in declared.items():
        _check_name(env, "option", name)
        if name in POOL_OPTIONS or name in ("env_type", "legacy_api", "task_id"):
            raise _fail(env, f"option {name!r} clashes with an argument of make()")
        if isinstance(value, bool | np.bool_):
            defaults[name] = bool(value)
        elif isinstance(value, numbers.Integral):
            defaults[name] = int(value)
        elif isinstance(value, numbers.Real):
            defaults[name] = float(value)
        else:
            raise _fail(env, f"option {name!r}: defaults must be bool, int or float, got {value!r}")
    return defaults


def _options_dtype(defaults: Mapping[str, Any]) -> np.dtype:
    kinds = {bool: np.bool_, int: np.int64, float: np.float64}
    fields = [(name, kinds[type(value)]) for name, value in defaults.items()]
    return np.dtype(fields or [("_unused", np.uint8)], align=True)


def _functions(env: Any) -> dict[str, Callable]:
    import inspect

    found = {}
    for name in ("reset", "step", "observe"):
        fn = getattr(env, name, None)
        if fn is None or not callable(fn):
            raise _fail(env, f"{name} is missing: define {_SIGNATURES[name]} as a static method")
        found[name] = fn
    for name, fn in found.items():
        py = getattr(fn, "py_func", fn)
        try:
            params = list(inspect.signature(py).parameters.values())
        except (TypeError, ValueError):
            continue
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in params):
            raise _fail(env, f"{name} must take plain positional parameters: {_SIGNATURES[name]}")
        expected = {"reset": (3,), "step": (4,), "observe": (2, 3)}[name]
        if len(params) not in expected:
            raise _fail(
                env,
                f"{name} takes {len(params)} parameter(s) but must be {_SIGNATURES[name]}"
                + (" (is @staticmethod missing?)" if params and params[0].name == "self" else ""),
            )
    return found


def _layout(env: Any) -> _Layout:
    if not isinstance(env, type):
        raise EnvDefinitionError(f"a Python env is a class (see envfleet.PythonEnv), got {env!r}")
    obs_space = getattr(env, "observation_space", None)
    act_space = getattr(env, "action_space", None)
    if not isinstance(obs_space, spaces.Space):
        raise _fail(env, f"observation_space must be a gymnasium space, got {obs_space!r}")
    if not isinstance(act_space, spaces.Space):
        raise _fail(env, f"action_space must be a gymnasium space, got {act_space!r}")
    if isinstance(obs_space, spaces.Dict):
        obs_layout = "dict"
        for name in obs_space.spaces:
            _check_name(env, "observation key", name)
            if name.startswith("_"):
                raise _fail(env, f"observation key {name!r} must not start with '_'")
        obs = tuple(
            _array_key(env, name, sub, f"observation_space[{name!r}]")
            for name, sub in obs_space.spaces.items()
        )
    elif isinstance(obs_space, spaces.Tuple):
        obs_layout = "tuple"
        obs = tuple(
            _array_key(env, f"obs{i}", sub, f"observation_space[{i}]")
            for i, sub in enumerate(obs_space.spaces)
        )
    else:
        obs_layout = "single"
        obs = (_array_key(env, "obs", obs_space, "observation_space"),)
    if not obs:
        raise _fail(env, "observation_space has no arrays")
    declared_info = getattr(env, "info", {}) or {}
    if not isinstance(declared_info, Mapping):
        raise _fail(env, f"info must be a dict of key -> dtype, got {declared_info!r}")
    info = []
    for name, declared in declared_info.items():
        _check_name(env, "info key", name)
        if name.startswith("_"):
            raise _fail(env, f"info key {name!r} must not start with '_'")
        info.append(_info_key(env, name, declared))
    info = tuple(info)
    names = [k.name for k in obs + info]
    for name in names:
        if name in _RESERVED_KEYS or names.count(name) > 1:
            raise _fail(env, f"key {name!r} is reserved or used twice among obs and info keys")
    if len(names) > 32:
        raise _fail(env, "at most 32 obs and info keys")
    action = _array_key(env, "action", act_space, "action_space", action=True)
    limit = getattr(env, "max_episode_steps", 0)
    if limit is None:
        limit = 0
    if isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit < 0:
        raise _fail(env, f"max_episode_steps must be an int >= 0 (or None), got {limit!r}")
    defaults = _option_defaults(env)
    functions = _functions(env)
    observe_takes_info = _arity(functions["observe"]) == 3
    if info and not observe_takes_info:
        raise _fail(env, "declares info keys, so observe must be observe(state, obs, info)")
    spec = {
        "obs": [k.spec for k in obs],
        "info": [k.spec for k in info],
        "action": action.spec,
        "obs_layout": obs_layout,
    }
    return _Layout(
        name=_env_name(env),
        obs_layout=obs_layout,
        obs=obs,
        info=info,
        action=action,
        action_scalar=isinstance(act_space, spaces.Discrete),
        state_dtype=_state_dtype(env),
        options_dtype=_options_dtype(defaults),
        option_defaults=defaults,
        max_episode_steps=int(limit),
        spec=spec,
        functions=functions,
        observe_takes_info=observe_takes_info,
    )


def _arity(fn: Callable) -> int:
    import inspect

    try:
        return len(inspect.signature(getattr(fn, "py_func", fn)).parameters)
    except (TypeError, ValueError):
        return 2


# ---- compiling ---------------------------------------------------------------------------


def _numba_bridge():
    try:
        import numba  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "envfleet's Python environments are compiled by Numba, which is not installed: "
            "pip install 'envfleet[numba]' (or pip install numba)"
        ) from exc
    from envfleet import _numba_bridge

    return _numba_bridge


@dataclass
class CompiledEnv:
    """A Python env compiled and registered as a core env type."""

    env: type
    env_type: str  # the name the core knows it by
    layout: _Layout
    wrappers: Any
    cache_hit: bool  # loaded from the disk cache rather than compiled
    cache_path: str | None  # the generated wrapper module (None: not cached)
    seconds: float  # time spent compiling (or loading)


_compiled: dict[tuple[type, bool], CompiledEnv] = {}
_type_names: dict[str, type] = {}
_keep_alive: list[Any] = []  # every wrapper ever registered: the core may call it until exit


def compile_python_env(env: type, *, boundscheck: bool = True, cache: bool = True) -> CompiledEnv:
    """Compiles ``env``'s functions (or loads them from the disk cache), checks them by
    running them once, and registers the result as a core env type. Done once per class;
    :func:`register_python_env` calls it.

    ``boundscheck=True`` checks array indices (an out-of-range index raises ``IndexError``,
    which the pool reports as ``EnvError``); False trades that safety for a little speed.
    ``cache=False`` compiles in every process instead of caching on disk
    (``$ENVFLEET_CACHE_DIR``, else ``~/.cache/envfleet``).
    """
    key = (env, bool(boundscheck))
    if key in _compiled:
        return _compiled[key]
    layout = _layout(env)
    bridge = _numba_bridge()
    start = time.perf_counter()
    plan = bridge.WrapperPlan(
        env_name=layout.name,
        state_dtype=layout.state_dtype,
        options_dtype=layout.options_dtype,
        obs=tuple(bridge.Key(k.name, k.dtype, k.shape) for k in layout.obs),
        obs_layout=layout.obs_layout,
        info=tuple(bridge.Key(k.name, k.dtype, k.shape) for k in layout.info),
        action=bridge.Key("action", layout.action.dtype, layout.action.shape),
        action_scalar=layout.action_scalar,
        observe_takes_info=layout.observe_takes_info,
    )
    functions = {
        name: bridge.njit(fn, boundscheck=boundscheck) for name, fn in layout.functions.items()
    }
    fingerprint = bridge.source_fingerprint(list(layout.functions.values()))
    if fingerprint is not None:
        fingerprint += f"/boundscheck={boundscheck}"
    try:
        wrappers = bridge.compile_wrappers(plan, **functions, fingerprint=fingerprint, cache=cache)
    except Exception as exc:
        raise _diagnose(env, layout, bridge, plan, functions, exc) from exc
    seconds = time.perf_counter() - start
    _keep_alive.append(wrappers)
    _validate(env, layout, wrappers, layout.option_defaults)

    base_name = f"py.{layout.name}" + ("" if boundscheck else "[no boundscheck]")
    type_name, n = base_name, 1
    while _type_names.get(type_name, env) is not env:  # another class of the same name
        n += 1
        type_name = f"{base_name}#{n}"
    _type_names[type_name] = env
    _core.register_function_env(
        type_name,
        layout.spec,
        dict(layout.option_defaults),
        list(layout.option_defaults),
        layout.state_dtype.itemsize,
        wrappers.reset.address,
        wrappers.step.address,
        wrappers.observe.address,
        wrappers.step_many.address,
        wrappers.observe_many.address,
        wrappers.reset_many.address,
    )
    compiled = CompiledEnv(
        env, type_name, layout, wrappers, wrappers.cache_hit, wrappers.module_path, seconds
    )
    _compiled[key] = compiled
    return compiled


def _diagnose(env, layout, bridge, plan, functions, exc) -> EnvDefinitionError:
    """Finds which user function made the wrappers fail to compile, for the message."""
    generic = _fail(env, f"Numba cannot compile the wrappers of reset/step/observe:\n\n{exc}")
    try:
        argtypes = bridge.argument_types(plan)
    except Exception:
        return generic
    for name in ("reset", "step", "observe"):
        try:
            return_type = bridge.compile_one(functions[name], argtypes[name])
        except Exception as inner:
            return _fail(
                env,
                f"Numba cannot compile {name} in nopython mode (it must be "
                f"{_SIGNATURES[name]}):\n\n{inner}",
            )
        if name == "step":
            problem = bridge.check_step_return(return_type)
            if problem:
                return _fail(env, problem)
    return generic


# ---- checking the compiled functions on scratch buffers -------------------------------------


class _ScratchRng:
    """A NumpyGenerator object in Python-owned memory, in the state that
    ``Generator(PCG64(SeedSequence(seed)))`` starts in, for running the compiled functions
    outside the pool. It relies on the C++ layout (state, inc: 128-bit; has_uint32; uinteger)
    and checks itself against NumPy: ``create`` returns None if that check fails."""

    def __init__(self, seed: int):
        state = np.random.PCG64(np.random.SeedSequence(seed)).state["state"]
        self.buffer = np.zeros(96, np.uint8)
        offset = -self.buffer.ctypes.data % 16  # the object holds 128-bit integers
        self.address = self.buffer.ctypes.data + offset
        mask = 2**64 - 1
        self.buffer[offset : offset + 32].view(np.uint64)[:] = [
            state["state"] & mask,
            state["state"] >> 64,
            state["inc"] & mask,
            state["inc"] >> 64,
        ]

    @classmethod
    def create(cls, seed: int) -> _ScratchRng | None:
        probe = cls(seed)
        addresses = _core.rng_function_addresses()
        random = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p)(addresses["random"])
        integers = ctypes.CFUNCTYPE(
            ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64
        )(addresses["integers"])
        reference = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        got = [random(probe.address), integers(probe.address, 0, 7), integers(probe.address, 0, 7)]
        expected = [reference.random(), int(reference.integers(0, 7))]
        expected.append(int(reference.integers(0, 7)))
        return cls(seed) if got == expected else None


@dataclass
class _Scratch:
    """A buffer followed by canary bytes, to catch writes past its end."""

    raw: np.ndarray
    nbytes: int

    @classmethod
    def create(cls, nbytes: int) -> _Scratch:
        raw = np.zeros(nbytes + _GUARD, np.uint8)
        raw[nbytes:] = 0xCD
        return cls(raw, nbytes)

    @property
    def address(self) -> int:
        return self.raw.ctypes.data

    def intact(self) -> bool:
        return bool(np.all(self.raw[self.nbytes :] == 0xCD))

    def view(self, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        return self.raw[: self.nbytes].view(dtype).reshape(shape)


_RESET_T = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_STEP_T = ctypes.CFUNCTYPE(
    ctypes.c_int32,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_double),
    ctypes.POINTER(ctypes.c_uint8),
)
_OBSERVE_T = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))


def _validate(env: type, layout: _Layout, wrappers: Any, options: Mapping[str, Any]) -> None:
    """Runs the compiled functions on scratch buffers (reset, then steps with actions sampled
    from the action space, observing after each) and checks what they did: return codes, no
    write past the end of the state or of an output, every output element written, the state
    untouched by observe. Raises EnvDefinitionError; warns if an observation leaves its space."""
    rng = _ScratchRng.create(0)
    if rng is None:  # the core's generator changed layout: skip rather than guess
        warnings.warn(
            "envfleet could not build a scratch random generator, so Python envs are not "
            "checked at registration",
            RuntimeWarning,
            stacklevel=3,
        )
        return
    reset = _RESET_T(wrappers.reset.address)
    step = _STEP_T(wrappers.step.address)
    observe = _OBSERVE_T(wrappers.observe.address)
    state = _Scratch.create(layout.state_dtype.itemsize)
    packed = layout.pack_options(options)
    keys = layout.obs + layout.info
    outputs = [_Scratch.create(max(1, k.dtype.itemsize * math.prod(k.shape))) for k in keys]
    pointers = (ctypes.c_void_p * len(keys))(*[o.address for o in outputs])
    action_key = layout.action
    action = _Scratch.create(action_key.dtype.itemsize * math.prod(action_key.shape))
    action_space = copy.deepcopy(layout.action.space)  # seeding it must not touch the env's
    action_space.seed(0)
    reward = ctypes.c_double(0.0)
    terminated = ctypes.c_uint8(0)
    history: list[Any] = []  # the actions taken, to replay uncompiled on failure
    warned = [False]

    def check_state(name: str) -> None:
        if not state.intact():
            raise _fail(env, f"{name} wrote past the end of the state ({state.nbytes} bytes)")

    def run_observe() -> None:
        before = state.raw.copy()
        written = []
        for fill in (0xA5, 0x5A):
            for out in outputs:
                out.raw[: out.nbytes] = fill
            if observe(state.address, pointers) != 0:
                raise _replay_error(env, layout, options, history, "observe")
            for key, out in zip(keys, outputs, strict=True):
                if not out.intact():
                    raise _fail(env, f"observe wrote past the end of {_what(layout, key)}")
            written.append([out.raw[: out.nbytes].copy() for out in outputs])
        if not np.array_equal(before, state.raw):
            raise _fail(env, "observe changed the state; it must only read it")
        for i, key in enumerate(keys):
            size = key.dtype.itemsize
            first = written[0][i].reshape(-1, size)
            second = written[1][i].reshape(-1, size)
            unwritten = np.all(first == 0xA5, axis=1) & np.all(second == 0x5A, axis=1)
            if unwritten.any():
                where = [
                    tuple(int(v) for v in np.unravel_index(j, key.shape))
                    for j in np.flatnonzero(unwritten)[:5]
                ]
                raise _fail(
                    env,
                    f"observe did not write every element of {_what(layout, key)} (shape "
                    f"{key.shape}): unwritten at {where}; the pool's output rows are reused, "
                    "so observe must write them all",
                )
        if not warned[0]:
            obs = [outputs[i].view(k.dtype, k.shape).copy() for i, k in enumerate(layout.obs)]
            for key, value in zip(layout.obs, obs, strict=True):
                scalar = isinstance(key.space, spaces.Discrete)
                if not key.space.contains(value[()] if scalar else value):
                    warned[0] = True
                    warnings.warn(
                        f"{layout.name}: observe wrote {_what(layout, key)} = {value!r}, "
                        f"outside its space {key.space}",
                        stacklevel=5,
                    )
                    break

    if reset(state.address, rng.address, packed.ctypes.data) != 0:
        raise _replay_error(env, layout, options, history, "reset")
    check_state("reset")
    run_observe()
    for _ in range(_VALIDATION_STEPS):
        sample = np.asarray(action_space.sample(), dtype=action_key.dtype)
        history.append(sample)
        action.view(action_key.dtype, action_key.shape)[...] = sample
        code = step(
            state.address,
            action.address,
            rng.address,
            packed.ctypes.data,
            ctypes.byref(reward),
            ctypes.byref(terminated),
        )
        if code != 0:
            raise _replay_error(env, layout, options, history, "step")
        check_state("step")
        run_observe()
        if terminated.value:
            history.append(None)
            if reset(state.address, rng.address, packed.ctypes.data) != 0:
                raise _replay_error(env, layout, options, history, "reset")
            check_state("reset")
            run_observe()


def _what(layout: _Layout, key: _Key) -> str:
    if key in layout.info:
        return f"info.{key.name}"
    return "obs" if layout.obs_layout == "single" else f"obs.{key.name}"


def _replay_error(env, layout, options, history, name: str) -> EnvDefinitionError:
    """The compiled ``name`` raised on the check run: replays the same calls uncompiled, as a
    Gymnasium env, to chain the Python exception (with its traceback) to the error."""
    message = (
        f"{name} raised an exception when envfleet ran the env once to check it (seed 0, "
        f"default options, random actions)"
    )
    try:
        py_env = _GymnasiumEnv(env, layout, dict(options))
        py_env.reset(seed=0)
        for action in history:
            if action is None:
                py_env.reset()
            else:
                py_env.step(action if action.shape else action[()])
    except Exception as exc:  # the exception we are after
        error = _fail(env, f"{message}: {type(exc).__name__}: {exc}")
        error.__cause__ = exc
        return error
    return _fail(env, message + " (running it uncompiled raised nothing: a Numba-only failure)")


# ---- registration ------------------------------------------------------------------------


def register_python_env(
    task_id: str,
    env: type | None = None,
    *,
    max_episode_steps: int | None = None,
    boundscheck: bool = True,
    cache: bool = True,
    **options: Any,
):
    """Registers the Python env class ``env`` as ``task_id`` for ``envfleet.make`` and every
    front end. ``max_episode_steps`` overrides the class's time limit and ``options`` its
    option defaults, for this task id. Without ``env`` it returns a class decorator.

    Compiles the class on first use (see :func:`compile_python_env`), so a function Numba
    cannot compile, or one that misbehaves, raises :class:`EnvDefinitionError` here.
    """
    if env is None:

        def decorator(cls: type) -> type:
            register_python_env(
                task_id,
                cls,
                max_episode_steps=max_episode_steps,
                boundscheck=boundscheck,
                cache=cache,
                **options,
            )
            return cls

        return decorator
    if not isinstance(task_id, str) or not task_id:
        raise TypeError(f"task_id must be a non-empty str, got {task_id!r}")
    compiled = compile_python_env(env, boundscheck=boundscheck, cache=cache)
    if max_episode_steps is None:
        max_episode_steps = compiled.layout.max_episode_steps
    register(task_id, compiled.env_type, max_episode_steps=max_episode_steps, **options)
    if options:
        values = {**compiled.layout.option_defaults, **_coerced(task_id, options)}
        if values != compiled.layout.option_defaults:
            _validate(env, compiled.layout, compiled.wrappers, values)
    return env


def _coerced(task_id: str, options: Mapping[str, Any]) -> dict[str, Any]:
    from envfleet.registry import coerce_env_options, registration

    return coerce_env_options(registration(task_id), dict(options))


def clear_cache() -> None:
    """Deletes the disk cache of compiled Python envs (it is rebuilt on demand)."""
    try:
        from envfleet._numba_bridge import cache_dir
    except ImportError:
        return
    shutil.rmtree(cache_dir(), ignore_errors=True)


# ---- the same env, uncompiled, as a gymnasium.Env --------------------------------------------


class _GymnasiumEnv(gymnasium.Env):
    """One Python env run uncompiled by NumPy: the reference for its compiled self."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, env: type, layout: _Layout, options: dict[str, Any]):
        self._layout = layout
        self.observation_space = env.observation_space
        self.action_space = env.action_space
        self._functions = {n: getattr(f, "py_func", f) for n, f in layout.functions.items()}
        self._options = layout.pack_options(options).view(np.recarray)[0]
        self._state_array = np.zeros(1, layout.state_dtype).view(np.recarray)
        self._state = self._state_array[0]
        if layout.obs_layout == "dict":
            self._obs_type = collections.namedtuple("Obs", [k.name for k in layout.obs])
        if layout.info:
            self._info_type = collections.namedtuple("Info", [k.name for k in layout.info])

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._functions["reset"](self._state, self.np_random, self._options)
        return self._observe()

    def step(self, action: Any):
        key = self._layout.action
        if self._layout.action_scalar:
            action = key.dtype.type(action)
        else:
            action = np.array(action, dtype=key.dtype).reshape(key.shape)
            action.flags.writeable = False
        reward, terminated = self._functions["step"](
            self._state, action, self.np_random, self._options
        )
        obs, info = self._observe()
        return obs, float(reward), bool(terminated), False, info

    def _observe(self) -> tuple[Any, dict[str, Any]]:
        layout = self._layout
        arrays = [np.zeros(k.shape, k.dtype) for k in layout.obs]
        if layout.obs_layout == "single":
            obs = arrays[0]
        elif layout.obs_layout == "tuple":
            obs = tuple(arrays)
        else:
            obs = self._obs_type(*arrays)
        infos = [np.zeros(k.shape, k.dtype) for k in layout.info]
        args: list[Any] = [self._state, obs]
        if layout.observe_takes_info:
            args.append(self._info_type(*infos) if infos else ())
        self._functions["observe"](*args)
        if layout.obs_layout == "dict":
            obs = dict(obs._asdict())
        return obs, {k.name: v for k, v in zip(layout.info, infos, strict=True)}


def as_gymnasium_env(
    env: type, *, max_episode_steps: int | None = None, **options: Any
) -> gymnasium.Env:
    """``env`` run uncompiled, in plain Python and NumPy, as a ``gymnasium.Env``.

    Its ``np_random`` is the rng the functions get, so with the same seeds it reproduces the
    compiled env in the pool exactly. Needs no Numba: useful to debug (breakpoints, prints)
    and as the reference in alignment tests. Wrapped in ``TimeLimit`` when the env (or
    ``max_episode_steps``) sets a time limit.
    """
    layout = _layout(env)
    unknown = [k for k in options if k not in layout.option_defaults]
    if unknown:
        raise TypeError(
            f"unknown option(s) {unknown} for {layout.name}; valid: {list(layout.option_defaults)}"
        )
    values = dict(layout.option_defaults)
    for name, value in options.items():
        kind = type(layout.option_defaults[name])
        if kind is bool and not isinstance(value, bool | np.bool_):
            raise TypeError(f"option {name!r} must be a bool, got {value!r}")
        values[name] = kind(value)
    py_env: gymnasium.Env = _GymnasiumEnv(env, layout, values)
    limit = layout.max_episode_steps if max_episode_steps is None else max_episode_steps
    if limit:
        py_env = gymnasium.wrappers.TimeLimit(py_env, max_episode_steps=limit)
    return py_env
