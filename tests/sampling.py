"""Which cases of a parametrized test the default run keeps (pyproject.toml's ``extended``
marker): the first id of each group in sorted order, where the ids of a group run the same code
with other options (an env type's ids, a dm_control domain's tasks), and any the test names.
The others are marked ``extended``: ``python -m pytest -m extended`` runs them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

import envfleet


def env_type(task_id: str) -> tuple[str, str]:
    """The group of an id's env type: (family, env type)."""
    reg = envfleet.registry.registration(task_id)
    return reg.family.name, reg.env_type


def first_ids(task_ids: Iterable[str], group: Callable[[str], object] = env_type) -> set[str]:
    """The first id of each ``group`` among ``task_ids``, in sorted order."""
    first: dict[object, str] = {}
    for task_id in sorted(task_ids):
        first.setdefault(group(task_id), task_id)
    return set(first.values())


def first_of_each(
    task_ids: Iterable[str], group: Callable[[str], object] = env_type, always: Iterable[str] = ()
) -> list:
    """``task_ids`` (in their order) as parameters: the first of each ``group`` in sorted order
    and those in ``always`` as they are, the others marked ``extended``."""
    task_ids = list(task_ids)
    kept = first_ids(task_ids, group) | set(always)
    return [
        task_id if task_id in kept else pytest.param(task_id, marks=pytest.mark.extended)
        for task_id in task_ids
    ]
