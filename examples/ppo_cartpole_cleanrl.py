"""PPO on CartPole-v1, in CleanRL's one-file style (PyTorch, CPU), with envfleet, EnvPool or
Gymnasium's AsyncVectorEnv underneath.

The whole algorithm is in this file: an actor-critic MLP, rollouts from one pool of envs, GAE,
and PPO's clipped objective. The pools reset a finished env on the step *after* the one that
ended it (EnvPool's and Gymnasium's default "next step" autoreset): that step returns the first
observation of the new episode, ignores its action and has no reward, so it is not a
transition of the task and is masked out of the loss. An episode the time limit cut
bootstraps from the value of its last observation, which the ending step returns. Needs
``pip install torch``. ::

    python examples/ppo_cartpole_cleanrl.py                       # 250k steps
    python examples/ppo_cartpole_cleanrl.py --total-timesteps 30000 --seed 2
    python examples/ppo_cartpole_cleanrl.py --backend envpool      # the same, on EnvPool

It prints the average return of the last 20 training episodes and of the trained policy,
acting greedily, over one episode in each of 16 fresh envs, and the training steps/s.
"""

from __future__ import annotations

import argparse
import time
from collections import deque

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical


def layer(fan_in: int, fan_out: int, gain: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer with orthogonal weights and zero biases (PPO's usual initialisation)."""
    linear = nn.Linear(fan_in, fan_out)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, 1, gain=1.0)
        )
        self.actor = nn.Sequential(
            layer(obs_size, 64),
            nn.Tanh(),
            layer(64, 64),
            nn.Tanh(),
            # Small last-layer weights: the first policy is near uniform.
            layer(64, num_actions, gain=0.01),
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, action: torch.Tensor | None = None):
        """(action, its log-probability, the policy's entropy, the state's value)."""
        dist = Categorical(logits=self.actor(obs))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def make_envs(backend: str, num_envs: int, seed: int):
    """A pool of ``num_envs`` CartPole-v1 envs; all three reset on the next step."""
    if backend == "envfleet":
        import envfleet

        return envfleet.make("CartPole-v1", num_envs=num_envs, seed=seed)
    if backend == "envpool":
        import envpool

        return envpool.make("CartPole-v1", env_type="gymnasium", num_envs=num_envs, seed=seed)
    if backend == "gymnasium":
        import gymnasium as gym

        envs = gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="async")
        envs.reset(seed=seed)
        return envs
    raise ValueError(f"backend must be envfleet, envpool or gymnasium, got {backend!r}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--backend", default="envfleet", choices=["envfleet", "envpool", "gymnasium"]
    )
    parser.add_argument("--total-timesteps", type=int, default=250_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--eval-envs", type=int, default=16)
    return parser.parse_args(argv)


def train(args: argparse.Namespace) -> tuple[Agent, dict[str, float]]:
    """Trains an agent; returns it with the training's average return and steps/s."""
    torch.manual_seed(args.seed)
    envs = make_envs(args.backend, args.num_envs, args.seed)
    obs_size = envs.single_observation_space.shape[0]
    agent = Agent(obs_size, int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, steps = args.num_envs, args.num_steps
    batch_size = n * steps
    minibatch_size = batch_size // args.num_minibatches
    iterations = max(1, args.total_timesteps // batch_size)
    obs_buf = torch.zeros((steps, n, obs_size))
    actions_buf = torch.zeros((steps, n), dtype=torch.long)
    logprobs_buf = torch.zeros((steps, n))
    rewards_buf = torch.zeros((steps, n))
    dones_buf = torch.zeros((steps, n))
    valid_buf = torch.zeros((steps, n), dtype=torch.bool)
    values_buf = torch.zeros((steps, n))

    episode_returns = np.zeros(n)
    recent_returns: deque[float] = deque(maxlen=20)
    obs, _ = envs.reset()
    next_obs = torch.as_tensor(obs)
    next_done = torch.zeros(n)
    # True where the previous step ended the env's episode: this step is the pool's reset.
    resetting = np.zeros(n, dtype=bool)
    start = time.perf_counter()
    for iteration in range(iterations):
        # Anneal the learning rate linearly to zero.
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - iteration / iterations)
        for t in range(steps):
            obs_buf[t], dones_buf[t] = next_obs, next_done
            valid_buf[t] = torch.as_tensor(~resetting)
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs)
            actions_buf[t], logprobs_buf[t], values_buf[t] = action, logprob, value
            obs, env_reward, terminated, truncated, _ = envs.step(action.numpy())
            env_reward = np.where(resetting, 0.0, env_reward)
            episode_returns += env_reward
            reward = torch.as_tensor(env_reward, dtype=torch.float32)
            cut = np.flatnonzero(truncated & ~terminated & ~resetting)
            if cut.size:
                # The time limit, not the task, ended these episodes: the step returned their
                # last observation, whose value the reward takes over (bootstrapping).
                with torch.no_grad():
                    reward[cut] += args.gamma * agent.value(torch.as_tensor(obs[cut]))
            rewards_buf[t] = reward
            done = (terminated | truncated) & ~resetting
            resetting = done
            next_obs, next_done = torch.as_tensor(obs), torch.as_tensor(done, dtype=torch.float32)
            for i in np.flatnonzero(done):
                recent_returns.append(float(episode_returns[i]))
                episode_returns[i] = 0.0

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
        b_obs, b_actions = obs_buf.reshape(-1, obs_size)[valid], actions_buf.reshape(-1)[valid]
        b_logprobs, b_advantages = logprobs_buf.reshape(-1)[valid], advantages.reshape(-1)[valid]
        b_returns, b_values = returns.reshape(-1)[valid], values_buf.reshape(-1)[valid]
        for _ in range(args.update_epochs):
            for rows in torch.randperm(len(b_obs)).split(minibatch_size):
                _, logprob, entropy, value = agent.act(b_obs[rows], b_actions[rows])
                ratio = (logprob - b_logprobs[rows]).exp()
                adv = b_advantages[rows]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                # The value loss is clipped around the rollout's values, as CleanRL does.
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
    return agent, {
        "steps": iterations * batch_size,
        "train_return": float(np.mean(recent_returns)) if recent_returns else 0.0,
        "steps_per_second": iterations * batch_size / elapsed,
        "seconds": elapsed,
    }


def evaluate(agent: Agent, backend: str, num_envs: int, seed: int) -> float:
    """The average return of one greedy episode in each of ``num_envs`` fresh envs."""
    envs = make_envs(backend, num_envs, seed)
    obs, _ = envs.reset()
    returns, running = np.zeros(num_envs), np.ones(num_envs, dtype=bool)
    while running.any():
        with torch.no_grad():
            action = agent.actor(torch.as_tensor(obs)).argmax(-1)
        obs, reward, terminated, truncated, _ = envs.step(action.numpy())
        returns += reward * running
        running &= ~(terminated | truncated)
    envs.close()
    return float(returns.mean())


def main(argv: list[str] | None = None) -> dict[str, float]:
    args = parse_args(argv)
    # One thread: on a small machine a second one fights the pool's workers and PPO slows down
    # many times over.
    torch.set_num_threads(1)
    agent, result = train(args)
    result["eval_return"] = evaluate(agent, args.backend, args.eval_envs, seed=args.seed + 10_000)
    print(
        f"{args.backend}: steps {result['steps']}  "
        f"train return (last 20 episodes) {result['train_return']:.1f}  "
        f"eval return (greedy, {args.eval_envs} episodes) {result['eval_return']:.1f}  "
        f"{result['steps_per_second']:.0f} steps/s  {result['seconds']:.1f} s"
    )
    return result


if __name__ == "__main__":
    main()
