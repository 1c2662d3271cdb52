#!/usr/bin/env bash
# Builds and runs the YARN elasticity benchmark (about 2.5 minutes: six sleep jobs on a
# MiniYARNCluster); the full log goes to target/run.log, the tables to the terminal.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p target
uptime
mvn -B -q -Dstyle.color=never compile exec:exec > target/run.log 2>&1 || {
  tail -50 target/run.log; exit 1; }
grep -E '^\[bench\]|^\||^## ' target/run.log
uptime
