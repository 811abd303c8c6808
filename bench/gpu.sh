#!/usr/bin/env bash
# GPU benchmark of depthwise convolution, side by side in one run on one GPU: kernelgen's CUDA
# kernels (the seed's schedules, generated, compiled with nvcc, launched through JCuda) and
# PyTorch (cuDNN depthwise, the three eager ops, torch.compile of them).
#
#   bench/gpu.sh prepare        here (no GPU needed): builds the jars and a Java runtime into .device/
#                               (KG_MAVEN=0: without Maven and the plugin's repository, for tune)
#   bench/gpu.sh OUT_DIR        on the GPU machine: runs both sides, writes OUT_DIR/ours.json,
#                               OUT_DIR/torch.json and OUT_DIR/gpu-latest.json, prints the table
#   bench/gpu.sh ops OUT_DIR    on the GPU machine: only the operator benchmark (matmul, softmax,
#                               conv2d vs torch); the plain OUT_DIR run also does it (KG_OPS=0: not)
#                               (arguments after OUT_DIR go to OpsGpuBench: e.g. --conv-configs
#                               candidates times conv2d's candidate knob settings, --row-configs
#                               softmax's and layer norm's threads per row, see OpsGpuBench)
#   bench/gpu.sh tests OUT      on the GPU machine: the test classes of runtime and gpu-bench (the
#                               CUDA ones run there) without Maven, to OUT/device-tests.txt
#   bench/gpu.sh sample OUT     on the GPU machine: the depthwise sample's launchers on every device
#   bench/gpu.sh tune OUT       on the GPU machine: kernels:tune (Maven, offline) of the sample's
#                               thread-pair operator on CUDA: the article's table
#   bench/gpu.sh tune-sample OUT [MODULE]  on the GPU machine: kernels:tune (Maven, offline) of
#                               samples/MODULE (default conv-bn-swish) on CUDA, appending to a copy
#                               of its committed tuning log: OUT/tuning/<library>.jsonl, to be copied
#                               back over samples/MODULE/src/main/kernels/tuning/ and committed
#                               (KG_TUNE_TRIALS per shape, default 64; KG_TUNE_SECONDS per shape, 240)
#   bench/gpu.sh floor OUT      on the GPU machine: every library operator's untuned pick and the
#                               sample's schedules against the naive loop nest of their own compute
#                               (the floor), on C and CUDA, to OUT/floor.json and OUT/floor.txt
#                               (floor and pick in 3 alternating rounds, the fastest kept; --rounds N;
#                               --targets CUDA: without the C rows, --only TEXT[,TEXT...]: the
#                               rows whose name holds one of them)
#   bench/gpu.sh tuning-cost OUT [--seconds S] [--only TEXT] [--ops NAMES] [--modes cold,warm]
#                               [--log FILE] [--warm-from FILE] (see TuningCostBench)
#                               on the GPU machine: matmul 2048, conv2d [32,64,56,56]x64, layer
#                               norm [16384,1024] and the seed's fused depthwise, auto-scheduled
#                               only, each searched S s (default 60) with a cold and a warm
#                               (transfer) cost model: untuned, best, trials and seconds to 90%
#   bench/gpu.sh probe OUT OPERATOR CONFIG...  on the GPU machine: times the given knob settings of
#                               one of TuningCostBench's or FloorBench's operators' generated
#                               schedules (ConfigProbe; sketch=1 is the floor's naive kernel)
#   bench/gpu.sh sanitize OUT   on the GPU machine: compute-sanitizer memcheck and racecheck over
#                               every seed kernel, every library operator's GPU schedules (each
#                               one's default and the explicit matmul / conv2d / softmax ones) and
#                               the tuned depthwise configurations of KG_TUNED (a tuning log;
#                               default: the last GPU run's), all on small shapes
#
# With the device tool: run `bench/gpu.sh prepare` here, then send `bench/gpu.sh $OUT` with
# carry [".device"].
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=${1:-}

