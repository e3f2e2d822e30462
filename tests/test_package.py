"""The installed package: public API names, typing markers and the generated stubs."""

from pathlib import Path

import envfleet
from envfleet import _core

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


def test_core_stub_ships_and_covers_the_extension():
    stub = PACKAGE / "_core.pyi"
    assert stub.is_file(), "the nanobind-generated _core.pyi must be installed with the package"
    text = stub.read_text()
    public = [n for n in dir(_core) if not n.startswith("_")]
    assert public
    missing = [n for n in public if n not in text]
    assert not missing, f"_core.pyi lacks {missing}: regenerate it (it is built with _core)"
    for method in ("send", "recv", "step", "reset", "async_reset", "close"):
        assert f"def {method}(" in text, method
