set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
[[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .device/jre.tar.xz .device
export PATH=$PATH:/usr/local/cuda/bin
# 1. The launcher safety tests on CUDA (and OpenCL where the machine has it): gathers with indices
#    outside the table and integer divisions by zero throw, the next call is right; a gathering
#    launcher captured in a CUDA graph.
KG_TESTS_ONLY='LauncherSafetyTest' timeout 200 bench/gpu.sh tests $OUT/t > $OUT/t.log 2>&1
grep -v "^OK " $OUT/t.log | tail -25
grep -E "IndexRead|Division|Gathering|Captured" $OUT/t.log
# 2. The same class under compute-sanitizer memcheck: no read past a buffer.
cp=".device/lib/*:.device/test/lib/*:.device/test/maven-plugin-main"
for d in runtime gpu-bench maven-plugin measure; do cp+=":.device/test/$d"; done
timeout 280 compute-sanitizer --tool memcheck --print-limit 20 .device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp "$cp" dev.kernelgen.bench.gpu.DeviceTestRunner dev.kernelgen.maven.launcher.LauncherSafetyTest > $OUT/memcheck.log 2>&1
grep -E "ERROR SUMMARY|=========|tests (successful|failed)|FAILED" $OUT/memcheck.log | tail -12
