"""dlib's outputs for the parity tests (run by scripts/dlib-reference.sh inside a throw-away venv).

For each photo: dlib's HOG detections (upsampled once, as face_recognition does; the whole image when it
finds none), the 5 landmarks of shape_predictor_5_face_landmarks.dat in each box, the 150x150 chip of
get_face_chip (padding 0.25) and the descriptor of dlib_face_recognition_resnet_model_v1.dat. Photos are
read as the project's decoder reads them: EXIF orientation applied, converted to RGB.
"""
import json, os, sys
import dlib, numpy as np
from PIL import Image, ImageOps

models, datasets, out = sys.argv[1:4]
photos = ["wild-photos/" + p for p in [
    "train/alex_lacamoire/img1.jpg", "train/biden/biden.jpg", "train/biden/biden2.jpg",
    "train/kit_harington/john1.jpeg", "train/kit_harington/john2.jpeg", "train/obama/obama.jpg",
    "train/obama/obama2.jpg", "train/rose_leslie/img1.jpg", "train/rose_leslie/img2.jpg",
    "test/alex_lacamoire1.jpg", "test/johnsnow_test1.jpg", "test/kit_with_rose.jpg", "test/obama1.jpg",
    "test/obama_and_biden.jpg", "misc/obama_partial_face.jpg"]] + ["orl/s%d/1.pgm" % s for s in (1, 2, 3, 4)]
chip_faces = {"wild-photos/test/obama1.jpg", "wild-photos/misc/obama_partial_face.jpg", "orl/s1/1.pgm"}

detector = dlib.get_frontal_face_detector()
predictor = dlib.shape_predictor(os.path.join(models, "shape_predictor_5_face_landmarks.dat"))
encoder = dlib.face_recognition_model_v1(os.path.join(models, "dlib_face_recognition_resnet_model_v1.dat"))
os.makedirs(os.path.join(out, "dlib-chips"), exist_ok=True)

faces = []
for photo in photos:
    image = np.array(ImageOps.exif_transpose(Image.open(os.path.join(datasets, photo))).convert("RGB"))
    boxes = list(detector(image, 1)) or [dlib.rectangle(0, 0, image.shape[1] - 1, image.shape[0] - 1)]
    for index, box in enumerate(boxes):
        shape = predictor(image, box)
        chip = dlib.get_face_chip(image, shape, size=150, padding=0.25)
        face = {
            "photo": photo, "width": int(image.shape[1]), "height": int(image.shape[0]),
            "box": [box.left(), box.top(), box.right(), box.bottom()],
            "landmarks": [[shape.part(i).x, shape.part(i).y] for i in range(5)],
            "descriptor": [round(float(v), 7) for v in encoder.compute_face_descriptor(image, shape)],
        }
        if photo in chip_faces and index == 0:
            face["chip"] = "dlib-chips/" + photo.replace("/", "-").rsplit(".", 1)[0] + ".png"
            Image.fromarray(chip).save(os.path.join(out, face["chip"]), optimize=True)
        faces.append(face)

with open(os.path.join(out, "dlib-reference.json"), "w") as f:
    json.dump({"dlib": dlib.__version__, "faces": faces}, f, indent=1)
print("%d faces from %d photos" % (len(faces), len(photos)))
