#!/usr/bin/env python3
"""Composes the apps' content images and writes their metadata into the apps' content.

Every picture is a scene drawn here (sky, sea, walls, tables, studio light...) with public-domain
clip art from Debian's `openclipart-png` placed on it (recoloured where the metadata names a
colour, with a soft shadow), then finished like a phone photo (slight blur, grain, vignette) and
saved as JPEG next to the app (`apps/<app>/images/`). The metadata of each image (`shows`,
`colors`, `scene`) is what was composed, so tasks can check against it. Deterministic: the same
run writes the same bytes. Needs Pillow and numpy (not a dependency of the project's tests):

    python3 -m venv /tmp/img-venv && /tmp/img-venv/bin/pip install pillow numpy
    apt-get install -y openclipart-png
    /tmp/img-venv/bin/python assets/gen_images.py
"""

import colorsys
import json
import re
import sys
import zlib
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

ROOT = Path(__file__).resolve().parents[1]
OC = Path("/usr/share/openclipart/png")
QUALITY = 80
# Every written image and the clip art it uses, for assets/IMAGES.md.
SOURCES = {}

COLORS = {
    "red": (205, 38, 38), "blue": (38, 92, 205), "green": (46, 150, 70), "yellow": (240, 200, 40),
    "orange": (240, 125, 30), "purple": (125, 60, 175), "pink": (235, 110, 165), "black": (38, 38, 42),
    "white": (240, 240, 236), "grey": (140, 142, 146), "brown": (125, 82, 50), "teal": (28, 140, 140),
    "navy": (30, 46, 96), "beige": (215, 195, 160),
}


def rng_for(name):
    """A generator seeded from the image's name, so one image never depends on another."""
    return np.random.default_rng(zlib.crc32(name.encode()))


# ----------------------------------------------------------------------------------- clip art
_CLIPS = {}


def clip(path):
    """A clip-art file, cropped to its visible pixels, as RGBA."""
    if path not in _CLIPS:
        im = Image.open(OC / path)
        if im.width * im.height > 12_000_000:
            raise SystemExit(f"{path}: {im.width}x{im.height} is too large to use")
        im = im.convert("RGBA")
        a = np.asarray(im).copy()
        if a[..., 3].min() == 255:  # no transparency: the white paper is the background
            white = (a[..., :3].min(axis=2) > 245)
            a[..., 3] = np.where(white, 0, 255)
            im = Image.fromarray(a)
        im = im.crop(im.getchannel("A").point(lambda v: 255 if v > 8 else 0).getbbox())
        _CLIPS[path] = im
    return _CLIPS[path]


def recolor(im, color, mode="saturated"):
    """Paints the coloured parts of a clip (or, with mode "body", every light part) in `color`,
    keeping their shading; outlines stay dark."""
    if color is None:
        return im
    a = np.asarray(im).astype(np.float32)
    rgb = a[..., :3] / 255
    mx, mn = rgb.max(axis=2), rgb.min(axis=2)
    sat = np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-6), 0)
    lum = rgb @ np.array([0.3, 0.59, 0.11], dtype=np.float32)
    if mode == "all":  # a clip drawn in one dark colour: all of it
        mask = a[..., 3] > 0
        lum = 0.5 + 0.5 * lum
    elif mode == "body":
        mask = (a[..., 3] > 0) & (lum > 0.12)
    else:
        mask = (a[..., 3] > 0) & (sat > 0.22) & (mx > 0.2)
    if not mask.any():
        return im
    mean = lum[mask].mean()
    target = np.array(COLORS[color], dtype=np.float32)
    shade = np.clip(lum / max(mean, 1e-3), 0.35, 1.6)[..., None]
    out = np.clip(target * shade, 0, 255)
    a[..., :3] = np.where(mask[..., None], out, a[..., :3])
    return Image.fromarray(a.astype(np.uint8))


def place(canvas, path, cx, bottom, height, color=None, mode="saturated", shadow=0.45, flip=False, sources=None, rotate=0):
    """Puts a clip with its bottom centre at (cx, bottom), `height` pixels tall, on a soft shadow
    (turned by `rotate` degrees first: a surfboard stood up in the sand)."""
    im = clip(path)
    if rotate:
        im = im.rotate(rotate, resample=Image.BICUBIC, expand=True)
        im = im.crop(im.getchannel("A").getbbox())
    w = max(1, round(im.width * height / im.height))
    im = recolor(im.resize((w, height), Image.LANCZOS), color, mode)
    if flip:
        im = im.transpose(Image.FLIP_LEFT_RIGHT)
    x, y = round(cx - w / 2), round(bottom - height)
    if shadow:
        sh = Image.new("L", canvas.size, 0)
        d = ImageDraw.Draw(sh)
        d.ellipse([x + w * 0.05, bottom - height * 0.06, x + w * 0.95 + w * 0.15, bottom + height * 0.07], fill=int(255 * shadow))
        sh = sh.filter(ImageFilter.GaussianBlur(max(2, height / 18)))
        canvas.paste(Image.new("RGB", canvas.size, (20, 18, 16)), (0, 0), sh)
    canvas.paste(im, (x, y), im)
    if sources is not None:
        sources.append(path)


# -------------------------------------------------------------------------------- backgrounds
def vgrad(w, h, top, bottom, y0=0, y1=None):
    y1 = h if y1 is None else y1
    t = np.clip((np.arange(h) - y0) / max(1, y1 - y0), 0, 1)[:, None, None]
    return np.broadcast_to(np.array(top, np.float32) * (1 - t) + np.array(bottom, np.float32) * t, (h, w, 3)).copy()


