"""The mesh cache under parallel writers (pytest-xdist workers share one cache)."""

import threading

import numpy as np

from simpler_jax.assets import meshes


def test_parallel_writers_of_one_cache_entry_all_succeed(tmp_path):
    """Writers once shared one temporary name; a worker's rename then found the file
    gone (FileNotFoundError in CI). Each writer now has its own temporary file."""
    target = tmp_path / "meshes" / "key-mesh-v1.npz"
    vertices = np.arange(12.0).reshape(4, 3)
    errors = []

    def write():
        try:
            for _ in range(20):
                meshes._save_cache(target, vertices=vertices, faces=np.zeros((1, 3), np.int32))
        except Exception as err:  # collected: a thread's exception would not fail the test
            errors.append(err)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with np.load(target) as z:
        np.testing.assert_array_equal(z["vertices"], vertices)
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary left
