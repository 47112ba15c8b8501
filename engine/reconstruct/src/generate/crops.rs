//! The look of the real app from its screenshots: image views and icons cut out of the
//! screen they were seen on, as bitmaps of the generated bundle.
//!
//! A crop is only ever a picture the app drew as a picture: an image or icon widget, at most a
//! quarter of the screen, with no text of the screen in it: a text drawn over a picture (a
//! title over a banner) is taken out of the crop, filled from the picture either side of it,
//! and drawn over it by its own widget (text stays text, so pasting the screenshot back is
//! never what scores). A large crop is also read with Tesseract: a line there in the words of
//! the screen's texts (a hierarchy taken mid-animation puts the text elsewhere) is taken out
//! the same way.

use std::collections::{BTreeMap, BTreeSet};

use super::widgets::{bar_shares, Widget, WidgetKind, WidgetRole};
use crate::see::{area, text_lines_in};
use crate::visual::{channel_medians, Rgb};

/// The largest share of the screen one crop may cover.
const MAX_SCREEN_SHARE: f64 = 0.25;
/// Smallest side of a crop, in screenshot pixels: below it there is nothing to see.
const MIN_SIDE_PX: u32 = 4;
/// A text whose box lies this much inside a picture is drawn over it.
const TEXT_OVER: f64 = 0.3;
/// The most of a picture the texts drawn over it may cover for it to be cut (without them).
const MAX_TEXT_SHARE: f64 = 0.4;
/// A crop of at least this share of the screen is read for text (a small one is an icon).
const READ_SHARE: f64 = 0.05;
/// The end of the id of the picture a view keeps of what it draws.
const PART_SUFFIX: &str = "_picture";
/// Pixels around a text's box taken out with it (the soft edges of its glyphs).
const TEXT_MARGIN_PX: u32 = 2;
/// How far (in any channel) a pixel is from the colour of its picture's edge to be drawn.
const EDGE_DIFFERENCE: u8 = 32;

fn overlap(a: [f64; 4], b: [f64; 4]) -> f64 {
    area([a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])])
}

/// The boxes of every widget that shows text, with the place each is drawn in (the widgets
/// walked in drawing order: a parent, then its children, then its next sibling).
fn text_boxes(widgets: &[Widget]) -> Vec<(usize, [f64; 4])> {
    let mut out = Vec::new();
    let mut order = 0;
    for w in widgets {
        w.walk(&mut |w| {
            if !w.text.trim().is_empty() && !matches!(w.kind, WidgetKind::Image | WidgetKind::Icon) {
                out.push((order, w.source_box));
            }
            order += 1;
        });
    }
    out
}

/// The texts a picture drawn in place `order` lies over (drawn before it: it would hide them)
/// and under (drawn after it: they can be taken out of its crop).
struct TextsAround {
    under: Vec<[f64; 4]>,
    over: Vec<[f64; 4]>,
}

impl TextsAround {
    fn of(texts: &[(usize, [f64; 4])], order: usize) -> TextsAround {
        let (under, over): (Vec<_>, Vec<_>) = texts.iter().partition(|(o, _)| *o < order);
        TextsAround { under: under.into_iter().map(|(_, b)| b).collect(), over: over.into_iter().map(|(_, b)| b).collect() }
    }
}

/// The words of the texts a screen shows (lower case, letters and digits).
struct ShownWords(BTreeSet<String>);

impl ShownWords {
    fn of(widgets: &[Widget]) -> ShownWords {
        let mut words = BTreeSet::new();
        for w in widgets {
            w.walk(&mut |w| {
                if !matches!(w.kind, WidgetKind::Image | WidgetKind::Icon) {
                    words.extend(Self::words(&w.text));
                }
            });
        }
        ShownWords(words)
    }

    fn words(text: &str) -> impl Iterator<Item = String> + '_ {
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 2).map(str::to_lowercase)
    }

    /// Whether a line read off a picture is one of these texts: most of its words are theirs.
    fn says(&self, line: &str) -> bool {
        let (mut known, mut all) = (0, 0);
        for word in Self::words(line) {
            all += 1;
            known += usize::from(self.0.contains(&word));
        }
        all > 0 && known * 2 > all
    }
}

