//! Running taffy over a view tree. Text leaves are measured with the bundled fonts, so
//! wrapping shapes the layout.

use phoneworld_text::TextStyle;

use crate::text_cache;
use taffy::prelude::*;

use crate::placed::{Placed, PlacedTree};
use crate::view::{Align, Content, Direction, Justify, SubtreeHashes, ViewNode};

/// What taffy needs to measure a leaf.
#[derive(Clone)]
enum Measure {
    None,
    /// `sizes` remembers the last few measurements of this node (taffy asks several times per
    /// pass with the same width).
    Text {
        spec: crate::TextSpec,
        sizes: Vec<(Option<u32>, Size<f32>)>,
    },
    Icon {
        size: f32,
    },
}

/// The previous layout's taffy node for a view node, so an unchanged node is not touched
/// (taffy keeps its cached layout). What the node was given is read back from the tree.
struct Shadow {
    id: NodeId,
    /// The content hash of the view subtree last synced into it: an equal hash is the same
    /// subtree, whose taffy nodes need no look.
    hash: u64,
    /// How many nodes that subtree holds (its span in a placed tree, in pre-order).
    count: u32,
    /// Its unrounded box when last laid out: the position summed from the root as taffy's
    /// rounding sums it, and the size. The same subtree in the same box is laid out the same.
    laid: [f32; 4],
    /// Set by `sync` when the subtree was kept whole: the pass that kept it and where it began
    /// in the last placed tree (read only in that pass: older ones are stale).
    kept_at: Option<(u64, u32)>,
    /// For a layout boundary (see [`is_boundary`]): the taffy root of a tree of its own that
    /// its children hang from; `id` is then a childless stand-in in its parent's tree, styled
    /// only as the parent sees it, so a change inside re-runs no ancestor's flexbox.
    inner: Option<NodeId>,
    children: Vec<Shadow>,
}

impl Shadow {
    /// The taffy node the children hang from.
    fn parent_id(&self) -> NodeId {
        self.inner.unwrap_or(self.id)
    }
}

/// An old child not yet matched, and where it began in the last placed tree.
type OldChild = (Shadow, Option<u32>);

/// Numbers the placed trees layouters produce, so a tree is recognised as a layouter's last
/// one (never 0: that is a tree no layouter vouches for).
static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Where `collect` puts nodes: into `out`, copying unchanged subtrees from `previous` (the
/// placed tree of the layout before, when it is this layouter's last).
struct Collect<'a> {
    out: PlacedTree,
    previous: Option<&'a PlacedTree>,
}

/// Layout machinery kept per device: a persistent taffy tree reconciled with each new view
/// tree, so only nodes whose style or content changed are laid out again.
pub struct Layouter {
    tree: TaffyTree<Measure>,
    shadow: Option<Shadow>,
    /// The most nodes the tree has held: its storage never shrinks (see [`COMPACT_ABOVE`]).
    peak_nodes: usize,
    /// The generation of the placed tree `shadow` describes (0: none).
    generation: u64,
    /// Counts `sync` passes (see [`Shadow::kept_at`]).
    pass: u64,
    spare: Spare,
    /// Whether fixed-size boxes are laid out as boundaries (off only for the reference
    /// layouter tests compare with).
    boundaries: bool,
}

/// Subtrees of earlier layouts that the current tree no longer holds, by content hash, with
/// their taffy nodes (and so taffy's caches) intact: a screen shown again takes back the
/// subtrees it had, laid out as they were, instead of laying them out anew. The oldest go
/// once they hold more than [`SPARE_NODES`] nodes.
#[derive(Default)]
struct Spare {
    by_hash: std::collections::BTreeMap<u64, Vec<Shadow>>,
    /// The hashes of the kept subtrees, in the order they were put aside.
    order: std::collections::VecDeque<u64>,
    nodes: usize,
}

/// The most nodes kept aside (taffy's nodes are about 1 KiB each).
const SPARE_NODES: usize = 128;

/// A tree that once held more than this many nodes (a long list: about 1 KiB each) and now
/// needs less than half of them is built afresh, so a phone that showed one long screen does
/// not keep its size for good. Its layouts are the same either way; the step that shrinks it
/// lays out every node once (it shows another screen, so most of them change anyway).
const COMPACT_ABOVE: usize = 256;

impl Default for Layouter {
    fn default() -> Self {
        // Rounded in `collect` as taffy rounds, but only the nodes not copied from the last layout.
        let mut tree = TaffyTree::new();
        tree.disable_rounding();
        Layouter { tree, shadow: None, peak_nodes: 0, generation: 0, pass: 0, spare: Spare::default(), boundaries: true }
    }
}

impl std::fmt::Debug for Layouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Layouter")
    }
}

fn align(a: Align) -> AlignItems {
    match a {
        Align::Start => AlignItems::FlexStart,
        Align::Center => AlignItems::Center,
        Align::End => AlignItems::FlexEnd,
        Align::Stretch => AlignItems::Stretch,
    }
}

