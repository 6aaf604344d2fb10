"""A small stand-in for the parts of Spack's package DSL that portasim's recipe uses.

Spack itself is not needed (nor installed) to run the recipe test: the recipe is executed
for real against these modules, its directives are recorded, and a toy "concretizer"
evaluates them for a variant combination (defaults, when= conditions, dependency
constraints, conflicts) so that cmake_args() can be called on a spec. Directives and
keyword arguments that are not listed here raise, so a recipe that uses something new fails
loudly instead of being half-understood: extend this file then.
"""

import contextlib
import re
import sys
import types

# --- spec constraints ---------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<caret>\^)|(?P<version>@[\w.:,]+)|(?P<flag>[+~][A-Za-z_][\w]*)"
    r"|(?P<kv>[A-Za-z_][\w]*=[\w.,]+)|(?P<name>[A-Za-z][\w-]*))"
)


class Node:
    """Constraints on one package: versions (kept as strings), variants name -> value."""

    def __init__(self, name=None):
        self.name = name
        self.versions = []
        self.variants = {}

    def __repr__(self):
        parts = [self.name or ""] + ["@" + v for v in self.versions]
        for k, v in sorted(self.variants.items()):
            parts.append(("+" if v else "~") + k if isinstance(v, bool) else f" {k}={v}")
        return "".join(parts)


def parse(text):
    """'kokkos+cuda cuda_arch=90 ^mpi' -> (root Node, {dep name: Node})."""
    root, deps = Node(), {}
    current, pos, expect_dep = root, 0, False
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot parse spec {text!r} at {text[pos:]!r}")
        pos = m.end()
        if m.group("caret"):
            expect_dep = True
        elif m.group("name"):
            if expect_dep:
                current = deps.setdefault(m.group("name"), Node(m.group("name")))
                expect_dep = False
            elif current is root and root.name is None and not root.variants and not root.versions:
                root.name = m.group("name")
            else:
                raise ValueError(f"unexpected name {m.group('name')!r} in spec {text!r}")
        elif m.group("version"):
            current.versions.append(m.group("version")[1:])
        elif m.group("flag"):
            flag = m.group("flag")
            current.variants[flag[1:]] = flag[0] == "+"
        elif m.group("kv"):
            key, value = m.group("kv").split("=", 1)
            current.variants[key] = value
    if expect_dep:
        raise ValueError(f"dangling ^ in spec {text!r}")
    return root, deps


def _node_satisfies(have, want):
    for key, value in want.variants.items():
        if key not in have.variants:
            return False
        got = have.variants[key]
        if isinstance(value, bool) or isinstance(got, bool):
            if got != value:
                return False
        elif not set(str(value).split(",")) <= set(str(got).split(",")):
            return False
    # Versions are not modelled beyond "the constraint was stated": a wanted range must be
    # literally among the stated ones.
    return all(v in have.versions for v in want.versions)


# --- directives -----------------------------------------------------------------------------

_PENDING = []
_WHEN = []


def _when_now(when):
    parts = list(_WHEN) + ([when] if when else [])
    return " ".join(parts) if parts else None


def _check_kwargs(directive, kwargs, allowed):
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise TypeError(f"{directive}(): keyword(s) the mock does not know: {sorted(unknown)}")


class Directive:
    def __init__(self, kind, **fields):
        self.kind = kind
        self.__dict__.update(fields)

    def __repr__(self):
        return f"{self.kind}({self.__dict__})"


def version(ver, checksum=None, **kwargs):
    _check_kwargs("version", kwargs, {"sha256", "branch", "tag", "commit", "url", "preferred",
                                      "deprecated", "no_cache", "submodules", "get_full_repo"})
    _PENDING.append(Directive("version", name=str(ver), checksum=checksum, kwargs=kwargs))


def variant(name, default=None, description="", values=None, multi=None, **kwargs):
    _check_kwargs("variant", kwargs, {"validator", "when", "sticky"})
    if not description:
        raise ValueError(f"variant {name!r} has no description")
    _PENDING.append(Directive("variant", name=name, default=default, description=description,
                              values=values, multi=multi, when=_when_now(kwargs.get("when"))))


def depends_on(spec, when=None, type=None, **kwargs):
    _check_kwargs("depends_on", kwargs, {"patches"})
    deptypes = (type,) if isinstance(type, str) else tuple(type or ("build", "link"))
    bad = set(deptypes) - {"build", "link", "run", "test"}
    if bad:
        raise ValueError(f"depends_on({spec!r}): unknown dependency type(s) {sorted(bad)}")
    _PENDING.append(Directive("depends_on", spec=spec, when=_when_now(when), type=deptypes))