/// The texts drawn over the box `b`.
fn texts_over<'t>(b: [f64; 4], texts: &'t [[f64; 4]]) -> impl Iterator<Item = [f64; 4]> + 't {
    texts.iter().copied().filter(move |t| area(*t) > 0.0 && overlap(*t, b) / area(*t) >= TEXT_OVER)
}

/// Whether a box may become a crop: inside the screen, at most a quarter of it, no text under
/// it (it would hide that text) and mostly picture (the texts over it, taken out of the crop,
/// cover less than `MAX_TEXT_SHARE` of it).
fn croppable_box(b: [f64; 4], texts: &TextsAround) -> bool {
    let inside = b[0] >= 0.0 && b[1] >= 0.0 && b[2] <= 1.0 && b[3] <= 1.0;
    let text_covers: f64 = texts_over(b, &texts.over).map(|t| overlap(t, b)).sum();
    inside && area(b) <= MAX_SCREEN_SHARE && texts_over(b, &texts.under).next().is_none() && text_covers < MAX_TEXT_SHARE * area(b)
}

/// Whether a widget's box may become a crop.
fn croppable(w: &Widget, texts: &TextsAround) -> bool {
    matches!(w.kind, WidgetKind::Image | WidgetKind::Icon) && w.children.is_empty() && croppable_box(w.source_box, texts)
}

/// The picture in the box `b` (fractions of the screen; `rows`: the screenshot's rows that show
/// it) cut out of the screenshot, the texts drawn over it taken out: each text's box, and a
/// margin, filled row by row from the picture's pixels either side of it (or above and below
/// it, where it spans the picture). `None` when the box holds too few pixels.
fn cut_picture(shot: &Rgb, b: [f64; 4], rows: u32, texts: &[[f64; 4]], shown: &ShownWords) -> Option<Rgb> {
    let [x1, y1, x2, y2] = pixel_box(b, shot, rows);
    if x2 < x1 + MIN_SIDE_PX || y2 < y1 + MIN_SIDE_PX {
        return None;
    }
    let mut crop = shot.crop(x1, y1, x2 - x1, y2 - y1)?;
    for t in texts_over(b, texts) {
        let [tx1, ty1, tx2, ty2] = pixel_box(t, shot, rows);
        // In the crop's pixels, with the margin, within it.
        let inside = |v: u32, lo: u32, hi: u32, grow: i64| (i64::from(v) - i64::from(lo) + grow).clamp(0, i64::from(hi - lo)) as u32;
        let (cx1, cx2) = (inside(tx1, x1, x2, -i64::from(TEXT_MARGIN_PX)), inside(tx2, x1, x2, i64::from(TEXT_MARGIN_PX)));
        let (cy1, cy2) = (inside(ty1, y1, y2, -i64::from(TEXT_MARGIN_PX)), inside(ty2, y1, y2, i64::from(TEXT_MARGIN_PX)));
        crop.fill_from_sides([cx1, cy1, cx2, cy2]);
    }
    // A large crop may hold a text the screen shows as text somewhere else (its hierarchy taken
    // mid-animation): a line read there in the words of the screen's texts is taken out too.
    if area(b) >= READ_SHARE {
        let m = TEXT_MARGIN_PX;
        for (_, [tx1, ty1, tx2, ty2]) in text_lines_in(&crop).into_iter().filter(|(line, _)| shown.says(line)) {
            crop.fill_from_sides([tx1.saturating_sub(m), ty1.saturating_sub(m), tx2 + m, ty2 + m]);
        }
    }
    Some(crop)
}

/// The part of a box (fractions of the screen) that the app's area shows, between the phone's
/// bars: what its widget is drawn in (its rect is cut the same way), so a crop never holds the
/// bars of the phone the screenshot was taken on.
fn within_app_area(b: [f64; 4]) -> [f64; 4] {
    let (status, nav) = bar_shares();
    let top = b[1].max(status);
    [b[0], top, b[2], b[3].min(1.0 - nav).max(top)]
}

