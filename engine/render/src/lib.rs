//! phoneworld-render: rasterizes a display list into an opaque RGBA frame. Shapes are
//! anti-aliased coverage from tiny-skia, glyphs come from the shared cache of
//! `phoneworld-text`, colour emoji are bitmaps scaled like images, and integer blend loops
//! apply them all, so output is bit-exact.

mod arc;
mod blend;
mod color;
mod damage;
mod emoji;
mod frame;
mod image;
mod mask_cache;
mod occlusion;
mod rgb;
mod scale;
mod shapes;

pub use color::{Color, Rect};
pub use damage::FrameBands;
pub use emoji::MAX_EMOJI_CACHE_BYTES;
pub use frame::Frame;
pub use image::{
    scale_window, scaled, Fit, Image, ImageError, Scaled, MAX_IMAGE_FILE_BYTES, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, MAX_SCALED_CACHE_BYTES,
};
pub use rgb::{pack_rgb, pack_rgb_into};
pub use scale::{scale_commands, uniform_scale};

use blend::{Canvas, Coverage};
use color::IRect;
use phoneworld_text::{glyph_bitmap, Placeholder, TextLayout};
use std::sync::Arc;

/// One drawing operation. Rectangle edges and stroke widths snap to whole pixels.
#[derive(Clone, PartialEq, Debug)]
pub enum DrawCmd {
    /// Filled rectangle, optional rounded corners.
    Fill {
        rect: Rect,
        color: Color,
        radius: f32,
    },
    /// Outline of a rectangle (stroke inside the rect), optional rounded corners.
    Stroke {
        rect: Rect,
        color: Color,
        width: f32,
        radius: f32,
    },
    /// Filled circle.
    Circle {
        cx: f32,
        cy: f32,
        r: f32,
        color: Color,
    },
    /// Outline of a circle; the stroke lies inside radius `r` (like `Stroke`).
    Ring {
        cx: f32,
        cy: f32,
        r: f32,
        color: Color,
        width: f32,
    },
    /// Part of a circle's outline, from `start_deg` (0 = 12 o'clock) clockwise over
    /// `sweep_deg`; the stroke lies inside radius `r`.
    Arc {
        cx: f32,
        cy: f32,
        r: f32,
        color: Color,
        width: f32,
        start_deg: f32,
        sweep_deg: f32,
    },
    /// Laid-out text (or an icon) whose box's top-left is at (x, y).
    Text {
        x: f32,
        y: f32,
        layout: Arc<TextLayout>,
        color: Color,
    },
    /// A bitmap or SVG image fitted into `rect` (see [`Fit`]), clipped to a rounded rect of
    /// `radius` or, when `circle`, to the circle inscribed in `rect`.
    Image {
        rect: Rect,
        image: Arc<Image>,
        fit: Fit,
        radius: f32,
        circle: bool,
    },
    /// Everything until the matching PopClip is clipped to this rectangle.
    PushClip(Rect),
    PopClip,
}

/// Draws the commands in order onto a frame cleared to `background` (drawn opaque).
pub fn render(cmds: &[DrawCmd], frame: &mut Frame, background: Color) {
    render_reusing(cmds, frame, background, &mut FrameBands::default());
}

/// [`render`] into a buffer that `bands` says what it holds (the previous frame drawn into it
/// with the same `bands`): only the bands whose commands changed are drawn. The pixels are
/// those `render` gives; `bands` is updated for the next frame.
pub fn render_reusing(cmds: &[DrawCmd], frame: &mut Frame, background: Color, bands: &mut FrameBands) {
    render_rows(cmds, None, frame, background, bands);
}

/// As [`render_reusing`], into a buffer that does not hold the last frame (that frame is still
/// viewed elsewhere): `bands` describe `previous`, whose unchanged rows are copied into `frame`
/// and the changed ones drawn, so the result is what drawing over `previous` itself would give.
pub fn render_over(cmds: &[DrawCmd], previous: &Frame, frame: &mut Frame, background: Color, bands: &mut FrameBands) {
    render_rows(cmds, Some(previous), frame, background, bands);
}

fn render_rows(cmds: &[DrawCmd], previous: Option<&Frame>, frame: &mut Frame, background: Color, bands: &mut FrameBands) {
    let len = frame.width as usize * frame.height as usize * 4;
    let resized = frame.pixels.len() != len;
    if resized {
        frame.pixels.resize(len, 255);
    }
    // The bands describe the previous frame when one is given, else the buffer: either is
    // unknown when its size is not this frame's.
    let given = previous.is_some();
    let previous = previous.filter(|p| (p.width, p.height) == (frame.width, frame.height) && p.pixels.len() == len);
    if (given && previous.is_none()) || (!given && resized) {
        bands.invalidate();
    }
    let mut cv = Canvas { pixels: &mut frame.pixels, width: frame.width as i32, height: frame.height as i32 };
    let background = Color { a: 255, ..background };
    let bounds = cv.bounds();
    let rows = damage::dirty_rows(cmds, bounds, background, bands);
    if let Some(previous) = previous {
        damage::copy_clean_rows(&previous.pixels, cv.pixels, cv.width as usize * 4, &rows);
    }
    if rows.is_empty() {
        return;
    }
    let occluders = occlusion::Occluders::of(cmds, bounds);
    for (y0, y1) in rows {
        draw_rows(&mut cv, cmds, &occluders, background, IRect { y0, y1, ..bounds });
    }
}