/// Whether `node`'s box comes out the same whatever its children hold, so they can be laid
/// out in a taffy tree of their own: a fixed width and height that flex neither grows nor
/// shrinks (nothing aligns by baseline, and a minimum clamps the same either way), room for
/// its padding, and no scrolling. A switch's track is one: its thumb moves inside it.
fn is_boundary(node: &ViewNode) -> bool {
    let s = &node.style;
    let (Some(w), Some(h)) = (s.width, s.height) else { return false };
    let (w, h) = (w.max(s.min_width.unwrap_or(0.0)), s.min_height.map_or(h, |m| h.max(m)));
    let (across, down) = (s.padding[0] + s.padding[2], s.padding[1] + s.padding[3]);
    // A flex container's size comes out as its content box plus its padding: the stand-in's
    // (the size itself) is the same only when that sum gives the size back to the bit.
    !node.children.is_empty()
        && matches!(node.content, Content::None)
        && s.grow == 0.0
        && !s.shrink
        && !s.scroll
        && across <= w
        && down <= h
        && (w - across) + across == w
        && (h - down) + down == h
}

/// What of a boundary's style its parent's layout reads (its box, margins and flex), for its
/// stand-in: how it arranges its children is left out, so changing that marks no ancestor.
fn outer_style(style: &Style) -> Style {
    Style { flex_direction: FlexDirection::default(), justify_content: None, align_items: None, gap: Size::zero(), ..style.clone() }
}

fn lp(v: f32) -> LengthPercentage {
    LengthPercentage::Length(v)
}

fn lpa(v: f32) -> LengthPercentageAuto {
    LengthPercentageAuto::Length(v)
}

fn dim(v: Option<f32>) -> Dimension {
    v.map_or(Dimension::Auto, Dimension::Length)
}

fn taffy_style(node: &ViewNode) -> Style {
    let s = &node.style;
    let [pl, pt, pr, pb] = s.padding;
    let [ml, mt, mr, mb] = s.margin;
    let mut style = Style {
        display: Display::Flex,
        flex_direction: match s.direction {
            Direction::Column => FlexDirection::Column,
            Direction::Row => FlexDirection::Row,
        },
        size: Size { width: dim(s.width), height: dim(s.height) },
        min_size: Size { width: s.min_width.map_or(Dimension::Length(0.0), Dimension::Length), height: dim(s.min_height) },
        flex_grow: s.grow,
        flex_shrink: if s.shrink { 1.0 } else { 0.0 },
        padding: Rect { left: lp(pl), right: lp(pr), top: lp(pt), bottom: lp(pb) },
        margin: Rect { left: lpa(ml), right: lpa(mr), top: lpa(mt), bottom: lpa(mb) },
        gap: Size { width: lp(s.gap), height: lp(s.gap) },
        align_items: s.align_items.map(align),
        align_self: s.align_self.map(align),
        justify_content: Some(match s.justify {
            Justify::Start => JustifyContent::FlexStart,
            Justify::Center => JustifyContent::Center,
            Justify::End => JustifyContent::FlexEnd,
            Justify::SpaceBetween => JustifyContent::SpaceBetween,
            Justify::SpaceAround => JustifyContent::SpaceAround,
        }),
        ..Style::default()
    };
    if s.scroll {
        style.overflow = taffy::Point { x: taffy::Overflow::Hidden, y: taffy::Overflow::Scroll };
        style.scrollbar_width = 0.0;
        // A scroll container takes the room it is given, not the height of its content.
        style.min_size.height = Dimension::Length(0.0);
        if s.height.is_none() {
            style.flex_basis = Dimension::Length(0.0);
        }
    }
    if let Some([l, t, r, b]) = s.absolute {
        style.position = Position::Absolute;
        let inset = |v: Option<f32>| v.map_or(LengthPercentageAuto::Auto, LengthPercentageAuto::Length);
        style.inset = Rect { left: inset(l), top: inset(t), right: inset(r), bottom: inset(b) };
    }
    style
}

impl Layouter {
    pub fn new() -> Layouter {
        Layouter::default()
    }

    /// A layouter that lays the whole tree out in one taffy tree, without layout boundaries:
    /// slower when a fixed-size box changes inside, and the reference the boundaries are
    /// tested against (the same boxes to the bit).
    pub fn without_boundaries() -> Layouter {
        Layouter { boundaries: false, ..Layouter::default() }
    }

    /// A new layouter of the same kind, with nothing kept.
    pub fn fresh(&self) -> Layouter {
        Layouter { boundaries: self.boundaries, ..Layouter::default() }
    }

    fn measure_of(node: &ViewNode) -> Measure {
        match &node.content {
            Content::None | Content::Image(_) => Measure::None,
            Content::Text(spec) => Measure::Text { spec: spec.clone(), sizes: Vec::new() },
            Content::Icon { size_px, .. } => Measure::Icon { size: *size_px },
        }
    }

