"""Stable-Baselines3's ``VecEnv`` over an envfleet pool.

SB3's contract (``stable_baselines3.common.vec_env.DummyVecEnv`` is its reference) differs
from a Gymnasium pool's in four ways, and :class:`EnvfleetVecEnv` bridges each:

- ``step`` returns ``(obs, rewards, dones, infos)``: ``dones = terminated | truncated``,
  float32 rewards, and ``infos`` a list of one dict per env, in which
  ``"TimeLimit.truncated"`` is True when the time limit, not the env, ended the episode.
- A finished env is reset within the step that finished it: the returned observation is the
  next episode's first and ``infos[i]["terminal_observation"]`` the last one. The pool does
  exactly that itself with ``autoreset_mode="same_step"`` (all finished envs together, on its
  worker threads), so the adapter requires that mode and never resets an env on its own.
- ``reset()`` takes no arguments: seeds given to ``seed()`` apply to the next ``reset()``.
- Per-env attributes and methods (``get_attr``, ``env_method``) address Python env objects,
  which a pool does not have: its envs are C++ objects made from one set of options, so the
  attributes they share are served, and setting one raises.

Usage::

    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor
    from envfleet.integrations.sb3 import make_vec_env

    env = VecMonitor(make_vec_env("CartPole-v1", num_envs=8, seed=0))
    PPO("MlpPolicy", env).learn(100_000)
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env.base_vec_env import (
        VecEnv,
        VecEnvIndices,
        VecEnvObs,
        VecEnvStepReturn,
    )
except ImportError as error:  # pragma: no cover - the test extra installs SB3
    raise ImportError(
        "envfleet.integrations.sb3 needs Stable-Baselines3: pip install 'envfleet[sb3]'"
    ) from error

import envfleet
from envfleet.base import render_metadata
from envfleet.gym_env import GymEnvPool
from envfleet.gymnasium_env import GymnasiumEnvPool
from envfleet.spec import AutoresetMode, GoalEnvSpec

__all__ = ["EnvfleetVecEnv", "make_vec_env"]

# Info entries that describe the pool's bookkeeping rather than one env's step: SB3's infos
# hold what the env itself reports (DummyVecEnv passes each env's own info dict through).
_POOL_INFO_KEYS = frozenset(
    {"env_id", "elapsed_step", "players", "final_obs", "_final_obs", "final_info", "_final_info"}
)
# The per-env attributes ``get_attr`` serves besides the env's options: what every env of
# the pool shares (SB3's VecEnv reads ``render_mode`` and ``metadata`` this way).
_SHARED_ATTRIBUTES = ("action_space", "metadata", "observation_space", "render_mode", "spec")
_ENV_METHODS = ("get_wrapper_attr", "render")
# A goal env's functions (GoalEnvSpec), which SB3's HerReplayBuffer calls through env_method
# on one env to relabel sampled goals: the spec computes them for the whole batch at once.
_GOAL_METHODS = ("compute_reward", "compute_terminated", "compute_truncated")


class EnvfleetVecEnv(VecEnv):
    """An SB3 ``VecEnv`` whose envs are the rows of one envfleet pool.

    ``pool`` is a sync pool of the Gymnasium front end (``envfleet.make(..., num_envs=n)``,
    either conventions) made with ``autoreset_mode="same_step"``; :func:`make_vec_env` makes
    one. The adapter owns it from then on: ``close()`` closes it.
    """

    def __init__(self, pool: GymnasiumEnvPool):
        if not isinstance(pool, GymnasiumEnvPool) or isinstance(pool, GymEnvPool):
            raise TypeError(
                "pool must be a pool of envfleet's Gymnasium front end "
                f"(envfleet.make(task_id, num_envs=n, ...)), got {pool!r}"
            )
        config = pool.config
        if pool.is_async:
            raise ValueError(
                f"pool must be a sync pool (batch_size == num_envs): SB3 steps every env at "
                f"once, got batch_size={config.batch_size} with num_envs={config.num_envs}"
            )
        if config.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError(
                "pool must be made with autoreset_mode='same_step' (SB3 returns the next "
                "episode's first observation on the step that ends one), got "
                f"autoreset_mode={config.autoreset_mode.value!r}"
            )
        if pool.closed:
            raise ValueError("pool is closed")
        # Set before VecEnv.__init__, which reads render_mode through get_attr.
        self.pool = pool
        super().__init__(config.num_envs, pool.single_observation_space, pool.single_action_space)
        self.metadata = {
            **render_metadata(pool._spec),
            "render_modes": self.metadata["render_modes"],
        }
        self._actions: np.ndarray | None = None

    # ---- reset and step ----------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        """Resets every env (with the seeds ``seed()`` gave, if any) and returns the batch."""
        seeds = self._seeds
        if all(s is None for s in seeds):
            obs, info = self.pool.reset()
        elif any(s is None for s in seeds):
            raise ValueError(f"seeds for the next reset must be all None or all ints: {seeds}")
        else:
            obs, info = self.pool.reset(seed=[int(s) for s in seeds])
        # Seeds and options apply to one reset only, as in SB3's own VecEnvs.
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = self._env_infos(info)
        self._actions = None
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions)
        if actions.ndim == 0 or actions.shape[0] != self.num_envs:
            raise ValueError(
                f"actions must have one row per env ({self.num_envs}), got shape {actions.shape}"
            )
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() needs a step_async(actions) first")
        actions, self._actions = self._actions, None
        obs, reward, terminated, truncated, info = self.pool.step(actions)
        dones = terminated | truncated
        infos = self._env_infos(info)
        for i, time_limit in enumerate((truncated & ~terminated).tolist()):
            infos[i]["TimeLimit.truncated"] = time_limit
        done_rows = np.flatnonzero(dones)
        if done_rows.size:
            # A done row's info entries already describe the next episode's first step
            # (same_step autoreset): SB3 wants the ending step's, and keeps the others as
            # that env's reset info.
            final_info = info["final_info"]
            final_obs = info["final_obs"]
            for i in done_rows.tolist():
                self.reset_infos[i] = {
                    k: v for k, v in infos[i].items() if k != "TimeLimit.truncated"
                }
                for name, values in final_info.items():
                    infos[i][name] = _row(values, i)
                infos[i]["terminal_observation"] = _obs_row(final_obs, i)
        return obs, reward.astype(np.float32, copy=False), dones, infos

    def _env_infos(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        """One dict per env of the env's own info entries (Python scalars where 1-D)."""
        columns = {}
        for name, values in info.items():
            if name not in _POOL_INFO_KEYS:
                columns[name] = values.tolist() if values.ndim == 1 else list(np.array(values))
        return [{name: rows[i] for name, rows in columns.items()} for i in range(self.num_envs)]

    def close(self) -> None:
        self.pool.close()

    # ---- seeding and reset options -----------------------------------------------------------

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """SB3's ``seed``: env ``i`` gets ``seed + i`` at the next ``reset()`` (a random base
        seed if None)."""
        if seed is not None and (
            isinstance(seed, bool | np.bool_) or not isinstance(seed, numbers.Integral) or seed < 0
        ):
            raise TypeError(f"seed must be an int >= 0 or None, got {seed!r}")
        return super().seed(None if seed is None else int(seed))

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        """SB3's ``set_options``. envfleet's envs take their options when the pool is made
        (``make_vec_env(task_id, **options)``) and no per-reset options, so only empty ones
        are accepted."""
        entries = [options] if options is None or isinstance(options, dict) else list(options)
        if any(entry for entry in entries):
            raise ValueError(
                f"options: envfleet's envs take no reset options, got {options!r}; give env "
                f"options when making the pool: make_vec_env({self.pool.config.task_id!r}, "
                "name=value, ...)"
            )
        super().set_options(options)

    # ---- per-env attributes and methods ------------------------------------------------------

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The value of ``attr_name`` for envs ``indices``. Served: ``observation_space``,
        ``action_space``, ``render_mode``, ``metadata``, ``spec`` and each env option
        (``get_attr("g")`` of Pendulum); anything else raises ``AttributeError``."""
        targets = self._indices(indices)
        if attr_name in _SHARED_ATTRIBUTES:
            value = self._shared_attribute(attr_name)
        elif attr_name in self.pool.config.env_options:
            value = self.pool.config.env_options[attr_name]
        else:
            raise AttributeError(
                f"get_attr({attr_name!r}): envfleet's envs are C++ objects; they share "
                f"{list(_SHARED_ATTRIBUTES)} and their options "
                f"{sorted(self.pool.config.env_options)}"
            )
        return [value for _ in targets]

    def _shared_attribute(self, name: str) -> Any:
        if name == "observation_space":
            return self.pool.single_observation_space
        if name == "action_space":
            return self.pool.single_action_space
        if name == "metadata":
            return render_metadata(self.pool._spec)
        return getattr(self.pool, name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Raises: envfleet's envs are C++ objects made from options fixed with the pool."""
        self._indices(indices)
        raise AttributeError(
            f"set_attr({attr_name!r}): envfleet's envs are C++ objects whose options are fixed "
            f"when the pool is made; make a new one: make_vec_env("
            f"{self.pool.config.task_id!r}, {attr_name}=...)"
        )

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs
    ) -> list[Any]:
        """Calls ``render`` (one frame per env, or None each under ``render_mode="human"``)
        or ``get_wrapper_attr(name)`` on envs ``indices``, and a goal env's
        ``compute_reward``/``compute_terminated``/``compute_truncated`` (batched, as
        HerReplayBuffer calls them); other methods raise ``AttributeError``."""
        targets = self._indices(indices)
        if method_name == "render":
            if method_args or method_kwargs:
                raise TypeError("env_method('render') takes no arguments")
            frames = self.pool.render(env_ids=np.array(targets, dtype=np.int32))
            return [None] * len(targets) if frames is None else list(frames)
        if method_name == "get_wrapper_attr":
            return self.get_attr(*method_args, indices=targets, **method_kwargs)
        if method_name in _GOAL_METHODS and isinstance(self.pool.spec, GoalEnvSpec):
            result = getattr(self.pool.spec, method_name)(*method_args, **method_kwargs)
            return [result for _ in targets]
        raise AttributeError(
            f"env_method({method_name!r}): envfleet's envs are C++ objects; they offer "
            f"{list(_ENV_METHODS)}"
        )

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """False for every env: no Gymnasium wrapper sits around a pool's envs (wrap the
        VecEnv instead, e.g. with ``VecMonitor``)."""
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            warnings.warn(
                f"The render mode is {self.render_mode}, but this method assumes it is "
                "`rgb_array` to obtain images.",
                stacklevel=2,
            )
            return [None for _ in range(self.num_envs)]
        return list(self.pool.render(env_ids=self.pool.all_env_ids))

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        """``indices`` (None, an int or ints; negative ones count from the end) as a list of
        env indices, checked."""
        if indices is None:
            return list(range(self.num_envs))
        items = [indices] if isinstance(indices, numbers.Integral) else indices
        if not isinstance(items, Iterable):
            raise TypeError(f"indices must be None, an int or ints, got {indices!r}")
        out = []
        for index in items:
            if isinstance(index, bool | np.bool_) or not isinstance(index, numbers.Integral):
                raise TypeError(f"indices must be None, an int or ints, got {indices!r}")
            if not -self.num_envs <= index < self.num_envs:
                raise IndexError(f"indices: env {index} is out of range for {self.num_envs} envs")
            out.append(int(index) % self.num_envs)
        return out

    def __repr__(self) -> str:
        return f"EnvfleetVecEnv({self.pool!r})"


