# Spack recipe for portasim.
#
# Shape of the ddc and kokkos-fft recipes: the backend lives in ^kokkos and portasim is
# compiled with the compiler Kokkos was built for (nvcc_wrapper for CUDA). portasim's own
# cuda/openmp variants only ask for the matching Kokkos and hand cuda_arch on to kokkos and
# kokkos-kernels, so that `spack install portasim+cuda cuda_arch=90` is all a user types.
#
# tests/spack/check_recipe.py executes this file against a mock of the Spack DSL and checks it
# against CMakeLists.txt: every PORTASIM_ENABLE_* option has a variant here and vice versa.
# Add the variant in the same commit as the option.
from spack.package import *

try:  # Spack >= 1.0: build systems live in the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
except ImportError:  # Spack 0.x exports them from spack.package (imported above)
    pass


class Portasim(CMakePackage, CudaPackage):
    """Performance-portable simulations on Kokkos: batched Hodgkin-Huxley neurons, Game of
    Life with a streaming output pipeline, single-fiber action potentials and a CuPy-style
    GPU toolkit; one MPI rank per GPU."""

    # Where the repository will be published; until then the environments build this checkout
    # (their `develop:` entry), and `spack develop` does the same for other specs.
    homepage = "https://github.com/portasim/portasim"
    git = "https://github.com/portasim/portasim.git"

    # No tagged release yet: a version with a url and sha256 goes here with the first tag.
    version("main", branch="main")

    # cuda and cuda_arch come from CudaPackage.
    variant("openmp", default=True, description="Kokkos OpenMP backend (the CPU reference)")
    variant("kernels", default=True, description="Kokkos Kernels BLAS (gemm, norms)")
    variant("hdf5", default=True, description="HDF5 input and output")
    variant("lapack", default=True, description="LAPACKE for the toolkit's SVD on host backends")
    variant("mpi", default=False, description="MPI scale-out, one rank per GPU")
    variant("nvtx", default=True, when="+cuda", description="NVTX ranges for Nsight profiles")
    variant("cli", default=True, description="The portasim command-line program")
    # CMake builds tests and benchmarks by default (developers); a Spack install does not.
    variant("tests", default=False, description="Build the GoogleTest suite")
    variant("benchmarks", default=False, description="Build the Google Benchmark programs")
    variant("examples", default=False, description="Build the example programs in examples/")
    variant("python", default=False, description="The Python package portasim (pybind11)")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    # 3.21: CMakePresets.json, which developers of an installed tree use as well.
    depends_on("cmake@3.21:", type="build")

    # Kokkos 3.4 is the oldest API portasim codes to; Kokkos 5 (C++20, no cuda_lambda) is not
    # supported yet. Tested: Kokkos 3.4.01 with Kokkos Kernels 3.4.01 (scripts/bootstrap.sh,
    # CI) and Kokkos 4.6.01 with Kokkos Kernels 4.6.02 (scripts/check_kokkos.sh; with CUDA 13,
    # the patches in scripts/patches/kokkos-4.6.01). Allowed but not tested: the other
    # releases from 3.4 to 4.x.
    depends_on("kokkos@3.4:4")
    depends_on("kokkos+openmp", when="+openmp")
    # cuda_lambda: KOKKOS_LAMBDA in device code; wrapper: nvcc_wrapper is the CXX compiler.
    depends_on("kokkos+cuda+cuda_lambda+wrapper", when="+cuda")
    conflicts("^kokkos+cuda", when="~cuda", msg="^kokkos+cuda builds CUDA code: use portasim+cuda")

    depends_on("kokkos-kernels@3.4:4", when="+kernels")
    depends_on("kokkos-kernels+cuda+cublas", when="+kernels+cuda")

    # Kokkos takes exactly one cuda_arch (CudaPackage already refuses +cuda cuda_arch=none);
    # kokkos-kernels must be built for the same one.
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
        depends_on(f"kokkos-kernels cuda_arch={_arch}", when=f"+kernels+cuda cuda_arch={_arch}")

    depends_on("hdf5@1.10:", when="+hdf5")
    depends_on("hdf5+mpi", when="+hdf5+mpi")
    depends_on("mpi", when="+mpi")

    # Host SVD goes through LAPACKE (a lapack provider with the C interface, e.g. openblas or
    # netlib-lapack+lapacke); +cuda uses cuSOLVER from the CUDA toolkit (CudaPackage already
    # depends on cuda).
    depends_on("lapack", when="+lapack")

    depends_on("cli11", type="build", when="+cli")
    with when("+tests"):
        depends_on("googletest")
        # The CLI tests check the HDF5 layout with h5py when they find it.
        depends_on("python@3.8:", type="test")
        depends_on("py-numpy", type="test")
        depends_on("py-h5py", type="test")
    depends_on("benchmark", when="+benchmarks")
    depends_on("python@3.8:", type=("build", "run"), when="+python")
    depends_on("py-pybind11@2.6:", type="build", when="+python")
    depends_on("py-numpy", type="run", when="+python")
    conflicts("+python", when="~hdf5", msg="the Python package runs the jobs, which need HDF5")
    conflicts("+python", when="~cli", msg="the Python package's tests compare with the CLI")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("PORTASIM_ENABLE_KERNELS", "kernels"),
            self.define_from_variant("PORTASIM_ENABLE_HDF5", "hdf5"),
            self.define_from_variant("PORTASIM_ENABLE_LAPACKE", "lapack"),
            self.define_from_variant("PORTASIM_ENABLE_MPI", "mpi"),
            self.define_from_variant("PORTASIM_ENABLE_CLI", "cli"),
            self.define_from_variant("PORTASIM_ENABLE_TESTS", "tests"),
            self.define_from_variant("PORTASIM_ENABLE_BENCHMARKS", "benchmarks"),
            self.define_from_variant("PORTASIM_ENABLE_EXAMPLES", "examples"),
            self.define_from_variant("PORTASIM_ENABLE_PYTHON", "python"),
            # Spack compiles for the spec's target= with its own flags: portasim adds none.
            self.define("PORTASIM_CPU_ARCH", "none"),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            # nvcc_wrapper for +cuda, the Spack compiler wrapper otherwise (as ddc does).
            self.define("CMAKE_CXX_COMPILER", spec["kokkos"].package.kokkos_cxx),
        ]
        # nvtx exists only with +cuda; CMake turns NVTX off without CUDA anyway, say so
        # explicitly so that the cache shows what was built.
        if spec.satisfies("+cuda"):
            args.append(self.define_from_variant("PORTASIM_ENABLE_NVTX", "nvtx"))
        else:
            args.append(self.define("PORTASIM_ENABLE_NVTX", False))
        if spec.satisfies("+kernels"):
            args.append(self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix))
        return args
