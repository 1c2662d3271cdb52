#!/usr/bin/env bash
# Speculation benchmark: wordcount on a MiniYARNCluster with one slow node, tide.speculation off
# and on, REPS repetitions (default 3). Builds the repository's modules with the reactor (no
# install), compiles the bench against them and runs it in its own JVM, whose classpath the
# containers inherit. Run it under the shared heavy lock: flock /tmp/tide-heavy.lock run.sh
set -euo pipefail
cd "$(dirname "$0")"
REPS=${REPS:-3}; STOP_MS=${STOP_MS:-300}; RUN_MS=${RUN_MS:-100}
root=$(cd ../.. && pwd)
mkdir -p target/classes
uptime
(cd "$root" && mvn -B -ntp -o -q -pl integration-tests -am -DskipTests -DskipFuzz \
  test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$PWD/bench/speculation/target/cp.txt") > target/build.log 2>&1 || {
  tail -30 target/build.log; exit 1; }
cp="$root/integration-tests/target/classes:$(cat target/cp.txt)"
javac -d target/classes -cp "$cp" $(find src -name '*.java')
java -Xmx1g --add-opens=java.base/java.lang=ALL-UNNAMED -cp "target/classes:$cp" \
  dev.tide.bench.speculation.SpeculationBench "$REPS" "$STOP_MS" "$RUN_MS" > target/run.log 2>&1 || {
  tail -50 target/run.log; exit 1; }
grep -E '^\[bench\]|^\|' target/run.log
uptime
