#!/usr/bin/env bash
# Sweeps with timing on the device (issue 32): the CLI's wall clock for the 21-variant square and the
# 24-variant matmul sweeps on one GPU and on two, from empty caches and warm, with GPU workers forked
# from the resident parent (the default) and started from scratch (IRSCOPE_KEEP_GPU_WORKERS=0).
# Run from the repository root on the device, after installing irscope; writes its outputs under $OUT.
set -u
nvidia-smi -L; TIMEFORMAT='  wall %R s'
SQ="-s BLOCK_SIZE=128,256,512,1024,2048,4096,8192 -s num_warps=1,4,8"
MM="-s BLOCK_SIZE_M=64,128 -s BLOCK_SIZE_N=128,256 -s num_warps=4,8 -s num_stages=2,3,4"
R=${RUN:-1}  # a fresh set of caches per RUN on a machine kept between calls
export IRSCOPE_CACHE_DIR=/tmp/c$R TRITON_CACHE_DIR=/tmp/t$R XDG_RUNTIME_DIR=/tmp/rt$R
mkdir -p /tmp/rt$R && chmod 700 /tmp/rt$R
run() { local name=$1; shift; echo "== $name"; time (python3 -m irscope bench "$@" > "$OUT/$name.txt" 2>&1); }
run sq_cold square_kernel $SQ --gpus 0
run sq_warm1 square_kernel $SQ --gpus 0
run sq_warm1b square_kernel $SQ --gpus 0
run sq_warm2 square_kernel $SQ --gpus 0,1
run sq_warm2b square_kernel $SQ --gpus 0,1
IRSCOPE_KEEP_GPU_WORKERS=0 run sq_fresh1 square_kernel $SQ --gpus 0
run mm_cold1 matmul_kernel $MM --gpus 0
run mm_warm1 matmul_kernel $MM --gpus 0
run mm_warm1b matmul_kernel $MM --gpus 0
run mm_warm2 matmul_kernel $MM --gpus 0,1
run mm_warm2b matmul_kernel $MM --gpus 0,1
IRSCOPE_KEEP_GPU_WORKERS=0 run mm_fresh1 matmul_kernel $MM --gpus 0
IRSCOPE_KEEP_GPU_WORKERS=0 run mm_fresh2 matmul_kernel $MM --gpus 0,1
for f in sq_warm1 mm_warm2; do tail -n 4 "$OUT/$f.txt"; done
