"""PPO on envfleet's CartPole-v1 with JAX, Flax and Optax, the whole iteration compiled by XLA.

The actor loop runs in ``jax.lax.scan`` over policy and environment steps: ``env.xla()`` makes
the pool's ``step`` an XLA custom call, so one jitted function collects a rollout, computes
the advantages and runs every PPO update, with no Python and no GIL per step (docs/xla.md).
Episode returns are summed in JAX from the rewards and done flags.

The pool autoresets at the next step (EnvPool's convention): the step after an episode's last
one ignores its action and returns the first observation of the next episode. That step is
no transition of the task, so it is masked out of the losses. It also makes the last
observation of an episode the time limit cut available, so its value is bootstrapped. Needs
``pip install 'envfleet[jax]' flax optax``. ::

    python examples/ppo_jax_xla.py                           # 1M steps
    python examples/ppo_jax_xla.py --total-timesteps 50000 --seed 2

It prints, as it trains, the average return of the episodes that ended since the previous
line, and ends with a summary line: that return, steps, seconds (compilation included) and
steps/s.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from flax.linen.initializers import constant, orthogonal
from flax.training.train_state import TrainState

import envfleet


class ActorCritic(nn.Module):
    """Two separate tanh MLPs (64, 64): the policy's logits and the state's value."""

    num_actions: int

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        def mlp(x: jax.Array, outputs: int, last_gain: float) -> jax.Array:
            for _ in range(2):
                x = nn.Dense(64, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(x)
                x = nn.tanh(x)
            return nn.Dense(outputs, kernel_init=orthogonal(last_gain), bias_init=constant(0.0))(x)

        # Small last-layer weights: the first policy is near uniform.
        logits = mlp(obs, self.num_actions, 0.01)
        value = mlp(obs, 1, 1.0)[..., 0]
        return logits, value


@struct.dataclass
class Episodes:
    """Per env, the running episode's return and length; per step, those of episodes that end."""

    returns: jax.Array
    lengths: jax.Array

    @classmethod
    def zeros(cls, num_envs: int) -> Episodes:
        return cls(jnp.zeros(num_envs, jnp.float32), jnp.zeros(num_envs, jnp.int32))

    def update(self, reward: jax.Array, done: jax.Array, valid: jax.Array) -> tuple:
        """The running episodes after one step, and the return and length of each env's
        episode that ended at this step (0 where none did)."""
        # A reset step (valid False) belongs to no episode: its reward is 0 and it adds nothing.
        returns = self.returns + reward
        lengths = self.lengths + valid.astype(jnp.int32)
        ended = (jnp.where(done, returns, 0.0), jnp.where(done, lengths, 0))
        return Episodes(jnp.where(done, 0.0, returns), jnp.where(done, 0, lengths)), ended


@struct.dataclass
class Rollout:
    """One rollout, each field (num_steps, num_envs, ...)."""

    obs: jax.Array
    actions: jax.Array
    logprobs: jax.Array
    values: jax.Array
    rewards: jax.Array
    next_terminated: jax.Array  # the step ended the episode in a terminal state
    next_done: jax.Array  # the step ended the episode (terminal state or time limit)
    valid: jax.Array  # False for reset steps (the step after an episode ended)


@struct.dataclass
class Carry:
    """What one iteration hands to the next, besides the parameters and optimiser state."""

    handle: jax.Array  # env.xla()'s token: threading it orders the env calls
    obs: jax.Array
    done: jax.Array  # obs is the last observation of an episode: the next step resets
    episodes: Episodes
    key: jax.Array


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--env-id", default="CartPole-v1", help="a task with discrete actions and vector obs"
    )
    parser.add_argument("--total-timesteps", type=int, default=1_000_000)
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
    parser.add_argument("--log-every", type=int, default=20, help="iterations between prints")
    return parser.parse_args(argv)