def conflicts(spec, when=None, msg=None):
    _PENDING.append(Directive("conflicts", spec=spec, when=_when_now(when), msg=msg))


def requires(*specs, policy="one_of", when=None, msg=None):
    _PENDING.append(Directive("requires", specs=specs, policy=policy, when=_when_now(when), msg=msg))


def maintainers(*names):
    _PENDING.append(Directive("maintainers", names=names))


def license(license_identifier, checked_by=None, when=None):
    _PENDING.append(Directive("license", identifier=license_identifier))


@contextlib.contextmanager
def when(condition):
    _WHEN.append(condition)
    try:
        yield
    finally:
        _WHEN.pop()


class InstallError(Exception):
    pass


def join_path(*parts):
    return "/".join(parts)


# --- packages ---------------------------------------------------------------------------------


class PackageBase:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._own_directives = list(_PENDING)
        _PENDING.clear()

    @classmethod
    def directives(cls, kind=None):
        out = []
        for klass in reversed(cls.__mro__):
            out.extend(klass.__dict__.get("_own_directives", []))
        return [d for d in out if kind is None or d.kind == kind]

    @classmethod
    def own_directives(cls, kind):
        return [d for d in cls.__dict__.get("_own_directives", []) if d.kind == kind]

    def __init__(self, spec):
        self.spec = spec

    @staticmethod
    def define(cmake_var, value):
        if isinstance(value, bool):
            kind, value = "BOOL", "ON" if value else "OFF"
        elif isinstance(value, (list, tuple)):
            kind, value = "STRING", ";".join(str(v) for v in value)
        else:
            kind = "STRING"
        return f"-D{cmake_var}:{kind}={value}"

    def define_from_variant(self, cmake_var, variant_name=None):
        variant_name = variant_name or cmake_var.lower()
        if variant_name not in {d.name for d in self.directives("variant")}:
            raise KeyError(f"define_from_variant: {variant_name!r} is not a variant of "
                           f"{type(self).__name__}")
        self.spec.define_from_variant_calls.append((cmake_var, variant_name))
        if variant_name not in self.spec.root.variants:
            return ""  # conditional variant that is not active, as in Spack
        return self.define(cmake_var, self.spec.root.variants[variant_name])


class CMakePackage(PackageBase):
    variant("build_type", default="Release", description="CMake build type",
            values=("Debug", "Release", "RelWithDebInfo", "MinSizeRel"))
    variant("ipo", default=False, description="CMake interprocedural optimization")
    depends_on("cmake", type="build")


class CudaPackage(PackageBase):
    cuda_arch_values = ("50", "52", "53", "60", "61", "62", "70", "72", "75", "80", "86", "87",
                        "89", "90", "90a", "100", "100a", "120", "120a")
    variant("cuda", default=False, description="Build with CUDA")
    variant("cuda_arch", description="CUDA architecture", values=("none",) + cuda_arch_values,
            default="none", multi=True, when="+cuda")
    depends_on("cuda", when="+cuda")
    conflicts("cuda_arch=none", when="+cuda", msg="Must specify CUDA compute capabilities")


# --- a toy concretizer ------------------------------------------------------------------------


class DepView:
    """What spec['kokkos'] gives a recipe: prefix and package (kokkos_cxx)."""

    def __init__(self, node):
        self.node = node
        self.prefix = f"/spack/opt/{node.name}"
        wrapper = node.variants.get("wrapper") is True
        self.package = types.SimpleNamespace(
            kokkos_cxx="/spack/opt/kokkos-nvcc-wrapper/bin/nvcc_wrapper" if wrapper
            else "/spack/lib/spack/env/gcc/g++")


class Spec:
    def __init__(self, root, deps):
        self.root = root
        self.deps = deps
        self.define_from_variant_calls = []

    def satisfies(self, text):
        want_root, want_deps = parse(text)
        if want_root.name not in (None, self.root.name):
            return False
        if not _node_satisfies(self.root, want_root):
            return False
        return all(name in self.deps and _node_satisfies(self.deps[name], node)
                   for name, node in want_deps.items())

    def __contains__(self, text):
        return self.satisfies(text)

    def __getitem__(self, name):
        if name not in self.deps:
            raise KeyError(f"spec has no dependency {name!r} (deps: {sorted(self.deps)})")
        return DepView(self.deps[name])


