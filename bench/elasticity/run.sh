#!/usr/bin/env bash
# Runs the elasticity simulator (deterministic, about 10-20 s) and prints its tables. It drives
# the policy classes of this checkout: driver-runtime is installed into ~/.m2 first when the
# installed jar is missing or older than driver-runtime's sources.
# Extra arguments go to Maven.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=../..
JAR=~/.m2/repository/dev/tide/tide-driver-runtime/0.1.0-SNAPSHOT/tide-driver-runtime-0.1.0-SNAPSHOT.jar
if [ ! -f "$JAR" ] || [ -n "$(find "$ROOT/driver-runtime/src/main" "$ROOT/driver-runtime/pom.xml" \
    "$ROOT/pom.xml" -newer "$JAR" -print -quit)" ]; then
  echo "Installing driver-runtime (its sources are newer than $JAR)" >&2
  mvn -B -ntp -q -Dstyle.color=never -f "$ROOT/pom.xml" -pl driver-runtime install -DskipTests
fi
# Maven's console still emits colour resets around the program's output: strip them.
mvn -B -ntp -q -Dstyle.color=never compile exec:java "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
