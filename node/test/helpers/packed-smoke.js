'use strict'
// Run by node/test.sh from a project that installed the packed `leaseq` and its platform package:
// loads `leaseq` from that project (CommonJS and ESM), with its addon from the platform package,
// does one lease cycle on a throwaway redis-server, and runs the package's `bin` through
// `npx leaseq` (--help, and stats --json on the queue the cycle used).

const { execFileSync } = require('node:child_process')
const path = require('node:path')
const { createRequire } = require('node:module')
const { pathToFileURL } = require('node:url')

const { startRedis } = require('./redis')

async function main() {
  const project = process.cwd()
  const cjs = createRequire(path.join(project, 'index.js'))('leaseq')
  const resolved = createRequire(path.join(project, 'index.js')).resolve('leaseq')
  if (!resolved.startsWith(path.join(project, 'node_modules') + path.sep)) {
    throw new Error(`leaseq resolved outside the project: ${resolved}`)
  }
  const addon = createRequire(resolved).resolve('leaseq-linux-x64-gnu')
  if (!addon.startsWith(path.join(project, 'node_modules', 'leaseq-linux-x64-gnu') + path.sep)) {
    throw new Error(`the addon resolved outside the platform package: ${addon}`)
  }
  const esm = await import(pathToFileURL(path.join(path.dirname(resolved), 'index.mjs')).href)
  if (esm.Client !== cjs.Client) throw new Error('ESM and CommonJS differ')

  const redis = await startRedis()
  try {
    const client = await cjs.Client.connect(redis.url)
    const queue = client.queue('{packed}')
    await queue.setConfig({ stats: true }) // the per-minute counters `leaseq stats` reports
    await queue.add(cjs.Item.fromJson({ packed: true }))
    const lease = await queue.lease({ ttlMs: 10_000 })
    if (!lease || lease.json().packed !== true || !(await queue.complete(lease))) {
      throw new Error('lease cycle failed')
    }
    await client.close()

    // `npx leaseq`: node_modules/.bin/leaseq of this project, nothing fetched.
    const npx = (...args) =>
      execFileSync('npx', ['--no-install', 'leaseq', ...args], { cwd: project, encoding: 'utf8' })
    if (!npx('--help').includes('Usage: leaseq')) throw new Error('npx leaseq --help printed no usage')
    const stats = JSON.parse(npx('stats', '--url', redis.url, '-q', '{packed}', '--json'))
    if (stats.queue !== '{packed}' || stats.waiting !== 0 || stats.last_hour.completed !== 1) {
      throw new Error(`npx leaseq stats: ${JSON.stringify(stats)}`)
    }
  } finally {
    await redis.stop()
  }
  console.log('packed packages: installed without scripts, addon from leaseq-linux-x64-gnu, working; npx leaseq too')
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
