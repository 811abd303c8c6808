set -x
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
cat .device/prepared-at.txt
timeout 230 bench/gpu.sh floor $OUT/nu --targets CUDA --set new-user --rounds 2 > $OUT/nu.log 2>&1
tail -80 $OUT/nu.log
timeout 200 bench/gpu.sh floor $OUT/full --targets CUDA --rounds 2 > $OUT/full.log 2>&1
tail -12 $OUT/full.log
