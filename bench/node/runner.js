#!/usr/bin/env node
'use strict'
// The Node workloads of `make bench`: leaseq (the binding; bench/run.sh installs a release build
// of it under bench/node_modules/leaseq) and BullMQ with a no-op processor. Run one at a time by
// bench/driver.py with the protocol described in bench/src/main.rs: print {"ready": true}, wait
// for a line on stdin, run, print {"result": ...}, wait for stdin to close.
//
// Several workers are concurrency in one process: W async loops sharing one leaseq client, and
// BullMQ's own `concurrency: W` option of one Worker.

const readline = require('node:readline')

const WORK_TTL_MS = 30000

function parseArgs() {
  const a = { n: 1000, workers: 1, inflight: 0, batch: 1000, gapMs: 2, payload: 64, sleepMs: 0 }
  const argv = process.argv.slice(2)
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())
    const value = argv[i + 1]
    a[key] = ['client', 'workload', 'url', 'prefix'].includes(key) ? value : Number(value)
  }
  return a
}

const lines = readline.createInterface({ input: process.stdin })
const pending = []
const waiting = []
lines.on('line', (l) => (waiting.length ? waiting.shift()(l) : pending.push(l)))
lines.on('close', () => {
  while (waiting.length) waiting.shift()(null)
  closed = true
})
let closed = false
function nextLine() {
  if (pending.length) return Promise.resolve(pending.shift())
  if (closed) return Promise.resolve(null)
  return new Promise((resolve) => waiting.push(resolve))
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n')
}
let cpuAtGo = null
async function ready() {
  emit({ ready: true })
  await nextLine()
  cpuAtGo = process.cpuUsage()
}
async function finish(result) {
  const cpu = process.cpuUsage(cpuAtGo)
  result.cpu_seconds = (cpu.user + cpu.system) / 1e6
  emit({ result })
  while ((await nextLine()) !== null) {}
}

function payload(size) {
  const b = Buffer.alloc(size)
  for (let i = 0; i < size; i++) b[i] = 97 + (i % 26)
  return b
}
const now = () => process.hrtime.bigint()
function stamped(size) {
  return Buffer.from(now().toString().padStart(20, '0').padEnd(size, '.'))
}
function summary(samples) {
  samples.sort((x, y) => x - y)
  const pick = (q) => samples[Math.round((samples.length - 1) * q)]
  return { samples: samples.length, p50_us: pick(0.5), p99_us: pick(0.99), max_us: samples[samples.length - 1] }
}
const secondsSince = (t0) => Number(now() - t0) / 1e9

// ------------------------------------------------------------------ leaseq

async function runLeaseq(a) {
  const { Client, Item } = require('leaseq')
  const client = await Client.connect(a.url)
  const q = client.queue(a.prefix)
  const data = payload(a.payload)
  const prefill = async (n) => {
    for (let s = 0; s < n; s += 10000) {
      const k = Math.min(10000, n - s)
      await q.addBatch(Array.from({ length: k }, () => new Item(data)))
    }
  }
  try {
    switch (a.workload) {
      case 'add_single': {
        const items = Array.from({ length: a.n }, () => new Item(data))
        await ready()
        const t0 = now()
        let added = 0
        for (const item of items) added += (await q.add(item)) ? 1 : 0
        check(added, a.n, 'added')
        return await finish({ items: added, seconds: secondsSince(t0) })
      }
      case 'add_batch': {
        const items = Array.from({ length: a.n }, () => new Item(data))
        await ready()
        const t0 = now()
        let added = 0
        for (let s = 0; s < a.n; s += a.batch) added += await q.addBatch(items.slice(s, s + a.batch))
        check(added, a.n, 'added')
        return await finish({ items: added, seconds: secondsSince(t0), batch: a.batch })
      }
      case 'lease_complete': {
        await prefill(a.n)
        await ready()
        let done = 0
        const worker = async () => {
          let lease = await q.lease({ ttlMs: WORK_TTL_MS })
          while (lease) {
            const { completed, next } = await q.completeAndLease(lease, { ttlMs: WORK_TTL_MS })
            if (!completed) throw new Error(`complete of ${lease.id} returned false`)
            done++
            lease = next
          }
        }
        const t0 = now()
        await Promise.all(Array.from({ length: a.workers }, worker))
        const seconds = secondsSince(t0)
        check(done, a.n, 'completed')
        return await finish({ items: done, seconds, workers: a.workers })
      }
      case 'lease_then_complete': {
        // Two calls per item: lease, then complete.
        await prefill(a.n)
        await ready()
        let done = 0
        const t0 = now()
        for (let lease = await q.lease({ ttlMs: WORK_TTL_MS }); lease; lease = await q.lease({ ttlMs: WORK_TTL_MS })) {
          if (!(await q.complete(lease))) throw new Error(`complete of ${lease.id} returned false`)
          done++
        }
        const seconds = secondsSince(t0)
        check(done, a.n, 'completed')
        return await finish({ items: done, seconds, workers: a.workers })
      }
      case 'runner': {
        // leaseq's Worker at concurrency `workers`, a no-op (or sleeping) handler, nothing kept
        // of a finished job: the time until every prefilled item is completed and run() has
        // resolved (close() drains and flushes the completes). With --duration-ms it closes that
        // long after `go` instead, whatever is left (several runners share the queue).
        const { Worker } = require('leaseq')
        await prefill(a.n)
        await ready()
        let started = 0
        const sleepMs = a.sleepMs
        const durationMs = a.durationMs || 0
        const worker = new Worker(
          q,
          async () => {
            if (++started === a.n && !durationMs) worker.close()
            if (sleepMs > 0) await sleep(sleepMs)
          },
          { concurrency: a.workers, leaseTtlMs: WORK_TTL_MS, keepResults: false, handleSignals: false },
        )
        const t0 = now()
        const timer = durationMs ? setTimeout(() => worker.close(), durationMs) : null
        const report = await worker.run()
        const seconds = secondsSince(t0)
        if (timer) clearTimeout(timer)
        else check(report.completed, a.n, 'completed')
        return await finish({
          items: report.completed,
          seconds,
          workers: a.workers,
          sleep_ms: sleepMs,
          duration_ms: durationMs,
        })
      }
      case 'latency': {
        let report
        const worker = (async () => {
          for (let i = 0; i < a.n; i++) {
            const lease = await q.lease({ ttlMs: WORK_TTL_MS, timeoutMs: Infinity })
            const t = now()
            report(Number(t - BigInt(lease.data.subarray(0, 20).toString())) / 1000)
            await q.complete(lease)
          }
        })()
        await sleep(300)
        await ready()
        const samples = []
        const t0 = now()
        for (let i = 0; i < a.n; i++) {
          await sleep(a.gapMs)
          const got = new Promise((resolve) => (report = resolve))
          await q.add(new Item(stamped(a.payload)))
          samples.push(await got)
        }
        const seconds = secondsSince(t0)
        await worker
        return await finish({ ...summary(samples), items: a.n, seconds })
      }
      default:
        throw new Error(`unknown workload ${a.workload}`)
    }
  } finally {
    await client.close()
  }
}