    /// Makes the taffy subtree match `node` (the node at `at` of `hashes`), reusing `old`
    /// where it still fits; `old_at` is where `old` began in the last placed tree. A subtree
    /// whose hash is unchanged is kept whole without a look inside; one put aside by an
    /// earlier layout is taken back whole.
    fn sync(&mut self, node: &ViewNode, hashes: &SubtreeHashes, at: usize, old: Option<Shadow>, old_at: Option<u32>) -> Shadow {
        let (hash, count) = (hashes.hash[at], hashes.count[at]);
        let old = match old {
            Some(mut kept) if kept.hash == hash => {
                kept.kept_at = old_at.map(|i| (self.pass, i));
                return kept;
            }
            old => old,
        };
        let boundary = self.boundaries && at != 0 && is_boundary(node);
        // A boundary changed inside is changed in place, even when an older version of it is
        // kept aside: its stand-in stays, so no ancestor is laid out again.
        let in_place = boundary && old.as_ref().is_some_and(|old| old.inner.is_some());
        if let Some(mut spare) = if in_place { None } else { self.take_spare(hash) } {
            if let Some(old) = old {
                self.put_aside(old);
            }
            spare.kept_at = None;
            return spare;
        }
        let style = taffy_style(node);
        let mut shadow = match old {
            Some(mut old) => {
                if old.inner.is_some() && !boundary {
                    self.make_plain(&mut old);
                }
                self.restyle(&old, style);
                let same_content = match (self.tree.get_node_context(old.id), &node.content) {
                    (Some(Measure::None), Content::None | Content::Image(_)) => true,
                    (Some(Measure::Text { spec, .. }), Content::Text(new)) => spec == new,
                    (Some(Measure::Icon { size }), Content::Icon { size_px, .. }) => size == size_px,
                    _ => false,
                };
                if !same_content {
                    let _ = self.tree.set_node_context(old.id, Some(Layouter::measure_of(node)));
                }
                old
            }
            None if boundary => {
                let id = self.tree.new_leaf_with_context(outer_style(&style), Measure::None).expect("taffy leaf");
                let inner = self.tree.new_leaf_with_context(style, Measure::None).expect("taffy leaf");
                Shadow { id, hash: 0, count: 0, laid: [f32::NAN; 4], kept_at: None, inner: Some(inner), children: Vec::new() }
            }
            None => {
                let id = self.tree.new_leaf_with_context(style, Layouter::measure_of(node)).expect("taffy leaf");
                Shadow { id, hash: 0, count: 0, laid: [f32::NAN; 4], kept_at: None, inner: None, children: Vec::new() }
            }
        };
        // The old children: each one's taffy node (which stays when it is taken), and itself
        // with where it began in the last placed tree (after its elders).
        let mut old_children: Vec<(NodeId, Option<OldChild>)> = Vec::with_capacity(shadow.children.len());
        let mut next_old_at = old_at.map(|i| i + 1);
        for old_child in std::mem::take(&mut shadow.children) {
            let at = next_old_at;
            next_old_at = next_old_at.map(|i| i + old_child.count);
            old_children.push((old_child.id, Some((old_child, at))));
        }
        let mut children = Vec::with_capacity(node.children.len());
        let mut child_at = at + 1;
        for (k, child) in node.children.iter().enumerate() {
            let child_hash = hashes.hash[child_at];
            // The same subtree where it was, or elsewhere among the old children (rows moved);
            // else the old child in its place when it is a changed version of this one
            // (`changed_version`), to be changed in place. Another old child (another
            // screen's) is put aside whole instead, for when it is shown again.
            let same = |(_, c): &(NodeId, Option<OldChild>)| c.as_ref().is_some_and(|(c, _)| c.hash == child_hash);
            let found = if old_children.get(k).is_some_and(same) { Some(k) } else { old_children.iter().position(same) };
            let previous = match found {
                Some(j) => old_children[j].1.take(),
                None => {
                    let tree = &self.tree;
                    old_children.get_mut(k).and_then(|(_, c)| c.take_if(|(c, _)| changed_version(tree, c, child, hashes, child_at)))
                }
            };
            let (previous, previous_at) = previous.map_or((None, None), |(p, at)| (Some(p), at));
            let synced = self.sync(child, hashes, child_at, previous, previous_at);
            child_at += hashes.count[child_at] as usize;
            children.push(synced);
        }
        let same_children = children.iter().map(|c| c.id).eq(old_children.iter().map(|(id, _)| *id));
        for (_, leftover) in old_children {
            if let Some((leftover, _)) = leftover {
                self.put_aside(leftover);
            }
        }
        if !same_children {
            let ids: Vec<NodeId> = children.iter().map(|c| c.id).collect();
            let _ = self.tree.set_children(shadow.parent_id(), &ids);
        }
        shadow.children = children;
        if let Some(inner) = shadow.inner {
            // Laid out here, on its own: nothing outside can change how its children lie.
            let size = |v: Option<f32>| AvailableSpace::Definite(v.unwrap_or(0.0));
            let available = Size { width: size(node.style.width), height: size(node.style.height) };
            let _ = self.tree.compute_layout_with_measure(inner, available, |known, avail, _id, ctx, _style| measure(known, avail, ctx));
            // Children reaching out of it would count in its ancestors' content sizes, which
            // the stand-in cannot show: such a box is laid out with its parent's tree.
            let laid = self.tree.unrounded_layout(inner);
            if laid.content_size.width > laid.size.width || laid.content_size.height > laid.size.height {
                self.make_plain(&mut shadow);
            }
        }
        shadow.hash = hash;
        shadow.count = count;
        shadow.kept_at = None;
        shadow
    }

    /// A subtree with this hash put aside by an earlier layout, if one is kept.
    fn take_spare(&mut self, hash: u64) -> Option<Shadow> {
        let kept = self.spare.by_hash.get_mut(&hash)?;
        let shadow = kept.pop()?;
        if kept.is_empty() {
            self.spare.by_hash.remove(&hash);
        }
        // Its place in the order goes too (the newest of its hash, as `pop` took the newest),
        // so the order holds exactly what is kept however often subtrees come and go.
        if let Some(i) = self.spare.order.iter().rposition(|&h| h == hash) {
            self.spare.order.remove(i);
        }
        self.spare.nodes -= shadow.count as usize;
        Some(shadow)
    }

