#!/bin/bash
echo -20 > /proc/self/autogroup
cd /tmp/soak-s5b
rm -rf state
date -u > started
/usr/bin/time -v java --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=jdk.unsupported/sun.misc=ALL-UNNAMED --add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED --add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED -Dchronicle.analytics.disable=true -Xms768m -Xmx768m -XX:+AlwaysPreTouch -jar junction-tools-all.jar soak --duration 1830 --report-every 60 --rate 200000 --state /tmp/soak-s5b/state --checkpoint-seconds 1 --csv soak.csv --svg soak.svg > soak.txt 2> soak.err
echo rc=$? >> soak.txt
date -u > finished
