#!/usr/bin/env bash
# The latency work's latency figures (docs/PERFORMANCE.md "Latency at half saturation against the floor"), into
# bench/results/<date>-latency/:
#  saturation.txt  W1 inner and left in memory at max rate (loadgen --no-floor), ROUNDS runs each, interleaved;
#                  half of each median is the offered rate of the latency runs
#  <type>-<wait>-<round>.json  W1 <type> at that rate, one partition, wait strategy busy-spin or sleeping, half of
#                  W1 as warm-up, beside the bare Disruptor hand-off (the floor) at the same rate in the same JVM
#                  (loadgen --json: the percentiles of both, microseconds, coordinated omission corrected)
#  summary.txt     medians over the rounds of p50 / p90 / p99 / p99.9 for Junction and the floor, and the ratios
#                  (the goal: p90 <= 3x the floor's, p99 <= 2x)
# Usage: bench/scripts/latency-figures.sh [ROUNDS]   (default 3). Run it alone: two cores, one benchmark at a time.
# Environment: OUT overrides the directory; MVN_OPTS (e.g. -o) for the build; JAR uses a prebuilt tools jar.
set -u
ROUNDS=${1:-3}
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)-latency}; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD; } > "$R/machine.txt"
if [ -z "${JAR:-}" ]; then
  # shellcheck disable=SC2086
  mvn -B -q ${MVN_OPTS:-} -pl tools -am package -Dmaven.test.skip=true -Dmaven.javadoc.skip=true -Djunction.skipArtifactLayout >/dev/null || exit 1
  JAR=tools/target/junction-tools-all.jar
fi
# shellcheck disable=SC2086
J="java $FLAGS -Xms4g -Xmx4g -jar $JAR"
: > "$R/saturation.txt"
for round in $(seq 1 "$ROUNDS"); do
  for type in inner left; do
    $J loadgen --workload W1 --type "$type" --no-floor --quiet 2>/dev/null | sed -n 1p | sed "s/^/round $round $type: /" >> "$R/saturation.txt"
  done
done
median_rate() {
  grep " $1: " "$R/saturation.txt" | sed -E 's/.*: ([0-9,]+) events\/s.*/\1/' | tr -d , | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
for type in inner left; do
  eval "RATE_$type=$(( $(median_rate "$type") / 2 ))"
done
for round in $(seq 1 "$ROUNDS"); do
  for type in inner left; do
    rate_var="RATE_$type"
    for wait in busy-spin sleeping; do
      $J loadgen --workload W1 --type "$type" --rate "${!rate_var}" --wait-strategy "$wait" --warmup 1200000 \
        --json "$R/$type-$wait-$round.json" --quiet > "$R/$type-$wait-$round.txt" 2>/dev/null
    done
  done
done
python3 - "$R" "$ROUNDS" <<'EOF' > "$R/summary.txt"
import json, statistics, sys
r, rounds = sys.argv[1], int(sys.argv[2])
keys = ["p50", "p90", "p99", "p99.9"]
print("| W1, in memory, 1 partition | offered | " + " | ".join(keys) + " (us, Junction / floor / ratio) |")
print("|---|---|" + "---|" * len(keys))
for t in ["inner", "left"]:
    for w in ["busy-spin", "sleeping"]:
        runs = [json.load(open(f"{r}/{t}-{w}-{i}.json")) for i in range(1, rounds + 1)]
        cells = []
        for k in keys:
            j = statistics.median(x["latency"][k] for x in runs)
            f = statistics.median(x["floor"][k] for x in runs)
            cells.append(f"{j:,.1f} / {f:,.1f} / {j / f if f > 0 else float('inf'):.1f}x")
        print(f"| {t}, {w} | {runs[0]['offeredRate']:,}/s | " + " | ".join(cells) + " |")
EOF
cat "$R/saturation.txt" "$R/summary.txt"
