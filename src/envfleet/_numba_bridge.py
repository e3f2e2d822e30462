"""The Numba side of Python environments (see :mod:`envfleet.python_env`).

Two things live here, both needing Numba, which :mod:`envfleet.python_env` imports only when
an env is compiled:

- ``Rng``: a Numba type that is nothing but the env's ``NumpyGenerator*``. Its methods
  ``random()``, ``uniform(low, high)`` and ``integers(low, high)`` call the core's C entry
  points (``_core.rng_function_addresses()``) by symbol name, so compiled code can be cached
  on disk: the symbols are bound again in each process when this module is imported.
- ``compile_wrappers``: writes a module of ``@cfunc`` wrappers (raw pointers -> record
  and array views -> the user's function -> a return code) to a file in the cache directory
  and imports it, so Numba caches the compiled wrappers next to it.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import inspect
import os
import shutil
import sys
import tempfile
import types as pytypes
from dataclasses import dataclass
from typing import Any

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, overload_method, register_model

from envfleet import _core

# Bumped whenever the generated code changes meaning: part of every cache key.
BRIDGE_VERSION = 8

NumbaError = numba.core.errors.NumbaError

_SYMBOLS = {
    name: f"envfleet_rng_{name}"
    for name in ("random", "uniform", "integers", "standard_normal", "normal")
}
for _name, _address in _core.rng_function_addresses().items():
    llvm.add_symbol(_SYMBOLS[_name], _address)


# ---- the Rng type --------------------------------------------------------------------------


class RngType(types.Type):
    """The env's random generator in nopython code: an opaque ``NumpyGenerator*``."""

    def __init__(self) -> None:
        super().__init__(name="envfleet.Rng")


rng_type = RngType()
register_model(RngType)(models.OpaqueModel)

_I8P = ir.IntType(8).as_pointer()
_F64 = ir.DoubleType()
_I64 = ir.IntType(64)


@intrinsic
def as_rng(typingctx, ptr):
    """Views a ``void*`` (the ``rng`` argument of the C functions) as an Rng."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], _I8P)

    return rng_type(types.voidptr), codegen


@intrinsic
def offset_pointer(typingctx, ptr, offset):
    """``(char*)ptr + offset``: the address of a row, from its key's base and byte offset."""

    def codegen(context, builder, signature, args):
        return builder.gep(builder.bitcast(args[0], _I8P), [args[1]])

    return types.voidptr(types.voidptr, types.int64), codegen


_IR_TYPES = {types.float64: _F64, types.int64: _I64}


def _entry_point(name: str, ret: types.Type, params: tuple[types.Type, ...] = ()):
    """An intrinsic calling the core's ``envfleet_rng_<name>(rng, *params) -> ret``; ``ret``
    and each parameter are ``types.float64`` or ``types.int64``. Called as ``f(rng, ...)``."""
    fnty = ir.FunctionType(_IR_TYPES[ret], [_I8P, *(_IR_TYPES[p] for p in params)])

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, fnty, _SYMBOLS[name])
        return builder.call(fn, args)

    if params:

        def typer(typingctx, rng, a, b):
            return ret(rng, *params), codegen

    else:

        def typer(typingctx, rng):
            return ret(rng), codegen

    typer.__name__ = typer.__qualname__ = f"_rng_{name}"
    return intrinsic(typer)


_rng_random = _entry_point("random", types.float64)
_rng_uniform = _entry_point("uniform", types.float64, (types.float64, types.float64))
_rng_integers = _entry_point("integers", types.int64, (types.int64, types.int64))
_rng_standard_normal = _entry_point("standard_normal", types.float64)
_rng_normal = _entry_point("normal", types.float64, (types.float64, types.float64))


def _overload_draw(method: str, draw) -> None:
    """``rng.<method>()``: a method without arguments, one call of its entry point."""

    def typer(rng):
        return lambda rng: draw(rng)

    overload_method(RngType, method)(typer)


_overload_draw("random", _rng_random)
_overload_draw("standard_normal", _rng_standard_normal)


@overload_method(RngType, "normal")
def _ol_normal(rng, loc=0.0, scale=1.0):
    _require_numbers("normal", loc=loc, scale=scale)

    def impl(rng, loc=0.0, scale=1.0):
        if scale < 0:
            raise ValueError("rng.normal: scale < 0")
        return _rng_normal(rng, np.float64(loc), np.float64(scale))

    return impl


