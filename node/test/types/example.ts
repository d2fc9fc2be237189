// A TypeScript user of the package: `tsc --noEmit --strict` checks it (node/test.sh), and
// test/examples.test.js runs it against a throwaway redis-server.
import {
  Client,
  ErrorCode,
  Item,
  Lease,
  LeaseqError,
  type CleanReport,
  type CompleteAndLeaseResult,
  type LeaseOptions,
  type Queue,
} from 'leaseq'

interface Email {
  to: string
  template: 'welcome' | 'reset'
}

async function send(queue: Queue, email: Email): Promise<boolean> {
  return queue.add(Item.fromJson(email, `email-${email.to}`))
}

async function work(queue: Queue): Promise<number> {
  const options: LeaseOptions = { ttlMs: 30_000, block: true, timeoutMs: 1_000 }
  let sent = 0
  let lease: Lease | null = await queue.lease(options)
  while (lease !== null) {
    const email = lease.json<Email>()
    console.log(`sent ${email.template} to ${email.to} (attempt ${lease.count})`)
    const renewed: boolean = await queue.renew(lease, 30_000)
    if (!renewed) throw new Error('lost the lease')
    const step: CompleteAndLeaseResult = await queue.completeAndLease(lease, { ttlMs: 30_000 })
    if (step.completed) sent += 1
    lease = step.next
  }
  return sent
}

async function main(): Promise<void> {
  const client: Client = await Client.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const queue = client.queue('{typed}')
  const added: boolean = await send(queue, { to: 'ada@example.com', template: 'welcome' })
  const bob: Email = { to: 'bob@example.com', template: 'reset' }
  const bytes: Uint8Array = new TextEncoder().encode(JSON.stringify(bob))
  const batch: number = await queue.addBatch([new Item(bytes), Item.fromJson(bob)])
  await queue.addUnique(new Item(JSON.stringify(bob)))
  if (!added || batch !== 2) throw new Error('adds failed')
  const sent = await work(queue)
  if (sent !== 4) throw new Error(`sent ${sent}`)
  const report: CleanReport = await queue.deepClean()
  const lengths: [number, number] = [await queue.queueLen(), await queue.processingLen()]
  console.log(report.requeued + report.removed, lengths.join(' '))

  const waiting = queue.lease({ ttlMs: 1_000, block: true })
  await client.close()
  try {
    await waiting
  } catch (err: unknown) {
    if (err instanceof LeaseqError && err.code === ErrorCode.CLOSED) {
      const retryable: boolean = err.retryable
      console.log(`closed: ${err.code}${retryable ? ' (retryable)' : ''}`)
    } else {
      throw err
    }
  }
}

/** Never called: lines the type checker must refuse, so the declarations stay strict. */
export function refusedByTheTypes(queue: Queue, lease: Lease): void {
  // @ts-expect-error ttlMs is required
  void queue.lease({ block: true })
  // @ts-expect-error timeoutMs is a number of milliseconds
  void queue.lease({ ttlMs: 1, block: true, timeoutMs: '5s' })
  // @ts-expect-error items are Item instances, not bytes
  void queue.add(Buffer.from('x'))
  // @ts-expect-error leases come from the queue
  void new Lease()
  // @ts-expect-error lease fields are read-only
  lease.token = 'forged'
  // @ts-expect-error not a registry code
  const code: ErrorCode = 'NOT_A_CODE'
  void code
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
