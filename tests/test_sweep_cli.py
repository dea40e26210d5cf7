"""`python -m simpler_jax.sweep` refuses bad settings before compiling anything."""

import re

import pytest

from simpler_jax.sweep import parse_args


def test_defaults_are_small():
    a = parse_args([])
    assert a.robots == ["widowx", "google_robot"] and a.worlds == 8 and a.seed == 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--robots", "franka"], r"unknown robot\(s\) \['franka'\]; allowed: \['google_robot', 'widowx'\]"),
        (["--worlds", "0"], "--worlds must be >= 1, got 0"),
        (["--spread", "1.5"], r"--spread must be in \[0, 1\), got 1.5"),
    ],
)
def test_bad_settings_name_the_value(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert re.search(message, capsys.readouterr().err)
