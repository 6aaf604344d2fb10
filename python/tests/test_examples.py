"""The Python examples users copy (examples/python) run on small problems and draw their
pictures."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.parametrize("example, arguments, picture", [
    ("motor_unit_sfaps.py", ["--fibers", "20", "--electrodes", "3"], "example_motor_unit_muap.png"),
    ("hh_fi_curve.py", ["--neurons", "40", "--t-ms", "200"], "example_hh_fi_curve.png"),
    ("life_chunk_callback.py", ["--size", "64", "--generations", "40"],
     "example_life_population.png"),
])
def test_example_runs(tmp_path, example, arguments, picture):
    # The bootstrap installs Matplotlib, so CI fails without it; a machine set up otherwise
    # (the GPU machine's interpreter) skips the pictures.
    if importlib.util.find_spec("matplotlib") is None and not os.environ.get("CI"):
        pytest.skip("Matplotlib is not installed")
    done = subprocess.run([sys.executable, str(EXAMPLES / example), *arguments, "--output",
                           str(tmp_path)], capture_output=True, text=True, env=os.environ)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout
    assert (tmp_path / picture).stat().st_size > 1000
