//! A re-implementation of the string matching the original scorer's fallback relies on:
//! `fuzzywuzzy.process.extractOne` 0.18.0 with its default `WRatio` scorer, on top of
//! Python's pure `difflib.SequenceMatcher` (the original's requirements do not include
//! python-Levenshtein, so fuzzywuzzy falls back to difflib). Only `--compat` uses it; the
//! behaviour, including its rounding and tie-breaking, follows the Python libraries so
//! that compat scoring gives the same letters.

use std::collections::HashMap;

/// Python's `str.isspace` (Rust's `char::is_whitespace` lacks U+001C..U+001F).
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

/// Python's `\w` for str patterns: letters, digits, underscore.
fn py_is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `fuzzywuzzy.utils.full_process`: optionally drop U+0080..U+00FF, turn every non-word
/// character into a space, lower-case, strip.
pub fn full_process(s: &str, force_ascii: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if force_ascii && ('\u{80}'..='\u{ff}').contains(&c) {
            continue;
        }
        if py_is_word(c) {
            out.extend(c.to_lowercase());
        } else {
            out.push(' ');
        }
    }
    py_strip(&out).to_string()
}

/// `difflib.SequenceMatcher(None, a, b)` with the default autojunk heuristic.
struct SequenceMatcher<'a> {
    a: &'a [char],
    b: &'a [char],
    b2j: HashMap<char, Vec<usize>>,
}

impl<'a> SequenceMatcher<'a> {
    fn new(a: &'a [char], b: &'a [char]) -> Self {
        let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
        for (i, &c) in b.iter().enumerate() {
            b2j.entry(c).or_default().push(i);
        }
        // Autojunk: in sequences of 200+ items, items more frequent than 1% + 1 are "popular"
        // and never start a match (they can still extend one).
        let n = b.len();
        if n >= 200 {
            let ntest = n / 100 + 1;
            b2j.retain(|_, idxs| idxs.len() <= ntest);
        }
        SequenceMatcher { a, b, b2j }
    }

    fn find_longest_match(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        // Python keeps `j2len` as a dict per row of `a`; two arrays with the touched
        // positions reset give the same values without hashing.
        let (mut prev, mut cur) = (vec![0usize; b.len()], vec![0usize; b.len()]);
        let (mut prev_t, mut cur_t): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
        for i in alo..ahi {
            if let Some(js) = self.b2j.get(&a[i]) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = if j > 0 { prev[j - 1] } else { 0 } + 1;
                    cur[j] = k;
                    cur_t.push(j);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            for &j in &prev_t {
                prev[j] = 0;
            }
            prev_t.clear();
            std::mem::swap(&mut prev, &mut cur);
            std::mem::swap(&mut prev_t, &mut cur_t);
        }
        // No junk function, so only the non-junk extension loops can do anything.
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] == b[bestj + bestsize] {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }

