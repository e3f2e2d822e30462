"""The Meta-World family's spec, options and frames (issue #39): EnvPool's ids and spec, the
reference's observation space, fixed task instances (``rand_vec``, as MT1/ML1's ``set_task``
fixes them) and bad options, and frames equal to the reference's MujocoRenderer."""

from __future__ import annotations

import envpool
import numpy as np
import pytest
from envpool.registration import registry as envpool_registry
from metaworld_reference import import_metaworld, make_reference, run_aligned
from sampling import first_of_each

import envfleet
from envfleet.families import metaworld as family

INFO_KEYS = (
    "success", "near_object", "grasp_success", "grasp_reward", "in_place_reward",
    "obj_to_target", "unscaled_reward", "task_id",
)  # fmt: skip


def test_ids_are_envpools_with_its_task_names_and_order():
    theirs = [t for t in envpool.list_all_envs()
              if envpool_registry.specs[t][0] == "envpool.mujoco.metaworld"]  # fmt: skip
    assert sorted(theirs) == sorted(family.task_id(name) for name in family.TASK_NAMES)
    for index, name in enumerate(family.TASK_NAMES):
        tid = family.task_id(name)
        assert envpool_registry.specs[tid][2]["task_name"] == name
        assert envfleet.make_spec(tid).config.env_options["task_index"] == index


@pytest.mark.parametrize("task_name", family.TASK_NAMES)
def test_spec_is_envpools_with_the_references_bounds(task_name):
    """EnvPool's shapes, dtypes, time limit and info keys; the observation's bounds are the
    reference's (EnvPool leaves them infinite), hidden goal or shown: its
    sawyer_observation_space, which its steps clip to. (Its observation_space attribute is
    left as construction made it, with the goal hidden, when a task shows the goal.)"""
    tid = family.task_id(task_name)
    theirs = envpool.make_spec(tid)
    for partially_observable in (True, False):
        spec = envfleet.make_spec(tid, partially_observable=partially_observable)
        space, action = spec.observation_space, spec.action_space
        assert space.shape == theirs.observation_space.shape == (39,)
        assert space.dtype == theirs.observation_space.dtype == np.float64
        assert action == theirs.action_space
        assert spec.config.max_episode_steps == theirs.config.max_episode_steps == 500
        assert [key.name for key in spec.info_keys][: len(INFO_KEYS)] == list(INFO_KEYS)
        ref = make_reference(task_name, 0, partially_observable)
        try:
            np.testing.assert_array_equal(space.low, ref.sawyer_observation_space.low)
            np.testing.assert_array_equal(space.high, ref.sawyer_observation_space.high)
            assert action == ref.action_space
        finally:
            ref.close()


@pytest.mark.parametrize("task_name", family.TASK_NAMES)
def test_a_fixed_task_instance_equals_set_task(task_name):
    """rand_vec = a task instance's positions (for pick-place, an MT1 task's, through
    task_rand_vecs; for the others, positions the reference drew, as MT1 draws its 50):
    every episode starts where the reference's does with them fixed, as set_task fixes them,
    and runs equal (random actions, goal shown as MT1 shows it)."""
    if task_name == "pick-place-v3":
        tasks = import_metaworld().MT1(task_name, seed=7).train_tasks
        rand_vec = family.task_rand_vecs(tasks[3:4])[0]
    else:
        drawn = make_reference(task_name, 7)
        drawn.reset()
        rand_vec = [float(x) for x in drawn._last_rand_vec]
        drawn.close()
    run = run_aligned(task_name, seed=2, steps=60, partially_observable=False,
                      rand_vec=rand_vec, actions="random", resets=2)  # fmt: skip
    assert run.mismatch is None, run.mismatch


def test_task_index_is_reported_as_envpools_task_id():
    env = envfleet.make("MetaWorld/PickPlace-v3", num_envs=2, seed=1)
    try:
        _, info = env.reset()
        _, _, _, _, info = env.step(np.zeros((2, 4), np.float32))
        assert info["task_id"].tolist() == [family.TASK_NAMES.index("pick-place-v3")] * 2
        assert info["task_id"].dtype == np.int32
    finally:
        env.close()


@pytest.mark.parametrize(
    "options, match",
    [
        ({"rand_vec": [0.1, 0.2]}, r"rand_vec: reach-v3 takes 6 values"),
        ({"rand_vec": [0, 0.6, 0.02, 0, 0.8, float("nan")]}, r"rand_vec: values must be finite"),
        ({"frame_skip": 0}, r"frame_skip must be >= 1"),
        ({"assets_dir": "/nonexistent/metaworld"}, r"pip install --no-deps metaworld==3.1.1"),
    ],
)
def test_bad_options_raise_naming_them(options, match):
    with pytest.raises(ValueError, match=match):
        envfleet.make("MetaWorld/Reach-v3", **options)


def test_a_rand_vec_the_task_would_redraw_forever_raises_at_reset():
    """reach redraws its object and goal until they are 0.15 apart: a fixed rand_vec that
    never is would hang the reference; here the reset raises, naming the option."""
    env = envfleet.make("MetaWorld/Reach-v3", rand_vec=[0, 0.6, 0.02, 0, 0.6, 0.1])
    try:
        with pytest.raises(Exception, match="rand_vec"):
            env.reset()
    finally:
        env.close()


