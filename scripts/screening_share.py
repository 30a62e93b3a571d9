"""Variants of real photos, and the share of their prints' pairs that stand-ins let through (see
screening-share.sh). The stand-ins are built as PrintProjection builds them: a sample of 2,048 prints spread
evenly, a randomised range finder for 256 directions, coordinates plus the left-out length."""
import glob
import os
import random
import sqlite3
import sys

import numpy as np
from PIL import Image, ImageEnhance


def variants(datasets, folder):
    os.makedirs(folder, exist_ok=True)
    random.seed(7)
    files = sorted(glob.glob(f'{datasets}/ukbench-dev/*.jpg') + glob.glob(f'{datasets}/wild-photos/*/*.jpg'))
    n = 0
    for f in files:
        photo = Image.open(f).convert('RGB')
        for _ in range(16):
            w, h = photo.size
            s = random.uniform(0.45, 1.0)
            cw, ch = int(w * s), int(h * random.uniform(max(0.45, s - 0.2), min(1.0, s + 0.2)))
            x, y = random.randint(0, w - cw), random.randint(0, h - ch)
            copy = photo.crop((x, y, x + cw, y + ch))
            if random.random() < 0.5:
                copy = copy.transpose(Image.FLIP_LEFT_RIGHT)
            copy = ImageEnhance.Brightness(copy).enhance(random.uniform(0.7, 1.3))
            scale = random.uniform(0.4, 1.0)
            copy = copy.resize((max(64, int(copy.width * scale)), max(64, int(copy.height * scale))))
            copy.save(f'{folder}/v{n:05d}.jpg', quality=random.randint(40, 95))
            n += 1
    print(f'{n} variants of {len(files)} photos')


def stand_ins(prints, k=256, samples=2048):
    n, d = prints.shape
    m = min(n, samples)
    sample = prints[(np.arange(m) * n) // m]
    directions = np.random.default_rng(1).standard_normal((d, k))
    basis, _ = np.linalg.qr(sample.T @ (sample @ directions))
    coordinates = prints @ basis
    left_out = np.sqrt(np.maximum(0, (prints * prints).sum(1) - (coordinates * coordinates).sum(1)))
    return coordinates, left_out


def report(name, prints, photo=None):
    coordinates, left_out = stand_ins(prints)
    upper = np.triu_indices(len(prints), 1)
    squared = (2 - 2 * prints @ prints.T)[upper]
    screened = (2 - 2 * (coordinates @ coordinates.T + np.outer(left_out, left_out)))[upper]
    assert (screened <= squared + 1e-9).all(), 'a stand-in lies farther than its print'
    for threshold in (0.125, 0.35):
        reach = 2 * threshold + 0.02
        line = (f'{name}, {len(prints)} prints, threshold {threshold}: measured in full '
                f'{(screened <= reach).mean():.4f} of pairs, '
                f'within the threshold {(squared <= 2 * threshold).mean():.4f}')
        if photo is not None:
            other = photo[upper[0]] != photo[upper[1]]
            line += (f'; pairs of different photos: in full {(screened[other] <= reach).mean():.4f}, '
                     f'within {(squared[other] <= 2 * threshold).mean():.4f}')
        print(line)
    print(f'  left-out length: median {np.median(left_out):.3f}, largest {left_out.max():.3f}')


def share(database):
    rows = sqlite3.connect(database).execute(
        'select path, print from photo_prints join images on images.id = image_id order by image_id').fetchall()
    prints = np.array([np.frombuffer(p, dtype='<f4') for _, p in rows]).astype(np.float64)
    photo = np.array([int(path.rsplit('/v', 1)[1][:5]) // 16 for path, _ in rows])
    report('variants of real photos', prints, photo)
    noise = np.random.default_rng(2).uniform(-1, 1, prints.shape)
    report('random unit vectors', noise / np.linalg.norm(noise, axis=1, keepdims=True))


if __name__ == '__main__':
    if sys.argv[1] == 'variants':
        variants(sys.argv[2], sys.argv[3])
    else:
        share(sys.argv[2])
