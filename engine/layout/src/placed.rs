//! The laid-out tree, flattened in pre-order with absolute pixel boxes.

use std::sync::Arc;

use phoneworld_render::Color;
use phoneworld_text::TextLayout;

use crate::view::{A11y, ImagePaint, Paint};

/// One node after layout.
#[derive(Debug, Clone)]
pub struct Placed {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    pub parent: Option<usize>,
    /// The visible region (x1, y1, x2, y2) this node is clipped to, if any.
    pub clip: Option<[f32; 4]>,
    pub depth: usize,
    /// Height of the content (for scroll containers, the scrollable extent).
    pub content_height: f32,
    /// The scroll offset actually applied (clamped to the content).
    pub scroll_y: f32,
    pub scrollable: bool,
    /// See [`crate::BoxStyle::viewport`].
    pub viewport: bool,
    pub text: Option<Arc<TextLayout>>,
    pub text_color: Option<Color>,
    pub text_align: u8,
    pub image: Option<ImagePaint>,
    pub padding: [f32; 4],
    pub paint: Paint,
    /// Boxed: most nodes have none, and a phone keeps several laid-out screens.
    pub a11y: Option<Arc<A11y>>,
    pub hit: Option<u32>,
}

impl Placed {
    /// The part of the box that is on screen: (x1, y1, x2, y2), empty when clipped away.
    pub fn visible_rect(&self) -> [f32; 4] {
        let r = [self.x, self.y, self.x + self.w, self.y + self.h];
        match self.clip {
            None => r,
            Some(c) => [r[0].max(c[0]), r[1].max(c[1]), r[2].min(c[2]).max(r[0].max(c[0])), r[3].min(c[3]).max(r[1].max(c[1]))],
        }
    }

    pub fn is_visible(&self) -> bool {
        let [x1, y1, x2, y2] = self.visible_rect();
        x2 - x1 >= 1.0 && y2 - y1 >= 1.0
    }

    pub fn contains(&self, px: f32, py: f32) -> bool {
        let [x1, y1, x2, y2] = self.visible_rect();
        px >= x1 && px < x2 && py >= y1 && py < y2
    }
}

/// A laid-out tree.
#[derive(Debug, Clone, Default)]
pub struct PlacedTree {
    pub nodes: Vec<Placed>,
    /// Which layout produced it (0: none, or changed since): a layouter copies the nodes of
    /// unchanged subtrees from the tree it produced last, and only from that one.
    pub generation: u64,
}

impl PlacedTree {
    /// The nodes of the `k`-th child of the root, as a range of indices (pre-order keeps a
    /// subtree together).
    pub fn root_child_range(&self, k: usize) -> Option<(usize, usize)> {
        let mut children = (1..self.nodes.len()).filter(|&i| self.nodes[i].parent == Some(0));
        let start = children.nth(k)?;
        let end = children.next().unwrap_or(self.nodes.len());
        Some((start, end))
    }

    /// The topmost node with an interaction under the point: later nodes in pre-order are
    /// drawn over earlier ones, and children over parents.
    pub fn hit_test(&self, x: f32, y: f32) -> Option<usize> {
        (0..self.nodes.len()).rev().find(|&i| self.nodes[i].hit.is_some() && self.nodes[i].contains(x, y))
    }

    /// The innermost scroll container under the point.
    pub fn scroll_at(&self, x: f32, y: f32) -> Option<usize> {
        (0..self.nodes.len()).rev().find(|&i| self.nodes[i].scrollable && self.nodes[i].contains(x, y))
    }
}
