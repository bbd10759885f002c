//! Execution accuracy (EX): are two result tables equal up to a column permutation and
//! (unless order matters) a row permutation? SPEC.md §4; seed cypherbench.txt §5.1, B.7.
//!
//! Exact and deterministic, unlike the reference (which samples 20 random rows to prune
//! column permutations when there are more than 3 columns):
//!
//! 1. both tables empty: equal; one empty, different row counts or column counts: not equal;
//!    the same cells in the same order: equal;
//! 2. cells are interned to integers (equal ids iff equal canonical keys); the multisets of
//!    all gold and all predicted cells must be equal (checked first by an order-independent
//!    hash sum and byte total, then exactly);
//! 3. *column signatures*: the sorted multiset of a column's ids (or, when order matters,
//!    the column's id sequence). A gold column can only map to a predicted column with the
//!    same signature; the signature classes must have equal sizes on both sides;
//! 4. when order matters, step 3 is also sufficient (columns equal as sequences ⇒ rows equal
//!    as sequences); with one column likewise;
//! 5. otherwise a depth-first search assigns gold columns (fewest candidates first) to
//!    unused predicted candidates, refining a row partition after each assignment: the bag
//!    of gold rows projected on the assigned columns must equal the bag of predicted rows
//!    projected on their images (checked by sorting class pairs). Among predicted columns
//!    identical as sequences only the first unused one is tried (they are interchangeable).
//!
//! Tables of at most 4 columns first take a hashed fast path: per-column sums of cell
//! hashes select the candidate bijections, sorted row hashes under a bijection must agree,
//! and equality is accepted only after comparing the bytes of every cell under that
//! bijection and row pairing. Its rejections compare fingerprints that equal tables always
//! share, so they are exact too; a hash collision (hashes agree, bytes do not) hands the
//! pair to the search below, so verdicts never depend on the hash.
//!
//! Cost: typical tables need `O(k·n log n)` for `k` columns and `n` rows, in `O(n·k)`
//! memory (columns are grouped by sorting their signatures, never compared pairwise). Once
//! the assigned columns tell all rows apart, the remaining columns are matched in one
//! multiset comparison, so wide tables of distinct rows stay near-linear. The search itself
//! is exponential in the worst case (tables whose columns share one value multiset and whose
//! partial projections keep agreeing: a graph-isomorphism-like case), so it is bounded: after
//! [`search_budget`] steps it stops with [`Verdict::Undecided`], which EX counts as 0 and
//! `kgbench score` reports as `undecided`.

use std::cell::RefCell;
use std::hash::Hasher;

use rustc_hash::FxHasher;

use super::table::{Table, TableRef};

/// Whether the gold query's rows are ordered: SPEC.md §4, CypherBench's
/// `'order by' in target_cypher.lower()` (a plain substring test, so an `order by` inside a
/// string literal or comment also counts, as in the reference).
///
/// Compared byte-wise with ASCII case folding, which gives the same answer as lowercasing
/// the whole text: ASCII letters lowercase to ASCII, and the only other characters whose
/// lowercase is ASCII (KELVIN SIGN → `k`, `İ` → `i̇`) yield letters that `order by` lacks.
pub fn order_matters(gold_cypher: &str) -> bool {
    let b = gold_cypher.as_bytes();
    memchr::memchr2_iter(b'o', b'O', b).any(|i| {
        b.get(i..i + 8)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"order by"))
    })
}

/// EX of one pair of tables: 1.0 if equal under SPEC.md §4, else 0.0.
pub fn execution_accuracy(gold: &Table, pred: &Table, order_matters: bool) -> f64 {
    execution_accuracy_tol(gold.as_ref(), pred.as_ref(), order_matters, None)
}

/// EX with an optional relative tolerance on numbers (`None`: exact, the default; see
/// [`super::tolerance`]). An undecided comparison ([`Verdict::Undecided`]) gives 0.0; use
/// [`verdict_tol`] to tell it apart.
pub fn execution_accuracy_tol(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    order_matters: bool,
    rel_tol: Option<f64>,
) -> f64 {
    if verdict_tol(gold, pred, order_matters, rel_tol) == Verdict::Equal {
        1.0
    } else {
        0.0
    }
}

/// The [`Verdict`] of [`execution_accuracy_tol`].
pub fn verdict_tol(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    order_matters: bool,
    rel_tol: Option<f64>,
) -> Verdict {
    match (compare_tables(gold, pred, order_matters), rel_tol) {
        (Verdict::Equal, _) => Verdict::Equal,
        // exact equality implies closeness: the exact comparison came first
        (v, Some(tol)) => {
            if super::tolerance::tables_close(gold, pred, order_matters, tol) {
                Verdict::Equal
            } else {
                v
            }
        }
        (v, None) => v,
    }
}

thread_local! {
    static SCRATCH: RefCell<ExScratch> = RefCell::new(ExScratch::default());
}

/// True iff the tables are equal up to a column permutation and, when `order_matters` is
/// false, a row permutation (bag semantics: duplicate rows count). Uses a per-thread
/// scratch space, so repeated calls do not allocate.
pub fn tables_equivalent(gold: TableRef<'_>, pred: TableRef<'_>, order_matters: bool) -> bool {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => tables_equivalent_with(gold, pred, order_matters, &mut s),
        Err(_) => tables_equivalent_with(gold, pred, order_matters, &mut ExScratch::default()),
    })
}

