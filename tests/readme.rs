//! The documentation must not drift from the code it describes:
//! - docs/endpoints.md holds every operation and every rule of the tables in src/api;
//! - every fenced block of README.md says, in a marker on the line above it, how the test
//!   suite runs it, and that is checked here: `<!-- tested: run by SCRIPT -->` (the script
//!   takes the block from README.md and runs it), `<!-- tested: excerpt of FILE -->` (the
//!   block's lines are lines of FILE, a program or test a suite builds and runs: `// ...`
//!   marks lines left out), `<!-- tested: make targets -->` (every `make X` is a target);
//! - the install table names what the release scripts publish, at this crate's version;
//! - every relative link of README.md, ARCHITECTURE.md, docs/ and the bindings' READMEs leads
//!   to a file, and to a heading of it when it names one.

use std::path::{Path, PathBuf};

use gw::ops;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_operation_path_is_in_the_endpoint_table() {
    let text = read("docs/endpoints.md");
    for op in ops::ALL.iter().chain([&&ops::IMAGE_EDIT_UPLOAD]) {
        let row = format!("`{} {}`", op.method.as_str(), op.path);
        assert!(
            text.contains(&row),
            "docs/endpoints.md lacks the endpoint row {row} ({})",
            op.name
        );
    }
}

#[test]
fn every_rule_field_is_in_the_limits_table() {
    let text = read("docs/endpoints.md");
    for op in ops::ALL.iter().chain([&&ops::IMAGE_EDIT_UPLOAD]) {
        for rule in op.rules {
            let field = format!("`{}`", rule.field);
            assert!(
                text.contains(&field),
                "docs/endpoints.md lacks {field} of {}",
                op.name
            );
        }
    }
}

/// A fenced block of a Markdown text: the line of its opening fence (1-based), its
/// language, its lines, the marker on the line above it and the `## ` heading it is under.
struct Block {
    line: usize,
    language: String,
    lines: Vec<String>,
    marker: Option<String>,
    section: String,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    let mut previous = "";
    let mut section = String::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(block) = &mut open {
            if line.trim_start().starts_with("```") {
                found.push(open.take().unwrap());
            } else {
                block.lines.push(line.to_string());
            }
        } else if let Some(language) = line.trim_start().strip_prefix("```") {
            let marker = previous
                .trim()
                .strip_prefix("<!-- tested:")
                .and_then(|m| m.strip_suffix("-->"))
                .map(|m| m.trim().to_string());
            open = Some(Block {
                line: i + 1,
                language: language.trim().to_string(),
                lines: Vec::new(),
                marker,
                section: section.clone(),
            });
        } else if line.starts_with("## ") {
            section = line.to_string();
        }
        if !line.trim().is_empty() {
            previous = line;
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    found
}

/// Lines as compared: trimmed, blank ones dropped.
fn significant(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Whether every run of `excerpt` (runs are split at `// ...` lines) is a run of `source`'s
/// lines, the runs in order.
fn is_excerpt(excerpt: &[&str], source: &[&str]) -> Result<(), String> {
    let mut from = 0;
    for run in excerpt.split(|l| *l == "// ...") {
        if run.is_empty() {
            continue;
        }
        let at = (from..=source.len().saturating_sub(run.len()))
            .find(|&i| source.get(i..i + run.len()) == Some(run))
            .ok_or_else(|| format!("these lines are not in it, in this order: {run:#?}"))?;
        from = at + run.len();
    }
    Ok(())
}

fn makefile_targets() -> Vec<String> {
    read("Makefile")
        .lines()
        .filter_map(|l| {
            let (target, _) = l.split_once(':')?;
            let ok = !target.is_empty()
                && target
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            ok.then(|| target.to_string())
        })
        .collect()
}

/// Every `make X` of a text names a target of the Makefile.
fn check_make_targets(text: &str, targets: &[String], what: &str) {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '`' || c == ',' || c == '(')
        .collect();
    for pair in words.windows(2) {
        if pair[0] == "make"
            && pair[1]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_lowercase())
        {
            assert!(
                targets.iter().any(|t| t == pair[1]),
                "{what}: `make {}` is not a target of the Makefile",
                pair[1]
            );
        }
    }
}

