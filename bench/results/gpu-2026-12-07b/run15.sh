set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
# The new-user operator set (NewUserOps: 31 operators of the 2026-12-07 C sweep) on CUDA, twice.
timeout 250 bench/gpu.sh floor $OUT/nu1 --targets CUDA --set new-user --rounds 2 > $OUT/nu1.log 2>&1
timeout 250 bench/gpu.sh floor $OUT/nu2 --targets CUDA --set new-user --rounds 2 > $OUT/nu2.log 2>&1
tail -40 $OUT/nu1.log
grep -E "rows:" $OUT/nu2.log
