#!/usr/bin/env bash
# Compares the generated outputs (kernel sources and binaries, manifests, launchers, the ITs'
# messages) of two commits: the depthwise sample and every invoker IT.
#
# Usage:
#   bench/kernel-diff.sh build COMMIT DIR    clone this repository at COMMIT into DIR and build
#                                            the sample and the ITs there (unit tests skipped, ITs
#                                            run), with a private Maven repository DIR.m2 copied
#                                            from ~/.m2/repository (nothing is installed in ~/.m2)
#   bench/kernel-diff.sh diff OLD NEW [--normalize] [--out DIR] [--quiet]
#                                            per file: identical / differs / only-old / only-new,
#                                            unified diffs of text files (kernel_diff.py)
#   bench/kernel-diff.sh steps WORK [--its] COMMIT...
#                                            build the sample (--its: and the ITs) at each commit
#                                            in turn, one clone WORK/src, outputs kept in WORK/NN-SHA
#   bench/kernel-diff.sh diff --chain WORK/[0-9]*-*/ [--out DIR]
#                                            per step, the generated files that changed
#
# Example (the comparison in bench/results/kernel-diff-89bb99e):
#   bench/kernel-diff.sh build 89bb99e /tmp/kd-old
#   bench/kernel-diff.sh build HEAD /tmp/kd-new
#   bench/kernel-diff.sh diff /tmp/kd-old /tmp/kd-new --out /tmp/kd-raw
#   bench/kernel-diff.sh diff /tmp/kd-old /tmp/kd-new --normalize --out /tmp/kd-norm
#   bench/kernel-diff.sh steps /tmp/kd-steps 89bb99e f3bd87e 90fa67e   # any commits, in order
#   bench/kernel-diff.sh diff --chain /tmp/kd-steps/[0-9]*-*/ --out /tmp/kd-chain
#
# --normalize rewrites the known, intended differences of issues 12 and 13 (C status ABI,
# <fn>_idx64 kernels, ...; each rule names its commit) on both sides before comparing, so that
# what remains is the unexplained part. Run the two builds one after the other: each takes the
# machine's cores for several minutes. Builds need JDK 25 (JAVA_HOME, else temurin-25 below),
# gcc, and nvcc for the CUDA parts (without nvcc the gpu-targets and reproducible ITs are skipped).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"

if [[ -z ${JAVA_HOME:-} && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi

build() {
  local commit=$1 dir=$2
  local sha
  sha=$(git -C "$repo" rev-parse --verify "$commit^{commit}")
  if [[ ! -d $dir ]]; then
    git clone -q "$repo" "$dir"
  fi
  git -C "$dir" checkout -q "$sha"
  if [[ ! -d $dir.m2 ]]; then
    cp -r "$HOME/.m2/repository" "$dir.m2"
  fi
  # The sample and the it module with what they need; at 89bb99e samples/ also held the
  # benchmarks, which -pl leaves out. -DskipTests skips unit tests, not the invoker ITs.
  (cd "$dir" && ./mvnw -B -o -Dmaven.repo.local="$dir.m2" -DskipTests \
    -pl samples/depthwise-conv,it -am verify) >"$dir.build.log" 2>&1 || {
    echo "build of $commit failed; see $dir.build.log" >&2
    return 1
  }
  echo "$sha" >"$dir.commit"
  echo "built $commit ($sha) in $dir; log $dir.build.log"
}

# Builds the sample (and with --its the ITs) at each commit in one clone WORK/src and keeps each
# build's outputs in WORK/NN-SHA (the tree layout `diff` reads), so that `diff --chain` can say at
# which commit each file changed. A commit that does not build is logged and skipped.
steps() {
  local work=$1
  shift
  local pl=samples/depthwise-conv its=0
  if [[ ${1:-} == --its ]]; then
    pl=samples/depthwise-conv,it
    its=1
    shift
  fi
  mkdir -p "$work"
  [[ -d $work/src ]] || git clone -q "$repo" "$work/src"
  [[ -d $work/m2 ]] || cp -r "$HOME/.m2/repository" "$work/m2"
  local i=0 commit sha snap
  for commit in "$@"; do
    i=$((i + 1))
    sha=$(git -C "$repo" rev-parse --short=7 --verify "$commit^{commit}")
    snap=$work/$(printf '%02d' "$i")-$sha
    git -C "$work/src" checkout -q -f "$sha"
    git -C "$work/src" clean -q -fdx -e target
    rm -rf "$work/src/samples/depthwise-conv/target" "$work/src/it/target"
    local ok=1
    (cd "$work/src" && ./mvnw -B -o -Dmaven.repo.local="$work/m2" -DskipTests \
      -Dspotless.skip=true -pl "$pl" -am verify) >"$snap.build.log" 2>&1 || ok=0
    # With --its, an IT whose verify.groovy an older commit does not satisfy fails the build after
    # it generated its files: the outputs are kept, and the failure is said.
    if [[ -d $work/src/samples/depthwise-conv/target/generated-sources ]] &&
      { [[ $ok == 1 ]] || [[ $its == 1 && -d $work/src/it/target/it ]]; }; then
      mkdir -p "$snap/samples/depthwise-conv"
      cp -r "$work/src/samples/depthwise-conv/target" "$snap/samples/depthwise-conv/"
      rm -rf "$snap/samples/depthwise-conv/target/"{lib,classes}
      if [[ $its == 1 ]]; then
        mkdir -p "$snap/it/target"
        cp -r "$work/src/it/target/it" "$snap/it/target/"
      fi
      if [[ $ok == 1 ]]; then
        echo "$snap: built"
      else
        echo "$snap: built, but the build failed after generating ($(grep -A1 \
          'The following builds failed' "$snap.build.log" | tail -1 | tr -d '[]*' | xargs))"
      fi
    else
      echo "$snap: build failed (see $snap.build.log)"
    fi
  done
}

case ${1:-} in
  build)
    [[ $# -eq 3 ]] || { echo "usage: $0 build COMMIT DIR" >&2; exit 2; }
    build "$2" "$3"
    ;;
  steps)
    [[ $# -ge 3 ]] || { echo "usage: $0 steps WORK [--its] COMMIT..." >&2; exit 2; }
    shift
    steps "$@"
    ;;
  diff)
    shift
    exec python3 "$here/kernel_diff.py" "$@"
    ;;
  *)
    sed -n '2,32p' "$0" >&2
    exit 2
    ;;
esac
