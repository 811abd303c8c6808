set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
# The full CUDA floor table at main (every FloorBench row), twice.
timeout 280 bench/gpu.sh floor $OUT/full1 --targets CUDA --rounds 2 > $OUT/full1.log 2>&1
timeout 280 bench/gpu.sh floor $OUT/full2 --targets CUDA --rounds 2 > $OUT/full2.log 2>&1
tail -85 $OUT/full1.log
grep -E "rows:" $OUT/full2.log
