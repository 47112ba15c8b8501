//! The seeded random number generator of the device (xoshiro256**, seeded with splitmix64).
//! Its whole state is four integers, so it lives in the store and snapshots with it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng { s: [next(), next(), next(), next()] }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A float in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An integer in [lo, hi] (inclusive); `lo` when the range is empty. Any range works,
    /// the whole of i64 included.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        // The span in u64 wraps to 0 only for the whole i64 range, where every draw is in it.
        let span = (hi as u64).wrapping_sub(lo as u64).wrapping_add(1);
        let draw = self.next_u64();
        let offset = if span == 0 { draw } else { draw % span };
        lo.wrapping_add(offset as i64)
    }

    /// An index below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(Rng::new(8).next_u64(), xs[0]);
        for _ in 0..100 {
            let v = a.range(3, 5);
            assert!((3..=5).contains(&v));
        }
        // The widest ranges used to overflow (a remainder by zero).
        let _ = a.range(i64::MIN, i64::MAX);
        for _ in 0..100 {
            assert!(a.range(i64::MIN, i64::MIN + 1) <= i64::MIN + 1);
            assert!(a.range(-1, i64::MAX) >= -1);
        }
    }
}
