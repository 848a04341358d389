//! A tiny seeded generator for the tests that compare a fast way with its plain
//! definition over many generated inputs (xorshift64: the same inputs every run).

pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
