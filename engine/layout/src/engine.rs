//! Running taffy over a view tree. Text leaves are measured with the bundled fonts, so
//! wrapping shapes the layout.

use phoneworld_text::TextStyle;

use crate::text_cache;
use taffy::prelude::*;

use crate::placed::{Placed, PlacedTree};
use crate::view::{Align, Content, Direction, Justify, ViewNode};

/// What taffy needs to measure a leaf.
enum Measure {
    None,
    Text { spec: crate::TextSpec },
    Icon { size: f32 },
}

/// Reusable layout machinery (one per device, so its allocations are reused).
pub struct Layouter {
    tree: TaffyTree<Measure>,
}

impl Default for Layouter {
    fn default() -> Self {
        Layouter { tree: TaffyTree::new() }
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
        style.flex_basis = Dimension::Length(0.0);
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

    fn build(&mut self, node: &ViewNode) -> NodeId {
        let style = taffy_style(node);
        let measure = match &node.content {
            Content::None => Measure::None,
            Content::Text(spec) => Measure::Text { spec: spec.clone() },
            Content::Icon { size_px, .. } => Measure::Icon { size: *size_px },
        };
        if node.children.is_empty() {
            return self.tree.new_leaf_with_context(style, measure).expect("taffy leaf");
        }
        let children: Vec<NodeId> = node.children.iter().map(|c| self.build(c)).collect();
        let id = self.tree.new_with_children(style, &children).expect("taffy node");
        self.tree.set_node_context(id, Some(measure)).expect("taffy context");
        id
    }

    /// Lays the tree out in a `width` x `height` box whose top-left is at (`x`, `y`).
    pub fn layout(&mut self, root: &ViewNode, x: f32, y: f32, width: f32, height: f32) -> PlacedTree {
        self.tree.clear();
        let root_id = self.build(root);
        let available = Size { width: AvailableSpace::Definite(width), height: AvailableSpace::Definite(height) };
        let _ = self.tree.compute_layout_with_measure(root_id, available, |known, avail, _id, ctx, _style| {
            measure(known, avail, ctx)
        });
        let mut placed = PlacedTree::default();
        self.collect(root, root_id, x, y, None, None, &mut placed);
        placed
    }

    #[allow(clippy::too_many_arguments, reason = "a recursive walk carrying the parent's frame")]
    fn collect(
        &self,
        node: &ViewNode,
        id: NodeId,
        parent_x: f32,
        parent_y: f32,
        parent: Option<usize>,
        clip: Option<[f32; 4]>,
        out: &mut PlacedTree,
    ) {
        let Ok(layout) = self.tree.layout(id) else { return };
        let x = parent_x + layout.location.x;
        let y = parent_y + layout.location.y;
        let (w, h) = (layout.size.width, layout.size.height);
        let content_height = layout.content_size.height.max(h);
        let text = match &node.content {
            Content::Text(spec) => {
                let inner_w = (w - node.style.padding[0] - node.style.padding[2]).max(1.0);
                Some(text_cache::text(&spec.text, TextStyle { size_px: spec.size_px, weight: spec.weight }, Some(inner_w + 0.5), spec.max_lines))
            }
            Content::Icon { name, size_px, .. } => Some(text_cache::icon(name, *size_px)),
            Content::None => None,
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
            text,
            text_color: match &node.content {
                Content::Text(spec) => Some(spec.color),
                Content::Icon { color, .. } => Some(*color),
                Content::None => None,
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
        let children = self.tree.children(id).unwrap_or_default();
        for (child, child_id) in node.children.iter().zip(children) {
            self.collect(child, child_id, x, y - scroll, Some(index), child_clip, out);
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
        Some(Measure::Text { spec }) => {
            let max_width = known.width.or(match avail.width {
                AvailableSpace::Definite(w) => Some(w),
                AvailableSpace::MinContent => Some(0.0),
                AvailableSpace::MaxContent => None,
            });
            let laid = text_cache::text(&spec.text, TextStyle { size_px: spec.size_px, weight: spec.weight }, max_width.map(|w| w + 0.5), spec.max_lines);
            Size { width: known.width.unwrap_or(laid.width.ceil()), height: known.height.unwrap_or(laid.height.ceil()) }
        }
    }
}
