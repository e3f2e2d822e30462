"""Classic control (C++ ports in cpp/families/classic_control/, built into envfleet._core),
registered as Gymnasium 1.4.0 registers them: ids, time limits and reward thresholds; and the
ids EnvPool 1.2.5 adds, with its time limits: Pendulum-v0 and the phys2d/ names.

Pendulum's frames (``render_mode="rgb_array"``) draw Gymnasium's own torque arrow,
``clockwise.png`` of the installed gymnasium package: Pendulum-v1 gets
``assets_dir=ASSETS_DIR``, the package's ``envs/classic_control/assets`` directory. The C++
env reads the file the first time it draws the arrow.
"""

from functools import partial

from envfleet import registry
from envfleet.families._assets import package_dir
from envfleet.registry import Family, register_alias

ASSETS_DIR = package_dir("gymnasium", "envs", "classic_control", "assets")
CLASSIC_CONTROL = Family("classic_control", envpool_package="envpool.classic_control")
register = partial(registry.register, family=CLASSIC_CONTROL)

register("CartPole-v0", "CartPole", max_episode_steps=200, reward_threshold=195.0)
register("CartPole-v1", "CartPole", max_episode_steps=500, reward_threshold=475.0)
register("MountainCar-v0", "MountainCar", max_episode_steps=200, reward_threshold=-110.0)
register(
    "MountainCarContinuous-v0",
    "MountainCarContinuous",
    max_episode_steps=999,
    reward_threshold=90.0,
)
register("Pendulum-v1", "Pendulum", max_episode_steps=200, assets_dir=ASSETS_DIR)
# EnvPool's id: gym <= 0.20's Pendulum, whose integration order differs (pendulum.h).
register("Pendulum-v0", "Pendulum", max_episode_steps=200, version=0, assets_dir=ASSETS_DIR)
# EnvPool 1.2.5's Acrobot reports info["state"] (the link angles); Gymnasium's info is empty.
register(
    "Acrobot-v1",
    "Acrobot",
    max_episode_steps=500,
    reward_threshold=-100.0,
    envpool_options={"include_state": True},
)

# EnvPool's other names of the same tasks (in Gymnasium, phys2d/ names its JAX ports).
register_alias("phys2d/CartPole-v0", "CartPole-v0")
register_alias("phys2d/CartPole-v1", "CartPole-v1")
register_alias("phys2d/Pendulum-v0", "Pendulum-v0")
