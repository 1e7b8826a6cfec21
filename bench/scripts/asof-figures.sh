#!/usr/bin/env bash
# The ASOF work's figures (ASOF joins, workload W6 of docs/WORKLOADS.md), into bench/results/<date>-asof/:
#  w6.txt          per round (interleaved), W6 left join: Junction through the runtime and driven directly
#                  (loadgen --direct) in both emission modes (final, eager), and Flink 1.20's
#                  TemporalRowTimeJoinOperator with the quotes as a versioned table (peer flink-sql-temporal):
#                  events/s, bytes per live row, output-count check
#  summary.txt     medians over the rounds, and each Junction median against Flink's (the goal: >= 5x)
#  w6-latency-*.txt latency at half the runtime's median saturation (per mode), beside the hand-off floor
#  jmh-AsofJoinBenchmark.txt  the per-event path with -prof gc (B/op)
# Needs `mvn -B -q package -DskipTests -Dmaven.javadoc.skip=true` (tools/target/junction-tools-all.jar,
# bench/target/benchmarks.jar) and the peers built (`mvn -B -Ppeers -pl peers -am package -Dmaven.test.skip=true`).
#   bench/scripts/asof-figures.sh [rounds]
# Environment: OUT (results directory), W6_TRADES (trades, default W6's 200,000: a tiny size checks the script),
# TYPE (left or inner, default left), SKIP_JMH=1, SKIP_LATENCY=1, JUNCTION (the command line that runs the CLI).
set -u
ROUNDS=${1:-3}
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)-asof}; mkdir -p "$R"
TRADES=${W6_TRADES:-200000}
TYPE=${TYPE:-left}
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
JUNCTION=${JUNCTION:-java $FLAGS -Dw6.trades=$TRADES -jar tools/target/junction-tools-all.jar}
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD;
  echo "W6 trades $TRADES, type $TYPE, rounds $ROUNDS"; } > "$R/machine.txt"
mvn -B -q -o -Ppeers -pl peers -am compile dependency:build-classpath -Dmaven.test.skip=true -Djunction.skipArtifactLayout \
  -Dmdep.outputFile=/tmp/asof-peers-cp.txt >/dev/null 2>&1 || { echo "the peers did not build: see peers/README.md" >&2; exit 1; }
PCP="peers/target/classes:$(cat /tmp/asof-peers-cp.txt)"

# One loadgen run: "round R NAME MODE EVENTS_PER_S BYTES_PER_LIVE_ROW CHECK".
junction() {
  local round=$1 name=$2 mode=$3; shift 3
  $JUNCTION loadgen --workload W6 --type "$TYPE" --asof-emit "$mode" --quiet "$@" 2>/dev/null | awk -v r="$round" -v n="$name" -v m="$mode" '
    /^junction W6 / && /events\/s;/ { s = $0; sub(/ events\/s;.*/, "", s); sub(/.*: /, "", s); gsub(/,/, "", s); eps = s
      b = $0; sub(/.*state per live row /, "", b); sub(/ B .*/, "", b); bpr = b }
    /^output rows / { check = $NF }
    END { print "round " r " " n " " m " " (eps == "" ? "FAILED" : eps) " " (bpr == "" ? "-" : bpr) " " (check == "" ? "-" : check) }'
}

for round in $(seq 1 "$ROUNDS"); do
  for mode in final eager; do
    junction "$round" junction-runtime "$mode" --no-floor
    junction "$round" junction-direct "$mode" --direct
  done
  java -Xms6g -Xmx6g -cp "$PCP" io.junction.peers.PeersMain --peers=flink-sql-temporal --workloads=W6 --joins=$TYPE \
      --warmup=1 --runs=1 -Dw6.trades=$TRADES 2>/dev/null \
    | awk -v r="$round" '$1 == "flink-sql-temporal" && $2 == "W6" && $4 ~ /^[0-9,]+$/ { e = $9; gsub(/,/, "", e); print "round " r " flink final " e " - " $7 }'
done | tee "$R/w6.txt"

# Medians per (engine, mode), and the ratio against Flink's median.
awk '
  { key = $3 " " $4; n[key]++; v[key, n[key]] = $5; if ($7 != "OK") bad[key] = bad[key] " round " $2 ": " $7 }
  END {
    for (key in n) {
      m = n[key]
      for (i = 1; i <= m; i++) a[i] = v[key, i] + 0
      for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
      med[key] = a[int((m + 1) / 2)]
    }
    flink = med["flink final"]
    printf "%-24s %14s %10s  %s\n", "W6 '"$TYPE"' (median of " m ")", "events/s", "/ flink", "checks"
    for (key in med) {
      ratio = flink > 0 ? sprintf("%.2fx", med[key] / flink) : "-"
      checks = bad[key] == "" ? "all OK" : "NOT OK:" bad[key]
      printf "%-24s %14.0f %10s  %s\n", key, med[key], ratio, checks
    }
  }' "$R/w6.txt" | sort | tee "$R/summary.txt"
awk '$3 ~ /^junction/ && $6 != "-" { print "bytes per live row: " $3 " " $4 " " $6 " (round " $2 ")" }' "$R/w6.txt" >> "$R/summary.txt"

if [ "${SKIP_LATENCY:-0}" != 1 ]; then
  for mode in final eager; do
    rate=$(awk -v m="$mode" '$3 == "junction-runtime" && $4 == m { print $5 }' "$R/w6.txt" | sort -n | awk '{ a[NR] = $1 } END { print int(a[int((NR + 1) / 2)] / 2) }')
    if [ "${rate:-0}" -gt 0 ]; then
      echo "latency at half saturation ($mode): --rate $rate" | tee -a "$R/summary.txt"
      $JUNCTION loadgen --workload W6 --type "$TYPE" --asof-emit "$mode" --rate "$rate" --quiet > "$R/w6-latency-$mode.txt" 2>&1
      grep -E "^(configuration|junction W6|floor|ratio)" "$R/w6-latency-$mode.txt" | grep -v "events/s;" >> "$R/summary.txt"
    fi
  done
fi
if [ "${SKIP_JMH:-0}" != 1 ]; then
  java -jar bench/target/benchmarks.jar AsofJoinBenchmark -wi 2 -w 2 -i 3 -r 2 -f 1 -prof gc -jvmArgsAppend "$FLAGS" \
    > "$R/jmh-AsofJoinBenchmark.txt" 2>&1
  grep -E "^AsofJoinBenchmark|gc.alloc.rate.norm" "$R/jmh-AsofJoinBenchmark.txt" >> "$R/summary.txt"
fi
echo "results in $R"
