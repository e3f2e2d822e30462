"""Where families find the data files they read from installed packages (Gymnasium's MuJoCo
models, its classic-control and toy-text sprites, ...): nothing of theirs is copied into
envfleet. The package is located without being imported."""

from __future__ import annotations

import importlib.util
import os


def package_dir(package: str, *parts: str) -> str:
    """The directory ``parts`` inside the installed ``package``, or "" where the package is
    not installed (an env that needs a file there then raises naming it)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.submodule_search_locations:
        return ""
    return os.path.join(list(spec.submodule_search_locations)[0], *parts)