/// Reusable buffers of [`tables_equivalent_with`].
#[derive(Default)]
pub struct ExScratch {
    hg: Vec<u64>,
    hp: Vec<u64>,
    /// Row keys of the fast path: row hash in the high bits, row index in the low bits.
    grows: Vec<u64>,
    prows: Vec<u64>,
    hashed: Vec<(u64, u32)>,
    gid: Vec<u32>,
    pid: Vec<u32>,
    gcol: Vec<u32>,
    pcol: Vec<u32>,
    class_of: Vec<u32>,
    members: Vec<u32>,
    class_start: Vec<u32>,
    keys: Vec<(u64, u32)>,
    classes: Vec<u32>,
    used: Vec<bool>,
    col_order: Vec<usize>,
    same_as: Vec<usize>,
}

/// [`tables_equivalent`] with explicit scratch buffers.
pub fn tables_equivalent_with(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    ordered: bool,
    s: &mut ExScratch,
) -> bool {
    compare_tables_with(gold, pred, ordered, s) == Verdict::Equal
}

/// The [`Verdict`] of [`tables_equivalent`]: [`Verdict::Undecided`] when the
/// column-bijection search used up its [`search_budget`].
pub fn compare_tables(gold: TableRef<'_>, pred: TableRef<'_>, order_matters: bool) -> Verdict {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => compare_tables_with(gold, pred, order_matters, &mut s),
        Err(_) => compare_tables_with(gold, pred, order_matters, &mut ExScratch::default()),
    })
}

/// [`compare_tables`] with explicit scratch buffers.
pub fn compare_tables_with(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    ordered: bool,
    s: &mut ExScratch,
) -> Verdict {
    if let Some(verdict) = gold.shape_verdict(pred) {
        return Verdict::from(verdict);
    }
    let k = gold.ncols();
    if k == 0 || gold.identical(&pred) {
        return Verdict::Equal;
    }
    // equal cell multisets need equal byte totals (O(1) from the arena offsets)
    if gold.key_bytes() != pred.key_bytes() {
        return Verdict::Different;
    }
    if k <= FAST_MAX_COLS {
        if let Some(verdict) = fast_verdict(gold, pred, ordered, s) {
            return Verdict::from(verdict);
        }
    }
    exhaustive_verdict(gold, pred, ordered, s)
}

/// Widest table the hashed fast path handles (it tries up to `k!` = 24 bijections).
const FAST_MAX_COLS: usize = 4;

/// Hash of one canonical key (equal keys give equal hashes; the quality of the hash only
/// affects speed, never the verdict).
#[inline]
fn cell_hash(key: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(key);
    fmix64(h.finish() ^ key.len() as u64)
}

/// MurmurHash3's 64-bit finaliser: spreads every input bit over the output, so sums of
/// mixed hashes make good multiset fingerprints.
#[inline]
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Ordered combination of the cell hashes of one row.
#[inline]
fn row_step(acc: u64, cell: u64) -> u64 {
    (acc.rotate_left(23) ^ cell).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The hashed fast path for tables of at most [`FAST_MAX_COLS`] columns. Every rejection
/// it makes is exact — it compares fingerprints that equal inputs always share (sums of
/// cell hashes per column, sorted row hashes under a bijection) — and it accepts only after
/// comparing the bytes of every cell under one column bijection and row pairing, which is
/// a proof of equality. `None` when the hashes agree but the bytes do not confirm (a hash
/// collision): the caller then runs the exhaustive search.
fn fast_verdict(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    ordered: bool,
    s: &mut ExScratch,
) -> Option<bool> {
    let (n, k) = (gold.nrows(), gold.ncols());
    let cells = n * k;
    s.hg.clear();
    s.hp.clear();
    let mut gcol = [0u64; FAST_MAX_COLS];
    let mut pcol = [0u64; FAST_MAX_COLS];
    for i in 0..cells {
        let (hg, hp) = (cell_hash(gold.cell_at(i)), cell_hash(pred.cell_at(i)));
        s.hg.push(hg);
        s.hp.push(hp);
        let c = i % k;
        if ordered {
            // a column's cell sequence: position-dependent combination
            gcol[c] = row_step(gcol[c], hg);
            pcol[c] = row_step(pcol[c], hp);
        } else {
            gcol[c] = gcol[c].wrapping_add(hg);
            pcol[c] = pcol[c].wrapping_add(hp);
        }
    }
    // gold row keys (hashes in gold column order), sorted when rows are unordered. A key
    // is the row hash with its low bits replaced by the row index: sorting plain integers
    // pairs rows with equal hashes, and equal rows still have equal hash parts, so every
    // rejection below stays exact (a shorter hash can only cause more fallbacks)
    let bits = usize::BITS - (n.max(2) - 1).leading_zeros();
    let index = (1u64 << bits) - 1;
    s.grows.clear();
    for r in 0..n {
        let h = s.hg[r * k..(r + 1) * k]
            .iter()
            .fold(0u64, |acc, &c| row_step(acc, c));
        s.grows.push((h & !index) | r as u64);
    }
    if !ordered {
        s.grows.sort_unstable();
    }
    let mut fallback = false;
    let mut found = false;
    // candidate bijections: those mapping every gold column to a predicted column with the
    // same fingerprint, tried in lexicographic order until one is settled
    for perm in permutations(k) {
        if (0..k).any(|c| gcol[c] != pcol[perm[c]]) {
            continue;
        }
        s.prows.clear();
        for r in 0..n {
            let row = &s.hp[r * k..(r + 1) * k];
            let h = perm[..k].iter().fold(0u64, |acc, &j| row_step(acc, row[j]));
            s.prows.push((h & !index) | r as u64);
        }
        if !ordered {
            s.prows.sort_unstable();
        }
        if s.grows
            .iter()
            .zip(&s.prows)
            .any(|(g, p)| (g ^ p) & !index != 0)
        {
            continue; // the row bags (sequences) differ under this bijection
        }
        let confirmed = s.grows.iter().zip(&s.prows).all(|(g, p)| {
            let (gr, pr) = ((g & index) as usize, (p & index) as usize);
            (0..k).all(|c| gold.cell(gr, c) == pred.cell(pr, perm[c]))
        });
        if confirmed {
            found = true;
        } else {
            fallback = true;
        }
        break; // proven equal, or a collision that the exhaustive search settles
    }
    if found {
        Some(true)
    } else if fallback {
        None
    } else {
        Some(false)
    }
}

/// All permutations of `0..k` (`k` <= [`FAST_MAX_COLS`]) in lexicographic order; entries
/// past `k` are unused.
fn permutations(k: usize) -> &'static [[usize; FAST_MAX_COLS]] {
    const P1: [[usize; FAST_MAX_COLS]; 1] = lexicographic_permutations::<1>(1);
    const P2: [[usize; FAST_MAX_COLS]; 2] = lexicographic_permutations::<2>(2);
    const P3: [[usize; FAST_MAX_COLS]; 6] = lexicographic_permutations::<6>(3);
    const P4: [[usize; FAST_MAX_COLS]; 24] = lexicographic_permutations::<24>(4);
    match k {
        1 => &P1,
        2 => &P2,
        3 => &P3,
        _ => &P4,
    }
}

