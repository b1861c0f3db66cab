//! What Cargo cannot check about the architecture (docs/architecture.md). Cargo already
//! refuses a dependency cycle between crates; these tests add:
//! - the crate graph is the documented one: every crate sits in a layer ([`LAYERS`]) and
//!   depends (also for tests) only on crates of lower layers;
//! - there is no import loop between the modules of any crate, at any depth;
//! - the games are pure: no file, network, clock or async runtime in the game crates;
//! - library crates use typed errors (no `anyhow`, no `Result<_, String>`) and warn on
//!   missing docs;
//! - the binary stays thin: `src/` (argument parsing and printing) holds at most
//!   [`MAX_SRC_LINES`] lines of Rust.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every crate of the workspace by layer: a crate may use only crates of lower layers.
const LAYERS: &[(&str, u8)] = &[
    ("proagent-core", 0),
    ("proagent-listen", 0),
    ("proagent-overcooked", 1),
    ("proagent-hanabi", 1),
    ("proagent-collab", 1),
    ("proagent-lever", 1),
    ("proagent-overcooked-v2", 2),
    ("proagent-llm", 2),
    ("proagent-analysis", 3),
    ("proagent-partners", 3),
    ("proagent-view", 3),
    ("proagent-mock", 3),
    ("proagent-agent", 4),
    ("proagent-qa", 4),
    ("proagent-eval", 5),
    ("proagent-web", 6),
    ("proagent", 7),
    ("proagent-py", 8),
];

/// The most lines of Rust in `src/` (the binary: argument parsing and printing); run logic,
/// drawing and servers belong in the library crates.
const MAX_SRC_LINES: usize = 6_000;

/// The game crates, which must stay free of I/O, clocks and async runtimes.
const GAMES: &[&str] = &["crates/overcooked", "crates/overcooked-v2", "crates/hanabi", "crates/collab", "crates/lever"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every workspace crate: (package name, its directory).
fn crates() -> Vec<(String, PathBuf)> {
    let mut out = vec![("proagent".to_string(), root()), ("proagent-py".to_string(), root().join("python"))];
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(root().join("crates")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    for d in dirs {
        let toml = std::fs::read_to_string(d.join("Cargo.toml")).unwrap();
        let name = toml
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{}: no package name", d.display()))
            .to_string();
        out.push((name, d));
    }
    out
}

/// The workspace crates a manifest depends on, in any dependency section.
fn internal_deps(manifest: &str, names: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_deps = l.contains("dependencies");
            continue;
        }
        if !in_deps {
            continue;
        }
        if let Some(name) = l.split(['=', ' ', '.']).next().filter(|n| names.contains(*n)) {
            out.insert(name.to_string());
        }
    }
    out
}

