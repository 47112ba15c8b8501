//! ADB's RSA authentication: public keys in adb's own format (`~/.android/adbkey.pub`) and the
//! check of a host's signature over the device's token.

use base64::Engine;
use rsa::traits::PublicKeyParts;
use rsa::{BigUint, Pkcs1v15Sign, RsaPublicKey};

/// Words of a 2048-bit modulus in adb's key struct.
const MODULUS_WORDS: usize = 64;
/// `u32 len, u32 n0inv, u8 n[256], u8 rr[256], u32 e`.
const KEY_STRUCT_LEN: usize = 4 + 4 + 4 * MODULUS_WORDS * 2 + 4;

/// A bad public key: which part and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    #[error("adb public key: {0}")]
    Base64(String),
    #[error("adb public key: {length} bytes after base64, expected {KEY_STRUCT_LEN}")]
    Length { length: usize },
    #[error("adb public key: field `modulus_size_words` is {0}, expected {MODULUS_WORDS} (RSA-2048)")]
    ModulusWords(u32),
    #[error("adb public key: not a valid RSA key: {0}")]
    Rsa(String),
    #[error("{path}: {message}")]
    File { path: String, message: String },
}

/// One host key, as adb writes it: base64 of its key struct, then ` user@host`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdbPublicKey {
    key: RsaPublicKey,
    /// The `user@host` comment, if any.
    pub comment: String,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

impl AdbPublicKey {
    /// Parses the text of `adbkey.pub`, or the payload of an AUTH(RSAPUBLICKEY) packet.
    pub fn parse(text: &str) -> Result<AdbPublicKey, KeyError> {
        let text = text.trim_end_matches('\0').trim();
        let (encoded, comment) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|e| KeyError::Base64(e.to_string()))?;
        if bytes.len() != KEY_STRUCT_LEN {
            return Err(KeyError::Length { length: bytes.len() });
        }
        let words = u32_at(&bytes, 0);
        if words as usize != MODULUS_WORDS {
            return Err(KeyError::ModulusWords(words));
        }
        let modulus = BigUint::from_bytes_le(&bytes[8..8 + 4 * MODULUS_WORDS]);
        let exponent = BigUint::from(u32_at(&bytes, KEY_STRUCT_LEN - 4));
        let key = RsaPublicKey::new(modulus, exponent).map_err(|e| KeyError::Rsa(e.to_string()))?;
        Ok(AdbPublicKey { key, comment: comment.trim().to_owned() })
    }

    /// Reads an `adbkey.pub` file.
    pub fn from_file(path: &std::path::Path) -> Result<AdbPublicKey, KeyError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| KeyError::File { path: path.display().to_string(), message: e.to_string() })?;
        AdbPublicKey::parse(&text).map_err(|e| KeyError::File { path: path.display().to_string(), message: e.to_string() })
    }

    /// Wraps an RSA-2048 public key.
    pub fn from_rsa(key: RsaPublicKey, comment: &str) -> Result<AdbPublicKey, KeyError> {
        if key.n().bits() > 32 * MODULUS_WORDS {
            return Err(KeyError::Rsa(format!("modulus of {} bits; adb keys are 2048 bits", key.n().bits())));
        }
        Ok(AdbPublicKey { key, comment: comment.to_owned() })
    }

    pub fn rsa(&self) -> &RsaPublicKey {
        &self.key
    }

    /// The key in adb's text format (what `adbkey.pub` holds).
    pub fn to_adb_format(&self) -> String {
        let n = self.key.n();
        let mut bytes = Vec::with_capacity(KEY_STRUCT_LEN);
        bytes.extend_from_slice(&(MODULUS_WORDS as u32).to_le_bytes());
        // n0inv = -1 / n mod 2^32, for Montgomery multiplication on the device.
        let n0 = n.to_bytes_le();
        let n0 = u32::from_le_bytes([n0[0], *n0.get(1).unwrap_or(&0), *n0.get(2).unwrap_or(&0), *n0.get(3).unwrap_or(&0)]);
        let mut inv: u32 = 1;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u32.wrapping_sub(n0.wrapping_mul(inv)));
        }
        bytes.extend_from_slice(&inv.wrapping_neg().to_le_bytes());
        let mut le = |v: &BigUint| {
            let mut b = v.to_bytes_le();
            b.resize(4 * MODULUS_WORDS, 0);
            bytes.extend_from_slice(&b);
        };
        le(n);
        let rr = (BigUint::from(1u32) << (2 * 32 * MODULUS_WORDS)) % n;
        le(&rr);
        let e = self.key.e().to_bytes_le();
        let mut e4 = [0u8; 4];
        for (i, b) in e.iter().take(4).enumerate() {
            e4[i] = *b;
        }
        bytes.extend_from_slice(&e4);
        let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
        if self.comment.is_empty() {
            encoded
        } else {
            format!("{encoded} {}", self.comment)
        }
    }

    /// True when `signature` is this key's PKCS#1 v1.5 signature of `token` taken as a SHA-1
    /// digest (what `RSA_sign(NID_sha1, token)` produces on the host).
    pub fn verifies(&self, token: &[u8], signature: &[u8]) -> bool {
        self.key.verify(Pkcs1v15Sign::new::<sha1::Sha1>(), token, signature).is_ok()
    }
}

/// Who may connect when the server asks for authentication.
#[derive(Debug, Clone, Default)]
pub enum AuthPolicy {
    /// No AUTH: the device answers CNXN with CNXN (what adb-shell without keys needs).
    #[default]
    Disabled,
    /// Hosts must sign the token with one of these keys; others stay `unauthorized`.
    Keys(Vec<AdbPublicKey>),
    /// Any host that offers a well-formed public key is let in (as if the user tapped Allow).
    AnyKey,
}

impl AuthPolicy {
    pub fn is_enabled(&self) -> bool {
        !matches!(self, AuthPolicy::Disabled)
    }

    /// Does one of the accepted keys sign `token` as `signature`?
    pub fn accepts_signature(&self, token: &[u8], signature: &[u8]) -> bool {
        match self {
            AuthPolicy::Disabled => true,
            AuthPolicy::Keys(keys) => keys.iter().any(|k| k.verifies(token, signature)),
            // A signature proves nothing about keys we have not seen; the host then offers its key.
            AuthPolicy::AnyKey => false,
        }
    }

    /// Is the offered public key (AUTH type 3) let in?
    pub fn accepts_offered_key(&self, payload: &[u8]) -> bool {
        match self {
            AuthPolicy::Disabled => true,
            AuthPolicy::Keys(_) => false,
            AuthPolicy::AnyKey => AdbPublicKey::parse(&String::from_utf8_lossy(payload)).is_ok(),
        }
    }
}