    fn get_matching_blocks(&self) -> Vec<(usize, usize, usize)> {
        let (la, lb) = (self.a.len(), self.b.len());
        let mut queue = vec![(0, la, 0, lb)];
        let mut blocks = Vec::new();
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.find_longest_match(alo, ahi, blo, bhi);
            if k > 0 {
                blocks.push((i, j, k));
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        blocks.sort();
        let (mut i1, mut j1, mut k1) = (0, 0, 0);
        let mut out = Vec::new();
        for (i2, j2, k2) in blocks {
            if i1 + k1 == i2 && j1 + k1 == j2 {
                k1 += k2;
            } else {
                if k1 > 0 {
                    out.push((i1, j1, k1));
                }
                (i1, j1, k1) = (i2, j2, k2);
            }
        }
        if k1 > 0 {
            out.push((i1, j1, k1));
        }
        out.push((la, lb, 0));
        out
    }

    fn ratio(&self) -> f64 {
        let matches: usize = self.get_matching_blocks().iter().map(|b| b.2).sum();
        let length = self.a.len() + self.b.len();
        if length == 0 { 1.0 } else { 2.0 * matches as f64 / length as f64 }
    }
}

/// `utils.intr`: Python's `int(round(x))`, which rounds halves to even.
fn intr(x: f64) -> i64 {
    x.round_ties_even() as i64
}

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// `fuzz.ratio` (with its equal-strings and empty-string shortcuts).
fn ratio(s1: &str, s2: &str) -> i64 {
    if s1 == s2 {
        return 100;
    }
    if s1.is_empty() || s2.is_empty() {
        return 0;
    }
    let (a, b) = (chars(s1), chars(s2));
    intr(100.0 * SequenceMatcher::new(&a, &b).ratio())
}

/// `fuzz.partial_ratio`: the best ratio of the shorter string against windows of the longer.
fn partial_ratio(s1: &str, s2: &str) -> i64 {
    if s1 == s2 {
        return 100;
    }
    if s1.is_empty() || s2.is_empty() {
        return 0;
    }
    let (a, b) = (chars(s1), chars(s2));
    let (shorter, longer) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let blocks = SequenceMatcher::new(&shorter, &longer).get_matching_blocks();
    let mut best = 0.0f64;
    for (i, j, _) in blocks {
        let long_start = j.saturating_sub(i);
        let long_end = (long_start + shorter.len()).min(longer.len());
        let window = &longer[long_start.min(longer.len())..long_end];
        let r = SequenceMatcher::new(&shorter, window).ratio();
        if r > 0.995 {
            return 100;
        }
        best = best.max(r);
    }
    intr(100.0 * best)
}

fn split_ws(s: &str) -> Vec<&str> {
    s.split(py_isspace).filter(|t| !t.is_empty()).collect()
}

fn sorted_tokens(s: &str) -> String {
    let mut t = split_ws(s);
    t.sort_unstable();
    py_strip(&t.join(" ")).to_string()
}

/// `fuzz._token_set` on already processed strings.
fn token_set(p1: &str, p2: &str, partial: bool) -> i64 {
    if p1 == p2 {
        return 100;
    }
    if p1.is_empty() || p2.is_empty() {
        return 0;
    }
    let t1: std::collections::BTreeSet<&str> = split_ws(p1).into_iter().collect();
    let t2: std::collections::BTreeSet<&str> = split_ws(p2).into_iter().collect();
    let join = |v: Vec<&&str>| v.into_iter().copied().collect::<Vec<&str>>().join(" ");
    let sect = join(t1.intersection(&t2).collect());
    let d12 = join(t1.difference(&t2).collect());
    let d21 = join(t2.difference(&t1).collect());
    let c12 = py_strip(&format!("{sect} {d12}")).to_string();
    let c21 = py_strip(&format!("{sect} {d21}")).to_string();
    let sect = py_strip(&sect).to_string();
    let f = if partial { partial_ratio } else { ratio };
    f(&sect, &c12).max(f(&sect, &c21)).max(f(&c12, &c21))
}

/// `fuzz.WRatio(p1, p2, full_process=False)`.
pub fn wratio(p1: &str, p2: &str) -> i64 {
    if p1.is_empty() || p2.is_empty() {
        return 0;
    }
    let unbase_scale = 0.95;
    let mut partial_scale = 0.90;
    let base = ratio(p1, p2) as f64;
    let (l1, l2) = (p1.chars().count() as f64, p2.chars().count() as f64);
    let len_ratio = l1.max(l2) / l1.min(l2);
    let try_partial = len_ratio >= 1.5;
    if len_ratio > 8.0 {
        partial_scale = 0.6;
    }
    if try_partial {
        let partial = partial_ratio(p1, p2) as f64 * partial_scale;
        let ptsor = partial_ratio(&sorted_tokens(p1), &sorted_tokens(p2)) as f64 * unbase_scale * partial_scale;
        let ptser = token_set(p1, p2, true) as f64 * unbase_scale * partial_scale;
        intr(base.max(partial).max(ptsor).max(ptser))
    } else {
        let tsor = ratio(&sorted_tokens(p1), &sorted_tokens(p2)) as f64 * unbase_scale;
        let tser = token_set(p1, p2, false) as f64 * unbase_scale;
        intr(base.max(tsor).max(tser))
    }
}

/// `process.extractOne(query, choices)` with the defaults: the index of the first choice
/// with the highest `WRatio` score, and that score; `None` for an empty choice list.
pub fn extract_one(query: &str, choices: &[String]) -> Option<(usize, i64)> {
    if choices.is_empty() {
        return None;
    }
    // The query goes through full_process twice (once plain, once ASCII-forced), each
    // choice once (ASCII-forced).
    let q = full_process(&full_process(query, false), true);
    let mut best: Option<(usize, i64)> = None;
    for (i, c) in choices.iter().enumerate() {
        let score = wratio(&q, &full_process(c, true));
        if best.is_none_or(|(_, s)| score > s) {
            best = Some((i, score));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values computed with fuzzywuzzy 0.18.0 on CPython 3.11 (pure difflib).
    #[test]
    fn scores_match_fuzzywuzzy() {
        assert_eq!(wratio("pick up onion from o1", "pick up onion from o0"), 95);
        assert_eq!(ratio("abcd", "bcde"), 75);
        assert_eq!(partial_ratio("abc", "xxabcxx"), 100);
        assert_eq!(full_process("  Hello, World! ", false), "hello  world");
        assert_eq!(full_process("caf\u{e9} bar", true), "caf bar");
    }

    #[test]
    fn extract_one_picks_first_best() {
        let choices: Vec<String> = ["yes.", "no.", "yes."].iter().map(|s| s.to_string()).collect();
        assert_eq!(extract_one("Yes", &choices), Some((0, 100)));
        assert_eq!(extract_one("", &choices), Some((0, 0)));
        assert_eq!(extract_one("x", &[]), None);
    }
}
