"""Appearances: other looks of a scene's objects and table, picked per world.

Objects. SIMPLER ships several textured models of the same object (SIMPLER_SPEC.md
§6): the original scan (`opened_coke_can`, `apple`, `sponge`, `green_cube_3cm`), a
texture baked from one real view (`baked_opened_coke_can`, the move-near v0 and
stack-cube models) and Zero123++ multi-view baked textures
(`baked_opened_coke_can_v2`, move near v1 and the apple-in-drawer model). Their
collision meshes are the same file; their visual meshes are not (different vertices
and UV layouts), so an object appearance is a whole set of visual geoms, not only
another texture image. For each named object appearance whose model exists with a
visual mesh (and is not the object's own model), the object's body gets that
model's visual geoms.

Table. The coke-can and move-near Variant Aggregation's table-texture variants
(`cabinet1_table`, `cabinet2_table`) use the original's cabinet-room stages, which
are not available (ASSETS.md). Their substitute (`TABLE_APPEARANCES`) is the table
box drawn with the stone texture of SIMPLER's `stone_tabletop.glb` (the top of the
mk_station3/4 cabinets), tiled every `TABLE_TILE_M`, as it is for cabinet 1 and
tinted warmer for cabinet 2: another table surface, not the original one.

Every added geom is named `<owner>/appearance:<name>` (`/1`, `/2`, ... for further
parts; owner: the object's body, or `table`) and sits in the hidden group
`APPEARANCE_GROUP`, so MuJoCo's renderer, like the original, shows the scene's own
look. `simpler_jax.render.geometry` draws, per world, the geoms of the appearance
the world picks (`Params.appearance`) and hides the geoms they replace (the owner's
own visual geoms); owners without that appearance keep their own. A world picks one
appearance (as each of the original's variants changes one thing).
"""

from __future__ import annotations

import re

import numpy as np

OBJECT_APPEARANCES = ("unbaked", "baked", "baked_v2")
TABLE_TEXTURE = "data/custom/models/stone_tabletop.glb"
# Table appearance -> tint (rgb factors) of the stone texture (see module docstring).
TABLE_APPEARANCES = {"cabinet1_table": (1.0, 1.0, 1.0), "cabinet2_table": (0.85, 0.68, 0.5)}
TABLE_TILE_M = 0.63  # the stone tabletop's length: one texture repeat per 0.63 m
APPEARANCES = OBJECT_APPEARANCES + tuple(TABLE_APPEARANCES)
APPEARANCE_GROUP = 4  # not drawn by MuJoCo's renderer (default groups 0-2), nor collision (3)
_TAG = "/appearance:"
_TAG_RE = re.compile(re.escape(_TAG) + r"([^/]+)")


def check_appearances(names) -> tuple[str, ...]:
    """`names` as a tuple, each one of `APPEARANCES` (else a ValueError naming it)."""
    names = tuple(names)
    bad = [n for n in names if n not in APPEARANCES]
    if bad:
        raise ValueError(f"unknown appearance(s) {bad}; allowed: {list(APPEARANCES)}")
    return names


def object_appearances(names) -> tuple[str, ...]:
    """The object appearances among `names` (checked)."""
    return tuple(n for n in check_appearances(names) if n in OBJECT_APPEARANCES)


def table_appearances(names) -> tuple[str, ...]:
    """The table appearances among `names` (checked)."""
    return tuple(n for n in check_appearances(names) if n in TABLE_APPEARANCES)


def appearance_model_id(model_id: str, appearance: str) -> str:
    """The model id of `model_id`'s object in `appearance` ("baked_apple_v2", "unbaked"
    -> "apple"; "opened_coke_can", "baked_v2" -> "baked_opened_coke_can_v2")."""
    if appearance not in OBJECT_APPEARANCES:
        raise ValueError(f"{appearance!r} is not an object appearance; allowed: {list(OBJECT_APPEARANCES)}")
    family = model_id.removeprefix("baked_").removesuffix("_v2")
    return {"unbaked": family, "baked": f"baked_{family}", "baked_v2": f"baked_{family}_v2"}[appearance]


