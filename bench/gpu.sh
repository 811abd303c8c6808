#!/usr/bin/env bash
# GPU benchmark of depthwise convolution, side by side in one run on one GPU: kernelgen's CUDA
# kernels (the seed's schedules, generated, compiled with nvcc, launched through JCuda) and
# PyTorch (cuDNN depthwise, the three eager ops, torch.compile of them).
#
#   bench/gpu.sh prepare        here (no GPU needed): builds the jars and a Java runtime into .device/
#   bench/gpu.sh OUT_DIR        on the GPU machine: runs both sides, writes OUT_DIR/ours.json,
#                               OUT_DIR/torch.json and OUT_DIR/gpu-latest.json, prints the table
#   bench/gpu.sh ops OUT_DIR    on the GPU machine: only the operator benchmark (matmul, softmax,
#                               conv2d vs torch); the plain OUT_DIR run also does it (KG_OPS=0: not)
#                               (arguments after OUT_DIR go to OpsGpuBench: e.g. --conv-configs
#                               candidates times conv2d's candidate knob settings, see OpsGpuBench)
#   bench/gpu.sh sanitize OUT   on the GPU machine: compute-sanitizer memcheck and racecheck over
#                               every seed kernel (small shapes)
#
# With the device tool: run `bench/gpu.sh prepare` here, then send `bench/gpu.sh $OUT` with
# carry [".device"].
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=${1:-}

if [[ $cmd == prepare ]]; then
  export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
  [[ -x $JAVA_HOME/bin/jlink ]] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
  ./mvnw -q -pl samples/gpu-bench -am package -DskipTests >/dev/null
  [[ -x .device/jre/bin/java ]] || ../shared/device/jre.sh >/dev/null
  rm -rf .device/lib && mkdir -p .device/lib
  repo=${HOME}/.m2/repository
  for m in annotations compiler-core runtime; do
    cp $m/target/kernelgen-$m-*.jar .device/lib/
  done
  cp samples/cpu-bench/target/kernelgen-cpu-bench-*.jar samples/gpu-bench/target/kernelgen-gpu-bench-*.jar .device/lib/
  cp $repo/org/jcuda/jcuda/12.6.0/jcuda-12.6.0.jar $repo/org/jocl/jocl/2.0.5/jocl-2.0.5.jar .device/lib/
  # Only the driver API's native library: the PTX compiler and NVRTC bindings are not used.
  tmp=$(mktemp -d)
  (cd "$tmp" && unzip -q $repo/org/jcuda/jcuda-natives/12.6.0/jcuda-natives-12.6.0-linux-x86_64.jar \
      'lib/libJCudaDriver-*' 'META-INF/*' && jar_bin=$JAVA_HOME/bin/jar &&
   "$jar_bin" --create --file jcuda-natives-driver.jar -C "$tmp" lib META-INF)
  mv "$tmp/jcuda-natives-driver.jar" .device/lib/ && rm -rf "$tmp"
  du -sh .device
  exit 0
fi

plain_java=(.device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".device/lib/*")
# JVM signal chaining: the NVIDIA driver's signal handlers otherwise replace the JVM's, and the
# process dies of a segmentation fault later (seen on the H200). Not under compute-sanitizer,
# which injects itself through LD_PRELOAD.
java=(env "LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}" "${plain_java[@]}")
export PATH=$PATH:/usr/local/cuda/bin

if [[ $cmd == sanitize ]]; then
  out=${2:?usage: bench/gpu.sh sanitize OUT_DIR}
  mkdir -p "$out"
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool"
    compute-sanitizer --tool $tool --print-limit 20 "${plain_java[@]}" \
      dev.kernelgen.bench.gpu.GpuBench "$out/sanitize-$tool" --checks-only 2>&1 | tee "$out/sanitize-$tool.log" | tail -5
  done
  exit 0
fi

# Operators (issue 5): matmul, softmax, conv2d with the untuned default schedules beside torch
# (cuBLAS, cuDNN): writes OUT_DIR/ops-ours.json, ops-torch.json, ops-gpu-latest.json, ops-table.txt.
run_ops() {
  "${java[@]}" dev.kernelgen.bench.gpu.OpsGpuBench "$@" 2>&1 | tee "$1/ops-ours.log"
  python3 bench/ops_torch.py "$1/ops-torch.json" --ours "$1/ops-ours.json" \
    --merged "$1/ops-gpu-latest.json" 2>&1 | tee "$1/ops-table.txt"
}
if [[ $cmd == ops ]]; then
  out=${2:?usage: bench/gpu.sh ops OUT_DIR}
  mkdir -p "$out"
  run_ops "$out" "${@:3}"
  exit 0
fi

out=${cmd:?usage: bench/gpu.sh OUT_DIR | ops OUT_DIR | prepare | sanitize OUT_DIR}
mkdir -p "$out"
"${java[@]}" dev.kernelgen.bench.gpu.GpuBench "$out" 2>&1 | tee "$out/ours.log"
# One torch.compile variant by default (each compile takes 15-25 s): the one that keeps NCHW,
# which is the faster of the two for depthwise convolution; KG_COMPILE_VARIANTS=compiled,compiled_nchw
# measures both.
KG_COMPILE_VARIANTS=${KG_COMPILE_VARIANTS:-compiled_nchw} python3 bench/gpu_torch.py bench/workloads.json "$out/torch.json" 2>&1 | tee "$out/torch.log"
python3 bench/gpu_merge.py "$out/ours.json" "$out/torch.json" "$out/gpu-latest.json" | tee "$out/table.txt"
[[ ${KG_OPS:-1} == 0 ]] || run_ops "$out"
