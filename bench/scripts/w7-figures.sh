#!/usr/bin/env bash
# The multi-way join work's W7 figures: Junction's multi-way join and Junction's chain of three regular joins
# (`junction multibench`, one JVM) against Flink's chain of three StreamingJoinOperators (the peers
# profile, another JVM), operator-direct on one thread each. ROUNDS rounds alternate the two JVMs;
# each JVM takes the median of RUNS warm runs; the script prints every round and the median over rounds
# of each path, and the ratios. Never run it beside a build or another benchmark.
#   bench/scripts/w7-figures.sh [ORDERS=200000] [ROUNDS=3] [RUNS=3]
# Output: bench/results/<date>-w7/.
set -eu
cd "$(dirname "$0")/../.."
ORDERS=${1:-200000}
ROUNDS=${2:-3}
RUNS=${3:-3}
R=bench/results/$(date -u +%Y-%m-%d)-w7
mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
MVN_OPTS=${JUNCTION_MVN_OPTS:-}
mvn -B -q $MVN_OPTS -Ppeers -pl peers -am package -Dmaven.test.skip=true -Djunction.skipArtifactLayout >/dev/null
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | head -1; git rev-parse --short HEAD; } > "$R/machine.txt"
# the peers profile runs PeersMain in a forked JVM (its heap and flags are in peers/pom.xml) after `package`
PEERS="mvn -B -q $MVN_OPTS -Ppeers -pl peers -am package -Dmaven.test.skip=true -Djunction.skipArtifactLayout"
for round in $(seq 1 "$ROUNDS"); do
  JUNCTION_MVN_OPTS=$MVN_OPTS tools/bin/junction multibench --orders "$ORDERS" --runs "$RUNS" > "$R/junction-$round.txt"
  $PEERS -Dpeers.args="--w7-orders=$ORDERS --warmup=1 --runs=$RUNS" > "$R/flink-$round.txt"
  grep -E '^(multi|chain): ' "$R/junction-$round.txt" | sed "s/^/round $round /"
  grep -E '^flink-chain median' "$R/flink-$round.txt" | sed "s/^/round $round /"
done | tee "$R/rounds.txt"
python3 - "$R/rounds.txt" <<'PY' | tee "$R/summary.txt"
import re, statistics, sys
rates = {"multi": [], "chain": [], "flink-chain": []}
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ (multi|chain|flink-chain)(?: median)?: .*?([\d,]+) events/s", line)
    if m:
        rates[m.group(1)].append(float(m.group(2).replace(",", "")))
med = {k: statistics.median(v) for k, v in rates.items()}
for k, v in med.items():
    print(f"{k}: median {v:,.0f} events/s over {len(rates[k])} rounds ({', '.join(f'{x:,.0f}' for x in rates[k])})")
print(f"multi / junction chain: {med['multi'] / med['chain']:.2f}x")
print(f"multi / flink chain: {med['multi'] / med['flink-chain']:.2f}x")
print(f"junction chain / flink chain: {med['chain'] / med['flink-chain']:.2f}x")
PY
