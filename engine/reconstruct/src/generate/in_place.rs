//! Fields a tap opens in place: a search icon in a toolbar that, tapped, shows a search field
//! on the same screen. The screen's visits before and after the tap are one screen, so the
//! field is not among the widgets drawn from the example; it is added, hidden until the tap
//! shows it (`visible: "state.<key>"`), and the tap's handler sets that key.

use std::collections::BTreeSet;

use crate::abstraction::Abstraction;
use crate::trace::{Trace, TraceAction, UiNode};

/// A tap that stayed on its screen and showed a field the screen did not show before it.
#[derive(Debug, Clone)]
pub(crate) struct OpenedInPlace {
    /// The tapped node, and the size of the screen it was on.
    pub tap: UiNode,
    pub size: (u32, u32),
    /// The field as the screen after the tap showed it.
    pub field: UiNode,
}

/// The editable nodes of a tree that are on screen.
fn fields(root: &UiNode) -> Vec<&UiNode> {
    let mut out = Vec::new();
    root.walk(&mut Vec::new(), &mut |_, n| {
        if n.editable && n.visible && n.width() > 0 && n.height() > 0 {
            out.push(n);
        }
    });
    out
}

/// Every field a tap on the abstract screen `index` opened in place, once per field (the first
/// tap seen to open it).
pub(crate) fn opened_in_place(abstraction: &Abstraction, traces: &[Trace], index: usize) -> Vec<OpenedInPlace> {
    let members: BTreeSet<(usize, &str)> = abstraction.screens[index].members.iter().map(|(t, id)| (*t, id.as_str())).collect();
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut out = Vec::new();
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            let (TraceAction::Tap { .. }, Some(target), Some(next)) = (&step.action, &step.target, &step.next) else { continue };
            if !members.contains(&(t, step.screen.as_str())) || !members.contains(&(t, next.as_str())) {
                continue;
            }
            let (Some(before), Some(after)) = (trace.screens.get(&step.screen), trace.screens.get(next)) else { continue };
            let (Some(before_root), Some(after_root)) = (&before.root, &after.root) else { continue };
            let had: BTreeSet<(&str, &str)> = fields(before_root).iter().map(|n| (n.class.as_str(), n.resource_id.as_str())).collect();
            for field in fields(after_root) {
                let key = (field.class.clone(), field.resource_id.clone());
                if had.contains(&(key.0.as_str(), key.1.as_str())) || !seen.insert(key) {
                    continue;
                }
                out.push(OpenedInPlace { tap: target.node.clone(), size: (before.width, before.height), field: field.shallow() });
            }
        }
    }
    out
}

/// The state key that shows the field `field_id` of `screen` once a tap opened it.
pub(crate) fn opened_key(screen: &str, field_id: &str) -> String {
    format!("{screen}__opened__{field_id}")
}
