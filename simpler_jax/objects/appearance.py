"""Object appearances: the baked and un-baked textures of one object, per world.

SIMPLER ships several textured models of the same object (SIMPLER_SPEC.md §6): the
original scan (`opened_coke_can`, `apple`, `sponge`, `green_cube_3cm`), a texture
baked from one real view (`baked_opened_coke_can`, the move-near v0 and stack-cube
models) and Zero123++ multi-view baked textures (`baked_opened_coke_can_v2`, move
near v1 and the apple-in-drawer model). Their collision meshes are the same file;
their visual meshes are not (different vertices and UV layouts), so an appearance
is a whole set of visual geoms, not only another texture image.

A scene built with `SceneSpec(object_appearances=(...))` gives each object, for each
named appearance whose model exists with a visual mesh (and is not the object's own
model), that model's visual geoms on the same body, named
`<body>/appearance:<name>` (`/1`, `/2`, ... for further parts) in the hidden group
`APPEARANCE_GROUP` (MuJoCo's renderer, like the original, shows the object's own
model). `simpler_jax.render.geometry` draws, per world, the geoms of the appearance
the world picks (`Params.object_appearance`) and hides the object's own visual geoms
where that appearance replaces them; objects without that appearance keep their own.
"""

from __future__ import annotations

import re

APPEARANCES = ("unbaked", "baked", "baked_v2")
APPEARANCE_GROUP = 4  # not drawn by MuJoCo's renderer (default groups 0-2), nor collision (3)
_TAG = "/appearance:"
_TAG_RE = re.compile(re.escape(_TAG) + r"([^/]+)")


def check_appearances(names) -> tuple[str, ...]:
    """`names` as a tuple, each one of `APPEARANCES` (else a ValueError naming it)."""
    names = tuple(names)
    bad = [n for n in names if n not in APPEARANCES]
    if bad:
        raise ValueError(f"unknown object appearance(s) {bad}; allowed: {list(APPEARANCES)}")
    return names


def appearance_model_id(model_id: str, appearance: str) -> str:
    """The model id of `model_id`'s object in `appearance` ("baked_apple_v2", "unbaked"
    -> "apple"; "opened_coke_can", "baked_v2" -> "baked_opened_coke_can_v2")."""
    check_appearances([appearance])
    family = model_id.removeprefix("baked_").removesuffix("_v2")
    return {"unbaked": family, "baked": f"baked_{family}", "baked_v2": f"baked_{family}_v2"}[appearance]


def appearance_geom_name(body: str, appearance: str) -> str:
    """Name of the first visual geom of `body` in `appearance`."""
    return f"{body}{_TAG}{appearance}"


def geom_appearance(geom_name: str) -> str | None:
    """The appearance a geom of `appearance_geom_name` draws, None for other geoms."""
    match = _TAG_RE.search(geom_name or "")
    return match.group(1) if match else None
