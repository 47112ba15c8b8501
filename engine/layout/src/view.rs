//! The view tree: what the phone builds from a screen layout and the state, in device pixels.
//! Widgets are already broken down into boxes, text and icons; a node that means something to
//! an accessibility service carries [`A11y`].

use std::hash::{Hash, Hasher};

use std::sync::Arc;

use phoneworld_render::{Color, Fit, Image};
use phoneworld_text::Weight;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    #[default]
    Column,
    Row,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Align {
    Start,
    Center,
    End,
    Stretch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Justify {
    #[default]
    Start,
    Center,
    End,
    SpaceBetween,
    SpaceAround,
}

/// Box model in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoxStyle {
    pub direction: Direction,
    pub width: Option<f32>,
    pub height: Option<f32>,
    pub min_width: Option<f32>,
    pub min_height: Option<f32>,
    pub grow: f32,
    /// Whether the node may shrink below its content size along the parent's main axis.
    pub shrink: bool,
    /// left, top, right, bottom.
    pub padding: [f32; 4],
    pub margin: [f32; 4],
    pub gap: f32,
    pub align_items: Option<Align>,
    pub align_self: Option<Align>,
    pub justify: Justify,
    /// Absolutely positioned inside the parent: insets left, top, right, bottom.
    pub absolute: Option<[Option<f32>; 4]>,
    /// A vertical scroll container: its children may extend below it.
    pub scroll: bool,
    /// A window onto content placed by position (a map): what it cuts at its edges and targets
    /// that crowd together are the content's, not layout mistakes.
    pub viewport: bool,
}

/// How a node's box is painted.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Paint {
    pub background: Option<Color>,
    pub border: Option<(Color, f32)>,
    pub radius: f32,
    /// Paint as a circle inscribed in the box.
    pub circle: bool,
    /// Clip children to the box.
    pub clip: bool,
    /// A progress arc over a circle: the fraction of a turn and its color (stroke = border width).
    pub arc: Option<(f32, Color)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TextSpec {
    pub text: String,
    pub size_px: f32,
    pub weight: Weight,
    pub color: Color,
    pub max_lines: Option<usize>,
    /// 0 = start, 1 = center, 2 = end.
    pub align: u8,
}

/// An image filling the node's box.
#[derive(Debug, Clone, PartialEq)]
pub struct ImagePaint {
    pub image: Arc<Image>,
    pub fit: Fit,
    /// Corner radius in pixels (ignored for a circle).
    pub radius: f32,
    /// Clipped to the circle inscribed in the box (avatars).
    pub circle: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    None,
    Text(TextSpec),
    Icon {
        name: String,
        size_px: f32,
        color: Color,
    },
    /// Sized by the node's style only (an image has no intrinsic layout size here).
    Image(ImagePaint),
}

/// Accessibility facts of a node (Android's AccessibilityNodeInfo, abridged).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct A11y {
    pub class_name: &'static str,
    pub package: String,
    pub text: String,
    pub content_desc: String,
    pub hint: String,
    pub resource_id: String,
    pub clickable: bool,
    pub long_clickable: bool,
    pub checkable: bool,
    pub checked: bool,
    pub editable: bool,
    pub focusable: bool,
    pub focused: bool,
    pub scrollable: bool,
    pub selected: bool,
    pub enabled: bool,
    pub password: bool,
}

/// One node of the view tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewNode {
    pub style: BoxStyle,
    pub paint: Paint,
    pub content: Content,
    pub children: Vec<ViewNode>,
    /// Vertical scroll offset in pixels, for scroll containers.
    pub scroll_y: f32,
    /// Shared: most nodes have none, nodes are moved as they are built, kept rows are cloned
    /// and laid-out nodes point to the same facts.
    pub a11y: Option<std::sync::Arc<A11y>>,
    /// What a touch on this node does: an index into the phone's interaction table.
    pub hit: Option<u32>,
    /// This subtree's hashes, when its builder kept it unchanged from an earlier build.
    pub known_hashes: KnownHashes,
}

/// The [`SubtreeHashes`] of a subtree kept unchanged, so hashing the tree does not walk it
/// again. Not part of what a node is: never hashed, and equal to any other. Whoever changes
/// a node inside such a subtree clears it ([`ViewNode::forget_hashes`]).
#[derive(Clone, Default)]
pub struct KnownHashes(pub Option<std::sync::Arc<SubtreeHashes>>);

impl PartialEq for KnownHashes {
    fn eq(&self, _: &KnownHashes) -> bool {
        true
    }
}

impl std::fmt::Debug for KnownHashes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "KnownHashes(..)" } else { "KnownHashes(None)" })
    }
}

impl Default for ViewNode {
    fn default() -> Self {
        ViewNode {
            style: BoxStyle { shrink: true, ..BoxStyle::default() },
            paint: Paint::default(),
            content: Content::None,
            children: Vec::new(),
            scroll_y: 0.0,
            a11y: None,
            hit: None,
            known_hashes: KnownHashes::default(),
        }
    }
}

