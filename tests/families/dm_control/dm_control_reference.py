"""The reference of the dm_control family: dm_control 1.0.50's own suite, on MuJoCo 4.0.0.

dm_control 1.0.50 supports MuJoCo up to 3.x; on 4.0.0 its wrappers fail while building the
named views of a model ("'MjModel' object has no attribute 'flex_vertedge'") because
``dm_control.mujoco.wrapper.mjbindings.sizes.array_sizes`` still lists nine flex fields that
MuJoCo 4.0 removed. None of them matters to the suite's tasks (they have no flexes), so the
tests delete exactly those nine entries before loading a task; dm_control's task code then runs
unchanged on the same libmujoco that envfleet._dm_control links, and the two can be compared
bit for bit. Test-only: nothing here touches envfleet.
"""

from __future__ import annotations

# The fields MuJoCo 4.0 dropped, by the struct dm_control's tables file them under.
MUJOCO_4_DROPPED_FIELDS = {
    "mjmodel": (
        "flex_vertedge",
        "flex_vertedgeadr",
        "flex_vertedgenum",
        "flex_vertmetric",
        "flexvert_J_colind",
        "flexvert_J_rowadr",
        "flexvert_J_rownnz",
    ),
    "mjdata": ("flexvert_J", "flexvert_length"),
}


def patch_dm_control_for_mujoco_4() -> None:
    """Deletes the dropped fields from dm_control's size tables (idempotent)."""
    from dm_control.mujoco.wrapper.mjbindings import sizes

    for struct, fields in MUJOCO_4_DROPPED_FIELDS.items():
        for field in fields:
            sizes.array_sizes[struct].pop(field, None)


def load(domain: str, task: str, seed: int):
    """``suite.load(domain, task, task_kwargs={"random": seed})`` on MuJoCo 4.0.0."""
    patch_dm_control_for_mujoco_4()
    from dm_control import suite

    env = suite.load(domain, task, task_kwargs={"random": seed})
    if domain == "quadruped":
        # Escape's initialize_episode re-uploads its new terrain to the renderer
        # (`if physics.contexts: ... mjr_uploadHField`), and asking for physics.contexts creates
        # an OpenGL context, which a machine without a display cannot. The upload only feeds
        # rendering: the reference runs without contexts, as a headless dm_control would.
        type(env.physics).contexts = property(lambda self: None)
    return env
