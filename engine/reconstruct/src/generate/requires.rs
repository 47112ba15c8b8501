//! Controls that led on only once a form was filled: Save on a new contact shows "Name is
//! required" and stays until a name is typed, then opens the contact. The traces tell which
//! fields held text every time the control led on; the generated handler leads on only when
//! they hold text in the app.

use std::collections::{BTreeMap, BTreeSet};

use crate::abstraction::Abstraction;
use crate::graph::{action_label, widget_signature};
use crate::trace::{Trace, UiNode};

/// A node and the size of the screen its bounds are in.
pub(crate) type SizedNode = (UiNode, (u32, u32));

/// The fields a control needed filled, as seen on the screen it was used on.
#[derive(Debug, Clone)]
pub(crate) struct Requirement {
    /// Each field's node and the size of the screen its bounds are in.
    pub fields: Vec<SizedNode>,
    /// Times it stayed with one of them empty (what the condition explains).
    pub stayed_empty: usize,
}

/// Leading on once is no pattern.
const MIN_LED: usize = 2;

/// The text fields of a screen that hold text, by widget signature.
fn filled_fields(root: &UiNode, size: (u32, u32)) -> BTreeMap<String, UiNode> {
    let mut out = BTreeMap::new();
    root.walk(&mut Vec::new(), &mut |_, n| {
        if n.editable && !n.text.trim().is_empty() {
            let mut node = n.clone();
            node.children.clear();
            out.entry(widget_signature(n, size)).or_insert(node);
        }
    });
    out
}

/// What using `widget` (by `action`) on abstract screen `from` needed to lead to `to` rather
/// than stay: the fields filled every time it led on, when that explains more than it gets
/// wrong. `None` when no field was always filled, or the stays with them filled are as many.
pub(crate) fn learn(
    abstraction: &Abstraction,
    traces: &[Trace],
    from: usize,
    to: usize,
    widget: &str,
    action: &str,
) -> Option<Requirement> {
    let mut always: Option<BTreeMap<String, SizedNode>> = None;
    let mut stays: Vec<BTreeSet<String>> = Vec::new();
    let mut led = 0;
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            let (Some(target), Some(next)) = (&step.target, &step.next) else { continue };
            let (Some(a), Some(b)) = (trace.screens.get(&step.screen), trace.screens.get(next)) else { continue };
            let size = (a.width, a.height);
            if action_label(&step.action) != action || widget_signature(&target.node, size) != widget {
                continue;
            }
            let (Some(ai), Some(bi)) = (abstraction.classify(t, a), abstraction.classify(t, b)) else { continue };
            let Some(root) = a.root.as_ref().filter(|_| ai == from) else { continue };
            let filled = filled_fields(root, size);
            if bi == to {
                led += 1;
                let kept = match always.take() {
                    None => filled.into_iter().map(|(sig, n)| (sig, (n, size))).collect(),
                    Some(mut kept) => {
                        kept.retain(|sig, _| filled.contains_key(sig));
                        kept
                    }
                };
                always = Some(kept);
            } else if bi == from {
                stays.push(filled.into_keys().collect());
            }
        }
    }
    let always = always.filter(|a| !a.is_empty())?;
    let stayed_filled = stays.iter().filter(|s| always.keys().all(|k| s.contains(k))).count();
    let stayed_empty = stays.len() - stayed_filled;
    // Stays with the fields filled are what the condition gets wrong.
    (led >= MIN_LED && led > stayed_filled && stayed_empty > 0)
        .then(|| Requirement { fields: always.into_values().collect(), stayed_empty })
}
