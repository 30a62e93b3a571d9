# Sourced by the scripts that test `cbir serve` from outside (browser-test.sh, api-fuzz.sh): builds the tool,
# indexes real photos and a copy of one (so that duplicates show) into a scratch folder, and starts the server
# there on a random loopback port. The photos are the shared wild photos (train/ and misc/: nine people, one
# photo of two) where `../shared/datasets` (or $SHARED_DATASETS) has them, else the sample photos
# scripts/setup.sh fetches (Obama and Biden); with FACESEARCH_REQUIRE_DATASETS set the wild photos must be there.
# Sets `work` (the folder: the photos in photos/, the server's trash under xdg/Trash), `base` (the server's address), `serve_log`, `probe` (a photo of Obama that is not
# indexed) and what the pages must show of those photos: `least_people` (people seen more than once) and
# `framed_photo` (a photo's name and its number of faces), `split_person` (a face of the largest person split off
# into a person of its own) and `lone_faces` (1 where a face in no person lies near the largest person, else 0);
# the server stops and the folder goes when the script exits.
source scripts/built.sh
build_when_stale
cbir="$bin/cbir"
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/photos"
wild="${SHARED_DATASETS:-../shared/datasets}/wild-photos"
samples="${FACESEARCH_SAMPLES:-$HOME/.cache/facesearch/samples}"
if [ -d "$wild" ]; then
  cp -r "$wild/train" "$wild/misc" "$work/photos/"
  cp "$wild/train/biden/biden.jpg" "$work/photos/biden copy.jpg"
  probe="$wild/test/obama1.jpg" least_people=4 framed_photo="two_people.jpg 2" lone_faces=1
elif [ -n "${FACESEARCH_REQUIRE_DATASETS:-}" ]; then
  echo "test-server: FACESEARCH_REQUIRE_DATASETS is set, and $wild is missing" >&2
  exit 1
else
  echo "test-server: $wild is missing: serving the sample photos instead" >&2
  cp "$samples"/gallery/* "$work/photos/"
  cp "$samples/gallery/biden.jpg" "$work/photos/biden copy.jpg"
  probe="$samples/probe/obama3.jpg" least_people=2 framed_photo="obama.jpg 1" lone_faces=0
fi
"$cbir" index "$work/photos" --db "$work/cbir.sqlite" >"$work/index.log" 2>&1 || { cat "$work/index.log"; exit 1; }
# The largest person's largest face split off by hand into a person of its own, as clustering sometimes leaves one
# person in two: that person's page must suggest merging it back.
largest_face=$("$cbir" people --json --db "$work/cbir.sqlite" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["representative"])')
split_person=$("$cbir" people split "$largest_face" --db "$work/cbir.sqlite" | sed -n 's/^person \([0-9]*\):.*/\1/p')
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
serve_log="$work/serve.log"
# The server's trash (where the duplicates page's cleanup moves copies) is the scratch folder's own.
XDG_DATA_HOME="$work/xdg" "$cbir" serve --db "$work/cbir.sqlite" --port "$port" 2>"$serve_log" &
server=$!
for _ in $(seq 50); do curl -sf "$base/api/stats" >/dev/null && break; sleep 0.2; done
