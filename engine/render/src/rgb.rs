//! Packing an RGBA frame into RGB, which every screenshot observation pays for: 10 MB read and
//! 7.8 MB written at 1080x2400. On x86-64 with SSSE3 (checked once at run time) sixteen pixels go
//! per round through byte shuffles, elsewhere a portable loop of 32-bit words; both give the same
//! bytes (a test compares them on every tail length).
//!
//! A large output (a 540x1200 frame and up) is written with non-temporal stores, which skip
//! reading each cache line of the output before writing it: packing a 1080x2400 frame then takes
//! about as long as copying an RGB frame of that size (0.50 against 0.63 ms with plain stores,
//! measured side by side; a copy takes 0.52).
//!
//! The unsafe corner of the renderer, for two reasons: the SIMD loads and stores take raw
//! pointers, and a fresh observation buffer is written without being zeroed first (zeroing
//! 7.8 MB costs a third of the packing).
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

/// `rgba` (4 bytes a pixel) packed into a new buffer of 3 bytes a pixel.
pub fn pack_rgb(rgba: &[u8]) -> Vec<u8> {
    let len = rgba.len() / 4 * 3;
    let mut out = Vec::with_capacity(len);
    pack(&rgba[..len / 3 * 4], &mut out.spare_capacity_mut()[..len]);
    // SAFETY: `pack` wrote every one of the first `len` bytes (it writes each output byte of its
    // whole-pixel input), and the capacity is `len`.
    unsafe { out.set_len(len) };
    out
}

/// `rgba` packed into `out`, which must hold 3 bytes for every 4 of `rgba`.
pub fn pack_rgb_into(rgba: &[u8], out: &mut [u8]) {
    assert_eq!(rgba.len() / 4 * 3, out.len(), "an RGB buffer holds 3 bytes for every 4 RGBA bytes");
    let rgba = &rgba[..out.len() / 3 * 4];
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and `pack` only writes initialized
    // bytes, so `out` stays initialized.
    let out = unsafe { &mut *(std::ptr::from_mut::<[u8]>(out) as *mut [MaybeUninit<u8>]) };
    pack(rgba, out);
}

/// Outputs at least this large are written past the cache: they outgrow what a core's cache
/// keeps beside the frame they are packed from, and are read later, if at all, by the consumer.
const STREAM_FROM_BYTES: usize = 1 << 20;

/// Packs whole pixels: `out.len() == rgba.len() / 4 * 3`, every byte of `out` written.
fn pack(rgba: &[u8], out: &mut [MaybeUninit<u8>]) {
    debug_assert_eq!(rgba.len() % 4, 0);
    debug_assert_eq!(rgba.len() / 4 * 3, out.len());
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        if out.len() >= STREAM_FROM_BYTES {
            // Non-temporal stores need 16-byte aligned addresses: the pixels before the first
            // one that lands on such an address go through the portable loop.
            let head = pixels_to_alignment(out.as_ptr() as usize).min(rgba.len() / 4);
            pack_portable(&rgba[..head * 4], &mut out[..head * 3]);
            // SAFETY: the CPU has SSSE3 (checked just above), which is all `ssse3::pack`
            // enables, and `out[head * 3..]` starts on a 16-byte boundary.
            done = head + unsafe { ssse3::pack::<true>(&rgba[head * 4..], &mut out[head * 3..]) };
        } else {
            // SAFETY: the CPU has SSSE3 (checked just above), which is all `ssse3::pack` enables.
            done = unsafe { ssse3::pack::<false>(rgba, out) };
        }
    }
    pack_portable(&rgba[done * 4..], &mut out[done * 3..]);
}

/// How many RGB pixels (3 bytes each) take `address` to a multiple of 16: 3 is its own
/// inverse times 11 modulo 16, so `k = 11 * gap mod 16` gives `3k = gap mod 16`.
fn pixels_to_alignment(address: usize) -> usize {
    let gap = (16 - address % 16) % 16;
    gap * 11 % 16
}