/// The `N = k!` permutations of `0..k` in lexicographic order (next-permutation steps).
const fn lexicographic_permutations<const N: usize>(k: usize) -> [[usize; FAST_MAX_COLS]; N] {
    let mut out = [[0usize; FAST_MAX_COLS]; N];
    let mut p = [0usize, 1, 2, 3];
    let mut i = 0;
    loop {
        out[i] = p;
        i += 1;
        if i == N {
            return out;
        }
        // the longest non-increasing suffix starts at `a`; `a > 0` while permutations remain
        let mut a = k - 1;
        while a > 0 && p[a - 1] >= p[a] {
            a -= 1;
        }
        let mut b = k - 1;
        while p[b] <= p[a - 1] {
            b -= 1;
        }
        let t = p[a - 1];
        p[a - 1] = p[b];
        p[b] = t;
        let (mut x, mut y) = (a, k - 1);
        while x < y {
            let t = p[x];
            p[x] = p[y];
            p[y] = t;
            x += 1;
            y -= 1;
        }
    }
}

/// The exact search of the module documentation (steps 2-5), without the hashed fast
/// path; also the reference the fast path is tested against.
pub fn exhaustive(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    ordered: bool,
    s: &mut ExScratch,
) -> bool {
    exhaustive_verdict(gold, pred, ordered, s) == Verdict::Equal
}

/// [`exhaustive`] with [`Verdict::Undecided`] told apart from [`Verdict::Different`].
pub fn exhaustive_verdict(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    ordered: bool,
    s: &mut ExScratch,
) -> Verdict {
    let budget = search_budget(gold.nrows(), gold.ncols());
    exhaustive_bounded(gold, pred, ordered, s, budget)
}