/// Draws the commands with every pixel outside `rows` left as it is.
fn draw_rows(cv: &mut Canvas<'_>, cmds: &[DrawCmd], occluders: &occlusion::Occluders, background: Color, rows: IRect) {
    for part in occluders.visible_parts(rows, None) {
        cv.fill_rect(part, part, background);
    }
    let mut clips: Vec<IRect> = Vec::new();
    for (i, cmd) in cmds.iter().enumerate() {
        let clip = clips.last().copied().unwrap_or(rows);
        match cmd {
            DrawCmd::Fill { rect, color, radius } if *radius < 0.5 => {
                let r = IRect::snap(*rect).intersect(clip);
                for part in occluders.visible_parts(r, Some(i)) {
                    cv.fill_rect(part, part, *color);
                }
            }
            DrawCmd::Fill { rect, color, radius } => shapes::fill(cv, *rect, *radius, clip, *color),
            DrawCmd::Stroke { rect, color, width, radius } => shapes::stroke(cv, *rect, *width, *radius, clip, *color),
            DrawCmd::Circle { cx, cy, r, color } => shapes::circle(cv, *cx, *cy, *r, clip, *color),
            DrawCmd::Ring { cx, cy, r, color, width } => shapes::ring(cv, *cx, *cy, *r, *width, clip, *color),
            DrawCmd::Arc { cx, cy, r, color, width, start_deg, sweep_deg } => {
                arc::arc(cv, *cx, *cy, *r, *width, *start_deg, *sweep_deg, clip, *color)
            }
            DrawCmd::Text { x, y, layout, color } => draw_text(cv, *x, *y, layout, clip, *color),
            DrawCmd::Image { rect, image, fit, radius, circle } => {
                let r = IRect::snap(*rect).intersect(clip);
                for part in occluders.visible_parts(r, Some(i)) {
                    image::draw(cv, *rect, image, *fit, *radius, *circle, part);
                }
            }
            DrawCmd::PushClip(r) => clips.push(clip.intersect(IRect::snap(*r))),
            DrawCmd::PopClip => {
                clips.pop();
            }
        }
    }
}

fn draw_text(cv: &mut Canvas<'_>, x: f32, y: f32, layout: &TextLayout, clip: IRect, c: Color) {
    let (x, y) = (x.round(), y.round());
    let bx = IRect::snap(Rect::new(x, y, layout.width, layout.height));
    // Glyph ink may overhang the box a little (italics, descenders); cull with a margin.
    let margin = layout.line_height as i32;
    let cull = IRect { x0: bx.x0 - margin, y0: bx.y0 - margin, x1: bx.x1 + margin, y1: bx.y1 + margin };
    if cull.intersect(clip).is_empty() {
        return;
    }
    for g in &layout.glyphs {
        let bm = glyph_bitmap(g.face, g.glyph, g.size_px);
        let gx = (x + g.x) as i32 + bm.left;
        let gy = (y + g.baseline) as i32 - bm.top;
        let m = Coverage { x: gx, y: gy, w: bm.width, h: bm.height, data: &bm.coverage };
        cv.blit_coverage(m, clip, c);
    }
    for e in &layout.emoji {
        if !emoji::draw(cv, x as i32, y as i32, e, clip) {
            placeholder(cv, x, y, &Placeholder { x: e.x, y: e.y, w: e.w, h: e.h }, clip, c);
        }
    }
    for p in &layout.placeholders {
        placeholder(cv, x, y, p, clip, c);
    }
}

/// A char no face covers: a box outline in the text colour.
fn placeholder(cv: &mut Canvas<'_>, x: f32, y: f32, p: &Placeholder, clip: IRect, c: Color) {
    let r = IRect::snap(Rect::new(x + p.x, y + p.y, p.w, p.h));
    let t = ((p.h / 12.0).round() as i32).max(1);
    cv.fill_rect(IRect { y1: r.y0 + t, ..r }, clip, c);
    cv.fill_rect(IRect { y0: r.y1 - t, ..r }, clip, c);
    cv.fill_rect(IRect { x1: r.x0 + t, ..r }, clip, c);
    cv.fill_rect(IRect { x0: r.x1 - t, ..r }, clip, c);
}

#[cfg(test)]
mod tests;
