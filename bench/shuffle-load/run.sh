#!/usr/bin/env bash
# tide_shuffle load test: 1,000 concurrent authenticated connections against one ShuffleServer
# in its own JVM, loopback only, bounded in count and time (stops by itself). Prints the
# server's peak RSS (VmHWM), its direct memory, fetch counts and the machine load.
#
#   bench/shuffle-load/run.sh [key=value ...]   (see LoadTest: connections=1000 fetches=10 ...)
#   bench/shuffle-load/run.sh mix=hostile [key=value ...]   the same fetches while adversarial
#     peers attack the server (issue 17; see HostileMix: nonreaders=4 partialHellos=300 ...)
#     --no-build   skip the Maven build
#
# Needs dev.tide:tide-shuffle-service:0.1.0-SNAPSHOT, the modules it depends on and the tide-parent
# pom in ~/.m2 (mvn -N install && mvn -pl shuffle-service -am install -DskipTests).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build=1
args=()
for a in "$@"; do
  if [[ "$a" == "--no-build" ]]; then build=0; else args+=("$a"); fi
done
if (( build )); then
  mvn -B -q -o -f "$here/pom.xml" package -DskipTests
fi
cd "$here"
exec timeout 300 java -Xmx768m -Xss256k -XX:+UseSerialGC \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" \
  dev.tide.bench.shuffleload.LoadTest "dir=$here/target/load" "${args[@]}"
