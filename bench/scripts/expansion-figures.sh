#!/usr/bin/env bash
# Row expansion's figures (docs/SEMANTICS.md 12, workload W8 of docs/WORKLOADS.md), into
# bench/results/<date>-expansion/:
#  w8.txt          per round (interleaved): W8 (shows with 1-8 ad ids unnested before the interval left join,
#                  leftExpand) and W8-flat (the same join fed the shows pre-expanded, one row per ad), each
#                  through the runtime (1 partition) and driven directly (loadgen --direct): seconds, output
#                  rows, nanoseconds per output row, output-count check
#  summary.txt     medians over the rounds and W8's cost per output row against W8-flat's (the goal: <= 1.3x)
#  jmh-ExpansionBenchmark.txt  the publisher's expansion path with -prof gc (B/op, the goal 0)
# Needs `mvn -B -q package -DskipTests -Dmaven.javadoc.skip=true` (tools/target/junction-tools-all.jar,
# bench/target/benchmarks.jar).
#   bench/scripts/expansion-figures.sh [rounds]
# Environment: OUT (results directory), W8_SHOWS (shows, default W8's 500,000: a tiny size checks the
# script), TYPE (left or inner, default left), SKIP_JMH=1, JUNCTION (the command line that runs the CLI).
set -u
ROUNDS=${1:-5}
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)-expansion}; mkdir -p "$R"
SHOWS=${W8_SHOWS:-500000}
TYPE=${TYPE:-left}
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
JUNCTION=${JUNCTION:-java $FLAGS -Dw8.shows=$SHOWS -jar tools/target/junction-tools-all.jar}
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD;
  echo "W8 shows $SHOWS, type $TYPE, rounds $ROUNDS"; } > "$R/machine.txt"

# One loadgen run: "round R WORKLOAD PATH SECONDS OUTPUT_ROWS NS_PER_OUTPUT_ROW CHECK".
junction() {
  local round=$1 workload=$2 path=$3; shift 3
  $JUNCTION loadgen --workload "$workload" --type "$TYPE" --quiet --no-floor "$@" 2>/dev/null | awk -v r="$round" -v w="$workload" -v p="$path" '
    /^junction W8/ && / events in / { s = $0; sub(/ s \(latency.*/, "", s); sub(/.* events in /, "", s); secs = s
      o = $0; sub(/ output rows.*/, "", o); sub(/.*events\/s; /, "", o); gsub(/,/, "", o); rows = o }
    /^output rows / { check = $NF }
    END { ns = (rows > 0 ? sprintf("%.1f", secs * 1e9 / rows) : "-")
      print "round " r " " w " " p " " (secs == "" ? "FAILED" : secs) " " (rows == "" ? "-" : rows) " " ns " " (check == "" ? "-" : check) }'
}

for round in $(seq 1 "$ROUNDS"); do
  for path in runtime direct; do
    extra=""; [ "$path" = direct ] && extra="--direct"
    junction "$round" W8-flat "$path" $extra
    junction "$round" W8 "$path" $extra
  done
done | tee "$R/w8.txt"

# Medians of the cost per output row per (workload, path), and W8's against W8-flat's on the same path.
awk '
  { key = $3 " " $4; n[key]++; v[key, n[key]] = $7; if ($8 != "OK") bad[key] = bad[key] " round " $2 ": " $8 }
  END {
    for (key in n) {
      m = n[key]
      for (i = 1; i <= m; i++) a[i] = v[key, i] + 0
      for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
      med[key] = a[int((m + 1) / 2)]
    }
    for (key in med) {
      split(key, k, " ")
      flat = med["W8-flat " k[2]]
      ratio = flat > 0 ? sprintf("%.2fx", med[key] / flat) : "-"
      checks = bad[key] == "" ? "all OK" : "NOT OK:" bad[key]
      printf "%-18s %22.1f %12s  %s\n", key, med[key], ratio, checks
    }
  }' "$R/w8.txt" | sort > "$R/summary.tmp"
printf "%-18s %22s %12s  %s\n" "W8 $TYPE (median of $ROUNDS)" "ns per output row" "/ W8-flat" "checks" | cat - "$R/summary.tmp" | tee "$R/summary.txt"
rm -f "$R/summary.tmp"

if [ "${SKIP_JMH:-0}" != 1 ]; then
  java -jar bench/target/benchmarks.jar ExpansionBenchmark -wi 2 -w 2 -i 3 -r 2 -f 1 -prof gc -jvmArgsAppend "$FLAGS" \
    > "$R/jmh-ExpansionBenchmark.txt" 2>&1
  grep -E "^(Benchmark|ExpansionBenchmark)" "$R/jmh-ExpansionBenchmark.txt" | grep -v ":gc.count\|:gc.alloc.rate " >> "$R/summary.txt"
fi
echo "results in $R"
