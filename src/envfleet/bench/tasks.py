"""How each library runs the work of an envfleet task: the bench's translation table.

An executor must do the same work as envfleet: the same dynamics, preprocessing and options.
For most tasks the other libraries know the same id (``CartPole-v1``, ``Ant-v5``); PufferLib's
executors wrap exactly the Gymnasium env described here (``GymnasiumPufferEnv``), and gymnax
runs its own CartPole-v1. Two cases need a translation:

- Atari ``<Game>-v5``: EnvPool has the id with the same defaults; Gymnasium runs ale-py's
  ``ALE/<Game>-v5`` with frame skipping and sticky actions off, wrapped in
  ``AtariPreprocessing`` (frame_skip 4, 84x84 gray, noop_max 30, max-pooling) and
  ``FrameStackObservation(4)``; ale-py's ``AtariVectorEnv`` takes the options directly. Only
  the FIRE press after a reset differs: EnvPool, envfleet and AtariVectorEnv press FIRE on
  games that have it, Gymnasium's wrapper does not (one step per episode; noted in the report);
- tasks only envfleet has (environments written in Python): ``--reference-task`` names the id
  the other libraries run instead, e.g. ``CartPole-v1`` for a Python-written CartPole;
- DeepMind Control Suite ids (``CheetahRun-v1``): EnvPool has the same ids; Gymnasium has
  none, and dm_control's own Python loop (``suite.load(domain, task)``) is the reference run.
- MiniGrid and BabyAI ids: EnvPool has the same ids; Gymnasium runs minigrid 3.2.0's envs
  (registered under the same ids when minigrid is imported), installed on first use alone
  (:mod:`envfleet.bench.references`: it requires pygame-ce, which clashes with pygame).
  minigrid's ``max_steps`` option (the env's own time limit, which also sets its reward) is
  EnvPool's ``max_episode_steps`` (EnvPool makes that its envs' ``max_steps``): the bench
  passes it under that name to EnvPool. Its WFC ids cannot run under Gymnasium (minigrid's
  packages lack their pattern images).
  dm_control 1.0.50 needs one patch to run on MuJoCo 4.0.0, applied to the bench's process
  only (:func:`patch_dm_control_for_mujoco_4`).
- ViZDoom ids: EnvPool has the same ids; Gymnasium runs vizdoom 1.3.2's own ``DoomGame`` with
  EnvPool's settings, reward and preprocessing (:mod:`envfleet.bench.vizdoom_reference`), and
  EnvPool runs in a working folder of its own (:func:`envpool_working_folder`).
- Procgen ids (``CoinrunHard-v0``): EnvPool has the same ids; procgen's own Python side
  (OpenAI's procgen 0.10.7, whose engine envfleet runs) needs NumPy < 2, so its executors run in
  a process of procgen's reference venv (:mod:`envfleet.bench.procgen_gym3_cell`):
  ``procgen-gym3`` is its vectorized env ``ProcgenGym3Env`` and Gymnasium's vector envs (and
  the Python loop) run procgen's gym env, each with the task's options in procgen's terms
  (:func:`procgen_gym3_kwargs`).
- Meta-World ids (``MetaWorld/PickPlace-v3``): EnvPool has the same ids; Gymnasium runs
  metaworld 3.1.1's task classes (installed on first use alone: they pin another MuJoCo;
  :func:`envfleet.bench.references.metaworld_env`), positions drawn at every reset.
- MyoSuite ids (``myoFingerReachRandom-v0``): EnvPool has the same ids; Gymnasium runs
  myosuite 3.0.0's envs under the same ids (installed on first use alone: it requires an older
  Gymnasium; :func:`envfleet.bench.references.import_myosuite`).
- Gymnasium-Robotics ids: EnvPool has the same ids; Gymnasium runs gymnasium-robotics 1.4.2's
  envs under the same ids (the v4 id for Fetch's v1, the v1/v3 ids for the Shadow Hand's v0:
  the reference's mujoco-py versions), with one patch for MuJoCo 4.0.0 applied in each process
  that makes one (:func:`patch_gymnasium_robotics_for_mujoco_4`).

Env options (``--option``) go to envfleet and EnvPool as they are (the names are EnvPool's)
and to Gymnasium's constructor, except the pixel options: ``from_pixels=True`` (with
``render_width``/``render_height``, 84 by default, and ``render_camera_id``) becomes
Gymnasium's ``render_mode="rgb_array"`` at that size plus ``AddRenderObservation(
render_only=True)``: the same step-and-render work, the frame left (H, W, 3) where envfleet
and EnvPool give (3, H, W).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def atari_options(task: str, **options: Any) -> dict[str, Any] | None:
    """The resolved envfleet options of an Atari task, or None when it is not an Atari task."""
    import envfleet

    spec = envfleet.make_spec(task, **options)
    if spec.env_type != "Atari":
        return None
    return {**spec.config.env_options, "max_episode_steps": spec.config.max_episode_steps}


def library_task(library: str, task: str, reference_task: str | None) -> str:
    """The id ``library`` runs for ``task``: the task itself, or the reference task.

    The reference task stands in only where the library lacks the task (a Python-written env).
    """
    if library == "envfleet" or reference_task is None:
        return task
    if library == "envpool":
        import envpool

        return task if task in envpool.list_all_envs() else reference_task
    if library in ("gymnasium", "pufferlib"):  # PufferLib wraps the Gymnasium env
        return task if gymnasium_maker(task) else reference_task
    return task


def gymnasium_maker(task: str, options: dict[str, Any] | None = None) -> Callable[[], Any] | None:
    """A function making one Gymnasium env that does ``task``'s work (with env ``options``);
    None if there is none. Nothing is made until the function is called.
    """
    import gymnasium

    extra = dict(options or {})
    options = atari_options(task, **extra) if _is_envfleet_task(task) else None
    if options is not None:
        try:
            import ale_py
        except ImportError:
            return None
        gymnasium.register_envs(ale_py)
        return lambda: _gymnasium_atari(options)
    if minigrid_task(task):
        _import_minigrid()  # registers minigrid's ids with Gymnasium
        if task not in gymnasium.registry:
            return None
        # A spawned worker (AsyncVectorEnv under the "spawn" start method, which TorchRL and
        # others set process-wide) starts without minigrid: the maker imports it there too.
        return lambda: (_import_minigrid(), gymnasium.make(task, **extra))[1]
    if robotics_task(task):
        # A spawned AsyncVectorEnv worker starts without the patch: the maker applies it there.
        return lambda: _gymnasium_robotics(task, extra)
    if vizdoom_task(task):
        return lambda: _vizdoom_reference(task, extra)
    if metaworld_task(task):
        # Imported (and installed, the first time) in whichever process makes the env.
        return lambda: _metaworld_reference(task, extra)
    if myosuite_task(task):
        return lambda: _myosuite_reference(task, extra)
    if task not in gymnasium.registry:
        return None
    if extra.pop("from_pixels", False):
        return lambda: _gymnasium_pixels(task, extra)
    return lambda: gymnasium.make(task, **extra)


def _import_minigrid() -> None:
    from envfleet.bench.references import import_minigrid

    import_minigrid()


def _gymnasium_pixels(task: str, options: dict[str, Any]):
    """``task`` with rendered observations: the env's renderer at the pixel size, each step.

    Through EGL unless ``MUJOCO_GL`` says otherwise, the backend envfleet uses by default
    (Gymnasium would pick GLFW, which needs a display)."""
    import os

    os.environ.setdefault("MUJOCO_GL", "egl")
    import gymnasium
    from gymnasium.wrappers import AddRenderObservation

    width, height = options.pop("render_width", 84), options.pop("render_height", 84)
    camera = options.pop("render_camera_id", -1)
    env = gymnasium.make(
        task, render_mode="rgb_array", width=width, height=height, camera_id=camera, **options
    )
    return AddRenderObservation(env, render_only=True)


def minigrid_task(task: str) -> bool:
    """Whether ``task`` is one of envfleet's MiniGrid family (MiniGrid, BabyAI) ids."""
    from envfleet import registry

    return _is_envfleet_task(task) and registry.registration(task).family.name == "minigrid"


