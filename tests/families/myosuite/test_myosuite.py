"""The MyoSuite family against its reference, myosuite 3.0.0 (tests/families/myosuite/
myosuite_reference.py): every id in lockstep with ``gymnasium.make(id)`` over whole episodes,
bit for bit (the observation as the reference returns it, cast to float32; rewards, episode
ends and the info's reward terms exactly); the targets of the Random ids over many seeds; the
episode ends a task's ``done`` makes; the options' checks; frames."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from myosuite_reference import make_reference, model_arrays, run_aligned

import envfleet
from envfleet.families import myosuite as family

RANDOM_IDS = [tid for tid in family.TASK_IDS if "Random" in tid]


@pytest.mark.parametrize("task_id", family.TASK_IDS)
def test_every_id_steps_as_the_reference(task_id):
    """Two and a half time limits of uniform actions in [-1, 1], the reference reset after
    each episode as the pool autoresets: two episodes or more (myoHandReachFixed's far_th ends
    most of its episodes at the first check)."""
    limit = envfleet.registry.registration(task_id).max_episode_steps
    run = run_aligned(task_id, seed=3, steps=limit * 5 // 2)
    assert run.mismatch is None, run.mismatch
    assert run.episodes >= 2


@pytest.mark.parametrize("task_id", [tid for tid in family.TASK_IDS if "Sarc" not in tid])
def test_actions_beyond_the_box_are_clipped_as_the_reference_clips_them(task_id):
    run = run_aligned(task_id, seed=11, steps=60, action_scale=3.0)
    assert run.mismatch is None, run.mismatch


@pytest.mark.parametrize("task_id", RANDOM_IDS)
def test_random_targets_and_start_poses_over_seeds(task_id):
    """The reset observation (its targets, and the elbow's random start pose) for 24 seeds:
    equal to the reference's, and not all the same."""
    ref = make_reference(task_id)
    ours = envfleet.make(task_id, num_envs=24, seed=0)
    try:
        obs, _ = ours.reset()
        for seed in range(24):
            theirs, _ = ref.reset(seed=seed)
            np.testing.assert_array_equal(obs[seed].astype(np.float32), theirs, f"seed {seed}")
        assert len({row.tobytes() for row in obs}) == 24
    finally:
        ref.close()
        ours.close()


def test_a_reach_task_ends_its_episode_when_the_tip_is_far():
    """far_th (the reference's option) small enough that the tip is "far" once the penalty is
    active (after two control steps): the episode terminates there, on both sides, with the
    penalty in the reward."""
    ref = make_reference("myoFingerReachFixed-v0", far_th=0.01)
    ours = envfleet.make("myoFingerReachFixed-v0", num_envs=1, seed=5, far_th=0.01,
                         conventions="gymnasium")  # fmt: skip
    try:
        ref.reset(seed=5)
        ours.reset()
        action = np.zeros(5, np.float32)
        for step in range(1, 10):
            theirs = ref.step(action)
            mine = ours.step(action[None])
            assert (bool(mine[2][0]), float(mine[1][0])) == (theirs[2], theirs[1]), step
            if theirs[2]:
                break
        # the time exceeds two control steps (0.04 s) after the second step's 20 substeps
        assert step == 2 and mine[4]["penalty"][0] == -1.0 and not mine[3][0]
    finally:
        ref.close()
        ours.close()


def test_reward_weights_are_options():
    """weighted_reward_keys / reward_weights (the reference's weighted_reward_keys, in its
    order): the dense reward is the weighted sum of the info's terms."""
    env = envfleet.make("myoFingerPoseRandom-v0", num_envs=4, seed=1, conventions="gymnasium",
                        weighted_reward_keys=["pose", "act_reg"],
                        reward_weights=[2.0, -3.0])  # fmt: skip
    try:
        env.reset()
        _, reward, _, _, info = env.step(np.full((4, 5), 0.3, np.float32))
        np.testing.assert_array_equal(reward, 2.0 * info["pose"] + -3.0 * info["act_reg"])
    finally:
        env.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"muscle_condition": "tired"}, "muscle_condition must be"),
        ({"weighted_reward_keys": ["pose"], "reward_weights": []}, "same length"),
        ({"weighted_reward_keys": ["speed"], "reward_weights": [1.0]}, "no reward term 'speed'"),
        ({"target_jnt_low": [0.0]}, "target_jnt_names, target_jnt_low"),
        ({"target_jnt_names": ["IFadb", "IFmcp", "IFpip", "nope"]}, "no joint named 'nope'"),
        ({"reset_type": "sideways"}, "reset_type must be"),
        ({"viz_site_targets": ["nowhere"]}, "no site named 'nowhere'"),
        ({"frame_skip": 0}, "frame_skip must be"),
        ({"xml_file": "legacy/finger/missing.xml"}, "missing.xml"),
        ({"world_sites": {"s": [1.0, 2.0]}}, "world_sites must map"),
        ({"gear_scale": 0.0}, "gear_scale must be"),
        ({"target_type": "drawn"}, "target_type must be"),
        ({"target_type": "fixed"}, "target_type 'fixed' takes one target"),
    ],
)
def test_bad_options_raise_naming_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        envfleet.make("myoFingerPoseRandom-v0", num_envs=1, **options)


