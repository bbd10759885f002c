//! Character-level typos (spec ngdbench.md §3, `name_typos` and `attribute_noise`).
//!
//! Text is handled as Unicode scalar values (Python's `list(str)`), positions are uniform.
//! - *substitution*: the character at a random position becomes one of its look-alikes
//!   ([`lookalikes`]: e.g. a→o/e/q, i→l/1/j, o→0/a/e, s→5/z, t→f/l/7), upper-cased when the
//!   original was upper case; a letter without look-alikes becomes a random letter of the same
//!   case; any other character is left alone (no change).
//! - *deletion*: one character, never the first or the last (texts of 3+ characters).
//! - *insertion*: at a position `1..len`, a copy of the character before or at it (a doubled
//!   keystroke).
//! - *case_alteration*: one character's case is swapped (no change when it is not a letter).
//! - *mix*: two distinct operations of the four above, one after the other.
//!
//! A result equal to the input counts as no typo; the caller skips that element (as the repo
//! does).

use super::rng::Rng;

/// A typo operation of the profile (`operations` / `typo_operations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypoOp {
    /// `character_substitution`
    Substitution,
    /// `character_deletion`
    Deletion,
    /// `character_insertion`
    Insertion,
    /// `case_alteration`
    CaseAlteration,
    /// `mix`: two distinct single operations.
    Mix,
}

/// The four single operations, in the order `mix` draws from.
pub const SINGLE_OPS: [TypoOp; 4] = [
    TypoOp::Substitution,
    TypoOp::Deletion,
    TypoOp::Insertion,
    TypoOp::CaseAlteration,
];

impl TypoOp {
    /// The operation named `name` in a profile.
    pub fn parse(name: &str) -> Option<TypoOp> {
        Some(match name {
            "character_substitution" => TypoOp::Substitution,
            "character_deletion" => TypoOp::Deletion,
            "character_insertion" => TypoOp::Insertion,
            "case_alteration" => TypoOp::CaseAlteration,
            "mix" => TypoOp::Mix,
            _ => return None,
        })
    }

    /// The profile name of the operation.
    pub fn name(self) -> &'static str {
        match self {
            TypoOp::Substitution => "character_substitution",
            TypoOp::Deletion => "character_deletion",
            TypoOp::Insertion => "character_insertion",
            TypoOp::CaseAlteration => "case_alteration",
            TypoOp::Mix => "mix",
        }
    }
}

/// The look-alike replacements of a lower-case letter or digit (OCR / keyboard confusions);
/// empty for other characters.
pub fn lookalikes(c: char) -> &'static [char] {
    match c {
        'a' => &['o', 'e', 'q'],
        'b' => &['d', 'p'],
        'c' => &['e', 'o'],
        'd' => &['b', 'p'],
        'e' => &['a', 'i', 'o'],
        'f' => &['t'],
        'g' => &['q', 'j'],
        'h' => &['n', 'b'],
        'i' => &['l', '1', 'j'],
        'j' => &['i', 'g'],
        'k' => &['x'],
        'l' => &['i', '1', 't'],
        'm' => &['n', 'w'],
        'n' => &['m', 'h'],
        'o' => &['0', 'a', 'e'],
        'p' => &['b', 'd', 'q'],
        'q' => &['g', 'p'],
        'r' => &['t'],
        's' => &['5', 'z'],
        't' => &['f', 'l', '7'],
        'u' => &['v', 'w'],
        'v' => &['u', 'w'],
        'w' => &['v', 'm'],
        'x' => &['k', 'z'],
        'y' => &['v', 'j'],
        'z' => &['s', 'x'],
        '0' => &['o', 'O'],
        '1' => &['l', 'i', 'I'],
        '5' => &['s', 'S'],
        '7' => &['t', 'T'],
        _ => &[],
    }
}

/// What one typo did: the new text and the operation applied (for `mix`, `"mix(a+b)"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typo {
    /// The text after the typo (may equal the input: then no typo was made).
    pub text: String,
    /// `character_substitution`, ..., or `mix(<op1>+<op2>)`.
    pub method: String,
}

/// One typo in `text` by an operation drawn uniformly from `ops` (non-empty). Texts shorter
/// than 2 characters come back unchanged.
pub fn introduce_typo(text: &str, ops: &[TypoOp], rng: &mut Rng) -> Typo {
    let mut chars: Vec<char> = text.chars().collect();
    if chars.len() < 2 || ops.is_empty() {
        return Typo {
            text: text.to_string(),
            method: "none".into(),
        };
    }
    let op = ops[rng.below(ops.len())];
    let method = if op == TypoOp::Mix {
        let first = rng.below(4);
        let mut second = rng.below(3);
        if second >= first {
            second += 1;
        }
        let (a, b) = (SINGLE_OPS[first], SINGLE_OPS[second]);
        apply_single(&mut chars, a, rng);
        apply_single(&mut chars, b, rng);
        format!("mix({}+{})", a.name(), b.name())
    } else {
        apply_single(&mut chars, op, rng);
        op.name().to_string()
    };
    Typo {
        text: chars.into_iter().collect(),
        method,
    }
}

