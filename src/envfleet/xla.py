"""``env.xla()``: a pool's ``send``, ``recv`` and ``step`` as XLA custom calls, so that a whole
actor loop (policy and environment steps) can be compiled by ``jax.jit`` and run in
``lax.scan`` / ``lax.fori_loop`` with no Python and no GIL per step. The calls are handlers
of envfleet._xla (cpp/xla/xla_module.cc) registered through ``jax.ffi``, for XLA's CPU backend
and, where JAX has one, its CUDA backend (the same jitted function runs on either); they
reach the pool through its plain-C table (cpp/bind/pool_api.h). How to use it: docs/xla.md.
"""

from __future__ import annotations

import collections
import functools
import importlib
import weakref
from typing import Any

import numpy as np

from envfleet.base import REWARD, TERMINATED, TRUNCATED

XlaFunctions = collections.namedtuple("XlaFunctions", ["handle", "recv", "send", "step"])

# Element types of the pool's C table, by code (EnvfleetDType in cpp/bind/pool_api.h).
_DTYPES = tuple(
    np.dtype(name) for name in ("bool", "int8", "uint8", "int32", "int64", "float32", "float64")
)

_registered_platforms: set[str] = set()


def _has_cuda(jax: Any) -> bool:
    """Whether JAX has a CUDA backend (a CPU-only JAX has none, and says so by raising)."""
    try:
        return bool(jax.devices("cuda"))
    except RuntimeError:
        return False


def _load() -> tuple[Any, Any]:
    """Imports JAX and envfleet._xla and registers the handlers with JAX: the CPU ones once,
    the CUDA ones once JAX has a CUDA backend."""
    try:
        import jax
    except ImportError as err:
        raise ImportError("env.xla() needs JAX: pip install 'envfleet[jax]'") from err
    try:
        _xla = importlib.import_module("envfleet._xla")
    except ImportError as err:
        raise ImportError(
            "env.xla() needs the module envfleet._xla, which this build of envfleet lacks: it "
            "is built where jaxlib (XLA's FFI headers) is importable at build time, as in "
            "pip's isolated build; rebuild with pip install --force-reinstall 'envfleet[jax]' "
            "(or, building without isolation, pip install 'jaxlib>=0.10.2' first)"
        ) from err
    if "cpu" not in _registered_platforms:
        for name, capsule in _xla.handlers().items():
            jax.ffi.register_ffi_target(name, capsule, platform="cpu")
        _registered_platforms.add("cpu")
    if "CUDA" not in _registered_platforms and _has_cuda(jax):
        _register_cuda(jax, _xla)
    return jax, _xla


def _register_cuda(jax: Any, _xla: Any) -> None:
    """Registers the CUDA handlers (they load the CUDA driver on their first call, not here)."""
    for name, capsule in _xla.cuda_handlers().items():
        jax.ffi.register_ffi_target(name, capsule, platform="CUDA")
    _registered_platforms.add("CUDA")