def test_reach_options_are_checked():
    with pytest.raises(ValueError, match="target_sampling must be"):
        envfleet.make("myoFingerReachRandom-v0", num_envs=1, target_sampling="sphere")
    with pytest.raises(ValueError, match="no joint configuration reaches"):
        envfleet.make("myoFingerReachRandom-v0", num_envs=1, target_low=[5.0, 5.0, 5.0],
                      target_high=[6.0, 6.0, 6.0])  # fmt: skip


def test_the_hand_object_torso_and_leg_tasks_options_are_checked():
    with pytest.raises(ValueError, match="key_init_range must be"):
        envfleet.make("myoHandKeyTurnRandom-v0", num_envs=1, key_init_range=[1.0, -1.0])
    with pytest.raises(ValueError, match="key_init_range must be"):
        envfleet.make("myoHandKeyTurnFixed-v0", num_envs=1, key_init_range=[0.0])
    with pytest.raises(ValueError, match="target_orientation must be"):
        envfleet.make("myoHandPenTwirlFixed-v0", num_envs=1, target_orientation="sideways")
    # Each task needs its own model: the hand of the pose tasks has no key, the key's no pen.
    with pytest.raises(ValueError, match="no site named 'keyhead'"):
        envfleet.make("myoHandKeyTurnFixed-v0", num_envs=1, xml_file="hand_pose.mjb")
    with pytest.raises(ValueError, match="KeyTurn needs a model"):
        envfleet.make("myoHandKeyTurnFixed-v0", num_envs=1, xml_file="hand_pen.mjb")
    with pytest.raises(ValueError, match="PenTwirl needs a model"):
        envfleet.make("myoHandPenTwirlFixed-v0", num_envs=1, xml_file="hand_keyturn.mjb")
    with pytest.raises(ValueError, match="ObjHold needs a model"):
        envfleet.make("myoHandObjHoldFixed-v0", num_envs=1, xml_file="hand_pen.mjb")
    with pytest.raises(ValueError, match="joint 'lat_bending' must be the model's"):
        rotated = family.TORSO_JOINTS[1:] + family.TORSO_JOINTS[:1]
        envfleet.make("myoTorsoPoseFixed-v0", num_envs=1, target_jnt_names=rotated)
    with pytest.raises(ValueError, match="reset_type 'random' needs"):
        envfleet.make("myoTorsoExoPoseFixed-v0", num_envs=1, reset_type="random")
    with pytest.raises(ValueError, match="joint_random_range must be"):
        envfleet.make("myoLegStandRandom-v0", num_envs=1, joint_random_range=[0.2, -0.2])
    with pytest.raises(ValueError, match="no site named 'knee'"):
        envfleet.make("myoLegStandRandom-v0", num_envs=1, target_sites=["knee"],
                      target_low=[0.0] * 3, target_high=[0.0] * 3)  # fmt: skip


