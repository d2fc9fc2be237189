const { Client, Item, LeaseqError } = require('leaseq') // or: import { Client, Item } from 'leaseq'

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const emails = client.queue('{emails}') // or: await Client.cluster([url, ...])
  await emails.setConfig({ stats: true }) // per-minute counters: off unless the queue turns them on

  // Producers: data is a Buffer, Uint8Array or string (Item.fromJson encodes JSON), with
  // options. Ids are random UUIDs unless you pass one: add resolves to false when it exists.
  await emails.add(Item.fromJson({ to: 'ada@example.com' }))
  console.log(await emails.add('report 7', { id: 'report-7' })) // true
  console.log(await emails.add('report 7 again', { id: 'report-7' })) // false
  console.log(await emails.addBatch([new Item(Buffer.from([1, 2])), new Item('job', { priority: 5 })])) // 2
  await emails.add('digest', { id: 'digest', runAt: new Date(Date.now() + 86_400_000) }) // delayed
  await emails.add('flaky', { id: 'flaky', maxAttempts: 2, backoff: { type: 'fixed', delayMs: 0 } })

  // A worker: each lease lasts 30 s unless `ttlMs` says otherwise, and waits up to 1 s for
  // work (`timeoutMs: Infinity` waits until work comes; without `timeoutMs` it does not wait).
  // The wait happens in Redis: the event loop stays free, other calls on the client go on.
  for (let lease; (lease = await emails.lease({ timeoutMs: 1_000 })) !== null; ) {
    console.log(`${lease.id} (attempt ${lease.attempt}): ${lease.data.length} bytes`)
    try {
      if (lease.id === 'flaky') throw new Error('SMTP timeout')
      await emails.progress(lease, 'rendered') // shown by get(id)
      await emails.complete(lease, { result: `sent ${lease.id}` }) // true: ours to complete
    } catch (err) {
      // Retried after its backoff while it has attempts left, then dead; { retry: 'never' }
      // makes it dead at once, { retry: { afterMs } } picks the delay.
      console.log(await emails.fail(lease, err)) // retrying, then dead
    }
  }

  // Results, state, dead letters, stats.
  console.log((await emails.waitResult('report-7', { timeoutMs: 1_000 })).data.toString()) // sent report-7
  const flaky = await emails.get('flaky')
  console.log(flaky.state, flaky.attempts, flaky.errorType, flaky.error) // dead 2 Error SMTP timeout
  console.log(await emails.deadRequeue(['flaky'])) // 1: waiting again, attempts reset
  console.log(await emails.cancel('digest')) // delayed: the state it was in; now it is gone
  const { waiting, delayed, dead, lastHour } = await emails.stats() // lastHour: null while counters are off
  console.log(waiting, delayed, dead, lastHour.completed, lastHour.failed) // 1 0 0 4 2

  // Defaults for the queue's items, stored in Redis and shared by every client and language.
  await emails.setConfig({ maxAttempts: 5, backoff: { type: 'exponential', baseMs: 1_000, capMs: 60_000 } })
  console.log(JSON.stringify(await emails.config()))
  await emails.resetConfig()

  try {
    await emails.lease({ ttlMs: 0 })
  } catch (err) {
    if (!(err instanceof LeaseqError)) throw err
    console.log(err.code, err.argument) // INVALID_ARGUMENT ttlMs
  }
  await client.close() // waiting leases reject with code CLOSED, and so does every later call
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
