set -u
rm -rf .device; tar -xJf .devpack.tar.xz
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=.device/bin/portasim_bench_toolkit_elementwise
T=.device/bin/portasim_tests_toolkit_cuda
R=/tmp/res; rm -rf $R; mkdir -p $R/sanitizers
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
$T > $R/cuda_tests.txt 2>&1; echo "tests rc $?"; tail -2 $R/cuda_tests.txt
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $T --gtest_filter='*reduction_axis*' > $R/sanitizers/$tool.txt 2>&1; echo "$tool rc $?"; tail -1 $R/sanitizers/$tool.txt
done
main() { $B --benchmark_filter='^(reduction_axis/|copy/)' --benchmark_repetitions=3 --benchmark_min_time=0.05 --benchmark_out=$R/final_$1.json --benchmark_out_format=json > $R/final_$1.txt 2>&1; echo "== final $1"; grep _median $R/final_$1.txt | grep -E "n:1000000(0|00)/" | awk '{print $1, $2}'; }
main 1
(cd perf/toolkit && PYTHONUNBUFFERED=1 python3 axis_torch.py 1e4 1e5 1e6 1e7 1e8) > $R/torch.jsonl 2>&1; echo "torch rc $?"
(cd perf/toolkit && PYTHONUNBUFFERED=1 python3 axis_cupy.py 1e4 1e5 1e6 1e7 1e8) > $R/cupy.jsonl 2>&1; echo "cupy rc $?"
main 2
$B --benchmark_filter='^reduction_axis_split/' --benchmark_min_time=0.05 --benchmark_out=$R/split_variants.json --benchmark_out_format=json > $R/split_variants.txt 2>&1; echo "split variants rc $?"
tar -cf $OUT/res.tar -C $R .