/// Each node's subtree hash (`ViewNode::content_hash`) and node count, in pre-order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubtreeHashes {
    pub hash: Vec<u64>,
    /// How many nodes the subtree rooted at each node holds, itself included.
    pub count: Vec<u32>,
}

impl SubtreeHashes {
    /// The pre-order indices of the children of the node at `i`.
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let end = i + self.count[i] as usize;
        let mut next = i + 1;
        std::iter::from_fn(move || {
            let child = (next < end).then_some(next)?;
            next += self.count[child] as usize;
            Some(child)
        })
    }
}

impl ViewNode {
    /// How many nodes the tree holds, this one included.
    pub fn node_count(&self) -> usize {
        1 + self.children.iter().map(ViewNode::node_count).sum::<usize>()
    }

    /// A hash of everything a node is: what affects layout and pixels, and what it tells
    /// accessibility and where a touch goes, for caching by content.
    pub fn content_hash(&self) -> u64 {
        self.subtree_hashes().hash[0]
    }

    /// Gives the node its accessibility facts (shared from here on: laid-out copies and kept
    /// rows point to them).
    pub fn set_a11y(&mut self, a11y: A11y) {
        self.a11y = Some(std::sync::Arc::new(a11y));
    }

    /// Drops the known hashes of this subtree, before a change inside it.
    pub fn forget_hashes(&mut self) {
        self.known_hashes = KnownHashes::default();
        for child in &mut self.children {
            child.forget_hashes();
        }
    }

    /// The `content_hash` of every node's subtree, in pre-order (one walk of the tree): what
    /// tells an incremental layout which subtrees it can keep.
    pub fn subtree_hashes(&self) -> SubtreeHashes {
        let mut out = SubtreeHashes::default();
        let mut scratch = Vec::new();
        self.fill_hashes(&mut out, &mut scratch);
        out
    }

    /// Pushes this subtree's hashes; `scratch` is a stack of children's hashes shared by the
    /// whole walk, so no node allocates its own.
    fn fill_hashes(&self, out: &mut SubtreeHashes, scratch: &mut Vec<u64>) -> u64 {
        if let Some(known) = &self.known_hashes.0 {
            out.hash.extend_from_slice(&known.hash);
            out.count.extend_from_slice(&known.count);
            return known.hash[0];
        }
        let at = out.hash.len();
        out.hash.push(0);
        out.count.push(0);
        let base = scratch.len();
        for child in &self.children {
            let h = child.fill_hashes(out, scratch);
            scratch.push(h);
        }
        let hash = self.hash_over(&scratch[base..]);
        scratch.truncate(base);
        out.hash[at] = hash;
        out.count[at] = u32::try_from(out.hash.len() - at).unwrap_or(u32::MAX);
        hash
    }

    /// The hash of this node's own fields and its children's hashes (a Merkle tree: a child's
    /// hash is all that its subtree adds). With a child's hash left out (0), what the rest
    /// of the tree is.
    pub fn hash_over(&self, children: &[u64]) -> u64 {
        // A fixed-key hasher, so the value never depends on the process.
        let mut hasher = Fnv(0xcbf2_9ce4_8422_2325);
        self.hash_own_into(&mut hasher);
        children.hash(&mut hasher);
        hasher.0
    }

    /// Feeds the node's own fields to the hash packed into a few words (views are hashed whole
    /// every time a screen is composed: a mixing round per field was most of it).
    fn hash_own_into<H: Hasher>(&self, h: &mut H) {
        let s = &self.style;
        let p = &self.paint;
        let align = |a: Option<Align>| a.map_or(0, |a| a as u64 + 1);
        let (content, absolute) = (self.content_tag(), s.absolute.is_some());
        let flags = [
            (s.direction as u64, 1),
            (s.justify as u64, 3),
            (align(s.align_items), 3),
            (align(s.align_self), 3),
            (u64::from(s.shrink), 1),
            (u64::from(s.scroll), 1),
            (u64::from(s.viewport), 1),
            (u64::from(p.circle), 1),
            (u64::from(p.clip), 1),
            (u64::from(p.background.is_some()), 1),
            (u64::from(p.border.is_some()), 1),
            (u64::from(p.arc.is_some()), 1),
            (u64::from(absolute), 1),
            (content, 2),
            (u64::from(self.hit.is_some()), 1),
            (u64::from(self.a11y.is_some()), 1),
        ]
        .iter()
        .fold((0u64, 0u32), |(word, shift), &(value, bits)| (word | value << shift, shift + bits))
        .0;
        h.write_u64(flags);
        h.write_u64(pair(optional(s.width), optional(s.height)));
        h.write_u64(pair(optional(s.min_width), optional(s.min_height)));
        h.write_u64(pair(s.grow.to_bits(), s.gap.to_bits()));
        for pairs in [s.padding, s.margin] {
            h.write_u64(pair(pairs[0].to_bits(), pairs[1].to_bits()));
            h.write_u64(pair(pairs[2].to_bits(), pairs[3].to_bits()));
        }
        if let Some([l, t, r, b]) = s.absolute {
            h.write_u64(pair(optional(l), optional(t)));
            h.write_u64(pair(optional(r), optional(b)));
        }
        let (border, border_width) = p.border.map_or((0, 0), |(c, w)| (rgba(c), w.to_bits()));
        h.write_u64(pair(p.background.map_or(0, rgba), border));
        h.write_u64(pair(border_width, p.radius.to_bits()));
        if let Some((fraction, color)) = p.arc {
            h.write_u64(pair(fraction.to_bits(), rgba(color)));
        }
        match &self.content {
            Content::None => {}
            Content::Text(t) => {
                write_text(h, &t.text);
                let lines = t.max_lines.map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX - 1));
                h.write_u64(pair(t.size_px.to_bits(), rgba(t.color)));
                h.write_u64(pair(lines, t.weight as u32 | u32::from(t.align) << 8));
            }
            Content::Icon { name, size_px, color } => {
                write_text(h, name);
                h.write_u64(pair(size_px.to_bits(), rgba(*color)));
            }
            Content::Image(i) => {
                h.write(i.image.key());
                h.write_u64(pair(i.radius.to_bits(), i.fit as u32 | u32::from(i.circle) << 8));
            }
        }
        h.write_u64(pair(self.scroll_y.to_bits(), self.hit.unwrap_or(0)));
        if let Some(a) = &self.a11y {
            a.hash_into(h);
        }
    }

    fn content_tag(&self) -> u64 {
        match self.content {
            Content::None => 0,
            Content::Text(_) => 1,
            Content::Icon { .. } => 2,
            Content::Image(_) => 3,
        }
    }
}

