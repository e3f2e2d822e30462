"""
envfleet's XLA FFI handlers: a pool's send/recv/step as JAX custom calls.
"""



def handlers() -> dict:
    """
    The FFI targets to register with jax.ffi.register_ffi_target (platform 'cpu').
    """

def pool_layout(api: object) -> tuple:
    """
    (num_envs, batch_size, [(dtype code, per-row shape) per key]) of a pool's C table.
    """

def register_pool(api: object, ended_address: int, first: bool) -> int:
    """
    Registers a pool's plain-C table (Pool.pool_api()); returns the id its handle holds.
    The caller keeps the pool (and the `ended` bool array at ended_address, if not 0)
    alive until unregister_pool(id).
    """

def unregister_pool(id: int) -> None:
    """Forgets a pool: calls with its handle fail from now on."""

def num_registered() -> int:
    """How many pools are registered (for tests)."""