/// [`exhaustive_verdict`] with the search's step budget given.
fn exhaustive_bounded(
    gold: TableRef<'_>,
    pred: TableRef<'_>,
    ordered: bool,
    s: &mut ExScratch,
    budget: u64,
) -> Verdict {
    if let Some(verdict) = gold.shape_verdict(pred) {
        return Verdict::from(verdict);
    }
    let (n, k) = (gold.nrows(), gold.ncols());
    if k == 0 {
        return Verdict::Equal;
    }
    let cells = n * k;
    let cell = |i: usize| -> &[u8] {
        if i < cells {
            gold.cell_at(i)
        } else {
            pred.cell_at(i - cells)
        }
    };
    // 2. intern: sort (hash, cell) pairs — integers, cheap — then split equal-hash runs by
    // the actual bytes (exact: hash collisions are resolved by comparing keys). Every run of
    // equal keys must hold as many gold as predicted cells.
    s.hashed.clear();
    // order-independent fingerprints of both cell multisets: different sums (or byte
    // totals) prove the multisets differ, without sorting
    let (mut gsum, mut psum) = (0u64, 0u64);
    let (mut gbytes, mut pbytes) = (0usize, 0usize);
    for i in 0..2 * cells {
        let key = cell(i);
        let mut h = FxHasher::default();
        h.write(key);
        let h = h.finish();
        let mixed = h ^ (h >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if i < cells {
            gsum = gsum.wrapping_add(mixed);
            gbytes += key.len();
        } else {
            psum = psum.wrapping_add(mixed);
            pbytes += key.len();
        }
        s.hashed.push((h, i as u32));
    }
    if gsum != psum || gbytes != pbytes {
        return Verdict::Different;
    }
    s.hashed.sort_unstable();
    s.gid.clear();
    s.gid.resize(cells, 0);
    s.pid.clear();
    s.pid.resize(cells, 0);
    let mut id = 0u32;
    let mut run = 0;
    let total = s.hashed.len();
    while run < total {
        let h = s.hashed[run].0;
        let mut end = run + 1;
        while end < total && s.hashed[end].0 == h {
            end += 1;
        }
        if end - run == 1 {
            return Verdict::Different; // a value present on one side only
        }
        let first = cell(s.hashed[run].1 as usize);
        let all_same = s.hashed[run + 1..end]
            .iter()
            .all(|&(_, i)| cell(i as usize) == first);
        if !all_same {
            s.hashed[run..end].sort_unstable_by(|a, b| cell(a.1 as usize).cmp(cell(b.1 as usize)));
        }
        let mut sub = run;
        while sub < end {
            let key = cell(s.hashed[sub].1 as usize);
            let mut golds = 0usize;
            let mut e = sub;
            while e < end && (all_same || cell(s.hashed[e].1 as usize) == key) {
                let i = s.hashed[e].1 as usize;
                if i < cells {
                    s.gid[i] = id;
                    golds += 1;
                } else {
                    s.pid[i - cells] = id;
                }
                e += 1;
            }
            if 2 * golds != e - sub {
                return Verdict::Different; // the multisets of all cells differ
            }
            id += 1;
            sub = e;
        }
        run = end;
    }
    if k == 1 {
        // one column: the cell multisets are the row bags
        return Verdict::from(!ordered || s.gid == s.pid);
    }
    // 3. column signatures (column-major; sorted unless ordered)
    s.gcol.clear();
    s.pcol.clear();
    for c in 0..k {
        for r in 0..n {
            s.gcol.push(s.gid[r * k + c]);
            s.pcol.push(s.pid[r * k + c]);
        }
        if !ordered {
            s.gcol[c * n..].sort_unstable();
            s.pcol[c * n..].sort_unstable();
        }
    }
    // signature classes: sort gold columns (0..k) and predicted columns (k..2k) by
    // signature and number the runs of equal signatures; a gold column may only map to a
    // predicted column of its class, and each class needs as many columns on both sides
    // (O(k log k) comparisons of n ids: no k×k table, so wide rows stay linear in memory)
    let sig = |c: usize| -> &[u32] {
        if c < k {
            &s.gcol[c * n..(c + 1) * n]
        } else {
            &s.pcol[(c - k) * n..(c - k + 1) * n]
        }
    };
    s.col_order.clear();
    s.col_order.extend(0..2 * k);
    s.col_order
        .sort_unstable_by(|&a, &b| sig(a).cmp(sig(b)).then(a.cmp(&b)));
    s.class_of.clear();
    s.class_of.resize(2 * k, 0);
    s.members.clear();
    s.class_start.clear();
    let mut a = 0;
    while a < 2 * k {
        let mut b = a + 1;
        while b < 2 * k && sig(s.col_order[b]) == sig(s.col_order[a]) {
            b += 1;
        }
        let golds = s.col_order[a..b].iter().filter(|&&c| c < k).count();
        if 2 * golds != b - a {
            return Verdict::Different; // a signature class of unequal sizes
        }
        let class = s.class_start.len() as u32;
        s.class_start.push(s.members.len() as u32);
        for &c in &s.col_order[a..b] {
            s.class_of[c] = class;
            if c >= k {
                s.members.push((c - k) as u32);
            }
        }
        a = b;
    }
    s.class_start.push(s.members.len() as u32);
    // 4. ordered: equal column sequences give equal rows
    if ordered {
        return Verdict::Equal;
    }
    // 5. search: gold columns with the fewest candidates first
    s.col_order.clear();
    s.col_order.extend(0..k);
    {
        let (class_of, start) = (&s.class_of, &s.class_start);
        let size = |i: usize| {
            let c = class_of[i] as usize;
            start[c + 1] - start[c]
        };
        s.col_order.sort_unstable_by_key(|&i| (size(i), i));
    }
    // predicted columns identical as sequences are interchangeable: `same_as[j]` is the
    // first of j's group (found by sorting, not by comparing all pairs)
    s.same_as.clear();
    s.same_as.resize(k, 0);
    {
        let pid = &s.pid;
        let mut order: Vec<usize> = (0..k).collect();
        let cmp_cols = |a: usize, b: usize| {
            (0..n)
                .map(|r| pid[r * k + a])
                .cmp((0..n).map(|r| pid[r * k + b]))
        };
        order.sort_unstable_by(|&a, &b| cmp_cols(a, b).then(a.cmp(&b)));
        let mut rep = usize::MAX;
        for (x, &j) in order.iter().enumerate() {
            if x == 0 || cmp_cols(order[x - 1], j) != std::cmp::Ordering::Equal {
                rep = j;
            }
            s.same_as[j] = rep;
        }
    }
    s.used.clear();
    s.used.resize(k, false);
    s.classes.clear();
    s.classes.resize(2 * n * (k + 1), 0);
    let mut search = Search {
        gid: &s.gid,
        pid: &s.pid,
        n,
        k,
        class_of: &s.class_of,
        members: &s.members,
        class_start: &s.class_start,
        same_as: &s.same_as,
        col_order: &s.col_order,
        used: &mut s.used,
        keys: &mut s.keys,
        classes: &mut s.classes,
        budget,
    };
    search.run()
}

/// Steps the column-bijection search may take on a table of `n` rows and `k` columns before
/// it gives up with [`Verdict::Undecided`]: [`SEARCH_BASE_STEPS`] plus
/// [`SEARCH_STEPS_PER_CELL`] per cell of one table. A step is one candidate column tried or
/// one row visited when the row classes are refined or a completion is checked, so the
/// bound caps the run time (well under a second for the base, then linear in the table's
/// size) whatever the table. Equal tables whose rows are pairwise distinct, and tables
/// whose columns have distinct value multisets, never come near it; it is reached only by
/// tables with many columns sharing one value multiset and duplicate or near-duplicate rows
/// (a graph-isomorphism-like search).
pub fn search_budget(n: usize, k: usize) -> u64 {
    SEARCH_BASE_STEPS.saturating_add(SEARCH_STEPS_PER_CELL.saturating_mul((n * k) as u64))
}

/// See [`search_budget`].
pub const SEARCH_BASE_STEPS: u64 = 1 << 24;
/// See [`search_budget`].
pub const SEARCH_STEPS_PER_CELL: u64 = 16;

impl From<bool> for Verdict {
    fn from(equal: bool) -> Self {
        if equal {
            Verdict::Equal
        } else {
            Verdict::Different
        }
    }
}

/// The outcome of comparing two tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Equal under SPEC.md §4 (EX 1).
    Equal,
    /// Not equal (EX 0).
    Different,
    /// The column-bijection search used up its [`search_budget`] without a verdict (counted
    /// as not equal by the boolean functions, reported on its own by `kgbench score`).
    Undecided,
}