// ------------------------------------------------------------------ BullMQ

async function runBullmq(a) {
  const { Queue, Worker } = require('bullmq')
  const u = new URL(a.url)
  const connection = { host: u.hostname, port: Number(u.port), maxRetriesPerRequest: null }
  const name = a.prefix
  const queue = new Queue(name, { connection })
  // Like leaseq, nothing is kept of a completed job.
  const jobOpts = { removeOnComplete: true, removeOnFail: true }
  const data = { p: payload(a.payload).toString() }
  await queue.waitUntilReady()
  const prefill = async (n) => {
    for (let s = 0; s < n; s += 1000) {
      const k = Math.min(1000, n - s)
      await queue.addBulk(Array.from({ length: k }, () => ({ name: 'j', data, opts: jobOpts })))
    }
  }
  const closers = [() => queue.close()]
  try {
    switch (a.workload) {
      case 'add_single': {
        await ready()
        const t0 = now()
        for (let i = 0; i < a.n; i++) await queue.add('j', data, jobOpts)
        return await finish({ items: a.n, seconds: secondsSince(t0) })
      }
      case 'add_batch': {
        await ready()
        const t0 = now()
        for (let s = 0; s < a.n; s += a.batch) {
          const k = Math.min(a.batch, a.n - s)
          await queue.addBulk(Array.from({ length: k }, () => ({ name: 'j', data, opts: jobOpts })))
        }
        return await finish({ items: a.n, seconds: secondsSince(t0), batch: a.batch })
      }
      case 'lease_then_complete': {
        // BullMQ's manual processing: getNextJob, then moveToCompleted without fetching the next.
        await prefill(a.n)
        const worker = new Worker(name, null, { connection, autorun: false })
        closers.unshift(() => worker.close())
        await worker.waitUntilReady()
        await ready()
        const token = 'bench'
        let done = 0
        const t0 = now()
        for (let job = await worker.getNextJob(token, { block: false }); job; job = await worker.getNextJob(token, { block: false })) {
          await job.moveToCompleted('ok', token, false)
          done++
        }
        const seconds = secondsSince(t0)
        check(done, a.n, 'completed')
        return await finish({ items: done, seconds, workers: a.workers })
      }
      case 'lease_complete':
      case 'runner': {
        await prefill(a.n)
        let done = 0
        let allDone
        const finished = new Promise((resolve) => (allDone = resolve))
        const sleepMs = a.sleepMs
        const processor = sleepMs > 0 ? () => sleep(sleepMs) : async () => {}
        const worker = new Worker(name, processor, { connection, concurrency: a.workers, autorun: false })
        closers.unshift(() => worker.close())
        worker.on('completed', () => {
          if (++done === a.n) allDone()
        })
        worker.on('failed', (job, err) => {
          console.error('bullmq job failed', err)
          process.exit(1)
        })
        await worker.waitUntilReady()
        await ready()
        const t0 = now()
        worker.run()
        await finished
        const seconds = secondsSince(t0)
        return await finish({ items: done, seconds, workers: a.workers })
      }
      case 'latency': {
        let report
        const worker = new Worker(
          name,
          async (job) => {
            const t = now()
            report(Number(t - BigInt(job.data.t)) / 1000)
          },
          { connection },
        )
        closers.unshift(() => worker.close())
        await worker.waitUntilReady()
        await sleep(300)
        await ready()
        const samples = []
        const t0 = now()
        for (let i = 0; i < a.n; i++) {
          await sleep(a.gapMs)
          const got = new Promise((resolve) => (report = resolve))
          await queue.add('j', { t: now().toString(), p: data.p.slice(20) }, jobOpts)
          samples.push(await got)
        }
        const seconds = secondsSince(t0)
        return await finish({ ...summary(samples), items: a.n, seconds })
      }
      default:
        throw new Error(`unknown workload ${a.workload}`)
    }
  } finally {
    for (const close of closers) await close()
  }
}

function check(got, want, what) {
  if (got !== want) throw new Error(`${what} ${got} items, expected ${want}`)
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const a = parseArgs()
const run = { leaseq: runLeaseq, bullmq: runBullmq }[a.client]
if (!run) {
  console.error(`unknown client ${a.client}`)
  process.exit(2)
}
run(a).then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
