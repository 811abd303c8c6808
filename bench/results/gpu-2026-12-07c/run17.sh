set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
# A/B: the direct-read sector term of the GPU model off (-Dkg.nodirect=true, the pick before) and on,
# alternating, on the one new-user operator whose pick it changes.
for v in base1 D1 base2 D2; do
  case $v in base*) O="-Dkg.nodirect=true";; D*) O="";; esac
  timeout 100 env JAVA_TOOL_OPTIONS="$O" bench/gpu.sh floor $OUT/$v --targets CUDA --set new-user --only cost_volume --rounds 3 > $OUT/$v.log 2>&1; grep -E "cost_volume|rows" $OUT/$v.log
done
# The whole new-user set (NewUserOpsA-D, 59 operators) on CUDA, the term on.
timeout 300 bench/gpu.sh floor $OUT/nu --targets CUDA --set new-user --rounds 2 > $OUT/nu.log 2>&1
tail -68 $OUT/nu.log
# A 7x7 stride-2 stem conv over 3 channels (topi conv2dNchw): its naive floor, the CUDA template's
# default and variants, the rules' pick (a scratch class, zz-probe.jar).
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
timeout 150 env LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so .device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".device/lib/*" dev.kernelgen.bench.gpu.StemProbe > $OUT/stem.log 2>&1; grep -vE "^\s+at " $OUT/stem.log | tail -30