if [[ $cmd == prepare ]]; then
  export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
  [[ -x $JAVA_HOME/bin/jlink ]] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
  ./mvnw -q -Pbench -pl bench/gpu-bench -am package -DskipTests >/dev/null
  mkdir -p .device
  # (In a git worktree .git is a file: ask git where its exclude file is.)
  exclude=$(git rev-parse --git-path info/exclude 2>/dev/null || echo .git/info/exclude)
  grep -qx '/.device/' "$exclude" 2>/dev/null || echo '/.device/' >>"$exclude"
  # One Java runtime for the benchmarks, the tests and Maven (which compiles the specs: jdk.compiler),
  # sent as an xz archive (about 23 MB instead of 87): it and Maven must fit in the 64 MiB sent.
  modules=java.base,java.logging,jdk.unsupported,java.xml,java.naming,java.management,java.compiler,jdk.compiler,jdk.zipfs
  if [[ ! -f .device/jre.tar.xz || $(cat .device/jre.modules 2>/dev/null) != "$modules" ]]; then
    rm -rf .device/jre .device/jre.tar.xz
    "$JAVA_HOME/bin/jlink" --add-modules $modules --strip-debug --no-man-pages --no-header-files \
      --compress=zip-0 --output .device/jre
    tar -cJf .device/jre.tar.xz -C .device jre
    echo "$modules" >.device/jre.modules
  fi
  rm -rf .device/jre
  rm -rf .device/lib && mkdir -p .device/lib
  repo=${HOME}/.m2/repository
  for m in annotations compiler-core runtime measure; do
    cp $m/target/kernelgen-$m-*-SNAPSHOT.jar .device/lib/
  done
  cp bench/cpu-bench/target/kernelgen-cpu-bench-*.jar bench/gpu-bench/target/kernelgen-gpu-bench-*.jar .device/lib/
  # The conv + batch norm + swish sample (its launcher and kernels: OpsGpuBench's conv_bn_swish rows).
  cp samples/conv-bn-swish/target/kernelgen-sample-conv-bn-swish-*.jar .device/lib/
  cp $repo/org/jcuda/jcuda/12.6.0/jcuda-12.6.0.jar $repo/org/jocl/jocl/2.0.5/jocl-2.0.5.jar .device/lib/
  # Only the driver API's native library: the PTX compiler and NVRTC bindings are not used.
  tmp=$(mktemp -d)
  (cd "$tmp" && unzip -q $repo/org/jcuda/jcuda-natives/12.6.0/jcuda-natives-12.6.0-linux-x86_64.jar \
      'lib/libJCudaDriver-*' 'META-INF/*' && jar_bin=$JAVA_HOME/bin/jar &&
   "$jar_bin" --create --file jcuda-natives-driver.jar -C "$tmp" lib META-INF)
  mv "$tmp/jcuda-natives-driver.jar" .device/lib/ && rm -rf "$tmp"
  # The sample (bench/gpu.sh sample): its classes with the generated launchers, and its libraries.
  ./mvnw -q -pl samples/depthwise-conv -am package -DskipTests >/dev/null
  rm -rf .device/sample && mkdir -p .device/sample
  cp -r samples/depthwise-conv/target/classes .device/sample/classes
  mkdir .device/sample/lib && cp samples/depthwise-conv/target/lib/kernelgen-*.jar .device/sample/lib/
  # The device tests (bench/gpu.sh tests): the test classes of runtime, measure, maven-plugin
  # (launchers on CUDA: lifecycle, graph capture, soak, 200 candidates) and gpu-bench, and JUnit.
  rm -rf .device/test && mkdir -p .device/test/lib
  # Each module's test class path in its own target/ (a relative path is the module's).
  ./mvnw -q -Pbench -pl bench/gpu-bench,maven-plugin -am test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt >/dev/null
  cat bench/gpu-bench/target/test-classpath.txt maven-plugin/target/test-classpath.txt \
    measure/target/test-classpath.txt | tr ':' '\n' >.device/test/classpath.txt
  cp -r runtime/target/test-classes .device/test/runtime
  cp -r bench/gpu-bench/target/test-classes .device/test/gpu-bench
  cp -r maven-plugin/target/test-classes .device/test/maven-plugin
  cp -r maven-plugin/target/classes .device/test/maven-plugin-main
  cp -r measure/target/test-classes .device/test/measure
  # The conv + batch norm + swish sample's launcher tests (its spec compiled as a test source).
  cp -r samples/conv-bn-swish/target/test-classes .device/test/conv-bn-swish
  cp compiler-core/target/kernelgen-compiler-core-*-tests.jar .device/test/lib/
  cat .device/test/classpath.txt |
    grep -E '/(junit-|opentest4j|apiguardian|assertj|byte-buddy)' | sort -u | xargs -I{} cp {} .device/test/lib/
  # What compiler-core and the plugin's launcher code need at run time (the JSON codec, JavaPoet).
  cat .device/test/classpath.txt |
    grep -E '/(jackson-|javapoet)' | sort -u | xargs -I{} cp {} .device/lib/
  rm .device/test/classpath.txt
  # Maven, the plugin and what it needs, offline (bench/gpu.sh tune): the project's modules
  # installed into a scratch repository, then the tune goal resolved once (PoCL here) into a
  # repository of only what it uses.
  if [[ ${KG_MAVEN:-1} == 0 ]]; then
    du -sh .device
    exit 0
  fi
  scratch=$(mktemp -d)
  cp -r "$repo" "$scratch/seed"
  ./mvnw -q -o -Dmaven.repo.local="$scratch/seed" install -DskipTests -Dinvoker.skip=true \
    -pl annotations,compiler-core,runtime,maven-plugin -am >/dev/null
  mkdir -p "$scratch/bundle/m2/dev/kernelgen"
  # (The samples' parent POM resolves from the working tree, by its relative path.)
  for m in parent annotations compiler-core runtime measure maven-plugin; do
    cp -r "$scratch/seed/dev/kernelgen/kernelgen-$m" "$scratch/bundle/m2/dev/kernelgen/"
  done
  rm -rf "$scratch/seed"
  ./mvnw -B -q -Dmaven.repo.local="$scratch/bundle/m2" -f samples/depthwise-conv/pom.xml \
    dev.kernelgen:kernelgen-maven-plugin:0.1.0-SNAPSHOT:tune -Dkernels.targets=OPENCL \
    -Dkernels.tune.operators=depthwiseThreadPairs -Dkernels.tune.trials=1 \
    -Dkernels.tuningDirectory="$scratch/tuning" >/dev/null
  # bench/gpu.sh tune-sample: what tuning the conv + batch norm + swish sample resolves (its project's
  # dependencies and plugins; the goal itself is the same).
  ./mvnw -B -q -Dmaven.repo.local="$scratch/bundle/m2" -f samples/conv-bn-swish/pom.xml \
    dev.kernelgen:kernelgen-maven-plugin:0.1.0-SNAPSHOT:tune -Dkernels.tune.skip=true >/dev/null
  cp -r "$(ls -d "$HOME"/.m2/wrapper/dists/apache-maven-3.9.16/*/ | head -1)" "$scratch/bundle/maven"
  tar -cJf .device/maven.tar.xz -C "$scratch/bundle" maven m2
  rm -rf "$scratch"
  du -sh .device
  exit 0
