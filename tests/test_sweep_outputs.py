"""What a sweep shows people: sim-vs-real metrics and scatter plots, GIF tiling (no physics)."""

import numpy as np
import pytest
from PIL import Image

from simpler_jax.metrics import aligned, mmrv, paper_tables, pearson
from simpler_jax.sweep.plots import write_scatter
from simpler_jax.sweep.table import format_table, sim_vs_real
from simpler_jax.sweep.videos import tile, write_gif


def paper_sim_rows(task: str, variant: str = "visual_matching") -> list[dict]:
    """Summary-table rows holding the paper's SIMPLER success rates as if a sweep had run them."""
    return [{"task": task, "variant": variant, "policy": p, "success_rate": r}
            for p, r in paper_tables.SIMPLER_VISUAL_MATCHING_PERF[task].items()]


@pytest.mark.parametrize("task", paper_tables.TASKS)
def test_sim_vs_real_of_the_paper_tables(task):
    (c,) = sim_vs_real(paper_sim_rows(task))
    ref = aligned(task)
    assert c["policies"] == list(ref.policies)
    assert c["real"] == pytest.approx(ref.real) and c["sim"] == pytest.approx(ref.sim)
    assert c["mmrv"] == pytest.approx(mmrv(ref.real, ref.sim), abs=1e-12)
    assert c["pearson"] == pytest.approx(pearson(ref.real, ref.sim), abs=1e-12)


def test_sim_vs_real_needs_two_policies_with_real_numbers():
    rows = paper_sim_rows("widowx_stack_cube")[:1] + [
        {"task": "widowx_stack_cube", "variant": "visual_matching", "policy": "scripted", "success_rate": 0.5}]
    assert sim_vs_real(rows) == []
    assert sim_vs_real([{"task": "google_robot_pick_object", "variant": "visual_matching",
                         "policy": "rt-1-x", "success_rate": 0.5}] * 2) == []  # no real numbers for it
    # variants are compared separately
    both = paper_sim_rows("widowx_carrot_on_plate") + paper_sim_rows("widowx_carrot_on_plate", "other")
    assert [c["variant"] for c in sim_vs_real(both)] == ["visual_matching", "other"]


def test_scatter_plot_and_table_line(tmp_path):
    (c,) = sim_vs_real(paper_sim_rows("google_robot_move_near"))
    path = write_scatter(tmp_path / "plots" / "move_near.png", c)
    with Image.open(path) as im:
        assert im.format == "PNG" and im.size == (450, 450)
        pixels = np.asarray(im.convert("L"))
    assert (pixels < 128).mean() > 0.01  # axes, points and labels drawn
    table = [{"task": "google_robot_move_near", "policy": p, "variant": "visual_matching", "episodes": 60,
              "expected_episodes": 60, "success_rate": r, "success_wilson95": [0.0, 1.0],
              "strict_success_rate": 0.0, "nonfinite_worlds": 0, "control_steps_per_s": None}
             for p, r in zip(c["policies"], c["sim"])]
    text = format_table(table, [c])
    assert f"MMRV {c['mmrv']:.3f}, Pearson {c['pearson']:.3f}" in text
    assert len(text.splitlines()) == 1 + len(table) + 2


def test_tile_and_gif(tmp_path):
    a = np.zeros((3, 4, 5, 3), np.uint8)
    b = np.full((3, 4, 5, 3), 200, np.uint8)
    t = tile([a, b], gap=2)
    assert t.shape == (3, 4, 12, 3)
    assert (t[:, :, :5] == 0).all() and (t[:, :, 5:7] == 255).all() and (t[:, :, 7:] == 200).all()
    frames = np.stack([np.full((8, 12, 3), v, np.uint8) for v in (0, 100, 200)])
    write_gif(tmp_path / "v.gif", frames, fps=5)
    with Image.open(tmp_path / "v.gif") as im:
        assert im.n_frames == 3 and im.size == (12, 8) and im.info["duration"] == 200
        im.seek(2)
        assert np.asarray(im.convert("RGB"))[0, 0, 0] == 200
    assert not (tmp_path / "v.gif.tmp").exists()
