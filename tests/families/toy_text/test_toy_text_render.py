"""Toy-text frames against Gymnasium 1.4.0's ``render_mode="rgb_array"``, pixel for pixel.

Each check runs an envfleet pool and one Gymnasium env per pool env from the same seeds with
the same actions (the alignment of tests/families/toy_text/test_toy_text.py; NEXT_STEP
autoreset on our side, an explicit reset on Gymnasium's), checks that the observations agree,
and compares every env's frame at every step: ``pool.render(env_ids=all)`` against each
Gymnasium env's ``render()``. The runs are steered so that the frames cover what the
renderers draw differently: the FrozenLake agent on every kind of tile and hidden in a hole,
custom maps whose cells are scaled (10x10, 13x13, non-square, 30x30: pygame.transform.scale
of every sprite) and leave a black margin; the CliffWalking agent on the cliff's edge and at the
goal; the Taxi facing each way, empty and full, with the passenger waiting at each pad; Blackjack
with every one of the 48 showing cards, one- and two-digit sums, a usable ace or not.

Tolerance: none. Every frame equals Gymnasium's: the sprites are Gymnasium's own PNGs decoded by
cpp/common/image/png.h, and the rest (pygame's nearest-neighbour scale, flips, the alpha
blend, draw.rect, Python's round() and float-to-int truncation of positions) is integer
arithmetic reproduced from pygame 2.6.1, with no platform-dependent path (the sprites' alpha is
0 or 255). The issue's floor is 99.5% of equal pixels per frame; the failure message reports
the fraction measured.
"""

from __future__ import annotations

import os

# The references call pygame.display.init(), which needs no window for rgb_array but fails
# without a video driver on a headless machine.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gymnasium.envs.toy_text.frozen_lake import generate_random_map  # noqa: E402
from test_toy_text import _greedy_table  # noqa: E402

import envfleet  # noqa: E402
import envfleet.registry  # noqa: E402
from envfleet.families import toy_text  # noqa: E402

# Stepping Gymnasium's envs is fine; its render warns about nothing, but stay quiet anyway.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

NUM_ENVS = 3
EPSILON = 0.3
# Gymnasium's id of each of ours (Taxi-v3 is EnvPool's id for Taxi-v4's code).
REFERENCE_ID = {"Taxi-v3": "Taxi-v4"}
ENV_TYPES = ("FrozenLake", "CliffWalking", "Taxi", "Blackjack")
# Other names of these ids (tests/test_id_parity.py checks that they are the same task) left out.
TASK_IDS = sorted(
    tid
    for tid in envfleet.list_all_envs()
    if envfleet.registry.registration(tid).env_type in ENV_TYPES
    and not envfleet.registry.registration(tid).alias_of
)


def _assert_frame_equal(ours: np.ndarray, ref: np.ndarray, where: str) -> None:
    assert ours.shape == ref.shape and ours.dtype == np.uint8, (where, ours.shape, ref.shape)
    if np.array_equal(ours, ref):
        return
    differ = np.any(ours != ref, axis=-1)
    y, x = np.argwhere(differ)[0]
    raise AssertionError(
        f"{where}: {1 - differ.mean():.4%} of pixels equal ({int(differ.sum())} differ; first "
        f"at row {y}, column {x}: ours {ours[y, x].tolist()}, Gymnasium's {ref[y, x].tolist()})"
    )


def _obs_equal(ours, ref) -> bool:
    if isinstance(ref, tuple):
        return all(int(o) == int(r) for o, r in zip(ours, ref, strict=True))
    return int(ours) == int(ref)


