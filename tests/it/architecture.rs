//! The layering the docs describe (docs/architecture.md), checked on the source:
//! every `crate::` and `super::` path in library code (tests excluded) is resolved
//! to the module it names, and
//! - no module imports `cli` (the command line sits on top of everything);
//! - every top-level module uses only the layers below it ([`ALLOWED`]);
//! - there is no import loop between modules (files), at any depth.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module and the modules it may use.
const ALLOWED: &[(&str, &[&str])] = &[
    ("env", &[]),
    ("env_v2", &["env"]),
    ("skills", &["env"]),
    ("controller", &["env", "skills"]),
    ("policy", &["env"]),
    // Input size limits and the bounded file reader: a leaf that every layer with I/O may use.
    ("limits", &[]),
    ("partners", &["env", "skills", "controller", "policy", "limits"]),
    ("llm", &[]),
    ("agent", &["env", "skills", "controller", "policy", "llm", "limits"]),
    ("transcript", &["llm", "limits"]),
    ("v2", &["env", "env_v2", "policy", "llm", "agent", "analysis", "limits"]),
    ("analysis", &["env"]),
    ("qa", &["llm", "limits"]),
    ("rl", &["env", "policy", "partners", "limits"]),
    (
        "runner",
        &[
            "env",
            "env_v2",
            "skills",
            "controller",
            "policy",
            "partners",
            "rl",
            "llm",
            "agent",
            "transcript",
            "analysis",
            "v2",
            "limits",
        ],
    ),
    (
        "eval",
        &[
            "env",
            "env_v2",
            "skills",
            "controller",
            "policy",
            "partners",
            "rl",
            "llm",
            "agent",
            "transcript",
            "analysis",
            "runner",
            "v2",
            "limits",
        ],
    ),
    (
        "web",
        &[
            "env",
            "env_v2",
            "skills",
            "controller",
            "policy",
            "partners",
            "rl",
            "llm",
            "agent",
            "transcript",
            "analysis",
            "runner",
            "eval",
            "v2",
            "limits",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b.rs` → ["a", "b"]; `src/a/mod.rs` → ["a"]; `src/lib.rs` → [].
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.with_extension("").iter().map(|c| c.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The library code of a file: comments and the inline test module removed.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of a use tree such as `a::{b, c::{d, e}}`, each as its segments.
fn expand_tree(tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let first = tree.split(" as ").next().unwrap_or("");
        return vec![first.split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()];
    };
    let prefix: Vec<String> =
        tree[..open].split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
    let inner = &tree[open + 1..close];
    let (mut parts, mut depth, mut cur) = (Vec::new(), 0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    let mut out = Vec::new();
    for p in parts.iter().filter(|p| !p.trim().is_empty()) {
        for mut tail in expand_tree(p) {
            let mut full = prefix.clone();
            if tail.first().map(String::as_str) == Some("self") {
                tail.remove(0);
            }
            full.extend(tail);
            out.push(full);
        }
    }
    out
}

/// Every module path a file's code refers to, absolute (without `crate`): paths from
/// `crate::`, `super::`, `self::`, and paths that start with one of `children` (the
/// file's own submodules, which Rust lets it name directly).
fn references(code: &str, me: &[String], children: &[String]) -> Vec<Vec<String>> {
    let parent: Vec<String> = me[..me.len().saturating_sub(1)].to_vec();
    let absolute = |segs: Vec<String>| -> Option<Vec<String>> {
        match segs.first().map(String::as_str) {
            Some("crate") => Some(segs[1..].to_vec()),
            Some("super") => {
                let mut base = parent.clone();
                let mut rest = &segs[1..];
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            Some("self") => {
                let mut base = me.to_vec();
                base.extend(segs[1..].iter().cloned());
                Some(base)
            }
            Some(first) if children.iter().any(|c| c == first) => {
                let mut base = me.to_vec();
                base.extend(segs.iter().cloned());
                Some(base)
            }
            _ => None,
        }
    };
    let mut out = Vec::new();
    // use statements (with trees)
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before_ok = i == 0 || !is_ident(rest[..i].chars().last().unwrap_or(' '));
        let after = &rest[i + 4..];
        let end = after.find(';').unwrap_or(after.len());
        if before_ok {
            let stmt = after[..end].trim();
            let first = stmt.split("::").next().unwrap_or("").trim();
            if ["crate", "super", "self"].contains(&first) || children.iter().any(|c| c == first) {
                out.extend(expand_tree(stmt).into_iter().filter_map(&absolute));
            }
        }
        rest = &after[end.min(after.len())..];
    }
    // inline paths: crate::a::b, super::a::b, child::f
    let keys: Vec<String> =
        ["crate", "super"].iter().map(|s| s.to_string()).chain(children.iter().cloned()).map(|k| k + "::").collect();
    for key in &keys {
        let key = key.as_str();
        let mut from = 0;
        while let Some(i) = code[from..].find(key) {
            let at = from + i;
            let prev = code[..at].chars().last().unwrap_or(' ');
            let before_ok = at == 0 || !(is_ident(prev) || prev == ':');
            let mut end = at;
            let bytes: Vec<char> = code[at..].chars().collect();
            let mut j = 0;
            while j < bytes.len() && (is_ident(bytes[j]) || (bytes[j] == ':' && bytes.get(j + 1) == Some(&':'))) {
                j += if bytes[j] == ':' { 2 } else { 1 };
            }
            end += bytes[..j].iter().map(|c| c.len_utf8()).sum::<usize>();
            if before_ok {
                let segs: Vec<String> =
                    code[at..end].split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
                out.extend(absolute(segs));
            }
            from = end.max(at + key.len());
        }
    }
    out
}

struct Graph {
    /// module → the modules it uses (and a file that shows it).
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

fn build_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut modules = BTreeSet::new();
    let mut lib_files = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().to_path_buf();
        let m = module_of(&rel);
        if rel == Path::new("main.rs") || m.last().is_some_and(|s| s == "tests") {
            continue;
        }
        modules.insert(m.join("::"));
        lib_files.push((rel, m));
    }
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, me) in &lib_files {
        if me.first().is_some_and(|s| s == "cli") {
            continue;
        }
        let text = std::fs::read_to_string(src.join(rel)).unwrap();
        let name = me.join("::");
        let children: Vec<String> = modules
            .iter()
            .filter_map(|m| m.strip_prefix(&format!("{name}::")).filter(|rest| !rest.contains("::")))
            .map(str::to_string)
            .collect();
        for path in references(&code_of(&text), me, &children) {
            // The longest prefix of the path that is a module is what the file depends on.
            let target = (1..=path.len()).rev().map(|n| path[..n].join("::")).find(|p| modules.contains(p));
            if let Some(t) = target
                && t != name
            {
                edges.entry(name.clone()).or_default().entry(t).or_insert_with(|| rel.display().to_string());
            }
        }
    }
    Graph { edges }
}

#[test]
fn the_parser_reads_use_trees_and_inline_paths() {
    let me = vec!["eval".to_string(), "store".to_string()];
    let refs = references(
        "use super::plan::{self, EpisodeSpec};\nuse crate::llm::{record::Exchange, Sampling};\nfn f() { crate::env::trace::x(); super::scheduler::Y }",
        &me,
        &[],
    );
    let joined: BTreeSet<String> = refs.iter().map(|r| r.join("::")).collect();
    for want in [
        "eval::plan",
        "eval::plan::EpisodeSpec",
        "llm::record::Exchange",
        "llm::Sampling",
        "env::trace::x",
        "eval::scheduler::Y",
    ] {
        assert!(joined.contains(want), "{want} not in {joined:?}");
    }
}

#[test]
fn nothing_uses_the_command_line() {
    let g = build_graph();
    for (from, to) in &g.edges {
        for (t, file) in to {
            assert!(!t.starts_with("cli"), "{from} ({file}) uses {t}: the CLI sits on top");
        }
    }
}

#[test]
fn every_layer_uses_only_the_layers_below() {
    let g = build_graph();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut problems = Vec::new();
    for (from, to) in &g.edges {
        let top = from.split("::").next().unwrap_or("");
        let Some(ok) = allowed.get(top) else {
            problems.push(format!("top-level module {top} is not in ALLOWED (tests/architecture.rs)"));
            continue;
        };
        for (t, file) in to {
            let ttop = t.split("::").next().unwrap_or("");
            if ttop != top && !ok.contains(&ttop) {
                problems.push(format!("{file}: {from} uses {t}, but {top} may only use {ok:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "layering broken:\n{}", problems.join("\n"));
}

#[test]
fn no_import_loops() {
    let g = build_graph();
    // Tarjan's strongly connected components over the module graph.
    let nodes: Vec<&String> = g.edges.keys().chain(g.edges.values().flat_map(|m| m.keys())).collect();
    let nodes: BTreeSet<&String> = nodes.into_iter().collect();
    let index_of: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let names: Vec<&String> = nodes.iter().copied().collect();
    let adj: Vec<Vec<usize>> = names
        .iter()
        .map(|n| g.edges.get(*n).map(|m| m.keys().map(|t| index_of[t]).collect()).unwrap_or_default())
        .collect();
    let n = names.len();
    let (mut index, mut low, mut on, mut stack, mut next) =
        (vec![usize::MAX; n], vec![0; n], vec![false; n], vec![], 0);
    let mut loops: Vec<Vec<String>> = Vec::new();
    fn visit(
        v: usize,
        adj: &[Vec<usize>],
        st: &mut (&mut Vec<usize>, &mut Vec<usize>, &mut Vec<bool>, &mut Vec<usize>, &mut usize),
        names: &[&String],
        loops: &mut Vec<Vec<String>>,
    ) {
        st.0[v] = *st.4;
        st.1[v] = *st.4;
        *st.4 += 1;
        st.3.push(v);
        st.2[v] = true;
        for &w in &adj[v] {
            if st.0[w] == usize::MAX {
                visit(w, adj, st, names, loops);
                st.1[v] = st.1[v].min(st.1[w]);
            } else if st.2[w] {
                st.1[v] = st.1[v].min(st.0[w]);
            }
        }
        if st.1[v] == st.0[v] {
            let mut comp = Vec::new();
            while let Some(w) = st.3.pop() {
                st.2[w] = false;
                comp.push(names[w].to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                loops.push(comp);
            }
        }
    }
    for v in 0..n {
        if index[v] == usize::MAX {
            let mut st = (&mut index, &mut low, &mut on, &mut stack, &mut next);
            visit(v, &adj, &mut st, &names, &mut loops);
        }
    }
    let described: Vec<String> = loops
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    g.edges.get(a).into_iter().flat_map(move |m| {
                        m.iter().filter(|(t, _)| c.contains(t)).map(move |(t, f)| format!("{a} -> {t} ({f})"))
                    })
                })
                .collect();
            format!("loop among {c:?}: {}", edges.join("; "))
        })
        .collect();
    assert!(described.is_empty(), "import loops:\n{}", described.join("\n"));
}
