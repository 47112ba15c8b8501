//! The page and its script and style, built into the binary: the studio needs no network and
//! no files beside the apps at run time.

pub(crate) const PAGE: &str = include_str!("../assets/index.html");
pub(crate) const SCRIPT: &str = include_str!("../assets/studio.js");
pub(crate) const STYLE: &str = include_str!("../assets/studio.css");
