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
import os
import pathlib
import tempfile

import numpy as np

from simpler_jax.assets.paths import MissingAssetError, cache_dir

_CACHE_VERSION = "v1"  # mesh arrays


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


def _save_cache(cached: pathlib.Path, **arrays: np.ndarray) -> None:
    """Write `cached` atomically. Each writer has its own temporary file: parallel
    test workers sharing one name renamed it from under each other."""
    cached.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{cached.stem}-", suffix=".npz", dir=cached.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, cached)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise


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
    _save_cache(cached, vertices=arrays.vertices, faces=arrays.faces)
    return arrays


VISUAL_MESH_NAMES = ("textured.obj", "textured.dae", "textured.glb")  # the original's order


def visual_mesh_file(model_dir: str | pathlib.Path) -> pathlib.Path | None:
    """An object model's visual mesh (`textured.obj`, else `.dae`, else `.glb`), or None."""
    d = pathlib.Path(model_dir)
    return next((d / n for n in VISUAL_MESH_NAMES if (d / n).is_file()), None)


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


def support_directions(tilt: float) -> np.ndarray:
    """(24, 3) unit directions: around each of the 6 axis directions, 4 tilted `tilt` rad
    toward the diagonals between the other two axes."""
    dirs = []
    for axis in range(3):
        u, v = [a for a in range(3) if a != axis]
        for sign in (1.0, -1.0):
            for su, sv in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                d = np.zeros(3)
                d[axis] = sign * np.cos(tilt)
                d[u], d[v] = su * np.sin(tilt) / np.sqrt(2), sv * np.sin(tilt) / np.sqrt(2)
                dirs.append(d)
    return np.asarray(dirs)


def support_vertices(vertices: np.ndarray, tilt: float = np.radians(30.0)) -> np.ndarray:
    """(<= 24, 3) the vertices of `vertices` (N, 3) extreme along `support_directions`.

    A capped hull built this way keeps a flat face around each model axis: a flat
    base gives 4 rim points in one plane, and a rounded one (an orange's) is cut
    flat `tilt` from its lowest point. Qhull's own cap (`maxhullvert`) keeps the
    extreme points instead, and left the orange standing on one vertex and the
    bottle on a base 3 mm out of plane; in MJX both rolled or toppled where MuJoCo
    C keeps them at rest.
    """
    centred = vertices - vertices.mean(axis=0)
    picks = np.argmax(centred @ support_directions(tilt).T, axis=0)  # (24,): 6 groups of 4
    out = vertices[picks].copy()
    # Each axis group's 4 points go out to the plane of its outermost one (a rounded
    # rim leaves them up to a few mm apart), so every face around an axis is flat.
    for g in range(6):
        axis, sign = g // 2, (1.0, -1.0)[g % 2]
        rows = slice(4 * g, 4 * g + 4)
        out[rows, axis] = sign * np.max(sign * out[rows, axis])
    return np.unique(out, axis=0)


def hull_vertices(points: np.ndarray) -> np.ndarray:
    """(K, 3) the vertices of the convex hull of `points` (N, 3)."""
    from scipy.spatial import ConvexHull

    return points[ConvexHull(points).vertices]


def hull_equations(points: np.ndarray) -> np.ndarray:
    """(F, 4) facets (n, offset) of the convex hull of `points` (N, 3): inside, n @ p + offset <= 0."""
    from scipy.spatial import ConvexHull

    return ConvexHull(points).equations


def hull_top(equations: np.ndarray, xy, tol: float = 1e-9) -> np.ndarray:
    """Highest z of the vertical lines through `xy` (..., 2) inside the hull given by its
    facets (`hull_equations`, (F, 4)): (...,) heights, -inf where a line misses it."""
    xy = np.asarray(xy, np.float64)
    n, off = equations[:, :3], equations[:, 3]
    rhs = -(off + xy[..., :1] * n[:, 0] + xy[..., 1:2] * n[:, 1])  # (..., F): n_z * z <= rhs
    up, down, side = n[:, 2] > 1e-9, n[:, 2] < -1e-9, np.abs(n[:, 2]) <= 1e-9
    top = np.min(rhs[..., up] / n[up, 2], axis=-1, initial=np.inf)
    bottom = np.max(rhs[..., down] / n[down, 2], axis=-1, initial=-np.inf)
    inside = np.all(rhs[..., side] >= -tol, axis=-1) & (top >= bottom - tol)
    return np.where(inside, top, -np.inf)


