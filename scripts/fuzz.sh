#!/usr/bin/env bash
# Fuzzes the image decoders with libFuzzer and AddressSanitizer (not part of CI):
#   scripts/fuzz.sh SECONDS [jpeg png pnm exif]
# Each target (all four by default) runs SECONDS, as many at once as there are cores. Seeds are the shared
# photos and ORL faces, shrunk and re-saved by ImageMagick in each format's variants (progressive, gray, CMYK,
# 16-bit, palette, interlaced, text and binary Netpbm, every EXIF orientation). Corpora, logs and findings stay
# in .build-fuzz/ between runs; an input that crashes, hangs or breaks a decoder's promise is saved in
# .build-fuzz/findings/<target>/ and makes the exit status 1. Replay one: .build-fuzz/release/fuzz-<target> FILE
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [jpeg png pnm exif]}
shift
if (($#)); then targets=("$@"); else targets=(jpeg png pnm exif); fi
datasets=../shared/datasets
work=.build-fuzz

bash scripts/setup.sh
command -v /usr/bin/convert >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends imagemagick >/dev/null
}
convert() { /usr/bin/convert -quiet "$@"; }

# Every module the targets reach is instrumented; lld links them (gold fails on the sanitizers' objects).
for target in "${targets[@]}"; do
  FACESEARCH_FUZZ=1 swift build --build-path "$work" -c release -Xswiftc -sanitize=fuzzer,address \
    -Xswiftc -use-ld=lld --product "fuzz-$target"
done

photo="$datasets/wild-photos/misc/obama-240p.jpg"
jpegSeeds() {
  for file in "$datasets"/wild-photos/*/*.jp*g "$datasets"/wild-photos/*/*/*.jp*g; do
    convert "$file" -resize 64x64 "$1/$(basename "${file%.*}")-small.jpg"   # keeps EXIF, orientation included
  done
  local o=1
  for orientation in top-left top-right bottom-right bottom-left left-top right-top right-bottom left-bottom; do
    convert "$photo" -resize 40x24 -orient "$orientation" "$1/orientation-$o.jpg"; o=$((o + 1))
  done
  convert "$photo" -resize 48x48 -interlace JPEG "$1/progressive.jpg"
  convert "$photo" -resize 48x48 -colorspace Gray "$1/gray.jpg"
  convert "$photo" -resize 48x48 -sampling-factor 1x1 -quality 95 "$1/444.jpg"
  convert "$photo" -resize 48x48 -sampling-factor 2x1 "$1/422.jpg"
  convert "$photo" -resize 48x48 -colorspace CMYK "$1/cmyk.jpg"
  convert "$photo" -resize 17x9! -quality 5 "$1/odd-size.jpg"
  convert "$photo" -resize 1x1! "$1/one-pixel.jpg"
}
pngSeeds() {
  for file in "$datasets"/wild-photos/*/*.png; do
    convert "$file" -resize 48x48 "$1/$(basename "${file%.*}")-small.png"
  done
  convert "$photo" -resize 32x32 "PNG24:$1/rgb.png"
  convert "$photo" -resize 32x32 -alpha set -channel A -evaluate set 50% "PNG32:$1/rgba.png"
  convert "$photo" -resize 32x32 -colorspace Gray "PNG:$1/gray.png"
  convert "$photo" -resize 32x32 -colorspace Gray -alpha set -channel A -evaluate set 50% "$1/gray-alpha.png"
  convert "$photo" -resize 32x32 -colors 16 "PNG8:$1/palette.png"
  convert "$photo" -resize 32x32 -transparent white -colors 16 "PNG8:$1/palette-transparent.png"
  convert "$photo" -resize 32x32 -depth 16 "PNG48:$1/rgb16.png"
  convert "$photo" -resize 32x32 -alpha set -depth 16 "PNG64:$1/rgba16.png"
  convert "$photo" -resize 32x32 -interlace PNG "$1/interlaced.png"
  convert "$photo" -resize 17x9! -monochrome "$1/one-bit.png"
}
pnmSeeds() {
  cp "$datasets"/orl/s1/*.pgm "$1/"
  convert "$photo" -resize 24x24 -colorspace Gray -compress none "$1/text.pgm"
  convert "$photo" -resize 24x24 -compress none "$1/text.ppm"
  convert "$photo" -resize 24x24 "$1/binary.ppm"
  convert "$photo" -resize 24x24 -depth 16 "$1/binary16.ppm"
  convert "$photo" -resize 24x24 -colorspace Gray -depth 16 "$1/binary16.pgm"
  convert "$photo" -resize 17x9! -colorspace Gray -depth 16 -compress none "$1/text16.pgm"
}
exifSeeds() { jpegSeeds "$1"; }

running=0
for target in "${targets[@]}"; do
  mkdir -p "$work/seeds/$target" "$work/corpus/$target" "$work/findings/$target" "$work/logs"
  [ -n "$(ls -A "$work/seeds/$target")" ] || "${target}Seeds" "$work/seeds/$target"
  if ((running >= $(nproc))); then wait -n || true; running=$((running - 1)); fi
  echo "fuzz: $target for $seconds s (log: $work/logs/$target.log)" >&2
  (
    start=$SECONDS
    "$work/release/fuzz-$target" "$work/corpus/$target" "$work/seeds/$target" -dict="Tests/Fuzz/dictionaries/$target.dict" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$work/findings/$target/" > "$work/logs/$target.log" 2>&1 || true
    echo $((SECONDS - start)) > "$work/logs/$target.seconds"   # less than asked when a finding stopped it
  ) &
  running=$((running + 1))
done
wait || true

figure() { grep -m1 "stat::$2:" "$work/logs/$1.log" | awk '{print $2}'; }
printf '%-6s %8s %12s %8s %8s %9s\n' target seconds executions exec/s corpus findings
found=0
for target in "${targets[@]}"; do
  findings=$(find "$work/findings/$target" -type f | wc -l)
  found=$((found + findings))
  printf '%-6s %8s %12s %8s %8s %9s\n' "$target" "$(cat "$work/logs/$target.seconds")" "$(figure "$target" number_of_executed_units)" \
    "$(figure "$target" average_exec_per_sec)" "$(find "$work/corpus/$target" -type f | wc -l)" "$findings"
done
((found == 0)) || { echo "fuzz: findings in $work/findings/ (replay: $work/release/fuzz-<target> FILE)" >&2; exit 1; }