def test_positions_are_drawn_at_every_reset_from_the_seed():
    """Without rand_vec each episode draws new positions (EnvPool's behaviour), the same for
    the same seed whatever the pool's shape."""
    goals = []
    for num_threads in (1, 2):
        env = envfleet.make("MetaWorld/Reach-v3", num_envs=2, seed=4, num_threads=num_threads,
                            partially_observable=False)  # fmt: skip
        try:
            episodes = [env.reset()[0][:, -3:].copy() for _ in range(3)]
        finally:
            env.close()
        assert not np.array_equal(episodes[0], episodes[1])
        goals.append(np.stack(episodes))
    np.testing.assert_array_equal(goals[0], goals[1])


@pytest.mark.parametrize("task_name", ["pick-place-v3", "door-open-v3", "assembly-v3"])
@pytest.mark.parametrize("camera", [None, "corner", "corner2", "topview", "gripperPOV"])
def test_frames_equal_the_references(task_name, camera):
    """render() after a reset and some steps: the reference's MujocoRenderer frame (the free
    camera by default, or one of the model's cameras, the corner views of Meta-World's
    videos), pixel for pixel, on the goal marker's moved site too."""
    import mujoco

    kwargs = {"render_mode": "rgb_array", "width": 160, "height": 120}
    if camera is not None:
        kwargs["camera_name"] = camera
    ref = make_reference(task_name, 9, **kwargs)
    ours = envfleet.make(family.task_id(task_name), num_envs=1, seed=9, render_mode="rgb_array",
                         render_width=160, render_height=120)  # fmt: skip
    try:
        ref.reset()
        ours.reset()
        camera_id = -1 if camera is None else mujoco.mj_name2id(
            ref.model, mujoco.mjtObj.mjOBJ_CAMERA, camera)  # fmt: skip
        rng = np.random.default_rng(0)
        for step in range(3):
            if step:
                action = rng.uniform(-1, 1, 4).astype(np.float32)
                ref.step(action)
                ours.step(action[None])
            theirs = ref.render()
            frame = np.asarray(ours.render(camera_id=camera_id))[0]
            np.testing.assert_array_equal(frame, theirs, err_msg=f"step {step}")
    finally:
        ref.close()
        ours.close()


def test_from_pixels_observes_the_rendered_frames():
    env = envfleet.make("MetaWorld/Reach-v3", num_envs=2, seed=3, from_pixels=True)
    try:
        obs, _ = env.reset()
        assert obs.shape == (2, 3, 84, 84) and obs.dtype == np.uint8
        assert obs.std() > 0
        obs, *_ = env.step(np.zeros((2, 4), np.float32))
        assert obs.shape == (2, 3, 84, 84)
    finally:
        env.close()


def test_envs_share_the_models_meshes_and_textures():
    """Each env's model is the shared one but for the two arrays tasks edit (body_pos,
    site_pos): 48 envs cost their data, not 48 copies of a 19 MB model (about 0.9 GB)."""
    from conftest import assert_isolated_ok

    out = assert_isolated_ok("""
        import envfleet
        def rss():
            return int(open("/proc/self/statm").read().split()[1]) * 4096
        envfleet.make("MetaWorld/PickPlace-v3", num_envs=1).close()  # the module, loaded
        before = rss()
        env = envfleet.make("MetaWorld/PickPlace-v3", num_envs=48)
        env.reset()
        print((rss() - before) / 2**20)
    """, timeout=120)  # fmt: skip
    assert float(out.strip().splitlines()[-1]) < 200, out


# Every fifth task by default (sampling.py): test_frames_equal_the_references draws more states.
@pytest.mark.parametrize(
    "task_name", first_of_each(family.TASK_NAMES, group=lambda n: family.TASK_NAMES.index(n) // 5)
)
def test_every_tasks_first_frame_equals_the_references(task_name):
    """Every task's scene (its objects, their materials and the goal marker where the reset
    put it), drawn from the corner camera after the first reset. Within one 8-bit step on at
    most two values: push-v3's and push-back-v3's frames at this seed differ from the
    reference's in one value by 1 (a goal-marker pixel; not explained yet: the observations
    are equal bit for bit, and the 15 frames of test_frames_equal_the_references are equal);
    every other task's frame is equal."""
    import mujoco

    kwargs = {"render_mode": "rgb_array", "width": 96, "height": 72, "camera_name": "corner"}
    ref = make_reference(task_name, 21, **kwargs)
    ours = envfleet.make(family.task_id(task_name), num_envs=1, seed=21, render_mode="rgb_array",
                         render_width=96, render_height=72)  # fmt: skip
    try:
        ref.reset()
        ours.reset()
        camera_id = mujoco.mj_name2id(ref.model, mujoco.mjtObj.mjOBJ_CAMERA, "corner")
        frame = np.asarray(ours.render(camera_id=camera_id))[0].astype(int)
        theirs = ref.render().astype(int)
        differ = np.abs(frame - theirs)
        assert differ.max() <= 1 and np.count_nonzero(differ) <= 2, np.argwhere(differ)
        if task_name not in ("push-v3", "push-back-v3"):
            np.testing.assert_array_equal(frame, theirs)
    finally:
        ref.close()
        ours.close()