/// Four pixels per round as three 32-bit words (a fifth faster than three bytes per pixel).
fn pack_portable(rgba: &[u8], out: &mut [MaybeUninit<u8>]) {
    let mut src = rgba.chunks_exact(16);
    let mut dst = out.chunks_exact_mut(12);
    let put = |d: &mut [MaybeUninit<u8>], word: u32| d.copy_from_slice(&word.to_le_bytes().map(MaybeUninit::new));
    for (s, d) in (&mut src).zip(&mut dst) {
        let word = |i: usize| u32::from_le_bytes([s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]]);
        let (p0, p1, p2, p3) = (word(0), word(1), word(2), word(3));
        put(&mut d[0..4], (p0 & 0x00FF_FFFF) | (p1 << 24));
        put(&mut d[4..8], ((p1 >> 8) & 0xFFFF) | (p2 << 16));
        put(&mut d[8..12], ((p2 >> 16) & 0xFF) | (p3 << 8));
    }
    for (s, d) in src.remainder().chunks_exact(4).zip(dst.into_remainder().chunks_exact_mut(3)) {
        for (d, &s) in d.iter_mut().zip(s) {
            d.write(s);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod ssse3 {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_or_si128, _mm_setr_epi8, _mm_sfence, _mm_shuffle_epi8, _mm_slli_si128, _mm_srli_si128,
        _mm_storeu_si128, _mm_stream_si128,
    };
    use std::mem::MaybeUninit;

    /// Packs the leading multiple of 16 pixels and returns how many pixels that was: each group
    /// of four is shuffled to its 12 RGB bytes, and four groups are stitched into three stores
    /// (non-temporal ones when `STREAM`, fenced before returning so later reads see them).
    ///
    /// # Safety
    /// The CPU must support SSSE3; when `STREAM`, `out` must start on a 16-byte boundary.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn pack<const STREAM: bool>(rgba: &[u8], out: &mut [MaybeUninit<u8>]) -> usize {
        let rounds = (rgba.len() / 64).min(out.len() / 48);
        let drop_alpha = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
        let src = rgba.as_ptr();
        let dst = out.as_mut_ptr().cast::<u8>();
        for i in 0..rounds {
            // SAFETY: round `i` reads bytes 64i..64i+64 of `rgba` and writes bytes 48i..48i+48 of
            // `out`, both in bounds since i < rounds; unaligned loads and plain stores are
            // allowed, and streamed stores land on 16-byte boundaries (`out` starts on one, and
            // rounds are 48 bytes).
            unsafe {
                let s = src.add(64 * i);
                let a = _mm_shuffle_epi8(_mm_loadu_si128(s.cast::<__m128i>()), drop_alpha);
                let b = _mm_shuffle_epi8(_mm_loadu_si128(s.add(16).cast::<__m128i>()), drop_alpha);
                let c = _mm_shuffle_epi8(_mm_loadu_si128(s.add(32).cast::<__m128i>()), drop_alpha);
                let e = _mm_shuffle_epi8(_mm_loadu_si128(s.add(48).cast::<__m128i>()), drop_alpha);
                let d = dst.add(48 * i).cast::<__m128i>();
                let words = [
                    _mm_or_si128(a, _mm_slli_si128::<12>(b)),
                    _mm_or_si128(_mm_srli_si128::<4>(b), _mm_slli_si128::<8>(c)),
                    _mm_or_si128(_mm_srli_si128::<8>(c), _mm_slli_si128::<4>(e)),
                ];
                for (k, word) in words.into_iter().enumerate() {
                    // With `STREAM`, `d` is 16-byte aligned: `out` starts aligned, rounds are 48 bytes.
                    if STREAM {
                        _mm_stream_si128(d.add(k), word);
                    } else {
                        _mm_storeu_si128(d.add(k), word);
                    }
                }
            }
        }
        if STREAM {
            _mm_sfence();
        }
        rounds * 16
    }
}

#[cfg(test)]
mod tests {
    use super::{pack_portable, pack_rgb, pack_rgb_into, pixels_to_alignment, STREAM_FROM_BYTES};
    use std::mem::MaybeUninit;

    fn expected(rgba: &[u8]) -> Vec<u8> {
        rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect()
    }

    #[test]
    fn every_length_packs_like_dropping_each_fourth_byte() {
        for pixels in (0..70).chain([1080 * 7 + 5]) {
            let rgba: Vec<u8> = (0..4 * pixels).map(|i| (i * 7 % 251) as u8).collect();
            assert_eq!(pack_rgb(&rgba), expected(&rgba), "{pixels} pixels");
            let mut into = vec![0u8; pixels * 3];
            pack_rgb_into(&rgba, &mut into);
            assert_eq!(into, expected(&rgba), "{pixels} pixels into a buffer");
            let mut portable = vec![MaybeUninit::new(0u8); pixels * 3];
            pack_portable(&rgba, &mut portable);
            // SAFETY: the buffer was created initialized and `pack_portable` writes only bytes.
            let portable: Vec<u8> = portable.iter().map(|b| unsafe { b.assume_init() }).collect();
            assert_eq!(portable, expected(&rgba), "{pixels} pixels, portable loop");
        }
    }

    #[test]
    fn a_large_frame_packs_the_same_at_every_alignment_of_its_output() {
        let pixels = STREAM_FROM_BYTES / 3 + 37;
        let rgba: Vec<u8> = (0..4 * pixels).map(|i| (i * 13 % 253) as u8).collect();
        let want = expected(&rgba);
        let mut buffer = vec![0u8; pixels * 3 + 16];
        for offset in 0..16 {
            let out = &mut buffer[offset..offset + pixels * 3];
            pack_rgb_into(&rgba, out);
            assert!(*out == want[..], "output starting {offset} bytes into its buffer");
        }
        assert_eq!(pack_rgb(&rgba), want);
    }

    #[test]
    fn the_pixels_before_an_aligned_address_take_it_to_one() {
        for address in 0..64usize {
            let k = pixels_to_alignment(address);
            assert!(k < 16 && (address + 3 * k).is_multiple_of(16), "address {address}: {k} pixels");
        }
    }
}