fi

# The Java runtime (and Maven, for tune) unpacked on first use on the GPU machine.
unpack() {
  [[ -d .device/$1 ]] || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
    ".device/$2" .device
}
unpack jre jre.tar.xz

plain_java=(.device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".device/lib/*")
# JVM signal chaining: the NVIDIA driver's signal handlers otherwise replace the JVM's, and the
# process dies of a segmentation fault later (seen on the H200). Not under compute-sanitizer,
# which injects itself through LD_PRELOAD.
java=(env "LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}" "${plain_java[@]}")
# The same Java with another class path: java_cp CLASSPATH MAIN ARGS...
java_cp() {
  local cp=$1
  shift
  "${java[@]:0:2}" .device/jre/bin/java --enable-native-access=ALL-UNNAMED -cp "$cp" "$@"
}
export PATH=$PATH:/usr/local/cuda/bin

# The tests that need a CUDA device (runtime's CudaDeviceTest, every library operator and seed
# schedule on CUDA against the oracle), with the others of those classes, run by DeviceTestRunner.
if [[ $cmd == tests ]]; then
  out=${2:?usage: bench/gpu.sh tests OUT_DIR}
  mkdir -p "$out"
  dirs=$(cd .device/test && ls -d runtime gpu-bench maven-plugin measure conv-bn-swish 2>/dev/null)
  # Architecture tests (ArchUnit, which does not travel) and source scans run here, not there.
  # KG_TESTS_EXCLUDE: a regex of test classes to leave out (e.g. CPU-only ones that are slow);
  # KG_TESTS_ONLY: a regex of the test classes to run (default: all).
  classes=$(cd .device/test && find $dirs -name '*Test.class' | grep -v -E 'PackagesTest|ApiTest|CyclesTest|NoOtherMeasurementPathTest|MainFileLengthTest' |
    grep -v -E "${KG_TESTS_EXCLUDE:-^$}" | grep -E "${KG_TESTS_ONLY:-.}" |
    sed 's|^[^/]*/||; s|\.class$||; s|/|.|g' | sort)
  cp_tests=".device/lib/*:.device/test/lib/*:.device/test/maven-plugin-main"
  for d in $dirs; do cp_tests+=":.device/test/$d"; done
  java_cp "$cp_tests" dev.kernelgen.bench.gpu.DeviceTestRunner $classes 2>&1 | tee "$out/device-tests.txt" | grep -v "^OK " || true
  exit 0
