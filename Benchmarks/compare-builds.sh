#!/usr/bin/env bash
# A before-and-after in one sitting: runs a product (a benchmark, or cbir) built from an older commit and
# from the working tree alternately, RUNS times each, with the same arguments, from the project root. The
# machine's speed drifts by 10–50 % within minutes (RESULTS.md), so only runs taken turn about compare.
# Each build keeps its own device calibration file; each run's output is kept; the table gives each run's
# wall-clock seconds and exit status, then each build's median.
# Usage: bash Benchmarks/compare-builds.sh [--runs N] [--out DIR] REV PRODUCT [ARGUMENTS...]
#   REV is built in a worktree under $TMPDIR/compare-builds/ (kept for later calls; `git worktree prune`
#   after removing it). The working tree's PRODUCT is built with `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 out=""
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: bash Benchmarks/compare-builds.sh [--runs N] [--out DIR] REV PRODUCT [ARGUMENTS...]" >&2
  exit 64
fi
rev=$(git rev-parse --short "$1^{commit}") product=$2
shift 2
old=${TMPDIR:-/tmp}/compare-builds/$rev
[ -d "$old/tree" ] || git worktree add --force --detach "$old/tree" "$rev" >&2
(cd "$old/tree" && swift build -c release --product "$product" --scratch-path "$old/build") >&2
swift build -c release --product "$product" >&2
new=$(git describe --always --dirty)
[ "$new" != "$rev" ] || new=$new-working
out=${out:-$(mktemp -d)}
mkdir -p "$out/calibration-$rev" "$out/calibration-$new"
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $product $*"
echo
echo "| run | build | seconds | exit |"
echo "|---:|---|---:|---:|"
for run in $(seq "$runs"); do
  for build in "$rev" "$new"; do
    binary=.build/release/$product
    [ "$build" = "$rev" ] && binary=$old/build/release/$product
    start=$(date +%s%N) status=0
    FACESEARCH_CACHE=$out/calibration-$build "$binary" "$@" >"$out/$build-$run.txt" 2>"$out/$build-$run.err" || status=$?
    seconds=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "$build $seconds" >>"$out/seconds"
    printf '| %d | %s | %d.%03d | %d |\n' "$run" "$build" $((seconds / 1000)) $((seconds % 1000)) "$status"
  done
done
echo
for build in "$rev" "$new"; do
  grep "^$build " "$out/seconds" | cut -d' ' -f2 | sort -n |
    awk -v build="$build" '{ a[NR] = $1 } END { printf "%s: median %.3f s\n", build, a[int((NR + 1) / 2)] / 1000 }'
done
echo "Outputs: $out/<build>-<run>.txt"