def appearance_geom_name(owner: str, appearance: str) -> str:
    """Name of the first geom of `owner` (a body or the table) in `appearance`."""
    return f"{owner}{_TAG}{appearance}"


def geom_appearance(geom_name: str) -> str | None:
    """The appearance a geom of `appearance_geom_name` draws, None for other geoms."""
    match = _TAG_RE.search(geom_name or "")
    return match.group(1) if match else None


def appearance_owner(geom_name: str) -> str | None:
    """The owner whose own geoms an appearance geom replaces, None for other geoms."""
    return geom_name.split(_TAG, 1)[0] if _TAG in (geom_name or "") else None


def replaces(owner: str, geom_name: str) -> bool:
    """Whether an appearance of `owner` replaces the untagged geom `geom_name`."""
    return geom_name == owner or geom_name.startswith(owner + "/")


def _corners_and_normals(vertices, faces) -> tuple[np.ndarray, np.ndarray]:
    """(corner positions (F, 3, 3), unnormalised outward normals (F, 3)) of a mesh's faces."""
    corners = vertices[faces]
    return corners, np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])


def textured_box_part(half_size, image, tile_m: float):
    """A box (half sizes (3,)) as one `TexturedPart` showing `image` on every face,
    projected along each face's axis and repeated every `tile_m` metres."""
    from simpler_jax.assets.textures import TexturedPart
    from simpler_jax.render.primitives import box

    vertices, faces = box(np.asarray(half_size, float))
    corners, normal = _corners_and_normals(vertices, faces)
    axis = np.argmax(np.abs(normal), -1)  # the face's axis; uv from the two others
    plane = np.array([[1, 2], [0, 2], [0, 1]])[axis]  # (F, 2)
    uv = np.take_along_axis(corners, plane[:, None, :], -1) / tile_m
    return TexturedPart(vertices, faces, uv.astype(np.float32), image, np.ones(4))


def top_face_texture(part) -> np.ndarray:
    """The part of a textured part's image its upward faces show (the stone tabletop's
    texture is an atlas of its six faces; the top one is the stone surface)."""
    _, normal = _corners_and_normals(part.vertices, part.faces)
    up = normal[:, 2] > 0.9 * np.linalg.norm(normal, axis=-1)
    if not up.any():
        raise ValueError("the table texture's mesh has no upward face")
    uv = part.corner_uv[up].reshape(-1, 2)  # v from the image's top row
    h, w = part.texture.shape[:2]
    (c0, r0), (c1, r1) = np.floor(uv.min(0) * (w, h)).astype(int), np.ceil(uv.max(0) * (w, h)).astype(int)
    return part.texture[max(r0, 0):min(r1, h), max(c0, 0):min(c1, w)]


def add_table_appearances(spec, names, table_geom, assets) -> None:
    """Add the table appearances in `names` to the scene's table box geom `table_geom`
    (an `mujoco.MjsGeom` on the world body) as hidden textured boxes (see module docstring)."""
    import pathlib

    from simpler_jax.assets.textures import load_textured_parts
    from simpler_jax.assets.visual_geoms import add_visual_parts

    names = table_appearances(names)
    if not names:
        return
    path = pathlib.Path(assets) / TABLE_TEXTURE
    parts = [p for p in load_textured_parts(path) if p.texture is not None] if path.is_file() else []
    if not parts:
        from simpler_jax.assets.paths import MissingAssetError

        raise MissingAssetError(f"table appearances {names} need the texture of {str(path)!r}")
    stone = top_face_texture(parts[0])
    for name in names:
        image = np.clip(np.round(stone * np.asarray(TABLE_APPEARANCES[name])), 0, 255).astype(np.uint8)
        part = textured_box_part(table_geom.size, image, TABLE_TILE_M)
        add_visual_parts(spec, spec.worldbody, appearance_geom_name(table_geom.name, name), [part],
                         APPEARANCE_GROUP, pos=list(table_geom.pos))
