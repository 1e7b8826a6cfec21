#!/usr/bin/env bash
# The state-layout work against the commit before it, interleaved run by run so that the
# host's noise hits both alike (never two benchmarks at once). BASE is a checkout of the baseline with
# its jars built (`git worktree add /tmp/base ff4eced && (cd /tmp/base && mvn -B -q package -DskipTests
# -Dmaven.javadoc.skip=true)`); this checkout must be built the same way.
# Output: bench/results/<date>-layout/layout-compare.txt and keygroup-*.txt.
#   bench/scripts/layout-compare.sh /tmp/base [rounds]
set -u
BASE=${1:?usage: layout-compare.sh BASE_CHECKOUT [rounds]}
ROUNDS=${2:-3}
cd "$(dirname "$0")/../.."
R=bench/results/$(date -u +%Y-%m-%d)-layout; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD;
  git -C "$BASE" rev-parse --short HEAD; } > "$R/machine.txt"
run() { # label jar workload type [extra -D...]
  local label=$1 jar=$2 wl=$3 type=$4; shift 4
  java $FLAGS "$@" -jar "$jar" loadgen --workload "$wl" --type "$type" --no-floor --quiet 2>/dev/null | sed -n 1p \
    | sed -E "s/^.*: ([0-9,]+) events\/s;.*state per live row ([0-9.]+) B.*/$label $wl $type \1 events\/s, \2 B per live row/; s/^junction .*: ([0-9,]+) events\/s;.*/$label $wl $type \1 events\/s/"
}
for round in $(seq 1 "$ROUNDS"); do
  for wl in "W1 inner" "W1 left" "W2 inner" "W2 left"; do
    set -- $wl
    run "round $round base" "$BASE/tools/target/junction-tools-all.jar" $1 $2
    run "round $round layout" tools/target/junction-tools-all.jar $1 $2
    run "round $round layout-no-read-ahead" tools/target/junction-tools-all.jar $1 $2 -Djunction.readAhead=false
  done
done > "$R/layout-compare.txt"
for round in $(seq 1 "$ROUNDS"); do
  run "round $round base" "$BASE/tools/target/junction-tools-all.jar" W1-big left -Xmx8g
  run "round $round layout" tools/target/junction-tools-all.jar W1-big left -Xmx8g
  run "round $round layout-no-read-ahead" tools/target/junction-tools-all.jar W1-big left -Xmx8g -Djunction.readAhead=false
done >> "$R/layout-compare.txt"
for side in base layout; do
  jar=bench/target/benchmarks.jar; [ $side = base ] && jar=$BASE/bench/target/benchmarks.jar
  java -jar "$jar" KeyGroupBenchmark -wi 2 -w 2 -i 3 -r 2 -f 1 -prof gc -jvmArgsAppend "$FLAGS" > "$R/keygroup-$side.txt" 2>&1
done
