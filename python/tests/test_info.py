import portasim


def test_info_names_the_backends():
    info = portasim.info()
    assert info["default_backend"] in info["backends"]
    assert set(info["backends"]) & {"Serial", "OpenMP", "Cuda"}
    assert info["version"] and info["kokkos"]
    assert isinstance(info["devices"], list) and info["threads"] >= 1


def test_info_names_the_cpu_level():
    info = portasim.info()
    assert info["cpu_arch"] == portasim._cpu.ARCH
    shown = {"pni": "sse3", "bmi1": "bmi", "abm": "lzcnt", "sse4_1": "sse4.1", "sse4_2": "sse4.2"}
    assert info["cpu_required"] == [shown.get(flag, flag) for flag in portasim._cpu.REQUIRED]


def test_import_refuses_a_cpu_without_the_level(tmp_path):
    """On a CPU without the build's features the import raises ImportError naming them, before
    the extension is loaded (which would end the interpreter)."""
    import os
    import subprocess
    import sys
    import pytest
    if "avx2" not in portasim._cpu.REQUIRED:
        pytest.skip("built for a level without AVX2 (none): nothing the CPU could lack")
    env = dict(os.environ, PORTASIM_CPU_PRETEND_MISSING="avx2,fma")
    run = subprocess.run([sys.executable, "-c", "import portasim"], env=env, capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "ImportError" in run.stderr and "lacks: avx2 fma" in run.stderr, run.stderr
    assert "PORTASIM_CPU_ARCH" in run.stderr
