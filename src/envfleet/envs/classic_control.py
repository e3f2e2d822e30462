"""Classic control tasks, as Gymnasium 1.4.0 registers them."""

from envfleet.registry import register

register("CartPole-v0", "CartPole", max_episode_steps=200)
register("CartPole-v1", "CartPole", max_episode_steps=500)
register("MountainCar-v0", "MountainCar", max_episode_steps=200)
register("MountainCarContinuous-v0", "MountainCarContinuous", max_episode_steps=999)
register("Pendulum-v1", "Pendulum", max_episode_steps=200)
register("Acrobot-v1", "Acrobot", max_episode_steps=500)
