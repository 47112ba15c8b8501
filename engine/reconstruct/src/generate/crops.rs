//! The look of the real app from its screenshots: image views and icons cut out of the
//! screen they were seen on, as bitmaps of the generated bundle.
//!
//! A crop is only ever a picture the app drew as a picture: an image or icon widget, at most a
//! quarter of the screen, with no text of the screen over it (text stays text, so pasting the
//! screenshot back is never what scores).

use std::collections::BTreeMap;

use super::widgets::{Widget, WidgetKind};
use crate::visual::Rgb;

/// The largest share of the screen one crop may cover.
const MAX_SCREEN_SHARE: f64 = 0.25;
/// Smallest side of a crop, in screenshot pixels: below it there is nothing to see.
const MIN_SIDE_PX: u32 = 4;
/// A text whose box lies this much inside a picture is drawn over it.
const TEXT_OVER: f64 = 0.3;

fn area(b: [f64; 4]) -> f64 {
    (b[2] - b[0]).max(0.0) * (b[3] - b[1]).max(0.0)
}

fn overlap(a: [f64; 4], b: [f64; 4]) -> f64 {
    area([a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])])
}

/// The boxes of every widget that shows text.
fn text_boxes(widgets: &[Widget]) -> Vec<[f64; 4]> {
    let mut out = Vec::new();
    for w in widgets {
        w.walk(&mut |w| {
            if !w.text.trim().is_empty() && !matches!(w.kind, WidgetKind::Image | WidgetKind::Icon) {
                out.push(w.source_box);
            }
        });
    }
    out
}

/// Whether a widget's box may become a crop.
fn croppable(w: &Widget, texts: &[[f64; 4]]) -> bool {
    let b = w.source_box;
    let inside = b[0] >= 0.0 && b[1] >= 0.0 && b[2] <= 1.0 && b[3] <= 1.0;
    let text_over = texts.iter().any(|t| area(*t) > 0.0 && overlap(*t, b) / area(*t) >= TEXT_OVER);
    matches!(w.kind, WidgetKind::Image | WidgetKind::Icon) && w.children.is_empty() && inside && area(b) <= MAX_SCREEN_SHARE && !text_over
}

/// Cuts every croppable widget of a screen out of its screenshot (`rows`: the screenshot's
/// rows that show the screen); the PNG files go into `images` by bundle path and each widget
/// names its file in `image`.
pub(crate) fn cut(widgets: &mut [Widget], shot: &Rgb, rows: u32, screen: &str, images: &mut BTreeMap<String, Vec<u8>>) {
    let texts = text_boxes(widgets);
    let share = f64::from(rows) / f64::from(shot.height.max(1));
    for w in widgets.iter_mut() {
        w.walk_mut(&mut |w| {
            let b = w.source_box;
            if !croppable(w, &texts) {
                // A picture that may not be cut (too large, or text drawn over it) is drawn in
                // its own main colour rather than as a grey placeholder.
                if w.kind == WidgetKind::Image && w.children.is_empty() {
                    if let Some(c) = shot.median_color(b[0], b[1] * share, b[2], b[3] * share) {
                        w.kind = WidgetKind::Container;
                        w.background = Some(c);
                    }
                }
                return;
            }
            let (sw, sh) = (f64::from(shot.width), f64::from(rows));
            let (x1, y1) = ((b[0] * sw).round() as u32, (b[1] * sh).round() as u32);
            let (x2, y2) = ((b[2] * sw).round() as u32, (b[3] * sh).round() as u32);
            if x2 < x1 + MIN_SIDE_PX || y2 < y1 + MIN_SIDE_PX {
                return;
            }
            let Some(png) = shot.crop(x1, y1, x2 - x1, y2 - y1).and_then(|c| c.png_bytes(png::Compression::Best).ok()) else { return };
            let path = format!("images/{screen}__{}.png", w.id);
            images.insert(path.clone(), png);
            w.image = Some(path);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::widgets::{from_target, Mapper};
    use crate::trace::UiNode;

    fn widget(id: &str, kind: WidgetKind, b: [f64; 4], text: &str) -> Widget {
        let mut w = from_target(&UiNode::default(), &Mapper { width: 1.0, height: 1.0 });
        (w.id, w.kind, w.source_box, w.text) = (id.into(), kind, b, text.into());
        w
    }

    #[test]
    fn only_pictures_without_text_over_them_and_at_most_a_quarter_of_the_screen_are_cut() {
        let shot = Rgb::from_rgba(100, 200, &[200u8; 100 * 200 * 4]);
        let mut widgets = vec![
            widget("logo", WidgetKind::Image, [0.1, 0.1, 0.3, 0.2], ""),
            widget("banner", WidgetKind::Image, [0.0, 0.3, 1.0, 0.6], ""),
            widget("poster", WidgetKind::Image, [0.0, 0.7, 0.4, 0.9], ""),
            widget("caption", WidgetKind::Text, [0.05, 0.75, 0.35, 0.8], "Now showing"),
            widget("dot", WidgetKind::Icon, [0.5, 0.1, 0.51, 0.105], ""),
        ];
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "home", &mut images);
        let cut_ids: Vec<&str> = widgets.iter().filter(|w| w.image.is_some()).map(|w| w.id.as_str()).collect();
        assert_eq!(cut_ids, ["logo"], "the banner is too large, the poster has text over it, the dot too small");
        let banner = &widgets[1];
        assert_eq!((banner.kind, banner.background), (WidgetKind::Container, Some([200, 200, 200])), "drawn in its colour");
        assert_eq!(images.keys().collect::<Vec<_>>(), ["images/home__logo.png"]);
    }
}
