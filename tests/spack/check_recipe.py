#!/usr/bin/env python3
"""Keeps spack/packages/portasim/package.py and the CMake options from drifting apart.

The recipe is executed against spack_mock (a recording stand-in for Spack's package DSL, no
Spack needed), then checked against the option() calls of the CMake sources:
  * every PORTASIM_ENABLE_* option is set by define_from_variant from a variant, and every
    variant that is not a backend selector sets one;
  * each variant's default is the CMake default, or the difference is listed below with why;
  * every when= condition names real variants, and for a set of variant combinations the
    dependencies, conflicts and cmake_args() give what a build of that combination needs.

usage: check_recipe.py SOURCE_DIR
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spack_mock  # noqa: E402

# Variants that choose the Kokkos backend (the recipe hands them to ^kokkos) rather than a
# portasim CMake option.
BACKEND_VARIANTS = {
    "cuda": "selects ^kokkos+cuda; CMake takes the backend from Kokkos",
    "cuda_arch": "handed to kokkos and kokkos-kernels",
    "openmp": "selects ^kokkos+openmp; CMake takes the backend from Kokkos",
}
# variant -> why its default differs from the CMake option's default.
DOCUMENTED_DEFAULT_DIFFERENCES = {
    "tests": "CMake builds the test suite for developers; a Spack install does not",
    "benchmarks": "CMake builds the benchmarks for developers; a Spack install does not",
    "examples": "CMake builds and tests the examples in the tree; a Spack install has no use "
    "for them (users copy the sources)",
    "python": "a developer's build makes the package when pybind11 is there; a Spack install "
    "adds Python and pybind11 to the dependencies only when asked",
}
# CMake cache variables the recipe may set besides the options (none of them are options).
OTHER_CMAKE_VARIABLES = {"Kokkos_ROOT", "KokkosKernels_ROOT", "CMAKE_CXX_COMPILER"}

_OPTION = re.compile(r'\boption\s*\(\s*(PORTASIM_\w+)\s+"[^"]*"\s*(\w+)?\s*\)', re.S)
_DEPENDENT = re.compile(r'\bcmake_dependent_option\s*\(\s*(PORTASIM_\w+)\s+"[^"]*"\s+(\w+)', re.S)
_CACHE = re.compile(r'\bset\s*\(\s*(PORTASIM_\w+)\s+[^)]*\bCACHE\b', re.S)

failures = []


def fail(message):
    failures.append(message)


def cmake_sources(source_dir):
    for top, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and d != "spack"]
        for f in files:
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                yield os.path.join(top, f)


def cmake_options(source_dir):
    """PORTASIM_* option name -> default (True/False), and other PORTASIM_* cache variables."""
    options, cache = {}, set()
    for path in cmake_sources(source_dir):
        with open(path) as f:
            text = re.sub(r"#[^\n]*", "", f.read())
        for name, default in _OPTION.findall(text) + _DEPENDENT.findall(text):
            options[name] = (default or "OFF").upper() in ("ON", "TRUE", "YES", "1")
        cache.update(_CACHE.findall(text))
    return options, cache


def flags_of(args):
    out = {}
    for a in args:
        if not a:
            continue
        m = re.match(r"-D([\w]+)(?::\w+)?=(.*)", a)
        if not m:
            fail(f"cmake_args() item {a!r} is not a -DNAME=VALUE definition")
            continue
        out[m.group(1)] = m.group(2)
    return out


def evaluate(cls, user):
    spec = spack_mock.concretize(cls, "portasim", user)
    pkg = cls(spec)
    flags = flags_of(pkg.cmake_args())
    return spec, flags, spec.define_from_variant_calls


def expect(cond, what, user):
    if not cond:
        fail(f"portasim {user or '(defaults)'}: {what}")


def main(source_dir):
    recipe = os.path.join(source_dir, "spack", "packages", "portasim", "package.py")
    try:
        legacy = spack_mock.load_recipe(recipe, "Portasim", modern=False)
        cls = spack_mock.load_recipe(recipe, "Portasim", modern=True)
    except Exception as e:  # the recipe must load under both Spack layouts
        print(f"FAIL: {recipe} does not load: {type(e).__name__}: {e}")
        return 1
    if len(legacy.directives()) != len(cls.directives()):
        fail("the recipe declares different directives under Spack 0.x and Spack >= 1.0 imports")

    options, cache_vars = cmake_options(source_dir)
    if not options:
        fail("found no PORTASIM_* option() in the CMake sources: the parser is out of date")
    variants = {d.name: d for d in cls.directives("variant")}
    base_variants = {d.name for d in spack_mock.CMakePackage.directives("variant")}

    # --- versions: a real source for every one, no placeholders.
    for d in cls.directives("version"):
        git_ref = any(k in d.kwargs for k in ("branch", "tag", "commit"))
        archive = (d.checksum or "sha256" in d.kwargs) and (getattr(cls, "url", None)
                                                           or "url" in d.kwargs)
        if not (git_ref and getattr(cls, "git", None)) and not archive:
            fail(f"version {d.name!r} has neither a git ref nor a url with a sha256")
    if not cls.directives("version"):
        fail("the recipe declares no version")

    # --- when= conditions and dependency specs name real things.
    for d in cls.own_directives("depends_on") + cls.own_directives("conflicts") + \
            cls.own_directives("variant"):
        for text in filter(None, [getattr(d, "when", None), getattr(d, "spec", None)
                                  if d.kind == "conflicts" else None]):
            try:
                root, _ = spack_mock.parse(text)
            except ValueError as e:
                fail(str(e))
                continue
            if root.name not in (None, "portasim"):
                continue
            for key in root.variants:
                if key not in variants:
                    fail(f"{d.kind}({getattr(d, 'spec', d.__dict__.get('name'))!r}, "
                         f"when={text!r}): portasim has no variant {key!r}")
        if d.kind == "depends_on":
            try:
                root, deps = spack_mock.parse(d.spec)
            except ValueError as e:
                fail(str(e))
                continue
            if root.name is None or deps:
                fail(f"depends_on({d.spec!r}) does not name exactly one package")

    ranges = {d.spec.split("@")[0]: d.spec.split("@")[1] for d in cls.directives("depends_on")
              if d.spec.startswith(("kokkos@", "kokkos-kernels@"))}
    if ranges.get("kokkos") != ranges.get("kokkos-kernels"):
        fail(f"kokkos and kokkos-kernels version ranges differ: {ranges}")

    # --- variant combinations -> dependencies and flags.
    combos = {
        "": {},
        "+cuda cuda_arch=90": {},
        "+cuda cuda_arch=80 ~nvtx ~kernels": {},
        "~cuda +openmp": {},
        "~openmp": {},
        "+mpi": {},
        "+mpi ~hdf5": {},
        "~kernels ~cli": {},
        "+tests +benchmarks": {},
    }
    mapped = {}  # cmake option -> variant
    left_to_default = {}  # cmake option -> combinations whose cmake_args() do not set it
    for user in combos:
        try:
            spec, flags, calls = evaluate(cls, user)
        except Exception as e:
            fail(f"portasim {user or '(defaults)'}: {type(e).__name__}: {e}")
            continue
        combos[user] = (spec, flags)
        for cmake_var, variant_name in calls:
            if mapped.setdefault(cmake_var, variant_name) != variant_name:
                fail(f"{cmake_var} is set from two variants: {mapped[cmake_var]} and "
                     f"{variant_name}")
        for name in flags:
            if name.startswith("PORTASIM_") and name not in options and name not in cache_vars:
                fail(f"cmake_args() sets {name}, which no CMakeLists.txt declares")
            elif not name.startswith("PORTASIM_") and name not in OTHER_CMAKE_VARIABLES:
                fail(f"cmake_args() sets {name}: add it to OTHER_CMAKE_VARIABLES if intended")
        # Every option gets an explicit value: an install must not depend on CMake defaults
        # that may change.
        for name in options:
            if name not in flags:
                left_to_default.setdefault(name, []).append(user or "(defaults)")
        # Each flag equals its variant's value.
        root = spec.root.variants
        for cmake_var, variant_name in calls:
            if variant_name in root and cmake_var in flags:
                expect(flags[cmake_var] == ("ON" if root[variant_name] else "OFF"),
                       f"{cmake_var}={flags[cmake_var]} but {variant_name}={root[variant_name]}",
                       user)

        deps = spec.deps
        kokkos = deps.get("kokkos")
        expect(kokkos is not None, "no kokkos dependency", user)
        if kokkos is None:
            continue
        cuda = root.get("cuda") is True
        kv = kokkos.variants
        expect(flags.get("Kokkos_ROOT") == "/spack/opt/kokkos", "Kokkos_ROOT is not ^kokkos", user)
        if cuda:
            for v in ("cuda", "cuda_lambda", "wrapper"):
                expect(kv.get(v) is True, f"kokkos lacks +{v}", user)
            expect(kv.get("cuda_arch") == root["cuda_arch"],
                   f"kokkos cuda_arch={kv.get('cuda_arch')} != {root['cuda_arch']}", user)
            expect(flags.get("CMAKE_CXX_COMPILER", "").endswith("nvcc_wrapper"),
                   "CMAKE_CXX_COMPILER is not kokkos' nvcc_wrapper", user)
            expect("cuda" in deps, "no cuda dependency", user)
        else:
            expect(kv.get("cuda") is not True, "kokkos+cuda without portasim+cuda", user)
            expect(not flags.get("CMAKE_CXX_COMPILER", "").endswith("nvcc_wrapper"),
                   "nvcc_wrapper without +cuda", user)
            expect(flags.get("PORTASIM_ENABLE_NVTX") == "OFF", "NVTX not OFF without CUDA", user)
        if root.get("openmp"):
            expect(kv.get("openmp") is True, "+openmp but kokkos lacks +openmp", user)
        kk = deps.get("kokkos-kernels")
        expect((kk is not None) == root["kernels"], "kokkos-kernels dependency != +kernels", user)
        if kk is not None:
            expect(flags.get("KokkosKernels_ROOT") == "/spack/opt/kokkos-kernels",
                   "KokkosKernels_ROOT is not ^kokkos-kernels", user)
            if cuda:
                for v in ("cuda", "cublas"):
                    expect(kk.variants.get(v) is True, f"kokkos-kernels lacks +{v}", user)
                expect(kk.variants.get("cuda_arch") == root["cuda_arch"],
                       "kokkos-kernels cuda_arch differs from portasim's", user)
        hdf5 = deps.get("hdf5")
        expect((hdf5 is not None) == root["hdf5"], "hdf5 dependency != +hdf5", user)
        expect(("mpi" in deps) == root["mpi"], "mpi dependency != +mpi", user)
        if hdf5 is not None and root["mpi"]:
            expect(hdf5.variants.get("mpi") is True, "+mpi +hdf5 but hdf5 lacks +mpi", user)
        expect(("cli11" in deps) == root["cli"], "cli11 dependency != +cli", user)
        expect(("googletest" in deps) == root["tests"], "googletest dependency != +tests", user)
        expect(("benchmark" in deps) == root["benchmarks"],
               "benchmark dependency != +benchmarks", user)
        expect("cmake" in deps and any(v.startswith("3.21") for v in deps["cmake"].versions),
               "cmake@3.21: (CMakePresets.json) missing", user)

    # Specific expectations that the generic checks above cannot see.
    for user, name, value in [("+cuda cuda_arch=90", "PORTASIM_ENABLE_NVTX", "ON"),
                              ("+cuda cuda_arch=80 ~nvtx ~kernels", "PORTASIM_ENABLE_NVTX", "OFF"),
                              ("+mpi", "PORTASIM_ENABLE_MPI", "ON"),
                              ("", "PORTASIM_ENABLE_MPI", "OFF"),
                              ("", "PORTASIM_ENABLE_TESTS", "OFF"),
                              ("+tests +benchmarks", "PORTASIM_ENABLE_BENCHMARKS", "ON")]:
        if isinstance(combos.get(user), tuple):
            got = combos[user][1].get(name)
            expect(got == value, f"{name}={got}, expected {value}", user)

    # Combinations that must be refused.
    for user, why in [("+cuda", "+cuda without a cuda_arch"),
                      ("~cuda ^kokkos+cuda", "a CUDA Kokkos under portasim~cuda"),
                      ("~cuda ~nvtx", "nvtx is a +cuda variant")]:
        try:
            spack_mock.concretize(cls, "portasim", user)
            fail(f"portasim {user} concretizes, but should be refused ({why})")
        except spack_mock.ConcretizationError:
            pass

    # --- the environments: their portasim specs concretize against this recipe, their Kokkos
    # requirement matches the cuda_arch asked for, their repos entry is this repository.
    env_root = os.path.join(source_dir, "spack", "environments")
    envs = sorted(e for e in os.listdir(env_root)
                  if os.path.isfile(os.path.join(env_root, e, "spack.yaml"))) \
        if os.path.isdir(env_root) else []
    if not envs:
        fail("no spack/environments/*/spack.yaml")
    for env in envs:
        with open(os.path.join(env_root, env, "spack.yaml")) as f:
            text = f.read()
        specs = re.findall(r"^\s*-\s*(portasim\b[^#\n]*)", text, re.M)
        if len(specs) != 1:
            fail(f"environment {env}: expected one portasim spec, found {specs}")
            continue
        user = specs[0].strip()[len("portasim"):]
        try:
            spec = spack_mock.concretize(cls, "portasim", user)
        except Exception as e:
            fail(f"environment {env}: portasim{user}: {type(e).__name__}: {e}")
            continue
        kokkos_req = re.search(r"^\s*kokkos:\s*\n\s*require:\s*\"([^\"]*)\"", text, re.M)
        if spec.root.variants.get("cuda") is True:
            arch = spec.root.variants["cuda_arch"]
            if not kokkos_req or f"cuda_arch={arch}" not in kokkos_req.group(1):
                fail(f"environment {env}: packages:kokkos:require lacks cuda_arch={arch}")
        repos = re.findall(r"^\s*repos:\s*\n\s*-\s*(\S+)", text, re.M)
        repo = repos[0].replace("$env", os.path.join(env_root, env)) if repos else ""
        if not os.path.isfile(os.path.join(repo, "repo.yaml")) or not os.path.samefile(
                repo, os.path.join(source_dir, "spack")):
            fail(f"environment {env}: repos entry {repos} is not this repository's spack/")
        develop = re.search(r"^\s*develop:\s*\n\s*portasim:\s*\n(?:\s*spec:.*\n)?\s*path:\s*(\S+)",
                            text, re.M)
        if develop and not os.path.samefile(os.path.join(env_root, env, develop.group(1)),
                                            source_dir):
            fail(f"environment {env}: develop path {develop.group(1)} is not this checkout")

    # --- the mapping, both ways, and the defaults.
    for name, default in sorted(options.items()):
        if not name.startswith("PORTASIM_ENABLE_"):
            continue
        if name not in mapped:
            fail(f"CMake option {name} has no Spack variant: add variant(...) and "
                 f"self.define_from_variant({name!r}, ...) to the recipe")
            continue
        if name in left_to_default:
            fail(f"cmake_args() leaves {name} to its CMake default for: "
                 f"{', '.join(left_to_default[name])}")
        v = variants[mapped[name]]
        if v.default != default and mapped[name] not in DOCUMENTED_DEFAULT_DIFFERENCES:
            fail(f"variant {mapped[name]} defaults to {v.default}, CMake option {name} to "
                 f"{'ON' if default else 'OFF'}: align them or document why in "
                 f"DOCUMENTED_DEFAULT_DIFFERENCES")
        if v.default == default and mapped[name] in DOCUMENTED_DEFAULT_DIFFERENCES:
            fail(f"variant {mapped[name]} is documented as differing from {name} but does not")
    mapped_variants = set(mapped.values())
    for name in sorted(variants):
        if name in base_variants or name in BACKEND_VARIANTS:
            continue
        if name not in mapped_variants:
            fail(f"variant {name!r} sets no CMake option (or cmake_args() never reached it)")
    for name in BACKEND_VARIANTS:
        if name not in variants:
            fail(f"backend variant {name!r} is gone: update BACKEND_VARIANTS")

    if failures:
        print(f"FAIL: the Spack recipe {recipe}, its environments and CMake disagree:")
        for f in failures:
            print(f"  - {f}")
        return 1
    print(f"OK: {len(options)} CMake options, {len(variants)} variants, "
          f"{sum(isinstance(c, tuple) for c in combos.values())} variant combinations, "
          f"environments {', '.join(envs)} checked")
    for name in sorted(mapped):
        print(f"  {name} <- variant {mapped[name]}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
