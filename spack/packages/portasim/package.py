# Spack recipe for portasim: the backend comes from ^kokkos (the shape of the ddc and
# kokkos-fft recipes), with cuda_arch handed on to kokkos and kokkos-kernels.
from spack.package import *


class Portasim(CMakePackage, CudaPackage):
    """Performance-portable simulations on Kokkos: batched Hodgkin-Huxley neurons, Game of
    Life with a streaming output pipeline, single-fiber action potentials (MyoGen parity)
    and a CuPy-style GPU toolkit."""

    homepage = "https://github.com/portasim/portasim"
    git = "https://github.com/portasim/portasim.git"

    maintainers("portasim")
    license("BSD-3-Clause")

    version("main", branch="main")

    variant("openmp", default=True, description="Kokkos OpenMP backend (the CPU reference)")
    variant("mpi", default=False, description="MPI scale-out, one rank per GPU")
    variant("hdf5", default=True, description="HDF5 input and output")
    variant("kernels", default=True, description="Kokkos Kernels BLAS (gemm, norms)")
    variant("tests", default=False, description="Build the GoogleTest suite and benchmarks")

    depends_on("cxx", type="build")
    depends_on("c", type="build")
    depends_on("cmake@3.16:", type="build")

    depends_on("kokkos@3.4.01:")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+cuda+cuda_lambda+wrapper", when="+cuda")
    depends_on("kokkos-kernels", when="+kernels")
    depends_on("kokkos-kernels+cublas", when="+kernels+cuda")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
        depends_on(f"kokkos-kernels cuda_arch={arch}", when=f"+kernels+cuda cuda_arch={arch}")

    depends_on("hdf5~mpi", when="+hdf5~mpi")
    depends_on("hdf5+mpi", when="+hdf5+mpi")
    depends_on("mpi", when="+mpi")
    depends_on("cli11", type="build")
    depends_on("googletest", type="build", when="+tests")
    depends_on("benchmark", type="build", when="+tests")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("PORTASIM_ENABLE_MPI", "mpi"),
            self.define_from_variant("PORTASIM_ENABLE_HDF5", "hdf5"),
            self.define_from_variant("PORTASIM_ENABLE_KERNELS", "kernels"),
            self.define_from_variant("PORTASIM_ENABLE_TESTS", "tests"),
            self.define_from_variant("PORTASIM_ENABLE_BENCHMARKS", "tests"),
            self.define("PORTASIM_ENABLE_CLI", True),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        return args