    /// Keeps a subtree the tree no longer holds for a later layout; the oldest kept go for
    /// good once there are too many.
    fn put_aside(&mut self, shadow: Shadow) {
        let count = shadow.count as usize;
        if count == 0 || count > SPARE_NODES {
            return self.remove(shadow);
        }
        self.spare.order.push_back(shadow.hash);
        self.spare.by_hash.entry(shadow.hash).or_default().push(shadow);
        self.spare.nodes += count;
        while self.spare.nodes > SPARE_NODES {
            let Some(oldest) = self.spare.order.pop_front() else { break };
            let Some(kept) = self.spare.by_hash.get_mut(&oldest) else { continue };
            let gone = kept.remove(0);
            if kept.is_empty() {
                self.spare.by_hash.remove(&oldest);
            }
            self.spare.nodes -= gone.count as usize;
            self.remove(gone);
        }
    }

    fn remove(&mut self, shadow: Shadow) {
        for child in shadow.children {
            self.remove(child);
        }
        if let Some(inner) = shadow.inner {
            let _ = self.tree.remove(inner);
        }
        let _ = self.tree.remove(shadow.id);
    }

    /// Gives a node its taffy style (a boundary: the whole to its own root, the outer part to
    /// its stand-in), touching only what changed: a set style marks every ancestor for layout.
    fn restyle(&mut self, shadow: &Shadow, style: Style) {
        match shadow.inner {
            Some(inner) => {
                self.set_style_if_changed(shadow.id, outer_style(&style));
                self.set_style_if_changed(inner, style);
            }
            None => self.set_style_if_changed(shadow.id, style),
        }
    }

    fn set_style_if_changed(&mut self, id: NodeId, style: Style) {
        if self.tree.style(id).ok() != Some(&style) {
            let _ = self.tree.set_style(id, style);
        }
    }

    /// Makes a boundary an ordinary node: its children hang from it again, in its parent's tree.
    fn make_plain(&mut self, shadow: &mut Shadow) {
        let Some(inner) = shadow.inner.take() else { return };
        let ids: Vec<NodeId> = shadow.children.iter().map(|c| c.id).collect();
        let _ = self.tree.set_children(inner, &[]);
        if let Ok(style) = self.tree.style(inner).cloned() {
            let _ = self.tree.set_style(shadow.id, style);
        }
        let _ = self.tree.set_children(shadow.id, &ids);
        let _ = self.tree.remove(inner);
    }

    /// The generation of the placed tree this layouter produced last (0: none it vouches
    /// for): the one `layout_after` copies from.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Lays the tree out in a `width` x `height` box whose top-left is at (`x`, `y`).
    pub fn layout(&mut self, root: &ViewNode, x: f32, y: f32, width: f32, height: f32) -> PlacedTree {
        self.layout_after(root, &root.subtree_hashes(), None, [x, y, width, height])
    }

    /// As [`Layouter::layout`] in the box `[x, y, width, height]`, for a tree whose
    /// [`ViewNode::subtree_hashes`] are `hashes`: subtrees whose hashes did not change since
    /// the last layout keep their taffy nodes untouched, and when `previous` is the placed tree
    /// of that layout, those that also kept their place are copied from it rather than read
    /// from taffy again. The result is the same as a fresh layouter's.
    pub fn layout_after(&mut self, root: &ViewNode, hashes: &SubtreeHashes, previous: Option<&PlacedTree>, frame: [f32; 4]) -> PlacedTree {
        let [x, y, width, height] = frame;
        let nodes = hashes.hash.len();
        // Counted with the most nodes kept aside, which a tree of any size may have beside it.
        if self.peak_nodes > COMPACT_ABOVE && (nodes + SPARE_NODES) * 2 < self.peak_nodes {
            *self = self.fresh();
        }
        self.pass += 1;
        let old = self.shadow.take();
        let old_at = old.as_ref().map(|_| 0);
        let mut shadow = self.sync(root, hashes, 0, old, old_at);
        self.peak_nodes = self.peak_nodes.max(self.tree.total_node_count());
        let available = Size { width: AvailableSpace::Definite(width), height: AvailableSpace::Definite(height) };
        let _ = self.tree.compute_layout_with_measure(shadow.id, available, |known, avail, _id, ctx, _style| measure(known, avail, ctx));
        let previous = previous.filter(|p| p.generation != 0 && p.generation == self.generation);
        let generation = GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut at = Collect { out: PlacedTree { nodes: Vec::with_capacity(nodes), generation }, previous };
        let frame = Frame { x, y, cumulative: (0.0, 0.0), parent: None, clip: None };
        self.collect(root, &mut shadow, frame, None, &mut at);
        self.shadow = Some(shadow);
        self.generation = generation;
        at.out
    }

