#!/bin/bash
# Session 6's figures, one benchmark at a time, high priority (autogroup -20).
echo -20 > /proc/self/autogroup
cd /work/main
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
JAR=/tmp/bench6/junction-tools-all.jar
C=$(cat /tmp/bench6/commit)
STATE=/tmp/bench6/state
machine() { { date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; echo "commit $C"; } > "$1/machine.txt"; }
D=bench/results/2026-12-01-durable-s6; mkdir -p $D; machine $D
cp /tmp/bench6/run.sh $D/command.sh
# 1. W1 left at 350k/s and 600k/s: in memory and durable with a checkpoint every second, 3 interleaved rounds
for rate in 350000 600000; do
  for round in 1 2 3; do
    echo "== round $round: in memory @ $rate/s"
    java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate $rate --no-floor --quiet 2>&1
    echo "== round $round: durable, checkpoint every 1 s @ $rate/s"
    rm -rf $STATE; java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate $rate --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
  done > $D/checkpoint-latency-$rate.txt
  echo "W1 left $rate done $(date -u)" >> /tmp/bench6/progress
done
# 2. W1 inner durable at 350k/s (the pause for the other W1 type)
for round in 1 2 3; do
  rm -rf $STATE; java $FLAGS -jar $JAR loadgen --workload W1 --type inner --rate 350000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
done > $D/checkpoint-inner-350k.txt
echo "W1 inner done $(date -u)" >> /tmp/bench6/progress
# 3. W1-big durability at default settings (pause, background write, restore, take-over)
rm -rf $STATE; java -Xmx8g $FLAGS -jar $JAR durability --workload W1-big --state $STATE > $D/durability-w1big.txt 2>&1
rm -rf $STATE
echo "W1-big done $(date -u)" >> /tmp/bench6/progress
# 4. latency at half saturation against the floor
OUT=bench/results/2026-12-01-latency-s6 JAR=$JAR bash bench/scripts/latency-figures.sh 3 > /tmp/bench6/latency.log 2>&1
echo "latency done $(date -u)" >> /tmp/bench6/progress
