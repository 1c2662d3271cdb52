#!/usr/bin/env bash
# Runs the streaming allocation simulator (deterministic, a few seconds) and prints its table.
# It drives the policy classes of this checkout: driver-runtime (with the modules it depends on)
# is installed into the local Maven repository first when the installed jar is missing or older
# than their sources.
#   run.sh [setting=value ...]   proportional overrides (targetUtilization=0.85, catchUpTime=30000,
#                                scaleDownMargin, scaleDownBatches, maxScaleDownStep), tasks=N
#                                (map tasks per batch), show=trace,strategy,start (its changes)
# Environment: MAVEN_REPO_LOCAL (default ~/.m2/repository), MVN_ARGS (e.g. -o).
set -euo pipefail
cd "$(dirname "$0")"
ROOT=../..
REPO=${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}
MVN=(mvn -B -ntp -q -Dstyle.color=never "-Dmaven.repo.local=$REPO" ${MVN_ARGS:-})
JAR=$REPO/dev/tide/tide-driver-runtime/0.1.0-SNAPSHOT/tide-driver-runtime-0.1.0-SNAPSHOT.jar
# driver-runtime and the modules it depends on (-am): their sources and poms.
MODULES=(conf-options network-common shuffle-client shuffle-service tide-api driver-runtime)
SOURCES=("$ROOT/pom.xml")
for m in "${MODULES[@]}"; do SOURCES+=("$ROOT/$m/src/main" "$ROOT/$m/pom.xml"); done
if [ ! -f "$JAR" ] || [ -n "$(find "${SOURCES[@]}" -newer "$JAR" -print -quit)" ]; then
  echo "Installing driver-runtime and the modules it depends on (sources newer than $JAR)" >&2
  "${MVN[@]}" -f "$ROOT/pom.xml" -pl driver-runtime -am install -DskipTests -DskipFuzz
fi
# Maven's console still emits colour resets around the program's output: strip them.
"${MVN[@]}" compile exec:java -Dexec.args="$*" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
