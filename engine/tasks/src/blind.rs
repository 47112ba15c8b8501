//! Choosing a picture from the accessibility tree alone: the tree-only agent's best guess at a
//! step where the reference solution looks at the pixels. It stands for an agent that reads the
//! tree and the XML perfectly but never sees the screen, so a pixel task it solves more often
//! than chance leaks its answer into the tree.

use phoneworld_data::{Rng, UiElement};

/// The words of a text that can tell elements apart: lowercase, letters and digits, three
/// characters or more ("Photo, Oct 12" gives `photo`, `oct`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).map(str::to_lowercase).collect()
}

/// A resource id without its trailing digits: `photo_26` and `photo_8` are one kind of element.
fn id_stem(e: &UiElement) -> String {
    let id = e.resource_id.as_deref().and_then(|r| r.rsplit(":id/").next()).unwrap_or_default();
    id.trim_end_matches(|c: char| c.is_ascii_digit()).to_owned()
}

fn size(e: &UiElement) -> (i64, i64) {
    e.bbox_pixels.map_or((0, 0), |b| ((b.x_max - b.x_min).round() as i64, (b.y_max - b.y_min).round() as i64))
}

fn on_screen(e: &UiElement) -> bool {
    e.is_visible != Some(false) && e.bbox_pixels.is_some_and(|b| b.x_max > b.x_min && b.y_max > b.y_min)
}

/// The on-screen elements of the same kind as `target` (class, clickability, id stem and size),
/// the target among them: the pictures a tree reader must choose between.
pub(crate) fn candidates(elements: &[UiElement], target: &UiElement) -> Vec<UiElement> {
    let key = |e: &UiElement| (e.class_name.clone(), e.is_clickable, id_stem(e), size(e));
    let want = key(target);
    let mut out: Vec<UiElement> = elements.iter().filter(|e| on_screen(e) && key(e) == want).cloned().collect();
    if !out.iter().any(|e| e.bbox_pixels == target.bbox_pixels) {
        out.push(target.clone());
    }
    out
}

/// How many of the instruction's words an element's text and description contain.
fn overlap(instruction: &[String], e: &UiElement) -> usize {
    let mut own = words(e.text.as_deref().unwrap_or_default());
    own.extend(words(e.content_description.as_deref().unwrap_or_default()));
    instruction.iter().filter(|w| own.contains(w)).count()
}

/// The tree-only choice: the candidates whose text matches the instruction best, then one of
/// them uniformly at random. Also returns the chance that this picks `target`.
pub(crate) fn choose<'e>(
    candidates: &'e [UiElement],
    target: &UiElement,
    instruction: &str,
    rng: &mut Rng,
) -> Option<(&'e UiElement, f64)> {
    let said = words(instruction);
    let best = candidates.iter().map(|e| overlap(&said, e)).max()?;
    let top: Vec<&UiElement> = candidates.iter().filter(|e| overlap(&said, e) == best).collect();
    let odds = if top.iter().any(|e| e.bbox_pixels == target.bbox_pixels) { 1.0 / top.len() as f64 } else { 0.0 };
    Some((top[rng.below(top.len())], odds))
}

/// The tree-only answer: an option the instruction names if any (the tree-reader's best
/// lexical guess), else one uniformly at random.
/// Also returns the chance that this answers `right`.
pub(crate) fn choose_answer<'o>(options: &'o [String], right: &str, instruction: &str, rng: &mut Rng) -> Option<(&'o String, f64)> {
    let said = words(instruction);
    let named: Vec<&String> = options.iter().filter(|o| words(o).iter().all(|w| said.contains(w))).collect();
    let pool: Vec<&String> = if named.is_empty() { options.iter().collect() } else { named };
    let odds = pool.iter().filter(|o| o.as_str() == right).count() as f64 / pool.len().max(1) as f64;
    (!pool.is_empty()).then(|| (pool[rng.below(pool.len())], odds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use phoneworld_data::BBox;

    fn tile(id: &str, desc: &str, x: f64) -> UiElement {
        UiElement {
            text: None,
            content_description: Some(desc.to_owned()),
            class_name: Some("android.widget.FrameLayout".to_owned()),
            bbox: None,
            bbox_pixels: Some(BBox { x_min: x, x_max: x + 100.0, y_min: 0.0, y_max: 100.0 }),
            hint_text: None,
            is_checked: None,
            is_checkable: None,
            is_clickable: Some(true),
            is_editable: None,
            is_enabled: None,
            is_focused: None,
            is_focusable: None,
            is_long_clickable: None,
            is_scrollable: None,
            is_selected: None,
            is_visible: Some(true),
            package_name: None,
            resource_name: None,
            tooltip: None,
            resource_id: Some(format!("com.phoneworld.gallery:id/{id}")),
        }
    }

    #[test]
    fn candidates_are_the_same_kind_of_tile_and_the_lexical_match_wins() {
        let mut button = tile("share", "Share", 0.0);
        button.class_name = Some("android.widget.ImageButton".to_owned());
        let elements = vec![tile("photo_1", "Photo, Sep 11", 0.0), tile("photo_2", "Photo, Oct 2", 100.0), button];
        let c = candidates(&elements, &elements[1]);
        assert_eq!(c.len(), 2, "the button is not a photo tile");
        let mut rng = Rng::new(7);
        let (picked, odds) = choose(&c, &c[1], "Delete the photo from Oct 2", &mut rng).unwrap();
        assert_eq!(odds, 1.0, "the date in the instruction singles it out");
        assert_eq!(picked.resource_id.as_deref(), Some("com.phoneworld.gallery:id/photo_2"));
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let (picked, odds) = choose(&c, &c[1], "Delete the photo of the red bicycle", &mut Rng::new(seed)).unwrap();
            assert_eq!(odds, 0.5);
            seen.insert(picked.resource_id.clone());
        }
        assert_eq!(seen.len(), 2, "with no lexical hint every tile gets picked");
    }

    #[test]
    fn answers_prefer_an_option_the_instruction_names() {
        let options = vec!["red".to_owned(), "blue".to_owned()];
        assert_eq!(choose_answer(&options, "blue", "Is the bike red?", &mut Rng::new(1)).unwrap(), (&options[0], 0.0));
        assert_eq!(choose_answer(&options, "blue", "What colour is the bike?", &mut Rng::new(1)).unwrap().1, 0.5);
        assert!(choose_answer(&[], "x", "x", &mut Rng::new(1)).is_none());
    }
}