/// Swap the case of `c` (Python's `str.swapcase` for one character; may give several).
fn swapcase(c: char) -> Vec<char> {
    if c.is_uppercase() {
        c.to_lowercase().collect()
    } else if c.is_lowercase() {
        c.to_uppercase().collect()
    } else {
        vec![c]
    }
}

fn apply_single(chars: &mut Vec<char>, op: TypoOp, rng: &mut Rng) {
    let len = chars.len();
    if len == 0 {
        return;
    }
    match op {
        TypoOp::Substitution => {
            let pos = rng.below(len);
            let c = chars[pos];
            let mut lower = c.to_lowercase();
            let key = match (lower.next(), lower.next()) {
                (Some(l), None) => l,
                _ => c,
            };
            let options = lookalikes(key);
            if !options.is_empty() {
                let mut r = options[rng.below(options.len())];
                if c.is_uppercase() {
                    r = r.to_ascii_uppercase();
                }
                chars[pos] = r;
            } else if c.is_alphabetic() {
                let letter = (b'a' + rng.below(26) as u8) as char;
                chars[pos] = if c.is_uppercase() {
                    letter.to_ascii_uppercase()
                } else {
                    letter
                };
            }
        }
        TypoOp::Deletion => {
            if len > 2 {
                let pos = rng.between(1, len - 2);
                chars.remove(pos);
            }
        }
        TypoOp::Insertion => {
            if len >= 2 {
                let pos = rng.between(1, len - 1);
                let copy = if rng.unit() > 0.5 {
                    chars[pos - 1]
                } else {
                    chars[pos]
                };
                chars.insert(pos, copy);
            }
        }
        TypoOp::CaseAlteration => {
            let pos = rng.below(len);
            if chars[pos].is_alphabetic() {
                let swapped = swapcase(chars[pos]);
                chars.splice(pos..=pos, swapped);
            }
        }
        TypoOp::Mix => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, op: TypoOp, state: u64) -> Typo {
        introduce_typo(text, &[op], &mut Rng::from_state(state))
    }

    #[test]
    fn deletion_keeps_the_ends() {
        for s in 0..200 {
            let t = run("Douglas", TypoOp::Deletion, s).text;
            assert_eq!(t.chars().count(), 6);
            assert!(t.starts_with('D') && t.ends_with('s'), "{t}");
        }
        assert_eq!(run("ab", TypoOp::Deletion, 1).text, "ab");
    }

    #[test]
    fn insertion_doubles_a_neighbour() {
        for s in 0..200 {
            let t = run("abcd", TypoOp::Insertion, s).text;
            assert_eq!(t.len(), 5);
            let doubled = t.as_bytes().windows(2).any(|w| w[0] == w[1]);
            assert!(doubled, "{t}");
        }
    }

    #[test]
    fn substitution_uses_lookalikes_and_keeps_case() {
        for s in 0..200 {
            let t = run("A", TypoOp::Substitution, s).text;
            assert_eq!(t, "A", "one-character texts are left alone");
            let t = run("Ao", TypoOp::Substitution, s).text;
            let c: Vec<char> = t.chars().collect();
            if c[0] != 'A' {
                assert!(['O', 'E', 'Q'].contains(&c[0]), "{t}");
            } else {
                assert!(['0', 'a', 'e'].contains(&c[1]), "{t}");
            }
        }
        // no look-alike and not a letter: unchanged
        assert_eq!(run("--", TypoOp::Substitution, 3).text, "--");
        // a letter without look-alikes (é) becomes a random lower-case ASCII letter
        let t = run("éé", TypoOp::Substitution, 5).text;
        assert!(t.chars().any(|c| c.is_ascii_lowercase()), "{t}");
    }

    #[test]
    fn case_alteration_swaps_one_letter() {
        for s in 0..100 {
            let t = run("ab", TypoOp::CaseAlteration, s).text;
            assert!(t == "Ab" || t == "aB", "{t}");
        }
        assert_eq!(run("12", TypoOp::CaseAlteration, 1).text, "12");
    }

    #[test]
    fn mix_names_two_distinct_ops() {
        for s in 0..100 {
            let t = run("Hitchhiker", TypoOp::Mix, s);
            let inner = t
                .method
                .strip_prefix("mix(")
                .unwrap()
                .strip_suffix(')')
                .unwrap();
            let (a, b) = inner.split_once('+').unwrap();
            assert_ne!(a, b);
            assert!(TypoOp::parse(a).is_some() && TypoOp::parse(b).is_some());
        }
    }

    #[test]
    fn same_state_same_typo() {
        let ops = [TypoOp::Substitution, TypoOp::Mix, TypoOp::Insertion];
        let a = introduce_typo("Douglas Adams", &ops, &mut Rng::from_state(9));
        let b = introduce_typo("Douglas Adams", &ops, &mut Rng::from_state(9));
        assert_eq!(a, b);
    }
}
