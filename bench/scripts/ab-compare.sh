#!/usr/bin/env bash
# This checkout against a built checkout BASE of another commit: W1 and W2, inner and left, through the
# runtime at max rate (one partition, sleeping wait strategy), interleaved run by run so that the host's noise
# hits both alike (never two benchmarks at once), then the medians and this/base per workload.
# BASE is a checkout with its jars built (`git worktree add /tmp/base COMMIT && (cd /tmp/base && mvn -B -q package
# -DskipTests -Dmaven.javadoc.skip=true)`); this checkout must be built the same way.
# Output: bench/results/<date>-<LABEL>/ab.txt (every run), summary.txt (medians, ratios), machine.txt.
#   bench/scripts/ab-compare.sh BASE [rounds] [label]
set -u
BASE=${1:?usage: ab-compare.sh BASE_CHECKOUT [rounds] [label]}
ROUNDS=${2:-5}
LABEL=${3:-ab}
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)-$LABEL}; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; echo "this $(git rev-parse --short HEAD)";
  echo "base $(git -C "$BASE" rev-parse --short HEAD)"; echo "rounds $ROUNDS"; } > "$R/machine.txt"
run() { # label jar workload type
  local label=$1 jar=$2 wl=$3 type=$4
  java $FLAGS -jar "$jar" loadgen --workload "$wl" --type "$type" --no-floor --quiet 2>/dev/null \
    | awk -v l="$label" -v w="$wl" -v t="$type" '/events\/s;/ && /^junction / { s = $0; sub(/ events\/s;.*/, "", s); sub(/.*: /, "", s); gsub(/,/, "", s); eps = s }
      /^output rows / { check = $NF } END { print l " " w " " t " " (eps == "" ? "FAILED" : eps) " " (check == "" ? "-" : check) }'
}
for round in $(seq 1 "$ROUNDS"); do
  for wl in "W1 inner" "W1 left" "W2 inner" "W2 left"; do
    set -- $wl
    run "round-$round base" "$BASE/tools/target/junction-tools-all.jar" "$1" "$2"
    run "round-$round this" tools/target/junction-tools-all.jar "$1" "$2"
  done
done | tee "$R/ab.txt"
awk '
  { key = $3 " " $4; side = $2; n[side, key]++; v[side, key, n[side, key]] = $5; keys[key] = 1; if ($6 != "OK") bad = bad " " $0 }
  function median(side, key,   m, i, j, x, a) {
    m = n[side, key]; for (i = 1; i <= m; i++) a[i] = v[side, key, i] + 0
    for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
    return a[int((m + 1) / 2)]
  }
  END {
    printf "%-10s %14s %14s %10s\n", "events/s", "base median", "this median", "this/base"
    for (key in keys) { b = median("base", key); t = median("this", key); printf "%-10s %14.0f %14.0f %9.3fx\n", key, b, t, (b > 0 ? t / b : 0) }
    if (bad != "") print "NOT OK:" bad
  }' "$R/ab.txt" | tee "$R/summary.txt"
echo "results in $R"
