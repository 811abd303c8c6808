set -x
nvidia-smi --query-gpu=name --format=csv
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
# A/B: the GPU model's register tile with nothing staged (new) against before (old), alternating.
for v in old1 new1 old2 new2; do
  cp .device/ab/${v%?}.jar .device/lib/kernelgen-compiler-core-0.1.0-SNAPSHOT.jar
  timeout 60 bench/gpu.sh floor $OUT/$v-a --targets CUDA --only user_pointwise_s2,user_swiglu --rounds 2 > $OUT/$v-a.log 2>&1; grep -E "user_|rows" $OUT/$v-a.log
  timeout 60 bench/gpu.sh floor $OUT/$v-b --targets CUDA --set new-user --only lstm_cell,gram_per_batch --rounds 2 > $OUT/$v-b.log 2>&1; grep -E "lstm|gram|rows" $OUT/$v-b.log
done
