'use strict'
// Run by node/test.sh from a project that installed the packed `leaseq` and its platform package:
// loads `leaseq` from that project (CommonJS and ESM), with its addon from the platform package,
// and does one lease cycle on a throwaway redis-server.

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
    await queue.add(cjs.Item.fromJson({ packed: true }))
    const lease = await queue.lease({ ttlMs: 10_000 })
    if (!lease || lease.json().packed !== true || !(await queue.complete(lease))) {
      throw new Error('lease cycle failed')
    }
    await client.close()
  } finally {
    await redis.stop()
  }
  console.log('packed packages: installed without scripts, addon from leaseq-linux-x64-gnu, working')
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
