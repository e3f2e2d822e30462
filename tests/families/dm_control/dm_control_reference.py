"""The reference of the dm_control family: dm_control 1.0.50's own suite, on MuJoCo 4.0.0.

dm_control 1.0.50 supports MuJoCo up to 3.x; on 4.0.0 its wrappers fail while building the
named views of a model ("'MjModel' object has no attribute 'flex_vertedge'") because
``dm_control.mujoco.wrapper.mjbindings.sizes.array_sizes`` still lists nine flex fields that
MuJoCo 4.0 removed. None of them matters to the suite's tasks (they have no flexes), so the
tests delete exactly those nine entries before loading a task (the bench's reference run does
the same: ``envfleet.bench.tasks.patch_dm_control_for_mujoco_4``, stated there once);
dm_control's task code then runs unchanged on the same libmujoco that envfleet._dm_control
links, and the two can be compared bit for bit. Nothing here changes envfleet itself.
"""

from __future__ import annotations

import numpy as np
from numpy._core._multiarray_umath import __cpu_features__

from envfleet.bench.tasks import patch_dm_control_for_mujoco_4

# On CPUs with AVX-512 (NumPy's AVX512_SKX target) NumPy computes float64 exp, log, log1p,
# cosh, tanh and their kin with its bundled SVML/AVX-512 kernels, which differ from libm's
# (what the ports call, as NumPy does on other CPUs) in the last bit or two, and OpenBLAS runs
# AVX-512 matrix kernels whose order of summation the ports do not follow. There, values are
# compared to SIMD_TOL, relative and absolute: a few ulp of the values summed (at most ~10 in
# size), far below any real error (1e-10 and above). Elsewhere: bit for bit.
SIMD_TOL = 1e-14 if __cpu_features__.get("AVX512_SKX") else 0.0


def assert_values_equal(got, want, where: str, simd_tol: float = SIMD_TOL) -> None:
    """Bit for bit; within ``simd_tol`` where NumPy's AVX-512 kernels run (see SIMD_TOL)."""
    if SIMD_TOL:
        np.testing.assert_allclose(got, want, rtol=simd_tol, atol=simd_tol, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def load(domain: str, task: str, seed: int, *, render: bool = False):
    """``suite.load(domain, task, task_kwargs={"random": seed})`` on MuJoCo 4.0.0.

    ``render``: the env will render (``physics.render``), so it needs its GL contexts; the
    caller sets MUJOCO_GL (``egl`` on a headless machine)."""
    patch_dm_control_for_mujoco_4()
    from dm_control import suite

    if domain == "quadruped":
        # Escape's initialize_episode re-uploads its new terrain to the renderer
        # (`if physics.contexts: ... mjr_uploadHField`), and asking for physics.contexts creates
        # an OpenGL context. Without rendering the upload only costs a context (which a machine
        # without a display or EGL cannot make), so the reference runs without contexts, as a
        # headless dm_control would; a rendering reference keeps dm_control's own property.
        from dm_control.suite import quadruped

        if not render:
            quadruped.Physics.contexts = property(lambda self: None)
        elif "contexts" in vars(quadruped.Physics):
            del quadruped.Physics.contexts  # back to engine.Physics.contexts
    return suite.load(domain, task, task_kwargs={"random": seed})
