"""
envfleet's XLA FFI handlers: a pool's send/recv/step as JAX custom calls.
"""



def handlers() -> dict:
    """
    The FFI targets to register with jax.ffi.register_ffi_target (platform 'cpu').
    """

def cuda_handlers() -> dict:
    """
    The same targets for platform 'CUDA'. They load the CUDA driver (libcuda.so.1) on
    their first call, not before: registering them needs no GPU.
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
    """
    Forgets a pool (and frees its GPU staging): its calls fail from now on.
    """

def num_registered() -> int:
    """How many pools are registered (for tests)."""