def make_xla(env: Any) -> XlaFunctions:
    """``(handle, recv, send, step)`` for pool ``env`` (any front end), EnvPool's signatures:

    - ``send(handle, action, env_id=None) -> handle``
    - ``recv(handle) -> (handle, result)``
    - ``step(handle, action, env_id=None) -> (handle, result)``: send, then recv

    ``result`` has the structure of the front end's Python ``recv()`` (Gymnasium: obs, reward,
    terminated, truncated, info; legacy gym: obs, reward, done, info; dm: a TimeStep), with
    JAX arrays of JAX's dtypes (without ``jax_enable_x64``: float32 for float64, int32 for
    int64). ``env_id`` None means every env, in env order.
    """
    jax, _xla = _load()
    from envfleet.dm import DmEnvPool

    if env._pool.closed:
        raise RuntimeError("xla(): this env pool is closed")
    jnp = jax.numpy
    api = env._pool.pool_api()
    num_envs = _xla.pool_layout(api)[0]
    is_dm = isinstance(env, DmEnvPool)
    # The dm front end's record of which envs' last result was LAST: the handlers read and
    # update the same array its Python recv does, so both kinds of call agree on step_type.
    ended = env._ended if is_dm and env._track_ends else None
    pool_id = _xla.register_pool(api, 0 if ended is None else ended.ctypes.data, is_dm)
    # Not at exit: freeing a pool's GPU staging needs the CUDA context JAX may have torn down
    # by then, and the process's end frees everything anyway.
    weakref.finalize(env, _xla.unregister_pool, pool_id).atexit = False

    handle_struct = jax.ShapeDtypeStruct((1,), np.uint32)
    results = (handle_struct, *_batch_structs(env, jax, _xla))

    def custom_call(name: str, result_shapes: Any) -> Any:
        # The pool id travels twice: as the call's static attribute, which the handlers find
        # the pool by (on a GPU the handle lives in device memory), and as the handle's value,
        # which they check against it (docs/xla.md, "What runs where").
        call = jax.ffi.ffi_call(
            name, result_shapes, has_side_effect=True, input_output_aliases={0: 0}
        )
        return functools.partial(call, pool_id=np.uint32(pool_id))

    send_call = custom_call("envfleet_send", handle_struct)
    recv_call = custom_call("envfleet_recv", results)
    step_call = custom_call("envfleet_step", results)

    action_key = env._spec.action_key
    action_dtype = jax.dtypes.canonicalize_dtype(action_key.dtype)
    all_env_ids = np.arange(num_envs, dtype=np.int32)

    def actions_and_ids(action: Any, env_id: Any) -> tuple[Any, Any]:
        action = jnp.asarray(action)
        if not (
            jnp.issubdtype(action.dtype, jnp.integer)
            or jnp.issubdtype(action.dtype, jnp.floating)
            or action.dtype == jnp.bool_
        ):
            raise TypeError(f"action must hold numbers, got dtype {action.dtype}")
        if action_key.discrete and jnp.issubdtype(action.dtype, jnp.floating):
            action = jnp.trunc(action)  # as the Python send: toward zero
        action = action.astype(action_dtype)
        if env_id is None:
            env_id = all_env_ids
        else:
            env_id = jnp.asarray(env_id)
            if not jnp.issubdtype(env_id.dtype, jnp.integer) or env_id.ndim > 1:
                raise TypeError("env_id must be an integer or a 1-D array of integers")
            env_id = env_id.astype(jnp.int32).reshape(-1)
        expected = (env_id.shape[0], *action_key.shape)
        if action.shape != expected:
            raise ValueError(
                f"action has shape {action.shape} but shape {expected} was expected"
                + ("" if env_id is not all_env_ids else " (one action per env: env_id is None)")
            )
        return action, env_id

    shape_result = functools.partial(_shape_result, env, jnp)

    def send(handle: Any, action: Any, env_id: Any = None) -> Any:
        return send_call(handle, *actions_and_ids(action, env_id))

    def recv(handle: Any) -> tuple[Any, Any]:
        handle, *out = recv_call(handle)
        return handle, shape_result(tuple(out))

    def step(handle: Any, action: Any, env_id: Any = None) -> tuple[Any, Any]:
        handle, *out = step_call(handle, *actions_and_ids(action, env_id))
        return handle, shape_result(tuple(out))

    # A JAX array, not NumPy's: the handles the calls return are JAX arrays, and a jitted
    # function given both kinds would compile twice.
    handle = jnp.asarray(np.array([pool_id], dtype=np.uint32))
    return XlaFunctions(handle, recv, send, step)


def _batch_structs(env: Any, jax: Any, _xla: Any) -> list[Any]:
    """The shapes and dtypes of a recv/step result after the handle: the pool's arrays in
    Pool.keys() order, in JAX's dtypes, then a dm pool's ``first`` flags."""
    from envfleet.dm import DmEnvPool

    _, batch_size, keys = _xla.pool_layout(env._pool.pool_api())
    batch = []
    for k, (code, shape) in enumerate(keys):
        dtype = env._reward_dtype if k == REWARD else _DTYPES[code]
        dtype = jax.dtypes.canonicalize_dtype(dtype)
        batch.append(jax.ShapeDtypeStruct((batch_size, *shape), dtype))
    if isinstance(env, DmEnvPool):
        batch.append(jax.ShapeDtypeStruct((batch_size,), np.bool_))  # the rows' `first`
    return batch


def _shape_result(env: Any, xp: Any, out: tuple) -> Any:
    """The front end's result from a recv/step's arrays ``out`` (after the handle), in array
    module ``xp``: Gymnasium's 5-tuple, legacy gym's 4-tuple or a dm TimeStep (whose
    ``first`` flags the handlers computed: the last array of ``out``)."""
    from envfleet.dm import DmEnvPool
    from envfleet.gym_env import GymEnvPool

    if isinstance(env, DmEnvPool):
        return env._time_step(out, out[-1], out[REWARD], xp)
    obs, info = env._observation(out), env._info(out)
    reward, terminated, truncated = out[REWARD], out[TERMINATED], out[TRUNCATED]
    if isinstance(env, GymEnvPool):
        info["TimeLimit.truncated"] = truncated & ~terminated
        return obs, reward, terminated | truncated, info
    return obs, reward, terminated, truncated, info