/// A picture's box in screenshot pixels (`rows`: the rows that show the screen).
pub(super) fn pixel_box(b: [f64; 4], shot: &Rgb, rows: u32) -> [u32; 4] {
    let (sw, sh) = (f64::from(shot.width), f64::from(rows));
    let px = |v: f64, side: f64| (v.clamp(0.0, 1.0) * side).round() as u32;
    [px(b[0], sw), px(b[1], sh), px(b[2], sw), px(b[3], sh)]
}

/// Whether a pixel is drawn over a ground of colour `edge` (far from it in some channel).
pub(super) fn unlike(c: [u8; 3], edge: [u8; 3]) -> bool {
    c.iter().zip(edge).any(|(a, b)| a.abs_diff(b) > EDGE_DIFFERENCE)
}

/// The colour of the edge of the box `[x1, y1, x2, y2]` (screenshot pixels, at least one a
/// side): what is drawn on; `None` when the edge is not one colour (a photo runs to its edge).
fn edge_colour(shot: &Rgb, [x1, y1, x2, y2]: [u32; 4]) -> Option<[u8; 3]> {
    let ring: Vec<[u8; 3]> = (x1..x2)
        .flat_map(|x| [shot.at(x, y1), shot.at(x, y2 - 1)])
        .chain((y1..y2).flat_map(|y| [shot.at(x1, y), shot.at(x2 - 1, y)]))
        .collect();
    let edge = channel_medians(&ring)?;
    (ring.iter().filter(|c| unlike(**c, edge)).count() * 10 <= ring.len()).then_some(edge)
}

/// The part of a picture's box (`[x1, y1, x2, y2]`, screenshot pixels; `rows`: the rows that
/// show the screen) the picture fills, when its view is larger than what it draws (a logo
/// centred in an image view that spans the page): the bounding box of the pixels unlike `edge`,
/// the colour of the box's edge, as fractions of the screen; `None` when nothing is drawn there.
fn drawn_part(shot: &Rgb, [x1, y1, x2, y2]: [u32; 4], edge: [u8; 3], rows: u32) -> Option<[f64; 4]> {
    let (mut lo_x, mut lo_y, mut hi_x, mut hi_y) = (u32::MAX, u32::MAX, 0, 0);
    for y in y1..y2 {
        for x in x1..x2 {
            if unlike(shot.at(x, y), edge) {
                (lo_x, lo_y, hi_x, hi_y) = (lo_x.min(x), lo_y.min(y), hi_x.max(x + 1), hi_y.max(y + 1));
            }
        }
    }
    if hi_x < lo_x.saturating_add(MIN_SIDE_PX) || hi_y < lo_y.saturating_add(MIN_SIDE_PX) {
        return None;
    }
    let (sw, sh) = (f64::from(shot.width), f64::from(rows));
    Some([f64::from(lo_x) / sw, f64::from(lo_y) / sh, f64::from(hi_x) / sw, f64::from(hi_y) / sh])
}

/// The middle of `b` in its proportions, shrunk to at most a quarter of the screen: what of a
/// picture too large to cut may be cut (its centre, where a picture's subject is).
fn centre_within_share(b: [f64; 4]) -> [f64; 4] {
    let whole = area(b);
    if whole <= MAX_SCREEN_SHARE {
        return b;
    }
    // A hair under the share, so that rounding to pixels never takes it over.
    let k = (MAX_SCREEN_SHARE * 0.99 / whole).sqrt();
    let (cx, cy) = ((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0);
    let (hw, hh) = ((b[2] - b[0]) * k / 2.0, (b[3] - b[1]) * k / 2.0);
    [cx - hw, cy - hh, cx + hw, cy + hh]
}

/// The least share of a part's height a band clear of the widgets over it keeps.
const MIN_BAND_SHARE: f64 = 0.2;

/// The tallest band across `part` (fractions of the screen) that none of the boxes `over`
/// reaches into; `None` when the tallest is under `MIN_BAND_SHARE` of the part's height.
fn free_band(part: [f64; 4], over: &[[f64; 4]]) -> Option<[f64; 4]> {
    let mut spans: Vec<(f64, f64)> = over.iter().map(|o| (o[1].max(part[1]), o[3].min(part[3]))).filter(|(a, b)| b > a).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut best, mut top) = ((part[1], part[1]), part[1]);
    for (start, end) in spans.into_iter().chain(std::iter::once((part[3], part[3]))) {
        if start - top > best.1 - best.0 {
            best = (top, start);
        }
        top = top.max(end);
    }
    (best.1 - best.0 >= MIN_BAND_SHARE * (part[3] - part[1])).then_some([part[0], best.0, part[2], best.1])
}

