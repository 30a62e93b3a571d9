"""BlazeFace's outputs for the parity tests (run by scripts/blazeface-reference.sh inside a throw-away venv).

raw: each model's two outputs for inputs the tests build exactly the same way: photos losslessly decoded
(ORL's PGMs, a PNG) pasted unscaled at given places on a black square the model's size, each pixel v
fed as v / 127.5 - 1. All scores are kept (little-endian float32, base64); the 16 regressors only of
the highest-scoring anchors.
detections: MediaPipe's face detection solution (its letterbox, anchors, decoding and weighted
non-maximum suppression) on the shared wild photos: each face's box and 6 keypoints in pixels.
"""
import base64, json, os, sys
import numpy as np
from PIL import Image, ImageOps
from ai_edge_litert.interpreter import Interpreter, OpResolverType
import ai_edge_litert, mediapipe as mp

models, datasets, out = sys.argv[1:4]
MODELS = {"short": ("face_detection_short_range.tflite", 128, 0), "full": ("face_detection_full_range_sparse.tflite", 192, 1)}
# (photo, crop [x, y, width, height] of the photo, where its top-left lands on the input)
RAW = {
    "short": [[("orl/s1/1.pgm", [0, 0, 92, 112], [18, 8])],
              [("wild-photos/misc/lin-manuel-miranda.png", [300, 60, 128, 128], [0, 0])]],
    "full": [[("orl/s1/1.pgm", [0, 0, 92, 112], [4, 40]), ("orl/s2/1.pgm", [0, 0, 92, 112], [96, 40])],
             [("wild-photos/misc/lin-manuel-miranda.png", [250, 20, 192, 192], [0, 0])]],
}
TOP = 24

def read(photo):
    return np.array(ImageOps.exif_transpose(Image.open(os.path.join(datasets, photo))).convert("RGB"))

def b64(values):
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode()

raw = []
for name, (file, size, _) in MODELS.items():
    interpreter = Interpreter(model_path=os.path.join(models, file),
                              experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    for pastes in RAW[name]:
        canvas = np.zeros((size, size, 3), np.uint8)
        for photo, (x, y, w, h), (px, py) in pastes:
            canvas[py:py + h, px:px + w] = read(photo)[y:y + h, x:x + w]
        interpreter.set_tensor(interpreter.get_input_details()[0]["index"], (canvas.astype(np.float32) / 127.5 - 1)[None])
        interpreter.invoke()
        outputs = {d["shape"][2]: interpreter.get_tensor(d["index"])[0] for d in interpreter.get_output_details()}
        scores, regressors = outputs[1][:, 0], outputs[16]
        top = [int(i) for i in np.argsort(-scores)[:TOP]]
        raw.append({"model": name, "pastes": [{"photo": p, "crop": c, "at": a} for p, c, a in pastes],
                    "scores": b64(scores), "top": top, "regressors": [[round(float(v), 5) for v in regressors[i]] for i in top]})

photos = sorted(os.path.relpath(os.path.join(root, f), datasets)
                for root, _, files in os.walk(os.path.join(datasets, "wild-photos")) for f in files)
detections = []
for name, (_, _, selection) in MODELS.items():
    with mp.solutions.face_detection.FaceDetection(model_selection=selection, min_detection_confidence=0.5) as detector:
        for photo in photos:
            image = read(photo)
            height, width = image.shape[:2]
            faces = []
            for d in detector.process(image).detections or []:
                box = d.location_data.relative_bounding_box
                faces.append({"score": round(float(d.score[0]), 4),
                              "box": [round(v, 2) for v in (box.xmin * width, box.ymin * height, box.width * width, box.height * height)],
                              "keypoints": [[round(k.x * width, 2), round(k.y * height, 2)] for k in d.location_data.relative_keypoints]})
            detections.append({"model": name, "photo": photo, "width": width, "height": height, "faces": faces})

with open(os.path.join(out, "blazeface-reference.json"), "w") as f:
    json.dump({"litert": ai_edge_litert.__version__ if hasattr(ai_edge_litert, "__version__") else "2.3.0",
               "mediapipe": mp.__version__, "raw": raw, "detections": detections}, f, indent=1)
print("%d raw cases, %d faces in %d photos" % (len(raw), sum(len(d["faces"]) for d in detections), len(photos)))
