"""Visual meshes with their UV textures, converted once into a cache (NumPy, load time).

`load_textured_parts(path)` reads any mesh file trimesh reads (the Google Robot's
`3obj/*.obj` with `meta_diffuse.png`, the objects' `textured.dae` / `textured.glb`,
SIMPLER's baked `baked_*` models) and returns one `TexturedPart` per material (pieces sharing one are joined):
its vertices and faces, a UV per face corner and its texture image, or, for an
untextured material, its colour (for a mesh with a texture but no UVs, the WidowX's,
the texture's mean colour). Textures are resampled (box filter, so the
minification is pre-filtered) to `TEXTURE_SIZE` x `TEXTURE_SIZE`: the renderer
keeps every texture of a scene in one fixed-size stack.

Cache key: the mesh file's digest and that of the material and image files in its
folder (the recolour folders repeat the OBJ files byte for byte).

UV convention (MuJoCo's, so that `mujoco.Renderer` shows the same textures from the
same model): u runs along image columns, v along image rows from the image's top
row (trimesh's OpenGL v runs from the bottom, so v = 1 - v_gl); values outside
[0, 1] repeat. Baked models carry their texture as the emissive map of a black
material (SIMPLER's `baked_*`): that map is the colour.

Shapes: vertices (V, 3) float64 metres in the file's frame (scene graph applied);
faces (F, 3) int32; corner_uv (F, 3, 2) float32; texture (S, S, 3) uint8 or None;
rgba (4,) float32 in [0, 1] (the material colour; white under a texture).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import pathlib

import numpy as np

from simpler_jax.assets.meshes import _cache_path, _save_cache, file_sha256
from simpler_jax.assets.paths import MissingAssetError

TEXTURE_SIZE = 512  # texels per side kept for every texture
_TEXTURE_VERSION = "v1"
_MATERIAL_SUFFIXES = (".mtl", ".png", ".jpg", ".jpeg")


@dataclasses.dataclass(frozen=True)
class TexturedPart:
    vertices: np.ndarray
    faces: np.ndarray
    corner_uv: np.ndarray
    texture: np.ndarray | None
    rgba: np.ndarray


def resample_texture(image, size: int = TEXTURE_SIZE) -> np.ndarray:
    """(size, size, 3) uint8 of a PIL image or (H, W, C) array (box filter, RGB)."""
    from PIL import Image

    if isinstance(image, np.ndarray):
        image = Image.fromarray(np.asarray(image, np.uint8))
    return np.asarray(image.convert("RGB").resize((size, size), Image.Resampling.BOX), np.uint8)


def _vertex_colors(geometry) -> np.ndarray | None:
    """(V, 4) float RGBA in [0, 255] of one trimesh geometry: its texture sampled at the
    vertex UVs (PBR base colour, else the baked emissive texture of SIMPLER's `baked_*`
    models), else its material colour (the emission where a baked material's diffuse
    is black), else its vertex colours."""
    from trimesh.visual.color import uv_to_color

    visual = geometry.visual
    n = len(geometry.vertices)
    material = getattr(visual, "material", None)
    uv = getattr(visual, "uv", None)
    if material is not None:
        for attr in ("baseColorTexture", "image", "emissiveTexture"):
            image = getattr(material, attr, None)
            if image is not None and uv is not None and len(uv) == n:
                return np.asarray(uv_to_color(uv, image), float)
        color = getattr(material, "main_color", None)
        emissive = getattr(material, "emissiveFactor", None)
        if (color is None or not np.any(np.asarray(color)[:3])) and emissive is not None:
            color = np.append(255.0 * np.asarray(emissive, float)[:3], 255.0)  # baked: colour in emission
        if color is not None:
            return np.broadcast_to(np.asarray(color, float)[:4], (n, 4))
    colors = getattr(visual, "vertex_colors", None)
    if colors is not None and len(colors) == n:
        return np.asarray(colors, float)
    return None


def _texture_image(material):
    """The colour texture of a trimesh material (PBR base colour, a simple material's
    image, else the emissive map of a baked material), or None."""
    for attr in ("baseColorTexture", "image"):
        image = getattr(material, attr, None)
        if image is not None:
            return image
    color = getattr(material, "baseColorFactor", None)
    if color is None:
        color = getattr(material, "main_color", None)
    if color is None or not np.any(np.asarray(color)[:3]):  # black diffuse: baked into emission
        return getattr(material, "emissiveTexture", None)
    return None


def _part(geometry, size: int, fallback_map: np.ndarray | None = None) -> TexturedPart | None:
    if not len(geometry.faces):
        return None
    visual = geometry.visual
    vertices = np.asarray(geometry.vertices, np.float64)
    faces = np.asarray(geometry.faces, np.int32)
    material = getattr(visual, "material", None)
    uv = getattr(visual, "uv", None)
    image = None if material is None else _texture_image(material)
    if image is not None and uv is not None and len(uv) == len(vertices):
        uv_mj = np.stack([uv[:, 0], 1.0 - uv[:, 1]], axis=-1).astype(np.float32)
        return TexturedPart(vertices, faces, uv_mj[faces], resample_texture(image, size),
                            np.ones(4, np.float32))
    no_uv = np.zeros((len(faces), 3, 2), np.float32)
    if fallback_map is not None:  # a texture but no UVs: its mean colour
        rgba = np.append(np.asarray(fallback_map, float).reshape(-1, 3).mean(axis=0) / 255.0, 1.0)
        return TexturedPart(vertices, faces, no_uv, None, rgba.astype(np.float32))
    colors = _vertex_colors(geometry)
    if colors is None:
        return None
    rgba = (colors[faces].mean(axis=(0, 1)) / 255.0).astype(np.float32)
    return TexturedPart(vertices, faces, no_uv, None, rgba)


def _single_obj_diffuse_map(path: pathlib.Path) -> np.ndarray | None:
    """The one `map_Kd` image of an OBJ file's material library, or None. trimesh loads
    no image for a mesh without UVs (the WidowX meshes: `../interbotix_black.png`)."""
    from PIL import Image

    if path.suffix.lower() != ".obj":
        return None
    libs = [line.split(None, 1)[1].strip() for line in path.read_text(errors="replace").splitlines()
            if line.startswith("mtllib ")]
    maps = []
    for lib in libs:
        mtl = path.parent / lib
        if mtl.is_file():
            maps += [line.split(None, 1)[1].strip() for line in mtl.read_text(errors="replace").splitlines()
                     if line.strip().startswith("map_Kd ")]
    image = path.parent / maps[0] if len(maps) == 1 else None
    return np.asarray(Image.open(image).convert("RGB")) if image is not None and image.is_file() else None


@functools.lru_cache(maxsize=None)
def _material_digest(folder: pathlib.Path) -> str:
    """Digest of the material and image files beside a mesh. The cache key needs it:
    the Google Robot's recolour folders hold byte-identical OBJ files whose textures
    differ."""
    h = hashlib.sha256()
    for f in sorted(folder.iterdir()):
        if f.suffix.lower() in _MATERIAL_SUFFIXES and f.is_file():
            h.update(f.name.encode() + b"\0" + file_sha256(f).encode())
    return h.hexdigest()[:16]


def merge_same_material(parts: list[TexturedPart]) -> list[TexturedPart]:
    """Parts with the same texture (or, untextured, the same colour) joined into one,
    in first-appearance order (the sink's 83 grey pieces become one geom)."""
    groups: dict[bytes, list[TexturedPart]] = {}
    for p in parts:
        key = p.texture.tobytes() if p.texture is not None else p.rgba.astype(np.float32).tobytes()
        groups.setdefault(key, []).append(p)
    merged = []
    for group in groups.values():
        offsets = np.cumsum([0] + [len(p.vertices) for p in group])[:-1]
        merged.append(TexturedPart(np.concatenate([p.vertices for p in group]),
                                   np.concatenate([p.faces + o for p, o in zip(group, offsets)]).astype(np.int32),
                                   np.concatenate([p.corner_uv for p in group]), group[0].texture, group[0].rgba))
    return merged


def load_textured_parts(path: str | pathlib.Path, size: int = TEXTURE_SIZE) -> list[TexturedPart]:
    """The parts of a visual mesh file, one per material, through the cache (see module
    docstring). Parts with neither texture nor colour are left out."""
    import trimesh

    path = pathlib.Path(path)
    if not path.is_file():
        raise MissingAssetError(f"missing mesh file {str(path)!r}")
    cached = _cache_path(path, f"textured-{size}-{_material_digest(path.parent)}-{_TEXTURE_VERSION}")
    if cached.is_file():
        with np.load(cached) as z:
            return [TexturedPart(z[f"v{i}"], z[f"f{i}"], z[f"uv{i}"],
                                 z[f"t{i}"] if z[f"t{i}"].size else None, z[f"c{i}"])
                    for i in range(int(z["count"]))]
    try:
        geometries = trimesh.load(str(path), force="scene").dump()
    except Exception as err:  # trimesh raises many types for bad files
        raise ValueError(f"cannot read mesh {str(path)!r}: {err}") from err
    fallback = _single_obj_diffuse_map(path)
    parts = merge_same_material([p for p in (_part(g, size, fallback) for g in geometries) if p is not None])
    arrays = {"count": np.asarray(len(parts))}
    for i, p in enumerate(parts):
        arrays.update({f"v{i}": p.vertices, f"f{i}": p.faces, f"uv{i}": p.corner_uv,
                       f"t{i}": p.texture if p.texture is not None else np.zeros((0,), np.uint8),
                       f"c{i}": p.rgba})
    _save_cache(cached, **arrays)
    return parts
