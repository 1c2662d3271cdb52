#!/usr/bin/env bash
# Regenerates integration-tests/src/main/resources/cds/containers.classlist: the classes that
# ApplicationMaster and executor containers load, recorded by the JVM (-XX:DumpLoadedClassList,
# one file per container) while a few integration tests run without an archive, then merged
# (names only, sorted). Run from the repository root after dependency or package changes:
#   integration-tests/cds/update-classlist.sh ['TestClass#method+other,...']
# A list out of date only costs speed (see dev.tide.it.ContainerClassData).
set -euo pipefail
cd "$(dirname "$0")/../.."
tests=${1:-'EndToEndTest#wordcountOverHdfsGivesExactlyTheCountsOfTheInput+shippedAppJarRunsAJobAsYarnJarWould+lostMapOutputIsRecomputedWhenTheReducerCannotFetchIt,DagJobTest#joinOfTwoInputsGivesExactlyTheIndependentResult+sortOutputIsCompleteAndGloballyOrderedAndSortvalidateAgrees,CachedDataTest#kmeansGivesTheCentresOfLloydsAlgorithmAndReadsLaterRoundsFromTheCache,StreamWordCountTest,SecureJobsTest#wordcountReadsAndWritesKerberizedHdfs,WebUiTest'}
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT
mvn -B -ntp -q -pl integration-tests -am test -Dtest="$tests" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true -DskipFuzz \
  -Dtide.it.classDataSharing=false \
  "-Dtide.it.containerJavaOpts=-XX:DumpLoadedClassList=$lists/\$CONTAINER_ID.classlist"
count=$(ls "$lists" | wc -l)
if [ "$count" -eq 0 ]; then
  echo "no container wrote a class list" >&2
  exit 1
fi
out=integration-tests/src/main/resources/cds/containers.classlist
mkdir -p "$(dirname "$out")"
# Lines are "name id: N ..." or "@..." (lambda and constant-pool records of one JVM): keep names.
cat "$lists"/*.classlist | grep -v '^[@#]' | awk '{print $1}' | LC_ALL=C sort -u > "$out"
echo "$out: $(wc -l < "$out") classes from $count containers"
