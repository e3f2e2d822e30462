"""recipes.py: the models envfleet builds from the reference's MjSpec recipes are the
reference's own, array for array, and each is built once, whole, into the cache folder."""

from __future__ import annotations

import os

import mujoco
import numpy as np
import pytest
from myosuite_reference import import_myosuite, model_arrays

import envfleet
from envfleet.families.myosuite import recipes


def reference_model(recipe: str) -> mujoco.MjModel:
    """The reference's model of what ``recipe`` builds: its recipe of that name (hand_pose,
    hand_keyturn, hand_pen, hand_hold), its full_arm recipe edited by myoedits'
    edit_fn_arm_reaching, or its torso files (which its resolver points at myo-sim), as its
    envs build them."""
    import_myosuite()
    from myosuite.core.model_builder import ModelBuilder, build_from_recipe

    if recipe.startswith("torso"):
        from myosuite.envs.myo.assets._resolve import resolve_torso_xml

        name = "myotorso_exosuit.xml" if recipe == "torso_exosuit" else "myotorso.xml"
        return ModelBuilder.from_xml_file(resolve_torso_xml(name)).build()[0]
    if recipe == "leg_reach":  # the model LegReachEnvV0 edits after building it
        import gymnasium

        return gymnasium.make("myoLegStandRandom-v0").unwrapped.model
    if recipe == "arm_reaching":
        from myosuite.envs.myo.myoedits import edit_fn_arm_reaching

        return build_from_recipe("full_arm", edit_fn=edit_fn_arm_reaching)[0]
    return build_from_recipe(recipe)[0]


@pytest.mark.parametrize(
    ("recipe", "sizes"),
    [
        ("hand_pose", (23, 39, 39)),
        ("arm_reaching", (18, 50, 50)),
        ("hand_keyturn", (24, 39, 39)),
        ("hand_pen", (29, 39, 39)),
        ("hand_hold", (30, 39, 39)),
        ("torso", (18, 216, 216)),
        ("torso_exosuit", (32, 216, 216)),
        ("leg_reach", (35, 80, 80)),
    ],
)
def test_a_recipe_model_is_the_references(recipe, sizes, tmp_path):
    """Built here (not read from the cache folder): a model records the paths of its mesh files
    (``paths``, ``mesh_pathadr``), those of the myo-sim it was built from, and a cached model
    may come from another environment's myo-sim. The meshes themselves are compiled in."""
    theirs = reference_model(recipe)
    ours = mujoco.MjModel.from_binary_path(recipes.build(recipe, str(tmp_path)))
    ours_arrays, their_arrays = model_arrays(ours), model_arrays(theirs)
    assert ours_arrays.keys() == their_arrays.keys()
    differ = [
        name
        for name, value in ours_arrays.items()
        if not np.array_equal(value, their_arrays[name], equal_nan=True)
    ]
    assert not differ, differ
    assert (ours.nq, ours.nu, ours.na) == sizes


def test_a_recipe_model_is_built_once_and_never_half_written(tmp_path, monkeypatch, capfd):
    """And quietly: MuJoCo's own warnings would go to stderr and to a MUJOCO_LOG.TXT in the
    working directory."""
    monkeypatch.chdir(tmp_path)
    folder = str(tmp_path / "models")
    path = recipes.build("hand_pose", folder)
    assert os.listdir(tmp_path) == ["models"]
    assert "WARNING" not in capfd.readouterr().err
    first = os.stat(path).st_mtime_ns
    assert recipes.build("hand_pose", folder) == path
    assert os.stat(path).st_mtime_ns == first  # read, not built again
    assert not [f for f in os.listdir(folder) if f.endswith(".partial")]


def test_the_hand_ids_build_their_model_on_first_use():
    spec = envfleet.make_spec("myoHandPoseRandom-v0")
    options = spec.config.env_options
    assert options["assets_dir"] == recipes.recipe_dir()
    assert os.path.exists(os.path.join(recipes.recipe_dir(), "hand_pose.mjb"))
    assert spec.action_space.shape == (39,)


def test_nothing_is_written_into_a_folder_the_caller_gives(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        envfleet.make("myoHandPoseFixed-v0", num_envs=1, assets_dir=str(tmp_path))
    assert not list(tmp_path.iterdir())


def test_a_saved_spec_gives_the_refresh_the_references_source_values(tmp_path):
    """ObjHold's refresh reads the object's source values from the hand_hold spec that build()
    saves beside the model (MuJoCo's XML writer drops balanceinertia, which is put back); a
    model whose spec is missing is built again."""
    import_myosuite()
    from myosuite.core.model_builder import build_from_recipe

    path = recipes.build("hand_hold", str(tmp_path))
    saved = mujoco.MjSpec.from_file(str(tmp_path / "hand_hold.xml"))
    saved.compile()
    theirs = build_from_recipe("hand_hold")[1]
    for spec_values in (lambda s: s.compiler, lambda s: s.stat):
        ours_values, their_values = spec_values(saved), spec_values(theirs)
        for field in ("balanceinertia", "inertiafromgeom", "boundmass", "boundinertia",
                      "inertiagrouprange", "extent", "center", "meaninertia", "meanmass",
                      "meansize"):  # fmt: skip
            if hasattr(their_values, field):
                np.testing.assert_array_equal(
                    getattr(ours_values, field), getattr(their_values, field), field
                )
    ours_body, their_body = saved.body("object"), theirs.body("object")
    assert ours_body.explicitinertial == their_body.explicitinertial
    for ours_geom, their_geom in zip(ours_body.geoms, their_body.geoms, strict=True):
        assert ours_geom.density == their_geom.density
        assert ours_geom.typeinertia == their_geom.typeinertia
        np.testing.assert_array_equal(ours_geom.mass, their_geom.mass)
    os.remove(tmp_path / "hand_hold.xml")
    assert recipes.build("hand_hold", str(tmp_path)) == path
    assert (tmp_path / "hand_hold.xml").exists()