fi

# The depthwise sample through its generated launchers on every device, at the seed's shape and at
# a small one (where the time per call is the host's: launcher, JCuda and driver).
if [[ $cmd == sample ]]; then
  out=${2:?usage: bench/gpu.sh sample OUT_DIR}
  mkdir -p "$out"
  cp_sample=".device/sample/classes:.device/sample/lib/*:.device/lib/jcuda-12.6.0.jar:.device/lib/jocl-2.0.5.jar:.device/lib/jcuda-natives-driver.jar"
  for shape in "--c 256 --h 96 --w 96" "--c 256 --h 21 --w 21" "--c 256 --h 32 --w 32"; do
    java_cp "$cp_sample" dev.kernelgen.samples.depthwise.DepthwiseMain --all --iterations 1000 $shape
  done 2>&1 | tee "$out/sample-depthwise-conv.txt"
  exit 0
fi

# The seed article's thread-pair search through the Maven goal, as a user runs it: kernels:tune on
# the depthwise sample's [1,256,32,32] operator, CUDA, offline with the Maven and repository sent.
if [[ $cmd == tune ]]; then
  out=${2:?usage: bench/gpu.sh tune OUT_DIR}
  mkdir -p "$out"
  unpack maven maven.tar.xz
  JAVA_HOME=$PWD/.device/jre LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so \
    .device/maven/bin/mvn -B -o -Dmaven.repo.local="$PWD/.device/m2" -f samples/depthwise-conv/pom.xml \
    dev.kernelgen:kernelgen-maven-plugin:0.1.0-SNAPSHOT:tune -Dkernels.targets=CUDA \
    -Dkernels.tune.operators=depthwiseThreadPairs -Dkernels.tune.trials=36 \
    -Dkernels.tuningDirectory="$out/tuning" 2>&1 | tee "$out/kernels-tune.txt"
  exit 0
fi

