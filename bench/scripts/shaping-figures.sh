#!/usr/bin/env bash
# The changelog-shaping work's figures (docs/PERFORMANCE.md "Changelog shaping", SEMANTICS 4.5-4.7), into bench/results/<date>-shaping/:
#  w1-seed-runtime.txt  W1-seed (W1's shows and clicks as a regular left join, WORKLOADS.md) through the runtime
#                       (1 partition): retraction (the baseline), padded-delay 60 s, upsert, padded-upsert, interval,
#                       interleaved round by round in one JVM; medians of ROUNDS, ratio to retraction, output lines and
#                       binary / JSON record bytes per input row; every count checked against the counting model
#  w1-seed-direct.txt   the same, operator-direct (junction shaping --direct, as the peers drive Flink)
#  w2.txt               W2 left: retraction changelog vs upsert output (lines and bytes per input row)
#  flink-sql-seed.txt   the same W1-seed events through Flink 1.20's StreamingJoinOperator (peer flink-sql-seed)
#  replay-lines.txt     bench/scripts/shaping-lines.py: the replay CLI's JSON lines on a small log with clicks after 60 s
# Usage: bench/scripts/shaping-figures.sh [ROUNDS [SHOWS]]   (defaults 5 and 2000000 = W1's size)
#   tiny smoke: bench/scripts/shaping-figures.sh 1 20000
# Environment: PEERS=0 skips the Flink peer; MVN_OPTS (e.g. -o) for the Maven builds; OUT overrides the directory;
# HEAP (Junction's JVM, default 4g) and PEERS_HEAP (Flink's, default 6g).
# Exits 1 when any count did not match its model.
set -u
ROUNDS=${1:-5}
SHOWS=${2:-2000000}
cd "$(dirname "$0")/../.."
R=${OUT:-bench/results/$(date -u +%Y-%m-%d)-shaping}; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD; } > "$R/machine.txt"
# shellcheck disable=SC2086
mvn -B -q ${MVN_OPTS:-} -pl tools -am package -Dmaven.test.skip=true -Dmaven.javadoc.skip=true -Djunction.skipArtifactLayout >/dev/null || exit 1
J="java $FLAGS -Xms${HEAP:-4g} -Xmx${HEAP:-4g} -jar tools/target/junction-tools-all.jar"
status=0
W2_EVENTS=0
if [ "$SHOWS" -lt 2000000 ]; then W2_EVENTS=$SHOWS; fi
$J shaping --shows "$SHOWS" --runs "$ROUNDS" > "$R/w1-seed-runtime.txt" 2>/dev/null || status=1
$J shaping --shows "$SHOWS" --runs "$ROUNDS" --direct > "$R/w1-seed-direct.txt" 2>/dev/null || status=1
$J shaping --workload W2 --events "$W2_EVENTS" --runs "$ROUNDS" > "$R/w2.txt" 2>/dev/null || status=1
if [ "${PEERS:-1}" != 0 ]; then
  # shellcheck disable=SC2086
  mvn -B -q ${MVN_OPTS:-} -Ppeers -pl peers -am compile dependency:build-classpath -Dmaven.test.skip=true \
    -Djunction.skipArtifactLayout -Dmdep.outputFile=/tmp/peers-cp.txt >/dev/null 2>&1 || exit 1
  PCP="peers/target/classes:tools/target/classes:engine/target/classes:kafka/target/classes:$(cat /tmp/peers-cp.txt)"
  java -Xms${PEERS_HEAP:-6g} -Xmx${PEERS_HEAP:-6g} -Dw1.n="$SHOWS" -cp "$PCP" io.junction.peers.PeersMain --peers=flink-sql-seed --workloads=W1 --joins=left \
    --warmup=1 --runs="$ROUNDS" > "$R/flink-sql-seed.txt" 2>&1 || status=1
fi
python3 bench/scripts/shaping-lines.py "$(( SHOWS < 50000 ? SHOWS : 50000 ))" "$R/replay-lines" > "$R/replay-lines.txt" 2>&1 || status=1
for f in w1-seed-runtime w1-seed-direct w2; do echo "== $f"; sed -n '/^|/p' "$R/$f.txt"; done
[ -f "$R/flink-sql-seed.txt" ] && { echo "== flink-sql-seed"; grep -E "^(peer|flink-sql-seed) " "$R/flink-sql-seed.txt"; }
echo "== replay JSON lines"; sed -n '/^|/p' "$R/replay-lines.txt"
echo "results in $R; counts $( [ $status = 0 ] && echo OK || echo MISMATCH or failure, see the files )"
exit $status
