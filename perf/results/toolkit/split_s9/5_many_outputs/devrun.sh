set -u
rm -rf .device; tar -xJf .devpack.tar.xz
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=.device/bin/portasim_bench_toolkit_elementwise
R=/tmp/res; rm -rf $R; mkdir -p $R
F='(copy/deep_copy_float|reduction_axis/sum_first_axis_(256|4096|32768)_cols).*n:(1000000|10000000|100000000)/'
run() { name=$1; shift; env "$@" $B --benchmark_filter="$F" --benchmark_repetitions=3 --benchmark_min_time=0.05 --benchmark_out=$R/$name.json --benchmark_out_format=json > $R/$name.txt 2>&1; echo "== $name"; grep -E "_median" $R/$name.txt | awk '{print $1, $2}'; }
run columns_a X=1
run flat_a PSX_FLAT=1
run columns_b X=1
run flat_b PSX_FLAT=1
tar -cf $OUT/res.tar -C $R .