def smooth_noise(rng, w, h, cell, amp):
    """Low-frequency noise (a small random grid enlarged smoothly)."""
    gw, gh = max(2, w // cell + 2), max(2, h // cell + 2)
    g = Image.fromarray((rng.random((gh, gw)) * 255).astype(np.uint8)).resize((w, h), Image.BICUBIC)
    return (np.asarray(g, np.float32) / 255 - 0.5) * 2 * amp


def paint(arr, mask, color, alpha=1.0):
    m = np.clip(mask, 0, 1)[..., None] * alpha
    arr[:] = arr * (1 - m) + np.array(color, np.float32) * m


def ellipse_mask(w, h, cx, cy, rx, ry, blur=0.0):
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    d = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2
    if blur <= 0:
        return (d <= 1).astype(np.float32)
    return np.clip((1 + blur - d) / blur, 0, 1)


def sky(arr, rng, top=(92, 150, 222), bottom=(196, 222, 244), horizon=0.5, clouds=3, sun=None):
    h, w, _ = arr.shape
    hz = int(h * horizon)
    arr[:hz] = vgrad(w, hz, top, bottom)
    if sun:
        sx, sy, r, col = sun
        paint(arr, ellipse_mask(w, h, sx * w, sy * h, r * 3.2, r * 3.2, blur=3.0), col, 0.35)
        paint(arr, ellipse_mask(w, h, sx * w, sy * h, r, r, blur=0.15), (255, 248, 220))
    for _ in range(clouds):
        cx, cy = rng.uniform(0.05, 0.95) * w, rng.uniform(0.06, 0.32) * h
        for _ in range(5):
            m = ellipse_mask(w, h, cx + rng.uniform(-40, 40), cy + rng.uniform(-6, 6), rng.uniform(24, 52), rng.uniform(10, 18), blur=1.2)
            m[hz:] = 0
            paint(arr, m, (250, 250, 252), 0.75)


def ridge(arr, rng, base, rough, color, top_color=None):
    h, w, _ = arr.shape
    ys = np.cumsum(rng.normal(0, rough, w + 1))
    ys = np.convolve(ys, np.ones(9) / 9, mode="same")[:w]
    ys = base * h + ys - ys.mean()
    yy = np.arange(h)[:, None]
    m = (yy >= ys[None, :]).astype(np.float32)
    shade = vgrad(w, h, top_color or color, color)
    arr[:] = arr * (1 - m[..., None]) + shade * m[..., None]
    return ys


def scene_background(kind, w, h, rng):
    """The backdrop of a photo: returns an RGB float array."""
    arr = np.zeros((h, w, 3), np.float32)
    tex = smooth_noise(rng, w, h, 24, 10)[..., None]
    fine = rng.normal(0, 5, (h, w, 1)).astype(np.float32)
    if kind == "beach":
        sky(arr, rng, horizon=0.46, sun=(0.8, 0.16, 14, (255, 230, 160)))
        hz, sd = int(h * 0.46), int(h * 0.66)
        arr[hz:sd] = vgrad(w, sd - hz, (40, 110, 170), (70, 165, 190))
        for y in range(hz + 3, sd, 5):
            arr[y, :, :] += rng.normal(18, 8, (w, 1)).clip(0, 40) * (rng.random((w, 1)) > 0.55)
        arr[sd:] = vgrad(w, h - sd, (230, 210, 165), (214, 186, 135)) + tex[sd:] + fine[sd:]
        paint(arr, ellipse_mask(w, h, w / 2, sd, w * 0.8, 5, blur=1.5), (245, 245, 240), 0.8)
    elif kind in ("park", "trail", "garden"):
        sky(arr, rng, horizon=0.5, clouds=3)
        ridge(arr, rng, 0.48, 2.2, (60, 105, 60), (82, 128, 80))
        hz = int(h * 0.58)
        arr[hz:] = np.maximum(arr[hz:], 0)
        g = vgrad(w, h - hz, (110, 160, 75), (70, 128, 50)) + tex[hz:] * 1.5 + fine[hz:] * 1.6
        arr[hz:] = g
        if kind == "trail":
            y, x = np.mgrid[hz:h, 0:w].astype(np.float32)
            t = (y - hz) / (h - hz)
            path = np.abs(x - (w * 0.55 - t * w * 0.1)) < (8 + t * 60)
            arr[hz:][path] = (np.array((176, 150, 112)) + fine[hz:][path] * 1.5)
    elif kind == "mountains":
        sky(arr, rng, top=(80, 140, 215), bottom=(210, 228, 240), horizon=0.62, clouds=2)
        ridge(arr, rng, 0.36, 3.5, (150, 168, 196), (176, 190, 212))
        ridge(arr, rng, 0.5, 3.0, (98, 120, 140), (120, 140, 160))
        ridge(arr, rng, 0.68, 2.5, (62, 96, 58), (80, 112, 70))
        arr += tex * 0.6 + fine * 0.6
    elif kind == "city":
        sky(arr, rng, top=(120, 165, 215), bottom=(215, 225, 235), horizon=0.7, clouds=2)
        x = 0
        while x < w:
            bw, bh = int(rng.uniform(40, 90)), rng.uniform(0.25, 0.6) * h
            col = np.array(rng.choice([(200, 180, 150), (180, 120, 100), (220, 210, 190), (150, 160, 170), (235, 200, 120)]), np.float32)
            y0 = int(h * 0.72 - bh)
            arr[y0:int(h * 0.72), x:x + bw] = col * rng.uniform(0.8, 1.05)
            for wy in range(y0 + 8, int(h * 0.7) - 10, 16):
                for wx in range(x + 6, x + bw - 10, 14):
                    arr[wy:wy + 9, wx:wx + 7] = (70, 85, 105)
            x += bw + int(rng.uniform(0, 6))
        arr[int(h * 0.72):] = vgrad(w, h - int(h * 0.72), (120, 120, 124), (90, 90, 95)) + fine[int(h * 0.72):]
        arr += tex * 0.5
    elif kind in ("home", "room", "clinic", "hall", "gym", "library", "office"):
        wall = {"home": (222, 205, 182), "room": (200, 214, 222), "clinic": (214, 232, 236), "hall": (236, 214, 190),
                "gym": (190, 196, 206), "library": (120, 84, 58), "office": (226, 228, 230)}[kind]
        fl = int(h * 0.68)
        arr[:fl] = vgrad(w, fl, np.array(wall) * 1.03, np.array(wall) * 0.86) + tex[:fl] * 0.5
        # window light on the wall
        paint(arr, ellipse_mask(w, h, w * 0.25, h * 0.3, w * 0.35, h * 0.35, blur=2.0), (255, 250, 235), 0.25)
        floor = (150, 105, 70) if kind != "gym" else (70, 80, 96)
        arr[fl:] = vgrad(w, h - fl, np.array(floor) * 1.1, np.array(floor) * 0.8) + fine[fl:] * 1.2
        for x in range(0, w, 46):
            arr[fl:, x:x + 2] *= 0.8
        arr[fl - 6:fl] = np.array(wall) * 0.75
        if kind == "library":
            for sy in range(int(h * 0.06), fl - 50, 62):
                arr[sy + 54:sy + 60] = (90, 60, 40)
                x = 8
                while x < w - 16:
                    bw = int(rng.uniform(7, 15))
                    col = rng.choice([(140, 40, 40), (40, 70, 120), (60, 110, 70), (190, 160, 90), (90, 50, 90), (200, 190, 170)])
                    top = sy + int(rng.uniform(6, 16))
                    arr[top:sy + 54, x:x + bw] = np.array(col) * rng.uniform(0.75, 1.1)
                    arr[top:sy + 54, x + bw - 1:x + bw] *= 0.6
                    x += bw + 1
        if kind == "gym":
            for _ in range(60):
                cx, cy = rng.uniform(0, w), rng.uniform(0, fl - 10)
                col = rng.choice([(230, 60, 60), (60, 180, 90), (250, 200, 40), (60, 120, 230), (240, 130, 30)])
                paint(arr, ellipse_mask(w, h, cx, cy, 7, 6), col)
    elif kind == "table":
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        grain = np.sin((y + smooth_noise(rng, w, h, 40, 18)) / 3.2) * 7
        arr[:] = np.array((150, 104, 66), np.float32) + grain[..., None] + tex * 1.2 + fine
        for yy in range(0, h, 58):
            arr[yy:yy + 2] *= 0.7
        paint(arr, ellipse_mask(w, h, w * 0.3, h * 0.2, w * 0.8, h * 0.7, blur=3), (255, 240, 210), 0.18)
    elif kind == "night":
        arr[:] = vgrad(w, h, (10, 14, 40), (40, 40, 90))
        for _ in range(160):
            sx, sy = int(rng.uniform(0, w)), int(rng.uniform(0, h * 0.7))
            arr[sy, sx] = rng.uniform(170, 255)
        arr += fine * 0.4
    elif kind == "dusk":
        sky(arr, rng, top=(60, 50, 110), bottom=(250, 150, 90), horizon=0.62, clouds=0, sun=(0.5, 0.6, 16, (255, 170, 90)))
        ridge(arr, rng, 0.6, 2.0, (40, 40, 60), (60, 50, 80))
        arr[int(h * 0.72):] = vgrad(w, h - int(h * 0.72), (50, 50, 50), (30, 34, 30)) + fine[int(h * 0.72):]
        for _ in range(40):
            sx, sy = int(rng.uniform(0, w)), int(rng.uniform(0, h * 0.3))
            arr[sy, sx] = 230
    elif kind == "sunset":
        sky(arr, rng, top=(70, 80, 150), bottom=(255, 170, 90), horizon=0.62, clouds=0, sun=(0.45, 0.52, 20, (255, 180, 80)))
        arr[int(h * 0.62):] = vgrad(w, h - int(h * 0.62), (120, 80, 80), (60, 50, 70)) + fine[int(h * 0.62):]
        for _ in range(140):
            x0 = int(rng.uniform(0, w))
            y0 = int(rng.uniform(h * 0.64, h))
            arr[y0:y0 + 6, x0:x0 + 5] = rng.choice([(240, 220, 190), (200, 110, 80), (230, 200, 160)])
    elif kind == "snow":
        sky(arr, rng, top=(180, 195, 210), bottom=(225, 230, 236), horizon=0.55, clouds=0)
        ridge(arr, rng, 0.5, 1.6, (120, 135, 140), (150, 160, 165))
        hz = int(h * 0.58)
        arr[hz:] = vgrad(w, h - hz, (236, 240, 246), (212, 220, 232)) + tex[hz:] * 0.8 + fine[hz:] * 0.5
        for _ in range(260):
            sx, sy = rng.uniform(0, w), rng.uniform(0, h)
            paint(arr, ellipse_mask(w, h, sx, sy, 1.6, 1.6), (255, 255, 255), 0.85)
    elif kind == "fog":
        sky(arr, rng, top=(180, 186, 192), bottom=(205, 208, 210), horizon=0.7, clouds=0)
        arr[int(h * 0.7):] = vgrad(w, h - int(h * 0.7), (150, 156, 150), (120, 126, 120))
        arr += tex * 0.6 + fine * 0.4
    elif kind == "bay":
        sky(arr, rng, top=(110, 150, 200), bottom=(220, 225, 230), horizon=0.6, clouds=2)
        hz = int(h * 0.6)
        x = 0
        while x < w:
            bw, bh = int(rng.uniform(14, 36)), rng.uniform(0.03, 0.16) * h
            arr[int(hz - bh):hz, x:x + bw] = np.array((150, 160, 175)) * rng.uniform(0.8, 1.05)
            x += bw
        arr[hz:] = vgrad(w, h - hz, (70, 110, 140), (40, 80, 110)) + fine[hz:] * 0.8
    elif kind == "stage":
        arr[:] = vgrad(w, h, (25, 15, 20), (55, 25, 30))
        for x in range(0, w, 22):
            arr[:int(h * 0.8), x:x + 11] *= 1.25
        paint(arr, ellipse_mask(w, h, w / 2, h * 0.75, w * 0.32, h * 0.18, blur=1.5), (255, 235, 190), 0.55)
        arr[int(h * 0.8):] = vgrad(w, h - int(h * 0.8), (110, 75, 50), (70, 45, 30))
        arr += fine * 0.5
    elif kind == "wall":
        arr[:] = (160, 80, 60)
        for yy in range(0, h, 14):
            arr[yy:yy + 2] = (205, 200, 190)
            off = 0 if (yy // 14) % 2 else 20
            for xx in range(off, w, 40):
                arr[yy:yy + 14, xx:xx + 2] = (205, 200, 190)
        arr += tex * 1.5 + fine
        arr[int(h * 0.86):] = (110, 110, 112)
    elif kind == "tiles":
        t = 40
        for ty in range(0, h, t):
            for tx in range(0, w, t):
                arr[ty:ty + t, tx:tx + t] = (236, 236, 228)
                c = (tx + t / 2, ty + t / 2)
                paint(arr, ellipse_mask(w, h, c[0], c[1], t * 0.36, t * 0.36), (30, 70, 160), 0.9)
                paint(arr, ellipse_mask(w, h, c[0], c[1], t * 0.2, t * 0.2), (236, 236, 228))
                paint(arr, ellipse_mask(w, h, c[0], c[1], t * 0.08, t * 0.08), (240, 190, 40))
                arr[ty:ty + 2, tx:tx + t] *= 0.85
                arr[ty:ty + t, tx:tx + 2] *= 0.85
        arr[int(h * 0.18):, int(w * 0.36):int(w * 0.64)] = (70, 110, 70)
        arr[int(h * 0.18):, int(w * 0.49):int(w * 0.51)] = (40, 60, 40)
        arr += fine * 0.8
    elif kind == "waterfall":
        arr[:] = vgrad(w, h, (50, 90, 60), (40, 70, 50)) + tex * 3 + fine * 2
        for x in range(int(w * 0.38), int(w * 0.62)):
            arr[:int(h * 0.8), x] = np.array((225, 235, 240)) - rng.uniform(0, 40, (int(h * 0.8), 1))
        paint(arr, ellipse_mask(w, h, w / 2, h * 0.84, w * 0.4, h * 0.1, blur=1.5), (235, 245, 250), 0.9)
        arr[int(h * 0.86):] = vgrad(w, h - int(h * 0.86), (60, 110, 130), (40, 80, 100)) + fine[int(h * 0.86):]
    elif kind == "whiteboard":
        arr[:] = vgrad(w, h, (200, 205, 210), (170, 175, 180))
        arr[int(h * 0.1):int(h * 0.85), int(w * 0.08):int(w * 0.92)] = (246, 247, 248)
        img = Image.fromarray(arr.clip(0, 255).astype(np.uint8))
        d = ImageDraw.Draw(img)
        for i in range(9):
            y = int(h * 0.17) + i * 26
            x0 = int(w * 0.13) + (30 if i % 3 else 0)
            col = [(30, 60, 160), (200, 40, 40), (30, 120, 60)][i % 3]
            d.line([(x0, y), (x0 + int(rng.uniform(120, 300)), y + int(rng.uniform(-3, 3)))], fill=col, width=3)
        d.rectangle([int(w * 0.65), int(h * 0.2), int(w * 0.86), int(h * 0.45)], outline=(200, 40, 40), width=3)
        arr[:] = np.asarray(img, np.float32) + fine * 0.4
    elif kind.startswith("studio"):
        base = np.array(COLORS.get(kind.split(":")[1], (230, 226, 220)) if ":" in kind else (232, 228, 222), np.float32)
        base = base * 0.35 + 255 * 0.65
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        r = np.hypot((x - w / 2) / w, (y - h * 0.4) / h)
        arr[:] = base[None, None, :] * (1.06 - 0.45 * r[..., None]) + fine * 0.3
    else:
        raise SystemExit(f"unknown scene {kind}")
    return arr


def finish(canvas, rng, grain=4.0, vignette=0.22):
    """Phone-camera finish: a touch of blur, sensor grain and a vignette."""
    canvas = canvas.filter(ImageFilter.GaussianBlur(0.5))
    a = np.asarray(canvas).astype(np.float32)
    h, w, _ = a.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot((x - w / 2) / (w / 2), (y - h / 2) / (h / 2))
    a *= (1 - vignette * np.clip(r - 0.4, 0, 1) ** 1.5)[..., None]
    a += rng.normal(0, grain, a.shape)
    return Image.fromarray(a.clip(0, 255).astype(np.uint8))


def to_image(arr):
    return Image.fromarray(arr.clip(0, 255).astype(np.uint8))


def save(img, app, rel, sources, quality=QUALITY):
    out = ROOT / "apps" / app / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    img.save(out, "JPEG", quality=quality, optimize=True, progressive=False)
    SOURCES[f"apps/{app}/{rel}"] = sorted(set(sources))


def photo(app, rel, scene, objects, size=(480, 360), extra=None, under=None):
    """A photo: the scene, `under` (drawn below the objects), each object (clip, x, bottom,
    height as fractions; color), then `extra` over them."""
    w, h = size
    rng = rng_for(rel + scene)
    canvas = to_image(scene_background(scene, w, h, rng))
    if under:
        under(canvas, rng)
    used = []
    for o in objects:
        place(canvas, o["clip"], o["x"] * w, o["y"] * h, int(o["h"] * h), o.get("color"), o.get("mode", "saturated"),
              o.get("shadow", 0.45), o.get("flip", False), used, o.get("rotate", 0))
    if extra:
        extra(canvas, rng)
    save(finish(canvas, rng), app, rel, used)


def obj(clip_path, x, y, h, color=None, **kw):
    return dict(clip=clip_path, x=x, y=y, h=h, color=color, **kw)


# ------------------------------------------------------------------------------------ extras
def draw_rainbow(double):
    def f(canvas, rng):
        w, h = canvas.size
        a = np.asarray(canvas).astype(np.float32)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        r = np.hypot(x - w * 0.5, y - h * 0.72)
        bands = [(230, 60, 60), (240, 150, 40), (240, 225, 60), (70, 180, 80), (60, 110, 220), (120, 70, 190)]
        for radius, alpha in ([(w * 0.42, 0.45)] + ([(w * 0.52, 0.22)] if double else [])):
            for i, c in enumerate(bands):
                m = (np.abs(r - (radius - i * 5)) < 2.6) & (y < h * 0.6)
                a[m] = a[m] * (1 - alpha) + np.array(c) * alpha
        canvas.paste(Image.fromarray(a.clip(0, 255).astype(np.uint8)))
    return f


def draw_bridge(color):
    def f(canvas, rng):
        w, h = canvas.size
        d = ImageDraw.Draw(canvas)
        c = COLORS[color]
        deck = int(h * 0.62)
        for tx in (0.3, 0.78):
            x = int(w * tx)
            d.rectangle([x - 7, int(h * 0.12), x + 7, int(h * 0.74)], fill=c)
            d.rectangle([x - 9, int(h * 0.3), x + 9, int(h * 0.33)], fill=c)
        d.rectangle([0, deck, w, deck + 6], fill=c)
        for x0, x1 in ((-0.2, 0.3), (0.3, 0.78), (0.78, 1.3)):
            pts = [(w * (x0 + (x1 - x0) * t / 20), h * 0.13 + (deck - h * 0.13) * (1 - (1 - abs(2 * t / 20 - 1)) ** 2) * (0.9 if x0 < 0 or x1 > 1 else 1)) for t in range(21)]
            d.line(pts, fill=c, width=2)
        # fog over everything
        a = np.asarray(canvas).astype(np.float32)
        fog = smooth_noise(rng, w, h, 60, 0.25) + 0.55
        a = a * (1 - fog[..., None]) + np.array((214, 217, 220)) * fog[..., None]
        canvas.paste(Image.fromarray(a.clip(0, 255).astype(np.uint8)))
    return f


def draw_fog(strength):
    def f(canvas, rng):
        w, h = canvas.size
        a = np.asarray(canvas).astype(np.float32)
        fog = np.clip(smooth_noise(rng, w, h, 70, 0.2) + strength, 0, 0.9)
        a = a * (1 - fog[..., None]) + np.array((220, 222, 224)) * fog[..., None]
        canvas.paste(Image.fromarray(a.clip(0, 255).astype(np.uint8)))
    return f


def draw_mural(colors):
    def f(canvas, rng):
        w, h = canvas.size
        d = ImageDraw.Draw(canvas)
        for i in range(14):
            c = COLORS[colors[i % len(colors)]]
            x, y, r = rng.uniform(0.05, 0.95) * w, rng.uniform(0.08, 0.75) * h, rng.uniform(18, 60)
            if i % 3 == 0:
                d.ellipse([x - r, y - r, x + r, y + r], fill=c)
            elif i % 3 == 1:
                d.polygon([(x, y - r), (x + r, y + r), (x - r, y + r)], fill=c)
            else:
                d.rectangle([x - r, y - r / 3, x + r * 1.5, y + r / 3], fill=c)
    return f


def draw_tarts(canvas, rng):
    w, h = canvas.size
    d = ImageDraw.Draw(canvas)
    d.ellipse([w * 0.18, h * 0.14, w * 0.82, h * 0.9], fill=(238, 238, 232), outline=(205, 205, 200), width=3)
    for i in range(6):
        ang = i / 6 * 2 * np.pi
        cx, cy = w / 2 + np.cos(ang) * w * 0.17, h * 0.52 + np.sin(ang) * h * 0.22
        r = w * 0.075
        d.ellipse([cx - r * 1.15, cy - r * 1.15, cx + r * 1.15, cy + r * 1.15], fill=(200, 140, 60))
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(246, 200, 90))
        for _ in range(5):
            sx, sy = cx + rng.uniform(-r * 0.7, r * 0.7), cy + rng.uniform(-r * 0.7, r * 0.7)
            d.ellipse([sx - 3, sy - 2, sx + 4, sy + 3], fill=(120, 60, 20))


def draw_plate(color=(240, 240, 236)):
    def f(canvas, rng):
        w, h = canvas.size
        d = ImageDraw.Draw(canvas)
        d.ellipse([w * 0.16, h * 0.42, w * 0.84, h * 0.96], fill=tuple(int(v * 0.8) for v in color))
        d.ellipse([w * 0.16, h * 0.4, w * 0.84, h * 0.93], fill=color)
        d.ellipse([w * 0.26, h * 0.47, w * 0.74, h * 0.86], fill=tuple(min(255, int(v * 0.96)) for v in color))
    return f


def draw_holds(canvas, rng):
    w, h = canvas.size
    d = ImageDraw.Draw(canvas)
    d.rectangle([w * 0.55, 0, w, h * 0.68], fill=(120, 130, 150))
    for _ in range(40):
        x, y = rng.uniform(0.57, 0.98) * w, rng.uniform(0.02, 0.64) * h
        c = COLORS[rng.choice(["red", "yellow", "green", "blue", "orange", "purple"])]
        d.ellipse([x - 6, y - 5, x + 6, y + 5], fill=c)


def chain(*fs):
    def f(canvas, rng):
        for g in fs:
            g(canvas, rng)
    return f


# ------------------------------------------------------------------------------- screenshots
def screenshot(app, rel, kind, accent):
    """A phone screenshot (boarding pass, recipe, tickets, map, QR code, receipt): app chrome,
    text drawn as grey bars, and the one thing the screenshot is of."""
    w, h = 216, 480
    rng = rng_for(rel)
    img = Image.new("RGB", (w, h), (250, 250, 252))
    d = ImageDraw.Draw(img)
    used = []
    acc = COLORS[accent]
    d.rectangle([0, 0, w, 14], fill=tuple(int(v * 0.8) for v in acc))
    d.rectangle([0, 14, w, 56], fill=acc)
    d.rectangle([14, 30, 110, 40], fill=(255, 255, 255))

    def lines(y, n, x0=16, width=184):
        for i in range(n):
            d.rounded_rectangle([x0, y + i * 16, x0 + int(width * rng.uniform(0.45, 1.0)), y + i * 16 + 7], 3, fill=(196, 198, 204))
        return y + n * 16

    if kind == "boarding":
        d.rounded_rectangle([12, 70, w - 12, 400], 12, fill=(255, 255, 255), outline=(220, 220, 226))
        d.text((26, 90), "SFO", fill=(20, 20, 30))
        d.text((w - 56, 90), "LIS", fill=(20, 20, 30))
        place(img, "transportation/airplane.png", w / 2, 112, 26, shadow=0, sources=used)
        lines(140, 4, 26, 160)
        for i in range(60):
            if rng.random() > 0.4:
                x = 30 + i * 2.6
                d.rectangle([x, 300, x + 1.5, 380], fill=(20, 20, 20))
    elif kind == "recipe":
        img_box = Image.new("RGB", (w - 24, 120), (180, 140, 100))
        place(img_box, "food/lasagna_ganson.png", (w - 24) / 2, 110, 90, shadow=0.3, sources=used)
        img.paste(img_box, (12, 68))
        y = lines(204, 3)
        d.rectangle([16, y + 8, 90, y + 18], fill=(60, 60, 70))
        lines(y + 30, 9)
    elif kind == "tickets":
        for k in range(2):
            y0 = 70 + k * 180
            d.rounded_rectangle([12, y0, w - 12, y0 + 160], 12, fill=acc)
            place(img, "unsorted/generic_ticket_ryan_phil_01.png", 60, y0 + 100, 70, shadow=0, sources=used)
            for i in range(3):
                d.rectangle([110, y0 + 30 + i * 18, 190, y0 + 38 + i * 18], fill=(255, 255, 255))
    elif kind == "map":
        a = np.asarray(img).astype(np.float32)
        a[56:] = (232, 228, 218)
        img = to_image(a)
        d = ImageDraw.Draw(img)
        d.polygon([(0, 300), (80, 260), (140, 330), (216, 300), (216, 480), (0, 480)], fill=(170, 210, 160))
        for _ in range(14):
            x0, y0 = rng.uniform(0, w), rng.uniform(60, h)
            d.line([(x0, y0), (x0 + rng.uniform(-200, 200), y0 + rng.uniform(-120, 120))], fill=(255, 255, 255), width=int(rng.uniform(3, 7)))
        d.line([(30, 420), (70, 330), (120, 300), (160, 190)], fill=(40, 110, 230), width=5)
        d.ellipse([152, 176, 170, 194], fill=(220, 50, 50))
    elif kind == "qr":
        n, cell, x0, y0 = 25, 6, 33, 120
        bits = rng.random((n, n)) > 0.5
        for (fx, fy) in ((0, 0), (n - 7, 0), (0, n - 7)):
            bits[fy:fy + 7, fx:fx + 7] = False
            bits[fy, fx:fx + 7] = bits[fy + 6, fx:fx + 7] = bits[fy:fy + 7, fx] = bits[fy:fy + 7, fx + 6] = True
            bits[fy + 2:fy + 5, fx + 2:fx + 5] = True
        for yy in range(n):
            for xx in range(n):
                if bits[yy, xx]:
                    d.rectangle([x0 + xx * cell, y0 + yy * cell, x0 + xx * cell + cell - 1, y0 + yy * cell + cell - 1], fill=(15, 15, 20))
        lines(300, 3, 40, 140)
    elif kind == "receipt":
        d.ellipse([w / 2 - 26, 80, w / 2 + 26, 132], fill=(46, 160, 80))
        d.line([(w / 2 - 12, 106), (w / 2 - 3, 116), (w / 2 + 14, 96)], fill=(255, 255, 255), width=5)
        d.rectangle([60, 150, 156, 166], fill=(40, 40, 50))
        y = lines(190, 2, 40, 140)
        for i in range(6):
            d.rectangle([16, y + 14 + i * 24, 90, y + 21 + i * 24], fill=(196, 198, 204))
            d.rectangle([140, y + 14 + i * 24, 200, y + 21 + i * 24], fill=(110, 112, 120))
    d.rectangle([70, h - 10, w - 70, h - 6], fill=(60, 60, 64))
    save(img, app, rel, used, quality=82)


# --------------------------------------------------------------------------------- content io
def read_ron(path):
    """The apps' content files are JSON-shaped RON: `//` comments and trailing commas aside."""
    text = path.read_text()
    body = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("//"))
    body = re.sub(r",(\s*[\]}])", r"\1", body)
    return json.loads(body)


