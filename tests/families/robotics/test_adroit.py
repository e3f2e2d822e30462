"""The Adroit hand tasks against gymnasium-robotics 1.4.2 on MuJoCo 4.0.0, bit for bit.

Every id (Door, Hammer, Pen, Relocate; dense and Sparse) runs a whole 200-step episode and the
start of the next next to the reference (robotics_reference.run_aligned: three envs, seeds
s + i, NEXT_STEP autoreset on both sides) with random actions, a sixth of them outside the
action box. Random actions never succeed, so each task also runs on a copy of its model edited
so that its goal is met or nearly met (a door already open, a nail already driven, a
weightless pen upright in the hand, a floating ball), the reference reading the same copy:
every reward band and the success flag are crossed. Then the options (frame_skip, the
reward_type's case), the spaces, bad options, frames and from_pixels.
"""

from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest
import robotics_reference
from gymnasium_robotics.envs.adroit_hand import (
    adroit_door,
    adroit_hammer,
    adroit_pen,
    adroit_relocate,
)
from robotics_reference import NUM_ENVS, make_reference_vec, run_aligned

import envfleet
from envfleet import _robotics  # noqa: F401  (the engine: the test extra installs it)
from envfleet.families.robotics import ASSETS_DIR
from envfleet.families.robotics.adroit import TASKS

TASK_IDS = [f"{task}{suffix}-v1" for task in TASKS for suffix in ("", "Sparse")]
MODULES = {
    "AdroitHandDoor": adroit_door,
    "AdroitHandHammer": adroit_hammer,
    "AdroitHandPen": adroit_pen,
    "AdroitHandRelocate": adroit_relocate,
}
ADROIT_ASSETS = os.path.join(ASSETS_DIR, "adroit_hand")


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_alignment_random_actions(task_id):
    counts = run_aligned(task_id, 7, 210)
    assert counts["truncated"] == NUM_ENVS  # one whole 200-step episode per env
    assert counts["terminated"] == 0


# ---- Successes, on edited models ----------------------------------------------------------

# Text replacements in a task's XML that put its goal within reach of random actions; no
# gravity (an <option> before the world) for all but the door, so that the pen and the ball
# stay up.
GOAL_EDITS = {
    # The door hinge's reference angle: qpos starts there (1.4: every bonus and success; 1.1:
    # the 0.2 and 1.0 bands; 0.5: the 0.2 band only), the door drawn where the model puts it.
    "door_open": ("AdroitHandDoor", [('name="door_hinge"', 'name="door_hinge" ref="1.4"')]),
    "door_ajar": ("AdroitHandDoor", [('name="door_hinge"', 'name="door_hinge" ref="1.1"')]),
    "door_unlatched": ("AdroitHandDoor", [('name="door_hinge"', 'name="door_hinge" ref="0.5"')]),
    # The nail 8.5 cm into the board (6 mm from its goal: success) or 7.5 cm (the 2 cm band),
    # the hammer floating above the table (its lift bonus).
    "hammer_driven": (
        "AdroitHandHammer",
        [
            ('<body name="nail" pos="0 0 0">', '<body name="nail" pos="0 0 -0.085">'),
            ('<body name="Object" pos="0 -0.2 0.035"', '<body name="Object" pos="0 -0.2 0.2"'),
        ],
    ),
    "hammer_near": (
        "AdroitHandHammer",
        [('<body name="nail" pos="0 0 0">', '<body name="nail" pos="0 0 -0.075">')],
    ),
    # The pen upright (the target's direction at zero angles) at the goal: targets drawn near
    # upright are met.
    "pen_upright": (
        "AdroitHandPen",
        [('euler="0 1.57 0">', 'euler="0 0 0">')],
    ),
    # The ball floating 25 cm up, where the targets are drawn.
    "relocate_floating": (
        "AdroitHandRelocate",
        [('<body name="Object" pos="-0.00 0.0 0.035"', '<body name="Object" pos="-0.00 0.0 0.25"')],
    ),
}


def edited_model(tmp_path, case):
    """The task's XML with the case's edits, written next to links to the files it includes."""
    task, edits = GOAL_EDITS[case]
    name = f"adroit_{task.removeprefix('AdroitHand').lower()}.xml"
    with open(os.path.join(ADROIT_ASSETS, name)) as f:
        text = f.read()
    for old, new in edits:
        assert text.count(old) == 1, (case, old)
        text = text.replace(old, new)
    if task != "AdroitHandDoor":
        text = text.replace("<worldbody>", '<option gravity="0 0 0"/>\n    <worldbody>', 1)
    for linked in ("adroit_model.xml", "adroit_assets.xml", "resources"):
        os.symlink(os.path.join(ADROIT_ASSETS, linked), tmp_path / linked)
    path = tmp_path / name
    path.write_text(text)
    return task, str(path)


