//! Lists the LLM-Coordination templates to embed: every `.j2` file under `prompts/llmco/`
//! (one folder per prompt part, one file per game plus `default.j2`), so a game's
//! templates are embedded by adding their files, with no list to edit. Writes
//! `$OUT_DIR/embedded_llmco.rs`, a slice expression of (template name, source) pairs in
//! name order, which `prompts.rs` includes.

use std::path::{Path, PathBuf};

/// The `.j2` files under `dir`, recursively, in path order.
fn templates(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            templates(&p, out);
        } else if p.extension().is_some_and(|x| x == "j2") {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let prompts = manifest.join("../../prompts");
    let dir = prompts.join("llmco");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files = Vec::new();
    templates(&dir, &mut files);
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter_map(|p| {
            let name = p.strip_prefix(&prompts).ok()?.to_string_lossy().replace('\\', "/");
            Some((name, p))
        })
        .collect();
    named.sort();
    let mut code = String::from("&[\n");
    for (name, path) in &named {
        code.push_str(&format!("    ({name:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    code.push_str("]\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("embedded_llmco.rs");
    if let Err(e) = std::fs::write(&out, code) {
        panic!("writing {}: {e}", out.display());
    }
}
