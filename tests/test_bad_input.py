"""Misuse must raise a clear exception, never crash or hang (bindings' argument checks).

Every case runs in a fresh interpreter (``run_isolated``): a segfault, an abort or a hang fails
that case alone. A case checks the exception's type, that its message names the argument,
and, where a pool exists, that the pool still works after the bad call.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from conftest import describe, run_isolated

import envfleet

_TEMPLATE = """
import json
import numpy as np
import envfleet

def _run(src):
    exec(src, globals())

{setup}
result = {{"raised": None}}
import faulthandler, sys
print("CALLING", flush=True)
faulthandler.dump_traceback_later({limit}, exit=True)  # a hang in the call ends the process
try:
    _run({call!r})
except BaseException as e:
    result = {{"raised": type(e).__name__,
               "mro": [c.__name__ for c in type(e).__mro__],
               "message": str(e)}}
if {after!r}:
    try:
        _run({after!r})
        result["after"] = "ok"
    except BaseException as e:
        result["after"] = f"{{type(e).__name__}}: {{e}}"
faulthandler.cancel_dump_traceback_later()
print("RESULT " + json.dumps(result))
"""

# Seconds the bad call (and the check after it) may take once the pool is set up: they take
# milliseconds, so running past this means the call hung (e.g. waits forever in the core).
CALL_LIMIT_S = 5

CARTPOLE = "env = envfleet.make('CartPole-v1', num_envs=4, num_threads=2)\nenv.reset()"
STEP_OK = "o = env.step(np.zeros(4, np.int64))\nassert o[0].shape == (4, 4), o[0].shape"
ASYNC = (
    "env = envfleet.make('Counting-v0', num_envs=4, batch_size=2, num_threads=2)\n"
    "env.async_reset()\nout = env.recv()"
)
ASYNC_OK = (
    "env.send(np.zeros(2, np.int64), out[4]['env_id'])\n"
    "o = env.recv()\nassert len(o[4]['env_id']) == 2"
)
MAKE_OK = (
    "env = envfleet.make('CartPole-v1', num_envs=2)\nenv.reset()\nenv.step(np.zeros(2, np.int64))"
)


def _continuous_task():
    envs = envfleet.list_all_envs()
    return "Pendulum-v1" if "Pendulum-v1" in envs else None


PENDULUM = "env = envfleet.make('Pendulum-v1', num_envs=2)\nenv.reset()"
PENDULUM_OK = "o = env.step(np.zeros((2, 1), np.float32))\nassert o[0].shape == (2, 3)"


def _case(case_id, setup, call, exc, words, after="", timeout=30, marks=()):
    return pytest.param(setup, call, exc, words, after, timeout, id=case_id, marks=marks)


_NEEDS_PENDULUM = pytest.mark.skipif(
    _continuous_task() is None, reason="Pendulum-v1 is not in envfleet.list_all_envs()"
)

# fmt: off
CASES = [
    # ---- actions ----
    _case("action-shape-2d", CARTPOLE, "env.step(np.zeros((4, 1), np.int64))", ValueError,
          ["action", "shape"], STEP_OK),
    _case("action-too-few", CARTPOLE, "env.step(np.zeros(3, np.int64))", ValueError,
          ["action"], STEP_OK),
    _case("action-scalar", CARTPOLE, "env.step(0)", ValueError, ["action"], STEP_OK),
    _case("action-none", CARTPOLE, "env.step(None)", (TypeError, ValueError), ["action"],
          STEP_OK),
    # Float actions for a Discrete space are cast as EnvPool casts them; those with no
    # integer value are refused.
    _case("action-nan-for-discrete", CARTPOLE, "env.step(np.full(4, np.nan))", ValueError,
          ["action", "finite"], STEP_OK),
    _case("action-inf-list", CARTPOLE, "env.step([np.inf] * 4)", ValueError,
          ["action", "finite"], STEP_OK),
    _case("action-huge-float", CARTPOLE, "env.step(np.full(4, 1e30))", ValueError,
          ["action"], STEP_OK),
    _case("action-strings", CARTPOLE, "env.step(np.array(['a'] * 4))", TypeError,
          ["action"], STEP_OK),
    _case("action-out-of-range", CARTPOLE, "env.step(np.array([0, 1, 2, 0]))", ValueError,
          ["action", "2"], STEP_OK),
    _case("action-negative", CARTPOLE, "env.step(np.array([0, -1, 0, 0]))", ValueError,
          ["action", "-1"], STEP_OK),
    _case("action-huge-int64", CARTPOLE, "env.step(np.full(4, 2**40))", ValueError,
          ["action"], STEP_OK),
    _case("action-huge-uint64", CARTPOLE, "env.step(np.full(4, 2**63, np.uint64))",
          ValueError, ["action"], STEP_OK),
    _case("action-count-vs-env-id", CARTPOLE, "env.step(np.zeros(3, np.int64), env_id=[0, 1])",
          ValueError, ["action"], STEP_OK),
    _case("action-dict-bad-key", CARTPOLE, "env.send({'actions': np.zeros(4, np.int64)})",
          ValueError, ["action"], STEP_OK),
    _case("continuous-nan", PENDULUM, "env.step(np.full((2, 1), np.nan, np.float32))",
          ValueError, ["action"], PENDULUM_OK, marks=_NEEDS_PENDULUM),
    _case("continuous-inf", PENDULUM, "env.step(np.array([[0.0], [np.inf]], np.float32))",
          ValueError, ["action", "env_id 1"], PENDULUM_OK, marks=_NEEDS_PENDULUM),
    _case("continuous-neg-inf-float64", PENDULUM, "env.step(np.array([[-np.inf], [0.0]]))",
          ValueError, ["action"], PENDULUM_OK, marks=_NEEDS_PENDULUM),
    _case("continuous-shape", PENDULUM, "env.step(np.zeros(2, np.float32))", ValueError,
          ["action", "shape"], PENDULUM_OK, marks=_NEEDS_PENDULUM),
    # ---- env ids ----
    _case("env-id-out-of-range", CARTPOLE, "env.step(np.zeros(1, np.int64), env_id=[4])",
          ValueError, ["env_id", "4"], STEP_OK),
    _case("env-id-negative", CARTPOLE, "env.step(np.zeros(1, np.int64), env_id=[-1])",
          ValueError, ["env_id", "-1"], STEP_OK),
    _case("env-id-huge-uint64", CARTPOLE,
          "env.step(np.zeros(1, np.int64), env_id=np.array([2**63], np.uint64))",
          ValueError, ["env_id"], STEP_OK),
    _case("env-id-duplicated", CARTPOLE, "env.step(np.zeros(2, np.int64), env_id=[1, 1])",
          ValueError, ["env_id", "1"], STEP_OK),
    _case("env-id-float", CARTPOLE, "env.step(np.zeros(1, np.int64), env_id=[0.0])",
          TypeError, ["env_id"], STEP_OK),
    _case("env-id-2d", CARTPOLE, "env.step(np.zeros(2, np.int64), env_id=[[0, 1]])",
          TypeError, ["env_id"], STEP_OK),
    _case("env-id-string", CARTPOLE, "env.step(np.zeros(1, np.int64), env_id='0')",
          TypeError, ["env_id"], STEP_OK),
    _case("env-id-bool-mask", CARTPOLE,
          "env.step(np.zeros(2, np.int64), env_id=np.array([True, False, True, False]))",
          TypeError, ["env_id"], STEP_OK),
    _case("env-id-empty", CARTPOLE, "env.step(np.zeros(0, np.int64), env_id=np.zeros(0, int))",
          ValueError, ["env_id"], STEP_OK),
    _case("env-id-too-many", CARTPOLE,
          "env.step(np.zeros(5, np.int64), env_id=[0, 1, 2, 3, 0])",
          ValueError, ["env_id"], STEP_OK),
    _case("reset-env-id-out-of-range", CARTPOLE, "env.reset(env_id=[7])", ValueError,
          ["env_id", "7"], STEP_OK),
    _case("send-twice-without-recv", CARTPOLE,
          "env.send(np.zeros(4, np.int64))\nenv.send(np.zeros(4, np.int64))",
          ValueError, ["env_id", "flight"], "env.recv()\n" + STEP_OK),
    _case("async-send-twice", ASYNC,
          "env.send(np.zeros(2, np.int64), out[4]['env_id'])\n"
          "env.send(np.zeros(2, np.int64), out[4]['env_id'])",
          ValueError, ["env_id"], "o = env.recv()\nassert len(o[4]['env_id']) == 2"),
    _case("step-env-in-flight", CARTPOLE,
          "env.send(np.zeros(2, np.int64), env_id=[0, 1])\n"
          "env.step(np.zeros(1, np.int64), env_id=[1])",
          ValueError, ["env_id", "1"],
          "env.send(np.zeros(2, np.int64), env_id=[2, 3])\nenv.recv()\n" + STEP_OK),
    # ---- recv / step that could never complete ----
    _case("recv-nothing-pending", CARTPOLE, "env.recv()", ValueError, ["recv"], STEP_OK),
    _case("recv-after-partial-send", CARTPOLE,
          "env.send(np.zeros(2, np.int64), env_id=[0, 1])\nenv.recv()",
          ValueError, ["recv"],
          "env.send(np.zeros(2, np.int64), env_id=[2, 3])\nenv.recv()\n" + STEP_OK),
    _case("async-recv-too-few-in-flight", ASYNC, "env.recv()\nenv.recv()", ValueError,
          ["recv"], ""),
    _case("async-step-too-few-in-flight",
          "env = envfleet.make('Counting-v0', num_envs=4, batch_size=3)\n"
          "env.async_reset()\nout = env.recv()",
          "env.step(np.zeros(1, np.int64), env_id=[0])", ValueError, ["step"], ""),
    _case("async-reset-too-few-in-flight",
          "env = envfleet.make('Counting-v0', num_envs=4, batch_size=3)\n"
          "env.async_reset()\nout = env.recv()",
          "env.reset(env_id=[0])", ValueError, ["reset"], ""),
    _case("sync-step-after-partial-send", CARTPOLE,
          "env.send(np.zeros(2, np.int64), env_id=[0, 1])\n"
          "env.step(np.zeros(1, np.int64), env_id=[2])",
          ValueError, ["step"], ""),
    _case("async-reset-twice", ASYNC.replace("\nout = env.recv()", ""),
          "env.async_reset()", ValueError, ["async_reset"],
          "out = env.recv()\n" + ASYNC_OK),
    # ---- make arguments ----
    _case("batch-size-above-num-envs", "", "envfleet.make('CartPole-v1', num_envs=2, batch_size=3)",
          ValueError, ["batch_size"], MAKE_OK),
    _case("batch-size-zero", "", "envfleet.make('CartPole-v1', num_envs=2, batch_size=0)",
          ValueError, ["batch_size"], MAKE_OK),
    _case("num-envs-zero", "", "envfleet.make('CartPole-v1', num_envs=0)", ValueError,
          ["num_envs"], MAKE_OK),
    _case("num-envs-negative", "", "envfleet.make('CartPole-v1', num_envs=-1)", ValueError,
          ["num_envs"], MAKE_OK),
    _case("num-envs-float", "", "envfleet.make('CartPole-v1', num_envs=2.0)", TypeError,
          ["num_envs"], MAKE_OK),
    _case("num-threads-zero", "", "envfleet.make('CartPole-v1', num_envs=2, num_threads=0)",
          ValueError, ["num_threads"], MAKE_OK),
    _case("num-threads-negative", "", "envfleet.make('CartPole-v1', num_threads=-3)",
          ValueError, ["num_threads"], MAKE_OK),
    _case("seed-list-wrong-length", "", "envfleet.make('CartPole-v1', num_envs=3, seed=[1, 2])",
          ValueError, ["seed"], MAKE_OK),
    _case("seed-negative", "", "envfleet.make('CartPole-v1', num_envs=2, seed=-1)", ValueError,
          ["seed"], MAKE_OK),
    _case("seed-list-negative", "", "envfleet.make('CartPole-v1', num_envs=2, seed=[1, -5])",
          ValueError, ["seed"], MAKE_OK),
    _case("seed-too-big", "", "envfleet.make('CartPole-v1', seed=2**64)", ValueError,
          ["seed"], MAKE_OK),
    _case("seed-float", "", "envfleet.make('CartPole-v1', seed=1.5)", TypeError, ["seed"],
          MAKE_OK),
    _case("thread-affinity-below-minus-one", "",
          "envfleet.make('CartPole-v1', thread_affinity_offset=-2)", ValueError,
          ["thread_affinity_offset"], MAKE_OK),
    _case("max-episode-steps-negative", "", "envfleet.make('CartPole-v1', max_episode_steps=-1)",
          ValueError, ["max_episode_steps"], MAKE_OK),
    _case("unknown-task-id", "", "envfleet.make('CartPole-v9')", ValueError,
          ["task_id", "CartPole-v1"], MAKE_OK),
    _case("unknown-option", "", "envfleet.make('CartPole-v1', bogus_option=1)", TypeError,
          ["bogus_option"], MAKE_OK),
    _case("invalid-option-value", "", "envfleet.make('Counting-v0', episode_length=0)",
          ValueError, ["episode_length"], MAKE_OK),
    _case("unknown-autoreset-mode", "", "envfleet.make('CartPole-v1', autoreset_mode='never')",
          ValueError, ["autoreset_mode"], MAKE_OK),
    # ---- Gymnasium reset arguments ----
    _case("reset-seed-negative", CARTPOLE, "env.reset(seed=-1)", (ValueError, TypeError),
          ["seed", "-1"], STEP_OK),
    _case("reset-seed-float", CARTPOLE, "env.reset(seed=1.5)", (ValueError, TypeError),
          ["seed", "1.5"], STEP_OK),
    _case("reset-seed-list-wrong-length", CARTPOLE, "env.reset(seed=[1, 2])", ValueError,
          ["seed"], STEP_OK),
    _case("reset-mask-wrong-shape", CARTPOLE,
          "env.reset(options={'reset_mask': np.array([True, False])})", ValueError,
          ["reset_mask"], STEP_OK),
    _case("reset-mask-not-bool", CARTPOLE,
          "env.reset(options={'reset_mask': np.array([1, 0, 1, 0])})", (ValueError, TypeError),
          ["reset_mask"], STEP_OK),
    _case("reset-mask-all-false", CARTPOLE,
          "env.reset(options={'reset_mask': np.zeros(4, bool)})", ValueError,
          ["reset_mask"], STEP_OK),
    # ---- after close ----
    _case("step-after-close", CARTPOLE, "env.close()\nenv.step(np.zeros(4, np.int64))",
          RuntimeError, ["closed"], "env.close()"),
    _case("reset-after-close", CARTPOLE, "env.close()\nenv.reset()", RuntimeError, ["closed"],
          "env.close()"),
    _case("send-after-close", CARTPOLE, "env.close()\nenv.send(np.zeros(4, np.int64))",
          RuntimeError, ["closed"], "env.close()"),
    _case("recv-after-close", CARTPOLE,
          "env.send(np.zeros(4, np.int64))\nenv.close()\nenv.recv()", RuntimeError,
          ["closed"], "env.close()"),
    _case("async-reset-after-close", CARTPOLE, "env.close()\nenv.async_reset()", RuntimeError,
          ["closed"], "env.close()"),
    _case("gym-step-after-close",
          "env = envfleet.make_gym('CartPole-v1', num_envs=4)\nenv.reset()",
          "env.close()\nenv.step(np.zeros(4, np.int64))", RuntimeError, ["closed"],
          "env.close()"),
    _case("dm-reset-after-close",
          "env = envfleet.make_dm('CartPole-v1', num_envs=4)\nenv.reset()",
          "env.close()\nenv.reset()", RuntimeError, ["closed"], "env.close()"),
]
# fmt: on


def _run_case(setup, call, after, timeout):
    code = _TEMPLATE.format(
        setup=textwrap.dedent(setup), call=call, after=after, limit=CALL_LIMIT_S
    )
    rc, out, err = run_isolated(code, timeout=timeout)
    lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
    if not lines and "CALLING" in out and "Timeout (" in err:
        pytest.fail(
            f"the call hung (no return within {CALL_LIMIT_S} s, process ended):\n{call}\n"
            + describe(rc, out, err),
            pytrace=False,
        )
    assert rc == 0 and lines, "the snippet did not finish cleanly: " + describe(rc, out, err)
    return json.loads(lines[-1][len("RESULT ") :])


@pytest.mark.parametrize("setup,call,exc,words,after,timeout", CASES)
def test_bad_input_raises_a_clear_exception(setup, call, exc, words, after, timeout):
    result = _run_case(setup, call, after, timeout)
    expected = exc if isinstance(exc, tuple) else (exc,)
    names = [e.__name__ for e in expected]
    assert result["raised"] is not None, f"no exception from:\n{call}"
    assert any(n in result["mro"] for n in names), (
        f"expected {' or '.join(names)}, got {result['raised']}: {result['message']}"
    )
    for word in words:
        assert word in result["message"], (
            f"the message does not name {word!r}: {result['raised']}: {result['message']}"
        )
    if after:
        assert result["after"] == "ok", (
            f"the pool is unusable after the bad call: {result['after']}"
        )


def test_close_twice_is_fine_for_every_front_end():
    rc, out, err = run_isolated(
        """
        import numpy as np
        import envfleet
        for env_type in ("gymnasium", "gym", "dm"):
            env = envfleet.make("CartPole-v1", env_type=env_type, num_envs=2)
            env.reset()
            env.close()
            env.close()
        print("ok")
        """
    )
    assert rc == 0 and "ok" in out, describe(rc, out, err)


@pytest.mark.parametrize("batch_size", [4, 2], ids=["sync", "async"])
def test_close_or_delete_with_actions_in_flight_exits_cleanly(batch_size):
    rc, out, err = run_isolated(
        f"""
        import gc
        import numpy as np
        import envfleet
        env = envfleet.make("CartPole-v1", num_envs=4, batch_size={batch_size}, num_threads=2)
        env.async_reset()
        env.close()
        other = envfleet.make("CartPole-v1", num_envs=4, batch_size={batch_size}, num_threads=2)
        other.async_reset()
        del other  # never closed, results never received
        gc.collect()
        print("ok")
        """,
        timeout=30,
    )
    assert rc == 0 and "ok" in out, describe(rc, out, err)


def test_a_pool_left_open_at_exit_does_not_hang_or_crash():
    rc, out, err = run_isolated(
        """
        import numpy as np
        import envfleet
        env = envfleet.make("CartPole-v1", num_envs=4, batch_size=2, num_threads=2)
        env.async_reset()
        obs = env.recv()
        print("ok")
        """,
        timeout=30,
    )
    assert rc == 0 and "ok" in out, describe(rc, out, err)


def test_action_views_and_lists_are_accepted():
    # Not misuse: non-contiguous arrays, other integer dtypes and lists are converted.
    env = envfleet.make("CartPole-v1", num_envs=4)
    try:
        env.reset()
        for actions in (
            np.arange(8)[::2] % 2,
            np.zeros(4, np.int32),
            [0, 1, 0, 1],
            np.zeros(4, np.uint8),
        ):
            obs, *_ = env.step(actions)
            assert obs.shape == (4, 4)
    finally:
        env.close()
