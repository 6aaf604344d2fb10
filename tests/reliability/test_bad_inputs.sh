#!/usr/bin/env bash
# Bad input files and option values beyond tests/cli (which covers the common ones): each
# gets its exit code, a message naming the problem, and leaves the folder as it was.
# usage: test_bad_inputs.sh PATH/TO/portasim FUZZ_CORPUS_DIR SFAP_REFERENCE_DIR
portasim=$1
corpus=$2
reference=$3
[ -f "$reference/r1_20f_4e_dz0p1.h5" ] || reference=${PORTASIM_SFAP_REFERENCE_DIR:-$reference}
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

# --- Option values ---------------------------------------------------------------------------
life=(life --output out.npy)
expect_failure 2 "could not convert" life --width abc --output out.npy
expect_failure 2 "could not convert\|grid too large" life --width 99999999999999999999999 --output out.npy
expect_failure 2 "grid too large" life --width 4294967296 --height 1 --output out.npy
expect_failure 2 "Y,X" life --pattern "$corpus/fuzz_rle/glider.rle" --pattern-offset 1,x --output out.npy
expect_failure 2 "does not fit" life --pattern "$corpus/fuzz_rle/glider.rle" --pattern-offset 9223372036854775807,0 --output out.npy
expect_failure 2 "does not fit" life --pattern "$corpus/fuzz_rle/glider.rle" --pattern-offset -1,0 --output out.npy
expect_failure 2 "pattern or --initial" life --pattern "$corpus/fuzz_rle/glider.rle" --initial x.npy --output out.npy
expect_failure 2 "--every must be > 0" life --every 0 --output out.h5
expect_failure 2 "packed\|format h5" life --packed --output out.npy
expect_failure 2 "backend" life --backend cuda-not-here --output out.npy
expect_failure 2 "not expected\|extra" life --output out.npy stray-argument
expect_failure 2 "--max-spikes" hh --max-spikes -1 --output out.h5
expect_failure 2 "threshold" hh --threshold-mv nan --output out.h5
expect_failure 2 "precision" hh --precision f16 --output out.h5
expect_failure 2 "integrator" hh --integrator leapfrog --output out.h5
expect_failure 2 "--fs" sfap --input x.h5 --fs 0 --output out.h5
expect_failure 2 "--dz" sfap --input x.h5 --dz nan --output out.h5
expect_failure 2 "required\|--input" sfap --output out.h5
expect_failure 2 "subcommand\|required" --quiet
expect_failure 3 "is a directory\|Is a directory" hh --output . --neurons 2

# --- Life pattern and grid files: every refused seed of the fuzz corpus ----------------------
bad_file() {  # file, pattern, [life options]
  local file=$1 pattern=$2
  shift 2
  expect_failure 2 "$pattern" life "$@" --output out.npy
}
c=$corpus/fuzz_rle
bad_file "$c/highlife.rle" "not B3/S23" --pattern "$c/highlife.rle"
bad_file "$c/unterminated.rle" "not terminated" --pattern "$c/unterminated.rle"
bad_file "$c/outside.rle" "outside its declared size" --pattern "$c/outside.rle"
bad_file "$c/huge.rle" "too large" --pattern "$c/huge.rle"
bad_file "$c/crash-timeout-huge-size.rle" "too large" --pattern "$c/crash-timeout-huge-size.rle"
bad_file "$c/negative.rle" "negative" --pattern "$c/negative.rle"
bad_file "$c/bad_tag.rle" "unknown cell tag" --pattern "$c/bad_tag.rle"
bad_file "$c/no_header.rle" "header" --pattern "$c/no_header.rle"
bad_file "$c/empty.rle" "header" --pattern "$c/empty.rle"
c=$corpus/fuzz_npy
bad_file "$c/float.npy" "not uint8 or bool" --pattern "$c/float.npy"
bad_file "$c/fortran.npy" "Fortran" --initial "$c/fortran.npy" --width 3 --height 4
bad_file "$c/values_2.npy" "other than 0 or 1" --initial "$c/values_2.npy" --width 4 --height 3
bad_file "$c/truncated.npy" "shorter than its shape" --initial "$c/truncated.npy" --width 4 --height 3
bad_file "$c/one_d.npy" "is not (H, W)" --initial "$c/one_d.npy" --width 4 --height 3
bad_file "$c/bad_magic.npy" "bad magic" --initial "$c/bad_magic.npy" --width 4 --height 3
bad_file "$c/huge_shape.npy" "npy" --initial "$c/huge_shape.npy" --width 4 --height 3
bad_file "$c/grid_v1.npy" "is 3 x 4, but --height/--width ask for 100 x 100" --initial "$c/grid_v1.npy"
expect_failure 3 "cannot open" life --initial no_such.npy --output out.npy

