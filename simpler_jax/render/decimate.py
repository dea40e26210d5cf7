"""Triangle-budget mesh simplification by vertex clustering (NumPy, load time only).

trimesh's quadric decimation needs the optional `fast_simplification` package,
which is not installed, so meshes are simplified by vertex clustering: vertices
are snapped to a cubic grid, each occupied cell becomes one vertex (the mean of
its members), faces whose corners collapse are dropped. The cell size is found
by bisection so that the result has at most `max_faces` faces. Clustering keeps
the silhouette to within about one cell, which is what segmentation and depth
need; it does not preserve thin features smaller than a cell.
"""

from __future__ import annotations

import numpy as np


def cluster_vertices(vertices: np.ndarray, faces: np.ndarray, cell: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One clustering pass. vertices (V, 3), faces (F, 3) -> (V', 3), (F', 3) and the
    (F',) index of each kept face in `faces` (its corners in the same order)."""
    keys = np.floor(vertices / cell).astype(np.int64)
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    num = int(inverse.max()) + 1
    sums = np.zeros((num, 3))
    np.add.at(sums, inverse, vertices)
    counts = np.bincount(inverse, minlength=num)[:, None]
    new_vertices = sums / counts
    f = inverse[faces]
    keep = (f[:, 0] != f[:, 1]) & (f[:, 1] != f[:, 2]) & (f[:, 2] != f[:, 0])
    kept = np.nonzero(keep)[0]
    f = f[keep]
    # Drop duplicate faces (same corner set, either winding).
    _, first = np.unique(np.sort(f, axis=1), axis=0, return_index=True)
    first = np.sort(first)
    f, kept = f[first], kept[first]
    used = np.unique(f)
    remap = -np.ones(num, np.int64)
    remap[used] = np.arange(len(used))
    return new_vertices[used], remap[f].astype(np.int32), kept


def decimate(vertices: np.ndarray, faces: np.ndarray, max_faces: int | None,
             iterations: int = 24, return_kept: bool = False):
    """Simplify a mesh to at most `max_faces` faces (None or a mesh already small
    enough: returned unchanged). vertices (V, 3) float, faces (F, 3) int ->
    (V', 3), (F', 3), and with `return_kept` also the (F',) index of each kept face
    in `faces` (corner k of a kept face is corner k of that face: per-corner data
    such as UVs carries over)."""
    vertices = np.asarray(vertices, np.float64)
    faces = np.asarray(faces, np.int64)
    if max_faces is None or len(faces) <= max_faces:
        out = (vertices, faces.astype(np.int32), np.arange(len(faces)))
        return out if return_kept else out[:2]
    if max_faces < 4:
        raise ValueError(f"max_faces must be >= 4, got {max_faces}")
    extent = float(np.max(vertices.max(0) - vertices.min(0)))
    # Bisect the cell size in log space: faces(lo) > max_faces >= faces(hi).
    lo, hi = extent * 1e-5, extent
    best = cluster_vertices(vertices, faces, hi)
    for _ in range(iterations):
        cell = float(np.sqrt(lo * hi))
        v, f, kept = cluster_vertices(vertices, faces, cell)
        if len(f) > max_faces:
            lo = cell
        else:
            hi, best = cell, (v, f, kept)
            if len(f) >= 0.9 * max_faces:
                break
    return best if return_kept else best[:2]