@overload_method(RngType, "uniform")
def _ol_uniform(rng, low=0.0, high=1.0):
    _require_numbers("uniform", low=low, high=high)

    def impl(rng, low=0.0, high=1.0):
        return _rng_uniform(rng, np.float64(low), np.float64(high))

    return impl


@overload_method(RngType, "integers")
def _ol_integers(rng, low, high=None):
    def is_int(arg):
        return isinstance(arg, types.Integer | types.Boolean)

    if not is_int(low) or not (is_int(high) or _is_none(high)):
        raise numba.core.errors.TypingError("rng.integers: low and high must be integers")
    if _is_none(high):  # numpy: integers(high) draws from [0, high)

        def impl_high(rng, low, high=None):
            if low <= 0:
                raise ValueError("rng.integers: high <= 0")
            return _rng_integers(rng, np.int64(0), np.int64(low))

        return impl_high

    def impl(rng, low, high=None):
        if low >= high:
            raise ValueError("rng.integers: low >= high")
        return _rng_integers(rng, np.int64(low), np.int64(high))

    return impl


def _require_numbers(method: str, **args: Any) -> None:
    """Typing check of a float-parameter rng method: each argument a number or omitted."""
    for name, arg in args.items():
        if not isinstance(arg, types.Number | types.Omitted | float):
            raise numba.core.errors.TypingError(f"rng.{method}: {name} must be a number")


def _is_none(arg) -> bool:
    return arg is None or isinstance(arg, types.NoneType | types.Omitted)


# ---- generated wrappers --------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """One obs or info array: its name, NumPy dtype and shape."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]


@dataclass(frozen=True)
class WrapperPlan:
    """Everything the generated wrappers depend on (and so part of the cache key)."""

    env_name: str
    state_dtype: np.dtype
    options_dtype: np.dtype
    obs: tuple[Key, ...]
    obs_layout: str  # "single", "tuple" or "dict"
    info: tuple[Key, ...]
    action: Key
    action_scalar: bool
    observe_takes_info: bool


@dataclass
class Wrappers:
    reset: Any  # numba CFunc objects: kept alive as long as the core may call them
    step: Any
    observe: Any
    # reset, step and observe over `count` envs in one call (cpp/core/function_env.h)
    reset_many: Any
    step_many: Any
    observe_many: Any
    module_path: str | None
    cache_hit: bool


_HEADER = '''\
"""Generated by envfleet for the Python env {env_name}: Numba wrappers that the C++ pool
calls (see envfleet/_numba_bridge.py). Do not edit; delete the directory to clear the cache.
Key: {key}"""

import collections

import numpy as np
from numba import carray, cfunc, types

from envfleet._numba_bridge import as_rng, offset_pointer

STATE = np.{state_dtype!r}
OPTIONS = np.{options_dtype!r}
RESET_SIG = types.int32(types.voidptr, types.voidptr, types.voidptr)
STEP_SIG = types.int32(
    types.voidptr, types.voidptr, types.voidptr, types.voidptr,
    types.CPointer(types.float64), types.CPointer(types.uint8),
)
OBSERVE_SIG = types.int32(types.voidptr, types.CPointer(types.voidptr))
OBSERVE_MANY_SIG = types.int64(
    types.CPointer(types.voidptr), types.CPointer(types.voidptr), types.CPointer(types.int64),
    types.int64, types.int64,
)
RESET_MANY_SIG = types.int64(
    types.CPointer(types.voidptr), types.CPointer(types.voidptr), types.CPointer(types.voidptr),
    types.int64,
)
STEP_MANY_SIG = types.int64(
    types.CPointer(types.voidptr), types.CPointer(types.voidptr), types.CPointer(types.voidptr),
    types.CPointer(types.voidptr), types.CPointer(types.uint8), types.CPointer(types.float64),
    types.CPointer(types.uint8), types.int64,
)
'''

