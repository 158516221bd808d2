python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl .whlray/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site; python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . 2>&1 | tail -1
nvidia-smi -L; TIMEFORMAT='  wall %R s'
SQ="-s BLOCK_SIZE=128,256,512,1024,2048,4096,8192 -s num_warps=1,4,8"
MM="-s BLOCK_SIZE_M=64,128 -s BLOCK_SIZE_N=128,256 -s num_warps=4,8 -s num_stages=2,3,4"
export IRSCOPE_CACHE_DIR=/tmp/c1 TRITON_CACHE_DIR=/tmp/t1
echo "== square 21, one GPU, empty caches"; time (python3 -m irscope bench square_kernel $SQ --gpus 0 > $OUT/sq_cold.txt 2>&1)
echo "== square 21, one GPU, warm"; time (python3 -m irscope bench square_kernel $SQ --gpus 0 > $OUT/sq_warm.txt 2>&1)
echo "== square 21, two GPUs, warm"; time (python3 -m irscope bench square_kernel $SQ --gpus 0,1 > $OUT/sq_warm2.txt 2>&1)
echo "== matmul 24, one GPU, empty caches"; time (python3 -m irscope bench matmul_kernel $MM --gpus 0 > $OUT/mm_cold1.txt 2>&1)
echo "== matmul 24, one GPU, warm"; time (python3 -m irscope bench matmul_kernel $MM --gpus 0 > $OUT/mm_warm1.txt 2>&1)
echo "== matmul 24, two GPUs, warm"; time (python3 -m irscope bench matmul_kernel $MM --gpus 0,1 > $OUT/mm_warm2.txt 2>&1)
echo "== matmul 24, one GPU, warm again"; time (python3 -m irscope bench matmul_kernel $MM --gpus 0 > /dev/null 2>&1)
echo "== matmul 24, two GPUs, warm again"; time (python3 -m irscope bench matmul_kernel $MM --gpus 0,1 > /dev/null 2>&1)
tail -3 $OUT/sq_warm.txt $OUT/mm_warm2.txt
unset IRSCOPE_CACHE_DIR TRITON_CACHE_DIR
timeout 200 python3 tests/perf/bench_scale.py --gpu --sizes 21 --no-tui 2>&1 | tail -15
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_ray_gpu.py 2>&1 | tail -5
