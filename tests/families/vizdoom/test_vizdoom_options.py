"""ViZDoom specs and options against EnvPool 1.2.5 (envpool.make_spec reads the same cfgs and
starts no engine), option errors, and determinism across pool layouts."""

from __future__ import annotations

import numpy as np
import pytest

import envfleet
from envfleet.families.vizdoom import ENVPOOL_SCENARIOS, VIZDOOM_SCENARIOS, task_name

envpool = pytest.importorskip("envpool")

ALL_IDS = [f"{task_name(s)}-v1" for s in (*VIZDOOM_SCENARIOS, *ENVPOOL_SCENARIOS)]
INFO_KEYS = (
    "AMMO2 AMMO3 AMMO4 AMMO5 AMMO6 AMMO7 ARMOR DAMAGECOUNT DEATHCOUNT FRAGCOUNT HEALTH "
    "HITCOUNT KILLCOUNT SELECTED_WEAPON SELECTED_WEAPON_AMMO USER2"
).split()


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("task_id", ALL_IDS)
def test_spec_matches_envpool(task_id):
    ref = envpool.make_spec(task_id)
    ref_combined = envpool.make_spec(task_id, use_combined_action=True)
    env = envfleet.make_gymnasium(task_id, num_envs=1)
    try:
        assert env.single_observation_space.shape == ref.observation_space.shape
        assert env.single_observation_space.dtype == ref.observation_space.dtype == np.uint8
        assert env.single_action_space.shape == ref.action_space.shape
        _, info = env.reset()
        assert set(INFO_KEYS) <= set(info)
        # EnvPool's info keys are exactly these 16 game variables (plus env ids).
        assert {k[5:] for k in ref.state_array_spec if k.startswith("info:")} - {
            "env_id",
            "players.env_id",
        } == set(INFO_KEYS)
    finally:
        env.close()
    spec = (
        envfleet.make_spec(task_id, use_combined_action=True)
        if hasattr(envfleet, "make_spec")
        else None
    )
    if spec is None:
        env = envfleet.make_gymnasium(task_id, num_envs=1, use_combined_action=True)
        n = env.single_action_space.n
        env.close()
    else:
        n = spec.action_space.n
    assert n == ref_combined.action_space.n


@pytest.mark.parametrize(
    "options",
    [
        dict(reward_config={"KILLCOUNT": (2, 0)}),
        dict(selected_weapon_reward_config={3: 0.5}),
        dict(delta_button_config={"TURN_LEFT_RIGHT_DELTA": (3, -10, 10)}),
        dict(
            delta_button_config={
                "TURN_LEFT_RIGHT_DELTA": (3, -10, 10),
                "LOOK_UP_DOWN_DELTA": (2, -1, 1),
            }
        ),
        dict(force_speed=True),
    ],
)
def test_dict_options_match_envpool(options):
    """Deathmatch has delta buttons: the combined action count follows delta_button_config."""
    ref = envpool.make_spec("Deathmatch-v1", use_combined_action=True, **options)
    env = envfleet.make_gymnasium("Deathmatch-v1", num_envs=1, use_combined_action=True, **options)
    try:
        assert env.single_action_space.n == ref.action_space.n
        env.reset()
        env.step(np.array([ref.action_space.n - 1]))
    finally:
        env.close()


def test_image_options():
    env = envfleet.make_gymnasium(
        "DefendTheCenter-v1", num_envs=2, img_height=60, img_width=100, stack_num=2, frame_skip=2
    )
    try:
        assert env.single_observation_space.shape == (6, 60, 100)
        obs, _ = env.reset()
        assert obs.shape == (2, 6, 60, 100)
        # A reset fills the stack with the first frame.
        np.testing.assert_array_equal(obs[:, :3], obs[:, 3:])
        obs2, *_ = env.step(np.ones((2, 3)))
        # The stack shifts by one frame (3 channels).
        np.testing.assert_array_equal(obs2[:, :3], obs[:, 3:])
    finally:
        env.close()
    # frame_skip: the same actions with frame_skip 2 twice reach frame_skip 4's state.
    results = []
    for skip, steps in ((4, 3), (2, 6)):
        env = envfleet.make_gymnasium(
            "DefendTheCenter-v1", num_envs=1, seed=1, frame_skip=skip, stack_num=1
        )
        env.reset()
        for _ in range(steps):
            obs, *_ = env.step(np.array([[1.0, 0.0, 1.0]]))
        results.append(obs)
        env.close()
    np.testing.assert_array_equal(results[0], results[1])
    gray = envfleet.make_gymnasium(
        "D3Battle-v1", num_envs=1, stack_num=3, img_height=30, img_width=40
    )
    try:
        assert gray.single_observation_space.shape == (3, 30, 40)  # GRAY8: one channel
    finally:
        gray.close()