if ! have_h5py "the bad HDF5 input files"; then
  finish
  exit $?
fi
mkdir inputs
py - inputs "$reference/r1_20f_4e_dz0p1.h5" <<'PY'
import os, sys, h5py, numpy as np
out, ref_path = sys.argv[1], sys.argv[2]
def h5(name, build):
    with h5py.File(os.path.join(out, name), "w") as f:
        build(f)
with open(os.path.join(out, "not_hdf5.h5"), "w") as f:
    f.write("this is text\n")
# HH stimulus files (for --t-ms 1 --dt-ms 0.1: 10 steps, 10 or 11 samples).
h5("stim_missing.h5", lambda f: f.create_dataset("other", data=np.zeros(11)))
h5("stim_3d.h5", lambda f: f.create_dataset("stimulus", data=np.zeros((11, 2, 2))))
h5("stim_short.h5", lambda f: f.create_dataset("stimulus", data=np.zeros(7)))
h5("stim_nan.h5", lambda f: f.create_dataset("stimulus", data=np.array([0.0] * 5 + [np.nan] + [0.0] * 5)))
h5("stim_inf.h5", lambda f: f.create_dataset("stimulus", data=np.array([np.inf] * 11)))
h5("stim_neurons.h5", lambda f: f.create_dataset("stimulus", data=np.zeros((11, 3))))
h5("stim_text.h5", lambda f: f.create_dataset("stimulus", data=np.array([b"abc"] * 11)))
h5("stim_f32_overflow.h5", lambda f: f.create_dataset("stimulus", data=np.full(11, 1e300)))
h5("stim_group.h5", lambda f: f.create_group("stimulus"))
# Life initial grids.
h5("grid_values.h5", lambda f: f.create_dataset("generations", data=np.full((2, 4, 4), 3, np.uint8)))
h5("grid_1d.h5", lambda f: f.create_dataset("generations", data=np.zeros(16, np.uint8)))
h5("grid_float.h5", lambda f: f.create_dataset("generations", data=np.full((4, 4), 0.5)))
h5("grid_empty.h5", lambda f: f.create_dataset("generations", data=np.zeros((0, 4, 4), np.uint8)))
def packed(f):
    d = f.create_dataset("generations", data=np.zeros((1, 4, 1), np.uint8)); d.attrs["packed"] = 1
h5("grid_packed.h5", packed)
# SFAP inputs: the reference file's inputs (or, without it, a small valid input made here)
# with one thing broken.
ref = h5py.File(ref_path, "r") if os.path.isfile(ref_path) else None
def base(f):
    if ref is not None:
        ref.copy(ref["inputs"], f, "inputs")
        return
    g = f.create_group("inputs")
    g["fiber_centers"] = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, 0.0]])
    g["endplate_z"] = np.array([40.0, 41.0, 39.5])
    g["conduction_velocity"] = np.array([4.0, 4.1, 3.9])
    g["diameter"] = np.array([0.05, 0.055, 0.045])
    g["nerve_paths"] = np.array([[10.0, 12.0], [11.0, 12.5], [10.5, 11.0]])
    g["electrode_positions"] = np.array([[0.0, 0.5, 40.0], [0.5, 0.0, 41.0]])
    g.attrs["left_end_mm"] = 0.0
    g.attrs["right_end_mm"] = 80.0
    g.attrs["fs_Hz"] = 10000.0
    g.attrs["dz_mm"] = 0.1
def variant(name, change):
    def build(f):
        base(f)
        change(f)
    h5(name, build)
def replace(path, value):
    def change(f):
        del f[path]
        f[path] = value
    return change