class ConcretizationError(Exception):
    pass


def concretize(package_class, name, user_text):
    """Apply variant defaults, the user's constraints, dependency constraints, conflicts."""
    user_root, user_deps = parse(f"{name} {user_text}")
    variants = {d.name: d for d in package_class.directives("variant")}
    for key in user_root.variants:
        if key not in variants:
            raise ConcretizationError(f"{name} has no variant {key!r}")
    root = Node(name)
    # Unconditional variants first, then conditional ones whose condition holds (one level
    # of nesting is all the recipe uses).
    for rounds in range(2):
        for d in variants.values():
            if d.name in root.variants:
                continue
            if d.when is None or (rounds == 1 and Spec(root, {}).satisfies(d.when)):
                value = user_root.variants.get(d.name, d.default)
                if d.values is not None and not isinstance(value, bool):
                    for v in str(value).split(","):
                        if v not in d.values:
                            raise ConcretizationError(f"{name}: {d.name}={v} is not allowed")
                root.variants[d.name] = value
    for key in user_root.variants:
        if key not in root.variants:
            raise ConcretizationError(f"{name}: variant {key!r} is not active for {user_text!r}")

    deps = {}
    for n, node in user_deps.items():
        deps[n] = node
    spec = Spec(root, {})
    for d in package_class.directives("depends_on"):
        if d.when is not None and not spec.satisfies(d.when):
            continue
        dep_root, dep_deps = parse(d.spec)
        if dep_deps:
            raise ConcretizationError(f"depends_on({d.spec!r}): ^ inside depends_on")
        node = deps.setdefault(dep_root.name, Node(dep_root.name))
        for v in dep_root.versions:
            if v not in node.versions:
                node.versions.append(v)
        for key, value in dep_root.variants.items():
            if key in node.variants and node.variants[key] != value:
                raise ConcretizationError(
                    f"{user_text!r}: {dep_root.name} asked for both {key}={node.variants[key]} "
                    f"and {key}={value}")
            node.variants[key] = value
    spec = Spec(root, deps)
    for d in package_class.directives("conflicts"):
        if (d.when is None or spec.satisfies(d.when)) and spec.satisfies(d.spec):
            raise ConcretizationError(f"{user_text!r} conflicts: {d.msg or d.spec}")
    for d in package_class.directives("requires"):
        if (d.when is None or spec.satisfies(d.when)) and not any(
                spec.satisfies(s) for s in d.specs):
            raise ConcretizationError(f"{user_text!r} violates requires: {d.msg or d.specs}")
    return spec


# --- module installation ----------------------------------------------------------------------

_DSL = {
    "version": version, "variant": variant, "depends_on": depends_on, "conflicts": conflicts,
    "requires": requires, "maintainers": maintainers, "license": license, "when": when,
    "InstallError": InstallError, "join_path": join_path,
}


def install(modern=True):
    """Make `import spack.package` (and, for Spack >= 1.0, spack_repo.builtin.build_systems.*)
    resolve to this mock. modern=False mimics Spack 0.x, where spack.package exports the build
    systems and spack_repo does not exist."""
    for mod in [m for m in sys.modules if m == "spack" or m.startswith(("spack.", "spack_repo"))]:
        del sys.modules[mod]
    spack = types.ModuleType("spack")
    package = types.ModuleType("spack.package")
    exported = dict(_DSL)
    if not modern:
        exported.update(CMakePackage=CMakePackage, CudaPackage=CudaPackage)
    package.__dict__.update(exported)
    package.__all__ = sorted(exported)
    spack.package = package
    sys.modules.update({"spack": spack, "spack.package": package})
    if modern:
        names = ["spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"]
        for n in names:
            sys.modules[n] = types.ModuleType(n)
        cmake = types.ModuleType("spack_repo.builtin.build_systems.cmake")
        cmake.CMakePackage = CMakePackage
        cuda = types.ModuleType("spack_repo.builtin.build_systems.cuda")
        cuda.CudaPackage = CudaPackage
        sys.modules[cmake.__name__] = cmake
        sys.modules[cuda.__name__] = cuda


def load_recipe(path, class_name, modern=True):
    install(modern)
    _PENDING.clear()
    namespace = {"__name__": "spack_repo.portasim.packages.portasim.package", "__file__": path}
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    exec(code, namespace)
    if _PENDING:
        raise RuntimeError(f"directives outside a package class: {_PENDING}")
    return namespace[class_name]
