import json

from simpler_jax.utils.records import write_json_atomic


def test_write_json_atomic_creates_the_folder_and_leaves_no_temporary(tmp_path):
    out = tmp_path / "benchmarks" / "out" / "result.json"
    write_json_atomic(out, {"tasks": [1, 2]})
    write_json_atomic(out, {"tasks": [3]})  # replaces the old file
    assert json.loads(out.read_text()) == {"tasks": [3]}
    assert sorted(p.name for p in out.parent.iterdir()) == ["result.json"]
