#!/usr/bin/env node
'use strict'
// Builds the native addon with cargo and puts it at leaseq.node, where lib/native.js loads it.
// `npm install` runs this, so installing the package needs only Rust and Node: no build tool
// from npm. Release build by default; `--debug` (or LEASEQ_NODE_DEBUG=1) for a faster one.
// (Contributors may use `napi build` instead: it also regenerates native.d.ts.)

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const debug = process.argv.includes('--debug') || process.env.LEASEQ_NODE_DEBUG === '1'
const cargo = process.env.CARGO || 'cargo'

// The addon builds in the repository's workspace (and its target dir): the npm packages carry a
// prebuilt addon instead (scripts/package.js), so there is no build from a tarball.
if (!fs.existsSync(path.join(root, '..', 'core', 'Cargo.toml'))) {
  console.error('leaseq: scripts/build.js builds the addon in a checkout of the repository (../core)')
  process.exit(1)
}
const manifest = path.join(root, 'Cargo.toml')

// An explicit --target, as `napi build` passes, so that both build into the same directory and
// share compiled dependencies.
const args = ['build', '--manifest-path', manifest, '--lib', '--target', hostTriple()]
args.push('--message-format=json-render-diagnostics')
if (!debug) args.push('--release')

/** The triple rustc builds for by default, e.g. x86_64-unknown-linux-gnu. */
function hostTriple() {
  const rustc = spawnSync(process.env.RUSTC || 'rustc', ['-vV'], { encoding: 'utf8' })
  const host = /^host: (\S+)$/m.exec(rustc.stdout || '')
  if (rustc.error || !host) {
    const hint = rustc.error && rustc.error.code === 'ENOENT' ? ': install Rust (https://rustup.rs)' : ''
    console.error(`leaseq: could not ask rustc for its host target${hint}`)
    process.exit(1)
  }
  return host[1]
}

console.error(`leaseq: building the native addon (${cargo} ${args.join(' ')})`)
const result = spawnSync(cargo, args, {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
  maxBuffer: 1 << 28,
})
if (result.error) {
  const hint = result.error.code === 'ENOENT' ? ': install Rust (https://rustup.rs) and retry' : ''
  console.error(`leaseq: could not run ${cargo}${hint} (${result.error.message})`)
  process.exit(1)
}
if (result.status !== 0) {
  console.error(`leaseq: cargo build failed (exit ${result.status})`)
  process.exit(result.status || 1)
}

let built
for (const line of result.stdout.split('\n')) {
  if (!line.startsWith('{')) continue
  const message = JSON.parse(line)
  if (message.reason !== 'compiler-artifact' || !message.target.kind.includes('cdylib')) continue
  built = message.filenames.find((f) => /\.(so|dylib|dll)$/.test(f)) || built
}
if (!built) {
  console.error('leaseq: cargo reported no cdylib artifact')
  process.exit(1)
}

// Copy then rename: a process that has the old addon loaded keeps a valid mapping.
const target = path.join(root, 'leaseq.node')
const temporary = `${target}.${process.pid}.tmp`
fs.copyFileSync(built, temporary)
fs.renameSync(temporary, target)
console.error(`leaseq: built ${path.relative(process.cwd(), target) || target}`)
