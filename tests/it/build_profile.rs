//! The cold build's hand-kept lists, recomputed from Cargo's own view of the graph
//! (`cargo tree` for this machine's target, offline) so a new dependency cannot quietly
//! slow the set-up again (docs/results.md, "Build time"):
//! - every crate that only runs while compiling (a proc macro, a build script, or what only
//!   they use) and every crate used only by the cold-path stacks ([`COLD_ROOTS`]) is named
//!   at `opt-level = 0` in `Cargo.toml`'s `[profile.dev.package]`, whose `"*"` entry would
//!   otherwise optimise it; every crate named there is still in `Cargo.lock`;
//! - the test command and the Python wheel build every dependency they share with the
//!   README's main job with the same features, so they reuse its compiled crates
//!   (`python/Cargo.toml` asks for the root package's features for that).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

/// The cold-path stacks the `dev` profile builds unoptimised with everything only they use:
/// candle (BC training, the candle side of `bench rl`) and the PNG/PDF figure backends.
const COLD_ROOTS: &[&str] = &["candle-core", "candle-nn", "resvg", "svg2pdf"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo tree` over `args`, for this machine's target: package ("name vX.Y.Z") → the
/// feature lists it is built with (more than one when host and target builds differ).
fn tree(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["tree", "--locked", "--offline", "--prefix", "none", "--format", "{p}|{f}"])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo tree {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let line = line.strip_suffix(" (*)").unwrap_or(line);
        let Some((pkg, features)) = line.split_once('|') else { continue };
        // "name v1.2.3 (/path)" for workspace crates: the name and version are enough.
        let pkg = pkg.split(" (").next().unwrap_or(pkg).to_string();
        map.entry(pkg).or_default().insert(features.to_string());
    }
    assert!(map.len() > 100, "cargo tree {args:?} listed only {} packages", map.len());
    map
}

fn names(map: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    map.keys().map(|p| p.split(' ').next().unwrap_or(p).to_string()).collect()
}

/// The `[profile.dev.package]` table of the root manifest: crate name → its opt-level.
fn profile_table() -> BTreeMap<String, String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let mut table = BTreeMap::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[profile.dev.package]";
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, value) = line.split_once('=').unwrap_or_else(|| panic!("Cargo.toml: cannot read {line:?}"));
        let level = value
            .split("opt-level")
            .nth(1)
            .and_then(|r| r.trim_start_matches([' ', '=']).split([',', ' ', '}']).next())
            .unwrap_or_else(|| panic!("Cargo.toml: no opt-level in {line:?}"));
        table.insert(name.trim().trim_matches('"').to_string(), level.to_string());
    }
    assert!(table.contains_key("*"), "Cargo.toml has no [profile.dev.package] \"*\" entry");
    table
}

#[test]
fn compile_time_only_and_cold_path_crates_are_built_unoptimised() {
    let all = names(&tree(&["--workspace", "-e", "normal,build,dev"]));
    // What ends up in a binary, a test or the wheel: no build scripts' and no proc macros'
    // dependencies (a proc macro itself runs only in the compiler, so it is left out too).
    let target_edges = ["--workspace", "-e", "normal,dev,no-proc-macro"];
    let target = names(&tree(&target_edges));
    let mut pruned_args: Vec<&str> = target_edges.to_vec();
    for root in COLD_ROOTS {
        pruned_args.extend(["--prune", root]);
    }
    let without_cold = names(&tree(&pruned_args));
    let table = profile_table();
    for (what, set) in [
        ("only run while compiling", all.difference(&target).collect::<BTreeSet<_>>()),
        ("are used only by the cold-path stacks", target.difference(&without_cold).collect()),
    ] {
        let missing: Vec<&String> = set.into_iter().filter(|n| table.get(*n).is_none_or(|lvl| lvl != "0")).collect();
        assert!(
            missing.is_empty(),
            "these crates {what} but Cargo.toml's [profile.dev.package] would build them optimised; \
             add `NAME = {{ opt-level = 0 }}` for each: {missing:?}"
        );
    }
    // Other platforms' crates are in the lock file but not in this machine's tree.
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let locked: BTreeSet<&str> = lock.lines().filter_map(|l| l.strip_prefix("name = \"")?.strip_suffix('"')).collect();
    let stale: Vec<&String> = table.keys().filter(|n| *n != "*" && !locked.contains(n.as_str())).collect();
    assert!(stale.is_empty(), "Cargo.toml's [profile.dev.package] names crates not in Cargo.lock: {stale:?}");
}

#[test]
fn the_tests_and_the_wheel_reuse_the_main_jobs_compiled_dependencies() {
    let main_job = tree(&["-p", "proagent", "-e", "normal,build"]);
    for (what, other, fix) in [
        (
            "`cargo test` (every default member, with dev-dependencies)",
            tree(&["-e", "normal,build,dev"]),
            "a dev-dependency turns on more features: ask for them in the main job's dependencies too",
        ),
        (
            "the Python wheel (`proagent-py`)",
            tree(&["-p", "proagent-py", "-e", "normal,build"]),
            "ask python/Cargo.toml for the same features as the root package",
        ),
    ] {
        let differ: Vec<String> = main_job
            .iter()
            .filter_map(|(pkg, features)| {
                let theirs = other.get(pkg)?;
                (theirs != features).then(|| format!("{pkg}: main job {features:?}, here {theirs:?}"))
            })
            .collect();
        assert!(
            differ.is_empty(),
            "{what} builds shared dependencies with other features ({fix}):\n{}",
            differ.join("\n")
        );
    }
}
