const { Client, Item, Worker } = require('leaseq')

function parse(amount) {
  const value = Number(amount)
  if (Number.isNaN(value)) throw new TypeError(`not an amount: ${amount}`)
  return value
}

async function main() {
  const client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const invoices = client.queue('{invoices}')
  // Random ids (a UUID each), so that every run adds its own two invoices.
  const bad = Item.fromJson({ amount: 'twelve' }, { maxAttempts: 1 })
  await invoices.addBatch([Item.fromJson({ amount: '12.50' }), bad])

  // `logger`: anything with debug/info/warn/error (console, pino, winston). The runner writes its
  // start (queue, URL without password, concurrency) and stop at info, each failure at warn
  // (retried) or error (dead), each success at debug, below the default `logLevel: 'info'`.
  const worker = new Worker(invoices, async (job) => parse(job.json().amount), { logger: console })
  worker.on('dead', () => worker.close())
  await worker.run()

  // The failed attempt's stack is kept with the job (at most 16 KiB).
  const job = await invoices.get(bad.id)
  console.log(job.trace.split('\n')[0])
  await client.close()
}

main()
