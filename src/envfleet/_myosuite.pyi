"""
envfleet's MyoSuite family: myosuite's musculoskeletal tasks on myo-sim's models.
"""

from collections.abc import Sequence


def env_types() -> dict:
    """
    Every env type this module can build: {type: {option: (kind, default)}}.
    """

def env_spec(type_name: str, options: dict) -> dict:
    """The spec of one env of this type and options."""

class Pool:
    def __init__(self, type_name: str, options: dict, num_envs: int, batch_size: int, num_threads: int, seeds: Sequence[int], thread_affinity_offset: int, autoreset_mode: int, max_episode_steps: int, per_env_options: Sequence[dict] = []) -> None:
        """
        Env i is built from `options` updated with per_env_options[i] (when given).
        """

    def keys(self) -> list:
        """Names of the arrays recv() returns, in order."""

    def send(self, action: object, env_id: object | None) -> None: ...

    def recv(self) -> object: ...

    def step(self, action: object, env_id: object | None) -> object: ...

    def reset(self, env_id: object | None) -> object: ...

    def reseed(self, env_id: object | None, seeds: Sequence[int]) -> None: ...

    def async_reset(self) -> None: ...

    def render(self, env_id: object | None, camera_id: int, width: int, height: int) -> object: ...

    def close(self) -> None: ...

    def episode_over(self, env_id: int) -> bool: ...

    @property
    def closed(self) -> bool: ...

    @property
    def pending(self) -> int: ...

    @property
    def num_blocks(self) -> int: ...

    def pool_api(self) -> object:
        """
        The pool's plain-C entry points (cpp/bind/pool_api.h) in a PyCapsule, for native
        callers such as envfleet._xla; valid while this pool lives.
        """

def raw_step_rate(type_name: str, options: dict, num_steps: int, max_episode_steps: int, seed: int = 0, num_envs: int = 1) -> tuple:
    """
    Steps one env (or num_envs, round-robin) in a plain single-threaded C++ loop (the
    physical limit of a pool thread): returns (steps, seconds, episodes).
    """