#[test]
fn the_crate_graph_is_the_documented_layering() {
    let all = crates();
    let names: BTreeSet<String> = all.iter().map(|(n, _)| n.clone()).collect();
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut problems = Vec::new();
    for (name, dir) in &all {
        let Some(&mine) = layer.get(name.as_str()) else {
            problems.push(format!("{name} is not in LAYERS (tests/it/architecture.rs, docs/architecture.md)"));
            continue;
        };
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for dep in internal_deps(&manifest, &names) {
            let theirs = layer.get(dep.as_str()).copied().unwrap_or(u8::MAX);
            if theirs >= mine {
                problems.push(format!("{name} (layer {mine}) depends on {dep} (layer {theirs}): only lower layers"));
            }
        }
    }
    assert!(problems.is_empty(), "crate layering broken:\n{}", problems.join("\n"));
    let docs = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    for (name, _) in &all {
        assert!(docs.contains(name.as_str()), "docs/architecture.md does not mention {name}");
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The library code of a file: comments and the inline test module removed.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The library source files of a crate (tests excluded), relative to its `src/`.
fn library_files(src: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| {
            let rel = f.strip_prefix(src).unwrap();
            let stem = rel.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            !(stem == "tests" || stem.ends_with("_tests") || rel.iter().any(|c| c == "tests"))
        })
        .collect()
}

/// `a/b.rs` → ["a", "b"]; `a/mod.rs` → ["a"]; `lib.rs` → [].
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.with_extension("").iter().map(|c| c.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
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

/// Every module path of its own crate a file's code refers to, absolute (without
/// `crate`): paths from `crate::`, `super::`, `self::`, and paths that start with one of
/// `children` (the file's own submodules, which Rust lets it name directly).
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
    let keys: Vec<String> =
        ["crate", "super"].iter().map(|s| s.to_string()).chain(children.iter().cloned()).map(|k| k + "::").collect();
    for key in &keys {
        let key = key.as_str();
        let mut from = 0;
        while let Some(i) = code[from..].find(key) {
            let at = from + i;
            let prev = code[..at].chars().last().unwrap_or(' ');
            let before_ok = at == 0 || !(is_ident(prev) || prev == ':');
            let chars: Vec<char> = code[at..].chars().collect();
            let mut j = 0;
            while j < chars.len() && (is_ident(chars[j]) || (chars[j] == ':' && chars.get(j + 1) == Some(&':'))) {
                j += if chars[j] == ':' { 2 } else { 1 };
            }
            let end = at + chars[..j].iter().map(|c| c.len_utf8()).sum::<usize>();
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

/// A crate's module graph: module → the modules it uses (and a file that shows it).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let files: Vec<(PathBuf, Vec<String>)> = library_files(src)
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(src).unwrap().to_path_buf();
            let m = module_of(&rel);
            (rel, m)
        })
        .filter(|(rel, _)| rel != Path::new("main.rs"))
        .collect();
    let modules: BTreeSet<String> = files.iter().map(|(_, m)| m.join("::")).collect();
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, me) in &files {
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
                && !t.is_empty()
                && !name.is_empty()
            {
                edges.entry(name.clone()).or_default().entry(t).or_insert_with(|| rel.display().to_string());
            }
        }
    }
    edges
}

/// The strongly connected components with more than one module (Tarjan).
fn loops_of(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.keys().chain(edges.values().flat_map(|m| m.keys())).collect();
    let names: Vec<&String> = nodes.iter().copied().collect();
    let index_of: BTreeMap<&String, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = names
        .iter()
        .map(|n| edges.get(*n).map(|m| m.keys().map(|t| index_of[t]).collect()).unwrap_or_default())
        .collect();
    struct State {
        index: Vec<usize>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        loops: Vec<Vec<usize>>,
    }
    fn visit(v: usize, adj: &[Vec<usize>], st: &mut State) {
        st.index[v] = st.next;
        st.low[v] = st.next;
        st.next += 1;
        st.stack.push(v);
        st.on[v] = true;
        for &w in &adj[v] {
            if st.index[w] == usize::MAX {
                visit(w, adj, st);
                st.low[v] = st.low[v].min(st.low[w]);
            } else if st.on[w] {
                st.low[v] = st.low[v].min(st.index[w]);
            }
        }
        if st.low[v] == st.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = st.stack.pop() {
                st.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                st.loops.push(comp);
            }
        }
    }
    let n = names.len();
    let mut st = State {
        index: vec![usize::MAX; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: vec![],
        next: 0,
        loops: vec![],
    };
    for v in 0..n {
        if st.index[v] == usize::MAX {
            visit(v, &adj, &mut st);
        }
    }
    st.loops
        .into_iter()
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(|i| names[i].to_string()).collect();
            c.sort();
            c
        })
        .collect()
}