@pytest.mark.parametrize(
    "options, needle",
    [
        (dict(reward_config={"NOT_A_VARIABLE": (1, 0)}), "NOT_A_VARIABLE"),
        (dict(reward_config={"KILLCOUNT": (1, 0, 3)}), "KILLCOUNT"),
        (dict(delta_button_config={"BOGUS_BUTTON": (3, -1, 1)}), "BOGUS_BUTTON"),
        (dict(delta_button_config={"ATTACK": (3, -1, 1)}), "ATTACK"),
        (dict(selected_weapon_reward_config={"x": 0.5}), "x"),
        (dict(img_height=241), "larger"),
        (dict(img_width=321), "larger"),
        (dict(stack_num=0), "stack_num"),
        (dict(frame_skip=0), "frame_skip"),
        (dict(wad_path="/nonexistent/missing.wad"), "missing.wad"),
        (dict(cfg_path="/nonexistent/missing.cfg"), "missing.cfg"),
    ],
)
def test_bad_options_raise(options, needle):
    with pytest.raises((ValueError, TypeError)) as err:
        envfleet.make_gymnasium("Basic-v1", num_envs=1, **options)
    assert needle in str(err.value)


def test_custom_without_cfg_path_runs_vizdooms_defaults():
    """VizdoomCustom-v1 is made for a cfg_path of the user's; without one it runs ViZDoom's
    own defaults (the IWAD's map01, no buttons), where EnvPool 1.2.5 raises (its path
    './scenarios/.cfg' does not exist): every registered id makes with its defaults."""
    env = envfleet.make_gymnasium("VizdoomCustom-v1", num_envs=1)
    try:
        assert env.single_action_space.shape == (0,)
        assert env.single_observation_space.shape == (12, 84, 84)
        env.reset()
        obs, *_ = env.step(np.zeros((1, 0)))
        assert obs.shape == (1, 12, 84, 84)
    finally:
        env.close()
    with_cfg = envfleet.make_spec(
        "VizdoomCustom-v1",
        **{
            k: v
            for k, v in envfleet.registry.registration("Basic-v1").options.items()
            if k in ("cfg_path", "wad_path")
        },
    )
    assert with_cfg.action_space == envfleet.make_spec("Basic-v1").action_space


def test_custom_with_cfg_path_runs_the_scenario():
    opts = envfleet.registry.registration("DefendTheCenter-v1").options
    env = envfleet.make_gymnasium(
        "VizdoomCustom-v1", num_envs=1, cfg_path=opts["cfg_path"], wad_path=opts["wad_path"]
    )
    try:
        assert env.single_action_space.shape == (3,)
        env.reset()
        env.step(np.ones((1, 3)))
    finally:
        env.close()


def trajectory(num_envs, steps=40, **pool):
    env = envfleet.make_gymnasium(
        "DefendTheCenter-v1", num_envs=num_envs, seed=21, stack_num=1, **pool
    )
    batch = pool.get("batch_size", num_envs)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, size=(steps, num_envs, 3)).astype(np.float64)
    per_env = {i: [] for i in range(num_envs)}
    try:
        if batch == num_envs:
            obs, info = env.reset()
            for i in range(num_envs):
                per_env[i].append((obs[i].copy(), 0.0, info["HEALTH"][i]))
            for t in range(steps):
                obs, rew, term, trunc, info = env.step(actions[t])
                for i in range(num_envs):
                    per_env[i].append((obs[i].copy(), float(rew[i]), info["HEALTH"][i]))
        else:
            env.async_reset()
            count = {i: 0 for i in range(num_envs)}
            while min(count.values()) <= steps:
                obs, rew, term, trunc, info = env.recv()
                ids = info["env_id"]
                act = []
                for j, i in enumerate(ids):
                    i = int(i)
                    if count[i] <= steps:
                        per_env[i].append((obs[j].copy(), float(rew[j]), info["HEALTH"][j]))
                    act.append(actions[min(count[i], steps - 1), i])
                    count[i] += 1
                env.send(np.asarray(act), ids)
    finally:
        env.close()
    return {i: v[: steps + 1] for i, v in per_env.items()}


def test_same_seed_same_trajectories_across_pool_layouts():
    base = trajectory(4, num_threads=1)
    for pool in (dict(num_threads=2), dict(num_threads=2, batch_size=2)):
        other = trajectory(4, **pool)
        for i in range(4):
            assert len(other[i]) == len(base[i])
            for t, (a, b) in enumerate(zip(base[i], other[i], strict=True)):
                np.testing.assert_array_equal(a[0], b[0], err_msg=f"{pool} env {i} step {t}")
                assert a[1:] == b[1:], (pool, i, t)


def test_a_build_without_the_module_names_the_fix():
    """Where the build found no Boost, the module is missing: the error names the extra and
    the build requirement."""
    import dataclasses

    family = envfleet.registry.registration("Basic-v1").family
    missing = dataclasses.replace(family, module="envfleet._vizdoom_not_built")
    with pytest.raises(envfleet.EngineNotInstalledError) as err:
        missing.engine()
    assert "envfleet[vizdoom]" in str(err.value) and "libboost-dev" in str(err.value)
