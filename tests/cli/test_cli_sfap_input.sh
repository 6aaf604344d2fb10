#!/usr/bin/env bash
# `portasim sfap-input` writes a motor unit that `portasim sfap` runs on, in the documented
# /inputs layout, the same for a seed and from parameters it checks.
# usage: test_cli_sfap_input.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

check
"$portasim" sfap-input --fibers 30 --territory-centre-mm 0.5,-0.5 --territory-radius-mm 1.2 --muscle-length-mm 40 \
  --endplate-mean-mm 18 --endplate-sd-mm 1.5 --velocity-mean-mm-per-s 3800 --velocity-sd-mm-per-s 300 \
  --diameter-mean-mm 0.055 --diameter-sd-mm 0.004 --nerve-paths-mm 3,1.5 --nerve-path-sd-mm 0.5 --electrodes 6 \
  --electrode-spacing-mm 1.5 --electrode-start-mm 0,1,14 --electrode-direction 0,0,1 --fs 8192 --dz 0.1 \
  --seed 11 --output mu.h5 > out.txt 2>&1 || fail "sfap-input: $(cat out.txt)"
grep -q "30 fibers" out.txt || fail "summary lacks the fiber count: $(cat out.txt)"
"$portasim" sfap-input --fibers 30 --territory-centre-mm 0.5,-0.5 --territory-radius-mm 1.2 --muscle-length-mm 40 \
  --endplate-mean-mm 18 --endplate-sd-mm 1.5 --velocity-mean-mm-per-s 3800 --velocity-sd-mm-per-s 300 \
  --diameter-mean-mm 0.055 --diameter-sd-mm 0.004 --nerve-paths-mm 3,1.5 --nerve-path-sd-mm 0.5 --electrodes 6 \
  --electrode-spacing-mm 1.5 --electrode-start-mm 0,1,14 --electrode-direction 0,0,1 --fs 8192 --dz 0.1 \
  --seed 11 --output again.h5 --quiet || fail "second sfap-input"
"$portasim" sfap-input --seed 12 --fibers 30 --output other.h5 --quiet || fail "sfap-input with another seed"
check
"$portasim" sfap --input mu.h5 --output sfap.h5 > out.txt 2>&1 || fail "sfap on a built input: $(cat out.txt)"
grep -q "30 fibers x 6 electrodes" out.txt || fail "sfap summary: $(cat out.txt)"

if have_h5py "the built input's layout check"; then
  check
  py - <<'PY' || fail "the built input's layout"
import h5py, numpy as np
with h5py.File("mu.h5") as f, h5py.File("again.h5") as g, h5py.File("other.h5") as o:
    i = f["inputs"]
    assert i["fiber_centers"].shape == (30, 2) and i["fiber_centers"].dtype == np.float64
    for name in ("endplate_z", "conduction_velocity", "diameter"):
        assert i[name].shape == (30,), name
    assert i["nerve_paths"].shape == (30, 2)
    e = i["electrode_positions"][()]
    assert e.shape == (6, 3)
    assert np.allclose(e, [[0, 1, 14 + 1.5 * k] for k in range(6)])
    a = i.attrs
    assert a["muscle_length_mm"] == 40 and a["left_end_mm"] == 0 and a["right_end_mm"] == 40
    assert abs(a["dt_s"] - 1 / 8192) < 1e-18 and a["fs_Hz"] == 8192 and a["dz_mm"] == 0.1
    c = i["fiber_centers"][()]
    assert np.all(np.hypot(c[:, 0] - 0.5, c[:, 1] + 0.5) <= 1.2 + 1e-12)
    z = i["endplate_z"][()]
    assert np.all((z > 0) & (z < 40)) and abs(z.mean() - 18) < 5 * 1.5 / np.sqrt(30)
    for name in i:
        assert np.array_equal(i[name][()], g["inputs"][name][()]), "same seed, other " + name
    assert not np.array_equal(i["endplate_z"][()], o["inputs"]["endplate_z"][()]), "another seed, same draws"
with h5py.File("sfap.h5") as f:
    assert f["outputs/sfaps_pre_shift"].shape[1:] == (6, 30)
    assert np.isfinite(f["outputs/muap"][()]).all() and np.abs(f["outputs/muap"][()]).max() > 0
PY
fi

# Parameters it refuses, naming them; nothing is written.
expect_failure 2 "fibers" sfap-input --fibers 0 --output bad.h5
expect_failure 2 "end-plate mean" sfap-input --endplate-mean-mm 45 --muscle-length-mm 40 --output bad.h5
expect_failure 2 "electrode direction" sfap-input --electrode-direction 0,0,0 --output bad.h5
expect_failure 2 "--fs" sfap-input --fs 0 --output bad.h5
expect_failure 2 "dz" sfap-input --dz -0.1 --output bad.h5
expect_failure 2 "territory-centre-mm\|2 required\|expected" sfap-input --territory-centre-mm 1 --output bad.h5
expect_failure 2 "could not convert\|--velocity-mean" sfap-input --velocity-mean-mm-per-s fast --output bad.h5
expect_failure 3 "cannot write" sfap-input --output no/such/dir/mu.h5
finish
