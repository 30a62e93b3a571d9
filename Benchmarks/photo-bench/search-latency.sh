#!/usr/bin/env bash
# How long `cbir similar`, `cbir search` and `cbir query` take in a fresh process on a catalog of COUNT photos
# (default 10,000; Benchmarks/serve-load/grown-catalog.sh makes it): p50 and p99 of RUNS new processes (default
# 20) asking `similar` for a photo in the catalog (its stored print) and for one outside it (decoded and printed
# first, the model loaded), `search` for a word (WordNet read, every photo's classes scored), and `query` for a
# face of a photo outside it (found, aligned, embedded, then searched). On the SQLite file, and with a PostgreSQL
# URL (an empty database; `cbir copy` fills it) also on PostgreSQL twice: exact (every vector on the device, as
# on SQLite: FACESEARCH_EXACT_SEARCH above the catalog's size) and through its HNSW indexes
# (FACESEARCH_EXACT_SEARCH=0). A first process of each writes the galleries' cache files. Needs a release build
# and sqlite3; $CBIR names another build of the tool.
# Usage: bash Benchmarks/photo-bench/search-latency.sh [COUNT] [RUNS] [postgres://user@host:port/database]
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-10000}; runs=${2:-20}; url=${3:-}
cbir=${CBIR:-.build/release/cbir}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
db=$work/photos.sqlite
bash Benchmarks/serve-load/grown-catalog.sh "$count" "$db" "$work/photos"
read -r photos faces < <(sqlite3 -separator ' ' "$db" "SELECT (SELECT COUNT(*) FROM images), (SELECT COUNT(*) FROM faces)")
inside=$work/photos/ukbench-dev/ukbench00000.jpg; outside=../shared/datasets/wild-photos/test/obama1.jpg
if [ -n "$url" ]; then "$cbir" copy --from "$db" --to "$url" >/dev/null; fi

# p50 and p99 in milliseconds of RUNS fresh processes of `cbir ARGUMENTS --db CATALOG`, after one that is not
# counted, with the environment's FACESEARCH_EXACT_SEARCH.
percentiles() {
  "$cbir" "$@" >/dev/null
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$cbir" "$@" >/dev/null
    echo $(( ($(date +%s%N) - start) / 1000000 ))
  done | sort -n | awk '{ a[NR] = $1 } END { printf "%d | %d", a[int(NR * 0.5 + 0.5)], a[int(NR * 0.99 + 0.5)] }'
}
rows() {
  local store=$1 catalog=$2
  echo "| $store | similar: a photo in the catalog | $(percentiles similar "$inside" --top 10 --db "$catalog") |"
  echo "| $store | similar: a photo outside it | $(percentiles similar "$outside" --top 10 --db "$catalog") |"
  echo "| $store | search: a word (dog) | $(percentiles search dog --top 10 --db "$catalog") |"
  echo "| $store | query: a face outside it | $(percentiles query "$outside" --top 10 --db "$catalog") |"
}
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "Catalog: $photos photos, $faces faces; $runs fresh processes a row"
echo
echo "| store | search | p50 ms | p99 ms |"
echo "|---|---|---:|---:|"
rows SQLite "$db"
if [ -n "$url" ]; then
  (export FACESEARCH_EXACT_SEARCH=$((photos + faces)); rows "PostgreSQL, exact" "$url")
  (export FACESEARCH_EXACT_SEARCH=0; rows "PostgreSQL, HNSW" "$url")
fi
