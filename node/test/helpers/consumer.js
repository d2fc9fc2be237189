'use strict'
// A throwaway project that depends on this package (node_modules/leaseq links to it), for
// running code exactly as a user's project would: `require('leaseq')`, `import ... from 'leaseq'`.

const { execFile } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const PACKAGE_ROOT = path.resolve(__dirname, '..', '..')

/** Creates the project; resolves to `{ dir, write(name, text), run(name, env), remove() }`. */
function makeConsumer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaseq-node-consumer-'))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  fs.symlinkSync(PACKAGE_ROOT, path.join(dir, 'node_modules', 'leaseq'), 'dir')
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "consumer", "private": true }\n')
  return {
    dir,
    write(name, text) {
      fs.writeFileSync(path.join(dir, name), text)
    },
    /** Runs `node name`; resolves to { code, stdout, stderr } whatever the exit code. */
    run(name, env = {}) {
      return new Promise((resolve) => {
        execFile(
          process.execPath,
          [name],
          { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 },
          (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }),
        )
      })
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

module.exports = { PACKAGE_ROOT, makeConsumer }
