// The event stream: a queue's transitions, followed from now by one process (for await) and
// read again after a stored position by another (an EventEmitter), as a process that restarts
// resumes where it stopped.
const { Client } = require('leaseq')

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const queue = client.queue('{order-events}')
  await queue.setConfig({ events: true }) // off by default: off, the stream costs nothing

  // Follow from now; the reads wait off the event loop, so this process goes on meanwhile.
  const follower = queue.events()
  await follower.ready
  let firstId = null
  const following = (async () => {
    for await (const ev of follower) {
      firstId ??= ev.id
      console.log(`${ev.event} ${ev.jobId} (attempt ${ev.attempt})`)
      if (ev.event === 'completed') break // closes the follower
    }
  })()
  await queue.add('2 books', { id: 'order-1' })
  const lease = await queue.lease()
  await queue.complete(lease)
  await following

  // Resume after a stored position: every entry after it still in the stream.
  const resumed = queue.events({ after: firstId })
  const kinds = []
  await new Promise((resolve) => {
    resumed.on('event', (ev) => {
      kinds.push(ev.event)
      if (ev.event === 'completed') resumed.close()
    })
    resumed.on('close', resolve)
  })
  console.log(`after ${firstId === null ? '?' : 'the first'}: ${kinds.join(', ')}`)
  await client.close()
}

main()
