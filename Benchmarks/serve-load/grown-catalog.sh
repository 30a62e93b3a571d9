#!/usr/bin/env bash
# A catalog of COUNT photos for the load and latency benchmarks: the shared wild photos and UKBench dev photos
# (265) copied into FOLDER and indexed with faces and prints (people clustered), then every row (photos, faces
# with their embeddings and descriptors, prints, people) copied under new ids and paths until there are COUNT
# photos, the copies' files hard links to the originals (answers name only files as they were indexed, and the
# server serves only those). $CBIR names the build of the tool. Needs sqlite3.
# Usage: bash Benchmarks/serve-load/grown-catalog.sh COUNT DATABASE FOLDER
set -euo pipefail
cd "$(dirname "$0")/../.."
count=$1; db=$2; folder=$3
cbir=${CBIR:-.build/release/cbir}
mkdir -p "$folder"
cp -r ../shared/datasets/wild-photos ../shared/datasets/ukbench-dev "$folder/"
log=$(mktemp)
"$cbir" index "$folder" --db "$db" >"$log" 2>&1 || { cat "$log"; exit 1; }
rm -f "$log"
copy=0
while [ "$(sqlite3 "$db" 'SELECT COUNT(*) FROM images')" -lt "$count" ]; do
  copy=$((copy + 1)); offset=$((copy * 1000000))
  sqlite3 "$db" "
    BEGIN;
    INSERT INTO images SELECT id + $offset, path || '#$copy', size, modified, hash, width, height, status, error
      FROM images WHERE id < 1000000;
    INSERT INTO persons SELECT id + $offset, name || ' $copy', hidden FROM persons WHERE id < 1000000;
    INSERT INTO faces SELECT id + $offset, image_id + $offset, x, y, width, height, angle, left_eye_x, left_eye_y,
      right_eye_x, right_eye_y, neighbours, thumbnail, person_id + $offset, assignment FROM faces WHERE id < 1000000;
    INSERT INTO face_embeddings SELECT face_id + $offset, embedding FROM face_embeddings WHERE face_id < 1000000;
    INSERT INTO face_descriptors SELECT face_id + $offset, parameters, descriptor FROM face_descriptors
      WHERE face_id < 1000000;
    INSERT INTO photo_prints SELECT image_id + $offset, print, hash, sharpness, classes FROM photo_prints
      WHERE image_id < 1000000;
    COMMIT;"
done
sqlite3 "$db" "SELECT path FROM images WHERE id < 1000000 AND status = 'indexed'" | while IFS= read -r path; do
  for c in $(seq "$copy"); do ln -f "$path" "$path#$c"; done
done
