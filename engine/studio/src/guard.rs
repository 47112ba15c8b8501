//! Who may talk to the studio: a request must name the studio's own address in its Host header
//! (so a web page elsewhere cannot reach it through a rebound DNS name), come from the studio's
//! own page when a browser says where it comes from (Origin), and carry the token printed with
//! the URL (in the query or a header).

use std::net::SocketAddr;

/// The header a page's scripts send the token in.
pub const TOKEN_HEADER: &str = "x-studio-token";

/// Why a request was refused (the body of the 403).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("Host `{0}` is not this studio's address")]
    Host(String),
    #[error("no Host header")]
    NoHost,
    #[error("Origin `{0}` is not this studio's page")]
    Origin(String),
    #[error("a token is required: open the URL the studio printed (it carries `?token=`)")]
    NoToken,
    #[error("wrong token: open the URL the studio printed")]
    WrongToken,
}

/// The studio's address and token, and the checks every request passes.
#[derive(Debug, Clone)]
pub struct Guard {
    token: String,
    /// `host:port` values a Host header may name; empty when bound to every interface (the
    /// token and Origin still hold).
    hosts: Vec<String>,
}

/// What a request says about itself.
#[derive(Debug, Default, Clone, Copy)]
pub struct Credentials<'a> {
    pub host: Option<&'a str>,
    pub origin: Option<&'a str>,
    /// From the query or the header, whichever is present.
    pub token: Option<&'a str>,
}

impl Guard {
    /// A guard for a studio listening on `addr`, with a fresh token from the OS.
    pub fn new(addr: SocketAddr) -> Guard {
        let mut bytes = [0u8; 16];
        // Only the token comes from the OS: nothing of the phone's simulation does.
        getrandom::getrandom(&mut bytes).expect("the OS has a random source");
        Guard::with_token(addr, bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    pub fn with_token(addr: SocketAddr, token: String) -> Guard {
        let port = addr.port();
        let hosts = if addr.ip().is_unspecified() {
            Vec::new()
        } else if addr.ip().is_loopback() {
            vec![format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")]
        } else {
            vec![addr.to_string()]
        };
        Guard { token, hosts }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Lets the request through, or says why not.
    pub fn check(&self, request: &Credentials<'_>) -> Result<(), Refusal> {
        let host = request.host.ok_or(Refusal::NoHost)?;
        if !self.hosts.is_empty() && !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(Refusal::Host(host.to_owned()));
        }
        if let Some(origin) = request.origin {
            // The page's own origin is `http://` and the Host it was loaded from.
            let same = origin.strip_prefix("http://").is_some_and(|o| o.eq_ignore_ascii_case(host));
            if !same {
                return Err(Refusal::Origin(origin.to_owned()));
            }
        }
        match request.token {
            None => Err(Refusal::NoToken),
            Some(t) if same_bytes(t.as_bytes(), self.token.as_bytes()) => Ok(()),
            Some(_) => Err(Refusal::WrongToken),
        }
    }
}

/// Equality that takes as long whichever byte differs, so the token cannot be guessed byte by
/// byte from the time of the answers.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::with_token("127.0.0.1:8750".parse().unwrap(), "secret".into())
    }

    fn ask(host: Option<&str>, origin: Option<&str>, token: Option<&str>) -> Result<(), Refusal> {
        guard().check(&Credentials { host, origin, token })
    }

    #[test]
    fn the_studios_own_page_with_its_token_passes() {
        assert_eq!(ask(Some("127.0.0.1:8750"), Some("http://127.0.0.1:8750"), Some("secret")), Ok(()));
        assert_eq!(ask(Some("localhost:8750"), None, Some("secret")), Ok(()));
    }

    #[test]
    fn another_host_origin_or_token_is_refused() {
        assert_eq!(ask(Some("evil.example:8750"), None, Some("secret")), Err(Refusal::Host("evil.example:8750".into())));
        assert_eq!(ask(None, None, Some("secret")), Err(Refusal::NoHost));
        assert_eq!(
            ask(Some("127.0.0.1:8750"), Some("http://evil.example"), Some("secret")),
            Err(Refusal::Origin("http://evil.example".into()))
        );
        assert_eq!(ask(Some("127.0.0.1:8750"), None, None), Err(Refusal::NoToken));
        assert_eq!(ask(Some("127.0.0.1:8750"), None, Some("secreT")), Err(Refusal::WrongToken));
        assert_eq!(ask(Some("127.0.0.1:8750"), None, Some("secret2")), Err(Refusal::WrongToken));
    }

    #[test]
    fn bound_to_every_interface_any_host_passes_but_origin_and_token_still_hold() {
        let open = Guard::with_token("0.0.0.0:9000".parse().unwrap(), "t".into());
        assert_eq!(open.check(&Credentials { host: Some("10.0.0.5:9000"), origin: None, token: Some("t") }), Ok(()));
        assert!(open.check(&Credentials { host: Some("10.0.0.5:9000"), origin: Some("http://other:9000"), token: Some("t") }).is_err());
        assert!(open.check(&Credentials { host: Some("10.0.0.5:9000"), origin: None, token: None }).is_err());
    }
}
