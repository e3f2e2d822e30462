"""What code written for EnvPool sets and imports (issue #30, items 1 and 2).

EnvPool's Python classes are plain objects: its users assign attributes of specs and pools
(EnvPool's own Stable-Baselines3 example sets ``env.spec.id = env_id`` before wrapping), and
libraries import its module paths (``envpool.python.protocol.EnvPool``,
``envpool.python.envpool.EnvPoolMixin``, ``envpool.registration.registry``). These tests pin
that envfleet takes the same assignments and has the same paths, as EnvPool 1.2.5 does.
"""

from __future__ import annotations

import textwrap

import gymnasium
import numpy as np
import pytest
from conftest import assert_isolated_ok

import envfleet


def test_spec_attributes_can_be_assigned_as_on_envpools_specs():
    env = envfleet.make("Pendulum-v1", env_type="gymnasium", num_envs=2, seed=0)
    try:
        spec = env.spec
        spec.id = "MyPendulum"  # EnvPool's SB3 example
        spec.task_id = "MyPendulum"
        spec.max_episode_steps = 50
        spec.note = "any attribute, as on EnvPool's spec objects"
        assert (spec.id, spec.task_id, spec.max_episode_steps) == ("MyPendulum", "MyPendulum", 50)
        assert spec.note.startswith("any")
        # What the pool runs on is its config, which no assignment changes.
        assert spec.config.task_id == "Pendulum-v1" and env.config["max_episode_steps"] == 200
        env.reset()
        for _ in range(60):
            *_, truncated, _ = env.step(np.zeros((2, 1), np.float32))
            assert not truncated.any()
        # As on EnvPool's, what is a computed property there refuses assignment here too.
        for name in ("config", "reward_threshold", "state_array_spec", "action_array_spec"):
            with pytest.raises(AttributeError):
                setattr(spec, name, None)
    finally:
        env.close()


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_a_pools_spec_and_own_attributes_can_be_assigned_as_on_envpools_pools(env_type):
    env = envfleet.make("CartPole-v1", env_type=env_type, num_envs=2)
    try:
        made_with = env.spec
        other = envfleet.make_spec("CartPole-v0")
        env.spec = other  # a plain attribute in EnvPool: read back as assigned
        assert env.spec is other
        env.my_counter = 3
        assert env.my_counter == 3
        # The pool keeps running on the spec it was made from.
        assert env.config is made_with.config and env.config["task_id"] == "CartPole-v1"
        env.reset()
        env.step(np.zeros(2, np.int64))
        for name in ("config", "all_env_ids", "is_async", "batch_size"):
            with pytest.raises(AttributeError):  # properties in EnvPool as well
                setattr(env, name, None)
    finally:
        env.close()


def test_make_vec_pools_carry_gymnasiums_spec_of_the_call():
    """gymnasium.make_vec assigns its EnvSpec to the env it made, as on Gymnasium's own vector
    envs; the pool's own config stays ``env.config``."""
    env = gymnasium.make_vec("envfleet/CartPole-v1", num_envs=2)
    try:
        assert isinstance(env.spec, gymnasium.envs.registration.EnvSpec)
        assert env.spec.id == "envfleet/CartPole-v1" and env.spec.max_episode_steps == 500
        assert env.config["conventions"] == "gymnasium" and env.config["num_envs"] == 2
        again = gymnasium.make_vec(env.spec)  # the spec remakes the pool, as Gymnasium's does
        assert isinstance(again, envfleet.GymnasiumVectorEnvPool) and again.num_envs == 2
        again.close()
    finally:
        env.close()


class _EnvPoolStyleVecAdapter:
    """The calls EnvPool's Stable-Baselines3 example makes on a pool (its ``VecAdapter``),
    restated: the spec's ``config.num_envs`` and one env's spaces, a step of every env, and a
    reset of each finished env on its own, written into the step's observation array."""

    def __init__(self, pool):
        self.pool = pool
        self.num_envs = pool.spec.config.num_envs
        self.observation_space = pool.observation_space
        self.action_space = pool.action_space

    def reset(self):
        obs, _ = self.pool.reset()
        return obs

    def step(self, actions):
        obs, rewards, terminated, truncated, info = self.pool.step(actions)
        dones = terminated | truncated
        for i in np.flatnonzero(dones):
            reset_obs, _ = self.pool.reset(np.array([i]))
            obs[i] = reset_obs[0]
        return obs, rewards, dones, info