    /// Lays out `child`, the `k`-th child of the root of `tree`, again in the box it has there,
    /// and puts it in place of its old nodes; the rest of `tree` stays. Exact only when the
    /// child's box does not depend on what it holds (its style fixes the size the root gives
    /// it, as a bar of fixed height stretched across the screen): false, with `tree` as it
    /// was, when the child's new layout comes out another size.
    pub fn relayout_root_child(&mut self, tree: &mut PlacedTree, k: usize, child: &ViewNode) -> bool {
        let Some((start, end)) = tree.root_child_range(k) else { return false };
        let old = &tree.nodes[start];
        let (x, y, w, h, clip, depth) = (old.x, old.y, old.w, old.h, old.clip, old.depth);
        // The size the root gave it, as a style: the same box, whatever taffy would fit.
        let mut sized = child.clone();
        sized.style.width = Some(w);
        sized.style.height = Some(h);
        let hashes = sized.subtree_hashes();
        self.pass += 1;
        let old_shadow = self.shadow.take();
        let mut shadow = self.sync(&sized, &hashes, 0, old_shadow, None);
        let available = Size { width: AvailableSpace::Definite(w), height: AvailableSpace::Definite(h) };
        let _ = self.tree.compute_layout_with_measure(shadow.id, available, |known, avail, _id, ctx, _style| measure(known, avail, ctx));
        let mut at = Collect { out: PlacedTree { nodes: Vec::with_capacity(end - start), generation: 0 }, previous: None };
        let frame = Frame { x, y, cumulative: (0.0, 0.0), parent: None, clip };
        self.collect(child, &mut shadow, frame, None, &mut at);
        self.shadow = Some(shadow);
        let mut fresh = at.out;
        let Some(top) = fresh.nodes.first() else { return false };
        if (top.x, top.y, top.w, top.h) != (x, y, w, h) {
            return false;
        }
        for node in &mut fresh.nodes {
            node.parent = Some(node.parent.map_or(0, |p| p + start));
            node.depth += depth;
        }
        let grown = fresh.nodes.len() as isize - (end - start) as isize;
        for node in &mut tree.nodes[end..] {
            node.parent = node.parent.map(|p| if p >= end { (p as isize + grown) as usize } else { p });
        }
        tree.nodes.splice(start..end, fresh.nodes);
        // No longer what its layouter produced, and the shadow no longer describes that
        // layouter's last tree: nothing is copied from either.
        tree.generation = 0;
        self.generation = 0;
        true
    }

    /// Places `node` (its taffy node `shadow`) and its subtree in `frame`; `old_at` is where
    /// the same subtree began in the previous placed tree, when its parent's was the same.
    fn collect(&self, node: &ViewNode, shadow: &mut Shadow, frame: Frame, old_at: Option<u32>, at: &mut Collect<'_>) {
        let Ok(unrounded) = self.tree.layout(shadow.id) else { return };
        // Summed as taffy's rounding sums it: the rounded sizes inside depend on it.
        let cumulative = (frame.cumulative.0 + unrounded.location.x, frame.cumulative.1 + unrounded.location.y);
        let laid = [cumulative.0, cumulative.1, unrounded.size.width, unrounded.size.height];
        let x = frame.x + unrounded.location.x.round();
        let y = frame.y + unrounded.location.y.round();
        let old_at = old_at.or(shadow.kept_at.filter(|(pass, _)| *pass == self.pass).map(|(_, i)| i));
        if let Some(i) = old_at {
            if copy_kept(shadow, laid, (x, y), &frame, i as usize, at) {
                return;
            }
        }
        shadow.laid = laid;
        let (w, h) = (rounded_span(cumulative.0, unrounded.size.width), rounded_span(cumulative.1, unrounded.size.height));
        // A boundary's content is measured in its own tree (its stand-in holds none).
        let content = match shadow.inner {
            Some(inner) => self.tree.unrounded_layout(inner).content_size,
            None => unrounded.content_size,
        };
        let content_height = rounded_span(cumulative.1, content.height).max(h);
        let text = match &node.content {
            Content::Text(spec) => {
                let inner_w = (w - node.style.padding[0] - node.style.padding[2]).max(1.0);
                Some(text_cache::text(
                    &spec.text,
                    TextStyle { size_px: spec.size_px, weight: spec.weight },
                    Some(inner_w + 0.5),
                    spec.max_lines,
                ))
            }
            Content::Icon { name, size_px, .. } => Some(text_cache::icon(name, *size_px)),
            Content::None | Content::Image(_) => None,
        };
        let out = &mut at.out;
        let index = out.nodes.len();
        let clip = frame.clip;
        let scroll = if node.style.scroll { node.scroll_y.clamp(0.0, (content_height - h).max(0.0)) } else { 0.0 };
        out.nodes.push(Placed {
            x,
            y,
            w,
            h,
            parent: frame.parent,
            clip,
            depth: frame.parent.map_or(0, |p| out.nodes[p].depth + 1),
            content_height,
            scroll_y: scroll,
            scrollable: node.style.scroll,
            viewport: node.style.viewport,
            text,
            text_color: match &node.content {
                Content::Text(spec) => Some(spec.color),
                Content::Icon { color, .. } => Some(*color),
                Content::None | Content::Image(_) => None,
            },
            image: match &node.content {
                Content::Image(i) => Some(i.clone()),
                _ => None,
            },
            text_align: match &node.content {
                Content::Text(spec) => spec.align,
                _ => 1,
            },
            padding: node.style.padding,
            paint: node.paint,
            a11y: node.a11y.clone(),
            hit: node.hit,
        });
        let child_clip = if node.paint.clip || node.style.scroll { Some(intersect(clip, [x, y, x + w, y + h])) } else { clip };
        // Inside a kept subtree every child is its old self: its place follows its elders'.
        let mut child_old_at = old_at.map(|i| i + 1);
        for (child, child_shadow) in node.children.iter().zip(shadow.children.iter_mut()) {
            let count = child_shadow.count;
            let frame = Frame { x, y: y - scroll, cumulative, parent: Some(index), clip: child_clip };
            self.collect(child, child_shadow, frame, child_old_at, at);
            child_old_at = child_old_at.map(|i| i + count);
        }
    }
}

