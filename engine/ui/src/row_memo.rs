//! List rows kept from one compose to the next. The builder watches what a row's build looks
//! up through its scope: besides its item and index, the paths of the state, local state,
//! system or view model it read, with the small values they gave (a row that read a list
//! whole, an outer module's argument, or the state directly, as a map does, is not kept). Such
//! a row comes out the same when it is built again from the same template, item, index and
//! keys where those paths give the same values, on the same screen with the same theme,
//! metrics and focus, and the same scroll offsets and widget state under its key: it is cloned
//! instead of built, its hits put back into the hit table. A toggle builds one row again.

use std::collections::BTreeMap;
use std::sync::Arc;

use phoneworld_data::{Node, PathRoot};
use phoneworld_layout::{KnownHashes, ViewNode};
use serde_json::Value;

use crate::builder::{At, Builder};
use crate::catalog::Catalog;
use crate::interaction::Hit;
use crate::store::{Focus, ScreenEntry};
use crate::theme::{Metrics, Theme};

/// What a device keeps of the rows it built last (see the module's documentation).
#[derive(Default)]
pub struct RowMemo {
    /// The catalog the row templates belong to, held so a template's address stays its own.
    catalog: Option<Arc<Catalog>>,
    screen: Option<Screen>,
    rows: BTreeMap<String, Kept>,
    /// Counts composes: a row not built or reused in the last two is dropped.
    pass: u64,
}

/// What every row of a screen is built with.
#[derive(PartialEq)]
pub(crate) struct Screen {
    pub(crate) app: String,
    pub(crate) screen: String,
    pub(crate) focus: Option<Focus>,
    pub(crate) theme: Theme,
    pub(crate) m: Metrics,
    pub(crate) screen_w: f32,
}

/// A row as built, with what its build depended on and what it added to the builder.
struct Kept {
    /// The address of its template in the held catalog.
    template: usize,
    item: Value,
    index: usize,
    /// The paths it read outside its item, with what they gave.
    reads: Vec<(phoneworld_data::Path, Option<Value>)>,
    item_path: Option<String>,
    in_scroll: bool,
    /// The layout modules being expanded around it.
    modules: Vec<String>,
    entry: EntryUnder,
    /// `None`: the row was not visible.
    view: Option<ViewNode>,
    /// The hits it added, and where the first was in the table (its view's hit indices count
    /// from there).
    hits: Vec<Hit>,
    first_hit: u32,
    /// Widgets it counted against the view's limits, and how deep it nested below its start.
    nodes: usize,
    depth: usize,
    /// The stable keys it gave.
    keys: Vec<String>,
    used: u64,
}

/// The scroll offsets and widget state stored under a row's key (its nodes' keys all start
/// with it).
#[derive(PartialEq)]
struct EntryUnder {
    scroll: Vec<(String, f32)>,
    widgets: Vec<(String, Value)>,
}

impl EntryUnder {
    fn of(entry: &ScreenEntry, row_key: &str) -> EntryUnder {
        EntryUnder { scroll: under(&entry.scroll, row_key), widgets: under(&entry.widgets, row_key) }
    }
}