/// A string, its length first, so consecutive strings cannot run into each other.
fn write_text<H: Hasher>(h: &mut H, text: &str) {
    h.write_u64(text.len() as u64);
    h.write(text.as_bytes());
}

/// Two 32-bit values as one word.
fn pair(high: u32, low: u32) -> u64 {
    u64::from(high) << 32 | u64::from(low)
}

/// A length that may be unset: its bits, or a NaN no layout produces for unset.
fn optional(v: Option<f32>) -> u32 {
    v.map_or(0x7fc0_dead, f32::to_bits)
}

fn rgba(c: phoneworld_render::Color) -> u32 {
    u32::from_le_bytes([c.r, c.g, c.b, c.a])
}

impl A11y {
    /// Feeds every field to the content hash, the flags packed into one word: views are hashed
    /// whole every time a screen is composed, and one mixing round per flag was half of it.
    fn hash_into<H: Hasher>(&self, h: &mut H) {
        let flags = [
            self.clickable,
            self.long_clickable,
            self.checkable,
            self.checked,
            self.editable,
            self.focusable,
            self.focused,
            self.scrollable,
            self.selected,
            self.enabled,
            self.password,
        ];
        let packed = flags.iter().enumerate().fold(1u32 << 16, |word, (i, &on)| word | (u32::from(on) << i));
        h.write_u32(packed);
        let texts = [self.class_name, &self.package, &self.text, &self.content_desc, &self.hint, &self.resource_id];
        // Their lengths first, packed (a round each would cost more than the flags saved), so
        // consecutive strings cannot run into each other.
        let length = |t: &str| t.len().min(0xffff) as u64;
        h.write_u64(texts[..4].iter().fold(0, |word, t| word << 16 | length(t)));
        h.write_u64(texts[4..].iter().fold(0, |word, t| word << 16 | length(t)));
        for text in texts {
            h.write(text.as_bytes());
        }
    }
}

/// A multiplicative word hash (FxHash-style): fast, and the same in every process.
struct Fnv(u64);

impl Fnv {
    fn mix(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.mix(u64::from_le_bytes(tail) ^ ((bytes.len() as u64) << 56));
    }
    fn write_u8(&mut self, v: u8) {
        self.mix(u64::from(v));
    }
    fn write_u32(&mut self, v: u32) {
        self.mix(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.mix(v);
    }
    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled(text: &str) -> ViewNode {
        ViewNode { a11y: Some(std::sync::Arc::new(A11y { text: text.into(), ..A11y::default() })), ..ViewNode::default() }
    }

    /// Layouts and element lists are kept by this hash: two trees that look the same but say
    /// other things to accessibility, or send a touch elsewhere, must not share them.
    #[test]
    fn the_content_hash_tells_apart_what_a_node_says_and_where_a_touch_goes() {
        let mut parent = ViewNode::default();
        parent.children.push(labelled("On"));
        let mut relabelled = parent.clone();
        relabelled.children[0] = labelled("Off");
        let mut tappable = parent.clone();
        tappable.children[0].hit = Some(3);
        assert_ne!(parent.content_hash(), relabelled.content_hash());
        assert_ne!(parent.content_hash(), tappable.content_hash());
        assert_eq!(parent.content_hash(), parent.clone().content_hash());
        let hashes = parent.subtree_hashes();
        let (whole, children): (u64, Vec<u64>) = (hashes.hash[0], hashes.children(0).map(|i| hashes.hash[i]).collect());
        assert_eq!(whole, parent.content_hash());
        assert_eq!(children, vec![parent.children[0].content_hash()]);
        assert_eq!((hashes.hash.clone(), hashes.count.clone()), (vec![whole, children[0]], vec![2, 1]));
    }
}
