#!/usr/bin/env bash
# Tide's wordcount beside MapReduce's WordCount on one MiniYARNCluster (2 NodeManagers loading
# tide_shuffle and mapreduce_shuffle) and one MiniDFSCluster, loopback only. Bounded: the
# benchmark JVM gets SIGTERM after $BENCH_TIMEOUT seconds (default 2400) and its shutdown hook
# stops the NodeManagers, which kill their containers. The full log goes to target/run.log,
# the [bench] lines and tables to the terminal.
#
#   bench/mr-compare/run.sh [workload=wordcount|terasort|both] [sizes=256m,1g] [reducers=2]
#                           [sortReducers=4] [heapMb=256] ...   (see BenchSettings)
#     --no-build   skip the Maven build
#
# Needs Tide's modules in the local Maven repository: mvn -B -o -q install -DskipTests (from the
# repository root). MAVEN_REPO_LOCAL=/some/dir makes both that repository and the one this
# script's build reads (-Dmaven.repo.local); unset, Maven's default (~/.m2/repository).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build=1
args=()
for a in "$@"; do
  if [[ "$a" == "--no-build" ]]; then build=0; else args+=("$a"); fi
done
repo_local=()
[[ -z "${MAVEN_REPO_LOCAL:-}" ]] || repo_local=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")
if (( build )); then
  mvn -B -q -o "${repo_local[@]}" -f "$here/pom.xml" package -DskipTests
fi
cd "$here"
rm -rf target/bench-work target/test target/run.log
echo "[run.sh] $(date -u) load: $(cat /proc/loadavg)"
status=0
# MiniYARNCluster keeps its directories (container logs too) under ./target/test/data.
timeout -k 30 "${BENCH_TIMEOUT:-2400}" java -Xmx1g --add-opens=java.base/java.lang=ALL-UNNAMED \
  -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" \
  dev.tide.bench.mrcompare.MrCompareBench "work=$here/target/bench-work" "${args[@]}" \
  > target/run.log 2>&1 || status=$?
grep -E '^\[bench\]|^\||^## ' target/run.log || true
if (( status != 0 )); then
  echo "[run.sh] exit $status (124: timed out); last lines of target/run.log:"
  tail -30 target/run.log
fi
echo "[run.sh] $(date -u) load: $(cat /proc/loadavg)"
# Containers are children of the benchmark JVM's NodeManagers; list any that outlived it.
left=$(pgrep -f "$here/target" || true)
[[ -z "$left" ]] || echo "[run.sh] still running from $here/target: $(echo $left)"
exit $status
