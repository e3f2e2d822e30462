"""Exceptions raised by envfleet."""

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


class EngineNotInstalledError(ImportError):
    """A task's family needs an engine (an extension module and the packages it loads) that
    is not installed here; the message names the pip extra that installs it."""

    def __init__(self, family, reason: str):
        install = (
            f"pip install 'envfleet[{family.extra}]'"
            if family.extra
            else "reinstall envfleet (this build lacks the module)"
        )
        build = f" {family.build_note}" if getattr(family, "build_note", "") else ""
        super().__init__(
            f"the {family.name} family needs {family.module}, which cannot be loaded here "
            f"({reason}). Install its engine with: {install}.{build}",
            name=family.module,
        )
        self.family = family
