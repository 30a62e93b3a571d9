#!/usr/bin/env bash
# How long `cbir similar` takes in a fresh process on an index of COUNT printed photos (default 10,000):
# the UKBench dev photos indexed (prints only), then their rows copied under new paths until there are COUNT;
# the median of RUNS new processes (default 5) asking for one photo in the index (its stored print) and for
# one outside it (decoded and printed first, the model loaded). The copies' files are hard links to the
# originals: `similar` answers only with files as they were indexed. Needs a release build and the sqlite3
# tool; $CBIR names another build of the tool (an older one, to compare).
# Usage: bash Benchmarks/photo-bench/similar-latency.sh [COUNT] [RUNS] [--device cpu|opencl|auto]
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-10000}; runs=${2:-5}; device=${3:-auto}
photos=$(mktemp -d)
cp -r ../shared/datasets/ukbench-dev/. "$photos/"
cbir=${CBIR:-.build/release/cbir}
work=$(mktemp -d); trap 'rm -rf "$work" "$photos"' EXIT
db=$work/photos.sqlite
"$cbir" index "$photos" --no-faces --db "$db" >/dev/null 2>&1
copy=0
while [ "$(sqlite3 "$db" 'SELECT COUNT(*) FROM photo_prints')" -lt "$count" ]; do
  copy=$((copy + 1))
  sqlite3 "$db" "
    INSERT INTO images (path, size, modified, hash, width, height, status, error)
      SELECT path || '#$copy', size, modified, hash, width, height, status, error FROM images
      WHERE path NOT LIKE '%#%';
    INSERT INTO photo_prints (image_id, print, hash, sharpness)
      SELECT c.id, p.print, p.hash, p.sharpness FROM photo_prints p JOIN images o ON o.id = p.image_id
      JOIN images c ON c.path = o.path || '#$copy' WHERE o.path NOT LIKE '%#%';"
done
sqlite3 "$db" "SELECT path FROM images WHERE path NOT LIKE '%#%'" | while IFS= read -r path; do
  for c in $(seq "$copy"); do ln -f "$path" "$path#$c"; done
done
printed=$(sqlite3 "$db" 'SELECT COUNT(*) FROM photo_prints')
# The median of RUNS fresh processes' wall-clock seconds for `cbir similar QUERY`.
median() {
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$cbir" similar "$1" --top 10 --db "$db" --device "$device" >/dev/null
    echo $(( ($(date +%s%N) - start) / 1000000 ))
  done | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] / 1000 }'
}
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); device $device"
echo "| printed photos | query | seconds (median of $runs fresh processes) |"
echo "|---:|---|---:|"
echo "| $printed | indexed photo (stored print) | $(median "$photos/ukbench00000.jpg") |"
echo "| $printed | photo outside the index (printed first) | $(median ../shared/datasets/wild-photos/test/obama1.jpg) |"