_BODY = """

@cfunc(RESET_SIG, nopython=True, cache={cache})
def reset(state_p, rng_p, options_p):
    state = carray(state_p, 1, dtype=STATE)[0]
    options = carray(options_p, 1, dtype=OPTIONS)[0]
    try:
        _user_reset(state, as_rng(rng_p), options)
    except Exception:
        return 1
    return 0


@cfunc(STEP_SIG, nopython=True, cache={cache})
def step(state_p, action_p, rng_p, options_p, reward_p, terminated_p):
    state = carray(state_p, 1, dtype=STATE)[0]
    options = carray(options_p, 1, dtype=OPTIONS)[0]
    action = {action}
    try:
        reward, terminated = _user_step(state, action, as_rng(rng_p), options)
    except Exception:
        return 1
    reward_p[0] = reward
    terminated_p[0] = 1 if terminated else 0
    return 0


@cfunc(RESET_MANY_SIG, nopython=True, cache={cache})
def reset_many(state_ps, rng_ps, options_ps, count):
    for i in range(count):
        state = carray(state_ps[i], 1, dtype=STATE)[0]
        options = carray(options_ps[i], 1, dtype=OPTIONS)[0]
        try:
            _user_reset(state, as_rng(rng_ps[i]), options)
        except Exception:
            return i
    return count


@cfunc(STEP_MANY_SIG, nopython=True, cache={cache})
def step_many(state_ps, action_ps, rng_ps, options_ps, skip, rewards, terminated, count):
    for i in range(count):
        if skip[i]:
            continue
        state = carray(state_ps[i], 1, dtype=STATE)[0]
        options = carray(options_ps[i], 1, dtype=OPTIONS)[0]
        action_p = action_ps[i]
        action = {action}
        try:
            reward, done = _user_step(state, action, as_rng(rng_ps[i]), options)
        except Exception:
            return i
        rewards[i] = reward
        terminated[i] = 1 if done else 0
    return count


@cfunc(OBSERVE_SIG, nopython=True, cache={cache})
def observe(state_p, outputs):
    state = carray(state_p, 1, dtype=STATE)[0]
    try:
        _user_observe({observe_args})
    except Exception:
        return 1
    return 0


@cfunc(OBSERVE_MANY_SIG, nopython=True, cache={cache})
def observe_many(state_ps, key_bases, key_row_bytes, first_row, count):
{observe_many_keys}
    for i in range(count):
        state = carray(state_ps[i], 1, dtype=STATE)[0]
        row = first_row + i
        try:
            _user_observe({observe_many_args})
        except Exception:
            return i
    return count
"""


def _numpy_type(dtype: np.dtype) -> str:
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"  # np.bool is NumPy 2 only


def _view(pointer: str, key: Key) -> str:
    return f"carray({pointer}, {key.shape!r}, dtype={_numpy_type(key.dtype)})"


def generate_source(plan: WrapperPlan, cache: bool) -> str:
    lines = []
    if plan.obs_layout == "dict":
        names = [k.name for k in plan.obs]
        lines.append(f"Obs = collections.namedtuple('Obs', {names!r})")
    if plan.info:
        lines.append(f"Info = collections.namedtuple('Info', {[k.name for k in plan.info]!r})")

    def observe_args(output: str) -> str:
        """observe's arguments, with output key k at `output.format(k)`."""
        views = [_view(output.format(i), key) for i, key in enumerate(plan.obs)]
        if plan.obs_layout == "single":
            obs = views[0]
        elif plan.obs_layout == "tuple":
            obs = "(" + ", ".join(views) + ",)"
        else:
            obs = "Obs(" + ", ".join(views) + ")"
        args = ["state", obs]
        if plan.observe_takes_info:
            first = len(plan.obs)
            infos = [_view(output.format(first + i), key) for i, key in enumerate(plan.info)]
            args.append("Info(" + ", ".join(infos) + ")" if infos else "()")
        return ", ".join(args)

    if plan.action_scalar:
        action = f"carray(action_p, 1, dtype={_numpy_type(plan.action.dtype)})[0]"
    else:
        action = _view("action_p", plan.action)
    header = _HEADER.format(
        env_name=plan.env_name,
        key="{key}",
        state_dtype=plan.state_dtype,
        options_dtype=plan.options_dtype,
    )
    body = _BODY.format(
        cache=cache,
        action=action,
        observe_args=observe_args("outputs[{}]"),
        # Key k's row: its base plus row times its row's bytes, both read once per call.
        observe_many_keys="\n".join(
            f"    base{k} = key_bases[{k}]\n    row_bytes{k} = key_row_bytes[{k}]"
            for k in range(len(plan.obs) + len(plan.info))
        ),
        observe_many_args=observe_args("offset_pointer(base{0}, row * row_bytes{0})"),
    )
    return header + "\n".join(lines) + "\n" + body