def envpool_options(task: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` under EnvPool's names, where they differ: a MiniGrid task's ``max_steps``
    is EnvPool's ``max_episode_steps``."""
    options = dict(options)
    if minigrid_task(task) and "max_steps" in options:
        options["max_episode_steps"] = options.pop("max_steps")
    return options


def gymnasium_async_kwargs(task: str) -> dict[str, Any]:
    """Arguments AsyncVectorEnv needs for ``task``'s envs: minigrid's observations hold a
    mission string, which shared memory cannot hold."""
    return {"shared_memory": False} if minigrid_task(task) else {}


def dm_control_task(task: str) -> tuple[str, str] | None:
    """``(domain, task)`` of ``dm_control.suite`` for a dm_control family id, else None."""
    from envfleet.families import dm_control

    return dm_control.suite_task(task) if task in dm_control.TASKS else None


# The fields MuJoCo 4.0 dropped, by the struct dm_control's size tables file them under.
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
    """Lets dm_control 1.0.50 run on MuJoCo 4.0.0, in this process (idempotent).

    dm_control 1.0.50 supports MuJoCo up to 3.x; on 4.0.0 building the named views of a model
    fails ("'MjModel' object has no attribute 'flex_vertedge'") because
    ``dm_control.mujoco.wrapper.mjbindings.sizes.array_sizes`` still lists nine flex fields
    that MuJoCo 4.0 removed. The suite's models have no flexes, so deleting exactly those
    entries lets its task code run unchanged on the libmujoco envfleet links. Used by the
    bench's dm_control executor and the alignment tests; envfleet itself never imports
    dm_control.
    """
    from dm_control.mujoco.wrapper.mjbindings import sizes

    for struct, fields in MUJOCO_4_DROPPED_FIELDS.items():
        for field in fields:
            sizes.array_sizes[struct].pop(field, None)


class _IntegerJointTypes:
    """MuJoCo's joint types as the integers of mjmodel.h (mjtJoint)."""

    mjJNT_FREE = 0
    mjJNT_BALL = 1
    mjJNT_SLIDE = 2
    mjJNT_HINGE = 3


def patch_gymnasium_robotics_for_mujoco_4() -> None:
    """Lets gymnasium-robotics 1.4.2 run on MuJoCo 4.0.0, in this process (idempotent).

    Its ``utils.mujoco_utils`` checks joint types with ``joint_type in
    (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)``, which MuJoCo 4.0's enum
    objects no longer satisfy for the model's integer ``jnt_type`` entries: every env that sets
    a hinge or slide joint by name (Fetch, at make) fails that assertion. The module is given a
    ``mujoco`` whose ``mjtJoint`` holds the integer values; nothing else changes. Used by the
    bench's Gymnasium executors and the alignment tests; envfleet itself never imports
    gymnasium-robotics.
    """
    import types

    import gymnasium
    import gymnasium_robotics
    import mujoco
    from gymnasium_robotics.utils import mujoco_utils

    gymnasium.register_envs(gymnasium_robotics)
    if getattr(mujoco_utils.mujoco, "envfleet_patched", False):
        return
    names = {name: getattr(mujoco, name) for name in dir(mujoco) if not name.startswith("__")}
    proxy = types.SimpleNamespace(**names)
    proxy.mjtJoint = _IntegerJointTypes
    proxy.envfleet_patched = True
    mujoco_utils.mujoco = proxy


def robotics_task(task: str) -> bool:
    """Whether ``task`` is one of envfleet's Gymnasium-Robotics ids."""
    from envfleet import registry

    return _is_envfleet_task(task) and registry.registration(task).family.name == "robotics"


def _gymnasium_robotics(task: str, options: dict[str, Any]):
    """gymnasium-robotics' env of ``task`` (the v4/v1 id for a mujoco-py v1/v0 alias, which
    cannot run without mujoco-py), patched for MuJoCo 4.0.0 in whichever process makes it."""
    import gymnasium

    from envfleet import registry

    patch_gymnasium_robotics_for_mujoco_4()
    return gymnasium.make(registry.registration(task).alias_of or task, **options)


def metaworld_task(task: str) -> bool:
    """Whether ``task`` is one of envfleet's Meta-World ids."""
    from envfleet import registry

    return _is_envfleet_task(task) and registry.registration(task).family.name == "metaworld"


def _metaworld_reference(task: str, options: dict[str, Any]):
    """metaworld 3.1.1's env of ``task`` (``references.metaworld_env``: positions drawn at
    every reset, as envfleet's are), in Gymnasium's TimeLimit of the task's 500 steps (the env
    raises if stepped past them; its vector env's autoreset comes first)."""
    import gymnasium

    from envfleet.bench.references import metaworld_env

    name = _metaworld_task_name(task)
    env = metaworld_env(name, None, bool(options.get("partially_observable", True)))
    return gymnasium.wrappers.TimeLimit(env, 500)


def _metaworld_task_name(task: str) -> str:
    from envfleet.families import metaworld

    return next(name for name in metaworld.TASK_NAMES if metaworld.task_id(name) == task)


def myosuite_task(task: str) -> bool:
    """Whether ``task`` is one of envfleet's MyoSuite ids."""
    from envfleet import registry

    return _is_envfleet_task(task) and registry.registration(task).family.name == "myosuite"


def _myosuite_reference(task: str, options: dict[str, Any]):
    """myosuite 3.0.0's ``gymnasium.make`` of ``task`` (an alias: the id it names), imported
    (and installed, the first time) in whichever process makes the env."""
    import gymnasium

    from envfleet import registry
    from envfleet.bench.references import import_myosuite

    import_myosuite()
    return gymnasium.make(registry.registration(task).alias_of or task, **options)


def dm_control_maker(task: str) -> Callable[[int], Any] | None:
    """A function making one dm_control suite env (``seed -> env``) doing ``task``'s work;
    None if ``task`` is not a dm_control id."""
    suite_task = dm_control_task(task)
    if suite_task is None:
        return None

    def make(seed: int):
        patch_dm_control_for_mujoco_4()
        from dm_control import suite

        return suite.load(*suite_task, task_kwargs={"random": seed})

    return make


def vizdoom_task(task: str) -> bool:
    """Whether ``task`` is one of envfleet's ViZDoom ids."""
    from envfleet import registry

    return _is_envfleet_task(task) and registry.registration(task).family.name == "vizdoom"


def _vizdoom_reference(task: str, options: dict[str, Any]):
    """vizdoom's own DoomGame doing ``task``'s work (:mod:`envfleet.bench.vizdoom_reference`)."""
    from envfleet.bench.vizdoom_reference import VizdoomReference

    return VizdoomReference(task, **options)


def procgen_task(task: str) -> bool:
    """Whether ``task`` is one of envfleet's Procgen ids."""
    from envfleet import registry

    return _is_envfleet_task(task) and registry.registration(task).family.name == "procgen"


# procgen's names of the distribution modes (procgen/env.py's DISTRIBUTION_MODE_DICT, and its
# "exploration"), by envfleet's (EnvPool's) numbers.
PROCGEN_MODES = {0: "easy", 1: "hard", 2: "extreme", 10: "memory", 20: "exploration"}
# envfleet options that ProcgenGym3Env takes under the same name.
_PROCGEN_SAME_NAME = (
    "num_levels", "start_level", "use_sequential_levels", "center_agent", "use_backgrounds",
    "use_monochrome_assets", "restrict_themes", "use_generated_assets", "paint_vel_info",
)  # fmt: skip


def procgen_gym3_kwargs(task: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The keyword arguments of procgen's ``ProcgenGym3Env`` (and of its gym env) doing a
    Procgen ``task``'s work with envfleet env ``options``: the game, procgen's name of the
    mode, and every option, resolved (envfleet's defaults are EnvPool's, which are procgen's).

    ``channel_first`` only lays the frame out (procgen's are (64, 64, 3)); exploration mode
    leaves out num_levels and start_level, which procgen sets itself (envfleet requires them
    at 0 there). Raises ValueError for what procgen's interface cannot take:
    ``use_easy_jump=True`` (ProcgenGym3Env has no such argument)."""
    import envfleet

    resolved = envfleet.make_spec(task, **(options or {})).config.env_options
    if resolved.get("use_easy_jump"):
        raise ValueError("ProcgenGym3Env takes no use_easy_jump (only envfleet and EnvPool do)")
    mode = PROCGEN_MODES[int(resolved["distribution_mode"])]
    kwargs: dict[str, Any] = {"env_name": resolved["env_name"], "distribution_mode": mode}
    for name in _PROCGEN_SAME_NAME:
        if mode == "exploration" and name in ("num_levels", "start_level"):
            continue
        kwargs[name] = resolved[name]
    return kwargs


def envpool_working_folder(task: str) -> None:
    """Moves this process into a folder of its own before EnvPool makes ViZDoom envs: its
    engines write an ini file and a ./_vizdoom folder in the working directory, and several
    starting at once race to create that folder (one fails, "File exists", and EnvPool 1.2.5
    then crashes). The folder is made here first, so that no engine creates it."""
    if not vizdoom_task(task):
        return
    import atexit
    import os
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="envfleet-bench-envpool-vizdoom-")
    os.makedirs(os.path.join(folder, "_vizdoom"))
    os.chdir(folder)
    atexit.register(shutil.rmtree, folder, True)


def _is_envfleet_task(task: str) -> bool:
    import envfleet

    return task in envfleet.list_all_envs()


def _gymnasium_atari(options: dict[str, Any]):
    """ale-py's ALE/<Game>-v5 preprocessed as EnvPool's defaults do (see the module doc)."""
    import gymnasium
    from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

    from envfleet.families.atari import task_name

    frame_skip = options["frame_skip"]
    env = gymnasium.make(
        f"ALE/{task_name(options['game'])}-v5",
        frameskip=1,  # AtariPreprocessing skips frames (and max-pools the last two)
        repeat_action_probability=options["repeat_action_probability"],
        full_action_space=options["full_action_space"],
        max_num_frames_per_episode=options["max_episode_steps"] * frame_skip,
    )
    env = AtariPreprocessing(
        env,
        noop_max=options["noop_max"],
        frame_skip=frame_skip,
        screen_size=(options["img_width"], options["img_height"]),
        terminal_on_life_loss=options["episodic_life"],
        grayscale_obs=options["gray_scale"],
    )
    return FrameStackObservation(env, options["stack_num"])


def ale_vector_kwargs(task: str) -> dict[str, Any] | None:
    """``AtariVectorEnv`` arguments doing envfleet's Atari task's work; None if not Atari."""
    options = atari_options(task)
    if options is None:
        return None
    frame_skip = options["frame_skip"]
    return {
        "game": options["game"],
        "frameskip": frame_skip,
        "stack_num": options["stack_num"],
        "img_height": options["img_height"],
        "img_width": options["img_width"],
        "grayscale": options["gray_scale"],
        "maxpool": True,
        "noop_max": options["noop_max"],
        "use_fire_reset": options["use_fire_reset"],
        "episodic_life": options["episodic_life"],
        "reward_clipping": options["reward_clip"],
        "repeat_action_probability": options["repeat_action_probability"],
        "full_action_space": options["full_action_space"],
        "max_num_frames_per_episode": options["max_episode_steps"] * frame_skip,
    }


def differences(task: str, libraries: set[str], options: dict[str, Any] | None = None) -> list[str]:
    """Where the libraries in the run cannot do exactly ``task``'s work: notes for the report."""
    notes = []
    # PufferLib's executors wrap the Gymnasium envs: what holds for Gymnasium holds for them.
    wrapped = "Gymnasium's" if "pufferlib" not in libraries else "Gymnasium's (and PufferLib's)"
    if "pufferlib" in libraries:
        libraries = libraries | {"gymnasium"}
    if (options or {}).get("from_pixels") and "gymnasium" in libraries:
        notes.append(
            "Gymnasium's pixel envs (AddRenderObservation) return (H, W, 3) frames, envfleet "
            "and EnvPool (3, H, W): the same pixels, laid out differently"
        )
    if _is_envfleet_task(task) and procgen_task(task):
        notes += _procgen_differences(task, libraries, options or {})
    options = atari_options(task, **(options or {})) if _is_envfleet_task(task) else None
    if options is not None and "gymnasium" in libraries and options["use_fire_reset"]:
        notes.append(
            f"{wrapped} AtariPreprocessing has no FIRE-on-reset: its envs skip the one FIRE "
            "step per episode that envfleet, EnvPool and AtariVectorEnv take"
        )
    return notes


def _procgen_differences(task: str, libraries: set[str], options: dict[str, Any]) -> list[str]:
    import envfleet

    notes = []
    theirs = sorted(libraries & {"procgen", "gymnasium"})
    channel_first = envfleet.make_spec(task, **options).config.env_options["channel_first"]
    if theirs and channel_first:
        notes.append(
            "procgen's own interfaces (ProcgenGym3Env, its gym env under Gymnasium) return "
            "(64, 64, 3) frames, envfleet and EnvPool (3, 64, 64): the same pixels, laid out "
            "differently"
        )
    if "procgen" in libraries:
        notes.append(
            "ProcgenGym3Env has no reset row: procgen starts the next level inside the step "
            "that ends an episode, so each of its rows is a game step; the pools and Gymnasium "
            "spend the row after an episode's end on a reset (envfleet's, and procgen's gym env "
            "under Gymnasium, return the level procgen already started; EnvPool's patched "
            "engine generates it then)"
        )
    return notes
