#!/usr/bin/env bash
# The operator-driver redesign against the commit before it, interleaved run by run so that the
# host's noise hits both alike (never two benchmarks at once). BASE is a checkout of the baseline with its
# jars built (`git worktree add /tmp/base21 79afe02 && (cd /tmp/base21 && mvn -B -q package -DskipTests
# -Dmaven.javadoc.skip=true)`); this checkout must be built the same way.
# Output: bench/results/<date>-driver/driver-compare.txt (one line per run) and summary.txt (medians).
#   bench/scripts/driver-compare.sh /tmp/base21 [rounds]
set -u
BASE=${1:?usage: driver-compare.sh BASE_CHECKOUT [rounds]}
ROUNDS=${2:-3}
cd "$(dirname "$0")/../.."
R=bench/results/$(date -u +%Y-%m-%d)-driver; mkdir -p "$R"
FLAGS=$(sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; java -version 2>&1 | sed -n 1p; git rev-parse --short HEAD;
  git -C "$BASE" rev-parse --short HEAD; } > "$R/machine.txt"
run() { # label jar workload type
  local label=$1 jar=$2 wl=$3 type=$4
  java $FLAGS -jar "$jar" loadgen --workload "$wl" --type "$type" --no-floor --quiet 2>/dev/null | sed -n 1p \
    | sed -E "s/^junction .*: ([0-9,]+) events\/s;.*/$label $wl $type \1/"
}
for round in $(seq 1 "$ROUNDS"); do
  for wl in "W1 inner" "W1 left" "W2 inner" "W2 left" "W4 inner"; do
    set -- $wl
    run "round $round base" "$BASE/tools/target/junction-tools-all.jar" $1 $2
    run "round $round driver" tools/target/junction-tools-all.jar $1 $2
  done
done > "$R/driver-compare.txt"
# medians per workload and side, and the ratio driver / base
awk '{k=$4" "$5; v=$6; gsub(",","",v); if ($3=="base") b[k]=b[k]" "v; else d[k]=d[k]" "v}
  function med(s,  a,n,i,j,t){n=split(s,a," "); for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(a[j]+0<a[i]+0){t=a[i];a[i]=a[j];a[j]=t}
    return n%2?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2}
  END{for(k in b) printf "%s base %d driver %d ratio %.3f\n", k, med(b[k]), med(d[k]), med(d[k])/med(b[k])}' \
  "$R/driver-compare.txt" | sort > "$R/summary.txt"
cat "$R/summary.txt"
