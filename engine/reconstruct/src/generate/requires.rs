//! Controls that led on only once a form was filled: Save on a new contact shows "Name is
//! required" and stays until a name is typed, then opens the contact. The traces tell which
//! fields held text (or a number, for an amount) every time the control led on; the generated
//! handler leads on only when they hold it in the app.

use std::collections::BTreeMap;

use crate::abstraction::Abstraction;
use crate::graph::{action_label, widget_signature};
use crate::trace::{Trace, UiNode};

/// A node and the size of the screen its bounds are in.
pub(crate) type SizedNode = (UiNode, (u32, u32));

/// The fields a control needed filled, as seen on the screen it was used on.
#[derive(Debug, Clone)]
pub(crate) struct Requirement {
    /// Each field's node and the size of the screen its bounds are in, and whether it held a
    /// number (an amount) every time, not only text.
    pub fields: Vec<(SizedNode, bool)>,
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
            out.entry(widget_signature(n, size)).or_insert_with(|| n.shallow());
        }
    });
    out
}

/// Whether a field's text is a number (an amount: `20`, `$1,250.50`; not "inf").
fn is_number(text: &str) -> bool {
    let digits: String = text.trim().chars().filter(|c| !matches!(c, '$' | ',')).collect();
    digits.chars().any(|c| c.is_ascii_digit()) && digits.parse::<f64>().is_ok()
}

/// What the fields held each time: by field signature, its text.
type Filled = BTreeMap<String, String>;

/// The fields (and whether each must hold a number) that held text every time a control led
/// on, and how many stays they explain; `None` when none did, or when the stays with them
/// filled outnumber the times it led on. Equal counts lead on: otherwise the screen it led
/// to could not be reached at all.
fn decide(led: &[Filled], stays: &[Filled]) -> Option<(Vec<(String, bool)>, usize)> {
    let first = led.first()?;
    let always: Vec<(String, bool)> = first
        .keys()
        .filter(|sig| led.iter().all(|l| l.contains_key(*sig)))
        .map(|sig| (sig.clone(), led.iter().all(|l| is_number(&l[sig]))))
        .collect();
    if always.is_empty() {
        return None;
    }
    let holds = |s: &Filled| always.iter().all(|(sig, number)| s.get(sig).is_some_and(|t| !*number || is_number(t)));
    let stayed_filled = stays.iter().filter(|s| holds(s)).count();
    let stayed_empty = stays.len() - stayed_filled;
    (led.len() >= MIN_LED && led.len() >= stayed_filled && stayed_empty > 0).then_some((always, stayed_empty))
}

/// What using `widget` (by `action`) on abstract screen `from` needed to lead to `to` rather
/// than stay: the fields filled (with numbers, where they always held one) every time it
/// led on, when that explains more than it gets wrong.
pub(crate) fn learn(
    abstraction: &Abstraction,
    traces: &[Trace],
    from: usize,
    to: usize,
    widget: &str,
    action: &str,
) -> Option<Requirement> {
    let (mut led, mut stays) = (Vec::new(), Vec::new());
    let mut nodes: BTreeMap<String, SizedNode> = BTreeMap::new();
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
            let texts: Filled = filled.iter().map(|(sig, n)| (sig.clone(), n.text.clone())).collect();
            if bi == to {
                for (sig, n) in filled {
                    nodes.entry(sig).or_insert((n, size));
                }
                led.push(texts);
            } else if bi == from {
                stays.push(texts);
            }
        }
    }
    let (fields, stayed_empty) = decide(&led, &stays)?;
    let fields = fields.into_iter().filter_map(|(sig, number)| Some((nodes.get(&sig)?.clone(), number))).collect();
    Some(Requirement { fields, stayed_empty })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(pairs: &[(&str, &str)]) -> Filled {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn an_amount_that_always_held_a_number_must_hold_one() {
        let led = [filled(&[("amount", "20"), ("memo", "rent")]), filled(&[("amount", "$1,250.50")])];
        // Stays with the amount empty or holding a word are explained; one with a number is not.
        let stays = [filled(&[]), filled(&[("amount", "notej")]), filled(&[("amount", "250ahome")]), filled(&[("amount", "20")])];
        assert_eq!(decide(&led, &stays), Some((vec![("amount".to_owned(), true)], 3)));
        // Names are text: any text will do.
        let led = [filled(&[("name", "Ada")]), filled(&[("name", "Grace")])];
        assert_eq!(decide(&led, &[filled(&[])]), Some((vec![("name".to_owned(), false)], 1)));
        // As many stays with the fields filled as times it led on: it leads on, or the screen
        // it led to is never reached.
        let tie = [filled(&[("name", "Ada")]), filled(&[("name", "Bo")]), filled(&[])];
        assert_eq!(decide(&led, &tie), Some((vec![("name".to_owned(), false)], 1)));
        // More stays with the fields filled than times it led on: no condition explains it.
        let stays = [filled(&[("name", "Ada")]), filled(&[("name", "Bo")]), filled(&[("name", "Cy")]), filled(&[])];
        assert_eq!(decide(&led, &stays), None);
    }

    #[test]
    fn numbers_are_amounts() {
        assert!(is_number("565") && is_number(" $1,250.50 ") && is_number("-3"));
        assert!(!is_number("250ahome") && !is_number("") && !is_number("$") && !is_number("inf"));
    }
}
