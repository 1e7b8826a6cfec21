#!/usr/bin/env bash
# The durable-state work's measured costs, one benchmark at a time (never two at once), into bench/results/<date>-durable/:
#  memory-speed.txt       in-memory mode against BASE (the commit before durable state), interleaved round by
#                         round: W1 and W2 through the runtime and W1 left / W2 inner with the operator driven
#                         directly (loadgen --direct), where a slower state path would show first
#  checkpoint-latency.txt W1 left at a fixed rate (half of saturation on the 2-vCPU host): in memory, durable
#                         without checkpoints, durable with a checkpoint every second; latency table and each
#                         checkpoint's partition-thread pause
#  durability-w1big.txt   junction durability on W1-big: full and incremental checkpoint, clean close, reopen,
#                         restore
# BASE is a checkout of the baseline with its jars built the same way as this one
# (`mvn -B -q package -DskipTests -Dmaven.javadoc.skip=true`).
#   bench/scripts/durable-figures.sh BASE [rounds] [rate]
set -u
BASE=${1:?usage: durable-figures.sh BASE_CHECKOUT [rounds] [rate]}
ROUNDS=${2:-3}
RATE=${3:-600000}
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)-durable}; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
STATE=${STATE:-/tmp/junction-durable-figures}
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD;
  git -C "$BASE" rev-parse --short HEAD; df -h /tmp | tail -1; } > "$R/machine.txt"
run() { # label jar workload type [loadgen options...]
  local label=$1 jar=$2 wl=$3 type=$4; shift 4
  java $FLAGS -jar "$jar" loadgen --workload "$wl" --type "$type" --no-floor --quiet "$@" 2>/dev/null | sed -n 1p \
    | sed -E "s/^.*: ([0-9,]+) events\/s;.*/$label $wl $type \1 events\/s/"
}
for round in $(seq 1 "$ROUNDS"); do
  for wl in "W1 inner" "W1 left" "W2 inner" "W2 left"; do
    set -- $wl
    run "round $round base" "$BASE/tools/target/junction-tools-all.jar" $1 $2
    run "round $round now" tools/target/junction-tools-all.jar $1 $2
  done
  for wl in "W1 left" "W2 inner"; do
    set -- $wl
    run "round $round base-direct" "$BASE/tools/target/junction-tools-all.jar" $1 $2 --direct
    run "round $round now-direct" tools/target/junction-tools-all.jar $1 $2 --direct
  done
done > "$R/memory-speed.txt"
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round: in memory @ $RATE/s"
  java $FLAGS -jar tools/target/junction-tools-all.jar loadgen --workload W1 --type left --rate "$RATE" --no-floor --quiet 2>&1
  echo "== round $round: durable, no checkpoint @ $RATE/s"
  java $FLAGS -jar tools/target/junction-tools-all.jar loadgen --workload W1 --type left --rate "$RATE" --no-floor --quiet --state "$STATE" 2>&1
  echo "== round $round: durable, checkpoint every 1 s @ $RATE/s"
  java $FLAGS -jar tools/target/junction-tools-all.jar loadgen --workload W1 --type left --rate "$RATE" --no-floor --quiet \
    --state "$STATE" --checkpoint-seconds 1 2>&1
done > "$R/checkpoint-latency.txt"
java -Xmx8g $FLAGS -jar tools/target/junction-tools-all.jar durability --workload W1-big --state "$STATE" > "$R/durability-w1big.txt" 2>&1
rm -rf "$STATE"