def test_reafferentation_needs_the_muscles_it_reroutes():
    with pytest.raises(ValueError, match="no actuator named 'EPL'"):
        envfleet.make("myoFingerPoseRandom-v0", num_envs=1, muscle_condition="reafferentation")
    # The hand's actuators are EPL_r and EIP_r (its actuator_suffix).
    with pytest.raises(ValueError, match="no actuator named 'EPL'"):
        envfleet.make("myoReafHandPoseRandom-v0", num_envs=1, actuator_suffix="")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"weight_range": [0.1]}, "weight_range must be"),
        ({"weight_range": [2.0, 0.1]}, "weight_range must be"),
        ({"weight_range": [0.0, 1.0]}, "weight_range must be"),
        ({"weight_bodyname": "anvil"}, "weight_bodyname: the model has no body named 'anvil'"),
    ],
)
def test_bad_weight_options_raise_naming_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        envfleet.make("myoElbowPose1D6MExoRandom-v0", num_envs=1, **options)


def mjb(model) -> bytes:
    import mujoco

    buffer = np.empty(mujoco.mj_sizeModel(model), np.uint8)
    mujoco.mj_saveModel(model, None, buffer)
    return buffer.tobytes()


def test_the_carried_weight_refreshes_the_model_as_the_reference_does(tmp_path):
    """The model after each of three resets, array for array and in its statistics, against
    the reference's: the weight's mass and size, the inertia and bounding volumes its refresh
    recompiles, mj_setConst's constants. The episodes cannot show these (the elbow file bounds
    the weight's inertia, and mj_setConst's constants are not read after make: with the
    reference's refresh switched off its trajectories are the same), so this compares the
    models themselves, through the module's test hook."""
    import mujoco

    from envfleet import _myosuite

    ref = make_reference("myoElbowPose1D6MExoRandom-v0")
    model = ref.unwrapped.model
    ours = mjb(model)  # as made, before any reset
    body = model.body("carry_weight").id
    path = str(tmp_path / "ours.mjb")
    try:
        weights = []
        for seed in (0, 1, 2):
            ref.reset(seed=seed)
            weights.append(float(model.body_mass[body]))
            ours = _myosuite._with_carried_weight(
                ours, family.models_dir() + "/" + family.ELBOW_EXO, "carry_weight", weights[-1]
            )
            with open(path, "wb") as f:
                f.write(ours)
            mine = mujoco.MjModel.from_binary_path(path)
            for name, theirs in model_arrays(model).items():
                if name == "site_pos":  # the reset's pose target (wrist_target), not the weight's
                    theirs = np.delete(theirs, model.site("wrist_target").id, axis=0)
                    np.testing.assert_array_equal(
                        np.delete(mine.site_pos, model.site("wrist_target").id, axis=0), theirs
                    )
                    continue
                np.testing.assert_array_equal(getattr(mine, name), theirs, f"{name}, seed {seed}")
            for name in ("meaninertia", "meanmass", "meansize", "extent", "center"):
                np.testing.assert_array_equal(getattr(mine.stat, name), getattr(model.stat, name))
        assert len(set(weights)) == 3 and all(0.1 <= w <= 2.0 for w in weights)
    finally:
        ref.close()


# Bodies of every kind refresh_geom_derived_fields handles, on a hinge, with no inertia bounds
# (the elbow file's boundinertia hides the inertia the refresh recompiles): inertia from two
# geoms off the body's origin (its inertial frame moves as the first one grows), an explicit
# inertial clause (scaled with the mass), and a body welded to the world.
WEIGHT_BODIES = {
    "from_geoms": """<body name="w" pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
        <geom type="sphere" size=".02" pos=".1 0 0" mass=".1"/>
        <geom type="box" size=".01 .02 .03" pos="0 .05 0" euler="0 .3 0" density="800"/>
        <site name="tip" pos=".1 0 0"/></body>""",
    "explicit_inertia": """<body name="w" pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
        <inertial pos=".05 0 0" mass=".3" diaginertia="1e-3 2e-3 3e-3"/>
        <geom type="capsule" size=".01 .04" pos=".05 0 0"/></body>""",
    "welded": """<body name="w" pos="0 0 1"><geom type="sphere" size=".02" mass=".1"/></body>""",
}


