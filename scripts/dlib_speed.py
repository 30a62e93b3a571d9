"""Faces per second of dlib itself (5 landmarks + 128-d descriptor, one face at a time) on the ORL images,
the whole image as the face box: nbnn-bench compares it with our kernels in the same run."""
import os, sys, time
import dlib, numpy as np
from PIL import Image

models, runs = sys.argv[1], int(sys.argv[2])
datasets = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "datasets", "orl")
predictor = dlib.shape_predictor(os.path.join(models, "shape_predictor_5_face_landmarks.dat"))
encoder = dlib.face_recognition_model_v1(os.path.join(models, "dlib_face_recognition_resnet_model_v1.dat"))
images = [np.array(Image.open(os.path.join(datasets, "s%d" % s, "%d.pgm" % i)).convert("RGB")) for s in range(1, 5) for i in range(1, 9)]

def once():
    for image in images:
        box = dlib.rectangle(0, 0, image.shape[1] - 1, image.shape[0] - 1)
        encoder.compute_face_descriptor(image, predictor(image, box))

once()
times = []
for _ in range(max(1, runs)):
    start = time.perf_counter()
    once()
    times.append(time.perf_counter() - start)
print(len(images) / sorted(times)[len(times) // 2])
