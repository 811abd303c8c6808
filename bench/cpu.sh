#!/usr/bin/env bash
# CPU benchmark of depthwise convolution: ONNX Runtime, plain Java loops, the generated Java
# kernels (kgjava_us; the CPU model and ISA level head the report) and (when an OursKernel
# is registered) kernelgen's kernels. Usage: bench/cpu.sh [OUT_JSON] [CpuBench options...]
#   OUT_JSON defaults to bench/results/cpu-latest.json; options: --only TEXT, --quick, --seed FILE,
#   --tuned TRIALS (search each workload first), --generated (the auto-scheduler alone, no template).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

out=bench/results/cpu-latest.json
# `bench/cpu.sh ops [OUT_JSON] [--quick] [--big] [--generated] [--only TEXT] [--conv NxCxHxWxF,...]`: the operator benchmark (matmul,
# softmax, layer norm, conv2d: kernelgen's default C schedules, or with --generated the auto-scheduler's
# untuned picks alone, vs ONNX Runtime), to ops-cpu-latest.json.
# `bench/cpu.sh floor [OUT_JSON] [--only A,B] [--rounds N]`: the floor table's C rows (every library
# and user operator's untuned pick against its naive loops), to floor-cpu-latest.json.
main=dev.kernelgen.bench.CpuBench
module=bench/cpu-bench
if [[ ${1:-} == ops ]]; then
  shift
  main=dev.kernelgen.bench.OpsCpuBench
  out=bench/results/ops-cpu-latest.json
fi
if [[ ${1:-} == floor ]]; then
  # The floor table on this CPU: FloorBench's C rows (bench/gpu.sh floor runs it on the GPU
  # machine); -Dkernelgen.cpu.maxIsa in JAVA_TOOL_OPTIONS measures a lower level's library and pick.
  shift
  main=dev.kernelgen.bench.gpu.FloorBench
  module=bench/gpu-bench
  out=bench/results/floor-cpu-latest.json
  out_first=1
fi
if [[ $# -gt 0 && $1 != --* ]]; then
  out=$1
  shift
fi

cp_file=$PWD/$module/target/classpath.txt
# One reactor build: the project's own modules come from their target folders, not ~/.m2.
./mvnw -q -Pbench -pl "$module" -am package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=runtime >/dev/null

# The 32-batch workload keeps several 300 MB tensors alive at once.
java=("$JAVA" --enable-native-access=ALL-UNNAMED -Xmx8g -cp "$module/target/classes:$(cat "$cp_file")")
if [[ -n ${out_first:-} ]]; then
  exec "${java[@]}" "$main" "$out" --targets C "$@"
fi
exec "${java[@]}" "$main" "$@" "$out"