# ---- fingerprints of the user's code ---------------------------------------------------------


def _python_function(fn: Any) -> Any:
    return getattr(fn, "py_func", fn)


def source_fingerprint(functions: list[Any]) -> str | None:
    """A hash of what the compiled code depends on: the source files of ``functions`` and of
    every function they reach through their globals or closures (helpers, njit functions),
    the values of the constants they read (Numba freezes globals when compiling), and the
    source of user modules they reach (``physics.G``). None if some source is unavailable (a
    function typed at the prompt): such envs are compiled without the disk cache.
    """
    digest = hashlib.sha256()
    seen_files: set[str] = set()
    seen: set[int] = set()
    todo = [_python_function(fn) for fn in functions]

    def add_file(path: str) -> None:
        if path not in seen_files:
            seen_files.add(path)
            with open(path, "rb") as f:
                digest.update(path.encode() + b"\0" + hashlib.sha256(f.read()).digest())

    def add_value(name: str, value: Any) -> None:
        target = _python_function(value)
        if isinstance(target, pytypes.FunctionType):
            todo.append(target)
        elif isinstance(value, pytypes.ModuleType):
            path = getattr(value, "__file__", None)
            if path and path.endswith(".py") and not _is_installed(path):
                add_file(path)
        elif isinstance(value, bool | int | float | complex | str | bytes | tuple | np.generic):
            digest.update(f"{name}={value!r}\0".encode())
        elif isinstance(value, np.ndarray):
            digest.update(f"{name}={value.dtype.str}{value.shape}".encode())
            digest.update(hashlib.sha256(np.ascontiguousarray(value).view(np.uint8)).digest())

    while todo:
        fn = todo.pop()
        if id(fn) in seen or not isinstance(fn, pytypes.FunctionType):
            continue
        seen.add(id(fn))
        try:
            path = inspect.getsourcefile(fn)
            if path is None:
                return None
            add_file(path)
        except (OSError, TypeError):
            return None
        # Cached code names the modules of the functions it calls (Numba imports them when
        # loading it), so the same file imported under another name gets its own entry.
        digest.update(f"{fn.__module__}:{fn.__qualname__}\0".encode())
        for name in sorted(_referenced_names(fn.__code__)):
            if name in fn.__globals__:
                add_value(name, fn.__globals__[name])
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True):
            try:
                add_value(name, cell.cell_contents)
            except ValueError:  # an empty cell
                pass
    return digest.hexdigest()


def _is_installed(path: str) -> bool:
    """Whether ``path`` belongs to the interpreter or to an installed package."""
    path = os.path.realpath(path)
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return "site-packages" in path.split(os.sep) or any(
        path.startswith(root + os.sep) for root in roots
    )


