"""Textured visual geoms in a `mujoco.MjSpec` (load time).

`add_visual_parts` turns the `TexturedPart`s of a visual mesh file
(`simpler_jax.assets.textures`) into massless, non-colliding mesh geoms of one body:
each part a mesh with a UV per face corner (`usertexcoord` / `userfacetexcoord`)
and, if textured, a material whose RGB texture is the part's image; untextured
parts get their colour as geom rgba. Identical images share one MuJoCo texture and
material (the Google Robot's links all use `meta_diffuse.png`). Because the
textures live in the model, MuJoCo's own renderer shows them too, and
`simpler_jax.render.geometry` reads them from the compiled model.

Texture variants (`add_texture_variant`): a geom given an alternative image moves to
its own copy `M/variants` of its material M, and the image is stored as an extra
texture named `M/variants@<variant>`, used by no material (MuJoCo's renderer shows
the model's own textures). The renderer builds one texture table per variant from
these names, so a world picks its variant at run time (the Google Robot's
recolours, SIMPLER_SPEC.md §6.3, which repaint the arm links but not the base).
"""

from __future__ import annotations

import hashlib

import mujoco
import numpy as np

from simpler_jax.assets.textures import TexturedPart

VARIANT_SEPARATOR = "@"
VARIANT_MATERIAL_SUFFIX = "/variants"


def texture_name(image: np.ndarray) -> str:
    """The model texture name of an image: a digest of its pixels."""
    return "tex_" + hashlib.sha1(np.ascontiguousarray(image).tobytes()).hexdigest()[:16]


def _add_texture(spec: mujoco.MjSpec, name: str, image: np.ndarray) -> None:
    if spec.texture(name) is not None:
        return
    h, w, c = image.shape
    t = spec.add_texture(name=name, type=mujoco.mjtTexture.mjTEXTURE_2D, width=w, height=h, nchannel=c)
    t.data = np.ascontiguousarray(image, np.uint8).tobytes()


def _material(spec: mujoco.MjSpec, image: np.ndarray) -> str:
    """Name of the white material showing `image` (added once per image)."""
    tex = texture_name(image)
    name = "mat_" + tex[4:]
    if spec.material(name) is None:
        _add_texture(spec, tex, image)
        mat = spec.add_material(name=name)
        roles = list(mat.textures)
        roles[mujoco.mjtTextureRole.mjTEXROLE_RGB] = tex
        mat.textures = roles
        mat.rgba = [1.0, 1.0, 1.0, 1.0]
    return name


def add_visual_parts(spec: mujoco.MjSpec, body, name: str, parts: list[TexturedPart], group: int,
                     scale=(1.0, 1.0, 1.0), pos=None, quat=None, max_faces: int | None = None) -> list[str]:
    """Add one geom per part to `body` (see module docstring); returns the geom names
    (`name`, then `name/1`, ...). scale (3,) multiplies the vertices; pos / quat
    (wxyz) place the geoms in the body; max_faces: triangles of all parts together,
    shared by their sizes (each part at least 4; None: no decimation). The UV of a
    kept face's corners is its original corner's."""
    from simpler_jax.render.decimate import decimate

    total = sum(len(p.faces) for p in parts)
    names = []
    for i, part in enumerate(parts):
        budget = None if max_faces is None else max(4, round(max_faces * len(part.faces) / total))
        vertices, faces, kept = decimate(part.vertices * np.asarray(scale, float), part.faces, budget,
                                         return_kept=True)
        geom_name = name if i == 0 else f"{name}/{i}"
        mesh = spec.add_mesh(name=f"{geom_name}/mesh")
        mesh.uservert = np.asarray(vertices, np.float32).ravel()
        mesh.userface = np.asarray(faces, np.int32).ravel()
        mesh.usertexcoord = np.asarray(part.corner_uv[kept], np.float32).ravel()
        mesh.userfacetexcoord = np.arange(3 * len(faces), dtype=np.int32)
        mesh.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL  # visual meshes need not be closed
        g = body.add_geom(name=geom_name)
        g.type = mujoco.mjtGeom.mjGEOM_MESH
        g.meshname = mesh.name
        g.group = group
        g.density = 0.0
        g.contype, g.conaffinity = 0, 0
        if pos is not None:
            g.pos = list(pos)
        if quat is not None:
            g.quat = list(quat)
        if part.texture is not None:
            g.material = _material(spec, part.texture)
        else:
            g.rgba = [float(c) for c in part.rgba]
        names.append(geom_name)
    return names


def add_texture_variant(spec: mujoco.MjSpec, geom_name: str, variant: str, image: np.ndarray) -> None:
    """Show `image` on textured geom `geom_name` in texture variant `variant`.

    The geom moves to a copy of its material named `<material>/variants` (shared by
    every geom given variants of the same texture, so geoms left alone keep theirs),
    and the image is stored as the texture `<material>/variants@<variant>`."""
    if VARIANT_SEPARATOR in variant or not variant:
        raise ValueError(f"texture variant name must be non-empty without {VARIANT_SEPARATOR!r}, got {variant!r}")
    geom = spec.geom(geom_name)
    if geom is None or not geom.material:
        raise ValueError(f"texture variants need a textured geom; {geom_name!r} is not one")
    if not geom.material.endswith(VARIANT_MATERIAL_SUFFIX):
        base = spec.material(geom.material)
        name = geom.material + VARIANT_MATERIAL_SUFFIX
        if spec.material(name) is None:
            mat = spec.add_material(name=name)
            mat.textures, mat.rgba = list(base.textures), list(base.rgba)
        geom.material = name
    tex = f"{geom.material}{VARIANT_SEPARATOR}{variant}"
    existing = spec.texture(tex)
    if existing is not None and bytes(existing.data) != np.ascontiguousarray(image, np.uint8).tobytes():
        raise ValueError(f"texture variant {variant!r} of material {geom.material!r} is given two different images")
    _add_texture(spec, tex, image)
