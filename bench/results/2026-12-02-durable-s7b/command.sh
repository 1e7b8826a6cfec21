#!/bin/bash
# Session 7's pause figures, one benchmark at a time, high priority (autogroup -20).
echo -20 > /proc/self/autogroup
cd /work/main
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
JAR=/tmp/bench7/junction-tools-all.jar
C=$(cat /tmp/bench7/commit)
STATE=/tmp/bench7/state
machine() { { date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; echo "commit $C"; } > "$1/machine.txt"; }
D=bench/results/2026-12-02-durable-s7b; mkdir -p $D; machine $D
cp /tmp/bench7/run.sh $D/command.sh
# 1. W1 left at 350k/s: in memory and durable with a checkpoint every second, 3 interleaved rounds
for round in 1 2 3; do
  echo "== round $round: in memory @ 350000/s"
  java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate 350000 --no-floor --quiet 2>&1
  echo "== round $round: durable, checkpoint every 1 s @ 350000/s"
  rm -rf $STATE; java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate 350000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
done > $D/checkpoint-latency-350000.txt
echo "W1 left done $(date -u)" >> /tmp/bench7/progress
# 2. W1 inner durable at 350k/s
for round in 1 2 3; do
  rm -rf $STATE; java $FLAGS -jar $JAR loadgen --workload W1 --type inner --rate 350000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
done > $D/checkpoint-inner-350k.txt
echo "W1 inner done $(date -u)" >> /tmp/bench7/progress
# 3. W1-big durability at default settings, 3 runs (pause, background write, restore, take-over)
for r in 1 2 3; do rm -rf $STATE; java -Xmx8g $FLAGS -jar $JAR durability --workload W1-big --state $STATE > $D/durability-w1big-$r.txt 2>&1; done
rm -rf $STATE
echo "W1-big done $(date -u)" >> /tmp/bench7/progress