def _row(values: np.ndarray, i: int) -> Any:
    """Row ``i`` of an info array, as ``_env_infos`` gives it (a Python scalar, or a copy)."""
    return values[i].item() if values.ndim == 1 else np.array(values[i])


def _obs_row(obs: Any, i: int) -> Any:
    """Env ``i``'s observation out of a batch (an array, a dict or a tuple of arrays), copied
    so that it outlives the pool's output block."""
    if isinstance(obs, dict):
        return {key: np.array(value[i]) for key, value in obs.items()}
    if isinstance(obs, tuple):
        return tuple(np.array(value[i]) for value in obs)
    return np.array(obs[i])


def make_vec_env(task_id: str, num_envs: int = 1, seed: Any = None, **options: Any):
    """An :class:`EnvfleetVecEnv` of ``num_envs`` envs of ``task_id``.

    ``seed`` is ``make``'s (env ``i`` uses ``seed + i``, or one seed per env; envfleet's
    default 42 if None). ``options`` go to ``envfleet.make``: pool options (``num_threads``,
    ``max_episode_steps``, ``render_mode``, ...) and the env's own (``g=9.81``). The pool
    always uses ``autoreset_mode="same_step"``, as SB3's semantics need.
    """
    if "env_type" in options:
        raise ValueError("env_type: make_vec_env always makes a pool of the Gymnasium front end")
    mode = options.pop("autoreset_mode", AutoresetMode.SAME_STEP)
    if AutoresetMode.parse(mode) is not AutoresetMode.SAME_STEP:
        raise ValueError(
            f"autoreset_mode must be 'same_step' for SB3 (the step that ends an episode "
            f"returns the next one's first observation), got {mode!r}"
        )
    if seed is not None:
        options["seed"] = seed
    pool = envfleet.make(
        task_id, num_envs=num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **options
    )
    try:
        return EnvfleetVecEnv(pool)
    except Exception:
        pool.close()
        raise
