set -u
[ -d .device ] || tar -xJf .devpack.tar.xz
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=.device/bin/portasim_bench_toolkit_elementwise
T=.device/bin/portasim_tests_toolkit_cuda
R=$OUT
ls /tmp/res 2>/dev/null && cp -r /tmp/res $R/prev 2>/dev/null
timeout 60 $T --gtest_brief=1 > $R/cuda_tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/cuda_tests.txt
F='(copy/deep_copy_float|reduction_axis/sum_first_axis_(float|256_cols_float|4096_cols_float|32768_cols_float|16_cols_float)).*n:(1000000|10000000|100000000)/'
timeout 150 $B --benchmark_filter="$F" --benchmark_repetitions=2 --benchmark_min_time=0.05 --benchmark_out=$R/check.json --benchmark_out_format=json > $R/check.txt 2>&1; echo "bench rc $?"
grep _median $R/check.txt | awk '{print $1, $2}'