def _run(task_id: str, seed: int, steps: int, on_state=None, **kwargs) -> int:
    """Steps a pool and Gymnasium's envs side by side, comparing every env's frame after every
    reset and step; ``on_state(i, ref_env)`` is called with each Gymnasium env before its frame
    is compared (for coverage counts). Returns the number of frames compared."""
    ours = envfleet.make(
        task_id,
        num_envs=NUM_ENVS,
        seed=seed,
        render_mode="rgb_array",
        **kwargs,
        conventions="gymnasium",
    )
    refs = [
        gym.make(REFERENCE_ID.get(task_id, task_id), render_mode="rgb_array", **kwargs)
        for _ in range(NUM_ENVS)
    ]
    try:
        n_a = refs[0].action_space.n
        rng = np.random.default_rng(seed + 1000)
        # Tabular envs follow a noisy greedy policy (value iteration on Gymnasium's P), so that
        # episodes reach the goal, pick up and deliver; Blackjack acts at random.
        greedy = _greedy_table(refs[0]) if hasattr(refs[0].unwrapped, "P") else None
        obs, _ = ours.reset()
        ref_obs = [ref.reset(seed=seed + i)[0] for i, ref in enumerate(refs)]
        done = [False] * NUM_ENVS
        frames = 0
        for t in range(steps + 1):
            for i in range(NUM_ENVS):
                ours_i = tuple(o[i] for o in obs) if isinstance(obs, tuple) else obs[i]
                assert _obs_equal(ours_i, ref_obs[i]), (task_id, t, i, ours_i, ref_obs[i])
            rendered = ours.render(env_ids=list(range(NUM_ENVS)))
            assert rendered.shape[0] == NUM_ENVS
            for i, ref in enumerate(refs):
                if on_state is not None:
                    on_state(i, ref)
                _assert_frame_equal(
                    rendered[i], ref.render(), f"{task_id} {kwargs} step {t} env {i}"
                )
                frames += 1
            if t == steps:
                break
            actions = rng.integers(0, n_a, size=NUM_ENVS)
            if greedy is not None:
                explore = rng.random(NUM_ENVS) < EPSILON
                actions = np.where(explore, actions, greedy[np.array(ref_obs)])
            obs, _, terminated, truncated, _ = ours.step(actions.astype(np.int64))
            for i, ref in enumerate(refs):
                if done[i]:  # our pool resets this env on this step (NEXT_STEP)
                    ref_obs[i], _ = ref.reset()
                    done[i] = False
                else:
                    ref_obs[i], _, term, trunc, _ = ref.step(int(actions[i]))
                    done[i] = term or trunc
            assert list(terminated | truncated) == done, (task_id, t)
        return frames
    finally:
        ours.close()
        for ref in refs:
            ref.close()


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_render_spec_matches_gymnasium(task_id):
    spec = envfleet.make_spec(task_id)
    ref = gym.make(REFERENCE_ID.get(task_id, task_id), render_mode="rgb_array")
    try:
        ref.reset(seed=0)
        frame = ref.render()
        assert spec.render.available and not spec.render.resizable
        assert (spec.render.height, spec.render.width, 3) == frame.shape
        assert spec.render.render_fps == ref.metadata["render_fps"]
        assert spec.render.num_cameras == 0
        assert spec.config.env_options["assets_dir"] == toy_text.ASSETS_DIR
    finally:
        ref.close()


# Steps per run: enough for every state the coverage checks below ask for.
STEPS = {"FrozenLake": 150, "CliffWalking": 150, "Taxi": 200, "Blackjack": 150}


