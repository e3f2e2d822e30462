"""Task ids, and turning ``make(task_id, **kwargs)`` into a checked :class:`PoolConfig`.

A task id (``CartPole-v1``) names a C++ env type (``CartPole``) plus default options and a
time limit, like Gymnasium's ``register``. Every argument is checked here, with the GIL held
and before any thread starts, so that a bad call raises a clear exception naming the
argument instead of crashing or misbehaving later.
"""

from __future__ import annotations

import difflib
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envfleet import _core
from envfleet.spec import AutoresetMode, EnvSpec, PoolConfig, core_spec

POOL_OPTIONS = (
    "num_envs",
    "batch_size",
    "num_threads",
    "seed",
    "max_episode_steps",
    "thread_affinity_offset",
    "autoreset_mode",
)
_MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class Registration:
    task_id: str
    env_type: str
    max_episode_steps: int | None
    options: dict[str, Any] = field(default_factory=dict)


_registry: dict[str, Registration] = {}


def register(
    task_id: str, env_type: str, max_episode_steps: int | None = None, **options: Any
) -> None:
    """Registers ``task_id`` as the C++ env type ``env_type`` with default ``options``.

    ``max_episode_steps`` is the default time limit (None: the env's own, or none). A type
    that this build of the core lacks (an optional engine family) may be registered; making
    it then raises and says so.
    """
    if not isinstance(task_id, str) or not task_id:
        raise TypeError(f"task_id must be a non-empty str, got {task_id!r}")
    if env_type in _core.env_types():
        _check_env_options(task_id, env_type, options)
    _registry[task_id] = Registration(task_id, env_type, max_episode_steps, dict(options))


def list_all_envs() -> list[str]:
    """Every registered task id that this build can make."""
    types = _core.env_types()
    return sorted(t for t, reg in _registry.items() if reg.env_type in types)


def registration(task_id: str) -> Registration:
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a str, got {type(task_id).__name__}")
    if task_id not in _registry or _registry[task_id].env_type not in _core.env_types():
        close = difflib.get_close_matches(task_id, _registry, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(
            f"unknown task_id {task_id!r}.{hint} Valid task ids: {', '.join(list_all_envs())}"
        )
    return _registry[task_id]


def make_spec(task_id: str, **kwargs: Any) -> EnvSpec:
    """Checks every argument of ``make`` and returns the resulting :class:`EnvSpec`."""
    reg = registration(task_id)
    if reg.env_type not in _core.env_types():
        raise ValueError(
            f"{task_id} needs the env type {reg.env_type!r}, which this build of envfleet "
            f"does not include; built types: {sorted(_core.env_types())}"
        )
    pool_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in POOL_OPTIONS}
    _check_env_options(task_id, reg.env_type, kwargs)
    # Every option of the env, resolved: its defaults, the task's, then the caller's.
    env_options = {name: default for name, (_, default) in _core.env_types()[reg.env_type].items()}
    env_options.update(_coerce_env_options(reg.env_type, {**reg.options, **kwargs}))
    spec_dict = core_spec(reg.env_type, env_options)
    config = _pool_config(reg, spec_dict, env_options, **pool_kwargs)
    return EnvSpec(config, reg.env_type, spec_dict)


def _check_env_options(task_id: str, env_type: str, options: dict[str, Any]) -> None:
    defaults = _core.env_types()[env_type]
    unknown = [k for k in options if k not in defaults]
    if unknown:
        valid = sorted(set(defaults) | set(POOL_OPTIONS))
        raise TypeError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
            f"for {task_id}; valid options: {', '.join(valid)}"
        )


def _coerce_env_options(env_type: str, options: dict[str, Any]) -> dict[str, Any]:
    kinds = _core.env_types()[env_type]
    return {name: _coerce(name, value, kinds[name][0]) for name, value in options.items()}


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
        return int(value)
    if kind == "float":
        if is_bool(value) or not isinstance(value, numbers.Real):
            fail("a number")
        return float(value)
    if kind == "str":
        if value is None:  # Gymnasium's None ("not given") is the empty string in the core
            return ""
        if not isinstance(value, str):
            fail("a str or None")
        return value
    if value is None:
        return []
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        fail(f"a sequence ({kind})")
    if kind == "list[float]":
        if any(is_bool(v) or not isinstance(v, numbers.Real) for v in value):
            fail("a sequence of numbers")
        return [float(v) for v in value]
    rows = []  # list[str]: rows of a map, given as str, bytes or sequences of characters
    for row in value:
        if isinstance(row, bytes | bytearray | np.bytes_):
            row = bytes(row).decode()
        elif not isinstance(row, str):
            row = "".join(c.decode() if isinstance(c, bytes) else str(c) for c in row)
        rows.append(row)
    return rows


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
    spec_dict: dict,
    env_options: dict[str, Any],
    num_envs: int = 1,
    batch_size: int | None = None,
    num_threads: int | None = None,
    seed: Any = 42,
    max_episode_steps: int | None = None,
    thread_affinity_offset: int = -1,
    autoreset_mode: Any = AutoresetMode.NEXT_STEP,
) -> PoolConfig:
    num_envs = _int_arg("num_envs", num_envs, 1)
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
        max_episode_steps = reg.max_episode_steps
    if max_episode_steps is None:
        max_episode_steps = spec_dict["max_episode_steps"]
    max_episode_steps = _int_arg("max_episode_steps", max_episode_steps, 0, 2**31 - 1)
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
    )
