#!/usr/bin/env bash
# Prepares .devcarry/ for bench/scripts/device-run.sh: a jlink'd Temurin 25 runtime (compressed),
# the shaded tools jar and the JVM flags, within the device tool's 64 MiB carry limit.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -q "^/.devcarry/" .git/info/exclude 2>/dev/null || echo "/.devcarry/" >> .git/info/exclude
mkdir -p .devcarry
if [[ ! -f .devcarry/jre.tgz ]]; then
  rm -rf .devcarry/jre
  /usr/lib/jvm/temurin-25-jdk-amd64/bin/jlink \
    --add-modules java.base,java.logging,java.management,jdk.management,jdk.unsupported,java.compiler,jdk.compiler,java.xml,java.naming,java.sql,jdk.zipfs \
    --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output .devcarry/jre
  tar czf .devcarry/jre.tgz -C .devcarry jre && rm -rf .devcarry/jre
fi
mvn -B -q -Dmaven.test.skip=true package -pl tools -am
cp tools/target/junction-tools-all.jar .devcarry/
sed -n 's:.*<junction\.jvm\.flags>\(.*\)</junction\.jvm\.flags>.*:\1:p' pom.xml | head -n 1 > .devcarry/jvm.flags
du -sh .devcarry
