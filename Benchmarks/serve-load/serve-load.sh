#!/usr/bin/env bash
# `cbir serve` under load on loopback: requests per second and p50/p99 latency (wrk) for the people page and
# API, photo pages, similar photos, photos found by a word and search by upload of a 640×480 JPEG, on a database
# of COUNT photos (default 10,000); then the server's memory over a mixed run of MINUTES (default 5).
#
# The database: the shared wild photos and UKBench photos (265) indexed with faces and prints, their rows copied
# until there are COUNT photos (grown-catalog.sh). $CBIR names another build of the tool.
# wrk runs one thread, so that the load generator leaves the server at least one of the two cores. Needs a
# release build, wrk and sqlite3 (Debian) and ImageMagick's convert (installed when missing).
# With a PostgreSQL URL (an empty database), the catalog is copied there (`cbir copy`) and served from it.
# Usage: bash Benchmarks/serve-load/serve-load.sh [COUNT] [SECONDS per endpoint] [MINUTES] [postgres://…]
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-10000}; seconds=${2:-20}; minutes=${3:-5}; url=${4:-}
bash scripts/install-packages.sh wrk sqlite3 imagemagick
cbir=${CBIR:-.build/release/cbir}
work=$(mktemp -d); server=""
# The server ends before its files go: a search running then would find every photo gone.
trap '[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server"; rm -rf "$work"' EXIT
db=$work/load.sqlite
bash Benchmarks/serve-load/grown-catalog.sh "$count" "$db" "$work/photos"
read -r images faces people printed < <(sqlite3 -separator ' ' "$db" \
  "SELECT (SELECT COUNT(*) FROM images), (SELECT COUNT(*) FROM faces), (SELECT COUNT(*) FROM persons),
   (SELECT COUNT(*) FROM photo_prints)")
convert ../shared/datasets/wild-photos/misc/obama-1080p.jpg -resize 640x480^ -gravity center -extent 640x480 \
  -quality 90 "$work/probe.jpg"

served=$db
if [ -n "$url" ]; then "$cbir" copy --from "$db" --to "$url" >/dev/null; served=$url; fi

port=$((20000 + RANDOM % 20000)); base="http://127.0.0.1:$port"
"$cbir" serve --db "$served" --port "$port" 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do curl -sf "$base/api/stats" >/dev/null && break; sleep 0.2; done

# Photo ids to ask for, spread over the copies; a Lua script per kind of request.
sqlite3 "$db" "SELECT id FROM images ORDER BY random() LIMIT 500" | paste -sd, > "$work/ids"
lua() {
  cat > "$work/$1.lua" <<LUA
local ids = {$(cat "$work/ids")}
local kind = "$1"
local file = io.open("$work/probe.jpg", "rb"); local probe = file:read("*all"); file:close()
local pages = $(( (people + 59) / 60 ))
local words = {"dog", "car", "sunflower", "chair", "suit", "bottle", "dog beach", "umbrella"}
local n = 0
request = function()
  n = n + 1
  local id = ids[math.random(#ids)]
  local k = kind
  if k == "mixed" then k = ({"people", "photo", "similar", "people-api", "photo", "similar", "people", "search"})[n % 8 + 1] end
  if k == "people" then return wrk.format("GET", "/people?page=" .. (n % pages + 1)) end
  if k == "people-api" then return wrk.format("GET", "/api/people?page=" .. (n % pages + 1)) end
  if k == "photo" then return wrk.format("GET", "/photos/" .. id) end
  if k == "similar" then return wrk.format("GET", "/api/photos/" .. id .. "/similar") end
  if k == "words" then return wrk.format("GET", "/api/search?q=" .. words[n % #words + 1]:gsub(" ", "%%20")) end
  return wrk.format("POST", "/api/search", {["Content-Type"] = "image/jpeg"}, probe)
end
LUA
}
for kind in people people-api photo similar words search mixed; do lua "$kind"; done
# Warm up: the galleries read, the models loaded, the programs built.
for kind in people photo similar words search; do wrk -t1 -c1 -d2s -s "$work/$kind.lua" "$base" >/dev/null; done

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); loopback, wrk ${seconds} s a row"
echo "Database: $images photos, $faces faces, $people people, $printed prints; store: $([ -n "$url" ] && echo PostgreSQL || echo SQLite)"
echo
echo "| request | connections | requests/s | p50 ms | p99 ms | errors |"
echo "|---|---:|---:|---:|---:|---:|"
# One row: wrk's rate and latency percentiles, and non-2xx answers plus socket errors.
measure() {
  local kind=$1 connections=$2
  wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$work/$kind.lua" "$base" > "$work/out"
  awk -v kind="$kind" -v c="$connections" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) } /^Requests\/sec/ { rate = $2 }
    /Non-2xx/ { errors += $NF } /Socket errors/ { gsub(/,/, ""); errors += $4 + $6 + $8 + $10 }
    END { printf "| %s | %d | %.1f | %.1f | %.1f | %d |\n", kind, c, rate, p50, p99, errors }' "$work/out"
}
measure people 16; measure people-api 16; measure photo 16; measure photo 4; measure similar 16; measure similar 4
measure words 16; measure words 4; measure search 1; measure search 4

rss() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$server/status"; }
echo
start=$(rss); peak=$start; samples="$start"
wrk -t1 -c16 -d"${minutes}m" --latency -s "$work/mixed.lua" "$base" > "$work/mixed.out" &
load=$!
while kill -0 "$load" 2>/dev/null; do
  sleep 15; now=$(rss); samples="$samples $now"; [ "$now" -gt "$peak" ] && peak=$now
done
wait "$load"
end=$(rss)
errors=$(awk '/Non-2xx/ { e += $NF } END { print e + 0 }' "$work/mixed.out")
echo "Memory over ${minutes} min of mixed requests at 16 connections ($(awk '/^Requests\/sec/ { print $2 }' \
  "$work/mixed.out") requests/s, $errors errors): RSS $start MB after warm-up, peak $peak MB, $end MB at the end"
echo "RSS every 15 s (MB): $samples"
