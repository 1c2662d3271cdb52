#!/usr/bin/env bash
# Runs the elasticity simulator (deterministic for a seed, a few minutes) and prints its tables.
# It drives the policy classes of this checkout: driver-runtime (with the modules it depends on:
# the job API, settings, network and shuffle modules) is installed into the local Maven
# repository first when the installed jar is missing or older than their sources.
# MAVEN_REPO_LOCAL selects that repository (default ~/.m2/repository); MAVEN_OFFLINE=1 runs Maven
# offline. Arguments go to the simulator: --seed N (1), --seeds K (4 further seeds for the
# targets' robustness; 0 skips), --no-variants (skip each rule's share), --holdout (the second
# trace set).
set -euo pipefail
cd "$(dirname "$0")"
ROOT=../..
REPO=${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}
MVN=(mvn -B -ntp -q -Dstyle.color=never "-Dmaven.repo.local=$REPO")
if [ "${MAVEN_OFFLINE:-0}" = 1 ]; then MVN+=(-o); fi
JAR=$REPO/dev/tide/tide-driver-runtime/0.1.0-SNAPSHOT/tide-driver-runtime-0.1.0-SNAPSHOT.jar
# driver-runtime and the modules it depends on (-am): their sources and poms.
MODULES=(conf-options network-common shuffle-client shuffle-service tide-api driver-runtime)
SOURCES=("$ROOT/pom.xml")
for m in "${MODULES[@]}"; do SOURCES+=("$ROOT/$m/src/main" "$ROOT/$m/pom.xml"); done
if [ ! -f "$JAR" ] || [ -n "$(find "${SOURCES[@]}" -newer "$JAR" -print -quit)" ]; then
  echo "Installing driver-runtime and the modules it depends on (their sources are newer than" \
    "$JAR)" >&2
  "${MVN[@]}" -f "$ROOT/pom.xml" -pl driver-runtime -am install -DskipTests -DskipFuzz
fi
# Maven's console still emits colour resets around the program's output: strip them.
"${MVN[@]}" compile exec:java -Dexec.args="$*" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
