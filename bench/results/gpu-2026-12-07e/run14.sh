set -x
nvidia-smi --query-gpu=name --format=csv
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
# The new-user set on CUDA with the model of ec0c256 and after (never rerun whole since)
timeout 240 bench/gpu.sh floor $OUT/nu --targets CUDA --set new-user --rounds 2 > $OUT/nu.log 2>&1
tail -64 $OUT/nu.log