struct Search<'s> {
    gid: &'s [u32],
    pid: &'s [u32],
    n: usize,
    k: usize,
    /// Signature class of each gold column (`0..k`) and predicted column (`k..2k`).
    class_of: &'s [u32],
    /// Predicted columns of each class: `members[class_start[c]..class_start[c + 1]]`.
    members: &'s [u32],
    class_start: &'s [u32],
    same_as: &'s [usize],
    col_order: &'s [usize],
    used: &'s mut [bool],
    keys: &'s mut Vec<(u64, u32)>,
    /// Row classes per depth: depth d holds gold rows at `2nd..2nd+n`, pred rows after.
    classes: &'s mut [u32],
    /// Steps left (see [`search_budget`]).
    budget: u64,
}

impl Search<'_> {
    /// Charge `steps`; false when the budget is used up.
    #[inline]
    fn charge(&mut self, steps: usize) -> bool {
        match self.budget.checked_sub(steps as u64) {
            Some(b) => {
                self.budget = b;
                true
            }
            None => false,
        }
    }

    /// Depth-first search over the gold columns in `col_order`, iterative (a table may have
    /// any number of columns): `cursor[d]` is the next candidate to try at depth `d`,
    /// `chosen[d]` the predicted column assigned there, `stamp[d]` the node's number (an
    /// interchangeable column already tried at the node is skipped).
    fn run(&mut self) -> Verdict {
        let k = self.k;
        let mut cursor = vec![0usize; k + 1];
        let mut chosen = vec![0usize; k + 1];
        let mut stamp = vec![0u64; k + 1];
        let mut tried = vec![0u64; k];
        let mut nodes = 1u64;
        stamp[0] = nodes;
        let mut d = 0usize;
        loop {
            if d == k {
                return Verdict::Equal;
            }
            let i = self.col_order[d];
            let c = self.class_of[i] as usize;
            let (lo, hi) = (
                self.class_start[c] as usize,
                self.class_start[c + 1] as usize,
            );
            let mut next = None;
            while lo + cursor[d] < hi {
                let j = self.members[lo + cursor[d]] as usize;
                cursor[d] += 1;
                if !self.charge(1) {
                    return Verdict::Undecided;
                }
                if self.used[j] || tried[self.same_as[j]] == stamp[d] {
                    continue; // taken, or an identical column already tried here
                }
                tried[self.same_as[j]] = stamp[d];
                if !self.charge(2 * self.n) || crate::cancel::requested() {
                    return Verdict::Undecided;
                }
                match self.refine(d, i, j) {
                    Refined::Fails => continue,
                    Refined::Paired if d + 1 < k => {
                        // every row has its partner: the rest is one multiset comparison
                        match self.complete(d + 1, j) {
                            Some(true) => return Verdict::Equal,
                            Some(false) => continue,
                            None => return Verdict::Undecided,
                        }
                    }
                    _ => {
                        next = Some(j);
                        break;
                    }
                }
            }
            match next {
                Some(j) => {
                    self.used[j] = true;
                    chosen[d] = j;
                    d += 1;
                    cursor[d] = 0;
                    nodes += 1;
                    stamp[d] = nodes;
                }
                None if d == 0 => return Verdict::Different,
                None => {
                    d -= 1;
                    self.used[chosen[d]] = false;
                }
            }
        }
    }

    /// Refine depth's row classes by gold column `i` / pred column `j` into depth + 1.
    fn refine(&mut self, depth: usize, i: usize, j: usize) -> Refined {
        let (n, k) = (self.n, self.k);
        let cur = 2 * n * depth;
        let next = cur + 2 * n;
        if depth == 0 {
            // a candidate pair has equal value multisets (step 3), so the projected bags
            // agree; the cell ids themselves are the row classes (no sort needed)
            for r in 0..n {
                self.classes[next + r] = self.gid[r * k + i];
                self.classes[next + n + r] = self.pid[r * k + j];
            }
            return Refined::Agrees;
        }
        self.keys.clear();
        for r in 0..n {
            let c = self.classes[cur + r] as u64;
            self.keys
                .push(((c << 32) | self.gid[r * k + i] as u64, r as u32));
        }
        for r in 0..n {
            let c = self.classes[cur + n + r] as u64;
            self.keys
                .push(((c << 32) | self.pid[r * k + j] as u64, (n + r) as u32));
        }
        self.keys.sort_unstable();
        let mut class = 0u32;
        let mut s = 0;
        while s < self.keys.len() {
            let mut e = s;
            let mut ng = 0usize;
            while e < self.keys.len() && self.keys[e].0 == self.keys[s].0 {
                let r = self.keys[e].1 as usize;
                self.classes[next + r] = class;
                if r < n {
                    ng += 1;
                }
                e += 1;
            }
            if 2 * ng != e - s {
                return Refined::Fails;
            }
            class += 1;
            s = e;
        }
        if class as usize == n {
            Refined::Paired
        } else {
            Refined::Agrees
        }
    }

    /// With the row classes of `depth` pairing every gold row with one predicted row (and
    /// `last` the predicted column just assigned), can the unassigned gold columns map to
    /// the unused predicted columns? Iff their column vectors, read in paired row order,
    /// are equal multisets (rows are distinct on the assigned columns, so any completion
    /// must keep this pairing). `None` when the budget runs out.
    fn complete(&mut self, depth: usize, last: usize) -> Option<bool> {
        let (n, k) = (self.n, self.k);
        let at = 2 * n * depth;
        // the predicted row of each class (classes are 0..n, one gold and one pred row each)
        let mut partner = vec![0u32; n];
        for r in 0..n {
            partner[self.classes[at + n + r] as usize] = r as u32;
        }
        let gold_cols: Vec<usize> = self.col_order[depth..].to_vec();
        let pred_cols: Vec<usize> = (0..k).filter(|&j| !self.used[j] && j != last).collect();
        let m = gold_cols.len();
        if pred_cols.len() != m || !self.charge(2 * m * n) {
            return if pred_cols.len() != m {
                Some(false)
            } else {
                None
            };
        }
        let mut gv = Vec::with_capacity(m * n);
        for &i in &gold_cols {
            gv.extend((0..n).map(|r| self.gid[r * k + i]));
        }
        let mut pv = Vec::with_capacity(m * n);
        for &j in &pred_cols {
            pv.extend((0..n).map(|r| {
                let pr = partner[self.classes[at + r] as usize] as usize;
                self.pid[pr * k + j]
            }));
        }
        let sorted = |v: &[u32]| {
            let mut idx: Vec<usize> = (0..m).collect();
            idx.sort_unstable_by(|&a, &b| v[a * n..(a + 1) * n].cmp(&v[b * n..(b + 1) * n]));
            idx
        };
        let (gs, ps) = (sorted(&gv), sorted(&pv));
        Some(
            gs.iter()
                .zip(&ps)
                .all(|(&a, &b)| gv[a * n..(a + 1) * n] == pv[b * n..(b + 1) * n]),
        )
    }
}

