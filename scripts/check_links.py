#!/usr/bin/env python3
"""Checks the links of a built site: every local href and src of every HTML page must name a file
of the site, and a #fragment must name an id (or <a name>) of the page it points into.

Usage: check_links.py SITE_DIR [--skip-anchors-under PREFIX ...] [--skip-page PATH ...] [--ignore-link REGEX ...]

External links (http:, mailto:, ...) are not followed: the site is checked offline. But a
page may load nothing from another host (a script, stylesheet, font, image or frame, or a
preconnect to one): the site must read the same without the network, so each is an error. Fragments
are checked in every page except those under a --skip-anchors-under prefix (rustdoc's source
pages make their line-range ids in JavaScript). A --skip-page is not read at all (MkDocs's
404.html links from the server's root, wherever the site is served). A link matching an
--ignore-link regular expression is not checked (for a known break in a generated page that
the project cannot fix; say which and why where the option is given). Exits 1 and lists
each broken link when any is found.
"""

from __future__ import annotations

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


# What a browser loads by itself, as opposed to a link the reader may follow.
_RESOURCE_TAGS = {"script", "img", "iframe", "source", "audio", "video", "embed", "track"}
_RESOURCE_RELS = {"stylesheet", "icon", "preload", "modulepreload", "preconnect", "dns-prefetch", "manifest"}


def _remote(link: str) -> bool:
    parts = urlsplit(link)
    return link.startswith("//") or parts.scheme in ("http", "https")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.remote_resources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        rels = set((dict(attrs).get("rel") or "").lower().split())
        loaded = tag in _RESOURCE_TAGS or (tag == "link" and bool(rels & _RESOURCE_RELS))
        for key, value in attrs:
            if value is None:
                continue
            if key in ("href", "src"):
                if loaded and _remote(value):
                    self.remote_resources.append(value)
                if not (tag == "link" and "preconnect" in rels):
                    self.links.append(value)
            elif key == "id" or (key == "name" and tag == "a"):
                self.ids.add(value)


def check(
    site: Path,
    skip_anchors_under: list[str] = (),
    skip_pages: list[str] = (),
    ignore_links: list[str] = (),
) -> list[str]:
    """The broken links of the site, as 'page: link (why)' lines."""
    pages: dict[Path, _Page] = {}
    for path in sorted(site.rglob("*.html")):
        if path.relative_to(site).as_posix() in skip_pages:
            continue
        parser = _Page()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path.resolve()] = parser

    def fragments_checked(path: Path) -> bool:
        rel = path.relative_to(site.resolve()).as_posix()
        return not any(rel.startswith(prefix) for prefix in skip_anchors_under)

    broken = []
    for path, page in pages.items():
        rel_page = path.relative_to(site.resolve()).as_posix()
        for link in page.remote_resources:
            broken.append(f"{rel_page}: {link} (loaded from another host: the site must work offline)")
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("//", "javascript:", "data:")):
                continue
            if any(re.search(pattern, link) for pattern in ignore_links):
                continue
            if parts.path.startswith("/"):
                broken.append(f"{rel_page}: {link} (absolute path: the site must work from any root)")
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{rel_page}: {link} (no such file)")
                continue
            if not target.is_relative_to(site.resolve()):
                broken.append(f"{rel_page}: {link} (outside the site)")
                continue
            # rustdoc writes ids percent-encoded (impl-From%3CT%3E-for-T), MkDocs plainly.
            fragment = parts.fragment
            if fragment and target in pages and fragments_checked(target):
                if not {fragment, unquote(fragment)} & pages[target].ids:
                    broken.append(f"{rel_page}: {link} (no id {fragment!r} in the page)")
    return broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--skip-anchors-under", action="append", default=[], metavar="PREFIX")
    parser.add_argument("--skip-page", action="append", default=[], metavar="PATH")
    parser.add_argument("--ignore-link", action="append", default=[], metavar="REGEX")
    args = parser.parse_args()
    if not (args.site / "index.html").is_file():
        print(f"check_links: no site in {args.site}", file=sys.stderr)
        return 2
    broken = check(args.site, args.skip_anchors_under, args.skip_page, args.ignore_link)
    pages = sum(1 for _ in args.site.rglob("*.html"))
    for line in broken:
        print(f"broken link: {line}", file=sys.stderr)
    print(f"check_links: {pages} pages, {len(broken)} broken links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
