#!/usr/bin/env bash
# Every test, in order: the code's habits (lint.sh), the build of the tests and the tool, the API documentation
# (docs.sh: DocC, no warning allowed), the tests, the web page in a real browser (browser-test.sh) and the JSON
# API fuzzed (api-fuzz.sh with 25 cases an operation). The last line says how many tests passed and how many were
# skipped for want of which shared dataset.
# - A compiler warning in the project's own code (Sources, Tests, Benchmarks, Plugins) fails the build step.
# - Tests that read `../shared/datasets` (or `$SHARED_DATASETS`) skip, naming the dataset, where it is missing;
#   with FACESEARCH_REQUIRE_DATASETS set (CI sets it) they run and fail instead, and any skip fails the run.
# Each step's seconds go to stderr. Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/built.sh
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT
timed() {
  local start=$SECONDS
  "$@"
  echo "test: $* took $((SECONDS - start)) s" >&2
}

build() {
  # The tests' product and the `cbir` they run; not the benchmarks, which the tests never run.
  if ! build_for_tests >"$log/build" 2>&1; then
    cat "$log/build"
    return 1
  fi
  tail -n 1 "$log/build"
  if grep -E "^$PWD/(Sources|Tests|Benchmarks|Plugins)/[^ ]*: warning:" "$log/build" | sort -u | grep .; then
    echo "test: the project's own code has the compiler warnings above" >&2
    return 1
  fi
}

unit_tests() {
  # Swift Testing only: the package has no XCTest cases, whose runner would print an empty run first.
  swift test -c release --skip-build --disable-xctest 2>&1 | tee "$log/tests"
  return "${PIPESTATUS[0]}"
}

timed bash scripts/lint.sh
timed build
timed bash scripts/docs.sh  # before the tests: a build after `swift test` relinks everything (its plugins rerun)
timed unit_tests
timed bash scripts/browser-test.sh
timed bash scripts/api-fuzz.sh 25

total=$(grep -o "Test run with [0-9]* tests" "$log/tests" | grep -o "[0-9]*" || echo 0)
skipped_all=$(grep -c '^➜ Test .* skipped' "$log/tests" || true)
skipped=$(grep -c '^➜ Test .* skipped: "needs the shared dataset' "$log/tests" || true)
by_dataset=$(grep -o '^➜ Test .* skipped: "needs the shared datasets\? [^"]* in' "$log/tests" \
  | sed -E 's/.*needs the shared datasets? (.*) in$/\1/' | sort | uniq -c | sort -rn \
  | awk '{ count = $1; $1 = ""; printf "%s%s %d", (NR > 1 ? "; " : ""), substr($0, 2), count }' || true)
summary="test: all passed: $((total - skipped_all)) of $total tests ran"
if [ "$skipped" -eq 0 ]; then
  summary+=", none skipped for want of a shared dataset"
else
  summary+="; $skipped skipped for want of a shared dataset ($by_dataset)"
fi
[ "$skipped_all" -eq "$skipped" ] || summary+="; $((skipped_all - skipped)) skipped for other reasons (above)"
echo "$summary"
if [ "$skipped" -gt 0 ] && [ -n "${FACESEARCH_REQUIRE_DATASETS:-}" ]; then
  echo "test: FACESEARCH_REQUIRE_DATASETS is set, and $skipped tests were skipped for want of a dataset" >&2
  exit 1
fi
