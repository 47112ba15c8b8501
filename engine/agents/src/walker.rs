//! A walk over the phone by either explorer: the random monkey or the systematic explorer.

use phoneworld_data::Action;

use crate::explorer::Explorer;
use crate::monkey::Monkey;
use phoneworld_phone::Device;

/// The explorer a walk uses, behind one `next_action`.
#[derive(Debug, Clone)]
pub enum Walker {
    Random(Monkey),
    Systematic(Explorer),
}

impl Walker {
    /// `systematic`: the [`Explorer`], else the [`Monkey`]; `app` keeps the walk in that package.
    pub fn new(seed: u64, app: Option<String>, systematic: bool) -> Walker {
        if systematic {
            Walker::Systematic(Explorer::new(seed, app))
        } else {
            Walker::Random(Monkey::new(seed, app))
        }
    }

    pub fn next_action(&mut self, device: &mut Device) -> Action {
        match self {
            Walker::Random(m) => m.next_action(device),
            Walker::Systematic(e) => e.next_action(device),
        }
    }

    /// `monkey` or `explore`, as trajectories record the walk's kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Walker::Random(_) => "monkey",
            Walker::Systematic(_) => "explore",
        }
    }
}
