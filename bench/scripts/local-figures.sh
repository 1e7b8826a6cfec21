#!/usr/bin/env bash
# Produces every figure quoted in the README's Performance section, one run at a time (never two
# benchmarks at once: on 2 cores the numbers would lie). Output: bench/results/<date>/.
# Takes about 25 minutes on the 2-core development machine.
set -u
cd "$(dirname "$0")/../.."
R=bench/results/$(date -u +%Y-%m-%d)
mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
mvn -B -q -Dmaven.test.skip=true install >/dev/null
mvn -B -q -Ppeers -pl peers -am package -Dmaven.test.skip=true >/dev/null
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; java -version 2>&1 | head -1; git rev-parse --short HEAD; } > "$R/machine.txt"
T="java $FLAGS -jar tools/target/junction-tools-all.jar"

# A. Throughput at max rate, 3 runs each, Chronicle Map and hash key index.
for cfg in "W1 left 1" "W1 inner 1" "W1 left 2" "W2 inner 1" "W2 left 1" "W3 inner 1"; do
  set -- $cfg
  for idx in chronicle hash; do
    for run in 1 2 3; do
      java $FLAGS -Djunction.state.index=$idx -jar tools/target/junction-tools-all.jar \
        loadgen --workload $1 --type $2 --partitions $3 --no-floor --quiet 2>/dev/null | head -1 | sed "s/^/[$idx run $run] /"
    done
  done
done > "$R/throughput.txt"
for idx in chronicle hash; do
  java $FLAGS -Xmx8g -Djunction.state.index=$idx -Xlog:gc:file=$R/w1big-$idx-gc.log -jar tools/target/junction-tools-all.jar \
    loadgen --workload W1-big --type left --no-floor --quiet 2>/dev/null | head -1 | sed "s/^/[$idx] /"
done > "$R/w1big.txt"

# B. Latency at half of each index's saturation (coordinated omission corrected) next to the bare
# hand-off floor; half of W1 is warm-up, the end-of-input burst is reported apart.
for idx_rate in "hash 950000" "chronicle 375000"; do
  set -- $idx_rate
  for w in sleeping yielding busy-spin; do
    java $FLAGS -Djunction.state.index=$1 -jar tools/target/junction-tools-all.jar loadgen --workload W1 --type left \
      --rate $2 --wait-strategy $w --warmup 1200000 --hlog "$R/steady-w1-left-$1-$2-$w.hlog" --quiet 2>/dev/null
  done
done > "$R/latency-steady.txt"
$T report "$R"/steady-w1-left-*.hlog --svg "$R/latency-steady-w1-left.svg" > "$R/latency-steady-report.txt" 2>/dev/null
java $FLAGS -Djunction.state.index=hash -jar tools/target/junction-tools-all.jar sweep --workload W1 --type left --events 1200000 --rates 300000,600000,900000,1200000,1500000 --partitions 1,2 \
  --p999-budget-us 50000 > "$R/sweep-w1-left-hash.txt" 2>/dev/null
$T nexmark --events 2000000 > "$R/nexmark.txt" 2>/dev/null

# C. JMH: per-event paths and components, with the allocation profiler.
java -jar bench/target/benchmarks.jar "RegularJoinBenchmark|IntervalJoinBenchmark|KeyIndexBenchmark|RowStoreBenchmark|TimerWheelBenchmark|RingHandOffBenchmark|RuntimeBenchmark" \
  -wi 2 -w 2 -i 3 -r 2 -f 1 -prof gc -jvmArgsAppend "$FLAGS" -rf text -rff "$R/jmh.txt" > "$R/jmh-log.txt" 2>&1

# D. The naive on-heap join, same events.
for cfg in "W1 inner" "W1 left" "W2 inner" "W2 left" "W3 inner"; do
  java -cp tools/target/junction-tools-all.jar io.junction.tools.naive.NaiveRunner $cfg --runs 3 --prebuilt 2>&1 | tail -4
done > "$R/naive.txt"
java -Xmx8g -cp tools/target/junction-tools-all.jar io.junction.tools.naive.NaiveRunner W1-big left --runs 1 --prebuilt > "$R/naive-w1big.txt" 2>&1
bash bench/scripts/compare-flink.sh

# E. Peers: Flink 1.20 operators (heap state) and Kafka Streams (scaled sizes; its test driver is slow).
P="mvn -B -q -Ppeers -pl peers package -Dmaven.test.skip=true"
$P -Dpeers.args="--peers=flink-datastream --workloads=W1 --warmup=1 --runs=3" > "$R/peers-flink-datastream.txt" 2>&1
$P -Dpeers.args="--peers=flink-sql --workloads=W1,W2 --warmup=1 --runs=3" > "$R/peers-flink-sql.txt" 2>&1
$P -Dpeers.args="--peers=kstreams --workloads=W1 --warmup=1 --runs=1 -Dw1.n=200000" > "$R/peers-kstreams.txt" 2>&1
echo done > "$R/DONE"
