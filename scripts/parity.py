#!/usr/bin/env python3
"""Operations x languages: which public function each binding gives every verb.

The verbs are those the conformance corpus uses (conformance/cases) plus the ones it
cannot drive against the mock as JSON (imageEditUpload, the vendor operations). Each
binding's name for a verb follows its language's convention (gw_chat_stream, try_chat_stream,
ChatStream, chatStream) and is looked up as a definition in that binding's public sources.
`--write` puts the table in docs/testing.md between the parity markers; `--check` (make test,
through scripts/conformance.sh) fails when a verb is missing in a binding or that file's
table is not the one these sources give.
"""
import json
import os
import re
import sys

EXTRA_VERBS = [
    "imageEditUpload", "vendorKText2Video", "vendorKImage2Video", "vendorKMultiImage2Video",
    "vendorKEffects", "vendorKExtend", "vendorHImageToVideo", "vendorMImagine",
    "vendorIDescribe", "vendorIGenerate", "vendorITextToImage", "vendorFEdit",
]
LANGUAGES = ["rust", "c", "cpp", "go", "kotlin", "java", "swift"]
BEGIN, END = "<!-- parity:begin -->", "<!-- parity:end -->"
# The file that holds the table (docs/ is the reference; README.md stays a newcomer's page).
TABLE_FILE = "docs/testing.md"


def snake(verb):
    # An upper-case letter starts a new word, except right after a digit (text2video).
    return re.sub(r"(?<=[A-Za-z])([A-Z])", r"_\1", verb).lower()


def corpus_verbs():
    verbs = set()
    for root, _, files in os.walk("conformance/cases"):
        for f in files:
            if f.endswith(".json"):
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    verbs.add(json.load(fh)["operation"])
    return verbs


def read_all(folder, suffixes):
    text = []
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            if f.endswith(suffixes):
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    text.append(fh.read())
    return "\n".join(text)


def rust_name(verb, ops):
    if verb == "request":
        return "Client::request"
    if verb == "videoStatus":
        return "Client::call(family.status_op())"
    if verb == "videoWait":
        return "Client::wait_for_task"
    base = verb[: -len("Stream")] if verb.endswith("Stream") else verb
    op = snake(base).upper()
    if not re.search(rf"pub static {op}: Operation", ops):
        return None
    return f"Client::stream(&ops::{op})" if verb.endswith("Stream") else f"ops::{op}"


def swift_blocks(text, opener):
    """The top-level Swift declarations whose first line matches `opener`, each up to its
    closing `}` at the start of a line."""
    out, inside = [], False
    for line in text.split("\n"):
        inside = inside or re.match(opener, line) is not None
        if inside:
            out.append(line)
            inside = line != "}"
    return "\n".join(out)


def table():
    sources = {
        "ops": open("src/api/ops.rs", encoding="utf-8").read(),
        "c": open("include/gw.h", encoding="utf-8").read(),
        "cpp": read_all("bindings/cpp/include", (".hpp",)),
        "go": read_all("bindings/go", (".go",)),
        "kotlin": read_all("bindings/kotlin/src/main/kotlin", (".kt",)),
        "swift": read_all("bindings/swift/Sources", (".swift",)),
    }
    # Swift: a verb counts when GwClient itself defines it (not a default of the protocol's
    # extension) and GwClientProtocol requires it, so code holding the protocol has it too.
    swift_client = swift_blocks(sources["swift"], r"^(public )?(final )?class GwClient\b|^extension GwClient \{")
    swift_protocol = swift_blocks(sources["swift"], r"^public protocol GwClientProtocol\b")
    java_api = "\n".join(
        open(os.path.join("bindings/kotlin/src/main/kotlin/dev/gw", f), encoding="utf-8").read()
        for f in ("GwBlocking.kt", "GwAsync.kt")
        if os.path.exists(os.path.join("bindings/kotlin/src/main/kotlin/dev/gw", f))
    )

    def found(pattern, text):
        return re.search(pattern, text) is not None

    rows = []
    for verb in sorted(corpus_verbs() | set(EXTRA_VERBS)):
        s = snake(verb)
        pascal = verb[0].upper() + verb[1:]
        go_name = "Do" if verb == "request" else pascal
        names = {
            "rust": rust_name(verb, sources["ops"]),
            "c": f"gw_{s}" if found(rf"\bgw_{s}\(", sources["c"]) else None,
            "cpp": f"try_{s}" if found(rf"\btry_{s}\(", sources["cpp"]) else None,
            "go": go_name if found(rf"func \(c \*Client\) {go_name}\(", sources["go"]) else None,
            "kotlin": verb if found(rf"fun (GwClient\.)?{verb}\(", sources["kotlin"]) else None,
            "java": f"blocking().{verb}" if found(rf"fun {verb}\(", java_api) else None,
            "swift": verb
            if found(rf"public func {verb}\(", swift_client) and found(rf"\bfunc {verb}\(", swift_protocol)
            else None,
        }
        if verb.endswith("Stream"):
            # The streamed C verbs are the callback form; the pull form opens a gw_stream.
            names["c"] = names["c"] and f"{names['c']} / gw_{s}_open"
        rows.append((verb, names))
    return rows


def render(rows):
    lines = ["| verb | " + " | ".join(LANGUAGES) + " |", "|---" * (len(LANGUAGES) + 1) + "|"]
    for verb, names in rows:
        cells = [f"`{names[l]}`" if names[l] else "**missing**" for l in LANGUAGES]
        lines.append(f"| {verb} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    rows = table()
    rendered = render(rows)
    readme = open(TABLE_FILE, encoding="utf-8").read()
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        sys.exit(f"parity: {TABLE_FILE} has no {BEGIN} ... {END} section")
    fresh = readme[: start + len(BEGIN)] + "\n" + rendered + "\n" + readme[end:]
    if sys.argv[1:] == ["--write"]:
        open(TABLE_FILE, "w", encoding="utf-8").write(fresh)
    missing = [(verb, l) for verb, names in rows for l in LANGUAGES if not names[l]]
    for verb, l in missing:
        print(f"parity: {l} has no {verb}")
    if fresh != readme:
        print(f"parity: {TABLE_FILE}'s table is stale; run scripts/parity.py --write")
    print(f"parity: {len(rows)} verbs x {len(LANGUAGES)} languages, {len(missing)} missing")
    sys.exit(1 if missing or fresh != readme else 0)


if __name__ == "__main__":
    main()
