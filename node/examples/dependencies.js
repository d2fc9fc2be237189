// Dependencies and flows: a report built from two parts, added in one call; the parts run
// first, the report reads their results, and an email waits for the report.
const { Client, Item } = require('leaseq')

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const queue = client.queue('{reports}')
  // A flow: the parent and its children (an Item, or { item, children } with children of its
  // own), in one call.
  await queue.addFlow(new Item('march', 'report'), [new Item('eu', 'part-eu'), { item: new Item('us', 'part-us') }])
  // Any item may wait for others of its queue; by default it dies if one of them dies.
  await queue.add('send the report', { id: 'email', dependsOn: ['report'] })
  const waits = await queue.dependencies('email')
  console.log(`email waits for ${waits.pending.join(', ')}`)
  console.log(`${await queue.count('blocked')} blocked`)
  for (let lease = await queue.lease(); lease !== null; lease = await queue.lease()) {
    if (lease.id === 'report') {
      // The children's kept results, in order, one round trip.
      const parts = await queue.dependencyResults(lease.id)
      console.log(`report from ${parts.map((p) => `${p.id}=${p.result}`).join(', ')}`)
      await queue.complete(lease)
    } else if (lease.id === 'email') {
      console.log('email sent after the report')
      await queue.complete(lease)
    } else {
      const region = lease.data.toString()
      console.log(`part ${region}`)
      await queue.complete(lease, { result: `${region.length * 21} sales` })
    }
  }
  await client.close()
}

main()
