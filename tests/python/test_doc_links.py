"""Every relative link of the documents resolves: `[..](file.md#anchor)` to a file that exists and
a heading of it, `[..](#anchor)` to a heading of the same file. Anchors are GitHub's: the heading's
text lowercased, punctuation dropped, each space a hyphen, and a repeated anchor suffixed -1, -2.
Covers every Markdown file under docs/ and the README; plain file reading, no extension needed."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from conftest import ROOT

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# An inline link or image: [text](target) or [text](target "title"); the text may hold one
# level of brackets (an image inside a link).
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def documents() -> list[Path]:
    return sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def _prose_lines(path: Path) -> list[tuple[int, str]]:
    """The file's lines outside fenced code blocks, with their numbers."""
    out, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            out.append((number, line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor of a heading's text (before the duplicate suffix)."""
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("*", "").lower()
    return "".join(c for c in text if c.isalnum() or c in "-_ ").replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in _prose_lines(path):
        out.update(HTML_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return frozenset(out)


def broken_links(path: Path) -> list[str]:
    broken = []
    for number, line in _prose_lines(path):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            if EXTERNAL.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(ROOT)}:{number}: {target}"
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{where} (no such heading)")
    return broken


def test_slug_follows_githubs_rules() -> None:
    assert slug("FreeBSD's SCTP (usrsctp)") == "freebsds-sctp-usrsctp"
    assert slug("Active queues against ns-3.44") == "active-queues-against-ns-344"
    assert slug("The `linux` profile (`rexmit_tcp::profile`)") == "the-linux-profile-rexmit_tcpprofile"
    assert slug("Differences, explained or open") == "differences-explained-or-open"


def test_duplicate_headings_get_numbered_anchors(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("# A\n## Results\n```\n## Results\n```\n## Results\n## Results\n")
    assert anchors(doc) == {"a", "results", "results-1", "results-2"}


def test_every_relative_link_of_the_documents_resolves() -> None:
    broken = [entry for path in documents() for entry in broken_links(path)]
    assert not broken, "broken links:\n" + "\n".join(broken)
