set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
# 1. cost volume A/B: direct-read term off (base) and on (D), alternating.
for v in base1 D1 base2 D2; do
  case $v in base*) O="-Dkg.nodirect=true";; D*) O="";; esac
  timeout 50 env JAVA_TOOL_OPTIONS="$O" bench/gpu.sh floor $OUT/$v --targets CUDA --set new-user --only cost_volume --rounds 2 > $OUT/$v.log 2>&1; grep -E "cost_volume|rows" $OUT/$v.log
done
# 2. stem 7x7 probe
timeout 110 env LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so .device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".device/lib/*" dev.kernelgen.bench.gpu.StemProbe > $OUT/stem.log 2>&1; grep -vE "^\s+at " $OUT/stem.log | tail -30
# 3. whole new-user set on CUDA
timeout 250 bench/gpu.sh floor $OUT/nu --targets CUDA --set new-user --rounds 2 > $OUT/nu.log 2>&1
tail -68 $OUT/nu.log
