"""An async Atari loop over a Ray cluster: one envfleet pool per node (docs/integrations/ray.md).

Start Ray on every node first (``ray start --head`` on one, ``ray start --address=HEAD:6379``
on the others), then run this on the head node. Without ``--address`` it starts a local Ray
instance, which is how it runs on one machine. ::

    python examples/ray_cluster.py --address auto --nodes 4 --cpus-per-node 32
    python examples/ray_cluster.py --nodes 2 --cpus-per-node 1 --steps 200   # one machine

Each node gets one worker in a placement group of one bundle per node (STRICT_SPREAD: never
two on one node), sized to the node's cores; the pool has 2 envs per core and batches of
half the envs, so every worker keeps stepping while the driver reads the others' batches.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import ray
from ray.util.placement_group import placement_group, remove_placement_group

from envfleet.ray import make_distributed, workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=None, help="Ray's address ('auto': this cluster)")
    parser.add_argument("--task", default="Pong-v5")
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--cpus-per-node", type=int, default=1)
    parser.add_argument("--steps", type=int, default=1000, help="recv/send rounds")
    args = parser.parse_args()

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.nodes * args.cpus_per_node, include_dashboard=False)
    # One bundle per node; on one machine, STRICT_SPREAD cannot be met, so pack instead.
    strategy = "STRICT_SPREAD" if args.address else "PACK"
    group = placement_group([{"CPU": args.cpus_per_node}] * args.nodes, strategy=strategy)
    ray.get(group.ready())

    num_envs = 2 * args.nodes * args.cpus_per_node
    env = make_distributed(
        args.task,
        num_workers=args.nodes,
        cpus_per_worker=args.cpus_per_node,
        placement_group=group,
        num_envs=num_envs,
        batch_size=num_envs // 2,
        seed=0,
    )
    for worker in workers(env):
        print(f"worker {worker['worker']} on {worker['node']}: envs {worker['env_ids']}")
    rng = np.random.default_rng(0)
    env.async_reset()
    start, steps, returns = time.perf_counter(), 0, []
    episode_return = np.zeros(num_envs)
    for _ in range(args.steps):
        obs, reward, terminated, truncated, info = env.recv()
        ids = info["env_id"]
        episode_return[ids] += reward
        for env_id in ids[terminated | truncated]:
            returns.append(episode_return[env_id])
            episode_return[env_id] = 0
        steps += len(ids)
        env.send(rng.integers(0, env.action_space.n, len(ids)), ids)
    elapsed = time.perf_counter() - start
    print(f"{steps} env steps in {elapsed:.1f} s: {steps / elapsed:,.0f} steps/s; ", end="")
    print(f"{len(returns)} episodes ended")
    env.close()
    remove_placement_group(group)
    ray.shutdown()


if __name__ == "__main__":
    main()
