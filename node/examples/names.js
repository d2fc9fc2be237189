const { Client, Item, Worker } = require('leaseq')

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const jobs = client.queue('{jobs-by-name}')
  await jobs.setConfig({ stats: true }) // the per-minute counters, which countsByName sums
  await jobs.add(Item.fromJson({ to: 'ada@example.com' }, { id: 'mail-1', name: 'sendEmail' }))
  await jobs.add(Item.fromJson({ width: 640 }, { id: 'photo-1', name: 'resize' }))
  await jobs.add(Item.fromJson({}, { id: 'video-1', name: 'transcode' })) // no handler has it

  // Each key is an item name, used as given: items named 'sendEmail' by a producer in any
  // language come to the first handler. A `fallback` option would take the jobs no key takes.
  const worker = new Worker(jobs, {
    sendEmail: async (job) => console.log(`mail to ${job.json().to}`),
    resize: async (job) => console.log(`${job.name}: ${job.json().width} px`),
  })
  const stopWhenDrained = async () => {
    const s = await jobs.stats()
    if (s.waiting + s.leased === 0) await worker.close()
  }
  worker.on('completed', stopWhenDrained).on('dead', stopWhenDrained)
  const report = await worker.run()
  console.log(`${report.completed} completed, ${report.dead} dead`)
  const video = await jobs.get('video-1')
  console.log(`video-1: ${video.state}, ${video.errorType}`) // dead, NoHandler: no retry
  for (const c of await jobs.countsByName()) {
    console.log(`${c.name}: ${c.completed} completed, ${c.dead} dead`)
  }
  await client.close()
}

main()
