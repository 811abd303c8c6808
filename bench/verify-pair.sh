#!/usr/bin/env bash
# `./mvnw verify` on fresh clones of two commits, back to back, in alternating rounds (so that a
# change in the shared machine's load falls on both): issue 11's comparison with 89bb99e.
# Usage: bench/verify-pair.sh [OLD [NEW [ROUNDS]]]   (defaults: 89bb99e HEAD 2)
# Prints one line per build (commit, exit status, seconds, tests run) and keeps the logs in
# ${TMPDIR:-/tmp}/verify-pair/. Offline (-o): run a build of each commit once first if ~/.m2 lacks
# what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
old=$(git rev-parse --short "${1:-89bb99e}")
new=$(git rev-parse --short "${2:-HEAD}")
rounds=${3:-2}
work=${TMPDIR:-/tmp}/verify-pair
mkdir -p "$work"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) processors"
for round in $(seq "$rounds"); do
  for rev in "$old" "$new"; do
    dir=$work/$rev
    rm -rf "$dir"
    git clone -q . "$dir"
    git -C "$dir" checkout -q "$rev"
    log=$work/$rev-$round.log
    start=$(date +%s.%N)
    rc=0
    (cd "$dir" && ./mvnw -B -o verify >"$log" 2>&1) || rc=$?
    end=$(date +%s.%N)
    tests=$(grep -h 'Tests run:' "$log" | grep -v 'Time elapsed' | awk -F'[ ,]+' '{s += $4} END {print s + 0}')
    printf 'round %d  %s  rc=%d  %6.1f s  %d tests\n' "$round" "$rev" "$rc" "$(echo "$end - $start" | bc)" "$tests"
  done
done
