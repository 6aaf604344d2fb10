#!/usr/bin/env bash
# One GPU per MPI rank: each rank sees only the GPU of its node-local rank (modulo the GPUs of
# the node), as device 0. Runs as the per-rank wrapper: bind_gpu.sh PROGRAM [ARGS...]
# Node-local rank from Slurm, Open MPI, MPICH/Intel MPI or MVAPICH, in that order.
set -euo pipefail
local_rank=${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${MV2_COMM_WORLD_LOCAL_RANK:-}}}}
if [ -z "$local_rank" ]; then
  echo "bind_gpu.sh: no node-local rank in the environment (not started by srun/mpirun?)" >&2
  exit 2
fi
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  # Slurm may already have narrowed the list (e.g. "2,3"): pick from it, not from 0..N-1.
  IFS=, read -r -a gpus <<<"$CUDA_VISIBLE_DEVICES"
else
  count=${SLURM_GPUS_ON_NODE:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
  if [ -z "$count" ] || [ "$count" -lt 1 ]; then
    echo "bind_gpu.sh: no GPU visible on $(hostname)" >&2
    exit 2
  fi
  gpus=()
  for ((i = 0; i < count; i++)); do gpus+=("$i"); done
fi
export CUDA_VISIBLE_DEVICES=${gpus[$((local_rank % ${#gpus[@]}))]}
exec "$@"