n = ref["inputs/fiber_centers"].shape[0] if ref is not None else 3
variant("sfap_no_group.h5", lambda f: f.__delitem__("inputs"))
variant("sfap_velocity_negative.h5", replace("inputs/conduction_velocity", -np.ones(n)))
variant("sfap_diameter_zero.h5", replace("inputs/diameter", np.zeros(n)))
variant("sfap_centers_inf.h5", replace("inputs/fiber_centers", np.full((n, 2), np.inf)))
variant("sfap_centers_3d.h5", replace("inputs/fiber_centers", np.zeros((n, 2, 1))))
variant("sfap_no_electrodes.h5", replace("inputs/electrode_positions", np.zeros((0, 3))))
variant("sfap_electrodes_2cols.h5", replace("inputs/electrode_positions", np.zeros((4, 2))))
variant("sfap_endplate_outside.h5", replace("inputs/endplate_z", np.full(n, 1e9)))
variant("sfap_nerve_paths_text.h5", replace("inputs/nerve_paths", np.array([[b"a", b"b"]] * n)))
def no_length(f):
    for a in ("right_end_mm", "muscle_length_mm"):
        if a in f["inputs"].attrs: del f["inputs"].attrs[a]
variant("sfap_no_length.h5", no_length)
def reversed_ends(f):
    f["inputs"].attrs["left_end_mm"] = 10.0; f["inputs"].attrs["right_end_mm"] = 5.0
variant("sfap_reversed_ends.h5", reversed_ends)
def text_attribute(f):
    f["inputs"].attrs["dz_mm"] = "fine"
variant("sfap_dz_text.h5", text_attribute)
def zero_dz(f):
    f["inputs"].attrs["dz_mm"] = 0.0
variant("sfap_dz_zero.h5", zero_dz)
PY
i=inputs
hh_stim() { expect_failure "$1" "$2" hh --t-ms 1 --dt-ms 0.1 --neurons 2 --stimulus-file "$3" --output out.h5; }
hh_stim 3 "not_hdf5.h5" $i/not_hdf5.h5
hh_stim 3 "no_such.h5" $i/no_such.h5
hh_stim 2 "does not exist" $i/stim_missing.h5
hh_stim 2 "does not exist" "$i/stim_nan.h5:/nowhere"
hh_stim 2 "1-D (shared) or 2-D" $i/stim_3d.h5
hh_stim 2 "7 samples, expected n_steps = 10 or 11" $i/stim_short.h5
hh_stim 2 "non-finite" $i/stim_nan.h5
hh_stim 2 "non-finite\|out of the range of float32" $i/stim_inf.h5
hh_stim 2 "expected (10 or 11, 2)" $i/stim_neurons.h5
hh_stim 2 "stimulus" $i/stim_text.h5
hh_stim 2 "stimulus" $i/stim_f32_overflow.h5
hh_stim 2 "stimulus" $i/stim_group.h5
grid() { expect_failure "$1" "$2" life --width 4 --height 4 --initial "$3" --output out.npy; }
grid 2 "other than 0 or 1" $i/grid_values.h5
grid 2 "not 2-D" $i/grid_1d.h5
grid 2 "generations" $i/grid_float.h5
grid 2 "empty" $i/grid_empty.h5
grid 2 "bit-packed" $i/grid_packed.h5
grid 3 "not_hdf5.h5" $i/not_hdf5.h5
sfap_in() { expect_failure "$1" "$2" sfap --input "$3" --output out.h5; }
sfap_in 3 "not_hdf5.h5" $i/not_hdf5.h5
sfap_in 2 "missing group /inputs" $i/sfap_no_group.h5
sfap_in 2 "conduction_velocity must be > 0" $i/sfap_velocity_negative.h5
sfap_in 2 "diameter must be > 0" $i/sfap_diameter_zero.h5
sfap_in 2 "fiber_centers has a non-finite value" $i/sfap_centers_inf.h5
sfap_in 2 "fiber_centers has shape (.*, 2, 1)" $i/sfap_centers_3d.h5
sfap_in 2 "holds no electrodes" $i/sfap_no_electrodes.h5
sfap_in 2 "electrode_positions has shape (4, 2)" $i/sfap_electrodes_2cols.h5
sfap_in 2 "endplate_z has a value outside" $i/sfap_endplate_outside.h5
sfap_in 2 "nerve_paths" $i/sfap_nerve_paths_text.h5
sfap_in 2 "right_end_mm or muscle_length_mm" $i/sfap_no_length.h5
sfap_in 2 "right > left" $i/sfap_reversed_ends.h5
sfap_in 2 "dz_mm" $i/sfap_dz_text.h5
sfap_in 2 "dz must be finite and > 0" $i/sfap_dz_zero.h5

finish
