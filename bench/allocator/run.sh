#!/usr/bin/env bash
# Builds and runs the allocation-round benchmark; extra arguments go to JMH (e.g. -f 2, or a
# benchmark name pattern such as 'coldRound').
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -q -Dstyle.color=never package -DskipTests
CP="target/classes:$(cat target/classpath.txt)"
# The "resolvable" host names, as a hosts file for the JDK's resolver (no DNS needed).
HOSTS=target/hosts
if [ ! -s "$HOSTS" ]; then
  for i in $(seq 0 4999); do
    printf '10.%d.%d.%d host%05d.example.com\n' $((i / 65536)) $((i / 256 % 256)) $((i % 256)) "$i"
  done > "$HOSTS"
fi
uptime
java -cp "$CP" org.openjdk.jmh.Main 'dev.tide.bench.allocator.*' \
  -wi 3 -w 1s -i 5 -r 1s -f 1 -bm avgt -tu ms \
  -jvmArgsAppend "-Djdk.net.hosts.file=$PWD/$HOSTS" "$@"
uptime
