#!/bin/bash
# W1 left at 200k/s (below the durable saturation of ~320-370k on this host): in memory, durable without
# checkpoints, durable with a checkpoint every second; 3 interleaved rounds. One benchmark at a time.
echo -20 > /proc/self/autogroup
cd /work/main
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
JAR=/tmp/bench7/junction-tools-all.jar
STATE=/tmp/bench7/state
D=bench/results/2026-12-02-durable-s7b
cp /tmp/bench7/tail.sh $D/command-tail.sh
for round in 1 2 3; do
  echo "== round $round: in memory @ 200000/s"
  java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate 200000 --no-floor --quiet 2>&1
  echo "== round $round: durable, no checkpoint @ 200000/s"
  rm -rf $STATE; java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate 200000 --no-floor --quiet --state $STATE 2>&1
  echo "== round $round: durable, checkpoint every 1 s @ 200000/s"
  rm -rf $STATE; java $FLAGS -jar $JAR loadgen --workload W1 --type left --rate 200000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
done > $D/checkpoint-latency-200000.txt
rm -rf $STATE
echo "tail done $(date -u)" >> /tmp/bench7/progress
