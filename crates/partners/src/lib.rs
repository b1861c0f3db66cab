//! Partners: the scripted, greedy, random, stay, courier and BC policies that
//! sit in the other seat (or in either seat).
//!
//! Every partner implements [`proagent_core::seat::Agent`], is seeded through
//! `Agent::reset`, and is deterministic for a given seed. Turning a spec from
//! the command line into an agent is the runner's job (`runner::seats`).

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod basic;
pub mod bc;
pub mod collab;
pub mod courier;
pub mod greedy;
pub mod hanabi;
pub mod lever;
pub mod rl;
pub mod scripted;
pub mod v2;

/// The shipped model files under `data_dir` (a source tree's `data/`) whose weights differ
/// from the copies compiled into this build, each with the partner-spec prefix that plays
/// the file itself (`rl` or `bc`): after re-training one into `data/rl/` or `data/bc/`, the
/// names `sp`, `fcp`, `bc`, … keep playing the compiled copy until a rebuild. A file that is
/// absent or unreadable is not listed: an installed binary has no source tree beside it.
/// Files are read through the bounded reader, so a FIFO or a device there is passed over
/// instead of holding up every command at its start.
pub fn stale_shipped(data_dir: &std::path::Path) -> Vec<(std::path::PathBuf, &'static str)> {
    shipped_files(data_dir)
        .into_iter()
        .filter_map(|(path, kind, weights)| {
            match proagent_core::limits::read_file(&path, proagent_core::limits::MAX_WEIGHTS_BYTES, "model files") {
                Ok(bytes) if bytes != weights => Some((path, kind)),
                _ => None,
            }
        })
        .collect()
}

/// Where each compiled-in model's file sits under a source tree's `data/`, its spec prefix,
/// and its bytes.
fn shipped_files(data_dir: &std::path::Path) -> Vec<(std::path::PathBuf, &'static str, &'static [u8])> {
    let rl = rl::model::SHIPPED.iter().map(|m| {
        let sub = if m.game == "overcooked" { data_dir.join("rl") } else { data_dir.join("rl").join("v2") };
        (sub.join(format!("{}.safetensors", m.file)), "rl", m.weights)
    });
    let bc = bc::SHIPPED.iter().map(|m| (data_dir.join("bc").join(format!("{}.safetensors", m.file)), "bc", m.weights));
    rl.chain(bc).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shipped_file_that_differs_from_the_compiled_copy_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        assert!(stale_shipped(dir.path()).is_empty(), "no source tree: nothing to compare");
        let rl = dir.path().join("rl");
        std::fs::create_dir_all(rl.join("v2")).unwrap();
        std::fs::create_dir_all(dir.path().join("bc")).unwrap();
        let sp = &rl::model::SHIPPED[0];
        std::fs::write(rl.join(format!("{}.safetensors", sp.file)), sp.weights).unwrap();
        assert!(stale_shipped(dir.path()).is_empty(), "the same bytes are not stale");
        let mut changed = sp.weights.to_vec();
        *changed.last_mut().unwrap() ^= 1;
        std::fs::write(rl.join(format!("{}.safetensors", sp.file)), &changed).unwrap();
        let v2 = rl::model::SHIPPED.iter().find(|m| m.game != "overcooked").unwrap();
        std::fs::write(rl.join("v2").join(format!("{}.safetensors", v2.file)), b"other").unwrap();
        let b = &bc::SHIPPED[0];
        std::fs::write(dir.path().join("bc").join(format!("{}.safetensors", b.file)), b"other").unwrap();
        let stale = stale_shipped(dir.path());
        assert_eq!(
            stale,
            vec![
                (rl.join(format!("{}.safetensors", sp.file)), "rl"),
                (rl.join("v2").join(format!("{}.safetensors", v2.file)), "rl"),
                (dir.path().join("bc").join(format!("{}.safetensors", b.file)), "bc"),
            ]
        );
    }

    #[test]
    fn every_compiled_in_model_is_found_where_the_source_tree_keeps_it() {
        // A wrong path would make stale_shipped skip the file silently.
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
        let files = shipped_files(&data);
        assert_eq!(files.len(), rl::model::SHIPPED.len() + bc::SHIPPED.len());
        for (path, _, weights) in files {
            assert_eq!(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())), weights);
        }
    }
}
