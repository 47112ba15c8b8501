//! Running taffy over a view tree. Text leaves are measured with the bundled fonts, so
//! wrapping shapes the layout.

use phoneworld_text::TextStyle;

use crate::text_cache;
use taffy::prelude::*;

use crate::placed::{Placed, PlacedTree};
use crate::view::{Align, Content, Direction, Justify, ViewNode};

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
    children: Vec<Shadow>,
}

/// Layout machinery kept per device: a persistent taffy tree reconciled with each new view
/// tree, so only nodes whose style or content changed are laid out again.
pub struct Layouter {
    tree: TaffyTree<Measure>,
    shadow: Option<Shadow>,
    /// The most nodes the tree has held: its storage never shrinks (see [`COMPACT_ABOVE`]).
    peak_nodes: usize,
}

/// A tree that once held more than this many nodes (a long list: about 1 KiB each) and now
/// needs less than half of them is built afresh, so a phone that showed one long screen does
/// not keep its size for good. Its layouts are the same either way; the step that shrinks it
/// lays out every node once (it shows another screen, so most of them change anyway).
const COMPACT_ABOVE: usize = 256;

impl Default for Layouter {
    fn default() -> Self {
        Layouter { tree: TaffyTree::new(), shadow: None, peak_nodes: 0 }
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

    fn measure_of(node: &ViewNode) -> Measure {
        match &node.content {
            Content::None | Content::Image(_) => Measure::None,
            Content::Text(spec) => Measure::Text { spec: spec.clone(), sizes: Vec::new() },
            Content::Icon { size_px, .. } => Measure::Icon { size: *size_px },
        }
    }

    /// Makes the taffy subtree match `node`, reusing `old` where it still fits.
    fn sync(&mut self, node: &ViewNode, old: Option<Shadow>) -> Shadow {
        let style = taffy_style(node);
        let mut shadow = match old {
            Some(old) => {
                if self.tree.style(old.id).ok() != Some(&style) {
                    let _ = self.tree.set_style(old.id, style);
                }
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
            None => {
                let id = self.tree.new_leaf_with_context(style, Layouter::measure_of(node)).expect("taffy leaf");
                Shadow { id, children: Vec::new() }
            }
        };
        let mut old_children = std::mem::take(&mut shadow.children).into_iter();
        let mut children = Vec::with_capacity(node.children.len());
        let mut changed = false;
        for child in &node.children {
            let previous = old_children.next();
            let previous_id = previous.as_ref().map(|p| p.id);
            let synced = self.sync(child, previous);
            changed |= previous_id != Some(synced.id);
            children.push(synced);
        }
        for leftover in old_children {
            changed = true;
            self.remove(leftover);
        }
        if changed {
            let ids: Vec<NodeId> = children.iter().map(|c| c.id).collect();
            let _ = self.tree.set_children(shadow.id, &ids);
        }
        shadow.children = children;
        shadow
    }

    fn remove(&mut self, shadow: Shadow) {
        for child in shadow.children {
            self.remove(child);
        }
        let _ = self.tree.remove(shadow.id);
    }

    /// Lays the tree out in a `width` x `height` box whose top-left is at (`x`, `y`).
    pub fn layout(&mut self, root: &ViewNode, x: f32, y: f32, width: f32, height: f32) -> PlacedTree {
        let nodes = root.node_count();
        if self.peak_nodes > COMPACT_ABOVE && nodes * 2 < self.peak_nodes {
            *self = Layouter::default();
        }
        let old = self.shadow.take();
        let shadow = self.sync(root, old);
        self.peak_nodes = self.peak_nodes.max(self.tree.total_node_count());
        let available = Size { width: AvailableSpace::Definite(width), height: AvailableSpace::Definite(height) };
        let _ = self.tree.compute_layout_with_measure(shadow.id, available, |known, avail, _id, ctx, _style| measure(known, avail, ctx));
        let mut placed = PlacedTree { nodes: Vec::with_capacity(nodes) };
        self.collect(root, &shadow, x, y, None, None, &mut placed);
        self.shadow = Some(shadow);
        placed
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
        let old_shadow = self.shadow.take();
        let shadow = self.sync(&sized, old_shadow);
        let available = Size { width: AvailableSpace::Definite(w), height: AvailableSpace::Definite(h) };
        let _ = self.tree.compute_layout_with_measure(shadow.id, available, |known, avail, _id, ctx, _style| measure(known, avail, ctx));
        let mut fresh = PlacedTree { nodes: Vec::with_capacity(end - start) };
        self.collect(child, &shadow, x, y, None, clip, &mut fresh);
        self.shadow = Some(shadow);
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
        true
    }

    #[allow(clippy::too_many_arguments, reason = "a recursive walk carrying the parent's frame")]
    fn collect(
        &self,
        node: &ViewNode,
        shadow: &Shadow,
        parent_x: f32,
        parent_y: f32,
        parent: Option<usize>,
        clip: Option<[f32; 4]>,
        out: &mut PlacedTree,
    ) {
        let Ok(layout) = self.tree.layout(shadow.id) else { return };
        let x = parent_x + layout.location.x;
        let y = parent_y + layout.location.y;
        let (w, h) = (layout.size.width, layout.size.height);
        let content_height = layout.content_size.height.max(h);
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
        let index = out.nodes.len();
        out.nodes.push(Placed {
            x,
            y,
            w,
            h,
            parent,
            clip,
            depth: parent.map_or(0, |p| out.nodes[p].depth + 1),
            content_height,
            scroll_y: 0.0,
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
        let scroll = if node.style.scroll { node.scroll_y.clamp(0.0, (content_height - h).max(0.0)) } else { 0.0 };
        out.nodes[index].scroll_y = scroll;
        for (child, child_shadow) in node.children.iter().zip(&shadow.children) {
            self.collect(child, child_shadow, x, y - scroll, Some(index), child_clip, out);
        }
    }
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
