"""MkDocs hooks of the documentation site (mkdocs.yml `hooks:`); scripts/docs.sh runs the build.

- The specification stays where it is (spec/): PROTOCOL.md and errors.md become the site's
  spec/ pages, and the Lua scripts they name (spec/scripts/) are published beside them as files,
  with a generated index page.
- The generated API references (rustdoc, TypeDoc), built by scripts/docs.sh into
  LEASEQ_DOCS_API (default target/docs-api) before MkDocs runs, are added as files under
  reference/rust/ and reference/node/, so that `mkdocs build --strict` checks the nav's and the
  pages' links to them.
- css/pygments.css, the colours of the code that pymdownx.highlight marks up with Pygments at
  build time (mkdocs.yml turns the theme's highlight.js, loaded from a CDN, off).
- reference/c.md's marker is replaced by the Markdown of ffi-c/include/leaseq.h's doc comments
  (scripts/c_header_md.py), rendered at every build so the page cannot go stale.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files, InclusionLevel
from pygments.formatters import HtmlFormatter

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import c_header_md  # noqa: E402

C_MARKER = "<!-- leaseq.h -->"
# Each generated reference: where the site puts it, and its front page.
API_DIRS = {"rust": ("reference/rust", "leaseq/index.html"), "node": ("reference/node", "index.html")}


def _api_root() -> Path:
    return Path(os.environ.get("LEASEQ_DOCS_API", REPO / "target" / "docs-api"))


def on_files(files: Files, config) -> Files:
    pygments_css = HtmlFormatter(style="default").get_style_defs(".highlight")
    files.append(File.generated(config, "css/pygments.css", content=pygments_css + "\n"))
    for name in ("PROTOCOL.md", "errors.md"):
        files.append(File.generated(config, f"spec/{name}", abs_src_path=str(REPO / "spec" / name)))
    scripts = sorted(p for p in (REPO / "spec" / "scripts").rglob("*.lua"))
    for path in scripts:
        rel = path.relative_to(REPO / "spec").as_posix()
        files.append(File.generated(config, f"spec/{rel}", abs_src_path=str(path)))
    listing = "\n".join(
        f"- [`{p.relative_to(REPO / 'spec' / 'scripts').as_posix()}`]"
        f"({p.relative_to(REPO / 'spec' / 'scripts').as_posix()})"
        for p in scripts
    )
    index = (
        "# The protocol's Lua scripts\n\n"
        "The normative text of the protocol ([PROTOCOL.md](../PROTOCOL.md)): an implementation "
        "sends these byte for byte.\n\n" + listing + "\n"
    )
    files.append(
        File.generated(config, "spec/scripts/index.md", content=index, inclusion=InclusionLevel.NOT_IN_NAV)
    )

    root = _api_root()
    for name, (dest, front) in API_DIRS.items():
        src = root / name
        if not (src / front).is_file():
            raise PluginError(f"no {name} API reference in {src}: build the site with scripts/docs.sh")
        for path in src.rglob("*"):
            # rustdoc ships its fonts' licences as .md files, which MkDocs would make pages.
            if path.is_file() and path.suffix != ".md":
                rel = path.relative_to(src).as_posix()
                files.append(File.generated(config, f"{dest}/{rel}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri == "spec/PROTOCOL.md":
        # In the repository the link names the folder; in the site, its generated index page.
        markdown = markdown.replace("](scripts/)", "](scripts/index.md)")
    if page.file.src_uri == "reference/c.md":
        if C_MARKER not in markdown:
            raise PluginError(f"reference/c.md lacks the marker {C_MARKER}")
        header = (REPO / "ffi-c" / "include" / "leaseq.h").read_text()
        markdown = markdown.replace(C_MARKER, c_header_md.render(header))
    return markdown