/// Whether `old` is a changed version of `node` (the node at `at` of `hashes`) rather than
/// another one: a leaf, a wrapper of one child styled as before, or a node at least half of
/// whose children the new node still has.
fn changed_version(tree: &TaffyTree<Measure>, old: &Shadow, node: &ViewNode, hashes: &SubtreeHashes, at: usize) -> bool {
    if old.children.is_empty() {
        return true;
    }
    if old.children.len() == 1 && node.children.len() == 1 {
        // A boundary as its parent sees it: how it lays out its child may change.
        let style = if old.inner.is_some() { outer_style(&taffy_style(node)) } else { taffy_style(node) };
        return tree.style(old.id).is_ok_and(|old_style| *old_style == style);
    }
    let mut now: Vec<u64> = hashes.children(at).map(|i| hashes.hash[i]).collect();
    now.sort_unstable();
    let kept = old.children.iter().filter(|c| now.binary_search(&c.hash).is_ok()).count();
    kept * 2 >= old.children.len()
}

/// Where a node is placed: its parent's position (its scroll taken off), the unrounded
/// position taffy's rounding starts its sums from, the parent's index and the clip it gets.
struct Frame {
    x: f32,
    y: f32,
    cumulative: (f32, f32),
    parent: Option<usize>,
    clip: Option<[f32; 4]>,
}

/// Copies the nodes of a kept subtree that begins at `i` in the previous placed tree, when it
/// is laid out in the same unrounded box: every node inside comes out as before, moved with its
/// root (a list scrolled) when all of them are on whole pixels and it moved by whole pixels, so
/// the sums come out as a fresh layout's exactly, and clipped again when it moved or its clip
/// changed. False when it cannot be copied.
fn copy_kept(shadow: &Shadow, laid: [f32; 4], (x, y): (f32, f32), frame: &Frame, i: usize, at: &mut Collect<'_>) -> bool {
    let Some(previous) = at.previous else { return false };
    let count = shadow.count as usize;
    let Some(old) = previous.nodes.get(i..i + count) else { return false };
    let root = &old[0];
    if !shadow.laid.iter().zip(laid).all(|(a, b)| a.to_bits() == b.to_bits()) {
        return false;
    }
    let moved = root.x.to_bits() != x.to_bits() || root.y.to_bits() != y.to_bits();
    let (dx, dy) = (x - root.x, y - root.y);
    // Every sum inside exact: whole positions and whole scroll offsets (a fraction of a
    // scroll that rounding swallowed at one height would show at another).
    if moved && !(whole(dx) && whole(dy) && old.iter().all(|n| whole(n.x) && whole(n.y) && whole(n.scroll_y))) {
        return false;
    }
    let clip_again = moved || root.clip != frame.clip;
    let out = &mut at.out;
    let start = out.nodes.len();
    let depth = frame.parent.map_or(0, |p| out.nodes[p].depth + 1);
    for (k, node) in old.iter().enumerate() {
        let mut node = node.clone();
        node.parent = if k == 0 { frame.parent } else { node.parent.map(|p| p - i + start) };
        node.depth = node.depth - root.depth + depth;
        if moved {
            node.x += dx;
            node.y += dy;
        }
        if clip_again {
            node.clip = match node.parent {
                Some(p) if k > 0 => {
                    let parent = &out.nodes[p];
                    let [px, py, pw, ph] = [parent.x, parent.y, parent.w, parent.h];
                    if parent.paint.clip || parent.scrollable {
                        Some(intersect(parent.clip, [px, py, px + pw, py + ph]))
                    } else {
                        parent.clip
                    }
                }
                _ => frame.clip,
            };
        }
        out.nodes.push(node);
    }
    true
}

/// A whole number of pixels, small enough that sums of such stay exact in `f32`.
/// A length starting at `start` rounded as taffy rounds it: the distance between the rounded
/// ends, so adjacent boxes meet without gaps.
fn rounded_span(start: f32, length: f32) -> f32 {
    (start + length).round() - start.round()
}

fn whole(v: f32) -> bool {
    v == v.round() && v.abs() < 16_777_216.0
}

fn intersect(a: Option<[f32; 4]>, b: [f32; 4]) -> [f32; 4] {
    match a {
        None => b,
        Some(a) => [a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])],
    }
}

