#!/usr/bin/python3
"""Strong and weak scaling sweeps of `mpirun -n R portasim hh|life|sfap` over ranks.

One rank per GPU on GPU machines (portasim gives each rank the GPU local rank modulo the
visible GPUs), one rank per core group on CPUs. Each point is the best of --repeat runs of
the time the command itself reports: HH the integration (slowest rank), Life the
generations with their halo exchanges (slowest rank; the total with the gathered output is
kept as total_time_s), SFAP the computation (slowest rank). Strong: the problem of one rank
on R ranks, speedup t1/tR, efficiency speedup/R. Weak: R times the problem on R ranks,
efficiency t1/tR (speedup = R * efficiency: work rate over one rank's).

Each run is one command line: LAUNCHER -n R [RANK_WRAPPER] PORTASIM MODULE ARGS, where
LAUNCHER is --launcher (alias --mpirun; default "mpirun --oversubscribe", on Slurm e.g.
"srun --kill-on-bad-exit=1") and RANK_WRAPPER an optional per-rank program such as
perf/scale/slurm/bind_gpu.sh. --dry-run prints these command lines, one per point of the
sweep (each would run --repeat times), and runs and writes nothing.

usage: run_scaling.py --make-sfap-inputs DIR [--preset gpu] [--ranks 1,2]   (needs h5py)
       run_scaling.py --portasim BIN [--launcher "mpirun --oversubscribe"] [--rank-wrapper PROG]
                      [--ranks 1,2,4] [--modules hh,life,sfap] [--modes strong,weak]
                      [--preset cpu|gpu] [--sfap-base FILE.h5] [--repeat 2]
                      [--out scaling.json] [--work DIR] [--dry-run]
"""
import argparse, datetime, json, os, platform, re, shlex, subprocess, sys, tempfile

MODULES = ("hh", "life", "sfap")
MODES = ("strong", "weak")
# The SFAP bench file lives beside the repository (../shared, as for the benchmarks), not
# beside the working directory; PORTASIM_SFAP_REFERENCE_DIR overrides the folder.
REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SFAP_REFERENCE_DIR = os.environ.get("PORTASIM_SFAP_REFERENCE_DIR") or os.path.normpath(
    os.path.join(REPO, "..", "shared", "reference", "sfap"))

PRESETS = {
    "smoke": {"hh": {"neurons": 2000, "t_ms": 20}, "life": {"side": 256, "steps": 20},
              "sfap": {"fibers": 40, "dz": 0.1}},
    # Sizes for one rank. cpu: a few seconds on a small machine; gpu: over a second of one
    # H200 per module (HH 1.5 s, Life 1.35 s, SFAP 1.46 s of compute on one GPU).
    "cpu": {"hh": {"neurons": 20000, "t_ms": 50}, "life": {"side": 2048, "steps": 100},
            "sfap": {"fibers": 200, "dz": 0.1}},
    "gpu": {"hh": {"neurons": 4000000, "t_ms": 150}, "life": {"side": 32768, "steps": 1500},
            "sfap": {"fibers": 6400, "dz": 0.01}},
}


