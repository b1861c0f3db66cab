//! Counts as outputs write them: the noun in its singular form for one, its plural
//! otherwise. A leaf module (it imports nothing), so every game file and the analysis
//! summaries can use it without an import loop.

/// `n` with the noun in its singular or plural form, as outputs write counts
/// (`1 delivery`, `2 deliveries`, `0 lives lost` is written by the caller as
/// `counted(n, "life", "lives")` + ` lost`).
pub fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}
