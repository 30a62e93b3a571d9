#!/usr/bin/python3
"""OpenCV's own detection times and boxes on the wild photos, for comparison with detect-bench.

Needs Debian's python3-opencv (not installed by scripts/setup.sh; the package does not use it).
Usage: /usr/bin/python3 Benchmarks/detect-bench/opencv-reference.py [--runs 5] [photo ...]
Same parameters as detect-bench's full-size rows: scale 1.1, minNeighbors 5, faces >= 40 px, 2 threads.
"""
import argparse
import os
import time

import cv2

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--datasets", default="../shared/datasets")
parser.add_argument("photos", nargs="*")
args = parser.parse_args()
root = os.path.join(args.datasets, "wild-photos")
photos = args.photos or sorted(
    os.path.relpath(os.path.join(folder, name), root)
    for folder, _, names in os.walk(root) for name in names if name.lower().endswith((".jpg", ".jpeg", ".png")))
cv2.setNumThreads(2)
models = {"HAAR": "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml",
          "LBP": "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml"}
print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads, median of {args.runs} runs after a warm-up\n")
print("| photo | model | faces | OpenCV ms |\n|---|---|---:|---:|")
for photo in photos:
    gray = cv2.imread(os.path.join(root, photo), cv2.IMREAD_GRAYSCALE)
    for name, path in models.items():
        cascade = cv2.CascadeClassifier(path)
        detect = lambda: cascade.detectMultiScale(gray, 1.1, 5, minSize=(40, 40))
        faces = detect()
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            detect()
            times.append(time.perf_counter() - start)
        print(f"| {photo} | {name} | {len(faces)} | {sorted(times)[len(times) // 2] * 1000:.1f} |")
