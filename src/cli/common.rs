//! Helpers shared by the subcommands: loading layouts and files.

use anyhow::{Context, Result, bail};
use proagent::env::{Layout, layout};
use std::path::Path;

/// A layout by built-in name or alias, or a path to a `.layout` / plain grid file.
pub fn load_layout(spec: &str) -> Result<Layout> {
    if let Some(l) = Layout::builtin(spec) {
        return Ok(l);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names: Vec<&str> = layout::BUILTIN.iter().map(|(n, _)| *n).collect();
        bail!("unknown layout {spec:?}: not a built-in name ({}) nor an existing file", names.join(", "));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading layout file {}", path.display()))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("custom").to_string();
    Ok(Layout::parse(&name, &text, &path.display().to_string())?)
}

pub fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}
