#!/bin/bash
# Session 5's figures, one benchmark at a time, high priority (autogroup -20).
echo -20 > /proc/self/autogroup
cd /work/main
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
JAR=/tmp/bench5/junction-tools-all.jar
C=$(cat /tmp/bench5/commit)
STATE=/tmp/bench5/state
machine() { { date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; echo "commit $C"; } > "$1/machine.txt"; }
# 0. issue 21: the driver and layering against 12d1a1c (/tmp/base4), interleaved
V=bench/results/2026-12-01-driver-s5; mkdir -p $V; machine $V; echo "base $(git -C /tmp/base4 rev-parse --short HEAD)" >> $V/machine.txt
run() { java $FLAGS -jar "$2" loadgen --workload "$3" --type "$4" --no-floor --quiet 2>/dev/null | sed -n 1p | sed -E "s/^junction .*: ([0-9,]+) events\/s;.*/$1 $3 $4 \1/"; }
for round in 1 2 3; do
  for wl in "W1 inner" "W1 left" "W2 inner" "W2 left" "W4 inner"; do
    set -- $wl
    run "round $round base" /tmp/base4/tools/target/junction-tools-all.jar $1 $2
    run "round $round driver" $JAR $1 $2
  done
done > $V/driver-compare.txt
echo "driver done $(date -u)" >> /tmp/bench5/progress
# 1. W1 left at 350k/s: in memory, durable with a checkpoint every second (copy-on-write), synchronous checkpoints
D=bench/results/2026-12-01-durable-s5; mkdir -p $D; machine $D
for round in 1 2 3; do
  echo "== round $round: in memory @ 350000/s"
  java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate 350000 --no-floor --quiet 2>&1
  echo "== round $round: durable, checkpoint every 1 s @ 350000/s"
  rm -rf $STATE; java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate 350000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
  echo "== round $round: durable, synchronous checkpoint every 1 s @ 350000/s"
  rm -rf $STATE; java $FLAGS -Djunction.checkpoint.synchronous=true -jar $JAR loadgen --workload W1 --type left --rate 350000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
done > $D/checkpoint-latency-350k.txt
echo "durable W1 done $(date -u)" >> /tmp/bench5/progress
# 2. W1-big durability at default settings (pause, background write, restore, take-over)
rm -rf $STATE; java -Xmx8g $FLAGS -jar $JAR durability --workload W1-big --state $STATE > $D/durability-w1big.txt 2>&1
rm -rf $STATE
echo "W1-big done $(date -u)" >> /tmp/bench5/progress
# 3. changelog shaping, runtime and direct, 3 interleaved rounds
S=bench/results/2026-12-01-shaping-s5; mkdir -p $S; machine $S
java $FLAGS -Xms4g -Xmx4g -jar $JAR shaping --shows 2000000 --runs 3 > $S/w1-seed-runtime.txt 2>/dev/null
java $FLAGS -Xms4g -Xmx4g -jar $JAR shaping --shows 2000000 --runs 3 --direct > $S/w1-seed-direct.txt 2>/dev/null
echo "shaping done $(date -u)" >> /tmp/bench5/progress
# 4. latency at half saturation against the floor
OUT=bench/results/2026-12-01-latency-s5 JAR=$JAR bash bench/scripts/latency-figures.sh 3 > /tmp/bench5/latency.log 2>&1
echo "latency done $(date -u)" >> /tmp/bench5/progress