fn under<V: Clone>(map: &BTreeMap<String, V>, row_key: &str) -> Vec<(String, V)> {
    use std::ops::Bound;
    map.range::<str, _>((Bound::Included(row_key), Bound::Unbounded))
        .take_while(|(k, _)| k.starts_with(row_key))
        .filter(|(k, _)| matches!(k.as_bytes().get(row_key.len()), None | Some(b'.' | b'/')))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

impl RowMemo {
    /// Starts a compose of `screen` from `catalog`: rows kept for another screen, catalog,
    /// theme or focus are dropped.
    pub(crate) fn begin(&mut self, catalog: &Arc<Catalog>, screen: Screen) {
        self.pass += 1;
        let same_catalog = self.catalog.as_ref().is_some_and(|c| Arc::ptr_eq(c, catalog));
        if !same_catalog || self.screen.as_ref() != Some(&screen) {
            self.rows.clear();
            self.catalog = Some(Arc::clone(catalog));
            self.screen = Some(screen);
        }
    }

    /// Drops the rows neither built nor reused by this compose or the one before.
    pub(crate) fn end(&mut self) {
        let pass = self.pass;
        self.rows.retain(|_, kept| kept.used + 1 >= pass);
    }

    /// How many rows are kept.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Whether two values are the same to the bit: serde_json's equality takes -0.0 for 0.0,
/// which a template shows differently ("-0.00").
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            (x.as_i64(), x.as_u64(), x.as_f64().map(f64::to_bits)) == (y.as_i64(), y.as_u64(), y.as_f64().map(f64::to_bits))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| identical(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().zip(y).all(|((kx, x), (ky, y))| kx == ky && identical(x, y)),
        _ => a == b,
    }
}

/// Adds `by` to every hit index in `view` (whose known hashes no longer hold).
fn shift_hits(view: &mut ViewNode, by: i64) {
    view.known_hashes = Default::default();
    if let Some(hit) = &mut view.hit {
        *hit = (i64::from(*hit) + by) as u32;
    }
    for child in &mut view.children {
        shift_hits(child, by);
    }
}

impl Builder<'_> {
    /// Builds the list row `template` (item `item`, `index` counted from 0) at `at`, or gives
    /// it back as kept from the last compose when nothing it read has changed.
    pub(crate) fn row(&mut self, template: &Node, item: &Value, index: usize, at: &At<'_>) -> Option<ViewNode> {
        if self.memo.is_none() {
            return self.node(template, at);
        }
        if let Some(view) = self.kept_row(template, item, index, at) {
            return view;
        }
        let (hits, nodes, keys, problems) = (self.hits.len(), self.budget.nodes, self.new_keys.len(), self.problems_noted);
        let deepest = std::mem::replace(&mut self.budget.deepest, self.budget.depth);
        let start_depth = self.budget.depth;
        let (view, reads) = phoneworld_data::reads_during(|| self.node(template, at));
        let depth = self.budget.deepest - start_depth;
        self.budget.deepest = self.budget.deepest.max(deepest);
        // Module arguments read inside are the row's own (derived from what it read) unless an
        // enclosing module gave some. A row that met a problem (a limit, a bad color) is built
        // again, so the problem is reported anew.
        let derived: &[PathRoot] = if at.scope.args.is_none() { &[PathRoot::Arg] } else { &[] };
        if !reads.all_kept_except(derived) || self.problems_noted != problems || self.budget.spent {
            return view;
        }
        // Its children's hashes kept with it (the row's own node is changed by its list).
        let mut view = view;
        if let Some(view) = &mut view {
            for child in &mut view.children {
                child.known_hashes = KnownHashes(Some(Arc::new(child.subtree_hashes())));
            }
        }
        let memo = self.memo.as_deref_mut().expect("checked");
        let kept = Kept {
            template: template as *const Node as usize,
            item: item.clone(),
            index,
            reads: reads.into_values(),
            item_path: at.item_path.clone(),
            in_scroll: at.in_scroll,
            modules: self.budget.modules.clone(),
            entry: EntryUnder::of(self.entry, &at.key),
            view: view.clone(),
            hits: self.hits[hits..].to_vec(),
            first_hit: hits as u32,
            nodes: self.budget.nodes - nodes,
            depth,
            keys: self.new_keys[keys..].to_vec(),
            used: memo.pass,
        };
        memo.rows.insert(at.key.clone(), kept);
        view
    }

    /// The row kept under `at.key`, when it was built from the same inputs and putting it
    /// back does what building it would (the same limits reached, the same keys free).
    fn kept_row(&mut self, template: &Node, item: &Value, index: usize, at: &At<'_>) -> Option<Option<ViewNode>> {
        let memo = self.memo.as_deref_mut()?;
        let kept = memo.rows.get_mut(&at.key)?;
        let same = kept.template == template as *const Node as usize
            && kept.index == index
            && kept.in_scroll == at.in_scroll
            && kept.item_path == at.item_path
            && kept.modules == self.budget.modules
            && identical(&kept.item, item)
            && self.budget.nodes + kept.nodes < phoneworld_data::MAX_VIEW_NODES
            && self.budget.depth + kept.depth < phoneworld_data::MAX_VIEW_DEPTH
            && kept.keys.iter().all(|k| !self.keys.contains(k))
            && kept.entry == EntryUnder::of(self.entry, &at.key)
            // Looked up again through the scope, so a row built around this one sees the reads.
            && kept.reads.iter().all(|(path, value)| match (at.scope.get(path), value) {
                (Some(now), Some(then)) => identical(&now, then),
                (now, then) => now.is_none() && then.is_none(),
            });
        if !same {
            return None;
        }
        kept.used = memo.pass;
        self.budget.nodes += kept.nodes;
        self.budget.deepest = self.budget.deepest.max(self.budget.depth + kept.depth);
        for key in &kept.keys {
            self.keys.insert(key.clone());
        }
        self.new_keys.extend(kept.keys.iter().cloned());
        let first_hit = self.hits.len() as u32;
        self.hits.extend(kept.hits.iter().cloned());
        let mut view = kept.view.clone();
        if first_hit != kept.first_hit {
            if let Some(view) = &mut view {
                shift_hits(view, i64::from(first_hit) - i64::from(kept.first_hit));
            }
        }
        Some(view)
    }
}

#[cfg(test)]
mod tests {
    use super::identical;
    use serde_json::json;

    /// A row kept for an item with 0.0 is not the row of -0.0 (shown "-0.00"), nor 0 of 0.0.
    #[test]
    fn values_are_identical_to_the_bit() {
        assert!(identical(&json!({"a": [1, 0.5, "x"]}), &json!({"a": [1, 0.5, "x"]})));
        assert!(!identical(&json!({"amount": 0.0}), &json!({"amount": -0.0})));
        assert!(!identical(&json!(0), &json!(0.0)));
        assert!(!identical(&json!({"a": 1}), &json!({"b": 1})));
    }
}
