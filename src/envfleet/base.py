"""What every front end shares: the C++ pool, action checking, and raw send/recv.

The front ends (Gymnasium, gym, dm_env) differ only in how they shape a batch of results;
the core returns one tuple of zero-copy arrays per batch, named by ``_pool.keys()``:
``reward, terminated, truncated, env_id, elapsed_step``, then the env's obs keys, its info
keys, and (SAME_STEP autoreset) ``final_obs:*`` / ``final_info:*``.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from envfleet.render_window import HumanWindow
from envfleet.spec import AutoresetMode, Conventions, EnvSpec

REWARD, TERMINATED, TRUNCATED, ENV_ID, ELAPSED_STEP = range(5)
FIRST_ENV_KEY = 5


def render_metadata(spec: EnvSpec) -> dict[str, Any]:
    """``metadata["render_modes"]`` and ``["render_fps"]``, as the reference env states them."""
    if not spec.render.available:
        return {"render_modes": []}
    return {"render_modes": ["rgb_array", "human"], "render_fps": spec.render.render_fps}


def build_core_pool(spec: EnvSpec):
    """The C++ pool of ``spec`` (its module's ``Pool``), in this process."""
    config = spec.config
    # Passed only when given: a pool of envs with equal options is built as it always was.
    per_env = {"per_env_options": list(config.per_env_options)} if config.per_env_options else {}
    return spec.module.Pool(
        spec.env_type,
        config.env_options,
        config.num_envs,
        config.batch_size,
        config.num_threads,
        list(config.seed),
        config.thread_affinity_offset,
        config.autoreset_mode.core_value,
        config.max_episode_steps,
        **per_env,
    )


class PoolBase:
    """The C++ pool behind a front end, with EnvPool's ``send`` / ``recv`` / ``async_reset``."""

    def __init__(self, spec: EnvSpec, pool: Any = None):
        """``pool``: the core pool to front (None: a new C++ pool of ``spec``, in this
        process). Anything with the C++ pool's methods and results will do: envfleet.ray's
        pool spread over Ray actors is one."""
        config = spec.config
        self._spec = spec
        # What the pool runs on is self._spec; ``spec`` is a plain attribute, as in EnvPool,
        # whose users assign it (``env.spec.id = ...`` edits it in place; gymnasium.make_vec
        # replaces it with Gymnasium's EnvSpec of the call, as on Gymnasium's own vector envs).
        self.spec = spec
        self.num_envs = config.num_envs
        # Checked before any env is built: a missing display fails fast and clearly.
        self._window = HumanWindow(config.task_id) if config.render_mode == "human" else None
        self._pool = build_core_pool(spec) if pool is None else pool
        self._num_obs = len(spec.obs_keys)
        self._info_names = [key.name for key in spec.info_keys]
        self._action_dtype = spec.action_key.dtype
        self._action_discrete = spec.action_key.discrete
        self._same_step = config.autoreset_mode is AutoresetMode.SAME_STEP
        self._all_env_ids = np.arange(config.num_envs, dtype=np.int32)
        self._envpool_conventions = config.conventions is Conventions.ENVPOOL
        self._reward_dtype = config.conventions.reward_dtype

    def __reduce_ex__(self, protocol):
        # Pickle's (and copy's) hook. The envs live in this process's C++ threads: nothing a
        # pickle holds could bring them back elsewhere.
        raise TypeError(
            f"envfleet pools ({type(self).__name__}) cannot be pickled or copied: their envs "
            "run in C++ threads of this process. To use pools in other processes, send the "
            "task id and options and call envfleet.make() in each process"
        )

    # ---- EnvPool's low-level interface -------------------------------------------------------

    @property
    def config(self):
        """What the pool was made with, by key (``config["num_envs"]``, EnvPool's dict) or by
        attribute (``config.num_envs``)."""
        return self._spec.config

    @property
    def batch_size(self) -> int:
        return self._spec.config.batch_size

    @property
    def all_env_ids(self) -> np.ndarray:
        return self._all_env_ids

    @property
    def is_async(self) -> bool:
        return self._spec.config.batch_size < self._spec.config.num_envs

    def send(self, action: Any, env_id: Any = None) -> None:
        """Queues actions for envs ``env_id`` (all envs if None) and returns at once."""
        action, env_id = self._split_action(action, env_id)
        self._pool.send(self._action_array(action), env_id)

    def recv(self, reset: bool = False, return_info: bool = True):
        """Waits for the next batch of ``batch_size`` results and returns it formatted."""
        raise NotImplementedError

    def render(self, env_ids: Any = None, camera_id: int | None = None):
        """Draws envs ``env_ids`` (default: ``[render_env_id]``) as a ``(B, H, W, 3)`` uint8
        array, on the worker threads; ``camera_id`` (default: ``render_camera_id``) is -1 for
        the env's default view or one of its cameras. The envs must be idle (no step in
        flight) and reset at least once; rendering never changes their state. With
        ``render_mode="human"`` the frames go to a window instead and None is returned.
        """
        frames = self._render_frames(env_ids, camera_id)
        if self._window is not None:
            self._window.show(frames, self._spec.render.fps)
            return None
        return frames

    def _render_frames(self, env_ids: Any, camera_id: Any) -> np.ndarray:
        config = self._spec.config
        if config.render_mode is None:
            modes = "'rgb_array' or 'human'" if self._spec.render.available else "none here"
            raise RuntimeError(
                f"render() needs a render_mode given to make({config.task_id!r}, "
                f"render_mode=...): {modes}"
            )
        if env_ids is None:
            env_ids = [config.render_env_id]
        if camera_id is None:
            camera_id = config.render_camera_id
        elif isinstance(camera_id, bool | np.bool_) or not isinstance(camera_id, numbers.Integral):
            raise TypeError(f"camera_id must be an int or None, got {camera_id!r}")
        return self._pool.render(env_ids, int(camera_id), config.render_width, config.render_height)

    def async_reset(self) -> None:
        """Queues a reset of every env; ``recv()`` then returns their first observations."""
        self._pool.async_reset()

    def seed(self, seed: int | Sequence[int] | None = None) -> None:
        """The pre-0.26 gym call, kept because EnvPool code calls it: re-seeds every env for
        its next reset (an int s gives env i the seed s + i, a sequence one seed per env).

        Warns, as EnvPool does, because seeds belong in ``make(..., seed=...)`` or
        ``reset(seed=...)``; EnvPool ignores the call, envfleet applies it.
        """
        if seed is None:
            warnings.warn(
                "seed() without a seed does nothing: seeds are given to make(..., seed=...) "
                "or reset(seed=...)",
                UserWarning,
                stacklevel=2,
            )
            return
        self._reseed(seed, None)
        warnings.warn(
            "seed(s) is the pre-0.26 gym API: the envs use the new seeds from their next "
            "reset; prefer make(..., seed=...) or reset(seed=...)",
            UserWarning,
            stacklevel=2,
        )

    def _reseed(self, seed: Any, env_id: Any) -> None:
        """Re-seeds envs ``env_id`` (all if None) for their next reset, as Gymnasium does."""
        ids = self._all_env_ids if env_id is None else np.asarray(env_id).reshape(-1)
        if isinstance(seed, numbers.Integral) and not isinstance(seed, bool | np.bool_):
            if seed < 0:
                raise ValueError(f"seed must be >= 0, got {seed}")
            seeds = [int(seed) + int(i) for i in ids]
        elif isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str | bytes):
            seeds = list(seed)
            if len(seeds) != len(ids):
                raise ValueError(f"seed has {len(seeds)} entries for {len(ids)} envs being reset")
            for i, s in enumerate(seeds):
                if isinstance(s, bool | np.bool_) or not isinstance(s, numbers.Integral) or s < 0:
                    raise ValueError(f"seed[{i}] must be an int >= 0, got {s!r}")
            seeds = [int(s) for s in seeds]
        else:
            raise TypeError(f"seed must be an int or a sequence of ints, got {seed!r}")
        if max(seeds) > 2**63 - 1:
            raise ValueError(f"seeds must be < 2**63, got {max(seeds)}")
        self._pool.reseed(np.ascontiguousarray(ids, dtype=np.int32), seeds)

    def _split_action(self, action: Any, env_id: Any) -> tuple[Any, Any]:
        if isinstance(action, dict):  # EnvPool's {"action": ..., "env_id": ...}
            unknown = set(action) - {"action", "env_id", "players.env_id"}
            if unknown or "action" not in action:
                raise ValueError(
                    f"an action dict must have the key 'action' (and may have 'env_id'), "
                    f"got keys {sorted(action)}"
                )
            if env_id is None:
                env_id = action.get("env_id")
            action = action["action"]
        return action, env_id

    def _action_array(self, action: Any) -> np.ndarray:
        if (
            type(action) is np.ndarray
            and action.dtype == self._action_dtype
            and action.flags.c_contiguous
        ):
            return action
        array = np.asarray(action)
        kind = array.dtype.kind
        if kind not in "biuf":
            raise TypeError(
                f"action must hold numbers for {self._spec.action_space}, got dtype {array.dtype}"
            )
        if self._action_discrete and kind == "f":
            # EnvPool casts float actions to the action's integer type (toward zero), and
            # libraries rely on it (Tianshou's random policies sample floats); a value that
            # has no integer is refused instead of becoming an arbitrary one.
            if not np.all(np.isfinite(array)):
                raise ValueError(
                    f"action for {self._spec.action_space} must be finite, got {array!r}"
                )
            array = np.trunc(array)
        if self._action_discrete and kind in "uf" and array.size and np.abs(array).max() > 2**62:
            raise ValueError("action is out of range")
        return np.ascontiguousarray(array, dtype=self._action_dtype)

    # ---- helpers for the front ends -------------------------------------------------------

    def _observation(self, out: tuple, first: int = FIRST_ENV_KEY):
        layout = self._spec.gym_obs_layout
        if layout == "single":
            return out[first]
        values = out[first : first + self._num_obs]
        if layout == "tuple":
            return tuple(values)
        if self._spec.obs_nesting is not None:  # dicts inside the dict (FrankaKitchen)
            return self._spec.obs_nesting.dict(values)
        return {key.name: v for key, v in zip(self._spec.obs_keys, values, strict=True)}

    def _reward(self, out: tuple) -> np.ndarray:
        """The batch's rewards in the dtype of the pool's conventions (the core's are float64,
        the reference envs' own; EnvPool's are float32)."""
        return out[REWARD].astype(self._reward_dtype, copy=False)

    def _info(self, out: tuple) -> dict[str, Any]:
        info = {"env_id": out[ENV_ID], "elapsed_step": out[ELAPSED_STEP]}
        if self._envpool_conventions:  # one player per env: the players' env ids are the envs'
            info["players"] = {"env_id": out[ENV_ID]}
        first = FIRST_ENV_KEY + self._num_obs
        for i, name in enumerate(self._info_names):
            info[name] = out[first + i]
        if self._same_step:
            done = out[TERMINATED] | out[TRUNCATED]
            final = first + len(self._info_names)
            info["final_obs"] = self._observation(out, final)
            info["_final_obs"] = done
            info["final_info"] = {
                name: out[final + self._num_obs + i] for i, name in enumerate(self._info_names)
            }
            info["_final_info"] = done
        return info

    def _close_pool(self) -> None:
        self._pool.close()
        if self._window is not None:
            self._window.close()

    def xla(self):
        """EnvPool's ``xla()``: ``(handle, recv, send, step)``, this pool's calls as XLA custom
        calls for jitted JAX loops (docs/xla.md). Needs ``pip install 'envfleet[jax]'``."""
        from envfleet.xla import make_xla

        return make_xla(self)

    def __len__(self) -> int:
        return self._spec.config.num_envs