/// A picture too large to cut becomes a box in the colour around what it draws, holding as a
/// picture (`<id>_picture`, cut as any picture is, at its place) the part it draws, or that
/// part's middle when the part alone is more than a quarter of the screen (an illustration
/// filling a page, a photo to its edges); never with another widget over the cut part, nor
/// mostly text. False when there is no such part. `widgets`: the boxes of the other widgets
/// that draw something, each with its place in the drawing order; `order`: this one's.
fn keep_drawn_part(
    w: &mut Widget,
    shot: &Rgb,
    rows: u32,
    texts: &TextsAround,
    widgets: &[(usize, [f64; 4])],
    order: usize,
    taken: &BTreeSet<String>,
) -> bool {
    let b = within_app_area(w.source_box);
    if area(b) <= MAX_SCREEN_SHARE {
        return false;
    }
    // Another widget drawn over the part (a play button on a cover) would be baked into it;
    // one drawn before it (the surface it was read from) is under it, hidden where it is.
    let drawn_after = || widgets.iter().filter(move |(at, _)| *at > order).map(|(_, o)| *o);
    let covered = |p: [f64; 4]| drawn_after().any(|o| area(o) > 0.0 && overlap(o, p) / area(o) >= TEXT_OVER);
    let pixels @ [x1, y1, x2, y2] = pixel_box(b, shot, rows);
    if x2 < x1 + 2 * MIN_SIDE_PX || y2 < y1 + 2 * MIN_SIDE_PX {
        return false;
    }
    let edge = edge_colour(shot, pixels);
    let (part, ground) = match edge {
        Some(edge) => match drawn_part(shot, pixels, edge, rows) {
            Some(part) => (part, Some(edge)),
            // Nothing drawn on the ground: nothing to cut.
            None => return false,
        },
        // A photo runs to its edges: its middle on its own main colour.
        None => {
            let share = f64::from(rows) / f64::from(shot.height.max(1));
            (b, shot.median_color(b[0], b[1] * share, b[2], b[3] * share))
        }
    };
    let part = match centre_within_share(part) {
        middle if !covered(middle) => middle,
        _ => {
            // The tallest band of the part clear of what is drawn over it (an advert's logo
            // above its button), tightened to what is drawn there on a ground of one colour.
            let over: Vec<[f64; 4]> = drawn_after().filter(|o| overlap(*o, part) > 0.0).collect();
            let Some(band) = free_band(part, &over) else { return false };
            centre_within_share(edge.and_then(|e| drawn_part(shot, pixel_box(band, shot, rows), e, rows)).unwrap_or(band))
        }
    };
    let Some(ground) = ground.filter(|_| croppable_box(part, texts) && !covered(part)) else { return false };
    let id = format!("{}{PART_SUFFIX}", w.id);
    if taken.contains(&id) {
        return false;
    }
    // The part's place in dp, in proportion to the view's box.
    let (bw, bh) = ((b[2] - b[0]).max(f64::EPSILON), (b[3] - b[1]).max(f64::EPSILON));
    let r = w.rect;
    let mut picture = w.clone();
    picture.id = id;
    picture.source_box = part;
    picture.rect = [
        r[0] + (part[0] - b[0]) / bw * r[2],
        r[1] + (part[1] - b[1]) / bh * r[3],
        (part[2] - part[0]) / bw * r[2],
        (part[3] - part[1]) / bh * r[3],
    ];
    (picture.on_tap, picture.on_long_press, picture.clickable, picture.role) = (None, None, false, WidgetRole::Static);
    (picture.resource_id, picture.content_desc, picture.decorative) = (String::new(), String::new(), true);
    w.kind = WidgetKind::Container;
    w.background = Some(ground);
    w.children = vec![picture];
    true
}

