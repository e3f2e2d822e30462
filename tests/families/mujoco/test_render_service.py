"""The render service (ENVFLEET_MUJOCO_RENDERER=service, cpp/common/mujoco/render_service.h):
one render thread draws the scenes every worker builds and reads frames back in passes. Its
frames must be the per-thread renderer's bytes (which the family tests compare with
Gymnasium's and dm_control's), for any threads, sizes, families and GL backend, and a bad value
of the variable must say what is valid (that it stops and frees everything when the pools
close: test_mujoco_render.py's make/close cycles). Each check runs in a fresh process: the
renderer is chosen once per process."""

from __future__ import annotations

import ctypes.util
import textwrap

import pytest
from conftest import assert_isolated_ok, run_isolated

from envfleet import _mujoco  # noqa: F401  (the engine: no skip when it is missing)

# Frames of several pools drawn in one process, saved for comparison: from_pixels steps with
# two workers (frames of one pass come from both), render_fast, dm_control's from_pixels,
# render() of a whole batch at a size of its own, a Gymnasium-Robotics env (its scene is edited
# per frame), and two pools alive at once drawing different frame sizes in the same passes.
FRAMES = """
import os, threading
import numpy as np
os.environ["MUJOCO_GL"] = {backend!r}
os.environ.pop("PYOPENGL_PLATFORM", None)
os.environ["ENVFLEET_MUJOCO_RENDERER"] = {renderer!r}
import envfleet

def rollout(task, n, threads, steps=4, **kw):
    env = envfleet.make(task, num_envs=n, num_threads=threads, seed=3, **kw)
    rng = np.random.default_rng(0)
    pixels = lambda obs: obs["pixels"] if isinstance(obs, dict) else obs
    obs, _ = env.reset()
    out = [pixels(obs)]
    for _ in range(steps):
        a = rng.uniform(-1, 1, (n,) + env.action_space.shape).astype(np.float32)
        obs, *_ = env.step(a)
        out.append(pixels(obs))
    env.close()
    return np.stack(out)

def batch_render(task, n, **kw):
    env = envfleet.make(task, num_envs=n, num_threads=2, seed=1, render_mode="rgb_array", **kw)
    env.reset()
    frames = np.asarray(env.render(env_ids=list(range(n))))
    env.close()
    return frames

res = {{}}
res["hc"] = rollout("HalfCheetah-v5", 4, 2, from_pixels=True)
res["hc_fast"] = rollout("HalfCheetah-v5", 4, 2, from_pixels=True, render_fast=True)
res["cheetah"] = rollout("CheetahRun-v1", 3, 2, steps=3, from_pixels=True)
res["ant"] = batch_render("Ant-v5", 3, render_width=96, render_height=64)
res["fetch"] = batch_render("FetchReach-v4", 2, render_width=48, render_height=40)
small = envfleet.make("Hopper-v5", num_envs=2, num_threads=2, seed=5, render_mode="rgb_array",
                      render_width=40, render_height=30)
large = envfleet.make("Hopper-v5", num_envs=2, num_threads=2, seed=5, render_mode="rgb_array",
                      render_width=100, render_height=70)
small.reset(); large.reset()
both = {{}}
def draw(name, env):
    both[name] = np.asarray(env.render(env_ids=[0, 1]))
threads = [threading.Thread(target=draw, args=x) for x in (("small", small), ("large", large))]
for t in threads: t.start()
for t in threads: t.join()
small.close(); large.close()
res.update(both)
np.savez({path!r}, **res)
"""


def _frames(tmp_path, renderer: str, backend: str) -> dict:
    import numpy as np

    path = str(tmp_path / f"{renderer}-{backend}.npz")
    assert_isolated_ok(FRAMES.format(backend=backend, renderer=renderer, path=path), timeout=300)
    with np.load(path) as saved:
        return {name: saved[name] for name in saved.files}