def _referenced_names(code: pytypes.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= _referenced_names(const)
    return names


def cache_dir() -> str:
    """Where generated wrapper modules and Numba's cache of them live."""
    root = os.environ.get("ENVFLEET_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "envfleet")
    return os.path.join(root, "python_envs")


def _write_module(directory: str, name: str, source: str) -> str:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name + ".py")
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == source:
                return path  # unchanged: rewriting it would invalidate Numba's cache index
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(source)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path


_scratch: list[str] = []


def _scratch_dir() -> str:
    """A directory for modules compiled without the cache, deleted at exit."""
    if not _scratch:
        _scratch.append(tempfile.mkdtemp(prefix="envfleet-python-envs-"))
        atexit.register(shutil.rmtree, _scratch[0], ignore_errors=True)
    return _scratch[0]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


_modules_loaded = 0


def compile_wrappers(
    plan: WrapperPlan,
    reset: Any,
    step: Any,
    observe: Any,
    fingerprint: str | None,
    cache: bool,
) -> Wrappers:
    """Generates, imports (compiling or loading from Numba's cache) the wrappers."""
    global _modules_loaded
    cache = cache and fingerprint is not None
    source = generate_source(plan, cache)
    key = hashlib.sha256(
        "\0".join(
            [source, fingerprint or "", str(BRIDGE_VERSION), numba.__version__, sys.version]
        ).encode()
    ).hexdigest()[:24]
    source = source.replace("{key}", key, 1)
    stem = f"{_safe(plan.env_name)}_{key}"
    if cache:
        try:
            path = _write_module(cache_dir(), stem, source)
        except OSError:
            cache = False
    if not cache:
        source = generate_source(plan, False).replace("{key}", key, 1)
        path = _write_module(_scratch_dir(), stem, source)
    module_name = f"_envfleet_env_{stem}"
    if module_name in sys.modules:  # the same env compiled again in this process
        _modules_loaded += 1
        module_name += f"_{_modules_loaded}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(_user_reset=reset, _user_step=step, _user_observe=observe)
    # Numba looks the module up by name while lowering; keep it registered for good.
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        if cache and not isinstance(exc, NumbaError):
            # A cache entry that cannot be loaded (say, a module it names is gone):
            # compile afresh rather than fail.
            return compile_wrappers(plan, reset, step, observe, fingerprint, cache=False)
        raise
    compiled = (
        module.reset,
        module.step,
        module.observe,
        module.reset_many,
        module.step_many,
        module.observe_many,
    )
    hit = cache and all(f.cache_hits for f in compiled)
    return Wrappers(*compiled, path if cache else None, hit)


# ---- typing the user's functions one at a time (for error messages) ------------------------


def argument_types(plan: WrapperPlan) -> dict[str, tuple]:
    """The Numba types the wrappers pass to reset, step and observe."""
    state = numba.from_dtype(plan.state_dtype)
    options = numba.from_dtype(plan.options_dtype)

    def array(key: Key):
        return types.Array(numba.from_dtype(key.dtype), len(key.shape), "C")

    if plan.action_scalar:
        action = numba.from_dtype(plan.action.dtype)
    else:
        action = array(plan.action)
    obs_arrays = [array(k) for k in plan.obs]
    if plan.obs_layout == "single":
        obs = obs_arrays[0]
    elif plan.obs_layout == "tuple":
        obs = types.BaseTuple.from_types(obs_arrays)
    else:
        import collections

        cls = collections.namedtuple("Obs", [k.name for k in plan.obs])
        obs = types.BaseTuple.from_types(obs_arrays, cls)
    observe_args: tuple = (state, obs)
    if plan.observe_takes_info:
        if plan.info:
            import collections

            cls = collections.namedtuple("Info", [k.name for k in plan.info])
            info = types.BaseTuple.from_types([array(k) for k in plan.info], cls)
        else:
            info = types.Tuple(())
        observe_args = (state, obs, info)
    return {
        "reset": (state, rng_type, options),
        "step": (state, action, rng_type, options),
        "observe": observe_args,
    }


def compile_one(fn: Any, argtypes: tuple) -> Any:
    """Compiles ``fn`` (a Numba dispatcher) for ``argtypes``; returns its return type."""
    fn.compile(argtypes)
    return fn.overloads[argtypes].signature.return_type


def check_step_return(return_type: Any) -> str | None:
    """Why step's return type is not (reward, terminated), or None if it is."""
    if not isinstance(return_type, types.BaseTuple) or len(return_type) != 2:
        return f"step must return (reward, terminated), but it returns {return_type}"
    reward, terminated = return_type
    if not isinstance(reward, types.Number | types.Boolean):
        return f"step's reward must be a number, but it is {reward}"
    if not isinstance(terminated, types.Boolean | types.Integer):
        return f"step's terminated must be a bool, but it is {terminated}"
    return None


def njit(fn: Any, boundscheck: bool) -> Any:
    """The user's function as a Numba dispatcher (kept as is if it already is one).

    ``forceinline`` marks it for LLVM to inline into the wrappers: left to itself, LLVM calls
    it once per env from step_many and observe_many, through the stack, which cost
    PyCartPole-v1 about 7% of its sync throughput at 2048 envs (benchmarks/RESULTS.md). It
    inlines the compiled function, so the function keeps its own flags (bounds checks, error
    model) and its exceptions are still reported through its status code; Numba's
    ``inline="always"`` (inlining of Numba's IR, under the wrapper's flags) lost an exception
    raised in reset.
    """
    if isinstance(fn, numba.core.dispatcher.Dispatcher):
        return fn
    return numba.njit(fn, boundscheck=boundscheck, error_model="numpy", forceinline=True)