/// Cuts every croppable widget of a screen out of its screenshot (`rows`: the screenshot's
/// rows that show the screen); the PNG files go into `images` by bundle path and each widget
/// names its file in `image`.
pub(crate) fn cut(widgets: &mut [Widget], shot: &Rgb, rows: u32, screen: &str, images: &mut BTreeMap<String, Vec<u8>>) {
    let texts = text_boxes(widgets);
    let shown = ShownWords::of(widgets);
    let share = f64::from(rows) / f64::from(shot.height.max(1));
    let mut taken = BTreeSet::new();
    let mut orders = BTreeMap::new();
    let mut drawn = Vec::new();
    for w in widgets.iter() {
        w.walk(&mut |w| {
            taken.insert(w.id.clone());
            let at = orders.len();
            orders.insert(w.id.clone(), at);
            // Texts are taken out of the pictures they are drawn over; other widgets stay.
            if !matches!(w.kind, WidgetKind::Container | WidgetKind::Text) {
                drawn.push((at, w.source_box));
            }
        });
    }
    for w in widgets.iter_mut() {
        w.walk_mut(&mut |w| {
            let b = w.source_box;
            // The part a view keeps (`keep_drawn_part`) is drawn where the view is.
            let order = orders.get(&w.id).or_else(|| w.id.strip_suffix(PART_SUFFIX).and_then(|id| orders.get(id)));
            let around = TextsAround::of(&texts, order.copied().unwrap_or(usize::MAX));
            if !croppable(w, &around) {
                if w.kind == WidgetKind::Image && w.children.is_empty() {
                    // Its part is cut next, as the box's child.
                    if keep_drawn_part(w, shot, rows, &around, &drawn, order.copied().unwrap_or(usize::MAX), &taken) {
                        return;
                    }
                    // A picture that may not be cut (too large, or text drawn over it) is drawn
                    // in its own main colour rather than as a grey placeholder.
                    if let Some(c) = shot.median_color(b[0], b[1] * share, b[2], b[3] * share) {
                        w.kind = WidgetKind::Container;
                        w.background = Some(c);
                    }
                }
                return;
            }
            let picture = cut_picture(shot, within_app_area(b), rows, &around.over, &shown);
            let Some(png) = picture.and_then(|c| c.png_bytes(png::Compression::Best).ok()) else { return };
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
    fn pictures_at_most_a_quarter_of_the_screen_and_not_drawn_over_text_are_cut() {
        let shot = Rgb::from_rgba(100, 200, &[200u8; 100 * 200 * 4]);
        let mut widgets = vec![
            widget("logo", WidgetKind::Image, [0.1, 0.1, 0.3, 0.2], ""),
            widget("banner", WidgetKind::Image, [0.0, 0.3, 1.0, 0.6], ""),
            widget("poster", WidgetKind::Image, [0.0, 0.7, 0.4, 0.9], ""),
            widget("caption", WidgetKind::Text, [0.05, 0.75, 0.35, 0.8], "Now showing"),
            widget("headline", WidgetKind::Text, [0.5, 0.7, 0.9, 0.75], "Tonight"),
            widget("hero", WidgetKind::Image, [0.45, 0.65, 0.95, 0.85], ""),
            widget("dot", WidgetKind::Icon, [0.5, 0.1, 0.51, 0.105], ""),
        ];
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "home", &mut images);
        let cut_ids: Vec<&str> = widgets.iter().filter(|w| w.image.is_some()).map(|w| w.id.as_str()).collect();
        assert_eq!(
            cut_ids,
            ["logo", "poster"],
            "the banner is too large, the hero would hide the headline drawn before it, the dot is too small; \
             the poster is cut without the caption drawn over it"
        );
        let banner = &widgets[1];
        assert_eq!((banner.kind, banner.background), (WidgetKind::Container, Some([200, 200, 200])), "drawn in its colour");
        assert_eq!(images.keys().collect::<Vec<_>>(), ["images/home__logo.png", "images/home__poster.png"]);
    }

    /// A 100 x 200 page in grey with a red logo drawn at `logo` (pixels), and noise at `photo`.
    fn page_with(logo: [u32; 4], photo: [u32; 4]) -> Rgb {
        let mut rgba = vec![200u8; 100 * 200 * 4];
        for y in 0..200 {
            for x in 0..100 {
                let i = (y * 100 + x) as usize * 4;
                if (logo[0]..logo[2]).contains(&x) && (logo[1]..logo[3]).contains(&y) {
                    rgba[i..i + 3].copy_from_slice(&[220, 30, 30]);
                }
                if (photo[0]..photo[2]).contains(&x) && (photo[1]..photo[3]).contains(&y) {
                    let v = ((x * 37 + y * 91) % 256) as u8;
                    rgba[i..i + 3].copy_from_slice(&[v, v / 2, 255 - v]);
                }
            }
        }
        Rgb::from_rgba(100, 200, &rgba)
    }

    #[test]
    fn a_large_view_keeps_the_small_picture_it_draws_and_a_large_photo_its_middle() {
        let shot = page_with([40, 40, 60, 60], [0, 120, 100, 200]);
        let mut widgets = vec![
            // 40% of the screen, its logo a fiftieth of it.
            widget("logo", WidgetKind::Image, [0.0, 0.1, 1.0, 0.5], ""),
            // 40% of the screen, a photo to its edges.
            widget("photo", WidgetKind::Image, [0.0, 0.6, 1.0, 1.0], ""),
        ];
        widgets[0].rect = [0.0, 80.0, 400.0, 320.0];
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "home", &mut images);
        let logo = &widgets[0];
        assert_eq!((logo.kind, logo.background), (WidgetKind::Container, Some([200, 200, 200])), "the view's margin in its colour");
        let picture = &logo.children[0];
        assert_eq!(picture.source_box, [0.4, 0.2, 0.6, 0.3]);
        assert_eq!(picture.rect.map(f64::round), [160.0, 160.0, 80.0, 80.0], "where the logo is drawn");
        assert_eq!(picture.image.as_deref(), Some("images/home__logo_picture.png"));
        let photo = &widgets[1];
        assert_eq!(photo.kind, WidgetKind::Container);
        let middle = &photo.children[0];
        let b = middle.source_box;
        assert!(area(b) <= MAX_SCREEN_SHARE && area(b) > 0.9 * MAX_SCREEN_SHARE, "{b:?}: at most a quarter of the screen");
        // The middle of what the app's area shows of it (the phone's navigation bar takes its foot).
        let shown = within_app_area([0.0, 0.6, 1.0, 1.0]);
        assert!(
            ((b[0] + b[2]) / 2.0 - 0.5).abs() < 1e-9 && ((b[1] + b[3]) / 2.0 - (shown[1] + shown[3]) / 2.0).abs() < 1e-9,
            "{b:?}: its middle"
        );
        assert_eq!(
            images.keys().collect::<Vec<_>>(),
            ["images/home__logo_picture.png", "images/home__photo_picture.png"],
            "a photo larger than a quarter of the screen is cut no larger than that"
        );
    }

    #[test]
    fn a_large_photos_middle_is_cut_with_the_text_over_it_taken_out_and_a_photo_mostly_text_is_not() {
        let shot = page_with([0, 0, 0, 0], [0, 20, 100, 200]);
        let slogan = [0.3, 0.5, 0.7, 0.6];
        let mut widgets = vec![
            widget("background", WidgetKind::Image, [0.0, 0.1, 1.0, 1.0], ""),
            widget("slogan", WidgetKind::Text, slogan, "Discover your family"),
        ];
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "home", &mut images);
        let png = &images["images/home__background_picture.png"];
        let crop = Rgb::decode(std::path::Path::new("crop.png"), png).unwrap();
        let [px, py, ..] = pixel_box(widgets[0].children[0].source_box, &shot, 200);
        let [tx1, ty1, tx2, ty2] = pixel_box(slogan, &shot, 200);
        let margin = TEXT_MARGIN_PX;
        // Each row under the text runs from the photo's pixel left of it to the one right of it.
        for y in ty1..ty2 {
            let (left, right) = (crop.at(tx1 - margin - 1 - px, y - py), crop.at(tx2 + margin - px, y - py));
            for x in tx1..tx2 {
                let c = crop.at(x - px, y - py);
                let between =
                    (0..3).all(|k| c[k] >= left[k].min(right[k]).saturating_sub(1) && c[k] <= left[k].max(right[k]).saturating_add(1));
                assert!(between, "({x}, {y}): {c:?} is not between {left:?} and {right:?}");
            }
        }
        assert_eq!(crop.at(2, 2), shot.at(px + 2, py + 2), "the photo elsewhere as it is");
        // A title over most of a picture: the picture is mostly text.
        let mut widgets = vec![
            widget("card", WidgetKind::Image, [0.1, 0.2, 0.5, 0.4], ""),
            widget("title", WidgetKind::Text, [0.1, 0.2, 0.5, 0.35], "A long title over the card"),
        ];
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "home", &mut images);
        assert!(images.is_empty(), "{:?}", images.keys());
    }

    #[test]
    fn a_drawn_part_with_another_widget_over_it_is_not_cut() {
        let shot = page_with([40, 40, 60, 60], [0, 0, 0, 0]);
        let mut widgets = vec![
            widget("cover", WidgetKind::Image, [0.0, 0.1, 1.0, 0.5], ""),
            // A play button drawn over the picture: cut with it, it would stay there when it changes.
            widget("play", WidgetKind::Icon, [0.45, 0.22, 0.55, 0.28], ""),
        ];
        widgets[1].content_desc = "Play".into();
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "home", &mut images);
        assert!(widgets[0].children.is_empty(), "{:?}", widgets[0].children);
        assert_eq!(widgets[0].kind, WidgetKind::Container);
    }

    #[test]
    fn a_line_read_off_a_picture_is_a_text_of_the_screen_when_most_of_its_words_are() {
        let widgets = vec![
            widget("slogan", WidgetKind::Text, [0.1, 0.1, 0.9, 0.2], "Discover. Preserve. Share.\nYour Family History"),
            widget("logo", WidgetKind::Image, [0.1, 0.3, 0.9, 0.4], "Stardoll"),
        ];
        let shown = ShownWords::of(&widgets);
        assert!(shown.says("Your Family History"));
        assert!(shown.says("Y0ur Family History"), "a letter misread");
        assert!(!shown.says("STARDOLL PRESENTS"), "an image's own lettering, in no text of the screen");
        assert!(!shown.says("4"), "no word");
    }

    #[test]
    fn a_drawn_part_with_a_button_over_its_foot_keeps_what_is_above_the_button() {
        // An advert: a logo, and below it a button drawn over the view.
        let shot = page_with([40, 20, 60, 40], [20, 80, 80, 100]);
        let mut widgets = vec![
            widget("advert", WidgetKind::Image, [0.0, 0.05, 1.0, 0.6], ""),
            widget("install", WidgetKind::Button, [0.2, 0.4, 0.8, 0.5], ""),
        ];
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "ad", &mut images);
        let logo = &widgets[0].children[0];
        assert_eq!(logo.source_box, [0.4, 0.1, 0.6, 0.2], "the logo, clear of the button");
        assert!(logo.decorative, "only drawn: the advert stays the element");
        assert_eq!(images.keys().collect::<Vec<_>>(), ["images/ad__advert_picture.png"]);
    }

    #[test]
    fn a_view_drawn_under_a_picture_does_not_keep_it_from_being_cut() {
        let shot = page_with([0, 0, 0, 0], [0, 20, 100, 200]);
        let mut widgets = vec![
            // The camera's surface the photo was read off, drawn first: under the photo.
            widget("preview", WidgetKind::Image, [0.0, 0.1, 1.0, 1.0], ""),
            widget("photo", WidgetKind::Image, [0.0, 0.1, 1.0, 0.9], ""),
        ];
        let mut images = BTreeMap::new();
        cut(&mut widgets, &shot, 200, "camera", &mut images);
        assert_eq!(images.keys().collect::<Vec<_>>(), ["images/camera__photo_picture.png"], "the photo's middle, over the surface");
        assert!(widgets[0].children.is_empty(), "the surface is drawn over by the photo: nothing of it is cut");
    }
}
