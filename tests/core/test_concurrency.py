"""Stress tests of the pool's concurrency primitives (cpp/core/action_queue.h, semaphore.h,
thread_pool.h), through the test-only module _envfleet_testing (tests/cpp/testing_module)."""

import pytest


@pytest.mark.parametrize("homes", [0, 1, 3])
@pytest.mark.parametrize("consumers", [1, 2, 4, 8])
@pytest.mark.parametrize("burst,reserve", [(1, 0), (1, 1), (7, 2), (64, 0), (64, 21)])
def test_action_queue_delivers_every_item_exactly_once(
    testing_module, consumers, burst, reserve, homes
):
    # homes: 0, one FIFO lane; else items spread over home lanes, taken own lane first.
    counts = testing_module.action_queue_stress(consumers, 20_000, burst, reserve, homes)
    assert len(counts) == 20_000
    wrong = [i for i, c in enumerate(counts) if c != 1]
    assert not wrong, f"taken != once: {wrong[:10]} ({[counts[i] for i in wrong[:10]]})"


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_semaphore_permits_are_exact(testing_module, threads, chunk):
    # Every posted permit is taken exactly once: none lost (that would hang), none invented.
    assert testing_module.semaphore_stress(threads, 5_000, chunk) == 0


@pytest.mark.parametrize("threads", [1, 2, 5, 64])
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_parallel_for_runs_each_item_once(testing_module, n, threads):
    assert testing_module.parallel_for_check(n, threads) == [1] * n


@pytest.mark.parametrize("threads", [1, 3])
def test_parallel_for_reraises_the_first_failure(testing_module, threads):
    with pytest.raises(ValueError, match="item 5 failed"):
        testing_module.parallel_for_check(100, threads, fail_at=5)