def test_envpools_sb3_example_flow_runs():
    """EnvPool's SB3 example, as its pool sees it: make with env_type="gymnasium", assign
    ``spec.id``, read ``spec.config.num_envs`` and the spaces, step, reset finished envs one by
    one into the returned observations. The same calls on EnvPool 1.2.5 give the same data."""
    import envpool

    pools = {}
    for name, lib in (("envfleet", envfleet), ("envpool", envpool)):
        pool = lib.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=0)
        pool.spec.id = "CartPole-v1"
        pools[name] = _EnvPoolStyleVecAdapter(pool)
    ours, theirs = pools["envfleet"], pools["envpool"]
    assert ours.num_envs == theirs.num_envs == 4
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    assert ours.reset().shape == theirs.reset().shape == (4, 4)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(100):
        actions = rng.integers(0, 2, 4)
        obs, rewards, dones, _ = ours.step(actions)
        assert obs.shape == (4, 4) and rewards.dtype == np.float32
        theirs.step(actions)  # EnvPool's seeds differ from ours: the shapes, not the values
        ended += int(dones.sum())
    assert ended > 0
    for adapter in pools.values():
        adapter.pool.close()


# ---- EnvPool's module paths -------------------------------------------------------------------


def test_envpools_paths_name_envfleets_classes():
    from envfleet.python import dm_envpool, env_spec, envpool, gymnasium_envpool, lax, protocol
    from envfleet.registration import registry

    assert protocol.EnvPool is envfleet.EnvPool is envpool.EnvPoolMixin is lax.XlaMixin
    assert protocol.EnvSpec is envfleet.EnvSpec is env_spec.EnvSpecMixin
    assert protocol.DMEnvPool is envfleet.DMEnvPool is dm_envpool.DMEnvPoolMixin
    assert protocol.GymnasiumEnvPool is gymnasium_envpool.GymnasiumEnvPoolMixin
    assert protocol.ArraySpec is type(envfleet.make_spec("CartPole-v1").state_array_spec["obs"])
    for make, cls in (
        (envfleet.make_gymnasium, protocol.GymnasiumEnvPool),
        (envfleet.make_gym, protocol.GymnasiumEnvPool),
        (envfleet.make_dm, protocol.DMEnvPool),
    ):
        pool = make("CartPole-v1", num_envs=2)
        assert isinstance(pool, cls) and isinstance(pool, protocol.EnvPool)
        assert isinstance(pool.spec, protocol.EnvSpec)
        pool.close()
    assert registry.list_all_envs() == envfleet.list_all_envs()
    # EnvPool's import path of the family, as code written for EnvPool groups ids by it.
    import envpool

    theirs = envpool.registration.registry.specs
    for task_id in (
        "Pong-v5",
        "Ant-v4",
        "WalkerWalk-v1",
        "CartPole-v1",
        "Taxi-v3",
        "LunarLander-v3",
    ):
        assert registry.specs[task_id][0] == theirs[task_id][0], task_id
    assert (
        registry.specs["Pong-v5"][1] == "Atari" and registry.specs["Pong-v5"][2]["game"] == "pong"
    )
    assert registry.specs["Counting-v0"][0] == "envfleet._core"  # a family EnvPool lacks
    pool = registry.make_gym("CartPole-v1", num_envs=2)
    assert pool.config["num_envs"] == 2
    pool.close()
    assert registry.make_spec("CartPole-v1").config.task_id == "CartPole-v1"


ENVPOOL_IMPORTS = """
    import envpool
    import envpool.python.protocol
    from envpool.python.protocol import DMEnvPool, EnvPool, EnvSpec, GymnasiumEnvPool
    from envpool.python.envpool import EnvPoolMixin
    from envpool.python.env_spec import EnvSpecMixin
    from envpool.python.dm_envpool import DMEnvPoolMixin
    from envpool.python.gymnasium_envpool import GymnasiumEnvPoolMixin
    from envpool.python.lax import XlaMixin
    from envpool.registration import (
        list_all_envs, make, make_dm, make_gym, make_gymnasium, make_spec, register, registry,
    )
    from envpool.minigrid import decode_mission
    import numpy as np
    import envfleet
    pool = envpool.make("CartPole-v1", env_type="gym", num_envs=2)
    assert isinstance(pool, envpool.python.envpool.EnvPoolMixin)  # TorchRL's check
    assert isinstance(pool, EnvPool) and isinstance(pool, GymnasiumEnvPool)
    assert EnvPool is envfleet.EnvPool and registry.make is envfleet.make
    assert isinstance(make_spec("CartPole-v1"), EnvSpec)
    pool.close()
    assert decode_mission(np.frombuffer(b"go\\0\\0", np.uint8)) == "go"
    print(envpool.__name__)
"""


