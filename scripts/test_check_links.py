"""Tests of scripts/check_links.py (run by scripts/docs.sh before it checks the site)."""

from __future__ import annotations

import shutil
import tempfile
import unittest
from pathlib import Path

from check_links import check


class CheckLinksTest(unittest.TestCase):
    def _site(self, pages: dict[str, str]) -> Path:
        """A built site of these pages (path: body), removed after the test."""
        root = Path(tempfile.mkdtemp(prefix="check-links-"))
        self.addCleanup(shutil.rmtree, root)
        for name, body in pages.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"<!DOCTYPE html><html><head></head><body>{body}</body></html>")
        return root
    def test_a_site_whose_links_all_lead_somewhere(self) -> None:
        site = self._site(
            {
                "index.html": '<a href="guide/a.html#start">a</a> <a href="#top" id="top">top</a>'
                '<a href="https://example.org/x">elsewhere</a> <a href="mailto:a@example.org">mail</a>'
                '<link rel="stylesheet" href="css/site.css"><script src="js/site.js"></script>',
                "guide/a.html": '<h1 id="start">A</h1><a href="../index.html">home</a>'
                '<a href="b%20c.html#x%3Cy%3E">b</a>',
                "guide/b c.html": '<p id="x%3Cy%3E">rustdoc writes ids percent-encoded</p>',
            }
        )
        (site / "css").mkdir()
        (site / "css/site.css").write_text("")
        (site / "js").mkdir()
        (site / "js/site.js").write_text("")
        self.assertEqual(check(site), [])

    def test_missing_files_and_anchors(self) -> None:
        site = self._site(
            {
                "index.html": '<a href="gone.html">gone</a> <a href="a.html#nowhere">a</a>'
                '<a href="/a.html">rooted</a>',
                "a.html": '<h1 id="here">A</h1>',
            }
        )
        self.assertEqual(
            check(site),
            [
                "index.html: gone.html (no such file)",
                "index.html: a.html#nowhere (no id 'nowhere' in the page)",
                "index.html: /a.html (absolute path: the site must work from any root)",
            ],
        )

    def test_nothing_may_be_loaded_from_another_host(self) -> None:
        site = self._site(
            {
                "index.html": '<script src="https://cdn.example.org/highlight.min.js"></script>'
                '<link rel="stylesheet" href="//cdn.example.org/github.css">'
                '<link rel="preconnect" href="https://fonts.example.org">'
                '<img src="http://example.org/logo.png">'
                # Links a reader may follow to another host are fine.
                '<a href="https://example.org/">elsewhere</a>'
                '<link rel="canonical" href="https://example.org/docs/">',
            }
        )
        problems = check(site)
        self.assertEqual(len(problems), 4, problems)
        for problem, url in zip(
            problems,
            [
                "https://cdn.example.org/highlight.min.js",
                "//cdn.example.org/github.css",
                "https://fonts.example.org",
                "http://example.org/logo.png",
            ],
        ):
            self.assertEqual(problem, f"index.html: {url} (loaded from another host: the site must work offline)")

    def test_the_options(self) -> None:
        site = self._site(
            {
                "index.html": '<a href="src/lib.rs.html#10-20">source</a> <a href="ignored#x">x</a>',
                "src/lib.rs.html": '<span id="10">10</span>',
                "404.html": '<a href="/nowhere.html">rooted</a>',
            }
        )
        self.assertEqual(
            check(site, skip_anchors_under=["src/"], skip_pages=["404.html"], ignore_links=["^ignored#"]),
            [],
        )
        self.assertEqual(len(check(site)), 3)


if __name__ == "__main__":
    unittest.main()
