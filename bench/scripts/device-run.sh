#!/usr/bin/env bash
# One prepared run on the lent 16-core machine (no Java, no network there): partition scaling and
# quiet-machine latency, with a bare hand-off floor in the same run. It has no Java and no network:
# prepare here with bench/scripts/device-prepare.sh, then run this through the device tool with
# carry [".devcarry"]; results land in $OUT.
set -u
D=.devcarry
OUT=${OUT:-/tmp/junction-device-out}
mkdir -p "$OUT"
tar xzf "$D/jre.tgz" -C "$D"
FLAGS="$(cat "$D/jvm.flags") --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx24g -Xms24g -XX:+AlwaysPreTouch"
J="$D/jre/bin/java $FLAGS -jar $D/junction-tools-all.jar"
{
  echo "date: $(date -u)"; echo "nproc: $(nproc)"; grep -m1 "model name" /proc/cpuinfo; free -g | head -2
  "$D/jre/bin/java" -version 2>&1 | head -1
} > "$OUT/machine.txt"

# Partition scaling at max rate: W1 interval left join and W2 regular inner join.
for p in 1 2 4 8; do
  timeout 120 $J loadgen --workload W1 --type left --partitions $p --wait-strategy yielding --no-floor --quiet 2>>"$OUT/stderr.txt"
done > "$OUT/scaling-w1.txt"
for p in 1 2 4 8; do
  timeout 120 $J loadgen --workload W2 --type inner --partitions $p --wait-strategy yielding --no-floor --quiet 2>>"$OUT/stderr.txt"
done > "$OUT/scaling-w2.txt"

# Latency at a fixed offered rate, coordinated omission corrected, next to the hand-off floor.
for w in yielding busy-spin sleeping; do
  timeout 120 $J loadgen --workload W1 --type left --partitions 1 --rate 500000 --wait-strategy $w \
    --hlog "$OUT/w1-p1-500k-$w.hlog" --quiet 2>>"$OUT/stderr.txt"
done > "$OUT/latency-w1.txt"
ls -la "$OUT" > "$OUT/files.txt"
