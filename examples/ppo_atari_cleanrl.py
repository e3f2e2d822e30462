"""PPO on an Atari game, in CleanRL's one-file style (PyTorch, CPU), with envfleet, EnvPool or
Gymnasium's AsyncVectorEnv underneath.

The algorithm and hyper-parameters are those of CleanRL's ``ppo_atari_envpool.py``: the Nature
CNN over 4 stacked 84x84 grey frames, 8 envs x 128 steps per rollout, lives as episodes
(``episodic_life``), clipped rewards, GAE, PPO's clipped objective, learning rate annealed to
zero. Needs ``pip install torch``. ::

    python examples/ppo_atari_cleanrl.py                          # RoadRunner-v5, 100k steps
    python examples/ppo_atari_cleanrl.py --env-id Breakout-v5 --total-timesteps 10000000
    python examples/ppo_atari_cleanrl.py --backend envpool        # the same, on EnvPool

The pools reset a finished env on the step *after* the one that ended it (EnvPool's and
Gymnasium's default "next step" autoreset): that step returns the first observation of the new
episode, ignores its action and has no reward, so it is not a transition of the task and is
masked out of the loss. The time limit's cut episodes bootstrap from the value of the last
observation, which the ending step returns.

Returns reported are whole games (all lives) in game score (unclipped), from the pool's
``info["reward"]`` and ``info["terminated"]`` (EnvPool's and envfleet's keys). The
``gymnasium`` backend (ale-py's envs with Gymnasium's Atari wrappers, one process per env) is
there to compare throughput on the same training code: its episodes are whole games (a lost
life does not end one), so its learning is not comparable step for step.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import deque
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical


def layer(module: nn.Module, gain: float = np.sqrt(2)) -> nn.Module:
    """Orthogonal weights and zero biases (PPO's usual initialisation)."""
    nn.init.orthogonal_(module.weight, gain)
    nn.init.zeros_(module.bias)
    return module


class Agent(nn.Module):
    """The Nature DQN torso shared by a policy head and a value head."""

    def __init__(self, num_actions: int):
        super().__init__()
        self.torso = nn.Sequential(
            layer(nn.Conv2d(4, 32, 8, stride=4)),
            nn.ReLU(),
            layer(nn.Conv2d(32, 64, 4, stride=2)),
            nn.ReLU(),
            layer(nn.Conv2d(64, 64, 3, stride=1)),
            nn.ReLU(),
            nn.Flatten(),
            layer(nn.Linear(64 * 7 * 7, 512)),
            nn.ReLU(),
        )
        self.actor = layer(nn.Linear(512, num_actions), gain=0.01)
        self.critic = layer(nn.Linear(512, 1), gain=1.0)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.torso(obs.float() / 255.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.features(obs)).squeeze(-1)

    def act(self, obs: torch.Tensor, action: torch.Tensor | None = None):
        """(action, its log-probability, the policy's entropy, the state's value)."""
        hidden = self.features(obs)
        dist = Categorical(logits=self.actor(hidden))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(hidden).squeeze(-1)


class GameStats:
    """Whole-game returns from the pool's per-step info (envfleet's and EnvPool's keys)."""

    def __init__(self, num_envs: int):
        self.running = np.zeros(num_envs)
        self.finished: list[float] = []

    def update(self, info: dict[str, Any]) -> None:
        self.running += info["reward"]
        for i in np.flatnonzero(info["terminated"]):
            self.finished.append(float(self.running[i]))
            self.running[i] = 0.0


class GymnasiumGameStats:
    """The same, from Gymnasium's RecordEpisodeStatistics (innermost, so it counts games)."""

    def __init__(self, num_envs: int):
        self.finished: list[float] = []

    def update(self, info: dict[str, Any]) -> None:
        if "episode" in info:
            ended = info["episode"]["_r"] if "_r" in info["episode"] else info["_episode"]
            self.finished.extend(float(r) for r in info["episode"]["r"][ended])


def make_envs(backend: str, env_id: str, num_envs: int, seed: int):
    """A pool of ``num_envs`` Atari envs with CleanRL's options, and its game-stats reader."""
    atari_options = dict(episodic_life=True, reward_clip=True, seed=seed)
    if backend == "envfleet":
        import envfleet

        return envfleet.make(env_id, num_envs=num_envs, **atari_options), GameStats(num_envs)
    if backend == "envpool":
        import envpool

        pool = envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, **atari_options)
        return pool, GameStats(num_envs)
    if backend == "gymnasium":
        import ale_py
        import gymnasium as gym

        gym.register_envs(ale_py)
        game = env_id.removesuffix("-v5")

        def make_one():
            # EnvPool's v5 defaults: no sticky actions, 30 no-ops, 4 frames per step, max
            # 27,000 steps (108,000 frames) per game.
            env = gym.make(
                f"ALE/{game}-v5",
                frameskip=1,
                repeat_action_probability=0.0,
                max_episode_steps=108_000,
            )
            env = gym.wrappers.RecordEpisodeStatistics(env)
            env = gym.wrappers.AtariPreprocessing(env, noop_max=30, frame_skip=4)
            env = gym.wrappers.TransformReward(env, np.sign)
            return gym.wrappers.FrameStackObservation(env, 4)

        envs = gym.vector.AsyncVectorEnv([make_one] * num_envs)
        envs.reset(seed=seed)
        return envs, GymnasiumGameStats(num_envs)
    raise ValueError(f"backend must be envfleet, envpool or gymnasium, got {backend!r}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # RoadRunner learns early (its returns leave a random policy's, ~20, within 20k steps),
    # so a run that fits a small CPU shows it; Breakout and Pong need millions of steps.
    parser.add_argument("--env-id", default="RoadRunner-v5")
    parser.add_argument(
        "--backend", default="envfleet", choices=["envfleet", "envpool", "gymnasium"]
    )
    parser.add_argument("--total-timesteps", type=int, default=102_400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    parser.add_argument("--learning-rate", type=float, default=2.5e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip-coef", type=float, default=0.1)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--curve", help="write (steps, seconds, average return) rows to this CSV")
    parser.add_argument("--quiet", action="store_true", help="print only the final line")
    return parser.parse_args(argv)


def train(args: argparse.Namespace) -> tuple[Agent, dict[str, Any]]:
    """Trains an agent; returns it with the learning curve and the training's steps/s."""
    torch.manual_seed(args.seed)
    envs, stats = make_envs(args.backend, args.env_id, args.num_envs, args.seed)
    num_actions = int(envs.single_action_space.n)
    agent = Agent(num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, steps = args.num_envs, args.num_steps
    batch_size = n * steps
    minibatch_size = batch_size // args.num_minibatches
    iterations = max(1, args.total_timesteps // batch_size)
    obs_shape = envs.single_observation_space.shape
    obs_buf = torch.zeros((steps, n, *obs_shape), dtype=torch.uint8)
    actions_buf = torch.zeros((steps, n), dtype=torch.long)
    logprobs_buf = torch.zeros((steps, n))
    rewards_buf = torch.zeros((steps, n))
    dones_buf = torch.zeros((steps, n))
    valid_buf = torch.zeros((steps, n), dtype=torch.bool)
    values_buf = torch.zeros((steps, n))

    obs, _ = envs.reset()
    next_obs = torch.as_tensor(obs)
    next_done = torch.zeros(n)
    # True where the previous step ended the env's episode: this step is the pool's reset.
    resetting = np.zeros(n, dtype=bool)
    curve: list[tuple[int, float, float]] = []
    recent: deque[float] = deque(maxlen=20)
    start = time.perf_counter()
    for iteration in range(iterations):
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - iteration / iterations)
        for t in range(steps):
            obs_buf[t], dones_buf[t] = next_obs, next_done
            valid_buf[t] = torch.as_tensor(~resetting)
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs)
            actions_buf[t], logprobs_buf[t], values_buf[t] = action, logprob, value
            obs, env_reward, terminated, truncated, info = envs.step(action.numpy())
            stats.update(info)
            reward = torch.as_tensor(env_reward, dtype=torch.float32) * torch.as_tensor(~resetting)
            cut = np.flatnonzero(truncated & ~terminated & ~resetting)
            if cut.size:
                # The time limit ended these episodes; the step returned their last
                # observation, whose value the reward takes over (bootstrapping).
                with torch.no_grad():
                    reward[cut] += args.gamma * agent.value(torch.as_tensor(obs[cut]))
            rewards_buf[t] = reward
            done = (terminated | truncated) & ~resetting
            resetting = done
            next_obs, next_done = torch.as_tensor(obs), torch.as_tensor(done, dtype=torch.float32)
        recent.extend(stats.finished)
        stats.finished.clear()
        steps_done = (iteration + 1) * batch_size
        if recent:
            curve.append((steps_done, time.perf_counter() - start, float(np.mean(recent))))
            if not args.quiet and (iteration % 10 == 0 or iteration == iterations - 1):
                print(f"steps {steps_done:>8}  return (last 20 games) {curve[-1][2]:7.2f}")

        with torch.no_grad():
            next_value = agent.value(next_obs)
            advantages = torch.zeros((steps, n))
            gae = torch.zeros(n)
            for t in reversed(range(steps)):
                if t == steps - 1:
                    not_done, later_value = 1.0 - next_done, next_value
                else:
                    not_done, later_value = 1.0 - dones_buf[t + 1], values_buf[t + 1]
                delta = rewards_buf[t] + args.gamma * later_value * not_done - values_buf[t]
                gae = delta + args.gamma * args.gae_lambda * not_done * gae
                advantages[t] = gae
            returns = advantages + values_buf

        valid = valid_buf.reshape(-1)
        b_obs = obs_buf.reshape(-1, *obs_shape)[valid]
        b_actions, b_logprobs = actions_buf.reshape(-1)[valid], logprobs_buf.reshape(-1)[valid]
        b_advantages, b_returns = advantages.reshape(-1)[valid], returns.reshape(-1)[valid]
        b_values = values_buf.reshape(-1)[valid]
        for _ in range(args.update_epochs):
            for rows in torch.randperm(len(b_obs)).split(minibatch_size):
                _, logprob, entropy, value = agent.act(b_obs[rows], b_actions[rows])
                ratio = (logprob - b_logprobs[rows]).exp()
                adv = b_advantages[rows]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                clipped = b_values[rows] + (value - b_values[rows]).clamp(
                    -args.clip_coef, args.clip_coef
                )
                value_loss = (
                    0.5
                    * torch.max(
                        (value - b_returns[rows]) ** 2, (clipped - b_returns[rows]) ** 2
                    ).mean()
                )
                loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    elapsed = time.perf_counter() - start
    envs.close()
    if args.curve:
        with open(args.curve, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["steps", "seconds", "return_last_20_games"])
            writer.writerows(curve)
    return agent, {
        "steps": iterations * batch_size,
        "curve": curve,
        "first_return": curve[0][2] if curve else float("nan"),
        "final_return": curve[-1][2] if curve else float("nan"),
        "steps_per_second": iterations * batch_size / elapsed,
        "seconds": elapsed,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    # One thread: on a small machine a second one fights the pool's workers and PPO slows down
    # many times over.
    torch.set_num_threads(1)
    _, result = train(args)
    print(
        f"{args.env_id} on {args.backend}: steps {result['steps']}  return (last 20 games) "
        f"{result['first_return']:.2f} at first, {result['final_return']:.2f} at the end  "
        f"{result['steps_per_second']:.0f} steps/s  {result['seconds']:.1f} s"
    )
    return result


if __name__ == "__main__":
    main()
