#!/usr/bin/env bash
# scripts/render_life.py on small runs of the built `portasim life`: a chunked .npy run and a
# bit-packed HDF5 run, rendered to PNG frames and an MP4. Checks the frame count and size of
# both (ffprobe -count_frames for the MP4), that the PNG frames show the stored grids cell by
# cell and the MP4 frames show them in order, and the exit code 2 with a message for unusable
# input.
# Needs ffmpeg, ffprobe and /usr/bin/python3 with numpy, matplotlib and h5py (all installed by
# scripts/bootstrap.sh): in CI (CI=true) a missing one fails the test; elsewhere the test
# exits 77 (CTest: skipped), saying what is missing.
# usage: test_render_life.sh PATH/TO/portasim PATH/TO/render_life.py
portasim=$1
render=$2
case $render in /*) ;; *) render=$PWD/$render ;; esac  # the test runs in a scratch folder
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

missing=()
for tool in ffmpeg ffprobe; do command -v $tool > /dev/null || missing+=("$tool"); done
for module in numpy matplotlib h5py; do
  /usr/bin/python3 -c "import $module" 2> /dev/null || missing+=("python3-$module")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: ${missing[*]} missing in CI (scripts/bootstrap.sh installs them)"
    exit 1
  fi
  echo "SKIP: ${missing[*]} missing (scripts/bootstrap.sh installs them); the renderer was not tested"
  exit 77
fi

render() { /usr/bin/python3 "$render" "$@"; }

# mp4_frames FILE: "frames width height rate" as ffprobe decodes them.
mp4_frames() {
  ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=nb_read_frames,width,height,r_frame_rate -of default=noprint_wrappers=1 "$1" |
    awk -F= '{v[$1] = $2} END {print v["nb_read_frames"], v["width"], v["height"], v["r_frame_rate"]}'
}

# check_frames RUN PREFIX MP4 SCALE GENERATIONS...: the PNG frames PREFIX_frame_GGGGGG.png
# are exactly GENERATIONS, each the stored grid with every cell SCALE x SCALE pixels (black
# alive, white dead: the binary colormap), and the MP4's frames show the same grids in order.
check_frames() {
  /usr/bin/python3 - "$@" << 'PY'
import glob, os, re, subprocess, sys
import h5py, numpy as np
import matplotlib.image
run, prefix, mp4, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
wanted = [int(g) for g in sys.argv[5:]]
if run.endswith(".h5"):
    f = h5py.File(run, "r")
    index = list(f["generation_index"][()])
    data = f["generations"][()]
    if f.attrs["packed"]:
        data = np.unpackbits(data, axis=-1, bitorder="little")[..., :f.attrs["width"]]
    grids = {int(g): data[i] for i, g in enumerate(index)}
else:
    grids = {}
    for name in glob.glob(run[:-4] + "_*.npy"):
        m = re.search(r"_(\d{6})(?:-(\d{6}))?\.npy$", name)
        chunk = np.load(name)
        for i in range(chunk.shape[0]):
            grids[int(m.group(1)) + i] = chunk[i]
found = sorted(int(re.search(r"_(\d{6})\.png$", p).group(1)) for p in glob.glob(prefix + "_frame_*.png"))
assert found == wanted, f"PNG frames of generations {found}, expected {wanted}"
h, w = grids[wanted[0]].shape
for g in wanted:
    image = matplotlib.image.imread(f"{prefix}_frame_{g:06d}.png")
    assert image.shape[:2] == (h * scale, w * scale), f"frame {g}: {image.shape[:2]}, expected {(h * scale, w * scale)}"
    cells = image[scale // 2::scale, scale // 2::scale, 0] < 0.5
    assert np.array_equal(cells, grids[g] == 1), f"frame {g} does not show generation {g}"
    blocks = image[:, :, 0].reshape(h, scale, w, scale)
    assert (blocks.min(axis=(1, 3)) == blocks.max(axis=(1, 3))).all(), f"frame {g}: a cell is not {scale} x {scale} pixels"
# The MP4's frames (H.264 is lossy: compare cell centres, allow a few cells off).
even_h, even_w = h * scale + (h * scale) % 2, w * scale + (w * scale) % 2
raw = subprocess.run(["ffmpeg", "-v", "error", "-i", mp4, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                     check=True, capture_output=True).stdout
movie = np.frombuffer(raw, np.uint8).reshape(-1, even_h, even_w)
animated = sorted(grids)
assert len(movie) == len(animated), f"{len(movie)} MP4 frames, expected {len(animated)}"
for frame, g in zip(movie, animated):
    cells = frame[scale // 2:h * scale:scale, scale // 2:w * scale:scale] < 128
    agree = (cells == (grids[g] == 1)).mean()
    assert agree > 0.98, f"MP4 frame of generation {g} matches its grid in {agree:.1%} of the cells"
print(f"{len(wanted)} PNG frames and {len(movie)} MP4 frames of {h} x {w} cells at {scale} pixels a cell")
PY
}

# --- A chunked .npy run: every generation as a PNG frame, and the MP4 ----------------------
check
"$portasim" life --width 64 --height 48 --steps 20 --chunk-size 6 --seed 7 --output run.npy --quiet ||
  fail "portasim life --output run.npy"
[ -f run_000019-000020.npy ] || fail "the .npy run lacks its short last chunk: $(ls)"
check
render run_000007-000012.npy --output movie/run.mp4 --prefix png/run --frames all --fps 10 --scale 4 > out.txt 2>&1 ||
  fail "render .npy run: $(cat out.txt)"
check
[ "$(ls png | grep -c '^run_frame_[0-9]*\.png$')" = 21 ] || fail "expected 21 PNG frames: $(ls png)"
[ -s png/run_frames.png ] || fail "no contact sheet png/run_frames.png"
check
[ "$(mp4_frames movie/run.mp4)" = "21 256 192 10/1" ] ||
  fail "movie/run.mp4: frames width height rate '$(mp4_frames movie/run.mp4)', expected '21 256 192 10/1'"
check
check_frames run.npy png/run movie/run.mp4 4 $(seq 0 20) > out.txt 2>&1 || fail "npy frames: $(cat out.txt)"
check
ls movie png | grep -q partial && fail "a .partial file was left: $(ls movie png)"

# --- A bit-packed HDF5 run of every 3rd generation: a few PNG frames, every 2nd stored one in the MP4
check
"$portasim" life --width 128 --height 40 --steps 15 --chunk-size 4 --seed 3 --every 3 --packed --output run.h5 --quiet ||
  fail "portasim life --output run.h5 --packed"
check
render --input run.h5 --every 2 --scale 2 > out.txt 2>&1 || fail "render .h5 run: $(cat out.txt)"
check
[ "$(mp4_frames run.mp4)" = "3 256 80 15/1" ] ||
  fail "run.mp4: frames width height rate '$(mp4_frames run.mp4)', expected '3 256 80 15/1' (generations 0, 6, 12)"
check
# The default PNG frames: 4 evenly spread over the animated generations 0, 6, 12 (3 of them).
/usr/bin/python3 - > out.txt 2>&1 << 'PY' || fail "h5 PNG frames: $(cat out.txt)"
import glob
import h5py, numpy as np
import matplotlib.image
f = h5py.File("run.h5", "r")
assert list(f["generation_index"][()]) == [0, 3, 6, 9, 12, 15], f["generation_index"][()]
grids = np.unpackbits(f["generations"][()], axis=-1, bitorder="little")
found = sorted(glob.glob("run_frame_*.png"))
assert found == ["run_frame_000000.png", "run_frame_000006.png", "run_frame_000012.png"], found
for name, i in zip(found, (0, 2, 4)):
    image = matplotlib.image.imread(name)
    assert image.shape[:2] == (80, 256), image.shape
    assert np.array_equal(image[1::2, 1::2, 0] < 0.5, grids[i] == 1), name
PY

# --- An odd side: the PNG keeps it, the MP4 gets one more row of dead cells -------------------
check
"$portasim" life --width 64 --height 25 --steps 3 --chunk-size 2 --seed 5 --output odd.npy --quiet || fail "odd run"
render odd.npy --scale 1 --frames all > out.txt 2>&1 || fail "render odd run: $(cat out.txt)"
check
[ "$(mp4_frames odd.mp4)" = "4 64 26 15/1" ] || fail "odd.mp4: '$(mp4_frames odd.mp4)', expected '4 64 26 15/1'"
check
check_frames odd.npy odd odd.mp4 1 0 1 2 3 > out.txt 2>&1 || fail "odd frames: $(cat out.txt)"

# --- Unusable input: exit 2, a message naming the problem, no traceback ---------------------
# expect_render_failure PATTERN ARGS...
expect_render_failure() {
  local pattern=$1
  shift
  check
  bad_inputs=$((bad_inputs + 1))
  render "$@" > err.txt 2>&1
  local rc=$?
  [ $rc = 2 ] || fail "render_life.py $*: exit $rc, expected 2: $(cat err.txt)"
  grep -qi -- "$pattern" err.txt || fail "render_life.py $*: message lacks '$pattern': $(cat err.txt)"
  grep -q Traceback err.txt && fail "render_life.py $*: a traceback: $(cat err.txt)"
  rm -f err.txt
}
mkdir bad && cd bad || exit 1
expect_render_failure "no chunk files" nothing.npy
expect_render_failure "no chunk files simulation_" --no-mp4
expect_render_failure "does not exist" missing.h5
expect_render_failure "names the MP4" ../run.npy --output frames
expect_render_failure "not stored" ../run.npy --generations 99 --no-mp4
expect_render_failure "no generation in" ../run.npy --first 30 --no-mp4
expect_render_failure "must be > 0" ../run.npy --fps 0
expect_render_failure "colormap" ../run.npy --cmap no-such-map
echo "not HDF5" > junk.h5
expect_render_failure "cannot read 'junk.h5'" junk.h5
/usr/bin/python3 -c "
import numpy as np
np.save('wide_000000.npy', np.zeros((1, 4, 4), np.int32))
np.save('gap_000000.npy', np.zeros((1, 4, 4), np.uint8))
np.save('gap_000001-000003.npy', np.zeros((2, 4, 4), np.uint8))
np.save('two_000000.npy', np.full((1, 4, 4), 2, np.uint8))
import h5py
h5py.File('other.h5', 'w')['x'] = 1"
expect_render_failure "expected uint8" wide.npy --no-mp4
expect_render_failure "its name says 1..3" gap_000000.npy --no-mp4
expect_render_failure "other than 0 or 1" two.npy --no-mp4
expect_render_failure "no /generations" other.h5 --no-mp4
cd ..

finish
