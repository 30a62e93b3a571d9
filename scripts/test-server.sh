# Sourced by the scripts that test `cbir serve` from outside (browser-test.sh, api-fuzz.sh): builds the tool,
# indexes the shared wild photos and a copy of one (so that duplicates show) into a scratch folder, and starts
# the server there on a random loopback port. Sets `work` (the folder), `base` (the server's address) and
# `serve_log`; the server stops and the folder goes when the script exits.
# Built as the README's test command builds, and only where a source is newer than the tool: `swift test` leaves
# SwiftPM's plan out of date (its plugins run again), so a build after the tests would recompile and relink for
# a minute and a half with nothing changed.
cbir="$(swift build -c release --show-bin-path)/cbir"
if [[ ! -x $cbir ]] || [[ -n $(find Sources Package.swift -newer "$cbir" -print -quit) ]]; then
  swift build -c release --product FaceSearchPackageTests >/dev/null 2>&1 || swift build -c release --product FaceSearchPackageTests
fi
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/photos"
cp -r ../shared/datasets/wild-photos/train ../shared/datasets/wild-photos/misc "$work/photos/"
cp ../shared/datasets/wild-photos/train/biden/biden.jpg "$work/photos/biden copy.jpg"
"$cbir" index "$work/photos" --db "$work/cbir.sqlite" >"$work/index.log" 2>&1 || { cat "$work/index.log"; exit 1; }
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
serve_log="$work/serve.log"
"$cbir" serve --db "$work/cbir.sqlite" --port "$port" 2>"$serve_log" &
server=$!
for _ in $(seq 50); do curl -sf "$base/api/stats" >/dev/null && break; sleep 0.2; done
