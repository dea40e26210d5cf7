"""Triangulated MuJoCo primitives in the geom frame (NumPy, load time only).

Every function returns (vertices (V, 3) float64, faces (F, 3) int32) with outward
(counter-clockwise) winding. Boxes and finite planes are exact; curved shapes
(sphere, ellipsoid, capsule, cylinder) are approximated with `segments` around
their axis, so their silhouettes are inscribed polygons (error r * (1 - cos(pi/segments))).
"""

from __future__ import annotations

import mujoco
import numpy as np

G = mujoco.mjtGeom
INFINITE_PLANE_HALF_SIZE = 100.0  # MuJoCo draws a size-0 plane out to the far plane


def box(half: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """half: (3,) half extents."""
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = [(a, b, c) for a, b, c, d in quads] + [(a, c, d) for a, b, c, d in quads]
    return corners * np.asarray(half, float), np.array(faces, np.int32)


def plane(half_xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A z-up rectangle (z = 0), half sizes (2,); 0 means infinite."""
    hx, hy = (float(h) if h > 0 else INFINITE_PLANE_HALF_SIZE for h in half_xy[:2])
    v = np.array([[-hx, -hy, 0], [hx, -hy, 0], [hx, hy, 0], [-hx, hy, 0]], float)
    return v, np.array([[0, 1, 2], [0, 2, 3]], np.int32)


def _lathe(profile: np.ndarray, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Revolve a (K, 2) profile of (radius, z), ordered from bottom to top, about z."""
    ang = 2 * np.pi * np.arange(segments) / segments
    rings = [np.stack([r * np.cos(ang), r * np.sin(ang), np.full(segments, z)], 1) for r, z in profile]
    verts = np.concatenate(rings)
    faces = []
    for k in range(len(profile) - 1):
        for s in range(segments):
            a, b = k * segments + s, k * segments + (s + 1) % segments
            c, d = a + segments, b + segments
            faces += [(a, b, d), (a, d, c)]
    faces = np.array(faces, np.int32)
    # Drop triangles that collapsed on the axis (radius-0 rings).
    v = verts[faces]
    area = np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1)
    return verts, faces[area > 1e-12]


def ellipsoid(radii: np.ndarray, segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    theta = np.linspace(-np.pi / 2, np.pi / 2, segments // 2 + 1)
    v, f = _lathe(np.stack([np.cos(theta), np.sin(theta)], 1), segments)
    return v * np.asarray(radii, float), f


def capsule(radius: float, half_length: float, segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    theta = np.linspace(-np.pi / 2, np.pi / 2, segments // 2 + 2)
    bottom = [(radius * np.cos(t), -half_length + radius * np.sin(t)) for t in theta if t <= 0]
    top = [(radius * np.cos(t), half_length + radius * np.sin(t)) for t in theta if t >= 0]
    return _lathe(np.array(bottom + top), segments)


def cylinder(radius: float, half_length: float, segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    profile = np.array([(0, -half_length), (radius, -half_length), (radius, half_length), (0, half_length)])
    return _lathe(profile, segments)


def primitive_mesh(geom_type: int, size: np.ndarray, segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Triangles of a MuJoCo primitive geom of `geom_type` with model `size` (3,)."""
    size = np.asarray(size, float)
    if geom_type == G.mjGEOM_BOX:
        return box(size)
    if geom_type == G.mjGEOM_PLANE:
        return plane(size)
    if geom_type == G.mjGEOM_SPHERE:
        return ellipsoid(np.full(3, size[0]), segments)
    if geom_type == G.mjGEOM_ELLIPSOID:
        return ellipsoid(size, segments)
    if geom_type == G.mjGEOM_CAPSULE:
        return capsule(size[0], size[1], segments)
    if geom_type == G.mjGEOM_CYLINDER:
        return cylinder(size[0], size[1], segments)
    raise ValueError(f"geom type {geom_type} is not a supported primitive")