def _compare(ours: dict, theirs: dict) -> None:
    import numpy as np

    assert ours.keys() == theirs.keys()
    for name in ours:
        assert ours[name].shape == theirs[name].shape, name
        assert ours[name].std() > 10, name  # a real picture, not a blank buffer
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


def test_service_frames_are_the_per_thread_frames_egl(tmp_path):
    _compare(_frames(tmp_path, "service", "egl"), _frames(tmp_path, "per-thread", "egl"))


@pytest.mark.skipif(ctypes.util.find_library("OSMesa") is None, reason="no libOSMesa here")
def test_service_frames_are_the_per_thread_frames_osmesa(tmp_path):
    _compare(_frames(tmp_path, "service", "osmesa"), _frames(tmp_path, "per-thread", "osmesa"))


def test_bad_renderer_value_names_the_variable_and_the_choices():
    rc, out, err = run_isolated(
        textwrap.dedent(
            """
            import os
            os.environ["ENVFLEET_MUJOCO_RENDERER"] = "gpu"
            import envfleet
            env = envfleet.make("Swimmer-v5", render_mode="rgb_array", render_width=16,
                                render_height=16)
            env.reset()
            try:
                env.render()
            except RuntimeError as e:
                print("raised:", e)
            env.close()
            """
        ),
        60,
    )
    assert rc == 0, err[-2000:]
    assert "ENVFLEET_MUJOCO_RENDERER must be 'per-thread'" in out, out
    assert "'service'" in out and "'gpu'" in out, out


# ---- render_device: the EGL device a pool draws on ---------------------------------------------

DEVICES = """
import os
import numpy as np
os.environ["MUJOCO_GL"] = "egl"
os.environ["ENVFLEET_MUJOCO_RENDERER"] = {renderer!r}
import envfleet
from envfleet.errors import EnvError

def frames(task, device, **kw):
    env = envfleet.make(task, num_envs=2, num_threads=2, seed=4, from_pixels=True,
                        render_device=device, **kw)
    try:
        obs, _ = env.reset()
        return obs["pixels"] if isinstance(obs, dict) else obs
    finally:
        env.close()

# Device 0 is the first EGL device, the default one here (one device: Mesa's llvmpipe), for
# each family; two pools on the same device and on the default, alive at once.
for task in ("Hopper-v5", "CheetahRun-v1", "FetchReach-v4"):
    assert np.array_equal(frames(task, 0), frames(task, -1)), task
# A device EGL does not have: the error names the option and the valid range.
try:
    frames("Hopper-v5", 7)
    raise AssertionError("render_device=7 was accepted")
except EnvError as e:
    assert "render_device 7 is out of range" in str(e) and "0..0" in str(e), str(e)
print("ok")
"""


@pytest.mark.parametrize("renderer", ["per-thread", "service"])
def test_render_device(renderer):
    out = assert_isolated_ok(DEVICES.format(renderer=renderer), timeout=240)
    assert out.strip().endswith("ok")


def test_render_device_is_checked_at_make():
    import envfleet

    for task in ("Hopper-v5", "CheetahRun-v1", "FetchReach-v4"):
        assert envfleet.make_spec(task).config.env_options["render_device"] == -1
        with pytest.raises(ValueError, match="render_device must be -1 .* got -2"):
            envfleet.make(task, render_device=-2)


@pytest.mark.skipif(ctypes.util.find_library("OSMesa") is None, reason="no libOSMesa here")
def test_render_device_needs_egl():
    rc, out, err = run_isolated(
        textwrap.dedent(
            """
            import os
            os.environ["MUJOCO_GL"] = "osmesa"
            import envfleet
            env = envfleet.make("Hopper-v5", from_pixels=True, render_device=0)
            env.reset()  # the first frame opens the GL backend
            """
        ),
        60,
    )
    assert rc != 0
    assert "render_device selects an EGL device" in err and "MUJOCO_GL=osmesa" in err, err[-2000:]
