"""EfficientNet-Lite0's outputs for the parity tests (run by scripts/efficientnet-reference.sh in a throw-away venv).

An independent implementation in numpy (float64): the checkpoint read with Python's own pickle module (its
globals mapped to stand-ins, nothing of torch needed), the network written from efficientnet-lite-pytorch's
model.py: stem, 16 MBConv blocks, head, average pool, classifier; batch norm with epsilon 1e-3, ReLU6,
TensorFlow's SAME padding computed for each input size; inputs (x - 127) / 128.

exact: features and logits for inputs the tests build exactly the same way: squares cut from a losslessly
decoded PNG (its RGB channels, alpha dropped), at 224 (the trained size) and at 300 (odd sizes from the
third stride on, so SAME pads both sides there).
photos: UKBench dev photos as the photo print takes them: decoded, shorter side resized to 256 by area
averaging (partial pixels weighted, rounded to uint8), centre 224 cropped; each one's L2-normalised features
and its five most likely ImageNet classes.
tensors: a few tensors' shapes, sums and first values in row-major order, to check the reader.
hashes: the 64-bit DCT perceptual hash of UKBench dev photos: grey (Pillow's "L"), area-resized to 32 x 32
(rounded to uint8; the thumbnail is kept), the 8 x 8 lowest frequencies of its 2-D DCT-II, each bit set where
its coefficient exceeds their median, row-major from the most significant bit.
"""
import base64, io, json, os, pickle, struct, sys
import numpy as np
from PIL import Image, ImageOps

checkpoint, datasets, out = sys.argv[1:4]

# --- the checkpoint: PyTorch's legacy format ---------------------------------------------------------------
class Storage:
    def __init__(self, kind, key, count):
        self.kind, self.key, self.count = kind, key, count

class StateDict(dict):  # an OrderedDict that takes BUILD's attributes (_metadata)
    pass

class Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return StateDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return lambda storage, offset, size, stride, *rest: (storage, offset, size, stride)
        if module == "torch" and name in ("FloatStorage", "LongStorage"):
            return name
        raise pickle.UnpicklingError(f"refused global {module}.{name}")

    def persistent_load(self, pid):
        tag, kind, key, location, count = pid[:5]
        return Storage(kind, key, count)

with open(checkpoint, "rb") as f:
    for _ in range(3):
        pickle.load(f)  # magic number, protocol version, system information
    state = Unpickler(f).load()
    keys = pickle.load(f)
    raw = {}
    dtypes = {v[0].key: (np.float32 if v[0].kind == "FloatStorage" else np.int64) for v in state.values()}
    for key in keys:
        (count,) = struct.unpack("<q", f.read(8))
        raw[key] = np.frombuffer(f.read(count * np.dtype(dtypes[key]).itemsize), dtypes[key])

def tensor(name):
    storage, offset, size, stride = state[name]
    itemsize = raw[storage.key].itemsize
    view = np.lib.stride_tricks.as_strided(raw[storage.key][offset:], shape=size,
                                           strides=[s * itemsize for s in stride])
    return np.array(view, dtype=np.float64)

# --- the network ---------------------------------------------------------------------------------------------
STAGES = [(1, 3, 1, 1, 16), (2, 3, 2, 6, 24), (2, 5, 2, 6, 40), (3, 3, 2, 6, 80), (3, 5, 1, 6, 112),
          (4, 5, 2, 6, 192), (1, 3, 1, 6, 320)]  # repeats, kernel, stride, expansion, out channels

