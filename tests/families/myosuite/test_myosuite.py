"""The MyoSuite family against its reference, myosuite 3.0.0 (tests/families/myosuite/
myosuite_reference.py): every id in lockstep with ``gymnasium.make(id)`` over whole episodes,
bit for bit (the observation as the reference returns it, cast to float32; rewards, episode
ends and the info's reward terms exactly); the targets of the Random ids over many seeds; the
episode ends a task's ``done`` makes; the options' checks; frames."""

from __future__ import annotations

import numpy as np
import pytest
from myosuite_reference import make_reference, run_aligned

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


def test_reafferentation_needs_the_muscles_it_reroutes():
    with pytest.raises(ValueError, match="no actuator named 'EPL'"):
        envfleet.make("myoFingerPoseRandom-v0", num_envs=1, muscle_condition="reafferentation")
    # The hand's actuators are EPL_r and EIP_r (its actuator_suffix).
    with pytest.raises(ValueError, match="no actuator named 'EPL'"):
        envfleet.make("myoReafHandPoseRandom-v0", num_envs=1, actuator_suffix="")


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


FRAME_IDS = ["myoFingerPoseRandom-v0", "myoElbowPose1D6MExoFixed-v0", "myoFingerReachRandom-v0",
             "myoHandPoseRandom-v0", "myoArmReachRandom-v0"]  # fmt: skip


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
