#!/usr/bin/python3
"""The Slurm sweep templates (perf/scale/slurm/*.sbatch) parse, and their dry runs print the
srun command lines the sweep would run: one per point, the asked rank counts, modules and
modes, the portasim of the environment's view (here a stand-in found on PATH), bind_gpu.sh
for the GPU template only. Nothing runs and nothing is written: srun, mpirun, sbatch and
spack are stand-ins that record any call, and the result folder must not appear. The sbatch
lines of the READMEs are dry-run too, so that the documented commands keep working.

usage: test_slurm_templates.py REPOSITORY
"""
import os, re, shlex, stat, subprocess, sys, tempfile

repo = os.path.abspath(sys.argv[1])
slurm = os.path.join(repo, "perf", "scale", "slurm")
failures = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL:", message)


def executable(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


scratch = tempfile.mkdtemp(prefix="portasim_slurm_test_")
stubs = os.path.join(scratch, "bin")
os.makedirs(stubs)
calls = os.path.join(scratch, "calls.txt")
for tool in ["srun", "mpirun", "mpiexec", "sbatch", "spack", "nvidia-smi"]:
    executable(os.path.join(stubs, tool), f'#!/bin/sh\necho "{tool} $*" >> "{calls}"\nexit 1\n')
portasim = os.path.join(stubs, "portasim")
executable(portasim, f'#!/bin/sh\necho "portasim $*" >> "{calls}"\nexit 1\n')


def run(template, args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "PORTASIM_"))}
    env["PATH"] = stubs + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    env.update(env_extra or {})
    return subprocess.run(["bash", os.path.join(slurm, template)] + args, cwd=scratch, env=env,
                          capture_output=True, text=True)


def nothing_ran(what):
    if os.path.exists(calls):
        fail(f"{what}: a dry run called {open(calls).read().strip()!r}")
        os.remove(calls)


def check_sweep(template, modules, modes, ranks, ntasks="8", cpus="4", extra=()):
    """Dry-runs TEMPLATE MODULES MODES "RANKS" OUT [EXTRA] --dry-run and checks each line."""
    kind = template.split("_")[0]
    what = f"{template} {modules} {modes} '{ranks}'"
    out = os.path.join(scratch, f"out-{kind}")
    r = run(template, [modules, modes, ranks, out, *extra, "--dry-run"],
            {"SLURM_NTASKS": ntasks, "SLURM_CPUS_PER_TASK": cpus})
    if r.returncode != 0:
        fail(f"{what}: exit {r.returncode}: {r.stderr.strip()}")
        return
    nothing_ran(what)
    if os.path.exists(out):
        fail(f"{what}: the dry run created {out}")
    lines = r.stdout.splitlines()
    rank_list = [int(x) for x in re.split(r"[ ,]+", ranks.strip())]
    points = [(m, mode, n) for m in modules.split(",") for mode in modes.split(",") for n in rank_list]
    if len(lines) != len(points):
        fail(f"{what}: {len(lines)} command lines for {len(points)} points:\n{r.stdout}")
        return
    base = {}
    before = failures
    for line, (module, mode, n) in zip(lines, points):
        words = shlex.split(line)
        want = ["srun", "--kill-on-bad-exit=1", "--cpu-bind=cores", f"--cpus-per-task={cpus}", "-n", str(n)]
        if words[:6] != want:
            fail(f"{what}: launcher {words[:6]}, expected {want}")
            continue
        rest = words[6:]
        if kind == "gpu":
            wrapper = os.path.join(slurm, "bind_gpu.sh")
            if rest[:1] != [wrapper]:
                fail(f"{what}: the GPU sweep must run each rank through {wrapper}: {line}")
                continue
            rest = rest[1:]
        elif "bind_gpu.sh" in line:
            fail(f"{what}: the CPU sweep runs bind_gpu.sh: {line}")
        if rest[:2] != [portasim, module]:
            fail(f"{what}: expected '{portasim} {module}', got {rest[:2]}")
            continue
        def option(name):
            return rest[rest.index(name) + 1] if name in rest[:-1] else None

        out_file = option("--output") or ""
        if not out_file.startswith(os.path.join(out, "work") + os.sep):
            fail(f"{what}: output {out_file!r} outside {out}/work")
        # The problem size: the same for every rank count (strong), rank count times (weak).
        size = {"hh": "--neurons", "life": "--height", "sfap": "--input"}[module]
        value = option(size)
        if module == "sfap":
            value = re.search(r"sfap_(\d+)f\.h5$", value or "")
            value = value and value.group(1)
        if value is None:
            fail(f"{what}: no {size} in {line}")
            continue
        key = (module, mode)
        base.setdefault(key, int(value) // n if mode == "weak" else int(value))
        expected = base[key] * n if mode == "weak" else base[key]
        if int(value) != expected:
            fail(f"{what}: {module} {mode} at {n} ranks: {size} {value}, expected {expected}")
    if failures == before:
        print(f"ok: {what}: {len(lines)} command lines")


def check_error(template, args, env, pattern, what):
    r = run(template, args, env)
    if r.returncode != 2 or not re.search(pattern, r.stderr):
        fail(f"{what}: exit {r.returncode}, expected 2 with /{pattern}/: {r.stderr.strip()}")
    nothing_ran(what)


for template in ["gpu_sweep.sbatch", "cpu_sweep.sbatch"]:
    path = os.path.join(slurm, template)
    r = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"bash -n {template}: {r.stderr.strip()}")
    check_sweep(template, "hh", "strong", "1 2 4 8")
    check_sweep(template, "life,sfap", "strong,weak", "1,2,4", extra=["--repeat", "1"])
    check_sweep(template, "hh,life,sfap", "weak", "2 8", ntasks="16", cpus="16")
    check_error(template, ["hh", "strong", "1 2 4 8", "--dry-run"], {"SLURM_NTASKS": "4"},
                r"8 ranks asked for, the job has 4 tasks", f"{template}: more ranks than tasks")
    check_error(template, ["hh", "strong", "1 2"], {}, r"not inside a Slurm job", f"{template}: outside Slurm")
    check_error(template, ["hh", "strong", "1 x"], {"SLURM_NTASKS": "4"}, r"'x' in RANKS", f"{template}: bad RANKS")
    check_error(template, ["hh", "fast", "1 2", "--dry-run"], {"SLURM_NTASKS": "4"}, r"--modes: fast",
                f"{template}: bad mode")
    check_error(template, ["hh,hx", "weak", "1 2", "--dry-run"], {"SLURM_NTASKS": "4"}, r"--modules: hx",
                f"{template}: bad module")