fn measure(known: Size<Option<f32>>, avail: Size<AvailableSpace>, ctx: Option<&mut Measure>) -> Size<f32> {
    match ctx {
        None | Some(Measure::None) => Size::ZERO,
        Some(Measure::Icon { size }) => Size { width: known.width.unwrap_or(*size), height: known.height.unwrap_or(*size) },
        Some(Measure::Text { spec, sizes }) => {
            // Wrap at the content box: taffy passes a known width as the border box (padding
            // included) but has already taken the padding off the available width.
            let max_width = match avail.width {
                AvailableSpace::Definite(w) => Some(w),
                AvailableSpace::MinContent => Some(0.0),
                AvailableSpace::MaxContent => None,
            };
            let width_key = max_width.map(|w| (w + 0.5).floor() as u32);
            let size = match sizes.iter().find(|(k, _)| *k == width_key) {
                Some((_, size)) => *size,
                None => {
                    let laid = text_cache::text(
                        &spec.text,
                        TextStyle { size_px: spec.size_px, weight: spec.weight },
                        max_width.map(|w| w + 0.5),
                        spec.max_lines,
                    );
                    let size = Size { width: laid.width.ceil(), height: laid.height.ceil() };
                    if sizes.len() >= 4 {
                        sizes.remove(0);
                    }
                    sizes.push((width_key, size));
                    size
                }
            };
            Size { width: known.width.unwrap_or(size.width), height: known.height.unwrap_or(size.height) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::TextSpec;
    use phoneworld_text::Weight;

    fn padded_text(text: &str, pad: f32) -> ViewNode {
        let mut t = ViewNode::default();
        t.style.padding = [pad, pad, pad, pad];
        t.content = Content::Text(TextSpec {
            text: text.into(),
            size_px: 40.0,
            weight: Weight::Regular,
            color: phoneworld_render::Color::BLACK,
            max_lines: None,
            align: 0,
        });
        t
    }

    /// A padded text in a column wraps at its content box, so its box is as tall as its lines.
    #[test]
    fn a_padded_text_is_as_tall_as_its_lines_at_the_content_width() {
        let text = "Showers with a high of 59 and a low of 46. Chance of precipitation 94 percent.";
        let (width, pad) = (600.0, 60.0);
        let mut root = ViewNode::default();
        root.children.push(padded_text(text, pad));
        let placed = Layouter::new().layout(&root, 0.0, 0.0, width, 2000.0);
        let node = &placed.nodes[1];
        let laid = node.text.as_ref().expect("text");
        assert!(laid.lines.len() > 1, "the sentence wraps: {:?}", laid.lines);
        assert!(laid.width <= width - 2.0 * pad + 0.5, "lines fit the content box: {}", laid.width);
        assert!(node.h + 0.5 >= laid.height + 2.0 * pad, "box {} px tall for {} px of lines", node.h, laid.height);
    }

    fn boxes(tree: &PlacedTree) -> Vec<[f32; 4]> {
        tree.nodes.iter().map(|n| [n.x, n.y, n.w, n.h]).collect()
    }

    fn list(rows: usize) -> ViewNode {
        ViewNode { children: (0..rows).map(|i| padded_text(&format!("Row {i} of a long list"), 8.0)).collect(), ..ViewNode::default() }
    }

    /// Laid out after a tree that differs in one row (its text) or in its scroll, the tree
    /// comes out as a fresh layouter lays it out: the rows that kept their place are copied
    /// from the layout before, so are rows scrolled by whole pixels (moved and clipped again),
    /// the changed row and rows scrolled by a fraction are placed anew.
    #[test]
    fn a_layout_after_a_changed_row_and_a_scroll_is_a_fresh_layout() {
        let mut screen = ViewNode::default();
        let mut scroller = list(30);
        scroller.style.scroll = true;
        screen.children.push(list(3));
        screen.children.push(scroller);
        let mut layouter = Layouter::new();
        let mut before = layouter.layout(&screen, 0.0, 0.0, 1080.0, 600.0);
        for change in 0..5 {
            let mut after = screen.clone();
            match change {
                0 => after.children[0].children[1] = padded_text("A longer row that wraps onto a second line, or even a third one", 8.0),
                // Scrolled by whole pixels (rows copied and moved), then by a fraction.
                1 => after.children[1].scroll_y = 40.0,
                2 => after.children[1].scroll_y = 100.0,
                3 => after.children[1].scroll_y = 37.5,
                _ => after.children[1].children[4].paint.background = Some(phoneworld_render::Color::BLACK),
            }
            let placed = layouter.layout_after(&after, &after.subtree_hashes(), Some(&before), [0.0, 0.0, 1080.0, 600.0]);
            let fresh = Layouter::new().layout(&after, 0.0, 0.0, 1080.0, 600.0);
            assert_eq!(boxes(&placed), boxes(&fresh), "change {change}");
            let parents = |t: &PlacedTree| t.nodes.iter().map(|n| (n.parent, n.depth, n.clip, n.scroll_y)).collect::<Vec<_>>();
            assert_eq!(parents(&placed), parents(&fresh), "change {change}");
            (screen, before) = (after, placed);
        }
    }

    /// A screen of rows, each a row's title and detail.
    fn screen_of(titles: &str, rows: usize) -> ViewNode {
        let row = |i: usize| ViewNode {
            children: vec![padded_text(&format!("{titles} {i}"), 8.0), padded_text(&format!("The detail of {titles} {i}"), 4.0)],
            ..ViewNode::default()
        };
        ViewNode { children: (0..rows).map(row).collect(), ..ViewNode::default() }
    }

    /// A screen shown again after another takes back the rows it had, with their taffy nodes
    /// (kept aside while the other screen was shown), and lays out as a fresh layouter does;
    /// nothing kept aside is lost or leaked.
    #[test]
    fn a_screen_shown_again_takes_back_its_rows_and_lays_out_as_a_fresh_one() {
        let (first, other) = (screen_of("Network", 6), screen_of("Alarm", 6));
        let mut layouter = Layouter::new();
        layouter.layout(&first, 0.0, 0.0, 1080.0, 2400.0);
        let ids = |l: &Layouter| l.shadow.as_ref().map(|s| s.children.iter().map(|c| c.id).collect::<Vec<_>>()).unwrap_or_default();
        let first_rows = ids(&layouter);
        layouter.layout(&other, 0.0, 0.0, 1080.0, 2400.0);
        assert_eq!(layouter.spare.nodes, 6 * 3, "the first screen's rows are kept aside");
        let again = layouter.layout(&first, 0.0, 0.0, 1080.0, 2400.0);
        assert_eq!(ids(&layouter), first_rows, "its rows came back, taffy nodes and all");
        assert_eq!(boxes(&again), boxes(&Layouter::new().layout(&first, 0.0, 0.0, 1080.0, 2400.0)));
        assert_eq!(layouter.tree.total_node_count(), first.node_count() + layouter.spare.nodes);
        // Going back and forth keeps as many subtrees aside as there are, however long it goes.
        for _ in 0..50 {
            layouter.layout(&other, 0.0, 0.0, 1080.0, 2400.0);
            layouter.layout(&first, 0.0, 0.0, 1080.0, 2400.0);
        }
        let kept: usize = layouter.spare.by_hash.values().map(Vec::len).sum();
        assert_eq!(layouter.spare.order.len(), kept);
    }

    /// A row of a label and a switch-like track of fixed size whose thumb sits at its start
    /// or end; `thumb` is the thumb's height (taller than the track: it overflows).
    fn switch_row(i: usize, on: bool, thumb: f32) -> ViewNode {
        let mut track = ViewNode::default();
        track.style.width = Some(136.0);
        track.style.height = Some(84.0);
        track.style.shrink = false;
        track.style.padding = [10.5, 0.0, 10.5, 0.0];
        track.style.align_items = Some(Align::Center);
        track.style.justify = if on { Justify::End } else { Justify::Start };
        let mut knob = ViewNode::default();
        knob.style.width = Some(if on { 63.0 } else { 42.0 });
        knob.style.height = Some(thumb);
        knob.style.shrink = false;
        track.children.push(knob);
        let mut row = ViewNode::default();
        row.style.direction = Direction::Row;
        row.style.align_items = Some(Align::Center);
        let mut label = padded_text(&format!("Setting number {i}"), 7.5);
        label.style.grow = 1.0;
        row.children = vec![label, track];
        row
    }

    /// Switches toggled one by one lay out as a layouter without boundaries lays them out
    /// from scratch (boxes, parents, clips and content heights), and a toggle marks nothing
    /// outside its track for layout; a track whose thumb overflows it is laid out with its
    /// parent's tree, so the scrolling list around it sees the overflow.
    #[test]
    fn switches_toggled_inside_fixed_tracks_lay_out_as_without_boundaries() {
        for thumb in [63.0, 120.0] {
            let screen_of = |on: &[bool]| {
                let mut list = ViewNode::default();
                list.style.scroll = true;
                list.children = on.iter().enumerate().map(|(i, on)| switch_row(i, *on, thumb)).collect();
                ViewNode { children: vec![list], ..ViewNode::default() }
            };
            let mut on = [false; 8];
            let (mut layouter, mut synced) = (Layouter::new(), Layouter::new());
            let mut before = layouter.layout(&screen_of(&on), 0.0, 0.0, 1080.0, 700.0);
            synced.layout(&screen_of(&on), 0.0, 0.0, 1080.0, 700.0);
            for i in [3, 0, 7, 3, 5] {
                on[i] = !on[i];
                let screen = screen_of(&on);
                let hashes = screen.subtree_hashes();
                // Synced alone, on a twin: the toggle marks the track's own tree only.
                let old = synced.shadow.take();
                synced.pass += 1;
                let shadow = synced.sync(&screen, &hashes, 0, old, None);
                let marked = synced.tree.dirty(shadow.id).unwrap();
                assert_eq!(marked, thumb > 84.0, "thumb {thumb}, toggle {i}: the screen marked for layout");
                synced.shadow = Some(shadow);
                synced.layout_after(&screen, &hashes, None, [0.0, 0.0, 1080.0, 700.0]);
                let placed = layouter.layout_after(&screen, &hashes, Some(&before), [0.0, 0.0, 1080.0, 700.0]);
                let reference = Layouter::without_boundaries().layout(&screen, 0.0, 0.0, 1080.0, 700.0);
                let facts = |t: &PlacedTree| t.nodes.iter().map(|n| (n.parent, n.clip, n.content_height)).collect::<Vec<_>>();
                assert_eq!(boxes(&placed), boxes(&reference), "thumb {thumb}, toggle {i}");
                assert_eq!(facts(&placed), facts(&reference), "thumb {thumb}, toggle {i}");
                before = placed;
            }
        }
    }

    /// After a long screen, a short one rebuilds the taffy tree small, and lays out as a fresh
    /// layouter does; so does the long screen when it comes back.
    #[test]
    fn a_tree_shrunk_after_a_long_screen_lays_out_as_a_fresh_one() {
        let (long, short) = (list(4 * COMPACT_ABOVE), list(10));
        let mut layouter = Layouter::new();
        layouter.layout(&long, 0.0, 0.0, 1080.0, 2400.0);
        assert!(layouter.peak_nodes > 4 * COMPACT_ABOVE);
        let after_long = layouter.layout(&short, 0.0, 0.0, 1080.0, 2400.0);
        assert_eq!(layouter.peak_nodes, 11, "the tree was built afresh for the short screen");
        assert_eq!(boxes(&after_long), boxes(&Layouter::new().layout(&short, 0.0, 0.0, 1080.0, 2400.0)));
        let again = layouter.layout(&long, 0.0, 0.0, 1080.0, 2400.0);
        assert_eq!(boxes(&again), boxes(&Layouter::new().layout(&long, 0.0, 0.0, 1080.0, 2400.0)));
    }
}