@pytest.mark.parametrize("kind", WEIGHT_BODIES)
def test_the_carried_weight_refresh_is_the_references_for_any_body(kind, tmp_path):
    """The hook's edit of a model of each kind against the reference's own
    refresh_geom_derived_fields after the same mass and size edit, array for array."""
    import mujoco
    from myosuite_reference import import_myosuite

    from envfleet import _myosuite

    import_myosuite()
    from myosuite.utils.mujoco_geom_utils import refresh_geom_derived_fields

    xml = tmp_path / "weight.xml"
    xml.write_text(f"<mujoco><worldbody>{WEIGHT_BODIES[kind]}</worldbody></mujoco>")
    spec = mujoco.MjSpec.from_file(str(xml))
    theirs = spec.compile()
    ours = mjb(theirs)
    body = theirs.body("w").id
    for weight in (0.5, 1.7):
        theirs.body_mass[body] = weight
        theirs.geom_size[theirs.body_geomadr[body]][0] = 0.01 + 2.5 * weight / 100
        refresh_geom_derived_fields(theirs, spec, (body,))
        ours = _myosuite._with_carried_weight(ours, str(xml), "w", weight)
        (tmp_path / "ours.mjb").write_bytes(ours)
        mine = mujoco.MjModel.from_binary_path(str(tmp_path / "ours.mjb"))
        for name, value in model_arrays(theirs).items():
            np.testing.assert_array_equal(getattr(mine, name), value, f"{name}, {weight}")
    if kind != "welded":  # what the refresh is for: the inertia follows the weight
        assert not np.array_equal(mine.body_inertia[body], mujoco.MjModel.from_xml_path(
            str(xml)).body_inertia[body])  # fmt: skip


def test_the_carried_weight_needs_a_model_file():
    """The weight's refresh reads the body's geoms from the model file, which a compiled model
    (.mjb) does not have."""
    with pytest.raises(ValueError, match="weight_bodyname needs the model file"):
        envfleet.make("myoHandPoseRandom-v0", num_envs=1, weight_bodyname="lunate_r",
                      weight_range=[0.1, 2.0])  # fmt: skip


def test_a_compiled_model_takes_no_model_file_edits():
    with pytest.raises(ValueError, match=r"world_sites and gear_scale .* compiled model"):
        envfleet.make("myoHandPoseFixed-v0", num_envs=1, gear_scale=2.0)


def test_the_same_seed_gives_the_same_episodes_for_any_threads_and_batch():
    def run(num_threads, batch_size):
        env = envfleet.make("myoFatiFingerReachRandom-v0", num_envs=6, batch_size=batch_size,
                            num_threads=num_threads, seed=4)  # fmt: skip
        try:
            env.async_reset()
            seen = {}
            for _ in range(60):
                obs, _, _, _, info = env.recv()
                ids = info["env_id"]
                for row, eid in enumerate(ids):
                    seen.setdefault(int(eid), []).append(obs[row].copy())
                env.send(np.full((len(ids), 5), 0.2, np.float32), ids)
            return {k: np.stack(v[:8]) for k, v in seen.items()}
        finally:
            env.close()

    one, many = run(1, 6), run(2, 3)
    assert one.keys() == many.keys()
    for eid in one:
        np.testing.assert_array_equal(one[eid], many[eid])


# The exoskeleton's weight changes size at every reset (myoElbowPose1D6MExoRandom-v0), the key
# moves (myoHandKeyTurnRandom-v0), the target pen turns (myoHandPenTwirlRandom-v0), the object
# and its goal change size and place (myoHandObjHoldRandom-v0).
FRAME_IDS = ["myoFingerPoseRandom-v0", "myoElbowPose1D6MExoRandom-v0", "myoFingerReachRandom-v0",
             "myoHandPoseRandom-v0", "myoArmReachRandom-v0", "myoHandKeyTurnRandom-v0",
             "myoHandPenTwirlRandom-v0", "myoHandObjHoldRandom-v0",
             "myoTorsoExoPoseFixed-v0", "myoLegStandRandom-v0"]  # fmt: skip


