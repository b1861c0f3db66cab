//! End-to-end checks of `proagent analyze` on the reference fixtures and on a made-up
//! file in the human-data format (gzipped, as the real files are).

use flate2::Compression;
use flate2::write::GzEncoder;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    crate::support::bin()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces").join(name)
}

fn lines_json(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn json_report_per_trajectory_of_a_trace_file() {
    let out = bin().args(["analyze", "--json"]).arg(fixture("forced_coordination.jsonl")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = lines_json(&out.stdout);
    assert_eq!(v.len(), 3);
    for r in &v {
        for k in ["trajectory", "deliveries", "constructive", "non_constructive", "players", "links", "pot_links"] {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
        for p in r["players"].as_array().unwrap() {
            assert!(p["triggered"].is_u64() && p["accepted"].is_u64(), "{p}");
        }
        assert_eq!(r["kind"], "reference trace");
    }
    let scripted = &v[1];
    assert!(scripted["trajectory"].as_str().unwrap().contains("scripted_eps"));
    assert_eq!(scripted["deliveries"], 11);
    assert!(scripted["constructive"].as_u64().unwrap() > 0);
    assert!(scripted.get("interdependencies").is_none());
    // --detail lists each interdependence.
    let out = bin().args(["analyze", "--json", "--detail"]).arg(fixture("forced_coordination.jsonl")).output().unwrap();
    let v = lines_json(&out.stdout);
    let list = v[1]["interdependencies"].as_array().unwrap();
    let total = v[1]["constructive"].as_u64().unwrap() + v[1]["non_constructive"].as_u64().unwrap();
    assert_eq!(list.len() as u64, total);
    assert!(list.iter().all(|d| d["giver"] != d["receiver"]));
}

const HUMAN: &str = r#"{"trial":"hh_a","layout":"random0","t":0,"players":[{"pos":[3,1],"dir":"NORTH","held":null},{"pos":[1,2],"dir":"EAST","held":{"name":"onion"}}],"objects":[],"actions":["SOUTH","INTERACT"],"reward":0,"score":0}
{"trial":"hh_a","layout":"random0","t":1,"players":[{"pos":[3,2],"dir":"SOUTH","held":null},{"pos":[1,2],"dir":"EAST","held":null}],"objects":[{"pos":[2,2],"name":"onion"}],"actions":["WEST","STAY"],"reward":0,"score":0}
{"trial":"hh_a","layout":"random0","t":2,"players":[{"pos":[3,2],"dir":"WEST","held":null},{"pos":[1,2],"dir":"EAST","held":null}],"objects":[{"pos":[2,2],"name":"onion"}],"actions":["INTERACT","STAY"],"reward":0,"score":0}
{"trial":"hh_b","layout":"cramped_room","t":0,"players":[{"pos":[1,2],"dir":"NORTH","held":null},{"pos":[3,1],"dir":"NORTH","held":null}],"objects":[],"actions":["STAY","STAY"],"reward":0,"score":0}
"#;

fn gz(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    std::fs::write(&path, e.finish().unwrap()).unwrap();
    path
}

#[test]
fn gzipped_human_games_are_split_by_trial() {
    let dir = tempfile::tempdir().unwrap();
    let path = gz(dir.path(), "games.jsonl.gz", HUMAN);
    let out = bin().args(["analyze", "--json"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = lines_json(&out.stdout);
    assert_eq!(v.len(), 2);
    assert_eq!((v[0]["trajectory"].as_str(), v[0]["layout"].as_str()), (Some("hh_a"), Some("forced_coordination")));
    assert_eq!(v[0]["kind"], "human games");
    // Left player's onion over the counter, picked up by the right player: one link, not
    // goal-reaching (nothing is served).
    assert_eq!((v[0]["constructive"].as_u64(), v[0]["non_constructive"].as_u64()), (Some(0), Some(1)));
    assert_eq!((v[0]["players"][1]["triggered"].as_u64(), v[0]["players"][1]["accepted"].as_u64()), (Some(1), Some(1)));
    assert_eq!(v[1]["steps"], 1);
    // Text and summary modes.
    let out = bin().arg("analyze").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("hh_a: 3 steps, 0 soups, constructive 0, non-constructive 1"), "{text}");
    let out = bin().args(["analyze", "--summary", "--json"]).arg(&path).output().unwrap();
    let v = lines_json(&out.stdout);
    assert_eq!(v.len(), 2);
    assert_eq!((v[0]["layout"].as_str(), v[0]["without_delivery"].as_u64()), (Some("forced_coordination"), Some(1)));
    assert!(v[0]["constructive_per_soup"].is_null());
}

#[test]
fn bad_input_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = HUMAN.replacen("\"t\":2", "\"t\":7", 1);
    let path = gz(dir.path(), "bad.jsonl.gz", &bad);
    let out = bin().arg("analyze").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl.gz") && err.contains("line 3"), "{err}");
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, "{\"hello\": 1}\n").unwrap();
    let out = bin().arg("analyze").arg(&other).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognised record"));
    let out = bin().arg("analyze").arg(dir.path().join("missing.jsonl")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.jsonl"));
}
