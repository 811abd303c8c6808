#!/usr/bin/env bash
# The GPU benchmark's kernelgen side (GpuBench: the seed's depthwise workloads, plain and fused) of
# two commits, side by side on one GPU in alternating rounds: issue 11's check that the figures of
# `bench/gpu.sh` stay within 5% of 89bb99e's.
#
#   bench/gpu-pair.sh prepare [OLD]      here: `bench/gpu.sh prepare` (KG_MAVEN=0) for the working
#                                        tree, and OLD's (default 89bb99e) benchmark jars, built in a
#                                        clone, into .device/old/lib (the Java runtime is shared)
#   bench/gpu-pair.sh run OUT [ROUNDS]   on the GPU machine: ROUNDS (default 2) rounds of OLD then
#                                        the working tree, each resuming from the same copy of
#                                        TUNING (default bench/results/gpu-2026-11-29-b/tuning.jsonl,
#                                        made at 89bb99e's time) so that both time the same
#                                        configurations (KG_PAIR_TRIALS new trials per workload
#                                        and variant beyond the log's, default 1: 89bb99e's
#                                        default of 48 took 527 s on the old side alone); OUT/<side>-<round>/ours.json and
#                                        OUT/pair-table.txt (medians over the rounds, new / old)
#
# With the device tool: `bench/gpu-pair.sh prepare` here, then send `bench/gpu-pair.sh run $OUT`
# with carry [".device"].
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=${1:-}

if [[ $cmd == prepare ]]; then
  old=${2:-89bb99e}
  export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
  KG_MAVEN=0 bench/gpu.sh prepare
  clone=${TMPDIR:-/tmp}/gpu-pair-$old
  rm -rf "$clone"
  git clone -q . "$clone"
  git -C "$clone" checkout -q "$old"
  # The benchmarks lived in samples/ before issue 11 and in bench/ (behind -Pbench) after it.
  if [[ -d $clone/samples/gpu-bench ]]; then bench=samples; else bench=bench; fi
  (cd "$clone" && ./mvnw -o -q -Pbench -pl $bench/gpu-bench -am package -DskipTests >/dev/null)
  rm -rf .device/old && mkdir -p .device/old/lib
  for m in annotations compiler-core runtime measure; do
    cp "$clone"/$m/target/kernelgen-$m-*-SNAPSHOT.jar .device/old/lib/ 2>/dev/null || true
  done
  cp "$clone"/$bench/cpu-bench/target/kernelgen-cpu-bench-*.jar \
    "$clone"/$bench/gpu-bench/target/kernelgen-gpu-bench-*.jar .device/old/lib/
  # JCuda and JOCL, as the old bench/gpu.sh sent them (its jars needed nothing else at run time).
  cp .device/lib/jcuda-12.6.0.jar .device/lib/jocl-2.0.5.jar .device/lib/jcuda-natives-driver.jar .device/old/lib/
  git -C "$clone" rev-parse --short HEAD >.device/old/commit
  git rev-parse --short HEAD >.device/commit
  rm -rf "$clone"
  du -sh .device
  exit 0
fi

if [[ $cmd == run ]]; then
  out=${2:?usage: bench/gpu-pair.sh run OUT [ROUNDS]}
  rounds=${3:-2}
  tuning=${TUNING:-bench/results/gpu-2026-11-29-b/tuning.jsonl}
  [[ -d .device/jre ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
    .device/jre.tar.xz .device
  export PATH=$PATH:/usr/local/cuda/bin
  mkdir -p "$out"
  new=$(cat .device/commit)
  echo "old: $(cat .device/old/commit)  new: $new  rounds: $rounds  tuning log: $tuning" | tee "$out/pair.log"
  for round in $(seq "$rounds"); do
    for side in old new; do
      dir=$out/$side-$round
      mkdir -p "$dir"
      cp "$tuning" "$dir/tuning.jsonl"
      lib=.device/lib
      [[ $side == old ]] && lib=.device/old/lib
      start=$(date +%s)
      LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so .device/jre/bin/java --enable-native-access=ALL-UNNAMED \
        -Dkernels.bench.trials="${KG_PAIR_TRIALS:-1}" -cp "$lib/*" dev.kernelgen.bench.gpu.GpuBench "$dir" --no-thread-pairs >"$dir/ours.log" 2>&1 || true
      echo "$side round $round: $(($(date +%s) - start)) s, $(grep -c 'tuning ' "$dir/ours.log") tuning lines" |
        tee -a "$out/pair.log"
      rm -f "$dir/tuning.jsonl"
    done
  done
  python3 bench/gpu_pair_table.py "$out" "$rounds" | tee "$out/pair-table.txt"
  exit 0
fi

echo "usage: bench/gpu-pair.sh prepare [OLD] | run OUT [ROUNDS]" >&2
exit 2