#[test]
fn the_parser_reads_use_trees_and_inline_paths() {
    let me = vec!["sweep".to_string(), "store".to_string()];
    let refs = references(
        "use super::plan::{self, EpisodeSpec};\nuse crate::runner::{record::X, Y};\nfn f() { crate::games::z(); super::scheduler::Y }",
        &me,
        &[],
    );
    let joined: BTreeSet<String> = refs.iter().map(|r| r.join("::")).collect();
    for want in
        ["sweep::plan", "sweep::plan::EpisodeSpec", "runner::record::X", "runner::Y", "games::z", "sweep::scheduler::Y"]
    {
        assert!(joined.contains(want), "{want} not in {joined:?}");
    }
    let mut edges = BTreeMap::new();
    edges.insert("a".to_string(), BTreeMap::from([("b".to_string(), "a.rs".to_string())]));
    edges.insert("b".to_string(), BTreeMap::from([("a".to_string(), "b.rs".to_string())]));
    assert_eq!(loops_of(&edges), vec![vec!["a".to_string(), "b".to_string()]], "the loop finder finds a loop");
}

#[test]
fn no_import_loops_between_modules_of_any_crate() {
    let mut problems = Vec::new();
    for (name, dir) in crates() {
        let edges = module_graph(&dir.join("src"));
        for comp in loops_of(&edges) {
            let detail: Vec<String> = comp
                .iter()
                .flat_map(|a| {
                    let comp = &comp;
                    edges.get(a).into_iter().flat_map(move |m| {
                        m.iter().filter(|(t, _)| comp.contains(t)).map(move |(t, f)| format!("{a} -> {t} ({f})"))
                    })
                })
                .collect();
            problems.push(format!("{name}: loop among {comp:?}: {}", detail.join("; ")));
        }
    }
    assert!(problems.is_empty(), "import loops:\n{}", problems.join("\n"));
}

#[test]
fn the_games_are_pure() {
    let banned = ["std::fs", "std::net", "tokio", "reqwest", "Instant::now", "SystemTime", "std::env::var", "async fn"];
    let mut problems = Vec::new();
    for game in GAMES {
        let src = root().join(game).join("src");
        for f in library_files(&src) {
            let code = code_of(&std::fs::read_to_string(&f).unwrap());
            for b in banned {
                if code.contains(b) {
                    problems.push(format!("{}: uses {b}", f.display()));
                }
            }
        }
        let manifest = std::fs::read_to_string(root().join(game).join("Cargo.toml")).unwrap();
        // The library's own dependencies (tests may use more).
        let deps = manifest.split("[dependencies]").nth(1).unwrap_or("").split("\n[").next().unwrap_or("");
        for dep in ["tokio", "reqwest", "async-trait", "axum"] {
            assert!(!deps.contains(&format!("\n{dep} ")), "{game} depends on {dep}");
        }
    }
    assert!(problems.is_empty(), "impure game code:\n{}", problems.join("\n"));
}

#[test]
fn library_crates_use_typed_errors_and_document_everything() {
    let mut problems = Vec::new();
    for (name, dir) in crates().into_iter().filter(|(n, _)| n != "proagent" && n != "proagent-py") {
        let src = dir.join("src");
        let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
        if !lib.contains("#![warn(missing_docs)]") {
            problems.push(format!("{name}: lib.rs lacks #![warn(missing_docs)]"));
        }
        for f in library_files(&src) {
            let code = code_of(&std::fs::read_to_string(&f).unwrap());
            if code.contains("anyhow") {
                problems.push(format!("{}: anyhow in a library crate (thiserror enums there)", f.display()));
            }
            let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
            let returns_string_error = squeezed.split("->Result<").skip(1).any(|r| {
                r.split(['{', ';']).next().unwrap_or("").trim_end_matches("whereSelf:Sized").ends_with(",String>")
            });
            if returns_string_error {
                problems.push(format!("{}: a function returns Result<_, String>", f.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_binary_stays_thin() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let lines: usize = files.iter().map(|f| std::fs::read_to_string(f).unwrap().lines().count()).sum();
    assert!(
        lines <= MAX_SRC_LINES,
        "src/ holds {lines} lines of Rust (at most {MAX_SRC_LINES}): move run logic into a library crate"
    );
}
