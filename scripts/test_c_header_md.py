"""Tests of scripts/c_header_md.py (the C API reference): `python3 -m unittest scripts/test_c_header_md.py`.

scripts/docs.sh runs them before it builds the site.
"""

import re
import unittest
from pathlib import Path

import c_header_md

HEADER = Path(__file__).resolve().parent.parent / "ffi-c" / "include" / "leaseq.h"

SAMPLE = """\
/*
 * sample.h: the first line names the file.
 *
 * - Conventions come here.
 */

#ifndef LEASEQ_H
#define LEASEQ_H

#include <stdint.h>

/** A `leaseq_opts` with nothing set. */
#define LEASEQ_OPTS_INIT \\
    { 0, 0 }

/**
 * Options of `leaseq_go`.
 *
 * ```c
 * leaseq_opts o = LEASEQ_OPTS_INIT;
 * ```
 */
typedef struct {
    /**
     * Which fields are given; see `LEASEQ_OPTS_INIT`.
     */
    uint32_t set;
    /**
     * How long, a | b.
     */
    int64_t ttl_ms;
} leaseq_opts;

/**
 * Goes; `leaseq_unknown` is not linked.
 */
int32_t leaseq_go(const leaseq_opts *opts,
                  int64_t *out_ms);

#endif  /* LEASEQ_H */
"""


class RenderTest(unittest.TestCase):
    def test_sample_sections_in_groups(self):
        md = c_header_md.render(SAMPLE)
        headings = [line for line in md.splitlines() if re.match(r"#+ ", line)]
        self.assertEqual(
            headings,
            [
                "## Conventions",
                "## Types",
                "### leaseq_opts",
                "## Constants",
                "### LEASEQ_OPTS_INIT",
                "## Functions",
                "### leaseq_go",
            ],
        )
        self.assertIn("- Conventions come here.", md)
        self.assertNotIn("the first line names the file", md)

    def test_declarations_and_fields(self):
        md = c_header_md.render(SAMPLE)
        # The prototype whole, over its two lines; the macro with its continuation.
        self.assertIn("int32_t leaseq_go(const leaseq_opts *opts,\n                  int64_t *out_ms);", md)
        self.assertIn("#define LEASEQ_OPTS_INIT \\\n    { 0, 0 }", md)
        # The struct's code without its field comments; the fields in a table.
        self.assertIn("typedef struct {\n    uint32_t set;\n    int64_t ttl_ms;\n} leaseq_opts;", md)
        self.assertIn("| `int64_t ttl_ms;` | How long, a \\| b. |", md)
        # A fenced example inside a comment stays a code block, its names unlinked.
        self.assertIn("```c\nleaseq_opts o = LEASEQ_OPTS_INIT;\n```", md)

    def test_links_known_names_only(self):
        md = c_header_md.render(SAMPLE)
        self.assertIn("Options of [`leaseq_go`](#leaseq_go).", md)
        self.assertIn("see [`LEASEQ_OPTS_INIT`](#leaseq_opts_init)", md)
        self.assertIn("`leaseq_unknown` is not linked", md)

    def test_undocumented_declaration_fails(self):
        bare = SAMPLE.replace("/**\n * Goes; `leaseq_unknown` is not linked.\n */\n", "")
        with self.assertRaisesRegex(ValueError, "without a /\\*\\* \\*/ comment: int32_t leaseq_go"):
            c_header_md.render(bare)

    def test_real_header_has_every_function(self):
        text = HEADER.read_text()
        declared = set(re.findall(r"^[A-Za-z_][\w\s\*]*?\b(leaseq_\w+)\(", text, re.M))
        self.assertGreater(len(declared), 50)
        md = c_header_md.render(text)
        sections = set(re.findall(r"^### (\w+)$", md, re.M))
        self.assertEqual(declared - sections, set())


if __name__ == "__main__":
    unittest.main()