# Taxi-v3 runs Taxi-v4's code (test_render_spec_matches_gymnasium covers its registration).
@pytest.mark.parametrize("task_id", [tid for tid in TASK_IDS if tid != "Taxi-v3"])
def test_frames_match_gymnasium(task_id):
    seed = 0
    seen = set()

    def on_state(i, ref):
        env = ref.unwrapped
        if task_id.startswith("FrozenLake"):
            row, col = divmod(int(env.s), env.ncol)
            seen.add(("tile", env.desc[row, col].decode()))
        elif task_id.startswith("CliffWalking"):
            seen.add(("row", int(env.s) // 12))
            seen.add(("goal", int(env.s) == 47))
        elif task_id.startswith("Taxi"):
            _, _, pass_idx, _ = env.decode(env.s)
            seen.add(("full" if pass_idx == 4 else "waiting", env.taxi_orientation))
        else:
            player_sum, dealer, usable = env._get_obs()
            seen.add(("digits", len(str(player_sum))))
            seen.add(("usable", usable))
            seen.add(("dealer", dealer))

    env_type = envfleet.make_spec(task_id).env_type
    frames = _run(task_id, seed, STEPS[env_type], on_state)
    assert frames == NUM_ENVS * (STEPS[env_type] + 1)
    if env_type == "FrozenLake":
        assert {("tile", t) for t in "SFHG"} <= seen, seen
    elif env_type == "CliffWalking":
        assert {("row", r) for r in range(4)} | {("goal", True)} <= seen, seen
    elif env_type == "Taxi":
        # (After a reset the taxi faces south; Gymnasium turns it on render, as we do on step.)
        for state in ("waiting", "full"):
            assert {(state, o) for o in range(4)} <= seen, seen
    else:
        assert {("digits", 1), ("digits", 2), ("usable", 0), ("usable", 1)} <= seen, seen
        assert {("dealer", v) for v in (1, 10)} <= seen, seen


# Maps whose cells are not 64 pixels (512 // n for n > 8): every sprite is scaled, and the
# window keeps a black margin where 512 is not a multiple of n. Also the smallest maps.
CUSTOM_MAPS = {
    "9x9": generate_random_map(size=9, seed=9),
    "10x10": generate_random_map(size=10, seed=10),
    "13x13": generate_random_map(size=13, seed=13),
    "30x30": generate_random_map(size=30, seed=30),
    "3x13": ["SFFFFFFFFFFFF", "FHFHFFFFFHFFF", "FFFFFFFFFFFFG"],
    "11x5": [row[:5] for row in generate_random_map(size=11, seed=1)],
    "1x3": ["SFG"],
    "2x2": ["SH", "FG"],
    "two starts": ["SFFHF", "FHFSF", "FFFHF", "HFFFG"],
}


@pytest.mark.parametrize("name", sorted(CUSTOM_MAPS))
def test_frozen_lake_custom_maps(name):
    desc = CUSTOM_MAPS[name]
    _run("FrozenLake-v1", 3, 40, desc=desc, is_slippery=False)
    _run("FrozenLake-v1", 4, 40, desc=desc)


def test_frozen_lake_random_map():
    # Ours draws env i's random map from its seed (test_toy_text.test_frozen_lake_random_map);
    # Gymnasium gets the same map as a desc.
    seed = 21
    ours = envfleet.make(
        "FrozenLake-v1",
        num_envs=2,
        seed=seed,
        map_name=None,
        render_mode="rgb_array",
        conventions="gymnasium",
    )
    try:
        ours.reset()
        frames = ours.render(env_ids=[0, 1])
        for i in range(2):
            ref = gym.make(
                "FrozenLake-v1", desc=generate_random_map(seed=seed + i), render_mode="rgb_array"
            )
            ref.reset(seed=seed + i)
            _assert_frame_equal(frames[i], ref.render(), f"random map, env {i}")
            ref.close()
    finally:
        ours.close()


def test_taxi_rainy_and_fickle():
    _run("Taxi-v4", 5, 100, is_rainy=True, fickle_passenger=True)


def test_blackjack_every_showing_card():
    # Env i of a pool seeded 0 is Gymnasium's env reset with seed i: scan Gymnasium's resets
    # for a seed showing each of the 48 cards (A, 2-9, J, Q, K in four suits), then compare
    # those envs' first frames.
    ref = gym.make("Blackjack-v1", render_mode="rgb_array")
    seed_of = {}
    seed = 0
    while len(seed_of) < 48:
        ref.reset(seed=seed)
        env = ref.unwrapped
        seed_of.setdefault(env.dealer_top_card_value_str + env.dealer_top_card_suit, seed)
        seed += 1
        assert seed < 5000, sorted(seed_of)
    ours = envfleet.make(
        "Blackjack-v1", num_envs=seed, seed=0, render_mode="rgb_array", conventions="gymnasium"
    )
    try:
        ours.reset()
        env_ids = sorted(seed_of.values())
        frames = ours.render(env_ids=env_ids)
        for frame, env_id in zip(frames, env_ids, strict=True):
            ref.reset(seed=env_id)
            card = ref.unwrapped.dealer_top_card_value_str + ref.unwrapped.dealer_top_card_suit
            _assert_frame_equal(frame, ref.render(), f"Blackjack card {card} (seed {env_id})")
    finally:
        ours.close()
        ref.close()


def test_rendering_needs_the_sprites(tmp_path):
    # assets_dir is set by the registration; without it, or with a wrong one, render() says why.
    for assets_dir, message in (("", "assets_dir is empty"), (str(tmp_path), "does not exist")):
        env = envfleet.make(
            "CliffWalking-v1",
            num_envs=1,
            render_mode="rgb_array",
            assets_dir=assets_dir,
            conventions="gymnasium",
        )
        try:
            env.reset()
            with pytest.raises(RuntimeError, match=message):
                env.render()
            env.step(np.array([1]))  # the env still runs
        finally:
            env.close()
