"""Stable-Baselines3's PPO on envfleet's CartPole-v1, through envfleet.integrations.sb3.

The hyper-parameters are rl-baselines3-zoo's tuned ones for CartPole-v1 (hyperparams/ppo.yml:
8 envs, 100k steps, linearly decaying learning rate and clip range); the envs are one envfleet
pool behind SB3's VecEnv interface, wrapped in SB3's VecMonitor for episode statistics. Needs
``pip install 'envfleet[sb3]'``. ::

    python examples/sb3_ppo_cartpole.py                          # 100k steps
    python examples/sb3_ppo_cartpole.py --total-timesteps 30000 --seed 2

It prints the average return of the last 100 training episodes and of the trained policy,
acting deterministically, over 16 episodes of fresh envs, and the training steps/s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import VecMonitor

from envfleet.integrations.sb3 import make_vec_env


def linear(start: float):
    """rl-zoo's ``lin_<start>``: SB3 calls it with the remaining progress, 1 -> 0."""
    return lambda progress_remaining: progress_remaining * start


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--total-timesteps", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    # One thread: on a small machine a second one fights the pool's workers and PPO slows down
    # many times over.
    torch.set_num_threads(1)

    env = VecMonitor(make_vec_env("CartPole-v1", num_envs=8, seed=args.seed))
    model = PPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=256,
        gae_lambda=0.8,
        gamma=0.98,
        n_epochs=20,
        ent_coef=0.0,
        learning_rate=linear(0.001),
        clip_range=linear(0.2),
        seed=args.seed,
        device="cpu",
    )
    start = time.perf_counter()
    model.learn(total_timesteps=args.total_timesteps)
    seconds = time.perf_counter() - start
    steps = model.num_timesteps
    train_return = float(np.mean([episode["r"] for episode in model.ep_info_buffer]))
    env.close()

    eval_env = VecMonitor(make_vec_env("CartPole-v1", num_envs=8, seed=args.seed + 10_000))
    eval_return, _ = evaluate_policy(model, eval_env, n_eval_episodes=16, deterministic=True)
    eval_env.close()
    print(
        f"steps {steps}  train return (last {len(model.ep_info_buffer)} episodes) "
        f"{train_return:.1f}  eval return (deterministic, 16 episodes) {eval_return:.1f}  "
        f"{steps / seconds:.0f} steps/s  {seconds:.1f} s"
    )
    return {
        "steps": steps,
        "train_return": train_return,
        "eval_return": float(eval_return),
        "steps_per_second": steps / seconds,
        "seconds": seconds,
    }


if __name__ == "__main__":
    main()
