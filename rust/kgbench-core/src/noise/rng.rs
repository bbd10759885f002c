//! The seeded random streams of noise injection (spec ngdbench.md §3, "Seeding").
//!
//! Each noise type draws from its own SplitMix64 stream whose state is derived from
//! `(seed, type name)` by SHA-256, so that adding, removing or reordering one type in a profile
//! leaves the draws of the others unchanged, and the same seed gives the same output on every
//! platform (no dependence on a library's generator or on thread scheduling).

use sha2::{Digest, Sha256};

/// A SplitMix64 generator (Steele, Lea and Flood 2014): 64 bits of state, one output per step.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// The stream of noise type `name` under `seed`: the state is the first 8 bytes
    /// (little-endian) of `SHA-256("kgbench-noise\0<seed>\0<name>")`.
    pub fn for_type(seed: u64, name: &str) -> Rng {
        let digest = Sha256::digest(format!("kgbench-noise\0{seed}\0{name}").as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Rng {
            state: u64::from_le_bytes(first),
        }
    }

    /// A generator with the given raw state (tests).
    pub fn from_state(state: u64) -> Rng {
        Rng { state }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` without modulo bias (Lemire's multiply-and-reject);
    /// `n` must be positive.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        let n = n as u64;
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as usize
    }

    /// A uniform integer in `lo..=hi` (`lo <= hi`).
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A uniform float in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `k` distinct positions of `0..n` (all of them when `k >= n`), in draw order: a partial
    /// Fisher–Yates shuffle, so every ordered sample is equally likely (what Python's
    /// `random.sample` gives, with this generator).
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<u32> {
        let k = k.min(n);
        let mut idx: Vec<u32> = (0..n as u32).collect();
        for i in 0..k {
            let j = i + self.below(n - i);
            idx.swap(i, j);
        }
        idx.truncate(k);
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // SplitMix64 from state 0: the published first outputs.
        let mut r = Rng::from_state(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn streams_depend_on_seed_and_type() {
        let a = Rng::for_type(42, "false_edges").next_u64();
        assert_eq!(a, Rng::for_type(42, "false_edges").next_u64());
        assert_ne!(a, Rng::for_type(43, "false_edges").next_u64());
        assert_ne!(a, Rng::for_type(42, "name_typos").next_u64());
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::from_state(7);
        let mut counts = [0usize; 6];
        for _ in 0..60_000 {
            counts[r.below(6)] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        for _ in 0..1000 {
            let x = r.between(1, 3);
            assert!((1..=3).contains(&x));
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn sample_is_distinct_and_bounded() {
        let mut r = Rng::from_state(1);
        let s = r.sample(100, 30);
        assert_eq!(s.len(), 30);
        let mut sorted = s.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 30);
        assert!(s.iter().all(|&x| x < 100));
        assert_eq!(r.sample(5, 10).len(), 5);
        assert!(r.sample(0, 3).is_empty());
    }
}
