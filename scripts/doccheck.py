#!/usr/bin/env python3
"""Run every documented shell command of README.md and docs/*.md; fail on errors or stale figures.

Each fenced ```sh / ```bash / ```console block is split into commands (continuation lines
and multi-line `for` loops joined; `bash -n` decides where a command ends). The commands
of README.md, then of each docs page, run in order in one scratch copy of the repository
(as one reader working through the docs in one directory would) (the files
git knows, as they are in the work tree), with the built `proagent` first on PATH and an
OpenAI-compatible mock server (`proagent mock-server`) as $OPENAI_BASE_URL, so commands
that name a served model (`--model gpt-4o`) reach the mock, never the network. A
`--base-url http://127.0.0.1:PORT/v1` the file does not start a mock server on itself
gets one from the checker for the file's duration.

Marker comments (HTML comments, so they do not show on GitHub), on the lines just before
a block's opening fence (several may be stacked):

    <!-- doccheck: skip (reason) -->              the whole block is not run
    <!-- doccheck: skip-line "TEXT" (reason) -->  commands of the block containing TEXT are not run
    proagent replay run.jsonl   # prints: TEXT   a trailing comment `# prints:` quotes the output
    <!-- doccheck: output -->                     before a ```text block: the text quotes the
                                                  output of the last command run before it;
                                                  before a ```sh block: the full-line comments
                                                  right after a command quote its output

A quoted output may elide parts with `...`; each remaining piece must appear in the
command's output (stdout and stderr), whitespace aside, with the same numbers.

Commands ending in `&`, and `proagent serve` / `proagent mock-server` (which never exit),
run in the background: the checker waits for their `--addr` port to listen, and stops
them when the file's commands are done (a server written without `&` is stopped as soon as it
listens: it is one of several ways to start one). `cargo run --locked -- ARGS` runs as
`proagent ARGS` (the binary CI just built from the same sources).

With `--jobs N` the pages are split into N groups that run at once, each in its own
scratch copy (pages that name the same loopback port share a group; a page's weight is
its count of commands, an `eval`/`bench`/`train` command counting ten), so a group
never sees files an earlier page of another group wrote.

Usage: scripts/doccheck.py [--bin target/debug/proagent] [FILE.md ...] [--list] [--keep] [--jobs N]
Exit status 0 when nothing failed, 1 otherwise. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHELL_LANGS = {"sh", "bash", "console", "shell"}
MARKER = re.compile(r"^\s*<!--\s*doccheck:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```\s*([\w+-]*)")
PRINTS = re.compile(r"\s#\s*prints:\s*(.+)$")  # a trailing comment quoting the output
NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")


@dataclass
class Command:
    """One shell command of a block, with where it is in the Markdown file."""

    file: str
    line: int
    text: str
    skip: str | None = None  # the reason, if not run


@dataclass
class Expect:
    """A quoted output: the text of a marked ```text block, after some command."""

    file: str
    line: int
    text: str
    table: bool = False  # a Markdown table: rows matched by their first cell


@dataclass
class Result:
    cmd: Command
    status: str  # ok, fail, skip
    detail: str = ""
    seconds: float = 0.0


@dataclass
class DocFile:
    path: str
    items: list = field(default_factory=list)  # Command | Expect, in file order
    problems: list = field(default_factory=list)  # (line, message): Markdown defects


def parse_markers(lines: list[str], fence_index: int) -> list[str]:
    """The doccheck markers on the lines just before a fence (blank lines allowed between)."""
    out = []
    i = fence_index - 1
    while i >= 0:
        s = lines[i].strip()
        if not s:
            i -= 1
            continue
        m = MARKER.match(lines[i])
        if not m:
            break
        out.append((i + 1, m.group(1)))
        i -= 1
    return list(reversed(out))


def split_commands(body: list[tuple[int, str]]) -> list[tuple[int, str, list[str]]]:
    """Split a block's lines into complete shell commands.

    Each is (line number of its first line, text, the full-line comments right after it).
    """
    cmds = []
    cur: list[str] = []
    start = 0
    for lineno, raw in body:
        line = raw.rstrip()
        if not cur:
            stripped = line.strip()
            if stripped.startswith("#"):
                if cmds and cmds[-1][0] is not None and lineno == cmds[-1][3] + 1:
                    cmds[-1][2].append(stripped[1:].strip())
                    cmds[-1][3] = lineno
                continue
            if not stripped:
                continue
            if stripped.startswith("$ "):  # console prompt
                line = stripped[2:]
            start = lineno
        cur.append(line)
        if line.endswith("\\"):
            continue
        text = "\n".join(cur)
        ok = subprocess.run(["bash", "-n", "-c", text], capture_output=True).returncode == 0
        if ok:
            cmds.append([start, text, [], lineno])
            cur = []
    if cur:
        cmds.append([start, "\n".join(cur), [], 0])  # incomplete: bash will say why
    return [(c[0], c[1], c[2]) for c in cmds]


def console_split(body: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], dict[int, str]]:
    """A ```console block: `$ ` lines (and their `\\` continuations) are commands, the lines
    after one are its output. Returns the command lines and {command line: output}."""
    cmds: list[tuple[int, str]] = []
    output: dict[int, list[str]] = {}
    current = None
    continued = False
    for lineno, line in body:
        if line.startswith("$ ") or continued:
            if not continued:
                current = lineno
                output[current] = []
            cmds.append((lineno, line[2:] if line.startswith("$ ") and not continued else line))
            continued = line.rstrip().endswith("\\")
        elif current is not None and line.strip():
            output[current].append(line)
    return cmds, {k: "\n".join(v) for k, v in output.items() if v}


def parse_file(path: Path) -> DocFile:
    rel = str(path.relative_to(REPO))
    lines = path.read_text(encoding="utf-8").split("\n")
    doc = DocFile(rel)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].startswith("|") and any(t == "output" for _, t in parse_markers(lines, i)):
                j = i
                while j < len(lines) and lines[j].startswith("|"):
                    j += 1
                doc.items.append(Expect(rel, i + 1, "\n".join(lines[i:j]), table=True))
                i = j
                continue
            i += 1
            continue
        indent, lang = m.group(1), m.group(2).lower()
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        body = [(k + 1, lines[k][len(indent):] if lines[k].startswith(indent) else lines[k]) for k in range(i + 1, j)]
        markers = parse_markers(lines, i)
        if not lang:
            doc.problems.append((i + 1, "a fence with no language: use ```sh for commands, ```text for output"))
        if lang in SHELL_LANGS:
            block_skip = None
            line_skips = []
            comments_are_output = False
            for mline, mtext in markers:
                if mtext == "output":
                    comments_are_output = True
                    continue
                mm = re.match(r'^skip-line\s+"([^"]+)"\s*\((.+)\)$', mtext)
                if mm:
                    line_skips.append((mm.group(1), mm.group(2)))
                    continue
                mm = re.match(r"^skip\s*\((.+)\)$", mtext)
                if mm:
                    block_skip = mm.group(1)
                    continue
                raise SystemExit(f"{rel}:{mline}: unknown doccheck marker: {mtext!r}")
            if lang == "console":
                body, console_output = console_split(body)
            else:
                console_output = {}
            for lineno, text, comments in split_commands(body):
                reason = block_skip
                for needle, why in line_skips:
                    if reason is None and needle in text:
                        reason = why
                doc.items.append(Command(rel, lineno, text, reason))
                prints = PRINTS.search(text.split("\n")[-1])
                if prints and reason is None:
                    doc.items.append(Expect(rel, lineno + text.count("\n"), prints.group(1)))
                quoted = console_output.get(lineno)
                if quoted and reason is None:
                    doc.items.append(Expect(rel, lineno + 1, quoted))
                if comments_are_output and comments and reason is None:
                    doc.items.append(Expect(rel, lineno + 1, "\n".join(comments)))
        elif any(t == "output" for _, t in markers):
            doc.items.append(Expect(rel, i + 1, "\n".join(t for _, t in body)))
        elif markers:
            raise SystemExit(f"{rel}:{markers[0][0]}: doccheck marker before a ```{lang} block")
        i = j + 1
    return doc


# ---- running ---------------------------------------------------------------------------


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.3):
            return True
    except OSError:
        return False


def wait_port(host: str, port: int, proc: subprocess.Popen, seconds: float) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        if port_open(host, port):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.1)
    return False


def stop(proc: subprocess.Popen) -> None:
    """Stop a process started in its own session, and everything it started (its group)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=5)
        time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)  # children that outlived the shell
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_mock(binary: str, addr: str, log: Path) -> tuple[subprocess.Popen, str] | None:
    """Start `proagent mock-server --addr ADDR`; return it and the address it listens on."""
    out = open(log, "w")
    proc = subprocess.Popen(
        [binary, "mock-server", "--addr", addr],
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    end = time.time() + 15
    while time.time() < end:
        text = log.read_text()
        m = re.search(r"listening on http://([\d.]+):(\d+)", text)
        if m:
            return proc, f"{m.group(1)}:{m.group(2)}"
        if proc.poll() is not None:
            return None
        time.sleep(0.05)
    stop(proc)
    return None


def copy_repo(dest: Path) -> None:
    """Copy the files git knows (as in the work tree, plus new unignored ones) to dest."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        rel = f.decode()
        src = REPO / rel
        if not src.is_file():
            continue  # deleted in the work tree
        dst = dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def cells(row: str) -> list[str]:
    """A Markdown table row's cells, without emphasis and footnote marks."""
    out = []
    for c in row.strip().strip("|").split("|"):
        c = re.sub(r"\*\*|[†‡§¶]|\\\*", "", c)
        out.append(" ".join(c.split()))
    return out


def compare_table(expect: Expect, output: str) -> str | None:
    """None if each quoted row's cells are among the cells of a printed row with the same first cell."""
    printed = [cells(l) for l in output.split("\n") if l.strip().startswith("|")]
    problems = []
    for row in expect.text.split("\n"):
        quoted = cells(row)
        if all(re.fullmatch(r":?-+:?", c) for c in quoted):
            continue
        candidates = [p for p in printed if p and p[0] == quoted[0]]
        if not candidates:
            problems.append(f"no printed row for {quoted[0]!r}")
            continue
        best = min(candidates, key=lambda p: sum(c not in p for c in quoted))
        missing = [c for c in quoted[1:] if c not in best]
        if missing:
            problems.append(f"row {quoted[0]!r}: quoted " + ", ".join(repr(c) for c in missing) + f", printed {' | '.join(best[1:])}")
    return "; ".join(problems) or None


def compare_output(expect: Expect, output: str) -> str | None:
    """None if every piece of the quoted text is in the output with the same figures."""
    if expect.table:
        return compare_table(expect, output)
    problems = []
    flat = " ".join(output.split())
    # Each quoted line is a piece of its own (a line that starts with spaces continues the
    # one before it, as a wrapped output line); `...` leaves something out within a line.
    lines: list[str] = []
    for line in expect.text.split("\n"):
        if lines and line[:1].isspace():
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    pieces = [p for line in lines for p in re.split(r"\.\.\.|…", line)]
    for piece in pieces:
        piece = " ".join(piece.split()).strip(" ,")
        if not piece or not re.search(r"\w", piece):
            continue
        # Numbers become wildcards; everything else must match (whitespace-insensitive).
        parts = []
        last = 0
        numbers = []
        for m in NUMBER.finditer(piece):
            parts.append(re.escape(piece[last : m.start()]))
            parts.append(r"(-?\d+(?:[.,]\d+)*)")
            numbers.append(m.group(0))
            last = m.end()
        parts.append(re.escape(piece[last:]))
        pattern = "".join(parts).replace(r"\ ", r"\s*")
        found = None
        for m in re.finditer(pattern, flat):
            if list(m.groups()) == numbers:
                found = m
                break
            found = found or m
        if found is None:
            problems.append(f"quoted text not in the output: {piece!r}")
        elif list(found.groups()) != numbers:
            diffs = [f"{e} (printed {g})" for e, g in zip(numbers, found.groups()) if e != g]
            problems.append(f"figures differ in {piece!r}: quoted " + ", ".join(diffs))
    return "; ".join(problems) or None


BACKGROUND = re.compile(r"(?<![&|])&\s*(?:#.*)?$")  # a trailing `&` (not `&&`), comment allowed
SERVER = re.compile(r"^\s*(?:\S+=\S+\s+)*proagent\s+(serve|mock-server)\b")


def server_addr(text: str) -> tuple[str, int] | None:
    m = re.search(r"--addr[ =](\S+):(\d+)", text)
    if m:
        return m.group(1), int(m.group(2))
    if re.search(r"\bproagent\s+serve\b", text):
        return "127.0.0.1", 8080
    return None


def run_file(doc: DocFile, binary: Path, work: Path, scratch_root: Path, timeout: float, log) -> list[Result]:
    """Run one file's commands in order in `work` (shared by all files, as one reader's directory)."""
    results: list[Result] = []
    cmds = [c for c in doc.items if isinstance(c, Command)]
    if not any(c.skip is None for c in cmds):
        return [Result(c, "skip", c.skip or "") for c in cmds]
    tag = doc.path.replace("/", "_").replace(".md", "")
    env = dict(os.environ)
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RUST_LOG"):
        env.pop(k, None)
    env["PATH"] = f"{binary.parent}{os.pathsep}{env['PATH']}"
    env["NO_COLOR"] = "1"
    background: list[subprocess.Popen] = []
    mock = start_mock(str(binary), "127.0.0.1:0", scratch_root / f"{tag}.mock.log")
    if mock is None:
        raise SystemExit("doccheck: `proagent mock-server` did not start")
    background.append(mock[0])
    env["OPENAI_BASE_URL"] = f"http://{mock[1]}/v1"
    # Loopback --base-url ports the file uses but does not serve itself get a mock too.
    runnable = [c.text for c in cmds if c.skip is None]
    own = {p for t in runnable for p in re.findall(r"mock-server\b.*--addr[ =]127\.0\.0\.1:(\d+)", t)}
    used = {p for t in runnable for p in re.findall(r"--base-url[ =]http://127\.0\.0\.1:(\d+)", t)}
    for port in sorted(used - own):
        extra = start_mock(str(binary), f"127.0.0.1:{port}", scratch_root / f"{tag}.mock{port}.log")
        if extra is None:
            log(f"  note: could not start a mock server on 127.0.0.1:{port} (port busy?)")
        else:
            background.append(extra[0])
    prelude: list[str] = []  # variable assignments of earlier commands
    last_output = None
    last_cmd = None
    try:
        for item in doc.items:
            if isinstance(item, Expect):
                if last_cmd is None or last_output is None:
                    results.append(
                        Result(
                            Command(item.file, item.line, "(quoted output)"),
                            "fail",
                            "a doccheck output block with no command run before it",
                        )
                    )
                    continue
                problem = compare_output(item, last_output)
                quote = Command(item.file, item.line, f"output of line {last_cmd.line}")
                results.append(Result(quote, "fail", problem) if problem else Result(quote, "quote"))
                continue
            cmd = item
            if cmd.skip is not None:
                results.append(Result(cmd, "skip", cmd.skip))
                continue
            text = cmd.text
            text = re.sub(r"^cargo run --locked(?: -q)? --\s", "proagent ", text)
            if re.fullmatch(r"(?:export\s+)?[A-Za-z_]\w*=\S*", text.strip()):
                prelude.append(text.strip())
            script = "set -o pipefail\n" + "\n".join(prelude + [text]) + "\n"
            amp = BACKGROUND.search(text)
            is_bg = bool(amp) or bool(SERVER.match(text))
            start = time.time()
            addr = server_addr(text) if is_bg else None
            if addr and port_open(*addr):
                results.append(Result(cmd, "fail", f"another process already listens on {addr[0]}:{addr[1]}: stop it and re-run"))
                log(f"  fail {cmd.file}:{cmd.line} (server) {first_line(cmd.text)}: port taken")
                last_cmd, last_output = cmd, None
                continue
            if is_bg:
                fg_text = text[: amp.start()] if amp else text
                script_bg = "set -o pipefail\n" + "\n".join(prelude + [fg_text.strip()]) + "\n"
                bg_log = open(scratch_root / f"{tag}.bg{cmd.line}.log", "w")
                proc = subprocess.Popen(
                    ["bash", "-c", script_bg],
                    cwd=work,
                    env=env,
                    stdout=bg_log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                background.append(proc)
                if not amp:
                    background.remove(proc)  # a server run in the foreground: check it starts, then stop it
                if addr and not wait_port(addr[0], addr[1], proc, 20):
                    out = (scratch_root / f"{tag}.bg{cmd.line}.log").read_text()[-2000:]
                    results.append(Result(cmd, "fail", f"server did not listen on {addr[0]}:{addr[1]}:\n{out}", time.time() - start))
                else:
                    time.sleep(0.2)
                    if proc.poll() not in (None, 0):
                        out = (scratch_root / f"{tag}.bg{cmd.line}.log").read_text()[-2000:]
                        results.append(Result(cmd, "fail", f"exit status {proc.returncode}:\n{out}", time.time() - start))
                    else:
                        results.append(Result(cmd, "ok", "in the background", time.time() - start))
                if proc not in background:
                    stop(proc)
                log(f"  {results[-1].status:4} {cmd.file}:{cmd.line} (server) {first_line(cmd.text)}")
                last_cmd, last_output = cmd, (scratch_root / f"{tag}.bg{cmd.line}.log").read_text()
                continue
            p = subprocess.Popen(
                ["bash", "-c", script],
                cwd=work,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                raw, _ = p.communicate(timeout=timeout)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                stop(p)  # the whole group: the shell and what it started
                raw, _ = p.communicate()
                rc = None
            output = raw.decode("utf-8", "replace")
            secs = time.time() - start
            last_cmd, last_output = cmd, output
            if rc is None:
                results.append(Result(cmd, "fail", f"timed out after {timeout:.0f} s:\n{tail(output)}", secs))
            elif rc != 0:
                results.append(Result(cmd, "fail", f"exit status {rc}:\n{tail(output)}", secs))
            else:
                results.append(Result(cmd, "ok", "", secs))
            log(f"  {results[-1].status:4} {cmd.file}:{cmd.line} ({secs:.1f} s) {first_line(cmd.text)}")
    finally:
        for proc in background:
            stop(proc)
    return results


def self_test() -> None:
    """The checks themselves: run before every check, so a broken comparison cannot pass docs."""
    out = (
        '{"agent":"proagent[scripted]","deliveries":12,"fallbacks":0,"score":240}\n'
        "PASS a.jsonl:1 (51 moves, 52 states\n37 passed, 0 failed (1415 states matched)\n"
        "| layout | x | y |\n|---|---|---|\n| cramped_room | 228.0 (220–240) | 7 |\n"
    )
    ok = Expect("t", 1, '{"agent":"proagent[scripted]", ..., "deliveries":12, ..., "score":240, ...}')
    assert compare_output(ok, out) is None
    bad = Expect("t", 1, '{"agent":"proagent[scripted]", ..., "deliveries":13, ...}')
    assert "quoted 13 (printed 12)" in (compare_output(bad, out) or "")
    wrapped = Expect("t", 1, "... PASS a.jsonl:1 (51 moves,\n    52 states\n37 passed, 0 failed (1415 states matched)")
    assert compare_output(wrapped, out) is None
    assert "not in the output" in (compare_output(Expect("t", 1, "all matched"), out) or "x")
    table = Expect("t", 1, "| layout | y |\n|---|---|\n| cramped_room | 7 † |", table=True)
    assert compare_table(table, out) is None
    stale = Expect("t", 1, "| cramped_room | **229.0 (220–240)** |", table=True)
    assert "229.0" in (compare_table(stale, out) or "")
    body = [(1, "for a in x y; do"), (2, "  echo $a"), (3, "done"), (4, "# out"), (5, "b \\"), (6, "  c &")]
    assert [(n, c) for n, _, c in split_commands(body)] == [(1, ["out"]), (5, [])]
    cmds, outs = console_split([(1, "$ echo a \\"), (2, "  b"), (3, "a b"), (4, "$ true")])
    assert [n for n, _ in cmds] == [1, 2, 4] and outs == {1: "a b"}
    assert BACKGROUND.search("proagent mock-server --addr 127.0.0.1:8000 &   # note")
    assert not BACKGROUND.search("a && b")


def tail(text: str, n: int = 15) -> str:
    lines = text.rstrip().split("\n")
    return "\n".join("    | " + l for l in lines[-n:])


def first_line(text: str) -> str:
    line = text.split("\n")[0]
    return line if len(line) <= 100 else line[:97] + "..."


PORT = re.compile(r"127\.0\.0\.1:(\d+)")
HEAVY = re.compile(r"\bproagent\s+(eval|bench|train)\b|\bscripts/\w+\.py\b")


def page_weight(d: DocFile) -> int:
    """A page's expected run time in units of a light command."""
    return sum(10 if HEAVY.search(c.text) else 1 for c in d.items if isinstance(c, Command) and not c.skip)


def group_pages(docs: list, jobs: int) -> list[list]:
    """Pages in `jobs` groups of similar weight; pages naming a common port stay together."""
    texts = [(REPO / d.path).read_text(encoding="utf-8", errors="replace") for d in docs]
    ports = [set(PORT.findall(t)) - {"0"} for t in texts]
    clusters: list[list[int]] = []
    for i in range(len(docs)):
        joined = [c for c in clusters if any(ports[i] & ports[j] for j in c)]
        merged = [i] + [j for c in joined for j in c]
        clusters = [c for c in clusters if c not in joined] + [merged]
    groups: list[list[int]] = [[] for _ in range(jobs)]
    load = [0] * jobs
    for c in sorted(clusters, key=lambda c: -sum(page_weight(docs[i]) for i in c)):
        k = load.index(min(load))
        groups[k] += c
        load[k] += sum(page_weight(docs[i]) for i in c)
    return [[docs[i] for i in sorted(g)] for g in groups if g]


def run_groups(docs: list, binary: Path, args) -> int:
    """Each group of pages in its own checker process; outputs printed group by group."""
    t0 = time.time()
    procs = []
    for g in group_pages(docs, args.jobs):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--bin", str(binary), "--timeout", str(args.timeout)]
        cmd += (["--keep"] if args.keep else []) + [str(REPO / d.path) for d in g]
        out = tempfile.TemporaryFile()
        procs.append((g, subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT), out))
    status = 0
    for g, proc, out in procs:
        code = proc.wait()
        out.seek(0)
        print(f"== group: {', '.join(d.path for d in g)}")
        sys.stdout.write(out.read().decode("utf-8", errors="replace"))
        print(flush=True)
        status = max(status, code)
    print(f"doccheck: {len(procs)} groups run at once, {'all passed' if status == 0 else 'some failed'} ({time.time() - t0:.0f} s)")
    return 1 if status else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/*.md)")
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    ap.add_argument("--bin", default=str(Path(target) / "debug" / "proagent"), help="the proagent binary")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per command (default 600)")
    ap.add_argument("--list", action="store_true", help="list the commands and skips; run nothing")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    ap.add_argument("--jobs", type=int, default=1, help="groups of pages run at once (default 1)")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--list | head` ends quietly
    self_test()
    files = [Path(f).resolve() for f in args.files] or [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
    docs = [parse_file(f) for f in files]
    if args.list:
        for d in docs:
            for line, msg in d.problems:
                print(f"{d.path}:{line}: FAIL: {msg}")
            for c in d.items:
                if isinstance(c, Command):
                    state = f"skip ({c.skip})" if c.skip else "run"
                    print(f"{c.file}:{c.line}: {state}: {first_line(c.text)}")
                else:
                    print(f"{c.file}:{c.line}: quoted output")
        return 0
    binary = Path(args.bin).resolve()
    if not binary.is_file():
        print(f"doccheck: no binary at {binary} (run `cargo build --locked` first)", file=sys.stderr)
        return 2
    if args.jobs > 1 and len(docs) > 1:
        return run_groups(docs, binary, args)

    def log(msg: str) -> None:
        print(msg, flush=True)

    t0 = time.time()
    results: list[Result] = []
    scratch_root = Path(tempfile.mkdtemp(prefix="doccheck-"))
    for d in docs:
        for line, msg in d.problems:
            results.append(Result(Command(d.path, line, "(fence)"), "fail", msg))
    work = scratch_root / "repo"
    copy_repo(work)
    try:
        for d in docs:
            log(f"{d.path}:")
            results += run_file(d, binary, work, scratch_root, args.timeout, log)
    finally:
        if args.keep:
            print(f"scratch directories kept in {scratch_root}")
        else:
            shutil.rmtree(scratch_root, ignore_errors=True)
    ran = [r for r in results if r.status in ("ok", "fail") and not r.cmd.text.startswith(("(", "output of"))]
    quotes = [r for r in results if r.cmd.text.startswith("output of")]
    skipped = [r for r in results if r.status == "skip"]
    failed = [r for r in results if r.status == "fail"]
    print()
    print("Skipped (marked in the docs):")
    for r in skipped:
        print(f"  {r.cmd.file}:{r.cmd.line}: {first_line(r.cmd.text)}\n      reason: {r.detail}")
    if failed:
        print()
        print("FAILED:")
        for r in failed:
            print(f"  {r.cmd.file}:{r.cmd.line}: {first_line(r.cmd.text)}\n    {r.detail}")
    print()
    print(
        f"doccheck: {len(ran)} commands run, {len(quotes)} quoted outputs compared, {len(skipped)} skipped, "
        f"{len(failed)} failed "
        f"({time.time() - t0:.0f} s, binary {binary}; served models were `proagent mock-server`)"
    )
    if failed:
        print("Fix the docs (or the code) at the lines above; docs/writing-docs.md explains the markers.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
