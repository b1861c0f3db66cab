//! Computes `PROAGENT_CODE_HASH`: a hash of the source of everything that decides how
//! an episode plays out (simulator, skills, controller, partners and their shipped BC
//! weights, the agent, the episode runner). Eval keys include it, so results made by
//! other code are never reused. Comment lines are left out, so editing documentation
//! does not invalidate results.

use std::path::{Path, PathBuf};

/// Sources whose behaviour shapes an episode, relative to the workspace root.
const INPUTS: &[&str] = &[
    "crates/core/src",
    "crates/overcooked/src",
    "crates/overcooked-v2/src",
    "crates/partners/src",
    "crates/agent/src",
    "crates/eval/src/runner",
    "data/bc",
];

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(_) => return,
        };
        entries.sort();
        for e in entries {
            files(&e, out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}

/// 64-bit FNV-1a: an identity for the code, not a security measure.
fn fnv(hash: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *hash ^= u64::from(*b);
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let root = manifest.join("../..");
    let mut all = Vec::new();
    for input in INPUTS {
        println!("cargo:rerun-if-changed={}", root.join(input).display());
        files(&root.join(input), &mut all);
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for path in &all {
        let rel = path.strip_prefix(&root).unwrap_or(path).to_string_lossy().replace('\\', "/");
        if rel.ends_with("/tests.rs") || rel.contains("/tests/") {
            continue;
        }
        fnv(&mut hash, rel.as_bytes());
        fnv(&mut hash, &[0]);
        let Ok(bytes) = std::fs::read(path) else { continue };
        if rel.ends_with(".rs") {
            let text = String::from_utf8_lossy(&bytes);
            for line in text.lines() {
                let t = line.trim();
                if t.is_empty() || t.starts_with("//") {
                    continue;
                }
                fnv(&mut hash, t.as_bytes());
                fnv(&mut hash, b"\n");
            }
        } else {
            fnv(&mut hash, &bytes);
        }
        fnv(&mut hash, &[0]);
    }
    println!("cargo:rustc-env=PROAGENT_CODE_HASH={hash:016x}");
}
