set -x
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
J() { LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so .device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".device/lib/*" "$@"; }
timeout 100 bash -c "$(declare -f J); J dev.kernelgen.bench.gpu.StemProbe" > $OUT/stem.log 2>&1; grep -vE "^\s+at " $OUT/stem.log | tail -24
timeout 300 bash -c "$(declare -f J); J dev.kernelgen.bench.gpu.NextProbe gram_per_batch_8x300x96 int_dot_zp_384x300x257 max_pool2d_2x2_nchw_8x30x111x111 box_blur3x3_twice_3x720x1283 depthwise_nhwc_m2_1x56x56x48" > $OUT/probe.log 2>&1; grep -v notes $OUT/probe.log | cut -c1-300
