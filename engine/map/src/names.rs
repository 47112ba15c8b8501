//! Street names: read from the places' addresses ("14 Elm St, Bayport, CA"), classified, and
//! topped up from a pool of generated names when the content names fewer streets than the
//! city has.

/// Where an address points.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Address {
    /// A house number (if any) on a named street.
    Street { number: Option<u32>, street: String },
    /// A square, pier or other named spot that is not a street ("Union Square", "Pier 45").
    Landmark(String),
}

const STREET_SUFFIXES: [&str; 10] = ["St", "Ave", "Rd", "Blvd", "Lane", "Ln", "Dr", "Way", "Hwy", "Pkwy"];
/// Suffixes of wide, long streets: they become avenues when there is a choice.
const AVENUE_SUFFIXES: [&str; 4] = ["Ave", "Blvd", "Hwy", "Pkwy"];

/// Names for streets the content does not name, in order of use.
pub(crate) const POOL: [&str; 30] = [
    "Pine St",
    "Cedar St",
    "Geary Blvd",
    "Fillmore St",
    "Judah St",
    "Fulton St",
    "Polk St",
    "Hyde St",
    "Jones St",
    "Taylor St",
    "Mason St",
    "Powell St",
    "Sutter St",
    "Bush St",
    "Ash St",
    "Fir St",
    "Spruce St",
    "Laurel St",
    "Walnut St",
    "Cherry St",
    "Chestnut St",
    "Lombard St",
    "Union St",
    "Green St",
    "Vallejo St",
    "Broadway",
    "Pacific Ave",
    "Jackson St",
    "Clay St",
    "Sacramento St",
];

/// Names of the generated parks that no place names.
pub(crate) const PARK_POOL: [&str; 6] = ["Alamo Square", "Lafayette Park", "Jefferson Square", "Dolores Park", "Duboce Park", "Alta Plaza"];

/// The street part of an address: its first comma-separated part, without a house number.
pub(crate) fn parse_address(address: &str) -> Option<Address> {
    let first = address.split(',').next()?.trim();
    if first.is_empty() {
        return None;
    }
    let (number, rest) = match first.split_once(' ') {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => (n.parse().ok(), rest.trim()),
        _ => (None, first),
    };
    if is_street(rest) {
        return Some(Address::Street { number, street: rest.to_owned() });
    }
    // "Station Sq Garage L2" is a spot at "Station Sq": a landmark is its first two words.
    let words: Vec<&str> = rest.split_whitespace().take(2).collect();
    Some(Address::Landmark(words.join(" ")))
}

pub(crate) fn is_street(name: &str) -> bool {
    name.rsplit(' ').next().is_some_and(|last| STREET_SUFFIXES.contains(&last)) && name.contains(' ')
}

pub(crate) fn is_avenue(name: &str) -> bool {
    name.rsplit(' ').next().is_some_and(|last| AVENUE_SUFFIXES.contains(&last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(parse_address("14 Elm St, Bayport, CA"), Some(Address::Street { number: Some(14), street: "Elm St".into() }));
        assert_eq!(parse_address("Riverside Dr, Bayport, CA"), Some(Address::Street { number: None, street: "Riverside Dr".into() }));
        assert_eq!(parse_address("Union Square, Bayport, CA"), Some(Address::Landmark("Union Square".into())));
        assert_eq!(parse_address("Station Sq Garage L2, Bayport"), Some(Address::Landmark("Station Sq".into())));
        assert_eq!(parse_address("Pier 45, Bayport, CA"), Some(Address::Landmark("Pier 45".into())));
        assert_eq!(parse_address(""), None);
    }
}
