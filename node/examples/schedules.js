// Recurring jobs: a nightly report on a cron expression in a time zone, and a poll every
// second that a runner fires; exactly one item per tick, whatever the number of runners.
const { Client, Worker } = require('leaseq')

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const queue = client.queue('{reports}')
  // Upsert by name: changing a schedule never fires a tick twice nor skips one.
  await queue.upsertSchedule('nightly', {
    cron: '0 3 * * *',
    tz: 'Europe/Berlin',
    missed: 'once', // ticks missed while no runner ran: fire once, for the latest
    data: JSON.stringify({ kind: 'sales' }),
    name: 'report',
    priority: 5,
  })
  await queue.upsertSchedule('poll', { everyMs: 1000, name: 'poll' })
  const page = await queue.schedules()
  for (const s of page.schedules) {
    console.log(`${s.name}: ${s.schedule.cron ?? `every ${s.schedule.everyMs} ms`}, next ${s.next ? 'set' : 'unknown'}`)
  }

  // Runners fire the schedules of their queues; no scheduler process is needed.
  const worker = new Worker(queue, {
    poll: async (job) => console.log(`poll ran (${job.id.split('@')[0]})`),
    report: async () => console.log('report ran'),
  })
  worker.on('completed', () => worker.close())
  await worker.run()
  await queue.removeSchedule('poll')
  console.log(`${(await queue.schedules()).total} schedule left`)
  await client.close()
}

main()
