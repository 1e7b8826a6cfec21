#!/usr/bin/env bash
# W1 through Kafka on this host: 1, 2 and 4 member processes (junction kafka join) on 8 partitions, beside
# Kafka's own round trip (junction kafka bench --floor: an in-process relay, no join), measured the same way:
# events/s at max rate, and ingest-to-output latency percentiles at a fixed offered rate. Each run gets fresh
# topics, a fresh group and fresh state. The broker is the tests' (a real Kafka 4.1.1, KRaft, in a child JVM).
#
#   bench/scripts/kafka-figures.sh [OUT_DIR]     (env: ROUNDS=3 IMPRESSIONS=400000 RATE=20000 LATENCY_IMPRESSIONS=100000
#                                                  MEMBERS="1 2 4" PARTITIONS=8)
#
# On a machine without Maven (the lent 16-core one): PREBUILT=DIR holds junction-tools-all.jar and broker/*.jar
# (the kafka-testkit jar and the broker's jars), JAVA=the java to run; nothing is built.
#
# Run it alone on the machine: nothing else building or measuring.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/bench/results/$(date +%F)-kafka}"
rounds="${ROUNDS:-3}"
impressions="${IMPRESSIONS:-400000}"
rate="${RATE:-20000}"
latency_impressions="${LATENCY_IMPRESSIONS:-100000}"
partitions="${PARTITIONS:-8}"
members="${MEMBERS:-1 2 4}"
mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/junction-kafka-bench.XXXXXX")"
trap 'exec 3>&- 2>/dev/null || true; sleep 2; rm -rf "$work"' EXIT

cd "$root"
java_bin="${JAVA:-java}"
if [[ -n "${PREBUILT:-}" ]]; then
    flags="$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' "$root/pom.xml" | head -n 1)"
    # shellcheck disable=SC2086 # the flags and JAVA_OPTS are lists of options
    junction() { "$java_bin" $flags ${JAVA_OPTS:-} -jar "$PREBUILT/junction-tools-all.jar" "$@"; }
    # shellcheck disable=SC2086
    junction_exec() { exec "$java_bin" $flags ${JAVA_OPTS:-} -jar "$PREBUILT/junction-tools-all.jar" "$@"; }
    broker_cp="$PREBUILT/broker/*:$PREBUILT/junction-tools-all.jar"
else
    # the tools jar, and the broker's classpath (module kafka-testkit) written to kafka-testkit/target/test-classpath.txt
    mvn -B -q ${JUNCTION_MVN_OPTS:-} -DskipTests package dependency:build-classpath -Dmdep.includeScope=test \
        -Dmdep.outputFile=target/test-classpath.txt -pl kafka-testkit,tools -am
    touch "$root/tools/target/junction-tools-all.jar"
    junction() { "$root/tools/bin/junction" "$@"; }
    junction_exec() { exec "$root/tools/bin/junction" "$@"; }
    broker_cp="$root/kafka-testkit/target/classes:$(cat kafka-testkit/target/test-classpath.txt)"
fi
spec="$root/bench/scripts/w1-inner.join.json"

# The broker lives as long as this script: it stops when fd 3 (its stdin) closes.
exec 3> >(exec "$java_bin" -Djunction.kafka.broker.dir="$work/broker" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$broker_cp" io.junction.kafka.testing.StandaloneBroker > "$work/broker.out" 2> "$work/broker.err")
for _ in $(seq 1 120); do
    [[ -s "$work/broker.out" ]] && break
    sleep 1
done
servers="$(head -n 1 "$work/broker.out")"
echo "broker: $servers" | tee "$out/broker.txt"

run_members() { # N NAME: starts N members on topics NAME-*, prints their pids
    local n="$1" name="$2"
    for m in $(seq 1 "$n"); do
        # A subshell that execs the JVM: $! is the member's own pid, which the run kills when it is done.
        (JAVA_OPTS="-Xmx1g" junction_exec kafka join --format binary --spec "$spec" --extra-fields ts,f1,f2,f3 \
            --bootstrap-servers "$servers" --group "$name" --left "$name-left" --right "$name-right" --output "$name-out" \
            --state "$work/$name/state-$m" --checkpoint-dir "$work/$name/checkpoints" --checkpoint-ms 10000 \
            --watermark-delay 5000 --max-keys 65536 --stop-with-pid $$ > "$work/$name-member-$m.log" 2>&1) &
        echo $!
    done
}

one_run() { # N MODE ROUND
    local n="$1" mode="$2" round="$3" name="r$3-$2-n$1" args
    if [[ "$mode" == "throughput" ]]; then args=(--impressions "$impressions"); else args=(--impressions "$latency_impressions" --rate "$rate"); fi
    junction kafka bench --bootstrap-servers "$servers" --spec "$spec" --left "$name-left" --right "$name-right" \
        --output "$name-out" --create-topics "$partitions" --create-only
    local pids
    if [[ "$n" == "floor" ]]; then
        pids=""
        junction kafka bench --bootstrap-servers "$servers" --spec "$spec" --left "$name-left" --right "$name-right" \
            --output "$name-out" --floor "${args[@]}" | tee -a "$out/$mode.txt"
    else
        pids="$(run_members "$n" "$name")"
        sleep $((8 + 2 * n))   # the group forms: every member joins before the first event is sent
        echo "== $n member(s), $mode, round $round" | tee -a "$out/$mode.txt"
        junction kafka bench --bootstrap-servers "$servers" --spec "$spec" --left "$name-left" --right "$name-right" \
            --output "$name-out" "${args[@]}" | tee -a "$out/$mode.txt"
        # shellcheck disable=SC2086
        kill $pids 2>/dev/null || true
        # shellcheck disable=SC2086
        wait $pids 2>/dev/null || true
    fi
}

{ echo "host: $(nproc) cores, $("$java_bin" -version 2>&1 | head -n 1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"; date -u; } | tee "$out/host.txt"
for round in $(seq 1 "$rounds"); do
    for n in floor $members; do
        [[ "$n" == "floor" ]] && echo "== floor (relay, no join), throughput, round $round" | tee -a "$out/throughput.txt"
        one_run "$n" throughput "$round"
        [[ "$n" == "floor" ]] && echo "== floor (relay, no join), latency, round $round" | tee -a "$out/latency.txt"
        one_run "$n" latency "$round"
    done
done
