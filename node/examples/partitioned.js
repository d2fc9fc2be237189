// A partitioned queue: one queue stored as four partitions, each in a slot of its own (on a
// Redis Cluster, connected with Client.cluster, spread over its primaries), fed and drained as
// one.
const { Client, Item, Worker } = require('leaseq')

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  // Created once with its partition count (again with the same count: the same queue). The
  // base needs a hash tag.
  const orders = await client.createPartitioned('{orders-by-customer}', 4)
  console.log(`${orders.partitions.length} partitions`)
  // Every transition recorded in its partition's event stream (off by default).
  await orders.setConfig({ events: true })

  // Items go by their group (a customer's orders stay together, in order), else by their id.
  const items = [
    ...[0, 1, 2, 3, 4, 5].map((i) => new Item(`order ${i}`, { group: `customer-${i % 2}` })),
    ...[0, 1, 2, 3].map((i) => new Item(`refund ${i}`)),
  ]
  console.log(`added ${await orders.addBatch(items)}`)
  // partitionOf says where an item goes, sending nothing.
  const [first, third] = [orders.partitionOf(items[0]), orders.partitionOf(items[2])]
  console.log(`order 0 and order 2 in partition ${first} and ${third}`)

  // A single lease asks the partitions in turn; it is finished in its own partition.
  const lease = await orders.lease({ ttlMs: 30_000 })
  if (lease !== null) {
    await orders.complete(lease)
    // queueOf gives the partition that issued it, as a Queue (to renew or release it, say).
    const home = orders.queueOf(lease)
    console.log(`completed ${lease.data} in partition ${orders.partitions.indexOf(home.prefix)}`)
  }

  // The base is no queue: opened as a plain one, it refuses the work no runner would see.
  const refused = await client.queue('{orders-by-customer}').add(new Item('lost')).catch((err) => err)
  console.log(refused.code) // INVALID_ARGUMENT

  // A runner serves every partition, none starved while it has work. Here it stops once the
  // queue is drained; a real worker just awaits run().
  const handle = async (job) => console.log(`handled ${job.data}`)
  const worker = new Worker(orders, handle, { concurrency: 4 })
  worker.on('completed', async () => {
    const { total } = await orders.stats()
    if (total.waiting + total.leased === 0) await worker.close()
  })
  const report = await worker.run()
  console.log(`the runner completed ${report.completed}`)

  // Reads see the logical queue, and each partition's figures beside it.
  const stats = await orders.stats()
  console.log(`waiting ${stats.total.waiting} in ${stats.partitions.length} partitions`)

  // Every partition's stream, followed as one ('0-0': from the oldest entry kept); each entry
  // names its partition, and follower.position resumes after all of them.
  const follower = orders.events({ after: '0-0' })
  const kinds = {}
  let seen = 0
  for await (const ev of follower) {
    kinds[ev.event] = (kinds[ev.event] ?? 0) + 1
    if (++seen === 30) break
  }
  console.log(`events: ${Object.keys(kinds).sort().map((k) => `${kinds[k]} ${k}`).join(', ')}`)
  await client.close()
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
