"""Exceptions raised by envfleet pools."""

from __future__ import annotations

import numpy as np


class EnvError(RuntimeError):
    """An environment raised (a C++ exception) while being stepped or reset.

    The batch that held its result is dropped. ``env_id`` is the env that failed, and
    ``env_ids`` lists every env whose result was in that batch: they are all waiting for an
    action again, so an async loop can send them new actions. The failed env starts a new
    episode on its next step; the pool stays usable.
    """

    env_id: int
    env_ids: np.ndarray
