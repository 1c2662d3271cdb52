#!/usr/bin/env bash
# Shuffle benchmark (issue 4): Tide's tide_shuffle (NIO, and native epoll as tide-epoll; segment
# checksums on, and off as tide-nocrc) vs Spark's external shuffle service (4.1.3 as spark, 3.5.5
# as spark35) vs Hadoop's ShuffleHandler on the same logical data, loopback only. Each server JVM
# runs on CPU 0, the load generator JVM on CPU 1 (taskset). Prints a table, the Tide/peer,
# tide-epoll/tide and tide/tide-nocrc ratios, and medians over the reps.
#
#   bench/shuffle/run.sh [key=value ...]
#     servers=tide,tide-epoll,spark,spark35,hadoop  (default; tide-nocrc only when named)
#     sizes=4096,65536,1048576  reps=5
#     warmup=5  measure=10
#     concurrency=8  maxRequests=2000000  serverCpu=0  clientCpu=1
#     results=bench/shuffle/results/<date>.md   (append the tables there too)
#     --no-build                                 (skip the Maven build)
#
# Builds and installs Tide's shuffle-service (with the modules it depends on: shuffle-client,
# network-common, conf-options; and the parent pom) into the local Maven repository
# first, then the bench modules; --no-build skips both. Environment: MAVEN_REPO_LOCAL (default
# ~/.m2/repository; the bench JVMs' classpaths point into it), MVN_ARGS (e.g. -o),
# BENCH_SERVER_OPTS (extra JVM options of every server, {tag} replaced by server-block-rep, e.g.
# -XX:StartFlightRecording=filename=/tmp/{tag}.jfr,settings=profile).
# Data sets (256-512 MiB per layout and block size; tide and tide-epoll share one, tide-nocrc has
# its own, spark and spark35 share one) are generated once under bench/shuffle/target/data and
# reused; delete that directory to regenerate. The full default run takes about 30 minutes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build=1
args=()
for a in "$@"; do
  if [[ "$a" == "--no-build" ]]; then build=0; else args+=("$a"); fi
done
command -v taskset >/dev/null || { echo "run.sh: taskset (util-linux) is required" >&2; exit 1; }
if [[ $(nproc) -lt 2 ]]; then
  echo "run.sh: needs 2 CPUs (server on one, client on the other); have $(nproc)" >&2; exit 1
fi
repo=${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}
mvn=(mvn -q "-Dmaven.repo.local=$repo" ${MVN_ARGS:-})
if (( build )); then
  "${mvn[@]}" -f "$here/../../pom.xml" -pl shuffle-service -am install -DskipTests
  "${mvn[@]}" -f "$here/pom.xml" package -DskipTests
fi
exec java -cp "$here/common/target/classes" dev.tide.bench.shuffle.Driver "base=$here" "${args[@]}"