class _PathTo:
    """os.path, but for join() of the reference's own model path, which leads to `xml_file`:
    the reference's constructors take no model path of their own."""

    def __init__(self, xml_file):
        self.xml_file = xml_file

    def __getattr__(self, name):
        return getattr(os.path, name)

    def join(self, *parts):
        joined = os.path.join(*parts)
        if os.path.basename(joined) == os.path.basename(self.xml_file):
            return self.xml_file
        return joined


def reference_reading(task, xml_file, monkeypatch, frame_skip=None):
    """A maker of reference vector envs whose model is `xml_file` (and whose frame_skip, an
    attribute step() reads, is changed after construction: the reference's constructor fixes
    it at 5 and checks its render_fps against it)."""

    def make(num_envs, **kwargs):
        kwargs.pop("xml_file", None)
        kwargs.pop("frame_skip", None)
        with monkeypatch.context() as patch:
            patch.setattr(MODULES[task], "path", _PathTo(xml_file))
            vec = make_reference_vec(f"{task}-v1", num_envs, **kwargs)
        if frame_skip is not None:
            for env in vec.envs:
                env.unwrapped.frame_skip = frame_skip
        return vec

    return make


@pytest.mark.parametrize("reward_type", ["dense", "sparse"])
@pytest.mark.parametrize("case", sorted(GOAL_EDITS))
def test_alignment_near_the_goal(case, reward_type, tmp_path, monkeypatch):
    """Short episodes (many resets, each drawing a new door, board, target or ball) on a model
    whose goal random actions reach: successes on both sides, equal to the bit."""
    task, xml_file = edited_model(tmp_path, case)
    counts = run_aligned(
        f"{task}-v1",
        5,
        120,
        max_episode_steps=4,
        reference=reference_reading(task, xml_file, monkeypatch),
        xml_file=xml_file,
        reward_type=reward_type,
    )
    assert counts["truncated"] == 24 * NUM_ENVS  # 4 steps and the autoreset step each
    if case not in ("door_ajar", "door_unlatched", "hammer_near"):
        assert counts["successes"] > 0


# ---- Options ----------------------------------------------------------------------------------


@pytest.mark.parametrize("task", ["AdroitHandDoor", "AdroitHandPen"])
def test_frame_skip_is_the_references_attribute(task, monkeypatch):
    xml_file = os.path.join(ADROIT_ASSETS, f"adroit_{task.removeprefix('AdroitHand').lower()}.xml")
    counts = run_aligned(
        f"{task}-v1",
        2,
        60,
        max_episode_steps=25,
        reference=reference_reading(task, xml_file, monkeypatch, frame_skip=3),
        frame_skip=3,
    )
    assert counts["truncated"] == 2 * NUM_ENVS
    spec = envfleet.make_spec(f"{task}-v1", frame_skip=4)
    assert spec.render.fps == 125  # round(1 / (0.002 * 4))


def test_reward_type_ignores_case_as_the_reference_does():
    counts = run_aligned("AdroitHandRelocate-v1", 4, 33, max_episode_steps=10, reward_type="Sparse")
    assert counts["truncated"] == 3 * NUM_ENVS
    env = envfleet.make("AdroitHandRelocate-v1", num_envs=1, reward_type="SPARSE")
    env.reset()
    _, reward, _, _, _ = env.step(np.zeros((1, 30), np.float32))
    assert reward[0] == -0.1
    env.close()


@pytest.mark.parametrize(
    "task_id, options, match",
    [
        ("AdroitHandDoor-v1", {"reward_type": "shaped"}, "reward_type"),
        ("AdroitHandPen-v1", {"frame_skip": 0}, "frame_skip"),
        ("AdroitHandHammer-v1", {"xml_file": "adroit_hand/nothing.xml"}, "xml_file"),
        ("AdroitHandHammer-v1", {"xml_file": "adroit_hand/adroit_door.xml"}, "S_nail|S_target"),
        ("AdroitHandDoor-v1", {"xml_file": "fetch/reach.xml"}, "actuator"),
    ],
)
def test_bad_options_are_refused(task_id, options, match):
    with pytest.raises((ValueError, FileNotFoundError), match=match):
        envfleet.make(task_id, num_envs=1, **options)


