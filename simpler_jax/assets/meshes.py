"""Mesh loading for MuJoCo, converted once into a cache keyed by the source checksum.

MuJoCo loads OBJ/STL only (no DAE/GLB), and its OBJ reader does not split a file into
its convex pieces. Every mesh the project uses goes through `load_mesh`, which reads
any format trimesh reads, merges duplicate vertices, and stores vertices and faces as
`.npz` under `<cache>/meshes/<sha256 of the source file>.npz`; later calls read the cache.
`convex_pieces` splits a SIMPLER `collision.obj` into its connected pieces (one
convex hull each), which is how the original loads object collision shapes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib

import numpy as np

from simpler_jax.assets.paths import MissingAssetError, cache_dir

_CACHE_VERSION = "v1"


@dataclasses.dataclass(frozen=True)
class MeshArrays:
    vertices: np.ndarray  # (V, 3) float64, metres after scaling
    faces: np.ndarray  # (F, 3) int32


def file_sha256(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _cache_path(source: pathlib.Path, tag: str) -> pathlib.Path:
    key = f"{file_sha256(source)}-{tag}-{_CACHE_VERSION}"
    return cache_dir() / "meshes" / f"{key}.npz"


def _read_with_trimesh(path: pathlib.Path) -> MeshArrays:
    import trimesh

    try:
        mesh = trimesh.load(str(path), force="mesh", process=True)
    except Exception as err:  # trimesh raises many types for bad files
        raise ValueError(f"cannot read mesh {str(path)!r}: {err}") from err
    if len(mesh.faces) == 0:
        raise ValueError(f"mesh {str(path)!r} has no faces")
    return MeshArrays(np.asarray(mesh.vertices, float), np.asarray(mesh.faces, np.int32))


def load_mesh(path: str | pathlib.Path) -> MeshArrays:
    """Vertices and faces of a mesh file (any trimesh format), through the cache."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise MissingAssetError(f"missing mesh file {str(path)!r}")
    cached = _cache_path(path, "mesh")
    if cached.is_file():
        with np.load(cached) as z:
            return MeshArrays(z["vertices"], z["faces"])
    arrays = _read_with_trimesh(path)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp.npz")
    np.savez(tmp, vertices=arrays.vertices, faces=arrays.faces)
    tmp.replace(cached)
    return arrays


def merge_vertices(mesh: MeshArrays, tol: float = 1e-7) -> MeshArrays:
    """Merge vertices closer than `tol` (OBJ files repeat them per face for UVs/normals)."""
    keys = np.round(mesh.vertices / tol).astype(np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    return MeshArrays(mesh.vertices[first], inverse.reshape(-1)[mesh.faces].astype(np.int32))


def connected_pieces(mesh: MeshArrays) -> list[MeshArrays]:
    """Split a mesh into its pieces: faces connected through shared vertex positions."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    mesh = merge_vertices(mesh)
    f = mesh.faces
    n = len(mesh.vertices)
    rows = np.concatenate([f[:, 0], f[:, 1], f[:, 2]])
    cols = np.concatenate([f[:, 1], f[:, 2], f[:, 0]])
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    pieces = []
    face_labels = labels[f[:, 0]]
    for lab in np.unique(face_labels):
        faces = f[face_labels == lab]
        used = np.unique(faces)
        remap = -np.ones(n, np.int64)
        remap[used] = np.arange(len(used))
        pieces.append(MeshArrays(mesh.vertices[used], remap[faces].astype(np.int32)))
    return pieces


def convex_pieces(path: str | pathlib.Path) -> list[MeshArrays]:
    """The convex pieces of a SIMPLER `collision.obj` (cached like `load_mesh`)."""
    path = pathlib.Path(path)
    return connected_pieces(load_mesh(path))
