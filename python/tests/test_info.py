import portasim


def test_info_names_the_backends():
    info = portasim.info()
    assert info["default_backend"] in info["backends"]
    assert set(info["backends"]) & {"Serial", "OpenMP", "Cuda"}
    assert info["version"] and info["kokkos"]
    assert isinstance(info["devices"], list) and info["threads"] >= 1
