#!/usr/bin/env bash
# The new join kinds's figures, one benchmark at a time, into bench/results/<date>-kinds/:
#  w5.txt      W5 (orders joined with a currency-rate table, temporal join), inner and left: Junction through the
#              runtime and driven directly (loadgen --direct), and Flink 1.20's TemporalRowTimeJoinOperator
#              (peer flink-sql-temporal), interleaved round by round
#  jmh-*.txt   WindowCoGroupBenchmark and TemporalJoinBenchmark with -prof gc (B/op)
# Needs `mvn -B -q package -DskipTests -Dmaven.javadoc.skip=true` and
# `mvn -B -Ppeers -pl peers -am package -Dmaven.test.skip=true` first.
#   bench/scripts/new-kinds-figures.sh [rounds]
set -u
ROUNDS=${1:-3}
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)-kinds}; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD; } > "$R/machine.txt"
mvn -B -q -o -Ppeers -pl peers -am compile dependency:build-classpath -Dmaven.test.skip=true \
  -Dmdep.outputFile=/tmp/peers-cp.txt >/dev/null 2>&1
PCP="peers/target/classes:$(cat /tmp/peers-cp.txt)"
for round in $(seq 1 "$ROUNDS"); do
  for type in inner left; do
    java $FLAGS -jar tools/target/junction-tools-all.jar loadgen --workload W5 --type $type --no-floor --quiet 2>/dev/null \
      | head -1 | sed -E "s/^junction ([^ ]+) ([a-z]+) .*: ([0-9,]+) events\/s;.*/round $round junction \1 \2 \3/"
    java $FLAGS -jar tools/target/junction-tools-all.jar loadgen --workload W5 --type $type --direct --quiet 2>/dev/null \
      | head -1 | sed -E "s/^junction ([^ ]+) ([a-z]+) .*: ([0-9,]+) events\/s;.*/round $round junction-direct \1 \2 \3/"
    java -Xms6g -Xmx6g -cp "$PCP" io.junction.peers.PeersMain --peers=flink-sql-temporal --workloads=W5 --joins=$type --warmup=1 --runs=1 2>/dev/null \
      | grep -E "^flink-sql-temporal " | awk -v r=$round '{print "round " r " " $1 " " $2 " " $3 " " $9}'
  done
done > "$R/w5.txt"
java $FLAGS -jar tools/target/junction-tools-all.jar loadgen --workload W5 --type left --rate 200000 --no-floor --quiet > "$R/w5-latency.txt" 2>&1
for b in WindowCoGroupBenchmark TemporalJoinBenchmark; do
  java -jar bench/target/benchmarks.jar "$b" -wi 2 -w 2 -i 3 -r 2 -f 1 -prof gc -jvmArgsAppend "$FLAGS" > "$R/jmh-$b.txt" 2>&1
done
