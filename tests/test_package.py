"""The installed package: public API names and typing markers (the modules and their stubs:
test_modules.py)."""

from pathlib import Path

import envfleet

PACKAGE = Path(envfleet.__file__).parent


def test_public_names_exist():
    for name in envfleet.__all__:
        assert hasattr(envfleet, name), name


def test_envpool_entry_points_are_there():
    # The calls EnvPool documents, so `import envfleet as envpool` works for them.
    for name in ("make", "make_gym", "make_dm", "make_gymnasium", "make_spec", "list_all_envs"):
        assert callable(getattr(envfleet, name)), name


def test_py_typed_marker_ships():
    assert (PACKAGE / "py.typed").is_file()
