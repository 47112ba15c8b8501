//! Turning fuzzer bytes into choices: each choice reads the next byte (or bytes), and once the
//! input runs out every choice takes its first option, so any input gives a finite program
//! and a small mutation of the input gives a small change of the program.

/// A cursor over the fuzzer's bytes.
pub struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Choices<'a> {
    pub fn new(data: &'a [u8]) -> Choices<'a> {
        Choices { data, at: 0 }
    }

    /// Whether the input is used up.
    pub fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 256 {
            usize::from(self.byte()) % n.max(1)
        } else {
            (usize::from(self.byte()) << 8 | usize::from(self.byte())) % n
        }
    }

    /// One of the options.
    pub fn pick<'t, T>(&mut self, options: &'t [T]) -> &'t T {
        &options[self.below(options.len())]
    }

    /// True about one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// Seeded bytes for tests that want many different inputs without a fuzzer (splitmix64).
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}
