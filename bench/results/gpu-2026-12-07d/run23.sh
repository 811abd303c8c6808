set -x
nvidia-smi --query-gpu=name --format=csv
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
# A/B: the GPU model's register tile with nothing staged and warps along outer axes (new) against before (old).
for v in old1 new1; do
  cp .device/ab/${v%?}.jar .device/lib/kernelgen-compiler-core-0.1.0-SNAPSHOT.jar
  timeout 100 bench/gpu.sh floor $OUT/$v-a --targets CUDA --only conv2d_winograd2,user_conv3d,user_conv3x3s2,user_dilated_conv,user_pointwise_s2,user_swiglu --rounds 2 > $OUT/$v-a.log 2>&1; grep -E "_|rows" $OUT/$v-a.log | grep -v "^cpu\|^gpu\|operator"
  timeout 70 bench/gpu.sh floor $OUT/$v-b --targets CUDA --set new-user --only bmm_bcast,lstm_cell,gram_per_batch --rounds 2 > $OUT/$v-b.log 2>&1; grep -E "_|rows" $OUT/$v-b.log | grep -v "^cpu\|^gpu\|operator"
done