# A sample's operators tuned for CUDA through the Maven goal, offline, as a user tunes them: the
# records go to a copy of the sample's committed log under OUT/tuning, for the lead to commit.
if [[ $cmd == tune-sample ]]; then
  out=${2:?usage: bench/gpu.sh tune-sample OUT_DIR [MODULE]}
  module=${3:-conv-bn-swish}
  mkdir -p "$out/tuning"
  if [[ -d samples/$module/src/main/kernels/tuning ]]; then
    cp samples/"$module"/src/main/kernels/tuning/*.jsonl "$out/tuning/" 2>/dev/null || true
  fi
  unpack maven maven.tar.xz
  JAVA_HOME=$PWD/.device/jre LD_PRELOAD=$PWD/.device/jre/lib/libjsig.so \
    .device/maven/bin/mvn -B -o -Dmaven.repo.local="$PWD/.device/m2" -f samples/"$module"/pom.xml \
    dev.kernelgen:kernelgen-maven-plugin:0.1.0-SNAPSHOT:tune -Dkernels.targets=CUDA \
    -Dkernels.tune.trials="${KG_TUNE_TRIALS:-64}" -Dkernels.tune.timeLimitSeconds="${KG_TUNE_SECONDS:-240}" \
    -Dkernels.tuningDirectory="$out/tuning" 2>&1 | tee "$out/kernels-tune-$module.txt"
  # The expected outputs cached for the checks: large, and not to be committed.
  rm -rf "$out/tuning/references"
  exit 0
fi

if [[ $cmd == floor ]]; then
  out=${2:?usage: bench/gpu.sh floor OUT_DIR}
  mkdir -p "$out"
  "${java[@]}" dev.kernelgen.bench.gpu.FloorBench "$out/floor.json" "${@:3}" 2>&1 | tee "$out/floor.txt"
  exit 0
fi

if [[ $cmd == tuning-cost ]]; then
  out=${2:?usage: bench/gpu.sh tuning-cost OUT_DIR [--seconds S] [--only TEXT]}
  mkdir -p "$out"
  "${java[@]}" dev.kernelgen.bench.gpu.TuningCostBench "$out/tuning-cost.json" "${@:3}" 2>&1 \
    | tee "$out/tuning-cost.txt"
  exit 0
fi

if [[ $cmd == probe ]]; then
  out=${2:?usage: bench/gpu.sh probe OUT_DIR OPERATOR CONFIG...}
  mkdir -p "$out"
  "${java[@]}" dev.kernelgen.bench.gpu.ConfigProbe "${@:3}" 2>&1 | tee -a "$out/probe.txt"
  exit 0
fi

if [[ $cmd == sanitize ]]; then
  out=${2:?usage: bench/gpu.sh sanitize OUT_DIR}
  mkdir -p "$out"
  tuned=${KG_TUNED:-bench/results/gpu-2026-11-29-b/tuning.jsonl}
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool"
    compute-sanitizer --tool $tool --print-limit 20 "${plain_java[@]}" \
      dev.kernelgen.bench.gpu.GpuBench "$out/sanitize-$tool" --checks-only --tuned "$tuned" 2>&1 |
      tee "$out/sanitize-$tool.log" | { grep -E "^(checks|library checks|FAILED|=========)" || true; } | tail -8
  done
  exit 0
fi

# Operators (issue 5): matmul, softmax, conv2d with the untuned default schedules beside torch
# (cuBLAS, cuDNN): writes OUT_DIR/ops-ours.json, ops-torch.json, ops-gpu-latest.json, ops-table.txt.
# The generated workloads' _tuned rows come from the committed tuning log of TuningCostBench's
# searches on the H200, bench/tuning/gpu-generated.jsonl.xz (KG_OPS_TUNED: another log; empty: none).
run_ops() {
  local tuned=${KG_OPS_TUNED-}
  if [[ -z ${KG_OPS_TUNED+set} && -f bench/tuning/gpu-generated.jsonl.xz ]]; then
    tuned=$1/tuning.jsonl
    xz -dc bench/tuning/gpu-generated.jsonl.xz >"$tuned"
  fi
  KG_OPS_TUNED=$tuned "${java[@]}" dev.kernelgen.bench.gpu.OpsGpuBench "$@" 2>&1 | tee "$1/ops-ours.log"
  # --only TEXT narrows PyTorch's side too.
  local only=() args=("$@")
  for ((i = 1; i < ${#args[@]} - 1; i++)); do
    [[ ${args[i]} == --only ]] && only=(--only "${args[i + 1]}")
  done
  python3 bench/ops_torch.py "$1/ops-torch.json" --ours "$1/ops-ours.json" \
    --merged "$1/ops-gpu-latest.json" "${only[@]}" 2>&1 | tee "$1/ops-table.txt"
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