def assert_isolated_ok_joined(*parts: str) -> str:
    return assert_isolated_ok("\n".join(textwrap.dedent(part) for part in parts))


def test_alias_as_envpool_gives_envpools_paths_to_libraries_that_import_envpool():
    out = assert_isolated_ok_joined(
        """
        import sys
        import envfleet
        envfleet.alias_as_envpool()
        envfleet.alias_as_envpool()  # a second call does nothing
        assert sys.modules["envpool.python.protocol"] is envfleet.python.protocol
        """,
        ENVPOOL_IMPORTS,
    )
    assert out.strip() == "envfleet"


def test_a_plain_sys_modules_swap_finds_envpools_paths_too():
    out = assert_isolated_ok_joined(
        """
        import sys
        import envfleet
        sys.modules["envpool"] = envfleet
        """,
        ENVPOOL_IMPORTS,
    )
    assert out.strip() == "envfleet"


def test_alias_as_envpool_refuses_once_envpool_itself_is_imported():
    out = assert_isolated_ok(
        """
        import envpool
        import envfleet
        try:
            envfleet.alias_as_envpool()
        except RuntimeError as err:
            print(err)
        """
    )
    assert "EnvPool itself is already imported" in out


def test_torchrls_wrapper_passes_its_envpool_check_with_the_alias():
    """TorchRL 0.14.1's own MultiThreadedEnvWrapper, with envpool aliased: its isinstance check
    against ``envpool.python.envpool.EnvPoolMixin`` passes. Building its specs then fails as it
    does on EnvPool 1.2.5 itself (its ``gym`` backend has no converter for Gymnasium's spaces,
    which EnvPool 1.x and envfleet declare); envfleet.integrations.torchrl is the working path
    (tests/integrations/test_torchrl.py)."""
    out = assert_isolated_ok(
        """
        import envfleet
        envfleet.alias_as_envpool()
        import envpool
        from torchrl.envs.libs.envpool import MultiThreadedEnvWrapper
        pool = envpool.make("CartPole-v1", env_type="gym", num_envs=2)
        MultiThreadedEnvWrapper._check_kwargs(None, {"env": pool})  # raises if not EnvPool's
        try:
            MultiThreadedEnvWrapper(pool)
        except KeyError as err:
            print("KeyError", "No conversion tool" in str(err))
        pool.close()
        """,
        timeout=120,
    )
    assert out.strip() == "KeyError True"


def test_importing_envfleet_makes_envpools_attribute_chains_resolve():
    """TorchRL reads ``envpool.python.envpool.EnvPoolMixin`` after a bare ``import envpool``:
    the package must load those paths itself, as EnvPool's does."""
    out = assert_isolated_ok(
        """
        import envfleet as envpool
        print(envpool.python.envpool.EnvPoolMixin.__name__, type(envpool.registration.registry))
        """
    )
    assert out.split() == ["PoolBase", "<class", "'envfleet.registration.EnvRegistry'>"]


@pytest.mark.parametrize("task_id", ["MiniGrid-GoToDoor-8x8-v0", "BabyAI-GoToLocal-v0"])
def test_decode_mission_reads_missions_as_envpools_does(task_id):
    """``envpool.minigrid.decode_mission`` (envfleet: ``envfleet.families.minigrid``): a row
    gives its text, a batch an object array of texts; EnvPool's function reads envfleet's
    observations the same way."""
    import envpool.minigrid

    from envfleet.families.minigrid import decode_mission

    env = envfleet.make(task_id, num_envs=3, seed=5)
    try:
        obs, _ = env.reset()
        texts = decode_mission(obs["mission"])
        assert texts.dtype == object and texts.shape == (3,)
        assert all(isinstance(text, str) and text.startswith("go to ") for text in texts)
        theirs = envpool.minigrid.decode_mission(obs["mission"])
        assert texts.tolist() == theirs.tolist()
        assert decode_mission(obs["mission"][1]) == texts[1]
        assert decode_mission(obs["mission"][None]).shape == (1, 3)
        assert envfleet.minigrid.decode_mission is decode_mission
    finally:
        env.close()
