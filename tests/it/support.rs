//! What every CLI test shares: the binary, started in a scratch working directory, so
//! that whatever it writes by default (`transcripts/`, `qa` transcripts, ...) never lands
//! in the repository. The directory is per test process, under cargo's
//! `CARGO_TARGET_TMPDIR` (inside the target directory, removed by `cargo clean`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

/// The scratch working directory of this test process (created on first use; those of
/// earlier runs are removed).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let mine = format!("cli-cwd-{}", std::process::id());
        if let Ok(entries) = std::fs::read_dir(root) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let stale = e.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
                if name.starts_with("cli-cwd-") && name != mine && stale.is_some_and(|a| a.as_secs() > 3600) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let dir = root.join(mine);
        std::fs::create_dir_all(&dir).expect("creating the scratch working directory");
        dir
    })
}

/// The `proagent` binary, to run in [`scratch`], with no model server or key from the
/// environment (each test decides those).
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_proagent"));
    c.current_dir(scratch()).env_remove("OPENAI_API_KEY").env_remove("OPENAI_BASE_URL").env_remove("RUST_LOG");
    c
}

/// `python3 scripts/NAME` of this repository, run in [`scratch`] like [`bin`].
pub fn script(name: &str) -> Command {
    let mut c = Command::new("python3");
    c.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(name)).current_dir(scratch());
    c
}

#[test]
fn cli_tests_start_the_binary_only_through_support() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "support.rs" || !name.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        assert!(
            !text.contains("Command::new(env!(\"CARGO_BIN_EXE_proagent\"))"),
            "{name} starts the binary itself; use support::bin(), which runs it outside the repository"
        );
    }
}

/// Makes a FIFO at `path` that no writer ever opens (to check that readers refuse it
/// rather than wait on it).
pub fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(st.success(), "mkfifo {}", path.display());
}

/// A command's output bytes as text (lossy: tests print whatever came).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The stdout of a command that must have succeeded; on failure the panic shows the exit
/// status, stdout and stderr.
pub fn ok(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}\n{}\n{}", out.status.code(), text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

/// Runs `cmd` to its end off the async runtime (tests that serve a model in-process must
/// not block the runtime's thread while the binary talks to it).
pub async fn run(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("run proagent")).await.expect("join the command's thread")
}

/// The first JSON line on the stdout of a successful run (`play --json` prints one per
/// episode).
pub fn json_line(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), text(&o.stderr));
    let out = text(&o.stdout);
    let line = out.lines().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no JSON line: {out}"));
    serde_json::from_str(line).expect("a JSON line")
}

/// Starts `proagent mock-server` on a free loopback port with `extra` flags; returns the
/// process and its base URL (`http://127.0.0.1:PORT/v1`). The caller stops the process
/// (or holds a [`Mock`], which does on drop).
pub fn mock_server(extra: &[&str]) -> (Child, String) {
    let mut child = bin()
        .args(["mock-server", "--addr", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start proagent mock-server");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("the mock server's stdout");
    BufReader::new(stdout).read_line(&mut line).expect("the mock server's first line");
    let addr = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("{line:?}")).to_string();
    (child, format!("{addr}/v1"))
}

/// A running `proagent mock-server` (see [`mock_server`]); killed on drop.
pub struct Mock {
    child: Child,
    /// Its base URL, for `--base-url`.
    pub url: String,
}

impl Mock {
    /// Starts one with these extra flags.
    pub fn start(extra: &[&str]) -> Mock {
        let (child, url) = mock_server(extra);
        Mock { child, url }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