def write_ron_lines(path, items):
    """One item a line, keeping the file's leading comment lines."""
    head = [l for l in path.read_text().splitlines() if l.startswith("//")]
    rows = ["    " + json.dumps(i, ensure_ascii=False) + "," for i in items]
    path.write_text("\n".join(head + ["["] + rows + ["]"]) + "\n")


def write_ron_indented(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def look(rel, scene, shows, colors):
    return {"photo": rel, "shows": shows, "colors": colors, "scene": scene}


# ------------------------------------------------------------------------------------ gallery
TRAM = "transportation/tramway_lumen_design_stu_01.png"
DOG = "animals/mammals/dogs/beagle_copper_ganson.png"
CAT = "animals/mammals/housecats/gatto_cat_architetto_fra_01.png"
BIKE = "transportation/vehicles/bicycle_01.png"
COUCH = "buildings/furniture/soft_blue_couch_jonadab_01.png"
TENT = "unsorted/tenda_da_campeggio_archi_01.png"
UMBRELLA = "tools/umbrella.png"
MUG = "food/beverages/coffee_ganson.png"
CAKE = "recreation/party/birthday_cake.png"
BALLOONS = "recreation/party/balloons_01.png"


def gallery_looks(pid):
    """The variants of a photo: (scene, objects, shows, colors, extra)."""
    V = []
    if pid == 1:
        for c in ("yellow", "red"):
            V.append(("city", [obj(TRAM, 0.5, 0.93, 0.62, c)], ["tram"], [c], None))
    elif pid == 2:
        V.append(("sunset", [], ["sunset", "rooftops"], ["orange"], None))
    elif pid == 3:
        V.append(("table", [], ["pastries", "plate"], ["yellow"], draw_tarts))
    elif pid == 4:
        V.append(("tiles", [], ["tiles", "door"], ["blue", "green"], None))
    elif pid == 5:
        V.append(("beach", [obj("buildings/ch_teau-fort_01.png", 0.5, 0.7, 0.62)], ["tower"], ["grey"], None))
    elif pid == 6:
        for c in ("red", "yellow"):
            V.append(("beach", [obj("recreation/sports/surfboard_jurgen_01.png", 0.3, 0.92, 0.62, c, rotate=80),
                                obj("recreation/sports/surfboard_jurgen_01.png", 0.45, 0.9, 0.56, c, rotate=100)], ["surfboard", "sea"], [c], None))
    elif pid == 7:
        V.append(("fog", [obj("buildings/ch_teau-fort_01.png", 0.5, 0.75, 0.6)], ["palace"], ["grey"], draw_fog(0.45)))
    elif pid == 8:
        for c in ("blue", "green", "red"):
            V.append(("home", [obj(COUCH, 0.5, 0.92, 0.5, c, mode="body"), obj(DOG, 0.46, 0.68, 0.36, shadow=0)], ["dog", "couch"], [c], None))
    elif pid == 9:
        V.append(("snow", [obj(DOG, 0.5, 0.92, 0.5)], ["dog", "snow"], ["white"], None))
    elif pid == 10:
        for c in (None, "orange"):
            V.append(("home", [obj("containers/cardboard_box_jarno_vasa_.png", 0.5, 0.95, 0.5), obj(CAT, 0.5, 0.62, 0.36, c, mode="body", shadow=0)], ["cat", "box"], [c or "grey"], None))
    elif pid == 11:
        V.append(("clinic", [obj("people/woman_doctor_gerald_g._01.png", 0.7, 0.95, 0.85), obj(DOG, 0.35, 0.95, 0.42)], ["dog", "vet"], ["white"], None))
    elif pid == 12:
        V.append(("table", [obj("food/bowl_of_steaming_soup_01.png", 0.5, 0.85, 0.62)], ["ramen bowl"], ["brown"], None))
    elif pid == 13:
        V.append(("table", [obj("food/breads_and_carbs/pancakes_berries.png", 0.5, 0.8, 0.48, shadow=0)], ["pancakes", "plate"], ["red"], ("under", draw_plate())))
    elif pid == 14:
        V.append(("table", [obj("food/fruit/peach_simple.png", x, y, 0.3) for x, y in ((0.3, 0.55), (0.55, 0.5), (0.42, 0.8), (0.7, 0.78))], ["peaches"], ["orange"], None))
    elif pid == 15:
        for c in ("blue", "pink"):
            V.append(("home", [obj(CAKE, 0.5, 0.9, 0.5, c), obj(BALLOONS, 0.82, 0.6, 0.5, shadow=0)], ["birthday cake", "balloons"], [c], None))
    elif pid == 16:
        for c in ("blue", "red", "green"):
            V.append(("table", [obj(MUG, 0.5, 0.82, 0.56, c)], ["coffee mug"], [c], None))
    elif pid == 17:
        V.append(("hall", [obj("people/grampa_39_n_gramma_celso_02.png", 0.4, 0.9, 0.6), obj(BALLOONS, 0.85, 0.6, 0.5, shadow=0), obj(CAKE, 0.7, 0.95, 0.3)], ["grandparents", "balloons", "cake"], ["pink"], None))
    elif pid == 18:
        V.append(("gym", [obj("people/kid_01.png", 0.72, 0.62, 0.42, shadow=0)], ["child", "climbing wall"], ["yellow"], ("under", draw_holds)))
    elif pid == 19:
        for c in ("red", "blue"):
            V.append(("beach", [obj(UMBRELLA, 0.3, 0.9, 0.42, c), obj("people/sailing_kids.png", 0.72, 0.63, 0.3, shadow=0)], ["beach umbrella", "children", "sailboat"], [c], None))
    elif pid == 20:
        V.append(("stage", [obj("recreation/music/piano_geraint_luff_01.png", 0.35, 0.88, 0.5), obj("people/io_bambina_architetto_fr_01.png", 0.68, 0.88, 0.5, "purple")], ["piano", "girl", "stage"], ["purple"], None))
    elif pid == 21:
        V.append(("trail", [obj("recreation/sports/backpacker_ganson.png", 0.55, 0.95, 0.55, "red")], ["hiker", "trail"], ["red", "green"], None))
    elif pid == 22:
        V.append(("mountains", [], ["mountains"], ["blue", "green"], None))
    elif pid == 23:
        V.append(("waterfall", [], ["waterfall"], ["white", "green"], None))
    elif pid == 24:
        for c in ("orange", "green"):
            V.append(("dusk", [obj(TENT, 0.5, 0.92, 0.4, c)], ["tent"], [c], None))
    elif pid == 25:
        V.append(("bay", [], ["rainbow", "bay"], ["blue"], draw_rainbow(True)))
    elif pid == 26:
        for c in ("red", "blue", "yellow"):
            V.append(("home", [obj(BIKE, 0.5, 0.93, 0.6, c)], ["bicycle"], [c], None))
    elif pid == 27:
        V.append(("whiteboard", [], ["whiteboard"], ["white"], None))
    elif pid == 28:
        V.append(("fog", [], ["bridge", "fog"], ["orange"], draw_bridge("orange")))
    elif pid == 29:
        V.append(("wall", [], ["mural"], ["pink", "teal", "yellow"], draw_mural(["pink", "teal", "yellow", "purple"])))
    elif pid == 30:
        V.append(("library", [], ["bookshelves"], ["brown"], None))
    return V


SCREENSHOTS = {31: ("boarding", "blue", ["boarding pass"]), 32: ("recipe", "orange", ["recipe"]), 33: ("tickets", "purple", ["tickets"]),
               34: ("map", "green", ["map"]), 35: ("qr", "teal", ["qr code"]), 36: ("receipt", "green", ["receipt"])}


def gallery():
    path = ROOT / "apps/gallery/content/photos.ron"
    items = read_ron(path)
    for p in items:
        pid = p["id"]
        looks = []
        if pid in SCREENSHOTS:
            kind, accent, shows = SCREENSHOTS[pid]
            rel = f"images/p{pid:02d}.jpg"
            screenshot("gallery", rel, kind, accent)
            looks.append(look(rel, "screenshot", shows, [accent]))
        else:
            variants = gallery_looks(pid)
            if not variants:
                raise SystemExit(f"gallery photo {pid} has no picture")
            for k, (scene, objects, shows, colors, extra) in enumerate(variants):
                rel = f"images/p{pid:02d}{'abc'[k] if len(variants) > 1 else ''}.jpg"
                if isinstance(extra, tuple):
                    photo("gallery", rel, scene, objects, under=extra[1])
                else:
                    photo("gallery", rel, scene, objects, extra=extra)
                looks.append(look(rel, scene, shows, colors))
        for k in ("photo", "shows", "colors", "scene", "variants"):
            p.pop(k, None)
        p.update(looks[0])
        if len(looks) > 1:
            p["variants"] = looks
    write_ron_lines(path, items)


# ------------------------------------------------------------------------------------- shop
# Colour names of the catalogue, as the palette colour the product photo is painted in.
NAMED = {
    "white": "white", "black": "black", "sage": "green", "indigo": "navy", "heather grey": "grey", "sand": "beige",
    "khaki": "beige", "forest": "green", "oatmeal": "beige", "ochre": "yellow", "blush": "pink", "mustard": "yellow",
    "black/white": "black", "brown": "brown", "cognac": "brown", "white/green": "white", "tan": "brown", "grey": "grey",
    "nude": "beige", "silver": "grey", "charcoal": "black", "graphite": "grey", "speckled white": "white",
    "natural": "beige", "matte black": "black", "light wood": "brown", "ivory": "white", "clear": "white",
    "terracotta": "orange", "steel": "grey", "rose": "pink", "autumn": "red", "glacier": "blue", "moss": "green",
    "blue/black": "blue", "teal": "teal",
}
# What each product photo shows: a clip-art file (with how it is recoloured) or a drawn shape.
PRODUCTS = {
    "Everyday Crew Tee": ("clip", "people/clothing/t-shirt_01.png", "all", "t-shirt"),
    "Harbor Denim Jacket": ("clip", "people/clothing/t-shirt_03.png", "body", "jacket"),
    "Cloudknit Hoodie": ("clip", "people/clothing/t-shirt_03.png", "body", "hoodie"),
    "Linen Camp Shirt": ("clip", "people/clothing/camicia_in_seta_architet_01.png", "body", "shirt"),
    "Tapered Chino": ("shape", "pants", None, "trousers"),
    "Quilted Puffer Vest": ("shape", "vest", None, "vest"),
    "Merino Crew Sweater": ("clip", "people/clothing/t-shirt_01.png", "all", "sweater"),
    "Rainshell Parka": ("clip", "people/clothing/t-shirt_03.png", "body", "parka"),
    "Pleated Midi Skirt": ("shape", "skirt", None, "skirt"),
    "Ribbed Beanie": ("clip", "people/clothing/winter_hat_nathan_eady_01.png", "body", "beanie"),
    "Stride Runner 2": ("clip", "people/clothing/tennis_shoe_jarno_vasama_.png", "saturated", "running shoe"),
    "Canvas Low Top": ("clip", "people/clothing/tennis_shoe_jarno_vasama_.png", "saturated", "sneaker"),
    "Trailgrip Hiker": ("clip", "people/clothing/hiking_boot_jarno_vasama_.png", "body", "hiking boot"),
    "Cushy Slide": ("clip", "people/clothing/thongs_01.png", "body", "sandals"),
    "Oxford Derby": ("clip", "people/clothing/hiking_boot_jarno_vasama_.png", "body", "shoe"),
    "Court Classic": ("clip", "people/clothing/tennis_shoe_jarno_vasama_.png", "saturated", "sneaker"),
    "Chelsea Boot": ("clip", "people/clothing/hiking_boot_jarno_vasama_.png", "body", "boot"),
    "Knit Slip-On": ("clip", "people/clothing/tennis_shoe_jarno_vasama_.png", "body", "shoe"),
    "Ballet Flat": ("shape", "flat", None, "ballet flat"),
    "Wool Slipper": ("clip", "people/clothing/mitten_nathan_eady_01.png", "body", "slipper"),
    "Pulse ANC Headphones": ("clip", "recreation/music/headphones_davide_pesent_.png", "saturated", "headphones"),
    "Buds Lite": ("shape", "buds", None, "earbuds"),
    "Orbit Smart Speaker": ("shape", "speaker", None, "speaker"),
    "Volt 20K Power Bank": ("shape", "powerbank", None, "power bank"),
    "Glide Wireless Mouse": ("clip", "computer/mouse_the_structorr_.png", None, "mouse"),
    "Tactile 75 Keyboard": ("clip", "computer/hardware/keyboard_01.png", None, "keyboard"),
    "Halo Fitness Band": ("shape", "band", None, "fitness band"),
    "Snapcam 4K": ("clip", "electronics/camera_michael_tunniclif_01.png", None, "camera"),
    "Duo Charging Pad": ("shape", "pad", None, "charging pad"),
    "Tab 10 Stand": ("shape", "stand", None, "tablet stand"),
    "Stoneware Mug Set": ("clip", "food/beverages/mug.png", "body", "mugs"),
    "Linen Duvet Cover": ("shape", "folded", None, "duvet cover"),
    "Pour-Over Kettle": ("clip", "food/beverages/teapot_ganson.png", None, "kettle"),
    "Cast Iron Skillet": ("clip", "unsorted/duplicates/frying_pan_padella_in_i_01.png", "body", "skillet"),
    "Aroma Diffuser": ("shape", "diffuser", None, "diffuser"),
    "Chunky Throw Blanket": ("shape", "folded", None, "blanket"),
    "Glass Storage Set": ("shape", "jars", None, "glass jars"),
    "Desk Lamp Arc": ("clip", "office/desk_lamp_gerald_g._01.png", "saturated", "desk lamp"),
    "Herb Garden Kit": ("clip", "food/beverages/flower-pot_01.png", None, "plant pots"),
    "Chef Knife 20 cm": ("clip", "tools/weapons/knife.png", None, "knife"),
    "Hydra Serum": ("shape", "dropper", "teal", "serum bottle"),
    "Daily Mineral SPF 40": ("shape", "tube", "yellow", "sunscreen tube"),
    "Velvet Lip Tint": ("shape", "lipstick", None, "lip tint"),
    "Bamboo Brush Set": ("clip", "education/paint_brush_linda_kim_01.png", None, "brushes"),
    "Clay Detox Mask": ("shape", "jar", "green", "jar"),
    "Argan Hair Oil": ("shape", "dropper", "orange", "oil bottle"),
    "Night Repair Cream": ("shape", "jar", "purple", "jar"),
    "Eau de Parfum Fig": ("shape", "perfume", "purple", "perfume bottle"),
    "Gentle Foaming Cleanser": ("shape", "pump", "blue", "pump bottle"),
    "Nail Color Trio": ("shape", "polish", "red", "nail polish"),
    "Align Yoga Mat": ("shape", "mat", None, "yoga mat"),
    "Adjustable Dumbbells": ("shape", "dumbbell", None, "dumbbells"),
    "Insulated Bottle 750": ("shape", "bottle", None, "bottle"),
    "Resistance Band Set": ("shape", "bands", "red", "resistance bands"),
    "Trail Day Pack 22L": ("shape", "backpack", None, "backpack"),
    "Speed Jump Rope": ("shape", "rope", None, "jump rope"),
    "Pro Tennis Racket": ("clip", "recreation/sports/tennis_racket_01.png", None, "tennis racket"),
    "Foam Roller": ("shape", "roller", None, "foam roller"),
    "Cycling Gloves": ("clip", "people/clothing/mitten_nathan_eady_01.png", "body", "gloves"),
    "Camping Hammock": ("shape", "hammock", None, "hammock"),
}
EXTRA_NAMED = {"washed blue": "blue", "navy": "navy", "rust": "orange", "olive": "green", "burgundy": "red", "coral": "orange",
               "slate": "grey", "lilac": "purple", "red": "red", "blue": "blue", "cream": "white", "midnight blue": "navy",
               "chalk": "white", "mint": "green", "space grey": "grey", "ocean": "blue", "clay": "orange", "dark wood": "brown",
               "berry": "purple", "pastel": "pink", "plum": "purple", "sunset": "orange", "orange": "orange", "hi-vis": "yellow",
               "sky": "blue", "all white": "white"}
NAMED.update(EXTRA_NAMED)


def shade_fill(d, box, color, radius=12, horizontal=True):
    """A rounded box shaded like a cylinder (lit from the left)."""
    x0, y0, x1, y1 = [int(v) for v in box]
    c = np.array(COLORS[color], np.float32)
    n = max(1, (x1 - x0) if horizontal else (y1 - y0))
    for i in range(n):
        t = i / n
        k = 0.72 + 0.5 * np.sin(np.pi * min(1, t * 1.15)) - 0.12 * t
        col = tuple(int(v) for v in np.clip(c * k + (40 if 0.18 < t < 0.24 else 0), 0, 255))
        if horizontal:
            d.line([(x0 + i, y0 + radius), (x0 + i, y1 - radius)], fill=col)
        else:
            d.line([(x0 + radius, y0 + i), (x1 - radius, y0 + i)], fill=col)
    d.rounded_rectangle(box, radius, outline=tuple(int(v * 0.6) for v in COLORS[color]), width=2)


def draw_shape(kind, color, size):
    """A product drawn as simple shaded shapes on a transparent canvas."""
    w = h = size
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    c = COLORS[color]
    dark = tuple(int(v * 0.6) for v in c)

    def cyl(x0, y0, x1, y1, col=color, r=None):
        r = r if r is not None else (x1 - x0) // 5
        d.rounded_rectangle([x0, y0, x1, y1], r, fill=COLORS[col])
        shade_fill(d, [x0, y0, x1, y1], col, r)

    if kind == "pants":
        d.polygon([(70, 20), (150, 20), (175, 290), (122, 290), (110, 90), (98, 290), (45, 290)], fill=c, outline=dark)
        d.rectangle([70, 20, 150, 36], fill=dark)
    elif kind == "skirt":
        d.polygon([(85, 40), (135, 40), (200, 270), (20, 270)], fill=c, outline=dark)
        for x in range(40, 190, 18):
            d.line([(110, 44), (x, 268)], fill=dark, width=2)
        d.rectangle([85, 30, 135, 44], fill=dark)
    elif kind == "vest":
        d.polygon([(60, 40), (95, 30), (110, 80), (125, 30), (160, 40), (175, 270), (45, 270)], fill=c, outline=dark)
        for y in range(70, 270, 28):
            d.line([(48, y), (172, y)], fill=dark, width=3)
        d.line([(110, 80), (110, 270)], fill=(200, 200, 200), width=3)
    elif kind == "flat":
        d.ellipse([20, 120, 200, 200], fill=c, outline=dark, width=3)
        d.ellipse([50, 128, 190, 182], fill=(230, 215, 200))
        d.ellipse([30, 150, 80, 185], fill=c)
    elif kind == "buds":
        for x in (70, 150):
            d.ellipse([x - 30, 90, x + 30, 150], fill=c, outline=(150, 150, 150), width=2)
            d.rounded_rectangle([x - 8, 130, x + 8, 220], 8, fill=c, outline=(150, 150, 150))
    elif kind == "speaker":
        cyl(60, 40, 160, 260)
        for y in range(70, 240, 10):
            for x in range(75, 150, 10):
                d.ellipse([x, y, x + 3, y + 3], fill=dark)
    elif kind == "powerbank":
        cyl(50, 60, 170, 250, r=18)
        d.rectangle([95, 58, 125, 66], fill=(60, 60, 60))
        for i in range(4):
            d.ellipse([80 + i * 16, 220, 88 + i * 16, 228], fill=(80, 200, 120))
    elif kind == "band":
        d.ellipse([40, 60, 180, 240], outline=c, width=22)
        d.rounded_rectangle([85, 120, 135, 180], 10, fill=(20, 20, 25))
        d.text((95, 140), "10:08", fill=(120, 220, 200))
    elif kind == "pad":
        d.ellipse([30, 130, 190, 210], fill=dark)
        d.ellipse([30, 120, 190, 196], fill=c, outline=dark, width=2)
        d.ellipse([100, 150, 120, 162], fill=(120, 200, 255))
    elif kind == "stand":
        d.polygon([(60, 250), (160, 250), (130, 120), (115, 120)], fill=c, outline=dark)
        d.rounded_rectangle([50, 40, 170, 200], 10, fill=(30, 30, 35))
        d.rounded_rectangle([58, 48, 162, 192], 6, fill=(90, 140, 220))
    elif kind == "folded":
        for i in range(3):
            y = 200 - i * 45
            d.rounded_rectangle([30, y - 40, 190, y + 20], 14, fill=tuple(int(v * (0.8 + i * 0.08)) for v in c), outline=dark, width=2)
            for x in range(40, 185, 12):
                d.line([(x, y - 36), (x, y + 16)], fill=tuple(int(v * 0.9) for v in c))
    elif kind == "diffuser":
        d.polygon([(70, 250), (150, 250), (170, 120), (50, 120)], fill=(150, 105, 65))
        d.ellipse([50, 100, 170, 140], fill=(235, 230, 222))
        for i in range(4):
            d.arc([90 + i * 6, 20 + i * 14, 130 + i * 6, 70 + i * 14], 90, 270, fill=(210, 210, 215), width=4)
    elif kind == "jars":
        for x, hh in ((30, 110), (90, 150), (150, 80)):
            d.rounded_rectangle([x, 250 - hh, x + 50, 250], 8, fill=(220, 235, 240), outline=(160, 180, 190), width=2)
            d.rectangle([x - 2, 240 - hh, x + 52, 252 - hh], fill=(120, 90, 60))
            d.line([(x + 10, 260 - hh), (x + 10, 240)], fill=(255, 255, 255), width=3)
    elif kind in ("dropper", "perfume", "pump", "bottle", "tube", "polish", "lipstick", "jar"):
        if kind == "dropper":
            cyl(75, 100, 145, 250, r=14)
            d.rounded_rectangle([92, 60, 128, 102], 6, fill=(30, 30, 30))
            d.ellipse([88, 30, 132, 70], fill=(40, 40, 40))
        elif kind == "perfume":
            cyl(55, 110, 165, 250, r=24)
            d.rectangle([95, 70, 125, 112], fill=(200, 170, 90))
            d.rounded_rectangle([80, 35, 140, 75], 10, fill=(230, 200, 110))
        elif kind == "pump":
            cyl(70, 90, 150, 260, r=16)
            d.rectangle([100, 50, 120, 92], fill=(240, 240, 240))
            d.rectangle([100, 46, 150, 58], fill=(240, 240, 240))
        elif kind == "bottle":
            cyl(75, 60, 145, 265, r=20)
            d.rounded_rectangle([85, 30, 135, 64], 8, fill=(50, 50, 55))
        elif kind == "tube":
            d.polygon([(80, 60), (140, 60), (150, 230), (70, 230)], fill=c, outline=dark)
            d.rounded_rectangle([85, 230, 135, 262], 6, fill=(245, 245, 245), outline=(180, 180, 180))
            d.rectangle([90, 110, 130, 170], fill=(255, 255, 255))
        elif kind == "polish":
            for i, col in enumerate(("red", "pink", "orange") if color != "pink" else ("pink", "purple", "beige")):
                x = 30 + i * 60
                d.rounded_rectangle([x, 150, x + 46, 240], 10, fill=COLORS[col])
                d.rectangle([x + 14, 90, x + 32, 152], fill=(30, 30, 30))
        elif kind == "lipstick":
            d.rounded_rectangle([80, 150, 140, 260], 6, fill=(40, 40, 45))
            d.rectangle([86, 100, 134, 152], fill=(200, 170, 90))
            d.polygon([(90, 100), (130, 100), (130, 50), (90, 70)], fill=c)
        else:
            cyl(40, 140, 180, 240, r=20)
            d.rounded_rectangle([34, 110, 186, 150], 10, fill=(240, 240, 240), outline=(180, 180, 180))
        if kind not in ("polish", "lipstick", "tube", "jar"):
            d.rectangle([85, 160, 135, 200], fill=(250, 250, 248))
    elif kind == "mat":
        d.rectangle([30, 150, 200, 250], fill=tuple(int(v * 0.85) for v in c))
        d.ellipse([10, 150, 60, 250], fill=c, outline=dark, width=3)
        d.ellipse([22, 172, 48, 228], outline=dark, width=3)
    elif kind == "dumbbell":
        for y in (110, 200):
            d.rectangle([60, y - 6, 160, y + 6], fill=(150, 150, 150))
            for x in (40, 150):
                d.rounded_rectangle([x, y - 34, x + 30, y + 34], 8, fill=c, outline=(90, 90, 90))
    elif kind == "bands":
        for i, col in enumerate(("red", "yellow", "green", "blue")):
            d.ellipse([30 + i * 10, 70 + i * 30, 190 - i * 10, 150 + i * 30], outline=COLORS[col], width=10)
    elif kind == "backpack":
        d.rounded_rectangle([50, 40, 170, 270], 40, fill=c, outline=dark, width=3)
        d.rounded_rectangle([70, 160, 150, 250], 16, fill=tuple(int(v * 0.85) for v in c), outline=dark, width=2)
        d.arc([80, 10, 140, 70], 180, 360, fill=dark, width=8)
    elif kind == "rope":
        d.arc([30, 50, 190, 260], 200, 340, fill=c, width=6)
        d.arc([40, 60, 200, 250], 30, 160, fill=c, width=6)
        for x in (40, 180):
            d.rounded_rectangle([x - 10, 160, x + 10, 250], 8, fill=(40, 40, 40))
    elif kind == "roller":
        cyl(30, 120, 190, 230, r=40)
        for x in range(40, 190, 12):
            d.line([(x, 124), (x, 226)], fill=dark, width=2)
    elif kind == "hammock":
        d.line([(10, 60), (60, 140)], fill=(120, 100, 80), width=3)
        d.line([(210, 60), (160, 140)], fill=(120, 100, 80), width=3)
        d.chord([40, 60, 180, 220], 0, 180, fill=c, outline=dark)
    else:
        raise SystemExit(f"unknown shape {kind}")
    return im


def studio(app, rel, draw, bg_color, size=(320, 320), floor=0.86, height=0.7):
    """A product photo: the product on a soft studio sweep with its shadow."""
    w, h = size
    rng = rng_for(rel)
    canvas = to_image(scene_background("studio:" + bg_color, w, h, rng))
    used = []
    item = draw(used)
    scale = height * h / item.height
    item = item.resize((max(1, int(item.width * scale)), int(item.height * scale)), Image.LANCZOS)
    if item.width > w * 0.86:
        item = item.resize((int(w * 0.86), max(1, int(item.height * w * 0.86 / item.width))), Image.LANCZOS)
    x, y = (w - item.width) // 2, int(h * floor - item.height)
    sh = Image.new("L", (w, h), 0)
    ImageDraw.Draw(sh).ellipse([x + item.width * 0.1, h * floor - 10, x + item.width * 0.95, h * floor + 10], fill=110)
    canvas.paste(Image.new("RGB", (w, h), (40, 36, 32)), (0, 0), sh.filter(ImageFilter.GaussianBlur(8)))
    canvas.paste(item, (x, y), item)
    save(finish(canvas, rng, grain=2.5, vignette=0.12), app, rel, used)


def shop():
    path = ROOT / "apps/shopping/content/products.ron"
    items = read_ron(path)
    backdrops = ["beige", "blue", "pink", "green", "grey", "yellow"]
    for p in items:
        kind, what, mode, shows = PRODUCTS[p["name"]]
        named = [NAMED[c.lower()] for c in p.get("colors", [])]
        color = named[0] if named else None
        rel = f"images/product{p['id']:02d}.jpg"

        def draw(used, kind=kind, what=what, mode=mode, color=color):
            if kind == "clip":
                im = clip(what)
                im = im.resize((int(im.width * 300 / im.height), 300), Image.LANCZOS) if im.height > 300 else im
                used.append(what)
                return recolor(im, color, mode or "saturated") if mode else im
            return draw_shape(what, color or mode or "grey", 220)

        studio("shopping", rel, draw, backdrops[p["id"] % len(backdrops)])
        shown = [color] if color and (kind == "shape" or mode) else ([mode] if kind == "shape" and mode else [])
        for k in ("photo", "shows", "photo_colors"):
            p.pop(k, None)
        p["photo"] = rel
        p["shows"] = [shows]
        p["photo_colors"] = shown
    write_ron_indented(path, items)


# ------------------------------------------------------------------------------------- food
def top_dish(vessel, base, toppings):
    """A dish seen from above (what a food photo on a delivery app looks like): the vessel
    (bowl, plate, board, glass) with its food and toppings, drawn on a transparent canvas."""
    def draw(canvas, rng):
        w, h = canvas.size
        cx, cy = w / 2, h * 0.54
        rx, ry = w * 0.36, h * 0.4
        a = np.asarray(canvas).astype(np.float32)
        # shadow
        paint(a, ellipse_mask(w, h, cx + 8, cy + 10, rx * 1.05, ry * 1.05, blur=0.5), (30, 20, 15), 0.4)
        if vessel == "board":
            a[int(cy - ry * 0.7):int(cy + ry * 0.7), int(cx - rx * 1.2):int(cx + rx * 1.2)] = (60, 62, 66)
        else:
            rim = {"bowl": (232, 232, 226), "plate": (244, 244, 240), "dark": (45, 45, 50), "glass": (230, 236, 240)}[vessel]
            paint(a, ellipse_mask(w, h, cx, cy, rx, ry), rim)
            paint(a, ellipse_mask(w, h, cx - rx * 0.1, cy - ry * 0.1, rx * 0.5, ry * 0.5, blur=2), (255, 255, 255), 0.15)
            inner = 0.8 if vessel != "plate" else 0.62
            food = ellipse_mask(w, h, cx, cy, rx * inner, ry * inner)
            tex = smooth_noise(rng, w, h, 8, 18)[..., None] + rng.normal(0, 6, (h, w, 1))
            fill = np.array(COLORS[base] if isinstance(base, str) else base, np.float32) + tex
            a = a * (1 - food[..., None]) + fill * food[..., None]
        canvas.paste(to_image(a))
        d = ImageDraw.Draw(canvas)
        for color, shape, n in toppings:
            c = COLORS[color] if isinstance(color, str) else color
            for _ in range(n):
                ang, rad = rng.uniform(0, 2 * np.pi), np.sqrt(rng.uniform(0, 1)) * 0.62
                x, y = cx + np.cos(ang) * rx * rad, cy + np.sin(ang) * ry * rad
                k = tuple(int(max(0, min(255, v + rng.uniform(-18, 18)))) for v in c)
                if shape == "dot":
                    r = rng.uniform(3, 6)
                    d.ellipse([x - r, y - r, x + r, y + r], fill=k)
                elif shape == "chunk":
                    r = rng.uniform(7, 13)
                    d.rounded_rectangle([x - r, y - r * 0.7, x + r, y + r * 0.7], 4, fill=k, outline=tuple(int(v * 0.75) for v in k))
                elif shape == "leaf":
                    r = rng.uniform(8, 15)
                    d.ellipse([x - r, y - r / 2.2, x + r, y + r / 2.2], fill=k)
                elif shape == "noodle":
                    pts = [(x + t * 9, y + np.sin(t + ang) * 10) for t in range(-4, 5)]
                    d.line(pts, fill=k, width=4)
                elif shape == "slice":
                    r = rng.uniform(10, 16)
                    d.ellipse([x - r, y - r, x + r, y + r], fill=k, outline=tuple(int(v * 0.7) for v in k), width=2)
                elif shape == "nigiri":
                    d.rounded_rectangle([x - 22, y - 10, x + 22, y + 10], 8, fill=(246, 244, 236))
                    d.rounded_rectangle([x - 24, y - 13, x + 24, y + 4], 8, fill=k)
                    for t in range(-18, 20, 8):
                        d.line([(x + t, y - 12), (x + t + 5, y + 3)], fill=(255, 210, 190), width=2)
                elif shape == "roll":
                    d.ellipse([x - 14, y - 14, x + 14, y + 14], fill=(30, 40, 30))
                    d.ellipse([x - 11, y - 11, x + 11, y + 11], fill=(246, 244, 236))
                    d.ellipse([x - 5, y - 5, x + 5, y + 5], fill=k)
                elif shape == "egg":
                    d.ellipse([x - 18, y - 15, x + 18, y + 15], fill=(250, 250, 245))
                    d.ellipse([x - 7, y - 7, x + 7, y + 7], fill=(250, 180, 30))
    return draw


# Dishes by what their name says: a clip (with a colour) or a dish seen from above.
DISHES = [
    (r"pepperoni|diavola", ("clip", "food/pizza_pepperoni.png", None, "pizza", ["red"])),
    (r"pizza|slice|white pie", ("clip", "food/pizza_cheese.png", None, "pizza", ["yellow"])),
    (r"smash burger|veggie stack", ("clip", "food/meats_and_eggs/hamburger_ganson.png", None, "burger", ["brown"])),
    (r"chicken sandwich", ("clip", "food/meats_and_eggs/chicken_burger.png", None, "burger", ["brown"])),
    (r"fries", ("clip", "food/fries_ganson.png", None, "fries", ["yellow"])),
    (r"banh mi|pulled pork", ("clip", "food/submarine_sandwich_01.png", None, "sandwich", ["brown"])),
    (r"burrito|wrap|gyro", ("clip", "food/burrito_ganson.png", None, "wrap", ["beige"])),
    (r"croissant|pain au", ("clip", "food/breads_and_carbs/croissant_01.png", None, "croissant", ["brown"])),
    (r"naan|cornbread|knots", ("clip", "food/breads_and_carbs/bread_01.png", None, "bread", ["brown"])),
    (r"dumplings|spanakopita", ("clip", "food/perogies_ganson.png", None, "dumplings", ["beige"])),
    (r"ribs|brisket|mixed grill|souvlaki", ("clip", "food/meats_and_eggs/steak-v0.1.png", None, "grilled meat", ["brown"])),
    (r"cone|two-scoop|pint", ("clip", "food/desserts/ice_cream_cone_linda_kim_01.png", None, "ice cream", ["pink"])),
    (r"sundae|tiramisu|financier|baklava|knafeh", ("clip", "food/desserts/cake_jarno_vasamaa_r.png", None, "cake", ["brown"])),
    (r"coffee|café|affogato", ("clip", "food/beverages/coffee_ganson.png", None, "coffee", ["brown"])),
    (r"lassi|sticky rice", ("clip", "food/beverages/drinking_glass_with_red_punch_01.png", "yellow", "drink", ["yellow"])),
    (r"horchata|shake|chia", ("clip", "food/beverages/drinking_glass_with_red_punch_01.png", "beige", "drink", ["beige"])),
    (r"smoothie", ("clip", "food/beverages/drinking_glass_with_red_punch_01.png", "green", "drink", ["green"])),
    (r"nigiri", ("top", "board", None, [("orange", "nigiri", 5)], "sushi", ["orange", "white"])),
    (r"dragon roll|spring rolls", ("top", "board", None, [("green", "roll", 8)], "sushi rolls", ["green", "white"])),
    (r"soup|jjigae|pho|tom yum|green curry", ("top", "bowl", None, [("green", "leaf", 6), ("white", "chunk", 5)], "soup", None)),
    (r"salad|fattoush", ("top", "plate", "green", [("red", "dot", 12), ("white", "chunk", 6), ("green", "leaf", 14)], "salad", ["green"])),
    (r"bolognese|chow fun|pad thai|japchae|bun cha", ("top", "plate", (215, 175, 100), [("yellow", "noodle", 18), ("brown", "chunk", 6), ("green", "leaf", 4)], "noodles", None)),
    (r"edamame", ("top", "bowl", (90, 160, 70), [("green", "leaf", 22)], "edamame", ["green"])),
    (r"guacamole|hummus", ("top", "bowl", (120, 165, 70), [("yellow", "slice", 6)], "dip", ["green"])),
    (r"tacos", ("top", "plate", (235, 215, 160), [("red", "dot", 14), ("green", "leaf", 8), ("brown", "chunk", 6)], "tacos", ["red", "green"])),
    (r"mac & cheese|quiche", ("top", "dark", "yellow", [("orange", "dot", 16)], "baked dish", ["yellow"])),
    (r"fried chicken|katsu|kung pao", ("top", "plate", (200, 140, 60), [("orange", "chunk", 12), ("green", "leaf", 5)], "fried chicken", ["orange"])),
    (r"tteokbokki", ("top", "dark", "red", [("white", "chunk", 12)], "rice cakes", ["red"])),
    (r"fried rice|biryani|bibimbap|don|poke|harvest|carne asada", ("top", "bowl", (238, 225, 190), [("orange", "chunk", 6), ("green", "leaf", 6), ("yellow", "egg", 1)], "rice bowl", None)),
    (r"butter chicken|paneer|mapo", ("top", "bowl", None, [("white", "chunk", 8)], "curry", None)),
    (r"papaya", ("top", "plate", (200, 220, 150), [("orange", "noodle", 12), ("red", "dot", 8)], "salad", ["green", "orange"])),
]
# The sauce or broth colour where the name says it.
BASES = [(r"green curry|palak|smoothie", "green"), (r"butter chicken|tom yum|kimchi|mapo|diavola", "red"), (r"miso|pho", "brown"),
         (r"lamb biryani|mango", "orange")]


def dish_spec(name):
    low = name.lower()
    for pattern, spec in DISHES:
        if re.search(pattern, low):
            return spec
    raise SystemExit(f"no picture rule for the dish {name!r}")


def dish_photo(rel, name, size=(320, 240)):
    spec = dish_spec(name)
    low = name.lower()
    base = next((c for p, c in BASES if re.search(p, low)), "orange")
    if spec[0] == "clip":
        _, path, color, shows, colors = spec
        photo("food", rel, "table", [obj(path, 0.5, 0.9, 0.72, color, mode="body" if color == "white" else "saturated")], size=size)
        return shows, colors
    _, vessel, fill, toppings, shows, colors = spec
    fill = fill or base
    photo("food", rel, "table", [], size=size, under=top_dish(vessel, fill, toppings))
    return shows, colors or [fill if isinstance(fill, str) else base]


def restaurant_photo(rel, r):
    """A restaurant's header: three of its dishes on its table."""
    w, h = 480, 270
    rng = rng_for(rel)
    canvas = to_image(scene_background("table", w, h, rng))
    used = []
    for dish, fx in zip(r["menu"][:3], (0.2, 0.5, 0.8)):
        tile = Image.new("RGB", (200, 150))
        tile.paste(canvas.crop((int(fx * w) - 100, 60, int(fx * w) + 100, 210)))
        spec = dish_spec(dish["name"])
        if spec[0] == "clip":
            place(tile, spec[1], 100, 140, 100, spec[2], "body" if spec[2] == "white" else "saturated", sources=used)
        else:
            low = dish["name"].lower()
            base = next((c for p, c in BASES if re.search(p, low)), "orange")
            top_dish(spec[1], spec[2] or base, spec[3])(tile, rng)
        canvas.paste(tile, (int(fx * w) - 100, 60))
    save(finish(canvas, rng), "food", rel, used)


def food():
    path = ROOT / "apps/food/content/restaurants.ron"
    items = read_ron(path)
    for r in items:
        rel = f"images/r{r['id']:02d}.jpg"
        restaurant_photo(rel, r)
        r["photo"] = rel
        r["shows"] = [dish_spec(d["name"])[3] for d in r["menu"][:3]]
        for dish in r["menu"]:
            drel = f"images/r{r['id']:02d}d{dish['id']}.jpg"
            shows, colors = dish_photo(drel, dish["name"])
            dish["photo"], dish["shows"], dish["colors"] = drel, [shows], colors
    write_ron_indented(path, items)


# ----------------------------------------------------------------------------------- movies
def draw_lanterns(canvas, rng):
    w, h = canvas.size
    a = np.asarray(canvas).astype(np.float32)
    for _ in range(16):
        x, y, r = rng.uniform(0.08, 0.92) * w, rng.uniform(0.08, 0.6) * h, rng.uniform(8, 20)
        paint(a, ellipse_mask(w, h, x, y, r * 3, r * 3, blur=2.5), (255, 160, 60), 0.35)
        paint(a, ellipse_mask(w, h, x, y, r, r * 1.25), (255, 190, 90))
        paint(a, ellipse_mask(w, h, x, y, r * 0.5, r * 0.7, blur=1), (255, 240, 200))
    canvas.paste(to_image(a))


def draw_aurora(canvas, rng):
    w, h = canvas.size
    a = np.asarray(canvas).astype(np.float32)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    for k, col in enumerate(((60, 230, 140), (80, 200, 220), (160, 90, 220))):
        centre = h * (0.22 + 0.08 * k) + np.sin(x / w * 6 + k) * h * 0.05
        band = np.exp(-((y - centre) / (h * 0.05)) ** 2) * (0.55 - 0.12 * k)
        a = a * (1 - band[..., None]) + np.array(col) * band[..., None]
    canvas.paste(to_image(a))


def night_city(canvas, rng):
    a = np.asarray(canvas).astype(np.float32)
    a *= np.array((0.35, 0.4, 0.7))
    canvas.paste(to_image(a))


def tint(col, strength):
    def f(canvas, rng):
        a = np.asarray(canvas).astype(np.float32)
        canvas.paste(to_image(a * (1 - strength) + np.array(COLORS[col]) * strength))
    return f


POSTERS = {
    1: ("night", [obj("geography/planet_costea_bogdan_r.png", 0.7, 0.35, 0.26, shadow=0), obj("transportation/vehicles/rocket.png", 0.4, 0.85, 0.5, shadow=0)],
        ["rocket", "planet", "stars"], ["navy", "orange"], None),
    2: ("sunset", [obj("food/fruit/tree_whit_fruits_01.png", x, 0.92, hh, shadow=0.3) for x, hh in ((0.2, 0.36), (0.75, 0.44), (0.48, 0.3))],
        ["apple trees", "sunset"], ["orange", "green"], None),
    3: ("studio:red", [obj("food/chef_jarno_vasamaa_.png", 0.3, 0.9, 0.62), obj("food/bowl_of_steaming_soup_01.png", 0.68, 0.9, 0.3)],
        ["chef", "ramen bowl"], ["red"], tint("red", 0.25)),
    4: ("city", [obj("computer/hardware/laptop_01.png", 0.5, 0.95, 0.3, shadow=0.2)], ["laptop", "city at night"], ["navy"], chain(night_city, tint("teal", 0.15))),
    5: ("night", [obj("people/io_bambina_architetto_fr_01.png", 0.5, 0.97, 0.35, "red", shadow=0)], ["lanterns", "girl"], ["orange", "navy"], draw_lanterns),
    6: ("snow", [obj("recreation/holiday/sportcar_sergio_luiz_ara_01.png", 0.5, 0.93, 0.16, "red")], ["car", "northern lights"], ["green", "red"],
        chain(night_city, draw_aurora)),
}


def movies():
    path = ROOT / "apps/movies/content/movies.ron"
    items = read_ron(path)
    for m in items:
        scene, objects, shows, colors, extra = POSTERS[m["id"]]
        rel = f"images/poster{m['id']}.jpg"
        if m["id"] in (4, 6):  # darkened backdrop first, then the objects and the sky on it
            photo("movies", rel, scene, objects, size=(320, 480), under=extra)
        else:
            photo("movies", rel, scene, objects, size=(320, 480), extra=extra)
        m["poster"], m["shows"], m["colors"] = rel, shows, colors
    write_ron_lines(path, items)


# ------------------------------------------------------------------------------------ music
def cover_art(rel, color, objects, shows, rng_extra=None):
    """An album cover: a field of the album's colour with a soft light, and its motif."""
    w = h = 320
    rng = rng_for(rel)
    c = np.array(tuple(int(color[i:i + 2], 16) for i in (1, 3, 5)), np.float32)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot((x - w * 0.35) / w, (y - h * 0.3) / h)
    arr = c[None, None, :] * (1.25 - 0.7 * r[..., None]) + smooth_noise(rng, w, h, 40, 12)[..., None]
    canvas = to_image(arr)
    if rng_extra:
        rng_extra(canvas, rng)
    used = []
    for o in objects:
        place(canvas, o["clip"], o["x"] * w, o["y"] * h, int(o["h"] * h), o.get("color"), o.get("mode", "saturated"), o.get("shadow", 0), o.get("flip", False), used)
    save(finish(canvas, rng, grain=3, vignette=0.3), "music", rel, used)


def draw_grid_sun(canvas, rng):
    w, h = canvas.size
    d = ImageDraw.Draw(canvas)
    d.ellipse([w * 0.25, h * 0.15, w * 0.75, h * 0.65], fill=(255, 120, 160))
    for k in range(6):
        d.rectangle([w * 0.2, h * (0.42 + k * 0.04), w * 0.8, h * (0.42 + k * 0.04) + 3 + k], fill=(0, 131, 143))
    for x in range(-200, w + 200, 30):
        d.line([(w / 2 + (x - w / 2) * 0.2, h * 0.65), (x, h)], fill=(255, 80, 200), width=2)
    for k in range(6):
        yy = h * 0.65 + (h * 0.35) * (k / 6) ** 1.6
        d.line([(0, yy), (w, yy)], fill=(255, 80, 200), width=2)


ALBUMS = {
    1: ([], ["lanterns"], draw_lanterns),
    2: ([obj("geography/planet_costea_bogdan_r.png", 0.5, 0.8, 0.56)], ["planet"], None),
    3: ([obj("plants/sun_flower_ganson.png", 0.5, 0.95, 0.8)], ["sunflower"], None),
    4: ([], ["sun", "grid"], draw_grid_sun),
    5: ([obj("recreation/music/piano_geraint_luff_01.png", 0.5, 0.85, 0.6)], ["piano"], None),
    6: ([obj("recreation/music/electric_guitar_andrea__01r.png", 0.5, 0.95, 0.86)], ["guitar"], None),
    7: ([obj("recreation/music/microphone_stand_gerald__01.png", 0.5, 0.95, 0.86)], ["microphone"], None),
    8: ([obj("recreation/music/trumpet_b_flat_colour_ganso.png", 0.5, 0.75, 0.42)], ["trumpet"], None),
    9: ([], ["mountains"], None),
    10: ([obj("food/meats_and_eggs/fuoco_da_campeggio_archi_01.png", 0.5, 0.9, 0.6)], ["campfire"], None),
}


def music():
    path = ROOT / "apps/music/content/albums.ron"
    items = read_ron(path)
    for a in items:
        objects, shows, extra = ALBUMS[a["id"]]
        rel = f"images/album{a['id']:02d}.jpg"
        if a["id"] == 9:
            rng = rng_for(rel)
            arr = scene_background("mountains", 320, 320, rng)
            arr = arr * 0.6 + np.array(tuple(int(a["color"][i:i + 2], 16) for i in (1, 3, 5))) * 0.4
            save(finish(to_image(arr), rng), "music", rel, [])
        else:
            cover_art(rel, a["color"], objects, shows, extra)
        a["cover"], a["shows"] = rel, shows
    write_ron_lines(path, items)


# ------------------------------------------------------------------------------------- chat
def chat():
    """Chatly Moments: photos in some posts of the feed (in app.ron's state). A dish photo is
    the Food app's picture of that dish, so a task can tie the post to the dish to order."""
    app = ROOT / "apps/chat/app.ron"
    text = app.read_text()
    posts = {
        2: [("images/moment2a.jpg", "table", [obj("food/fruit/peach_simple.png", x, y, 0.3) for x, y in ((0.25, 0.6), (0.5, 0.52), (0.4, 0.85), (0.72, 0.8))], ["peaches"], ["orange"], None),
            ("images/moment2b.jpg", "table", [obj("food/vegetables/pannocchia_di_gran_turc_01.png", 0.35, 0.9, 0.7), obj("food/fruit/peach_simple.png", 0.7, 0.85, 0.3)], ["corn", "peach"], ["yellow", "orange"], None)],
        3: [("images/moment3a.jpg", "bay", [obj(BIKE, 0.45, 0.95, 0.5, "green")], ["bicycle", "bay"], ["green"], None)],
        6: [("images/moment6a.jpg", "gym", [obj("people/kid_01.png", 0.72, 0.62, 0.42, shadow=0)], ["climber", "climbing wall"], ["yellow"], None)],
    }
    for pid, photos in posts.items():
        out = []
        for rel, scene, objects, shows, colors, extra in photos:
            photo("chat", rel, scene, objects, under=draw_holds if scene == "gym" else None, extra=extra)
            out.append(look(rel, scene, shows, colors))
        text = set_post_photos(text, pid, out)
    # Mei's dumplings: the Food app's Golden Wok "Pork Dumplings (8)" picture, and which dish it is.
    food_items = read_ron(ROOT / "apps/food/content/restaurants.ron")
    wok = next(r for r in food_items if r["name"] == "Golden Wok")
    dish = next(d for d in wok["menu"] if d["name"].startswith("Pork Dumplings"))
    rel = "images/moment5a.jpg"
    dish_photo_into("chat", rel, dish["name"])
    m = look(rel, "table", dish["shows"], dish["colors"])
    m["dish"] = {"restaurant": wok["name"], "name": dish["name"]}
    text = set_post_photos(text, 5, [m])
    app.write_text(text)


def dish_photo_into(app, rel, name):
    """A dish photo saved into another app's bundle (the same composition as Food's)."""
    spec = dish_spec(name)
    if spec[0] == "clip":
        photo(app, rel, "table", [obj(spec[1], 0.5, 0.9, 0.72, spec[2])], size=(480, 360))
    else:
        photo(app, rel, "table", [], size=(480, 360), under=top_dish(spec[1], spec[2] or "orange", spec[3]))


def set_post_photos(text, pid, photos):
    line = re.compile(r'(\{"id": ' + str(pid) + r', "author": [^\n]*?)(, "photos": \[.*?\])?(, "time": )')
    new, n = line.subn(lambda m: m.group(1) + ', "photos": ' + json.dumps(photos, ensure_ascii=False) + m.group(3), text, count=1)
    if n != 1:
        raise SystemExit(f"apps/chat/app.ron: no feed post {pid}")
    return new


# --------------------------------------------------------------------------------- contacts
FACES = {
    1: ("people/people_juliane_krug_01a.png", "pink"), 3: ("people/people_juliane_krug_02b.png", "teal"),
    5: ("people/people_juliane_krug_03c.png", "yellow"), 6: ("people/people_juliane_krug_04a.png", "blue"),
    9: ("people/people_juliane_krug_05b.png", "green"), 11: ("people/people_juliane_krug_06a.png", "orange"),
    15: ("people/people_juliane_krug_07c.png", "purple"), 17: ("people/people_juliane_krug_08b.png", "pink"),
    21: ("people/people_juliane_krug_09a.png", "yellow"), 24: ("people/people_juliane_krug_02a.png", "grey"),
}


def contacts():
    out = []
    for cid, (face, bg) in FACES.items():
        rel = f"images/contact{cid:02d}.jpg"
        w = h = 240
        rng = rng_for(rel)
        canvas = to_image(scene_background("studio:" + bg, w, h, rng))
        used = []
        place(canvas, face, w / 2, h * 1.02, int(h * 0.86), shadow=0, sources=used)
        save(finish(canvas, rng, grain=2.5, vignette=0.2), "contacts", rel, used)
        out.append({"id": cid, "photo": rel, "shows": ["person"], "colors": [bg]})
    path = ROOT / "apps/contacts/content/photos.ron"
    path.write_text("// Contact photos (made by assets/gen_images.py): the contact's id, the picture and what it shows.\n[]\n") if not path.exists() else None
    write_ron_lines(path, out)


# ---------------------------------------------------------------------------------- weather
def draw_rain(strength, lightning=False):
    def f(canvas, rng):
        w, h = canvas.size
        a = np.asarray(canvas).astype(np.float32) * (1 - 0.25 * strength)
        canvas.paste(to_image(a))
        d = ImageDraw.Draw(canvas)
        for _ in range(int(260 * strength)):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            d.line([(x, y), (x - 4, y + 14)], fill=(200, 210, 225), width=1)
        if lightning:
            x, y = w * 0.6, 0
            pts = [(x, y)]
            while y < h * 0.6:
                x += rng.uniform(-20, 20)
                y += rng.uniform(15, 30)
                pts.append((x, y))
            d.line(pts, fill=(255, 255, 220), width=4)
    return f


def overcast(darkness):
    def f(canvas, rng):
        w, h = canvas.size
        a = np.asarray(canvas).astype(np.float32)
        sky = np.clip(smooth_noise(rng, w, h, 50, 0.25) + 0.7, 0, 1)[..., None]
        sky[int(h * 0.5):] *= 0.2
        grey = np.array((170, 175, 182)) * (1 - darkness)
        canvas.paste(to_image(a * (1 - sky) + grey * sky))
    return f


def draw_wind(canvas, rng):
    w, h = canvas.size
    d = ImageDraw.Draw(canvas)
    for _ in range(12):
        x, y = rng.uniform(-50, w), rng.uniform(0.05, 0.5) * h
        d.arc([x, y, x + 160, y + 40], 200, 340, fill=(245, 248, 255), width=3)
    for _ in range(20):
        x, y = rng.uniform(0, w), rng.uniform(0.1, 0.9) * h
        d.ellipse([x, y, x + 8, y + 4], fill=COLORS[rng.choice(["orange", "yellow", "brown"])])


WEATHER = {
    "Sunny": ("park", None, ["sun", "park"]), "Clear": ("night", None, ["moon", "stars"]),
    "Partly cloudy": ("park", None, ["clouds", "sun"]), "Cloudy": ("park", overcast(0.1), ["clouds"]),
    "Rain": ("city", chain(overcast(0.3), draw_rain(1.0)), ["rain"]), "Showers": ("park", chain(overcast(0.15), draw_rain(0.5)), ["rain", "clouds"]),
    "Thunderstorms": ("city", chain(overcast(0.55), draw_rain(0.8, lightning=True)), ["lightning", "rain"]),
    "Snow": ("snow", None, ["snow"]), "Fog": ("fog", draw_fog(0.4), ["fog"]), "Windy": ("park", draw_wind, ["wind", "leaves"]),
}


def weather():
    for cond, (scene, extra, shows) in WEATHER.items():
        rel = "images/" + cond.lower().replace(" ", "_") + ".jpg"
        objects = []
        if cond == "Clear":
            objects = [obj("science/astronomy/full_moon_dan_gerhards_01.png", 0.75, 0.4, 0.25, shadow=0)]
        w, h = 480, 240
        rng = rng_for(rel)
        canvas = to_image(scene_background(scene, w, h, rng))
        if cond in ("Sunny", "Partly cloudy"):
            a = np.asarray(canvas).astype(np.float32)
            paint(a, ellipse_mask(w, h, w * 0.78, h * 0.22, 60, 60, blur=3), (255, 240, 180), 0.5)
            paint(a, ellipse_mask(w, h, w * 0.78, h * 0.22, 20, 20, blur=0.2), (255, 250, 225))
            if cond == "Partly cloudy":
                for _ in range(6):
                    paint(a, ellipse_mask(w, h, rng.uniform(0.4, 1) * w, rng.uniform(0.1, 0.35) * h, 60, 18, blur=1.2), (250, 250, 252), 0.9)
            canvas = to_image(a)
        used = []
        for o in objects:
            place(canvas, o["clip"], o["x"] * w, o["y"] * h, int(o["h"] * h), shadow=0, sources=used)
        if extra:
            extra(canvas, rng)
        save(finish(canvas, rng), "weather", rel, used)


def write_index():
    """assets/IMAGES.md: every image, the clip art it uses, its licence, and the total size."""
    files = sorted(SOURCES)
    total = sum((ROOT / f).stat().st_size for f in files)
    out = [
        "# Content images",
        "",
        "The pictures the apps show (photos, products, dishes, posters, album covers, Moments,",
        "contact photos, weather). Every one is composed by `assets/gen_images.py` (generated",
        "scenes: skies, sea, walls, tables, studio light, drawn shapes) from public-domain clip art",
        "of Debian's `openclipart-png` package (Open Clip Art Library: public domain, CC0 1.0), and",
        "is itself public domain (CC0 1.0). What each image shows is in the app's content next to",
        "the item (`docs/app-format.md`, \"Content images\").",
        "",
        "Regenerate (deterministic: the same bytes every run):",
        "",
        "```sh",
        "apt-get install -y openclipart-png",
        "python3 -m venv /tmp/img-venv && /tmp/img-venv/bin/pip install pillow numpy",
        "/tmp/img-venv/bin/python assets/gen_images.py",
        "```",
        "",
        f"{len(files)} images, {total:,} bytes ({total / 1048576:.2f} MiB) in total.",
        "",
        "| image | bytes | clip art (`/usr/share/openclipart/png/...`) |",
        "|---|---:|---|",
    ]
    for f in files:
        clips = ", ".join(f"`{c}`" for c in SOURCES[f]) or "none: generated by `assets/gen_images.py`"
        out.append(f"| `{f}` | {(ROOT / f).stat().st_size:,} | {clips} |")
    (ROOT / "assets/IMAGES.md").write_text("\n".join(out) + "\n")


ALL = ["gallery", "shop", "food", "movies", "music", "chat", "contacts", "weather"]

if __name__ == "__main__":
    for name in sys.argv[1:] or ALL:
        globals()[name]()
    if not sys.argv[1:]:
        write_index()