def same_pad(x, k, s):
    size = x.shape[1]
    out = -(-size // s)
    pad = max((out - 1) * s + k - size, 0)
    return np.pad(x, ((0, 0), (pad // 2, pad - pad // 2), (pad // 2, pad - pad // 2))), out

def conv(x, w, s):
    k = w.shape[2]
    x, out = same_pad(x, k, s)
    if w.shape[1] == 1 and w.shape[0] == x.shape[0] and x.shape[0] > 1:  # depthwise
        y = np.zeros((x.shape[0], out, out))
        for dy in range(k):
            for dx in range(k):
                y += w[:, 0, dy, dx][:, None, None] * x[:, dy:dy + s * out:s, dx:dx + s * out:s]
        return y
    cols = np.stack([x[:, dy:dy + s * out:s, dx:dx + s * out:s] for dy in range(k) for dx in range(k)], axis=1)
    return np.einsum("oik,ikyx->oyx", w.reshape(w.shape[0], w.shape[1], k * k),
                     cols.reshape(x.shape[0], k * k, out, out))

def bn(x, prefix, relu6=True):
    scale = tensor(prefix + ".weight") / np.sqrt(tensor(prefix + ".running_var") + 1e-3)
    y = (x - tensor(prefix + ".running_mean")[:, None, None]) * scale[:, None, None] + tensor(prefix + ".bias")[:, None, None]
    return np.clip(y, 0, 6) if relu6 else y

def forward(rgb):
    """rgb: H x W x 3 values 0...255; returns the pooled features and the logits."""
    x = (np.transpose(rgb.astype(np.float64), (2, 0, 1)) - 127) / 128
    x = bn(conv(x, tensor("_conv_stem.weight"), 2), "_bn0")
    block, channels = 0, 32
    for repeats, k, stride, expansion, outc in STAGES:
        for r in range(repeats):
            s = stride if r == 0 else 1
            p = f"_blocks.{block}."
            y = x
            if expansion != 1:
                y = bn(conv(y, tensor(p + "_expand_conv.weight"), 1), p + "_bn0")
            y = bn(conv(y, tensor(p + "_depthwise_conv.weight"), s), p + "_bn1")
            y = bn(conv(y, tensor(p + "_project_conv.weight"), 1), p + "_bn2", relu6=False)
            x = y + x if s == 1 and channels == outc else y
            channels = outc
            block += 1
    x = bn(conv(x, tensor("_conv_head.weight"), 1), "_bn1")
    features = x.mean(axis=(1, 2))
    return features, tensor("_fc.weight") @ features + tensor("_fc.bias")

# --- inputs ------------------------------------------------------------------------------------------------------
def area_resize(image, width, height):
    """Each output pixel the average of the source area under it, partial pixels weighted; rounded to uint8."""
    def weights(n_in, n_out):
        scale, m = n_in / n_out, np.zeros((n_out, n_in))
        for o in range(n_out):
            a, b = o * scale, min((o + 1) * scale, n_in)
            for i in range(int(np.floor(a)), min(int(np.ceil(b)), n_in)):
                m[o, i] = min(i + 1, b) - max(i, a)
            m[o] /= scale
        return m
    rows, cols = weights(image.shape[0], height), weights(image.shape[1], width)
    resized = np.stack([rows @ image[:, :, c].astype(np.float64) @ cols.T for c in range(image.shape[2])], axis=2)
    return np.clip(np.rint(resized), 0, 255).astype(np.uint8)

def photo_input(path, side=256, crop=224):
    image = np.array(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))
    h, w = image.shape[:2]
    if w < h:
        width, height = side, round(h * side / w)
    else:
        width, height = round(w * side / h), side
    resized = area_resize(image, width, height)
    top, left = (height - crop) // 2, (width - crop) // 2
    return resized[top:top + crop, left:left + crop]

def b64(values):
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode()

png = "wild-photos/misc/lin-manuel-miranda.png"
rgb = np.array(Image.open(os.path.join(datasets, png)))[:, :, :3]
exact = []
for x, y, size in [(240, 60, 224), (200, 40, 300)]:
    features, logits = forward(rgb[y:y + size, x:x + size])
    exact.append({"source": png, "x": x, "y": y, "size": size, "features": b64(features), "logits": b64(logits)})
    print(f"exact {size}: top class {int(np.argmax(logits))}", file=sys.stderr)

photos = []
for number in [0, 37, 88, 100, 132, 188]:
    name = f"ukbench-dev/ukbench{number:05d}.jpg"
    features, logits = forward(photo_input(os.path.join(datasets, name)))
    probabilities = np.exp(logits - logits.max())
    probabilities /= probabilities.sum()
    top = np.argsort(-logits)[:5]
    photos.append({"file": name, "print": b64(features / np.linalg.norm(features)),
                   "top5": [int(i) for i in top], "probabilities": [round(float(probabilities[i]), 4) for i in top]})
    print(name, photos[-1]["top5"], photos[-1]["probabilities"], file=sys.stderr)

tensors = [{"name": n, "shape": list(tensor(n).shape), "sum": float(tensor(n).sum()),
            "first": [float(v) for v in tensor(n).reshape(-1)[:5]]}
           for n in ["_conv_stem.weight", "_blocks.3._depthwise_conv.weight", "_bn1.running_var", "_fc.weight",
                     "_blocks.15._bn2.num_batches_tracked"]]
def dct_hash(thumbnail):
    n = thumbnail.shape[0]
    basis = np.cos(np.pi * np.outer(np.arange(8), 2 * np.arange(n) + 1) / (2 * n))  # 8 x n
    low = basis @ thumbnail.astype(np.float64) @ basis.T
    bits = (low > np.median(low)).reshape(-1)
    return "%016x" % int("".join("1" if b else "0" for b in bits), 2)

hashes = []
for number in [0, 1, 37, 88, 100, 132, 188, 239]:
    name = f"ukbench-dev/ukbench{number:05d}.jpg"
    gray = np.array(ImageOps.exif_transpose(Image.open(os.path.join(datasets, name))).convert("L"))[:, :, None]
    thumbnail = area_resize(gray, 32, 32)[:, :, 0]
    hashes.append({"file": name, "thumbnail": base64.b64encode(thumbnail.tobytes()).decode(),
                   "hash": dct_hash(thumbnail)})
    print(name, hashes[-1]["hash"], file=sys.stderr)

with open(os.path.join(out, "efficientnet-lite0-reference.json"), "w") as f:
    json.dump({"tensorCount": len(state), "tensors": tensors, "exact": exact, "photos": photos}, f, indent=1)
with open(os.path.join(out, "perceptual-hash-reference.json"), "w") as f:
    json.dump({"hashes": hashes}, f, indent=1)