def masked_mean(x: jax.Array, mask: jax.Array) -> jax.Array:
    return jnp.sum(x * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def make_iteration(args: argparse.Namespace, model: ActorCritic, step: Any):
    """One PPO iteration (rollout, advantages, updates) as a single jitted function."""
    batch_size = args.num_envs * args.num_steps

    def policy_step(params: Any, carry: Carry, _: Any) -> tuple[Carry, tuple]:
        key, sample_key = jax.random.split(carry.key)
        logits, value = model.apply(params, carry.obs)
        action = jax.random.categorical(sample_key, logits)
        logprob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], 1)[:, 0]
        handle, (obs, reward, terminated, truncated, _) = step(carry.handle, action)
        done = terminated | truncated
        valid = ~carry.done
        transition = Rollout(carry.obs, action, logprob, value, reward, terminated, done, valid)
        episodes, ended = carry.episodes.update(reward, done, valid)
        return Carry(handle, obs, done, episodes, key), (transition, done, *ended)

    def advantages(rollout: Rollout, last_value: jax.Array) -> jax.Array:
        """GAE. An episode's last observation is the next row's obs (next-step autoreset), so
        a time-limited episode bootstraps from its value; the chain stops at every end."""
        next_values = jnp.concatenate([rollout.values[1:], last_value[None]])
        not_terminal = 1.0 - rollout.next_terminated
        deltas = rollout.rewards + args.gamma * next_values * not_terminal - rollout.values
        continues = args.gamma * args.gae_lambda * (1.0 - rollout.next_done)

        def backward(advantage: jax.Array, x: tuple[jax.Array, jax.Array]) -> tuple:
            delta, cont = x
            advantage = delta + cont * advantage
            return advantage, advantage

        _, result = jax.lax.scan(
            backward, jnp.zeros_like(last_value), (deltas, continues), reverse=True
        )
        return result

    def loss_fn(params: Any, batch: dict[str, jax.Array]) -> tuple[jax.Array, dict]:
        logits, value = model.apply(params, batch["obs"])
        log_probs = jax.nn.log_softmax(logits)
        logprob = jnp.take_along_axis(log_probs, batch["actions"][:, None], 1)[:, 0]
        mask = batch["valid"].astype(jnp.float32)
        ratio = jnp.exp(logprob - batch["logprobs"])
        adv = batch["advantages"]
        mean = masked_mean(adv, mask)
        adv = (adv - mean) / (jnp.sqrt(masked_mean((adv - mean) ** 2, mask)) + 1e-8)
        clipped_ratio = jnp.clip(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
        policy_loss = masked_mean(jnp.maximum(-adv * ratio, -adv * clipped_ratio), mask)
        value_loss = 0.5 * masked_mean((value - batch["returns"]) ** 2, mask)
        entropy = masked_mean(-jnp.sum(jnp.exp(log_probs) * log_probs, -1), mask)
        loss = policy_loss - args.ent_coef * entropy + args.vf_coef * value_loss
        return loss, {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy}

    def update(state: TrainState, rollout: Rollout, last_value: jax.Array, key: jax.Array):
        adv = advantages(rollout, last_value)
        flat = {
            "obs": rollout.obs,
            "actions": rollout.actions,
            "logprobs": rollout.logprobs,
            "valid": rollout.valid,
            "advantages": adv,
            "returns": adv + rollout.values,
        }
        flat = jax.tree.map(lambda x: x.reshape((batch_size, *x.shape[2:])), flat)

        def epoch(state: TrainState, epoch_key: jax.Array) -> tuple[TrainState, dict]:
            order = jax.random.permutation(epoch_key, batch_size)
            minibatches = jax.tree.map(
                lambda x: x[order].reshape((args.num_minibatches, -1, *x.shape[1:])), flat
            )

            def minibatch(state: TrainState, batch: dict) -> tuple[TrainState, dict]:
                grads, metrics = jax.grad(loss_fn, has_aux=True)(state.params, batch)
                return state.apply_gradients(grads=grads), metrics

            return jax.lax.scan(minibatch, state, minibatches)

        state, metrics = jax.lax.scan(epoch, state, jax.random.split(key, args.update_epochs))
        return state, jax.tree.map(lambda m: m[-1, -1], metrics)

    @jax.jit
    def iteration(state: TrainState, carry: Carry) -> tuple[TrainState, Carry, dict]:
        carry, (rollout, ended, ended_returns, ended_lengths) = jax.lax.scan(
            lambda c, x: policy_step(state.params, c, x), carry, None, length=args.num_steps
        )
        _, last_value = model.apply(state.params, carry.obs)
        key, update_key = jax.random.split(carry.key)
        state, metrics = update(state, rollout, last_value, update_key)
        metrics["episodes"] = jnp.sum(ended)
        metrics["return_sum"] = jnp.sum(ended_returns)
        metrics["length_sum"] = jnp.sum(ended_lengths)
        return state, carry.replace(key=key), metrics

    return iteration


def train(args: argparse.Namespace) -> dict[str, float]:
    """Trains PPO; returns the final average episodic return, steps, seconds and steps/s."""
    envs = envfleet.make(args.env_id, num_envs=args.num_envs, seed=args.seed)
    handle, _, _, step = envs.xla()
    model = ActorCritic(num_actions=int(envs.action_space.n))
    batch_size = args.num_envs * args.num_steps
    num_iterations = max(1, args.total_timesteps // batch_size)
    updates = num_iterations * args.update_epochs * args.num_minibatches
    # The learning rate falls linearly to zero over the run.
    schedule = optax.linear_schedule(args.learning_rate, 0.0, updates)
    key = jax.random.PRNGKey(args.seed)
    key, init_key = jax.random.split(key)
    obs, _ = envs.reset()
    state = TrainState.create(
        apply_fn=model.apply,
        params=model.init(init_key, jnp.asarray(obs)),
        tx=optax.chain(
            optax.clip_by_global_norm(args.max_grad_norm), optax.adam(schedule, eps=1e-5)
        ),
    )
    carry = Carry(
        handle=handle,
        obs=jnp.asarray(obs),
        done=jnp.zeros(args.num_envs, jnp.bool_),
        episodes=Episodes.zeros(args.num_envs),
        key=key,
    )
    iteration = make_iteration(args, model, step)

    pending = []  # the iterations' metrics since the last print, still on the device
    average = {"return": float("nan"), "length": float("nan")}
    start = time.perf_counter()
    for i in range(1, num_iterations + 1):
        state, carry, metrics = iteration(state, carry)
        pending.append(metrics)
        if i % args.log_every == 0 or i == num_iterations:
            # Reading them waits for the device: only here, so iterations are queued meanwhile.
            pending = jax.device_get(pending)
            ended = [
                sum(m[name] for m in pending) for name in ("episodes", "return_sum", "length_sum")
            ]
            if ended[0]:
                average = {"return": ended[1] / ended[0], "length": ended[2] / ended[0]}
            steps = i * batch_size
            print(
                f"step {steps:>8}  avg_episodic_return {average['return']:7.1f} "
                f"({int(ended[0])} episodes, length {average['length']:.1f})  "
                f"value_loss {float(metrics['value_loss']):8.3f}  "
                f"entropy {float(metrics['entropy']):.3f}  "
                f"{steps / (time.perf_counter() - start):,.0f} steps/s",
                flush=True,
            )
            pending = []
    elapsed = time.perf_counter() - start
    envs.close()
    steps = num_iterations * batch_size
    return {
        "avg_episodic_return": float(average["return"]),
        "steps": steps,
        "seconds": elapsed,
        "steps_per_second": steps / elapsed,
    }


def main(argv: list[str] | None = None) -> None:
    result = train(parse_args(argv))
    print(
        f"final avg_episodic_return={result['avg_episodic_return']:.1f} "
        f"steps={result['steps']} seconds={result['seconds']:.1f} "
        f"steps_per_second={result['steps_per_second']:.0f}"
    )


if __name__ == "__main__":
    main()