def make_sfap_input(base, fibers, path):
    """The fibers of `base` repeated up to `fibers` (same muscle, electrodes and attributes)."""
    import h5py, numpy as np
    with h5py.File(base, "r") as src, h5py.File(path, "w") as dst:
        n = src["inputs/endplate_z"].shape[0]
        reps = -(-fibers // n)
        g = dst.create_group("inputs")
        for name, ds in src["inputs"].items():
            data = ds[()]
            if name != "electrode_positions" and data.shape and data.shape[0] == n:
                data = np.concatenate([data] * reps)[:fibers]
            g[name] = data
        for k, v in src["inputs"].attrs.items():
            g.attrs[k] = v


def run(cmd, env):
    out = subprocess.run(cmd, shell=True, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {cmd}\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    return out.stdout


def measure(module, text):
    total = float(re.search(r"time ([0-9.eE+-]+) s", text).group(1))
    if module == "life":
        return float(re.search(r"compute and halo ([0-9.eE+-]+) s", text).group(1)), total
    return total, total


def comma_list(text, allowed, what, ap):
    items = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in items if x not in allowed]
    if not items or bad:
        ap.error(f"--{what}: {','.join(bad) or 'nothing'} given; expected a comma list of {', '.join(allowed)}")
    return items


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--portasim")
    ap.add_argument("--launcher", "--mpirun", dest="launcher", default="mpirun --oversubscribe",
                    help="command that starts R ranks as LAUNCHER -n R ... (mpirun, mpiexec or srun with options)")
    ap.add_argument("--rank-wrapper", default="",
                    help="program each rank runs portasim through (e.g. perf/scale/slurm/bind_gpu.sh)")
    ap.add_argument("--ranks", default="1,2,4", help="rank counts, comma-separated")
    ap.add_argument("--modules", default="hh,life,sfap")
    ap.add_argument("--modes", default="strong,weak")
    ap.add_argument("--preset", default="cpu", choices=sorted(PRESETS))
    ap.add_argument("--sfap-base", default=os.path.join(SFAP_REFERENCE_DIR, "bench_200f_25e_dz0p1.h5"))
    ap.add_argument("--sfap-input-dir", help="pre-made SFAP inputs sfap_<F>f.h5 (where h5py is missing)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", default="scaling.json")
    ap.add_argument("--work", default=None, help="folder for outputs (default: a temporary one)")
    ap.add_argument("--extra", default="", help="extra arguments for every portasim command")
    ap.add_argument("--make-sfap-inputs", metavar="DIR",
                    help="only write the SFAP inputs of the preset and ranks into DIR (for machines without h5py)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the command line of each point of the sweep; run nothing, write nothing")
    a = ap.parse_args()
    try:
        ranks = [int(r) for r in a.ranks.replace(" ", ",").split(",") if r]
    except ValueError:
        ap.error(f"--ranks: '{a.ranks}' is not a comma list of rank counts")
    if not ranks or min(ranks) < 1:
        ap.error(f"--ranks: '{a.ranks}': rank counts must be >= 1")
    modules = comma_list(a.modules, MODULES, "modules", ap)
    modes = comma_list(a.modes, MODES, "modes", ap)
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")
    sizes = PRESETS[a.preset]
    if a.make_sfap_inputs:
        os.makedirs(a.make_sfap_inputs, exist_ok=True)
        for fibers in sorted({sizes["sfap"]["fibers"] * r for r in ranks} | {sizes["sfap"]["fibers"]}):
            make_sfap_input(a.sfap_base, fibers, os.path.join(a.make_sfap_inputs, f"sfap_{fibers}f.h5"))
            print(f"wrote {a.make_sfap_inputs}/sfap_{fibers}f.h5")
        return
    if not a.portasim:
        ap.error("--portasim is required")
    portasim = os.path.abspath(a.portasim)
    if not (os.path.isfile(portasim) and os.access(portasim, os.X_OK)):
        if not a.dry_run:
            sys.exit(f"run_scaling.py: {portasim} is not an executable portasim")
        print(f"run_scaling.py: note: {portasim} is not an executable (yet)", file=sys.stderr)
    if a.dry_run:  # the folder a real run would create
        work = os.path.abspath(a.work or os.path.join(tempfile.gettempdir(), "portasim_scaling_XXXXXXXX"))
    else:
        work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="portasim_scaling_"))
        os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    wrapper = shlex.quote(os.path.abspath(a.rank_wrapper)) + " " if a.rank_wrapper else ""

    noted = set()

    def out(name):
        return shlex.quote(os.path.join(work, name))

    def command(module, scale):
        s = sizes[module]
        if module == "hh":
            n = s["neurons"] * scale
            return n, "neurons", (f"hh --neurons {n} --t-ms {s['t_ms']} --dt-ms 0.01 --amplitude 0:20 "
                                  f"--record spikes --output {out('hh.h5')}")
        if module == "life":
            side, steps = s["side"], s["steps"]
            # Rows scale with the ranks (row blocks); only generations 0 and `steps` are written.
            return side * side * scale, "cells", (f"life --width {side} --height {side * scale} --steps {steps} "
                                                  f"--chunk-size {steps} --every {steps} --packed --seed 1 --density 0.3 "
                                                  f"--format h5 --output {out('life.h5')}")
        fibers = s["fibers"] * scale
        path = os.path.abspath(os.path.join(a.sfap_input_dir or work, f"sfap_{fibers}f.h5"))
        if not os.path.exists(path):
            if a.dry_run and path not in noted:
                noted.add(path)
                print(f"run_scaling.py: note: {path} would be made from {a.sfap_base}"
                      + ("" if os.path.exists(a.sfap_base) else ", which is missing (--sfap-base, PORTASIM_SFAP_REFERENCE_DIR)"),
                      file=sys.stderr)
            elif not a.dry_run:
                make_sfap_input(a.sfap_base, fibers, path)
        return fibers, "fibers", f"sfap --input {shlex.quote(path)} --dz {s['dz']} --output {out('sfap.h5')}"

    results = []
    for module in modules:
        for mode in modes:
            base = None
            for r in ranks:
                size, unit, args = command(module, r if mode == "weak" else 1)
                cmd = f"{a.launcher} -n {r} {wrapper}{shlex.quote(portasim)} {args} {a.extra}".rstrip()
                if a.dry_run:
                    print(cmd, flush=True)
                    continue
                best = None
                for _ in range(a.repeat):
                    t, total = measure(module, run(cmd, env))
                    if best is None or t < best[0]:
                        best = (t, total)
                t, total = best
                if base is None:
                    base = t
                efficiency = (base / t / r) if mode == "strong" else base / t
                point = {"module": module, "mode": mode, "ranks": r, "problem_size": size, "size_unit": unit,
                         "time_s": t, "total_time_s": total, "speedup": efficiency * r, "efficiency": efficiency,
                         "command": cmd}
                print(json.dumps(point), flush=True)
                results.append(point)
    if a.dry_run:
        print(f"run_scaling.py: dry run, {len(modules) * len(modes) * len(ranks)} points, each run {a.repeat} times; "
              f"results would go to {os.path.abspath(a.out)}", file=sys.stderr)
        return
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "host": platform.node(), "preset": a.preset,
            "argv": sys.argv,
            "portasim_info": subprocess.run([portasim, "info", "--json"], capture_output=True, text=True,
                                            env=dict(env, PORTASIM_MPI="0")).stdout}
    try:
        meta["gpus"] = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                                      capture_output=True, text=True).stdout.strip().splitlines()
    except FileNotFoundError:
        meta["gpus"] = []
    with open(a.out, "w") as f:
        json.dump({"context": meta, "results": results}, f, indent=1)
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
