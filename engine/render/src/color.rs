//! Colors and rectangles.

/// A plain (not premultiplied) RGBA color.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub struct Color {
    pub r: u8,
    pub g: u8,
    pub b: u8,
    pub a: u8,
}

impl Color {
    pub const BLACK: Color = Color::rgb(0, 0, 0);
    pub const WHITE: Color = Color::rgb(255, 255, 255);
    pub const TRANSPARENT: Color = Color::rgba(0, 0, 0, 0);

    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Color { r, g, b, a: 255 }
    }

    pub const fn rgba(r: u8, g: u8, b: u8, a: u8) -> Self {
        Color { r, g, b, a }
    }

    /// Parses "#RRGGBB" or "#AARRGGBB" (Android order: alpha first).
    pub fn parse_hex(s: &str) -> Option<Self> {
        let hex = s.strip_prefix('#')?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let v = u32::from_str_radix(hex, 16).ok()?;
        let [a, r, g, b] = v.to_be_bytes();
        match hex.len() {
            6 => Some(Color::rgb(r, g, b)),
            8 => Some(Color::rgba(r, g, b, a)),
            _ => None,
        }
    }
}

/// A rectangle in device pixels.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Rect {
    pub const fn new(x: f32, y: f32, w: f32, h: f32) -> Self {
        Rect { x, y, w, h }
    }
}

/// An integer pixel rectangle, half-open: x0..x1, y0..y1.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct IRect {
    pub(crate) x0: i32,
    pub(crate) y0: i32,
    pub(crate) x1: i32,
    pub(crate) y1: i32,
}

impl IRect {
    /// Snaps edges to the nearest pixel boundary (the rule every shape follows).
    pub(crate) fn snap(r: Rect) -> IRect {
        let x0 = r.x.round() as i32;
        let y0 = r.y.round() as i32;
        let x1 = (r.x + r.w.max(0.0)).round() as i32;
        let y1 = (r.y + r.h.max(0.0)).round() as i32;
        IRect { x0, y0, x1, y1 }
    }

    pub(crate) fn intersect(self, o: IRect) -> IRect {
        IRect { x0: self.x0.max(o.x0), y0: self.y0.max(o.y0), x1: self.x1.min(o.x1), y1: self.y1.min(o.y1) }
    }

    pub(crate) fn is_empty(self) -> bool {
        self.x1 <= self.x0 || self.y1 <= self.y0
    }

    pub(crate) fn width(self) -> i32 {
        self.x1 - self.x0
    }

    pub(crate) fn height(self) -> i32 {
        self.y1 - self.y0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_hex() {
        assert_eq!(Color::parse_hex("#FF0080"), Some(Color::rgb(255, 0, 128)));
        assert_eq!(Color::parse_hex("#80FF0080"), Some(Color::rgba(255, 0, 128, 128)));
        assert_eq!(Color::parse_hex("FF0080"), None);
        assert_eq!(Color::parse_hex("#FF008"), None);
        assert_eq!(Color::parse_hex("#+F0080"), None);
    }
}
