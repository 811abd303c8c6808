nvidia-smi --query-gpu=name --format=csv,noheader; export PATH=$PATH:/usr/local/cuda/bin; timeout 270 bench/gpu.sh floor $OUT/fl --targets CUDA --rounds 2 > $OUT/fl.log 2>&1; tail -84 $OUT/fl.log