def test_bad_reward_type_is_refused_by_the_reference_too():
    with pytest.raises(ValueError, match="reward type"):
        robotics_reference.make("AdroitHandDoor-v1", reward_type="shaped")


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_spaces_and_spec(task_id):
    env = envfleet.make(task_id, num_envs=2, conventions="gymnasium")
    ref, ref_obs, _ = robotics_reference.make(task_id, seed=0)
    try:
        assert env.single_observation_space == ref.observation_space
        assert env.single_action_space == ref.action_space
        obs, info = env.reset(seed=0)
        assert obs.shape == (2, *ref_obs.shape) and obs.dtype == np.float64
        np.testing.assert_array_equal(obs[0], ref_obs)
        assert [key.name for key in env.spec.info_keys] == ["success"]
        assert info["success"].dtype == np.bool_ and not info["success"].any()
        _, _, _, _, ref_info = ref.step(np.zeros(ref.action_space.shape, np.float32))
        assert set(ref_info) == {"success"}
        assert env.spec.max_episode_steps == ref.spec.max_episode_steps == 200
        assert env.metadata["render_fps"] == ref.metadata["render_fps"] == 100
        assert env.spec.render.num_cameras == ref.unwrapped.model.ncam
    finally:
        env.close()
        ref.close()


def test_resets_move_each_envs_own_model():
    """Each env's reset edits its own copy of the model (the reference's model is its env's):
    two envs of one pool, reset with different seeds, keep different doors; the shared model
    stays as loaded (a new pool starts from it and matches the reference)."""
    env = envfleet.make("AdroitHandDoor-v1", num_envs=2, seed=3, conventions="gymnasium")
    obs, _ = env.reset()
    handle = obs[:, 32:35]
    assert not np.array_equal(handle[0], handle[1])
    env.close()
    counts = run_aligned("AdroitHandDoor-v1", 3, 5)
    assert counts["truncated"] == 0


# ---- Frames ----------------------------------------------------------------------------------

WIDTH, HEIGHT = 72, 56  # not square, so that a swapped width and height cannot pass


@pytest.mark.parametrize("task_id", ["AdroitHandRelocate-v1"])
def test_frames_match_the_reference(task_id):
    """The free view of the task's DEFAULT_CAMERA_CONFIG, with the ball and the target where
    the env's own model has them, pixel for pixel, after a reset and a step; also a model
    camera."""
    ours, refs = robotics_reference.render_pair(task_id, 4, WIDTH, HEIGHT)
    try:
        ours.reset()
        rng = np.random.default_rng(0)
        for t in range(2):
            frames = ours.render(env_ids=[0, 1])
            assert frames.shape == (2, HEIGHT, WIDTH, 3)
            robotics_reference.assert_frames_equal(f"{task_id} step {t}", frames, refs)
            action = rng.uniform(-1, 1, (2, 30)).astype(np.float32)
            ours.step(action)
            for i, ref in enumerate(refs):
                ref.step(action[i])
        camera = gymnasium.make(
            task_id, render_mode="rgb_array", width=WIDTH, height=HEIGHT, camera_id=0
        )
        camera.reset(seed=4)
        ours.reset(seed=4)
        np.testing.assert_array_equal(ours.render(env_ids=[0], camera_id=0)[0], camera.render())
        camera.close()
    finally:
        ours.close()
        for ref in refs:
            ref.close()


def test_from_pixels_keeps_the_info_and_rewards():
    """from_pixels: the frames are the observation, the info's success and the rewards are
    those of the same pool without pixels."""
    kwargs = dict(num_envs=2, seed=1, conventions="gymnasium")
    pixels = envfleet.make(
        "AdroitHandPen-v1", from_pixels=True, render_width=32, render_height=24, **kwargs
    )
    plain = envfleet.make("AdroitHandPen-v1", **kwargs)
    try:
        obs, info = pixels.reset()
        plain.reset()
        assert obs.shape == (2, 3, 24, 32) and obs.dtype == np.uint8
        assert info["success"].dtype == np.bool_
        rng = np.random.default_rng(0)
        for _ in range(3):
            action = rng.uniform(-1, 1, (2, 24)).astype(np.float32)
            obs, reward, _, _, info = pixels.step(action)
            _, plain_reward, _, _, plain_info = plain.step(action)
            np.testing.assert_array_equal(reward, plain_reward)
            np.testing.assert_array_equal(info["success"], plain_info["success"])
        assert obs.std() > 0
    finally:
        pixels.close()
        plain.close()