@pytest.mark.parametrize("task_id", FRAME_IDS)
def test_frames_equal_the_references(task_id):
    """render() after a reset and some steps: the reference's MujocoRenderer frame (its free
    camera), pixel for pixel, the target sites where the reset put them."""
    ref = make_reference(task_id, render_mode="rgb_array")
    ours = envfleet.make(task_id, num_envs=1, seed=9, render_mode="rgb_array",
                         render_width=160, render_height=120)  # fmt: skip
    try:
        ref.reset(seed=9)
        ours.reset()
        rng = np.random.default_rng(0)
        for step in range(3):
            if step:
                action = rng.uniform(-1, 1, ref.action_space.shape).astype(np.float32)
                ref.step(action)
                ours.step(action[None])
            theirs = ref.unwrapped.render(width=160, height=120, camera_id=-1)
            frame = np.asarray(ours.render())[0]
            assert frame.std() > 0
            np.testing.assert_array_equal(frame, theirs, err_msg=f"step {step}")
    finally:
        ref.close()
        ours.close()


def test_from_pixels_observes_the_rendered_frames():
    env = envfleet.make("myoElbowPose1D6MRandom-v0", num_envs=2, seed=3, from_pixels=True)
    try:
        obs, _ = env.reset()
        assert obs.shape == (2, 3, 84, 84) and obs.dtype == np.uint8
        assert obs.std() > 0
        obs, *_ = env.step(np.zeros((2, 6), np.float32))
        assert obs.shape == (2, 3, 84, 84)
    finally:
        env.close()


def test_norms_are_numpys_for_any_length():
    """KeyTurn's norms (np.linalg.norm with no axis) are NumPy's dot product, through the BLAS
    NumPy ships, whose sums differ from a plain loop's in the last bit for most vectors: the
    module calls NumPy's own float64 dot function (common/numpy/ufunc_loops.h)."""
    from envfleet import _myosuite

    rng = np.random.default_rng(0)
    plain_differs = 0
    for n in [*range(0, 70), 100, 1000]:
        for _ in range(20):
            v = rng.standard_normal(n) * rng.uniform(1e-3, 1e3)
            assert _myosuite._numpy_norm(v.tolist()) == np.linalg.norm(v), n
            plain_differs += float(np.sqrt(sum(x * x for x in v))) != np.linalg.norm(v)
    assert plain_differs > 100  # so the test can tell NumPy's sum from a plain loop's


def test_float64_exp_is_numpys():
    """The leg tasks' sigmoid takes np.exp of float64 controls, which NumPy computes with its
    own AVX512F kernel where the CPU has one (not glibc's exp): the module calls NumPy's loop."""
    from envfleet import _myosuite

    rng = np.random.default_rng(1)
    v = np.concatenate([rng.uniform(-7.5, 7.5, 20000), [0.0, -0.0, 1e-300, 700.0, -745.0]])
    np.testing.assert_array_equal(_myosuite._numpy_exp(v.tolist()), np.exp(v))


def test_the_key_turn_tasks_say_how_to_install_myosuite_where_it_is_missing(tmp_path):
    """Their hand is built from myosuite's own model files: without myosuite 3.0.0 (installed,
    or in envfleet's cache folder, here an empty one), make names the way to install it."""
    code = (
        "import envfleet\n"
        "try:\n"
        "    envfleet.make('myoHandKeyTurnFixed-v0')\n"
        "except ValueError as exc:\n"
        "    print('ValueError:', exc)\n"
    )
    env = {**os.environ, "ENVFLEET_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ValueError:" in proc.stdout, proc.stdout
    for words in ("myosuite 3.0.0", "envfleet.families.myosuite.install()", str(tmp_path)):
        assert words in proc.stdout, proc.stdout
