#!/bin/bash
# W1 left at 200k/s, durable: no checkpoint / checkpoint every 1 s with 3af7914 (no capture ahead) / every 1 s
# with capture ahead (working tree after 2ddde6b); 3 interleaved rounds, one benchmark at a time.
echo -20 > /proc/self/autogroup
cd /work/main
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
OLD=/tmp/bench7/junction-tools-all.jar
NEW=/tmp/bench8/junction-tools-all.jar
STATE=/tmp/bench8/state
D=bench/results/2026-12-02-ahead-s7; mkdir -p $D
cp /tmp/bench8/ahead.sh $D/command.sh
for round in 1 2 3; do
  echo "== round $round: durable, no checkpoint @ 200000/s (capture-ahead build)"
  rm -rf $STATE; java $FLAGS -jar $NEW loadgen --workload W1 --type left --rate 200000 --no-floor --quiet --state $STATE 2>&1
  echo "== round $round: durable, checkpoint every 1 s @ 200000/s, 3af7914"
  rm -rf $STATE; java $FLAGS -jar $OLD loadgen --workload W1 --type left --rate 200000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
  echo "== round $round: durable, checkpoint every 1 s @ 200000/s, capture ahead"
  rm -rf $STATE; java $FLAGS -jar $NEW loadgen --workload W1 --type left --rate 200000 --no-floor --quiet --state $STATE --checkpoint-seconds 1 2>&1
done > $D/checkpoint-latency-200000.txt
rm -rf $STATE
echo "ahead done $(date -u)" >> /tmp/bench8/progress
