const { Client, Item } = require('leaseq')

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const queue = client.queue('{quickstart}')

  // A producer adds an item: JSON here, any bytes in general.
  await queue.add(Item.fromJson({ to: 'ada@example.com' }))

  // A worker leases it for 30 s, waiting up to 1 s for one, and completes it with a result.
  // Had the worker died instead, the lease would expire and the item come back.
  const lease = await queue.lease({ ttlMs: 30_000, timeoutMs: 1_000 })
  if (lease !== null) {
    console.log(`sending to ${lease.json().to} (attempt ${lease.attempt})`)
    await queue.complete(lease, { result: 'sent' })

    // Anyone may read the result (or wait for it: waitResult).
    const result = await queue.result(lease.id)
    console.log(`result: ${result.data.toString()}`)
  }
  await client.close()
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
