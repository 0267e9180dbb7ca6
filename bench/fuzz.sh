#!/usr/bin/env bash
# fuzz.sh — coverage-guided fuzzing of every parser and decoder (Jazzer, the @FuzzTest methods of
# the *FuzzTest classes), one target after another.
#
# Usage: bench/fuzz.sh [MINUTES] [FILTER]
#   MINUTES  per target (default 2; a decimal such as 0.5 works): each target fuzzes this long
#   FILTER   only targets whose Class#method contains it (e.g. Superblock, nbd)
# Env:   FUZZ_HEAP=512m   the test JVM's heap while fuzzing: an allocation that a fuzzed length
#                         asks for fails as OutOfMemoryError (a finding) rather than fitting
#
# What it does, per target (JAZZER_FUZZ=1, JAZZER_MAX_DURATION=MINUTES):
#   runs `mvn -pl MODULE -am test -Dtest=Class#method`: Jazzer starts from the target's seeds
#   (src/test/resources/<package>/<Class>Inputs/<method>/) and what earlier runs found in
#   MODULE/.cifuzz-corpus/ (kept between runs, not in git), instrumenting for coverage.
#   A finding (an input that breaks the target's invariant: another exception than the parser's
#   documented ones, an allocation past its bound, a hang past the @Timeout) stops the target and
#   is saved by Jazzer as crash-<sha1> in the seeds directory: commit it with the fix, and plain
#   `mvn test` (bin/test) replays it from then on.
# Prints one line per target: executions, coverage (libFuzzer's cov: edges, ft: features), corpus
# size, findings; and the log's path. Exits 1 when any target had a finding.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bin/lib.sh
. "$ROOT/bin/lib.sh"
JAVA_HOME=$(jverity_find_jdk) || exit 1
export JAVA_HOME

MINUTES=${1:-2}
FILTER=${2:-}
SECONDS_PER_TARGET=$(awk -v m="$MINUTES" 'BEGIN { s = int(m * 60); print (s < 5 ? 5 : s) }')
LOGS=$ROOT/target/fuzz
mkdir -p "$LOGS"

# Every @FuzzTest: module, class, method (the method is the first `void name(` after the mark).
targets() {
  local f
  grep -rl --include='*FuzzTest.java' '@FuzzTest' "$ROOT"/jverity-*/src/test/java | sort | while read -r f; do
    local rel=${f#"$ROOT"/} module class
    module=${rel%%/*}
    class=$(basename "$f" .java)
    awk '/@FuzzTest/ { mark = 1 } mark && match($0, /void [A-Za-z0-9_]+\(/) {
           print substr($0, RSTART + 5, RLENGTH - 6); mark = 0 }' "$f" |
      while read -r method; do
        echo "$module $class $method ${rel%.java}"
      done
  done
}

echo "fuzz: $SECONDS_PER_TARGET s per target, heap ${FUZZ_HEAP:-512m}; logs in $LOGS"
printf '%-52s %12s %8s %8s %8s %s\n' target executions cov ft corpus findings
found=0
while read -r module class method source; do
  [[ "$module/$class#$method" == *"$FILTER"* ]] || continue
  package=$(sed -n 's/^package \(.*\);/\1/p' "$ROOT/$source.java" | tr . /)
  inputs=$ROOT/$module/src/test/resources/$package/${class}Inputs
  before=$(find "$inputs" -name 'crash-*' 2>/dev/null | wc -l)
  log=$LOGS/$class.$method.log
  # Paths in a config file are the operator's to choose: Jazzer's path-traversal sanitizer would
  # report the serve config's file keys doing what they are for.
  JAZZER_FUZZ=1 JAZZER_MAX_DURATION=${SECONDS_PER_TARGET}s \
    JAZZER_DISABLED_HOOKS=com.code_intelligence.jazzer.sanitizers.FilePathTraversal jverity_mvn -pl "$module" -am test \
    -Dtest="$class#$method" -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true \
    -Dtest.heap="${FUZZ_HEAP:-512m}" -Djazzer.hooks=true >"$log" 2>&1 || true
  after=$(find "$inputs" -name 'crash-*' 2>/dev/null | wc -l)
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
  stats=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' | tail -1)
  last=$(grep -oE '^#[0-9]+' "$log" | tail -1)
  read -r _ cov _ ft _ corp <<<"${stats:-- - - - - -}"
  findings=$((after - before))
  if [ "$findings" -eq 0 ] && grep -q 'FuzzTestFindingException' "$log"; then
    findings=1 # reported, but not saved where we looked: the log has the input
  fi
  if [ -z "$runs" ] && [ "$findings" -eq 0 ] && ! grep -q 'BUILD SUCCESS' "$log"; then
    findings="error (see log)"
    found=1
  fi
  [ "$findings" != 0 ] && found=1
  printf '%-52s %12s %8s %8s %8s %s\n' "$class#$method" "${runs:-${last#\#}}" "$cov" "$ft" "$corp" "$findings"
done < <(targets)
exit $found
