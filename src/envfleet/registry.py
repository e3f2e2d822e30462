"""Task ids, and turning ``make(task_id, **kwargs)`` into a checked :class:`PoolConfig`.

A task id (``CartPole-v1``) names a C++ env type (``CartPole``) of a :class:`Family`, plus
default options, a time limit and a reward threshold, like Gymnasium's ``register``. The
family says which extension module builds its types (``envfleet._core``, ``envfleet._atari``,
...). ``import envfleet`` loads ``_core`` (the pool, no engine); an engine family's module is
imported on the first ``make``/``make_spec`` of one of its ids, and one whose engine is not
installed raises
:class:`~envfleet.errors.EngineNotInstalledError` naming the extra that installs it.

Every argument is checked here, with the GIL held and before any thread starts, so that a bad
call raises a clear exception naming the argument instead of crashing or misbehaving later.
"""

from __future__ import annotations

import ctypes
import difflib
import importlib
import importlib.util
import math
import numbers
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from envfleet.errors import EngineNotInstalledError
from envfleet.gymnasium_registration import register_with_gymnasium
from envfleet.spec import (
    ArrayInfo,
    AutoresetMode,
    Conventions,
    EnvSpec,
    GoalEnvSpec,
    PoolConfig,
)

POOL_OPTIONS = (
    "num_envs",
    "batch_size",
    "num_threads",
    "seed",
    "max_episode_steps",
    "thread_affinity_offset",
    "autoreset_mode",
    "render_mode",
    "render_env_id",
    "render_width",
    "render_height",
    "render_camera_id",
    "conventions",
    "max_num_players",
    "gym_reset_return_info",
)
# Arguments of make that shape the whole pool rather than one env: never one env's own.
_NOT_PER_ENV = (*POOL_OPTIONS, "per_env_options", "legacy_api", "env_type")
RENDER_MODES = (None, "rgb_array", "human")
RENDER_ENV_OPTIONS = ("render_width", "render_height", "render_camera_id")
_MAX_SEED = 2**63 - 1
# The core numbers envs with int32 ids.
_MAX_NUM_ENVS = 2**31 - 1
# What a pool keeps per env besides its output rows and actions, at the least: its seed (a
# Python int and two list entries, a C++ copy), its record, queue entry and id slots. The
# env's own state comes on top, and is checked while the envs are built (cpp/core/memory.h).
_POOL_BYTES_PER_ENV = 128


@dataclass(frozen=True)
class Family:
    """An env family: the extension module that builds its C++ env types and how to install it.

    ``module`` is the module's import name; ``extra`` the pip extra that installs its engine
    (None: the engine ships with envfleet itself); ``requires`` the importable packages the
    family reads at run time (ROMs, libraries), checked without importing them; ``libraries``
    the shared libraries the module links, as paths inside those packages
    (``"mujoco/libmujoco.so.4.0.0"``), loaded before the module.
    """

    name: str
    module: str = "envfleet._core"
    extra: str | None = None
    requires: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    # What building the module needs beyond a compiler, said when it is missing (the build
    # leaves a module out where its engine's build requirements are missing).
    build_note: str = ""
    # EnvPool's import path for the family's ids (``envpool.mujoco.gym``), which its registry
    # reports (``envpool.registration.registry.specs[id][0]``) and its code groups ids by;
    # None where EnvPool has no such family.
    envpool_package: str | None = None
    # Called with each env's resolved options before its spec is made: makes what the options
    # name that is generated rather than installed (MyoSuite's recipe-built models).
    prepare: Callable[[dict[str, Any]], None] | None = None

    def engine(self):
        """The family's extension module, imported on first use."""
        missing = [name for name in self.requires if not _importable(name)]
        if missing:  # checked on every call: the module may be loaded, its data gone
            raise EngineNotInstalledError(self, f"{', '.join(missing)} is not installed")
        module = sys.modules.get(self.module)
        if module is not None:
            return module
        try:
            for library in self.libraries:
                _load_library(library)
            return importlib.import_module(self.module)
        except (ImportError, OSError) as exc:
            raise EngineNotInstalledError(self, str(exc)) from exc


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _load_library(path: str) -> None:
    """Loads ``package/file`` from the installed package, without importing the package.

    An installed module finds its engine's library through its RPATH ($ORIGIN/../<package>);
    an editable install or a build tree keeps the module elsewhere, where that path leads
    nowhere. Loaded first, the library is already in the process under its SONAME, and the
    dynamic loader uses it for the module wherever the module lies.
    """
    package, _, file = path.partition("/")
    spec = importlib.util.find_spec(package)
    folder = list(spec.submodule_search_locations or [])[0] if spec else ""
    ctypes.CDLL(os.path.join(folder, file))