def top_cover(pieces: list[np.ndarray], count: int, cell: float = 0.004, tol: float = 0.003) -> list[int]:
    """Indices (sorted) of at most `count` of the convex `pieces` ((N_i, 3) vertices each)
    chosen for what is touched from above: greedily, the piece whose hull top is within
    `tol` of the top of all the hulls on the most cells of a `cell` grid over their
    footprint, then the next on the cells still uncovered. A fixed object (the
    eggplant task's sink) keeps these rather than its largest pieces: the largest
    leave holes in the surface objects rest on and the hand reaches into."""
    if len(pieces) <= count:
        return list(range(len(pieces)))
    lo = np.min([p.min(0) for p in pieces], axis=0)[:2]
    hi = np.max([p.max(0) for p in pieces], axis=0)[:2]
    axes = [np.arange(lo[k], hi[k] + cell, cell) for k in range(2)]
    xy = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 2)
    tops = np.stack([hull_top(hull_equations(p), xy) for p in pieces])  # (pieces, cells)
    surface = tops.max(0)
    reaches = (tops >= surface - tol) & np.isfinite(surface)  # piece i forms the top at cell j
    chosen, covered = [], np.zeros(len(xy), bool)
    for _ in range(count):
        gain = (reaches & ~covered).sum(1)
        best = int(np.argmax(gain))
        if gain[best] == 0:
            break
        chosen.append(best)
        covered |= reaches[best]
    return sorted(chosen)


def hull_volume(points: np.ndarray) -> float:
    """Volume of the convex hull of `points` (N, 3); 0 for a degenerate (flat) set."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return float(ConvexHull(points).volume)
    except QhullError:
        return 0.0


def solid_mass_properties(pieces: list[np.ndarray], density: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, (3,) centre of mass and (6,) inertia about it (xx, yy, zz, xy, xz, yz, as
    MuJoCo's `fullinertia`) of the union of convex pieces, each given by its (N, 3)
    vertices, at uniform `density`. Each hull is summed as tetrahedra from its centroid."""
    from scipy.spatial import ConvexHull

    vols, firsts, seconds = [], [], []  # per tetrahedron: volume, sum of corners, second moment
    for vertices in pieces:
        hull = ConvexHull(vertices)
        apex = vertices[hull.vertices].mean(axis=0)
        tets = np.stack([np.broadcast_to(apex, (len(hull.simplices), 3)), *np.moveaxis(vertices[hull.simplices], 1, 0)],
                        axis=1)  # (T, 4, 3)
        vol = np.abs(np.linalg.det(tets[:, 1:] - tets[:, :1])) / 6.0
        corners = tets.sum(axis=1)  # (T, 3)
        # Integral of x x^T over a tetrahedron: V/20 (sum_i v_i v_i^T + (sum_i v_i)(sum_i v_i)^T).
        outer = np.einsum("tki,tkj->tij", tets, tets) + np.einsum("ti,tj->tij", corners, corners)
        vols.append(vol)
        firsts.append(vol[:, None] * corners / 4.0)
        seconds.append(vol[:, None, None] * outer / 20.0)
    volume = float(np.concatenate(vols).sum())
    com = np.concatenate(firsts).sum(axis=0) / volume
    second = np.concatenate(seconds).sum(axis=0) - volume * np.outer(com, com)  # about the COM
    inertia = density * (np.trace(second) * np.eye(3) - second)
    full = np.array([inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1], inertia[0, 2], inertia[1, 2]])
    return density * volume, com, full
