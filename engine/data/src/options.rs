//! The option values of widget properties (`align: "center"`, `variant: "text"`): each a
//! closed set, so a misspelled value is refused where it is written (the RON file, line and
//! column) with the value it was likely meant to be, instead of quietly falling back to a
//! default.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer};

/// One closed set of option values, written in RON as strings.
macro_rules! choices {
    ($(#[$doc:meta])* $name:ident, $property:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            /// Every value, as written.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value written `text`, or why there is none (with the value meant).
            pub fn parse(text: &str) -> Result<$name, String> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => Err(unknown($property, text, $name::NAMES)),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::parse(&text).map_err(de::Error::custom)
            }
        }
    };
}

choices!(
    /// How a container places its children across its direction.
    Align, "align" { Start => "start", Center => "center", End => "end", Stretch => "stretch" }
);
choices!(
    /// How a container spreads its children along its direction.
    Justify, "justify" {
        Start => "start", Center => "center", End => "end", SpaceBetween => "space_between", SpaceAround => "space_around",
    }
);
choices!(
    /// A text's weight.
    Weight, "weight" { Regular => "regular", Medium => "medium", Bold => "bold" }
);
choices!(
    /// Where a text's lines sit in its box.
    TextAlign, "text_align" { Start => "start", Center => "center", End => "end" }
);
choices!(
    /// A button's look (`filled`, `outlined`, `text`, `tonal`) or a progress indicator's shape
    /// (`linear`, `circular`).
    Variant, "variant" {
        Filled => "filled", Outlined => "outlined", Text => "text", Tonal => "tonal", Linear => "linear", Circular => "circular",
    }
);
choices!(
    /// How an image fills its box.
    Fit, "fit" { Cover => "cover", Contain => "contain", Fill => "fill" }
);
choices!(
    /// The keyboard a text field asks for.
    Keyboard, "keyboard" { Text => "text", Number => "number", Phone => "phone", Email => "email" }
);

/// The message for a value of `property` that is none of `allowed`.
fn unknown(property: &str, text: &str, allowed: &[&str]) -> String {
    let shown: String = text.chars().take(40).collect();
    match did_you_mean(text, allowed) {
        Some(meant) => format!("unknown {property} `{shown}`: did you mean `{meant}`? (one of {})", allowed.join(", ")),
        None => format!("unknown {property} `{shown}` (one of {})", allowed.join(", ")),
    }
}

/// The value of `allowed` a slip of the keyboard away from `text`: the closest by edit
/// distance, at most a third of its letters (and two) apart; of equals, the first.
pub fn did_you_mean<'a>(text: &str, allowed: &[&'a str]) -> Option<&'a str> {
    let text = text.trim().to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for &candidate in allowed {
        let d = edit_distance(&text, candidate);
        let limit = (candidate.chars().count() / 3).clamp(1, 2);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters, with a swap of two neighbours counting one.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows of the table: two back, one back, this one.
    let mut two_back: Vec<usize> = Vec::new();
    let mut one_back: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (one_back[j] + 1).min(row[j - 1] + 1).min(one_back[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(two_back[j - 2] + 1);
            }
        }
        two_back = std::mem::replace(&mut one_back, row);
    }
    one_back[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_is_named_with_the_value_meant_and_anything_else_with_the_choices() {
        assert_eq!(did_you_mean("cetner", Align::NAMES), Some("center"));
        assert_eq!(did_you_mean("Center", Align::NAMES), Some("center"));
        assert_eq!(did_you_mean("outline", Variant::NAMES), Some("outlined"));
        assert_eq!(did_you_mean("middle", Align::NAMES), None);
        assert_eq!(Align::parse("center"), Ok(Align::Center));
        assert_eq!(
            Align::parse("cetner").unwrap_err(),
            "unknown align `cetner`: did you mean `center`? (one of start, center, end, stretch)"
        );
        assert_eq!(Weight::parse("heavy").unwrap_err(), "unknown weight `heavy` (one of regular, medium, bold)");
    }
}