CORE = Family("core")


@dataclass(frozen=True)
class Registration:
    task_id: str
    env_type: str
    max_episode_steps: int | None
    options: dict[str, Any] = field(default_factory=dict)
    family: Family = CORE
    reward_threshold: float | None = None
    # The id this one is another name for (register_alias), else None.
    alias_of: str | None = None
    # Option values EnvPool's conventions give where the reference's differ (Atari's
    # include_ram: EnvPool 1.2.5 always returns info["ram"], ale-py never does).
    envpool_options: dict[str, Any] = field(default_factory=dict)


_registry: dict[str, Registration] = {}
_family_of_type: dict[str, Family] = {}
# env type -> the factory of its goal functions (register_goal_functions): goal envs only.
_goal_functions: dict[str, Any] = {}


def register(
    task_id: str,
    env_type: str,
    max_episode_steps: int | None = None,
    *,
    family: Family | None = None,
    reward_threshold: float | None = None,
    envpool_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> None:
    """Registers ``task_id`` as the C++ env type ``env_type`` with default ``options``.

    ``max_episode_steps`` is the task's time limit (None or 0: none) and ``reward_threshold``
    Gymnasium's "solved" score (None: none). ``envpool_options`` are option values that
    pools under EnvPool's conventions (the default) take in place of ``options``' and the env's
    defaults, where EnvPool and the reference differ. ``family`` is the :class:`Family` whose module
    builds ``env_type``; left out, it is the family of the ids already registered with that
    type (so ``register("MyPong-v5", "Atari", game="pong")`` works), else the core. Options
    are checked now if the family's module is loaded, else on the first ``make``. The id is
    also registered with Gymnasium as ``envfleet/<task_id>`` (for ``gymnasium.make_vec``).
    """
    if not isinstance(task_id, str) or not task_id:
        raise TypeError(f"task_id must be a non-empty str, got {task_id!r}")
    if family is None:
        family = _family_of_type.get(env_type, CORE)
    module = sys.modules.get(family.module)
    types = module.env_types() if module is not None else {}
    envpool_options = dict(envpool_options or {})
    if env_type in types:
        _check_env_options(task_id, types[env_type], {**options, **envpool_options})
    _family_of_type.setdefault(env_type, family)
    _registry[task_id] = Registration(
        task_id,
        env_type,
        max_episode_steps,
        dict(options),
        family,
        reward_threshold,
        envpool_options=envpool_options,
    )
    register_with_gymnasium(task_id, max_episode_steps, reward_threshold)


def register_goal_functions(env_type: str, factory: Any) -> None:
    """Declares ``env_type`` a goal env: ``factory(env_options)`` returns an object with
    batched ``compute_reward``, ``compute_terminated`` and ``compute_truncated`` (see
    :class:`~envfleet.spec.GoalEnvSpec`), which the specs of its pools then offer."""
    _goal_functions[env_type] = factory


def register_alias(alias: str, task_id: str) -> None:
    """Registers ``alias`` as another name of the registered ``task_id``: the same env type,
    options, time limit and reward threshold (EnvPool lists such names, e.g.
    ``phys2d/CartPole-v0`` for ``CartPole-v0``). ``registration(alias).alias_of`` names
    ``task_id`` (or, for an alias of an alias, the id they both name)."""
    if not isinstance(alias, str) or not alias:
        raise TypeError(f"alias must be a non-empty str, got {alias!r}")
    target = registration(task_id)
    _registry[alias] = replace(target, task_id=alias, alias_of=target.alias_of or task_id)
    register_with_gymnasium(alias, target.max_episode_steps, target.reward_threshold, alias=True)


def list_all_envs() -> list[str]:
    """Every registered task id, those of families whose engine is not installed included
    (making one of them raises :class:`~envfleet.errors.EngineNotInstalledError`)."""
    return sorted(_registry)


def registration(task_id: str) -> Registration:
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a str, got {type(task_id).__name__}")
    if task_id not in _registry:
        close = difflib.get_close_matches(task_id, _registry, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(
            f"unknown task_id {task_id!r}.{hint} Valid task ids: {', '.join(list_all_envs())}"
        )
    return _registry[task_id]


def _types(family: Family) -> dict[str, dict[str, tuple[str, Any]]]:
    """{env type: {option: (kind, default)}} of the family's module."""
    return family.engine().env_types()


def make_spec(task_id: str, per_env_options: Any = None, **kwargs: Any) -> EnvSpec:
    """Checks every argument of ``make`` and returns the resulting :class:`EnvSpec`.

    ``per_env_options``: None, or one mapping of env options per env (``{}`` for an env that
    takes the common ones); env i is built from the common options (the keywords) updated
    with ``per_env_options[i]``. All envs must end up with the same spaces.
    """
    reg = registration(task_id)
    module = reg.family.engine()
    types = module.env_types()
    if reg.env_type not in types:
        raise ValueError(
            f"{task_id} needs the env type {reg.env_type!r}, which {reg.family.module} of this "
            f"build does not include; its types: {sorted(types)}"
        )
    defaults = types[reg.env_type]
    pool_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in POOL_OPTIONS}
    # An env type that draws its own observations (MuJoCo's from_pixels) declares the render
    # size and camera among its options: it gets the pool's values, so the caller states them
    # once, and its spec's render size then reports what it resolved them to.
    for name in RENDER_ENV_OPTIONS:
        if name in defaults and pool_kwargs.get(name) is not None:
            kwargs[name] = pool_kwargs[name]
    conventions = Conventions.parse(pool_kwargs.get("conventions", Conventions.ENVPOOL))
    task_options = dict(reg.options)
    if conventions is Conventions.ENVPOOL:
        task_options.update(reg.envpool_options)
    _check_env_options(task_id, defaults, {**task_options, **kwargs})
    # Every option of the env, resolved: its defaults, the task's (under the pool's
    # conventions), then the caller's.
    env_options = {name: default for name, (_, default) in defaults.items()}
    env_options.update(_coerce_options(defaults, {**task_options, **kwargs}))
    own_options = _per_env_options(
        task_id, defaults, per_env_options, pool_kwargs.get("num_envs", 1)
    )
    if reg.family.prepare is not None:
        for own in own_options:
            reg.family.prepare({**env_options, **own})
    spec_dict = _shared_spec(reg, module, env_options, own_options)
    _check_pool_memory(reg.task_id, spec_dict, pool_kwargs)
    config = _pool_config(
        reg,
        env_options,
        spec_dict["render"],
        per_env_options=tuple(own_options) if per_env_options is not None else (),
        own_time_limit=spec_dict["time_limit"],
        **pool_kwargs,
    )
    goal = _goal_functions.get(reg.env_type)
    if goal is not None:
        return GoalEnvSpec(config, reg.env_type, spec_dict, module, goal(config.env_options))
    return EnvSpec(config, reg.env_type, spec_dict, module)


def _check_pool_memory(task_id: str, spec: dict, pool_kwargs: dict[str, Any]) -> None:
    """Raises MemoryError, before anything is allocated, when the pool's own buffers alone
    (its output blocks and per-env bookkeeping) need more memory than the machine has left:
    Linux would grant the allocation and its OOM killer end the process once the pages are
    touched (cpp/core/memory.h). Only the count and kind of arguments it reads are checked
    here; _pool_config checks them fully."""
    num_envs = _int_arg("num_envs", pool_kwargs.get("num_envs", 1), 1, _MAX_NUM_ENVS)
    batch_size = pool_kwargs.get("batch_size")
    if not isinstance(batch_size, numbers.Integral) or not 1 <= batch_size <= num_envs:
        batch_size = num_envs
    env_bytes = sum(_array_bytes(d) for d in spec["obs"] + spec["info"])
    if str(pool_kwargs.get("autoreset_mode", "")).lower().endswith("same_step"):
        env_bytes *= 2  # final_obs and final_info
    # reward (float64), terminated, truncated (bool), env_id, elapsed_step (int32)
    row_bytes = 8 + 1 + 1 + 4 + 4 + env_bytes
    action_bytes = _array_bytes(spec["action"])
    # The pool's ring holds ceil(num_envs / batch_size) + 2 blocks of batch_size rows.
    blocks = -(-num_envs // int(batch_size)) + 2
    needed = blocks * int(batch_size) * row_bytes + num_envs * (
        _POOL_BYTES_PER_ENV + 2 * action_bytes
    )
    available = _core_module().memory_available()
    if 0 <= available < needed:
        raise MemoryError(
            f"{task_id}: num_envs={num_envs} needs at least {_gib(needed)} of memory for the "
            f"pool's output blocks and bookkeeping alone (each env's own state comes on top), "
            f"but only {_gib(available)} is available: make fewer envs"
        )


def _array_bytes(core_array: dict) -> int:
    """Bytes of one env's array of the core's spec (ArrayInfo would build its bounds)."""
    return np.dtype(core_array["dtype"]).itemsize * math.prod(core_array["shape"])


def _gib(size: int) -> str:
    return f"{size / 2**30:,.1f} GiB" if size >= 2**30 else f"{size / 2**20:,.1f} MiB"


def _core_module():
    return importlib.import_module("envfleet._core")


def _per_env_options(
    task_id: str, defaults: dict, per_env_options: Any, num_envs: Any
) -> list[dict[str, Any]]:
    """Each env's own options (``per_env_options``), checked and converted: [{}] (one set,
    shared) when there are none. A value is always one env's value, whatever its kind (a list-valued
    option takes its list here as it does as a keyword), so nothing is guessed."""
    num_envs = _int_arg("num_envs", num_envs, 1, _MAX_NUM_ENVS)
    if per_env_options is None:
        return [{}]  # every env takes the common options (no list of num_envs entries)
    if isinstance(per_env_options, str | bytes | Mapping) or not isinstance(
        per_env_options, Sequence
    ):
        raise TypeError(
            "per_env_options must be a sequence of num_envs dicts (env i's options), got "
            f"{type(per_env_options).__name__}"
        )
    if len(per_env_options) != num_envs:
        raise ValueError(
            f"per_env_options has {len(per_env_options)} entries but num_envs is {num_envs}: "
            "give one dict of options per env ({} for an env that takes the common options)"
        )
    checked = []
    for i, own in enumerate(per_env_options):
        where = f"per_env_options[{i}]"
        if not isinstance(own, Mapping):
            raise TypeError(f"{where} must be a dict of env options, got {own!r}")
        pool_level = [k for k in own if k in _NOT_PER_ENV]
        if pool_level:
            raise TypeError(
                f"{where} sets {', '.join(map(repr, pool_level))}: pool options apply to the "
                "whole pool and go to make() itself (seed=[...] gives one seed per env); "
                "per_env_options holds env options only"
            )
        unknown = [k for k in own if k not in defaults]
        if unknown:
            raise TypeError(
                f"{where} sets unknown option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))} for {task_id}; its env options: "
                f"{', '.join(sorted(defaults))}"
            )
        try:
            checked.append(_coerce_options(defaults, dict(own)))
        except TypeError as exc:
            raise TypeError(f"{where}: {exc}") from None
    return checked


def _shared_spec(
    reg: Registration, module: Any, common: dict[str, Any], own_options: list[dict[str, Any]]
) -> dict:
    """The spec every env of the pool has (env 0's). Refuses per-env options that give an env
    another one (spaces, dtypes, info keys, reward range, renderer): the pool lays out every
    env's results as env 0's. Each distinct set of options is built once. Its ``time_limit``
    is the largest of the envs' own (envs that truncate themselves may differ in it)."""
    first = {**common, **own_options[0]}
    first_spec = dict(_env_spec(reg, module, first, 0 if own_options[0] else None))
    seen = {_frozen(own_options[0])}
    for i, own in enumerate(own_options):
        key = _frozen(own)
        if key in seen:
            continue
        seen.add(key)
        options = {**common, **own}
        spec = _env_spec(reg, module, options, i)
        if _layout(spec) == _layout(first_spec):
            first_spec["time_limit"] = max(first_spec["time_limit"], spec["time_limit"])
            continue
        differing = [k for k in options if options[k] != first[k]]
        # The options that change the spec on their own, else (a combination) all that differ.
        culprits = [
            k
            for k in differing
            if _layout(_spec_or_none(reg, module, {**first, k: options[k]})) != _layout(first_spec)
        ] or differing
        named = ", ".join(
            f"{k!r} ({options[k]!r} for env {i}, {first[k]!r} for env 0)" for k in culprits
        )
        raise ValueError(
            f"per_env_options[{i}] gives env {i} {_spec_difference(spec, first_spec)}, through "
            f"{named}: all envs of a pool share one observation space, action space, info keys, "
            "reward range and renderer, so options that change them must be equal for every env"
        )
    return first_spec


def _env_spec(reg: Registration, module: Any, options: dict[str, Any], env: int | None) -> dict:
    """The core's spec for ``options``; its errors name the task, and the env whose own
    options they are."""
    try:
        return module.env_spec(reg.env_type, options)
    except (TypeError, ValueError) as exc:
        if type(exc) not in (TypeError, ValueError):  # a subclass may take other arguments
            raise
        where = reg.task_id if env is None else f"{reg.task_id}: per_env_options[{env}]"
        raise type(exc)(f"{where}: {exc}") from None


def _layout(spec: dict | None) -> dict | None:
    """What envs of one pool must share: the spec less its render rate (frame_skip sets it,
    and may differ per env; the pool's metadata states env 0's) and its own time limit (an
    env that truncates itself keeps its own)."""
    if spec is None:
        return None
    return {**spec, "render": {**spec["render"], "fps": None}, "time_limit": None}


def _frozen(options: dict[str, Any]) -> tuple:
    def frozen(v: Any) -> Any:
        if isinstance(v, dict):
            return tuple(sorted((k, tuple(e)) for k, e in v.items()))
        return tuple(v) if isinstance(v, list) else v

    return tuple(sorted((k, frozen(v)) for k, v in options.items()))


def _spec_or_none(reg: Registration, module: Any, options: dict[str, Any]) -> dict | None:
    try:
        return module.env_spec(reg.env_type, options)
    except (TypeError, ValueError):
        return None


def _spec_difference(spec: dict, first: dict) -> str:
    """Which part of an env's spec differs from env 0's, with both values."""

    def spaces(part: str) -> str:
        keys = spec[part] if part == "obs" else [spec[part]]
        first_keys = first[part] if part == "obs" else [first[part]]
        mine = ", ".join(str(ArrayInfo.from_core(d).space()) for d in keys)
        theirs = ", ".join(str(ArrayInfo.from_core(d).space()) for d in first_keys)
        return f"{mine} where env 0 has {theirs}"

    if spec["action"] != first["action"]:
        return f"another action space ({spaces('action')})"
    if spec["obs"] != first["obs"] or spec["obs_layout"] != first["obs_layout"]:
        return f"another observation space ({spaces('obs')})"
    if spec["info"] != first["info"]:
        names = [[d["name"] for d in s["info"]] for s in (spec, first)]
        return f"other info keys ({names[0]} where env 0 has {names[1]})"
    if spec["render"]["width"] != first["render"]["width"] or (
        spec["render"]["height"] != first["render"]["height"]
    ):
        sizes = [f"{s['render']['width']}x{s['render']['height']}" for s in (spec, first)]
        return f"another frame size ({sizes[0]} where env 0 has {sizes[1]})"
    if spec["render"] != first["render"]:
        cameras = [s["render"]["num_cameras"] for s in (spec, first)]
        return f"other cameras ({cameras[0]} where env 0 has {cameras[1]})"
    return f"another reward range ({spec['reward_range']} where env 0 has {first['reward_range']})"


def _check_env_options(task_id: str, defaults: dict, options: dict[str, Any]) -> None:
    unknown = [k for k in options if k not in defaults]
    if unknown == ["from_pixels"]:
        raise TypeError(
            f"{task_id} has no pixel observations (from_pixels): they are offered by the MuJoCo "
            "tasks, whose frames come from MuJoCo's renderer; render_mode='rgb_array' gives "
            f"{task_id}'s frames through render() where it has a renderer"
        )
    if unknown:
        valid = sorted(set(defaults) | set(POOL_OPTIONS))
        raise TypeError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
            f"for {task_id}; valid options: {', '.join(valid)}"
        )


def _coerce_options(defaults: dict, options: dict[str, Any]) -> dict[str, Any]:
    """Checks and converts option values to the kinds of the env type's ``defaults``."""
    return {name: _coerce(name, value, defaults[name][0]) for name, value in options.items()}


def coerce_env_options(reg: Registration, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` of the task ``reg``, checked and converted for its env type."""
    return _coerce_options(_types(reg.family)[reg.env_type], options)


def _coerce(name: str, value: Any, kind: str) -> Any:
    """Checks an env option's value against its kind and converts it for the core."""

    def fail(expected: str):
        raise TypeError(f"option {name!r} must be {expected}, got {value!r}")

    def is_bool(v: Any) -> bool:
        return isinstance(v, bool | np.bool_)

    if kind == "bool":
        if not is_bool(value):
            fail("a bool")
        return bool(value)
    if kind == "int":
        if is_bool(value) or not isinstance(value, numbers.Integral):
            fail("an int")
        if not -(2**63) <= int(value) < 2**63:  # the core's options are int64
            raise ValueError(f"option {name!r} must fit in an int64, got {value!r}")
        return int(value)
    if kind == "float":
        if is_bool(value) or not isinstance(value, numbers.Real):
            fail("a number")
        try:
            return float(value)
        except OverflowError:  # an int past float's range
            raise ValueError(f"option {name!r} is out of a float's range, got {value!r}") from None
    if kind == "str":
        if value is None:  # Gymnasium's None ("not given") is the empty string in the core
            return ""
        if not isinstance(value, str):
            fail("a str or None")
        return value
    if kind == "dict[str, list[float]]":
        return _coerce_table(name, value)
    if value is None:
        return []
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        fail(f"a sequence ({kind})")
    if kind == "list[float]":
        if any(is_bool(v) or not isinstance(v, numbers.Real) for v in value):
            fail("a sequence of numbers")
        try:
            return [float(v) for v in value]
        except OverflowError:
            raise ValueError(f"option {name!r} holds a number out of a float's range") from None
    rows = []  # list[str]: rows of a map, given as str, bytes or sequences of characters
    for row in value:
        if isinstance(row, bytes | bytearray | np.bytes_):
            row = bytes(row).decode()
        elif not isinstance(row, str):
            row = "".join(c.decode() if isinstance(c, bytes) else str(c) for c in row)
        rows.append(row)
    return rows


def _coerce_table(name: str, value: Any) -> dict[str, list[float]]:
    """A table option (``{name: numbers}``, e.g. ViZDoom's reward_config ``{"KILLCOUNT": (1,
    0)}``) for the core: keys are str (int keys, such as weapon slots, are written as str),
    each value a number or a sequence of numbers."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"option {name!r} must be a dict of numbers or sequences, got {value!r}")
    table = {}
    for key, entry in value.items():
        if isinstance(key, bool | np.bool_) or not isinstance(key, str | numbers.Integral):
            raise TypeError(f"option {name!r}: keys must be str or int, got {key!r}")
        numbers_ = [entry] if isinstance(entry, numbers.Real) else entry
        if (
            isinstance(numbers_, str | bytes)
            or not isinstance(numbers_, Sequence | np.ndarray)
            or any(
                isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Real) for v in numbers_
            )
        ):
            raise TypeError(
                f"option {name!r}: the value of {key!r} must be a number or a sequence of "
                f"numbers, got {entry!r}"
            )
        table[str(key)] = [float(v) for v in numbers_]
    return table


def _int_arg(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def _seeds(seed: Any, num_envs: int) -> tuple[int, ...]:
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool | np.bool_):
        base = _int_arg("seed", seed, 0, _MAX_SEED)
        if base + num_envs - 1 > _MAX_SEED:
            raise ValueError(f"seed + num_envs - 1 must be <= {_MAX_SEED}, got seed={base}")
        return tuple(base + i for i in range(num_envs))
    if isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str | bytes):
        seeds = list(seed)
        if len(seeds) != num_envs:
            raise ValueError(
                f"seed is a sequence of length {len(seeds)} but num_envs is {num_envs}: "
                "give one seed per env, or one int (env i then uses seed + i)"
            )
        return tuple(_int_arg(f"seed[{i}]", s, 0, _MAX_SEED) for i, s in enumerate(seeds))
    raise TypeError(f"seed must be an int or a sequence of num_envs ints, got {seed!r}")


def _pool_config(
    reg: Registration,
    env_options: dict[str, Any],
    render: dict[str, Any],
    num_envs: int = 1,
    batch_size: int | None = None,
    num_threads: int | None = None,
    seed: Any = 42,
    max_episode_steps: int | None = None,
    thread_affinity_offset: int = -1,
    autoreset_mode: Any = AutoresetMode.NEXT_STEP,
    render_mode: str | None = None,
    render_env_id: int = 0,
    render_width: int | None = None,
    render_height: int | None = None,
    render_camera_id: int = -1,
    conventions: Any = Conventions.ENVPOOL,
    max_num_players: int = 1,
    gym_reset_return_info: bool = True,
    per_env_options: tuple[dict[str, Any], ...] = (),
    own_time_limit: int = 0,
) -> PoolConfig:
    num_envs = _int_arg("num_envs", num_envs, 1, _MAX_NUM_ENVS)
    if batch_size is None:
        batch_size = num_envs
    batch_size = _int_arg("batch_size", batch_size, 1)
    if batch_size > num_envs:
        raise ValueError(
            f"batch_size ({batch_size}) must be <= num_envs ({num_envs}): a batch holds "
            "results of distinct envs"
        )
    cores = os.cpu_count() or 1
    if num_threads is None:
        num_threads = min(batch_size, cores)
    num_threads = _int_arg("num_threads", num_threads, 1, 1024)
    thread_affinity_offset = _int_arg("thread_affinity_offset", thread_affinity_offset, -1)
    if max_episode_steps is None:
        # The registration's limit, else that of envs that truncate themselves (MiniGrid's
        # max_steps, which its options set: the spec's time_limit); 0: none.
        max_episode_steps = reg.max_episode_steps or own_time_limit or 0
    max_episode_steps = _int_arg("max_episode_steps", max_episode_steps, 0, 2**31 - 1)
    conventions = Conventions.parse(conventions)
    if conventions is Conventions.GYMNASIUM and batch_size != num_envs:
        raise ValueError(
            f"conventions='gymnasium' (what gymnasium.make_vec gives) needs sync mode: "
            f"Gymnasium's VectorEnv steps all num_envs envs at once, so batch_size "
            f"({batch_size}) must equal num_envs ({num_envs}); async pools follow EnvPool's "
            "conventions (send/recv with info['env_id'])"
        )
    max_num_players = _int_arg("max_num_players", max_num_players, 1)
    if not isinstance(gym_reset_return_info, bool | np.bool_):
        raise TypeError(f"gym_reset_return_info must be a bool, got {gym_reset_return_info!r}")
    if not gym_reset_return_info:
        raise ValueError(
            "gym_reset_return_info=False is not supported (as in EnvPool 1.2.5, reset returns "
            "(obs, info)); make_gym(..., legacy_api=True) gives the pre-0.26 reset() -> obs"
        )
    return PoolConfig(
        task_id=reg.task_id,
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=_seeds(seed, num_envs),
        max_episode_steps=max_episode_steps,
        thread_affinity_offset=thread_affinity_offset,
        autoreset_mode=AutoresetMode.parse(autoreset_mode),
        env_options=env_options,
        per_env_options=per_env_options,
        conventions=conventions,
        reward_threshold=reg.reward_threshold,
        max_num_players=max_num_players,
        **_render_options(
            reg.task_id,
            render,
            num_envs,
            render_mode,
            render_env_id,
            render_width,
            render_height,
            render_camera_id,
        ),
    )


def _render_options(
    task_id: str,
    render: dict[str, Any],
    num_envs: int,
    mode: Any,
    env_id: Any,
    width: Any,
    height: Any,
    camera_id: Any,
) -> dict[str, Any]:
    """Checks the render options against what the env can draw; sizes default to its own."""
    if mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {RENDER_MODES}, got {mode!r}")
    if render["width"] <= 0 and (mode, width, height, camera_id) != (None, None, None, -1):
        raise ValueError(
            f"{task_id} has no renderer: leave render_mode (None) and the other render options out"
        )
    env_id = _int_arg("render_env_id", env_id, 0, num_envs - 1)
    size = {}
    for name, value, default in (
        ("render_width", width, render["width"]),
        ("render_height", height, render["height"]),
    ):
        value = default if value is None else _int_arg(name, value, 1, 16384)
        # A reference that draws one size (pygame, ALE) gives that frame; a smaller size is
        # that frame shrunk (the pool, cpp/core/pool.h), as EnvPool resizes it; never enlarged.
        if value > default and not render["resizable"]:
            raise ValueError(
                f"{task_id} draws {render['width']}x{render['height']} frames (as its "
                f"reference does), shrunk to a smaller render size but never enlarged: "
                f"{name} must be <= {default}, got {value}"
            )
        size[name] = value
    camera_id = _int_arg("render_camera_id", camera_id, -1, render["num_cameras"] - 1)
    return {
        "render_mode": mode,
        "render_env_id": env_id,
        "render_camera_id": camera_id,
        **size,
    }
