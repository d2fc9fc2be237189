const { Client, Item, UnrecoverableError, Worker } = require('leaseq')

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const emails = client.queue('{welcome}')
  for (const to of ['a@example.com', 'b@example.com', '']) await emails.add(Item.fromJson({ to }))

  const worker = new Worker(
    emails,
    async (job, signal) => {
      const { to } = job.json()
      if (!to) throw new UnrecoverableError('no address') // straight to the dead letters
      console.log(`sending to ${to} (attempt ${job.attempt})`)
      return { sent: to } // kept as the job's result; a throw is retried with the backoff
    },
    { concurrency: 8 },
  )
  // Here the example stops once the queue is drained; a real worker just awaits run().
  const stopWhenDrained = async () => {
    const s = await emails.stats()
    if (s.waiting + s.leased === 0) await worker.close()
  }
  worker.on('completed', stopWhenDrained).on('dead', stopWhenDrained)
  const report = await worker.run()
  console.log(`${report.completed} completed, ${report.dead} dead`)
  await client.close()
}

main()