/// What refining the row classes by one more column pair gave.
enum Refined {
    /// The projected row bags differ: this pair cannot be part of a bijection.
    Fails,
    /// The bags agree.
    Agrees,
    /// The bags agree and every row class holds one gold and one predicted row.
    Paired,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::table::table_from_json;

    fn ex(g: &str, p: &str, ordered: bool) -> f64 {
        let (gt, pt) = (table_from_json(g).unwrap(), table_from_json(p).unwrap());
        let mut fresh = ExScratch::default();
        let with_fresh = tables_equivalent_with(gt.as_ref(), pt.as_ref(), ordered, &mut fresh);
        assert_eq!(
            with_fresh,
            tables_equivalent(gt.as_ref(), pt.as_ref(), ordered)
        );
        execution_accuracy(
            &table_from_json(g).unwrap(),
            &table_from_json(p).unwrap(),
            ordered,
        )
    }

    #[test]
    fn order_by_detection_matches_lowercasing() {
        for q in [
            "MATCH (n) RETURN n ORDER BY n.x",
            "match (n) return n order by n.x",
            "MATCH (n) RETURN n OrDeR bY n.x",
            "MATCH (n) RETURN n ORDER  BY n.x",
            "MATCH (n) RETURN n\nORDER\tBY n.x",
            "RETURN 'order by' AS s",
            "ORDER BY",
            "ORDER B",
            "İORDER BYİ",
            "\u{212A}ORDER BY\u{212A}",
            "ÖRDER BY",
            "ORDER BΥ",
            "",
        ] {
            assert_eq!(
                order_matters(q),
                q.to_lowercase().contains("order by"),
                "{q:?}"
            );
        }
    }

    #[test]
    fn basic_rules() {
        assert_eq!(ex("[]", "[]", false), 1.0);
        assert_eq!(ex("[]", "[[1]]", false), 0.0);
        assert_eq!(ex("[[1]]", "[]", false), 0.0);
        assert_eq!(ex("[[1]]", "[[1],[1]]", false), 0.0);
        assert_eq!(ex("[[1, 2]]", "[[1]]", false), 0.0);
        assert_eq!(ex("[[1, 2]]", "[[2.0, 1]]", false), 1.0);
        assert_eq!(
            ex("[[1,\"a\"],[2,\"b\"]]", "[[\"b\",2],[\"a\",1]]", false),
            1.0
        );
        assert_eq!(
            ex("[[1,\"a\"],[2,\"b\"]]", "[[\"b\",2],[\"a\",1]]", true),
            0.0
        );
        assert_eq!(
            ex("[[1,\"a\"],[2,\"b\"]]", "[[\"a\",1],[\"b\",2]]", true),
            1.0
        );
        // the reference's str-sort pre-rejection would call these different
        assert_eq!(ex("[[1, 1.5]]", "[[1.0, 1.5]]", false), 1.0);
    }

    #[test]
    fn bag_semantics_and_pairing() {
        // same column multisets, different row pairing
        assert_eq!(
            ex("[[1,\"a\"],[2,\"b\"]]", "[[1,\"b\"],[2,\"a\"]]", false),
            0.0
        );
        // duplicate rows count
        assert_eq!(ex("[[1],[1],[2]]", "[[1],[2],[2]]", false), 0.0);
        assert_eq!(ex("[[1],[1],[2]]", "[[2],[1],[1]]", false), 1.0);
    }