#[test]
fn every_block_of_the_readme_is_run_or_checked_by_a_suite() {
    let readme = read("README.md");
    let targets = makefile_targets();
    let found = blocks(&readme);
    assert!(found.len() >= 8, "README.md has {} blocks", found.len());
    for block in &found {
        let at = format!("README.md:{} ({})", block.line, block.language);
        let marker = block.marker.as_deref().unwrap_or_else(|| {
            panic!("{at}: no `<!-- tested: ... -->` line above it says how it is tested")
        });
        if let Some(script) = marker.strip_prefix("run by ") {
            let source = read(script);
            assert!(
                source.contains("README.md") && source.contains(block.section.as_str()),
                "{at}: {script} does not take it from README.md's `{}`",
                block.section
            );
        } else if let Some(file) = marker.strip_prefix("excerpt of ") {
            let source = read(file);
            let source_lines: Vec<String> = source.lines().map(str::to_string).collect();
            if let Err(e) = is_excerpt(&significant(&block.lines), &significant(&source_lines)) {
                panic!("{at} is not an excerpt of {file}: {e}");
            }
        } else if marker == "make targets" {
            for line in &block.lines {
                assert!(
                    line.starts_with("make "),
                    "{at}: {line:?} is not a make command"
                );
            }
            check_make_targets(&block.lines.join("\n"), &targets, &at);
        } else {
            panic!("{at}: unknown marker {marker:?}");
        }
    }
}

/// The text of the first `<tag>` element of `xml`.
fn first_tag<'a>(xml: &'a str, tag: &str) -> &'a str {
    let open = format!("<{tag}>");
    let start = xml.find(&open).expect(tag) + open.len();
    &xml[start..start + xml[start..].find('<').expect(tag)]
}

#[test]
fn the_install_table_names_what_a_release_publishes() {
    let readme = read("README.md");
    let install = &readme[readme.find("## Install").expect("## Install")..];
    let install = &install[..install[3..].find("\n## ").expect("a section after Install")];
    let version = env!("CARGO_PKG_VERSION");

    let module = read("bindings/go/go.mod");
    let module = module
        .lines()
        .find_map(|l| l.strip_prefix("module "))
        .expect("module line")
        .trim();
    let pom = read("bindings/kotlin/pom.xml");
    let maven = format!(
        "{}:{}:{version}",
        first_tag(&pom, "groupId"),
        first_tag(&pom, "artifactId")
    );
    let swift_url = "https://github.com/gw-dev/gw-swift";
    let wanted = [
        format!("`go get {module}@v{version}`"),
        format!("`implementation(\"{maven}\")`"),
        format!("`{maven}`"),
        format!("`tar -xzf gw-{version}-linux-x86_64.tar.gz`"),
        format!("`.package(url: \"{swift_url}\", from: \"{version}\")`"),
    ];
    for w in &wanted {
        assert!(
            install.contains(w.as_str()),
            "README.md's Install lacks {w}"
        );
    }
    // The names the release scripts give what they publish.
    let sdk = read("scripts/dist/sdk.sh");
    assert!(
        sdk.contains("name=\"gw-$version-$platform\"")
            && sdk.contains("linux-x86_64 linux-aarch64")
    );
    let swift_tree = read("scripts/dist/swift-tree.sh");
    assert!(swift_tree.contains(&format!(
        ".package(url: \"{swift_url}\", from: \"$version\")"
    )));
    check_make_targets(install, &makefile_targets(), "README.md's Install");
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(slug(line.trim_start_matches('#')));
        }
    }
    found
}

/// A Markdown text without its code: fenced blocks and `code spans` dropped.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut kept = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            kept.extend(line.split('`').step_by(2));
            kept.push('\n');
        }
    }
    kept
}

#[test]
fn every_relative_link_of_the_documentation_leads_somewhere() {
    let mut files: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "conformance/README.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    for folder in ["docs", "bindings"] {
        for entry in std::fs::read_dir(root().join(folder)).unwrap().flatten() {
            let path = entry.path();
            let path = if path.is_dir() {
                path.join("README.md")
            } else {
                path
            };
            if path.extension().is_some_and(|e| e == "md") && path.exists() {
                files.push(path.strip_prefix(root()).unwrap().to_path_buf());
            }
        }
    }
    assert!(files.len() >= 13, "{files:?}");
    for file in &files {
        let text = prose(&read(file.to_str().unwrap()));
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
            let dest = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let full = root().join(&dest);
            assert!(
                full.exists(),
                "{}: the link {target} leads to no file",
                file.display()
            );
            if !anchor.is_empty() && dest.extension().is_some_and(|e| e == "md") {
                let found = anchors(&std::fs::read_to_string(&full).unwrap());
                assert!(
                    found.iter().any(|a| a == anchor),
                    "{}: the link {target} names no heading of {}",
                    file.display(),
                    dest.display()
                );
            }
        }
    }
}
