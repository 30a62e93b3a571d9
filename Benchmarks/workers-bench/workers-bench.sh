#!/usr/bin/env bash
# Indexing one folder with 1, 2 and 3 `cbir index` workers that share a PostgreSQL catalog (the queue of batches
# they claim under leases), against one process on SQLite: photos a second, and what the catalog on PostgreSQL
# with its queue costs a batch. Each worker is a process of its own, as if on a machine of its own
# (FACESEARCH_MACHINE), but every one runs on this machine's cores: more workers share the same cores, so the
# figures say what the sharing costs, not what more machines would gain. The last column is the time beyond one
# process on SQLite, a batch: with one worker, what the server's round trips and the queue (a claim, a lease
# renewed every 5 s, the done mark) cost. The folder: the first PHOTOS files (default 1,000) of the shared UKBench
# dev and val, wild photos, caltech-dev and glint-24, linked into a folder of their own. Each run indexes it
# afresh with every variant, turn about; medians of RUNS runs (default 3). Run as root, it also runs the workers
# across hosts: the server and each worker on a test host of its own (scripts/hosts.sh: network namespaces, each
# with its own network stack, joined by a bridge), so that every round trip crosses a network as between machines
# (still on these cores). Needs a release build of cbir and the test PostgreSQL server (bash scripts/postgres.sh
# start).
# Usage: bash Benchmarks/workers-bench/workers-bench.sh [PHOTOS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
photos=${1:-1000}; runs=${2:-3}
cbir=${CBIR:-.build/release/cbir}
shared=../shared/datasets
[[ -x $cbir ]] || { echo "workers-bench: no $cbir (swift build -c release --product cbir)" >&2; exit 1; }
[[ -d $shared/ukbench-dev ]] || { echo "workers-bench: the shared datasets are missing ($shared)" >&2; exit 1; }
if ! bash scripts/postgres.sh status >/dev/null; then
    echo "workers-bench: no PostgreSQL server runs (bash scripts/postgres.sh start)" >&2
    exit 1
fi
export PGPASSFILE=${FACESEARCH_PG_ROOT:-/var/lib/facesearch-postgres}/pgpass
work=$(mktemp -d)
hosted=false
[[ $(id -u) == 0 ]] && hosted=true
worker_hosts=(worker1 worker2 server)
# postgres.sh for the server on the test host primary.
on_primary() {
    env FACESEARCH_PG_INSTANCE=workers-bench FACESEARCH_PG_PORT=54363 FACESEARCH_PG_HOST=10.63.0.1 \
        bash scripts/hosts.sh exec primary bash scripts/postgres.sh "$@"
}
finish() {
    kill $(jobs -p) 2>/dev/null || true
    if $hosted; then
        on_primary stop || true
        bash scripts/hosts.sh down
    fi
    rm -rf "$work"
}
trap finish EXIT
if $hosted; then
    bash scripts/hosts.sh up
    on_primary start >/dev/null
fi

mkdir "$work/photos"
n=0
while IFS= read -r file; do
    n=$((n + 1))
    ln -s "$(realpath "$file")" "$work/photos/$(printf %05d "$n").${file##*.}"
done < <(for set in ukbench-dev ukbench-val wild-photos caltech-dev glint-24; do
    find "$shared/$set" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort
done | head -n "$photos")
batches=$(((n + 7) / 8))

# Seconds for WORKERS processes to index the folder into DB, started together, each on a test host of its own
# where HOSTED is true; checks the queue ended whole.
index() {
    local db=$1 workers=$2 hosted=${3:-false} start end i pids=() on=()
    start=$(date +%s.%N)
    for ((i = 1; i <= workers; i++)); do
        if $hosted; then on=(bash scripts/hosts.sh exec "${worker_hosts[$((i - 1))]}"); fi
        FACESEARCH_MACHINE=worker$i "${on[@]}" "$cbir" index "$work/photos" --db "$db" --device cpu \
            >"$work/worker$i.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        if ! wait "${pids[$i]}"; then
            echo "workers-bench: worker $((i + 1)) failed:" >&2
            tail -3 "$work/worker$((i + 1)).log" >&2
            exit 1
        fi
    done
    end=$(date +%s.%N)
    if [[ $db == postgres://* ]]; then
        $hosted && on=(bash scripts/hosts.sh exec client)
        "${on[@]}" "$cbir" index --status --db "$db" >"$work/status"
        grep -q "batches: $batches done ($n files), 0 claimed, 0 left, 0 failed" "$work/status" ||
            { echo "workers-bench: the queue did not end whole:" >&2; cat "$work/status" >&2; exit 1; }
    fi
    echo "$end - $start" | bc
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A seconds
for ((run = 1; run <= runs; run++)); do
    rm -f "$work"/alone.sqlite*
    seconds[sqlite]+="$(index "$work/alone.sqlite" 1) "
    for workers in 1 2 3; do
        db=$(bash scripts/postgres.sh database "workers_bench_$workers")
        seconds[$workers]+="$(index "$db" "$workers") "
        if $hosted; then
            db=$(on_primary database "workers_bench_$workers")
            seconds[hosts$workers]+="$(index "$db" "$workers" true) "
        fi
    done
done

echo "workers-bench: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $n photos, $batches batches of 8;" \
    "medians of $runs runs; every worker on these cores"
sqlite=$(tr ' ' '\n' <<<"${seconds[sqlite]}" | grep . | median)
echo
echo "| catalog | workers | seconds | photos/s | against SQLite alone | more than SQLite alone, ms a batch |"
echo "|---|---:|---:|---:|---:|---:|"
printf '| SQLite | 1 | %.1f | %.1f | 1.00 | |\n' "$sqlite" "$(echo "$n / $sqlite" | bc -l)"
variants=(1 2 3)
$hosted && variants+=(hosts1 hosts2 hosts3)
for variant in "${variants[@]}"; do
    s=$(tr ' ' '\n' <<<"${seconds[$variant]}" | grep . | median)
    where="PostgreSQL"
    [[ $variant == hosts* ]] && where="PostgreSQL, each on a host"
    printf '| %s | %d | %.1f | %.1f | %.2f | %.0f |\n' "$where" "${variant#hosts}" "$s" "$(echo "$n / $s" | bc -l)" \
        "$(echo "$sqlite / $s" | bc -l)" "$(echo "($s - $sqlite) * 1000 / $batches" | bc -l)"
done