    /// The hashed fast path and the exhaustive search agree on random small tables
    /// (shuffled copies, single-cell changes, swapped cells between rows, duplicates).
    #[test]
    fn fast_path_agrees_with_exhaustive() {
        let mut next = crate::testing::xorshift::<u64>(0x2545_F491_4F6C_DD1D);
        let (mut agree, mut equal) = (0, 0);
        for _ in 0..20_000 {
            let k = 1 + next(4) as usize;
            let n = 1 + next(6) as usize;
            let vals = 1 + next(4);
            let gold = random_table(&mut next, k, n, vals);
            let ordered = next(4) == 0;
            let mut pred = permute_columns(&gold, &mut next);
            if !ordered || next(2) == 0 {
                shuffle(&mut pred, &mut next);
            }
            match next(4) {
                0 => {
                    let (r, c) = (next(n as u64) as usize, next(k as u64) as usize);
                    pred[r][c] = next(vals);
                }
                1 if n > 1 => swap_cells(&mut pred, 0, n - 1, next(k as u64) as usize),
                2 => {
                    let r = next(n as u64) as usize;
                    let row = pred[r].clone();
                    pred[(r + 1) % n] = row;
                }
                _ => {}
            }
            // small codes stand for a float, a string and a list cell
            let js = |t: &[Vec<u64>]| {
                table_json(t, |v| match v {
                    0 => "1.0".to_string(),
                    1 => "\"a\"".to_string(),
                    2 => "[2, null]".to_string(),
                    v => v.to_string(),
                })
            };
            let (g, p) = (
                table_from_json(&js(&gold)).unwrap(),
                table_from_json(&js(&pred)).unwrap(),
            );
            let mut s = ExScratch::default();
            let fast = tables_equivalent_with(g.as_ref(), p.as_ref(), ordered, &mut s);
            let slow = exhaustive(g.as_ref(), p.as_ref(), ordered, &mut s);
            assert_eq!(
                fast,
                slow,
                "{} vs {} ordered={ordered}",
                js(&gold),
                js(&pred)
            );
            agree += 1;
            equal += fast as usize;
        }
        // both outcomes are well represented
        assert!(equal > 5_000 && agree - equal > 5_000, "{equal} / {agree}");
    }

    /// Brute force: some permutation of the predicted columns makes the row bags (or
    /// sequences) equal.
    fn brute_force(gold: &[Vec<u64>], pred: &[Vec<u64>], ordered: bool) -> bool {
        let k = gold[0].len();
        let mut perm: Vec<usize> = (0..k).collect();
        let mut g = gold.to_vec();
        if !ordered {
            g.sort();
        }
        loop {
            let mut p: Vec<Vec<u64>> = pred
                .iter()
                .map(|r| perm.iter().map(|&c| r[c]).collect())
                .collect();
            if !ordered {
                p.sort();
            }
            if p == g {
                return true;
            }
            // next permutation
            let Some(a) = (1..k).rev().find(|&a| perm[a - 1] < perm[a]) else {
                return false;
            };
            let b = (a..k).rev().find(|&b| perm[b] > perm[a - 1]).unwrap();
            perm.swap(a - 1, b);
            perm[a..].reverse();
        }
    }

