#!/usr/bin/env node
'use strict'
// `npm pack` runs this (prepack) to copy what the addon needs from the repository into vendor/,
// laid out as in the repository (a workspace with core/, spec/scripts/ and node/), so that the
// tarball builds on a machine with only Rust and Node. `postpack` runs it with `clean`.

const fs = require('node:fs')
const path = require('node:path')

const packageRoot = path.resolve(__dirname, '..')
const repo = path.resolve(packageRoot, '..')
const vendor = path.join(packageRoot, 'vendor')

fs.rmSync(vendor, { recursive: true, force: true })
if (process.argv[2] === 'clean') process.exit(0)

const copy = (from, to) => fs.cpSync(from, to, { recursive: true })
const read = (file) => fs.readFileSync(file, 'utf8')

/** Drops from a Cargo manifest the sections (up to the next header) that only tests use. */
function withoutTestSections(manifest) {
  const testOnly = /^\[(dev-dependencies|\[example\]|\[test\]|\[bench\])\]$/
  const out = []
  let skipping = false
  for (const line of manifest.split('\n')) {
    if (/^\[/.test(line)) skipping = testOnly.test(line.trim())
    if (!skipping) out.push(line)
  }
  return out.join('\n')
}

// The workspace: only core and the addon; dependencies by path only where the path is vendored.
let workspace = read(path.join(repo, 'Cargo.toml'))
workspace = workspace.replace(/^members\s*=\s*\[[\s\S]*?\]/m, 'members = ["core", "node"]')
workspace = workspace.replace(/^default-members\s*=\s*\[[\s\S]*?\]\n?/m, '')
workspace = workspace
  .split('\n')
  .filter((line) => {
    const match = /path\s*=\s*"([^"]+)"/.exec(line)
    return !match || match[1] === 'core'
  })
  .join('\n')
fs.mkdirSync(vendor)
fs.writeFileSync(path.join(vendor, 'Cargo.toml'), workspace)
copy(path.join(repo, 'Cargo.lock'), path.join(vendor, 'Cargo.lock'))

// The core without its tests, examples and dev-dependencies; the Lua scripts it includes.
fs.mkdirSync(path.join(vendor, 'core'))
fs.writeFileSync(
  path.join(vendor, 'core', 'Cargo.toml'),
  withoutTestSections(read(path.join(repo, 'core', 'Cargo.toml'))),
)
copy(path.join(repo, 'core', 'src'), path.join(vendor, 'core', 'src'))
copy(path.join(repo, 'spec', 'scripts'), path.join(vendor, 'spec', 'scripts'))

// The addon crate itself.
fs.mkdirSync(path.join(vendor, 'node'))
for (const name of ['Cargo.toml', 'build.rs', 'src']) {
  copy(path.join(packageRoot, name), path.join(vendor, 'node', name))
}
console.error('leaseq: vendored the core into vendor/ for packing')
