#!/usr/bin/env bash
# Junction against Flink 1.20's operators on the same machine in the same window, interleaved
# round by round so that the host's noise hits both alike. Output: bench/results/<date>/compare-flink.txt.
# W4 (upsert streams): Junction with f1 declared as both sides' unique key (loadgen's default for W4) and,
# for reference, without (junction-hash-no-uk); Flink's StreamingJoinOperator with the same declaration
# (flink-sql-uk) and without (flink-sql).
# Junction runs twice per case: through the whole runtime (publisher, ring, partition thread) and, as
# junction-direct, its operator driven on one thread (loadgen --direct), the way the peers drive Flink's
# operators, so that per-core work is compared as well. OUT (default bench/results/<date>) is where it writes.
# Needs `mvn -B -Ppeers -pl peers -am package -Dmaven.test.skip=true` first.
set -u
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)}; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
# -am: junction-tools resolves to the reactor's tools/target/classes (no snapshot is installed in ~/.m2);
# every module writes the file, the peers module last
mvn -B -q -Ppeers -pl peers -am compile dependency:build-classpath -Dmaven.test.skip=true \
  -Dmdep.outputFile=/tmp/peers-cp.txt >/dev/null 2>&1
PCP="peers/target/classes:$(cat /tmp/peers-cp.txt)"
for round in 1 2 3; do
  for wl in "W1 inner" "W1 left" "W2 inner" "W2 left" "W4 inner" "W4 left"; do
    set -- $wl
    indexes="chronicle hash"; [ "$1" = W4 ] && indexes=hash
    for idx in $indexes; do
      java $FLAGS -Djunction.state.index=$idx -jar tools/target/junction-tools-all.jar loadgen --workload $1 --type $2 \
        --no-floor --quiet 2>/dev/null | head -1 | sed -E "s/^junction ([^ ]+) ([a-z]+) .*: ([0-9,]+) events\/s;.*/round $round junction-$idx \1 \2 \3/"
    done
    java $FLAGS -jar tools/target/junction-tools-all.jar loadgen --workload $1 --type $2 --direct --quiet 2>/dev/null \
      | head -1 | sed -E "s/^junction ([^ ]+) ([a-z]+) .*: ([0-9,]+) events\/s;.*/round $round junction-direct \1 \2 \3/"
    if [ "$1" = W4 ]; then
      java $FLAGS -Djunction.state.index=hash -jar tools/target/junction-tools-all.jar loadgen --workload $1 --type $2 \
        --no-unique-key --no-floor --quiet 2>/dev/null | head -1 | sed -E "s/^junction ([^ ]+) ([a-z]+) .*: ([0-9,]+) events\/s;.*/round $round junction-hash-no-uk \1 \2 \3/"
    fi
    peers=flink-sql; [ "$1 $2" = "W1 inner" ] && peers=flink-datastream; [ "$1" = W4 ] && peers=flink-sql-uk,flink-sql
    java -Xms6g -Xmx6g -cp "$PCP" io.junction.peers.PeersMain --peers=$peers --workloads=$1 --joins=$2 --warmup=1 --runs=1 2>/dev/null \
      | grep -E "^(${peers//,/|}) " | awk -v r=$round '{print "round " r " " $1 " " $2 " " $3 " " $9}'
  done
done > "$R/compare-flink.txt"
