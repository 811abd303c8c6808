#!/usr/bin/env bash
# Builds the depthwise sample (and what it needs) and runs it on the best device.
# Arguments go to DepthwiseMain: --all (every device), --c/--h/--w (shape), --iterations.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [[ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
./mvnw -q -pl samples/depthwise-conv -am package -DskipTests
# JVM signal chaining: the NVIDIA driver installs signal handlers that would replace the JVM's.
jsig="$(dirname "$(dirname "$(readlink -f "$(command -v "$java")")")")/lib/libjsig.so"
[[ -f $jsig ]] && export LD_PRELOAD="$jsig${LD_PRELOAD:+:$LD_PRELOAD}"
exec "$java" --enable-native-access=ALL-UNNAMED \
  -cp "samples/depthwise-conv/target/classes:samples/depthwise-conv/target/lib/*" \
  dev.kernelgen.samples.depthwise.DepthwiseMain "$@"
