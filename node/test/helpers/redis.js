'use strict'
// Throwaway Redis for the tests, from the shared launcher `leaseq-test-redis` (built by
// `cargo build -p leaseq-harness`): it prints `{"url": ..., "urls": [...]}` on one line and
// stops its servers when its stdin closes. `LEASEQ_TEST_REDIS` names it (node/test.sh and the
// Makefile set it); otherwise it is looked for in the workspace's target directory.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const readline = require('node:readline')

function launcherPath() {
  const fromEnv = process.env.LEASEQ_TEST_REDIS
  if (fromEnv) return fromEnv
  const guess = path.resolve(__dirname, '..', '..', '..', 'target', 'debug', 'leaseq-test-redis')
  if (fs.existsSync(guess)) return guess
  throw new Error(
    'leaseq-test-redis not found: run `cargo build -p leaseq-harness` or set LEASEQ_TEST_REDIS',
  )
}

/**
 * Starts a redis-server (or, with `{ cluster: true }`, a 3-primary cluster).
 * Resolves to `{ url, urls, stop, restart }`; `stop()` resolves once the launcher has exited,
 * `restart()` once a single server was restarted with its data.
 */
function startRedis({ cluster = false } = {}) {
  const child = spawn(launcherPath(), cluster ? ['--cluster'] : [], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    child.stdin.end()
    await exited
  }
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout })
    child.once('error', reject)
    exited.then((code) => reject(new Error(`leaseq-test-redis exited (${code}) before answering:\n${stderr}`)))
    lines.once('line', (line) => {
      lines.close()
      try {
        const { url, urls } = JSON.parse(line)
        /** Restarts the server keeping its data (the launcher's `restart`). */
        const restart = () =>
          new Promise((done, fail) => {
            const answers = readline.createInterface({ input: child.stdout })
            answers.once('line', (answer) => {
              answers.close()
              answer.trim() === 'restarted' ? done() : fail(new Error(`restart: ${answer}`))
            })
            child.stdin.write('restart\n')
          })
        resolve({ url, urls, stop, restart })
      } catch (err) {
        reject(new Error(`leaseq-test-redis printed ${JSON.stringify(line)}: ${err.message}`))
      }
    })
  })
}

let counter = 0
/** A queue prefix no other test in this process uses. */
function uniquePrefix(name) {
  counter += 1
  return `{test-${name}-${process.pid}-${counter}}`
}

module.exports = { startRedis, uniquePrefix }
