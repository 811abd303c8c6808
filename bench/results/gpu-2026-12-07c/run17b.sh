set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
# The whole new-user set (NewUserOpsA-D, 59 operators) on CUDA, the direct-read term on.
timeout 300 bench/gpu.sh floor $OUT/nu --targets CUDA --set new-user --rounds 2 > $OUT/nu.log 2>&1
tail -68 $OUT/nu.log
