//! The screenshot as upstream sends it: `{"pixels": [[[r,g,b],...],...]}`, rows of RGB
//! triples as JSON integers, written straight from the RGBA frame with a table of the 256
//! numbers' digits.

use phoneworld_render::Frame;

/// The digits of 0..=255, each followed by nothing (`len` says how many bytes are used).
struct Digits {
    bytes: [[u8; 3]; 256],
    len: [u8; 256],
}

const fn digits() -> Digits {
    let mut bytes = [[0u8; 3]; 256];
    let mut len = [0u8; 256];
    let mut v = 0;
    while v < 256 {
        let (h, t, o) = ((v / 100) as u8, ((v / 10) % 10) as u8, (v % 10) as u8);
        if v >= 100 {
            bytes[v] = [b'0' + h, b'0' + t, b'0' + o];
            len[v] = 3;
        } else if v >= 10 {
            bytes[v] = [b'0' + t, b'0' + o, 0];
            len[v] = 2;
        } else {
            bytes[v] = [b'0' + o, 0, 0];
            len[v] = 1;
        }
        v += 1;
    }
    Digits { bytes, len }
}

static DIGITS: Digits = digits();

/// The whole reply body, compact as FastAPI writes it.
pub fn pixels_json(frame: &Frame) -> Vec<u8> {
    let (w, h) = (frame.width as usize, frame.height as usize);
    // At most "[255,255,255]," per pixel, plus row brackets.
    let mut out = Vec::with_capacity(w * h * 14 + h * 3 + 16);
    out.extend_from_slice(b"{\"pixels\":[");
    for (row_index, row) in frame.pixels.chunks_exact(w * 4).take(h).enumerate() {
        if row_index > 0 {
            out.push(b',');
        }
        out.push(b'[');
        for (i, px) in row.chunks_exact(4).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'[');
            push_num(&mut out, px[0]);
            out.push(b',');
            push_num(&mut out, px[1]);
            out.push(b',');
            push_num(&mut out, px[2]);
            out.push(b']');
        }
        out.push(b']');
    }
    out.extend_from_slice(b"]}");
    out
}

#[inline]
fn push_num(out: &mut Vec<u8>, v: u8) {
    let i = v as usize;
    out.extend_from_slice(&DIGITS.bytes[i][..DIGITS.len[i] as usize]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_rgb_triples() {
        let frame = Frame { width: 2, height: 2, pixels: vec![0, 9, 10, 255, 99, 100, 255, 255, 1, 2, 3, 255, 200, 201, 202, 255] };
        let body = pixels_json(&frame);
        let parsed: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(parsed, serde_json::json!({"pixels": [[[0, 9, 10], [99, 100, 255]], [[1, 2, 3], [200, 201, 202]]]}));
    }
}
