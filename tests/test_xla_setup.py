"""XLA:CPU flags are set on CPU-only installs and left out where an accelerator plugin is."""

import importlib.util
import os

import pytest

from simpler_jax import _xla_setup

FLAG = "--xla_cpu_use_fusion_emitters=false"


def _with_plugins(monkeypatch, installed: set[str]):
    real = importlib.util.find_spec
    monkeypatch.setattr(_xla_setup.importlib.util, "find_spec",
                        lambda name, *a: object() if name in installed else
                        (None if name in _xla_setup._ACCELERATOR_PLUGINS else real(name, *a)))


@pytest.mark.parametrize("plugins, platforms, expected", [
    (set(), "", True),                                 # CPU-only jaxlib
    ({"jax_cuda13_plugin"}, "", False),                # GPU build rejects XLA:CPU flags
    ({"jax_cuda12_plugin"}, "cpu", True),              # GPU install forced onto the CPU
    ({"libtpu"}, "", False),
])
def test_cpu_flags_only_without_an_accelerator_plugin(monkeypatch, plugins, platforms, expected):
    _with_plugins(monkeypatch, plugins)
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_hlo_as_text")
    monkeypatch.setenv("JAX_PLATFORMS", platforms)
    _xla_setup.apply_cpu_flags()
    flags = os.environ["XLA_FLAGS"]
    assert flags.startswith("--xla_dump_hlo_as_text")
    assert (FLAG in flags) is expected


def test_user_setting_of_the_flag_is_kept(monkeypatch):
    _with_plugins(monkeypatch, set())
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=true")
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    _xla_setup.apply_cpu_flags()
    assert os.environ["XLA_FLAGS"] == "--xla_cpu_use_fusion_emitters=true"