    /// `t` as a JSON array of rows, each cell written by `cell`.
    fn table_json(t: &[Vec<u64>], cell: impl Fn(u64) -> String) -> String {
        let rows: Vec<String> = t
            .iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|&v| cell(v)).collect();
                format!("[{}]", cells.join(","))
            })
            .collect();
        format!("[{}]", rows.join(","))
    }

    /// `t` as a table of integer cells.
    fn table_of(t: &[Vec<u64>]) -> Table {
        table_from_json(&table_json(t, |v| v.to_string())).unwrap()
    }

    /// Fisher-Yates shuffle of `v` in place, drawing from `next`.
    fn shuffle<T>(v: &mut [T], next: &mut impl FnMut(u64) -> u64) {
        for i in (1..v.len()).rev() {
            v.swap(i, next(i as u64 + 1) as usize);
        }
    }

    /// `n` rows of `k` cells, each drawn from `0..vals`.
    fn random_table(
        next: &mut impl FnMut(u64) -> u64,
        k: usize,
        n: usize,
        vals: u64,
    ) -> Vec<Vec<u64>> {
        (0..n)
            .map(|_| (0..k).map(|_| next(vals)).collect())
            .collect()
    }

    /// `t` with its columns in a random order (rows in place).
    fn permute_columns(t: &[Vec<u64>], next: &mut impl FnMut(u64) -> u64) -> Vec<Vec<u64>> {
        let mut perm: Vec<usize> = (0..t.first().map_or(0, Vec::len)).collect();
        shuffle(&mut perm, next);
        t.iter()
            .map(|row| perm.iter().map(|&c| row[c]).collect())
            .collect()
    }

    /// Exchanges the cells of column `c` between rows `r1` and `r2` (the column keeps its
    /// multiset of values).
    fn swap_cells(t: &mut [Vec<u64>], r1: usize, r2: usize, c: usize) {
        let x = t[r1][c];
        t[r1][c] = t[r2][c];
        t[r2][c] = x;
    }

    /// The search (signature classes, interchangeable columns, the paired-rows completion)
    /// agrees with brute force over all column permutations, on random tables of up to 7
    /// columns with few distinct values (many equal signatures and duplicate rows).
    #[test]
    fn search_agrees_with_brute_force() {
        let mut next = crate::testing::xorshift::<u64>(0x1234_5678_9ABC_DEF1);
        let (mut equal, mut total) = (0, 0);
        for _ in 0..6_000 {
            let k = 2 + next(6) as usize;
            let n = 1 + next(6) as usize;
            let vals = 2 + next(3);
            let gold = random_table(&mut next, k, n, vals);
            let ordered = next(5) == 0;
            let mut pred = permute_columns(&gold, &mut next);
            if !ordered {
                shuffle(&mut pred, &mut next);
            }
            if next(4) != 0 && n > 1 {
                // swap two cells of one column between rows: same column multisets
                let (r1, c) = (1 + next(n as u64 - 1) as usize, next(k as u64) as usize);
                swap_cells(&mut pred, r1, 0, c);
            }
            let (g, p) = (table_of(&gold), table_of(&pred));
            let mut s = ExScratch::default();
            let got = exhaustive_verdict(g.as_ref(), p.as_ref(), ordered, &mut s);
            let want = brute_force(&gold, &pred, ordered);
            assert_eq!(got, Verdict::from(want), "{gold:?} vs {pred:?} {ordered}");
            total += 1;
            equal += want as usize;
        }
        assert!(equal > 1_000 && total - equal > 1_000, "{equal} / {total}");
    }

    /// 2 rows × 100,000 columns (issue 18, defect 10: quadratic time and a k×k candidate
    /// table of 10 GB before): columns share few value multisets, the predicted columns are
    /// permuted and the rows swapped; equal, and different after one swap.
    #[test]
    fn wide_rows() {
        let k = 100_000u64;
        let gold: Vec<Vec<u64>> = vec![
            (0..k).map(|c| c % 1_000).collect(),
            (0..k).map(|c| (c * 7 + 3) % 1_000).collect(),
        ];
        let mut next = crate::testing::xorshift::<u64>(7);
        let mut pred = permute_columns(&gold, &mut next);
        pred.swap(0, 1);
        let (g, p) = (table_of(&gold), table_of(&pred));
        assert_eq!(
            compare_tables(g.as_ref(), p.as_ref(), false),
            Verdict::Equal
        );
        assert_eq!(
            compare_tables(g.as_ref(), p.as_ref(), true),
            Verdict::Different
        );
        // same column multisets, one cell pair exchanged between the rows of a column
        let mut bad = pred.clone();
        let c = (0..k as usize).find(|&c| bad[0][c] != bad[1][c]).unwrap();
        let c2 = (c + 1..k as usize)
            .find(|&c2| bad[0][c2] != bad[1][c2] && bad[0][c2] != bad[0][c])
            .unwrap();
        swap_cells(&mut bad, 0, 1, c2);
        let b = table_of(&bad);
        assert_eq!(
            compare_tables(g.as_ref(), b.as_ref(), false),
            Verdict::Different
        );
        // all columns alike: interchangeable, decided at once
        let same = vec![vec![1u64; k as usize], vec![2u64; k as usize]];
        let t = table_of(&same);
        assert_eq!(
            compare_tables(t.as_ref(), t.as_ref(), false),
            Verdict::Equal
        );
    }

    /// A search that runs out of steps says so instead of guessing.
    #[test]
    fn budget_gives_undecided() {
        // duplicate rows keep the rows from pairing up: the search must branch
        let gold = vec![
            vec![0, 0, 1, 1],
            vec![0, 1, 0, 1],
            vec![0, 0, 1, 1],
            vec![0, 1, 0, 1],
        ];
        let pred = vec![
            vec![1, 0, 1, 0],
            vec![1, 1, 0, 0],
            vec![1, 0, 1, 0],
            vec![1, 1, 0, 0],
        ];
        let (g, p) = (table_of(&gold), table_of(&pred));
        let mut s = ExScratch::default();
        assert_eq!(
            exhaustive_bounded(g.as_ref(), p.as_ref(), false, &mut s, 3),
            Verdict::Undecided
        );
        let full = exhaustive_bounded(g.as_ref(), p.as_ref(), false, &mut s, u64::MAX);
        assert_eq!(full, Verdict::from(brute_force(&gold, &pred, false)));
        assert!(search_budget(2, 100_000) >= SEARCH_BASE_STEPS + 16 * 200_000);
    }

    #[test]
    fn permutation_tables() {
        for (k, count) in [(1, 1), (2, 2), (3, 6), (4, 24)] {
            let perms = permutations(k);
            assert_eq!(perms.len(), count);
            for w in perms.windows(2) {
                assert!(w[0][..k] < w[1][..k], "lexicographic and distinct");
            }
            for p in perms {
                let mut seen = p[..k].to_vec();
                seen.sort_unstable();
                assert_eq!(seen, (0..k).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn symmetric_columns() {
        // many interchangeable columns: the symmetric-column rule keeps this fast
        let row: Vec<String> = (0..12).map(|_| "1".to_string()).collect();
        let t = format!("[[{}]]", row.join(","));
        assert_eq!(ex(&t, &t, false), 1.0);
        // a permuted 3-column table needing a non-identity bijection
        assert_eq!(
            ex(
                "[[1,2,3],[4,5,6],[1,5,3]]",
                "[[3,1,5],[6,4,2],[3,1,5]]",
                false
            ),
            0.0
        );
        assert_eq!(
            ex(
                "[[1,2,3],[4,5,6],[1,5,3]]",
                "[[3,1,2],[6,4,5],[3,1,5]]",
                false
            ),
            1.0
        );
    }
}