# run_scaling.py's own dry run with its default launcher: mpirun lines.
r = subprocess.run([sys.executable, os.path.join(repo, "perf", "scale", "run_scaling.py"), "--portasim", portasim,
                    "--ranks", "1,2", "--modules", "hh", "--modes", "strong", "--dry-run",
                    "--out", os.path.join(scratch, "none.json")], capture_output=True, text=True, cwd=scratch)
want = [f"mpirun --oversubscribe -n {n} {portasim} hh" for n in (1, 2)]
if r.returncode != 0 or [" ".join(line.split()[:6]) for line in r.stdout.splitlines()] != want:
    fail(f"run_scaling.py --dry-run: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
if os.path.exists(os.path.join(scratch, "none.json")):
    fail("run_scaling.py --dry-run wrote its JSON")
nothing_ran("run_scaling.py --dry-run")

# The documented submissions: every `sbatch [OPTIONS] perf/scale/slurm/X.sbatch ARGS` (or
# `bash perf/scale/slurm/X.sbatch ARGS`) line of the READMEs, dry-run inside a job of 8 tasks.
documented = 0
for readme in ["README.md", "spack/environments/README.md"]:
    for line in open(os.path.join(repo, readme)):
        m = re.match(r"\s*(?:sbatch|bash) .*?perf/scale/slurm/(\w+\.sbatch)(.*)$", line)
        if not m:
            continue
        documented += 1
        args = shlex.split(m.group(2), comments=True)
        r = run(m.group(1), args + ["--dry-run"], {"SLURM_NTASKS": "8"})
        if r.returncode != 0 or not r.stdout.startswith("srun "):
            fail(f"{readme}: '{line.strip()}' does not dry-run: exit {r.returncode}: {r.stderr.strip()}")
        nothing_ran(f"{readme}: {line.strip()}")
if documented == 0:
    fail("no sbatch line found in README.md or spack/environments/README.md")

subprocess.run(["rm", "-rf", scratch])
print(f"{'all checks passed' if failures == 0 else f'{failures} failed'} ({documented} documented submissions)")
sys.exit(1 if failures else 0)
