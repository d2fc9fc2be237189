#!/usr/bin/env node
'use strict'
// Builds the native addon with cargo and puts it at leaseq.node, where lib/native.js loads it.
// `npm install` runs this, so installing the package needs only Rust and Node: no build tool
// from npm. Release build by default; `--debug` (or LEASEQ_NODE_DEBUG=1) for a faster one.
// (Contributors may use `napi build` instead: it also regenerates native.d.ts.)

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const debug = process.argv.includes('--debug') || process.env.LEASEQ_NODE_DEBUG === '1'
const cargo = process.env.CARGO || 'cargo'

// In a checkout of the repository the crate builds in its workspace (and its target dir). A
// tarball from `npm pack` carries its own copy of the workspace in vendor/ (scripts/vendor.js);
// that build uses a temporary target dir, removed afterwards, unless CARGO_TARGET_DIR is set.
const inRepository = fs.existsSync(path.join(root, '..', 'core', 'Cargo.toml'))
const vendored = path.join(root, 'vendor', 'node', 'Cargo.toml')
if (!inRepository && !fs.existsSync(vendored)) {
  console.error('leaseq: neither the repository (../core) nor vendor/ is here: nothing to build')
  process.exit(1)
}
const manifest = inRepository ? path.join(root, 'Cargo.toml') : vendored
const env = { ...process.env }
let temporaryTarget
if (!inRepository && !env.CARGO_TARGET_DIR) {
  temporaryTarget = fs.mkdtempSync(path.join(os.tmpdir(), 'leaseq-node-build-'))
  env.CARGO_TARGET_DIR = temporaryTarget
}

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
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
  maxBuffer: 1 << 28,
})
process.on('exit', () => {
  if (temporaryTarget) fs.rmSync(temporaryTarget, { recursive: true, force: true })
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
