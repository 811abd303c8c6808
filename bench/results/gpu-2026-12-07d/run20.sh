set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
J="env LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so .device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp .device/lib/*"
# 1. stem 7x7 probe: floor, template default (now tile_c=1) and variants, rules
timeout 100 $J dev.kernelgen.bench.gpu.StemProbe > $OUT/stem.log 2>&1; grep -vE "^\s+at " $OUT/stem.log | tail -24
# 2. whole new-user set on CUDA
timeout 230 bench/gpu.sh floor $OUT/nu --targets CUDA --set new-user --rounds 2 > $OUT/nu.log 2>&1
tail -62 $OUT/nu.log
# 3. the model's next configs of the picks below their floor
timeout 220 $J dev.kernelgen.bench.gpu.NextProbe int_dot_zp_384x300x257 max_pool2d_2x2_nchw_8x30x111x111 box_blur3x3_twice_3x720x1283 depthwise_nhwc_m2_1x56x56x48 gram_per_batch_8x300x96 > $OUT/probe.log 2>&1; grep -v notes $OUT/probe.log | cut -c1-260
