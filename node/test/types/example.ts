// A TypeScript user of the package: `tsc --noEmit --strict` checks it (node/test.sh), and
// test/examples.test.js runs it against a throwaway redis-server.
import {
  Client,
  ErrorCode,
  Item,
  Lease,
  LeaseqError,
  Worker,
  type Backoff,
  type CleanReport,
  type CompleteAndLeaseResult,
  type FailOutcome,
  type Found,
  type Job,
  type JobResult,
  type LeaseOptions,
  type ListEntry,
  type NameCounts,
  type Queue,
  type QueueConfig,
  type RenewOutcome,
  type Dependencies,
  type DependencyResult,
  type EventFollower,
  type EventsPage,
  type FireReport,
  type QueueEvent,
  type ScheduleInfo,
  type SchedulePage,
  type Stats,
  type WorkerHandlers,
  type WorkerJob,
} from 'leaseq'

interface Email {
  to: string
  template: 'welcome' | 'reset'
}

async function send(queue: Queue, email: Email): Promise<boolean> {
  return queue.add(Item.fromJson(email, `email-${email.to}`))
}

async function work(queue: Queue): Promise<number> {
  const options: LeaseOptions = { ttlMs: 30_000, timeoutMs: 1_000 }
  let sent = 0
  let lease: Lease | null = await queue.lease(options)
  while (lease !== null) {
    const email = lease.json<Email>()
    console.log(`sent ${email.template} to ${email.to} (attempt ${lease.count})`)
    const renewed: boolean = await queue.renew(lease, { ttlMs: 30_000 })
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

  await lifecycle(client.queue('{typed-lifecycle}'))

  const waiting = queue.lease({ ttlMs: 1_000, timeoutMs: Infinity })
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

/** The job lifecycle: options, retries, dead letters, results, state. */
async function lifecycle(queue: Queue): Promise<void> {
  const backoff: Backoff = { type: 'exponential', baseMs: 1_000, capMs: 60_000, jitter: false }
  const config: QueueConfig = { maxAttempts: 3, backoff, deadMaxCount: 100, stats: true }
  await queue.setConfig(config)
  const stored: QueueConfig = await queue.config()
  if (stored.maxAttempts !== 3) throw new Error('config not stored')
  await queue.add('later', { id: 'later', runAt: new Date(Date.now() + 3_600_000) })
  await queue.add(new Item('urgent', { id: 'urgent', priority: 10, keepResultForMs: 60_000 }))
  await queue.addBatch([Item.fromJson({ n: 1 }, { id: 'flaky', maxAttempts: 1 })])

  const first = await queue.lease()
  if (first === null || first.id !== 'urgent') throw new Error('priority first')
  // Another process can finish a lease from its parts (sent nothing, returned as it is).
  const rebuilt: Lease = queue.leaseFromParts(first.id, first.token, first.incarnation, first.attempt)
  const progressed: boolean = await queue.progress(rebuilt, '50%')
  const outcome: RenewOutcome = await queue.renewOutcome(first, { ttlMs: 10_000 })
  await queue.complete(first, { result: JSON.stringify({ ok: true }) })
  const result: JobResult | null = await queue.waitResult('urgent', 1_000)
  console.log(`urgent: ${outcome}, progress ${progressed}, result ${result?.data.toString()}`)

  const [flaky]: Lease[] = await queue.leaseBatch(5, { ttlMs: 10_000 })
  const failed: FailOutcome = await queue.fail(flaky, new TypeError('bad input'), { retry: 'default' })
  const job: Job | null = await queue.get('flaky')
  const dead: ListEntry[] = await queue.list('dead', { count: 10 })
  console.log(`flaky: ${failed}, ${job?.state} (${job?.deadReason}), ${dead.length} dead, ${job?.errorType}`)
  const typeErrors: Found = await queue.find('dead', { errorType: 'TypeError' })
  const promoted: boolean = await queue.promote('flaky')
  console.log(`TypeError: ${typeErrors.entries.length} of ${typeErrors.examined} looked at, promoted ${promoted}`)
  const requeued: number = await queue.deadRequeue(['flaky', ...dead.map((e) => e.idBytes)])
  const byBytes: Job | null = await queue.get(flaky.idBytes)
  // Infinity waits until the result comes; flaky failed, so only read it.
  const forever: JobResult | null = await queue.waitResult(flaky.idBytes, { timeoutMs: byBytes?.result ? Infinity : 0 })
  console.log(`by bytes: ${byBytes?.idBytes.length}, ${forever?.data.length}`)
  const later = await queue.get('later')
  const dueAt: Date | null = later?.dueAt ?? null
  console.log(`requeued ${requeued}, later due ${dueAt instanceof Date}, cancelled ${await queue.cancel('later')}`)
  const stats: Stats = await queue.stats()
  // lastHour is null while the queue's counters are off (config above turns them on).
  const completed: number | string = stats.lastHour?.completed ?? 'uncounted'
  console.log(`stats: ${stats.waiting} waiting, ${completed} completed, ${await queue.count('dead')} dead`)
  const renewed: RenewOutcome[] = await queue.renewBatch([], { ttlMs: 10_000 })
  const step: { completed: boolean[]; leases: Lease[] } = await queue.completeAndLeaseBatch([], 0, { ttlMs: 10_000 })
  const done: boolean[] = await queue.completeBatch(step.leases.map((lease) => ({ lease, result: 'ok' })))
  const failedMany: FailOutcome[] = await queue.failBatch([])
  if (renewed.length + done.length + failedMany.length !== 0) throw new Error('empty batches')
  await queue.resetConfig()
}

/** Never called: jobs by name as TypeScript sees them. */
export async function byName(queue: Queue): Promise<NameCounts[]> {
  await queue.add(Item.fromJson({ to: 'ada@example.com' }, { name: 'sendEmail' }))
  const lease: Lease | null = await queue.lease()
  const leasedName: string | null = lease?.name ?? null
  const jobName: string | null = (await queue.get('id'))?.name ?? null
  const handlers: WorkerHandlers = {
    sendEmail: async (job: WorkerJob) => job.json<Email>().to,
    resize: (job) => job.name,
  }
  const worker = new Worker(queue, handlers, {
    fallback: async (job, signal) => (signal.aborted ? null : `${job.name ?? 'no name'} ${leasedName} ${jobName}`),
  })
  await worker.run()
  return (await queue.countsByName()) ?? []
}

/** Never called: schedules, flows and events as TypeScript sees them. */
export async function issue26(queue: Queue): Promise<string[]> {
  const isNew: boolean = await queue.upsertSchedule('nightly', { cron: '0 3 * * *', tz: 'UTC', missed: 'all:5', data: 'x', priority: 1 })
  await queue.upsertSchedule('poll', { everyMs: 1_000, missed: 'once', name: 'poll' })
  const info: ScheduleInfo | null = await queue.getSchedule('nightly')
  const page: SchedulePage = await queue.schedules({ start: 0, count: 10 })
  const fired: FireReport = await queue.fireDueSchedules()
  const removed: boolean = await queue.removeSchedule('poll')
  const added: number = await queue.addFlow(new Item('p', 'p'), [new Item('a', 'a'), { item: new Item('b', 'b'), children: [new Item('c', 'c')] }])
  await queue.add('d', { dependsOn: ['p'], onDependencyFailure: 'run' })
  const deps: Dependencies = await queue.dependencies('d')
  const results: DependencyResult[] = await queue.dependencyResults('p')
  await queue.setConfig({ events: true, eventsMaxLen: 1_000, eventsMaxAgeMs: 60_000 })
  const events: EventsPage = await queue.readEvents({ after: '0-0', count: 10 })
  const follower: EventFollower = queue.events({ after: events.last })
  follower.on('event', (ev: QueueEvent) => void ev.jobId).on('close', () => undefined)
  const seen: string[] = []
  for await (const ev of queue.events()) {
    seen.push(`${ev.event} ${ev.jobId} ${ev.time.getTime()} ${ev.due?.getTime()}`)
    break
  }
  follower.close()
  const blocked: number = await queue.count('blocked')
  seen.push(`${isNew} ${info?.next} ${page.total} ${fired.fired} ${removed} ${added} ${deps.pending} ${results.length} ${blocked}`)
  return seen
}

/** Never called: lines the type checker must refuse, so the declarations stay strict. */
export function refusedByTheTypes(queue: Queue, lease: Lease): void {
  // @ts-expect-error ttlMs is a number of milliseconds
  void queue.lease({ ttlMs: '30s' })
  // @ts-expect-error timeoutMs is a number of milliseconds
  void queue.lease({ ttlMs: 1, block: true, timeoutMs: '5s' })
  // @ts-expect-error items are Items or bytes, not numbers
  void queue.add(42)
  // @ts-expect-error an Item carries its own options
  void queue.add(new Item('x'), { priority: 1 })
  // @ts-expect-error a backoff has a type
  void queue.setConfig({ backoff: { delayMs: 5 } })
  // @ts-expect-error retry is 'default', 'never' or { afterMs }
  void queue.fail(lease, 'x', { retry: 'always' })
  // @ts-expect-error a state is one of the item's states
  void queue.list('finished')
  // @ts-expect-error find's filters are options
  void queue.find('dead', 'Timeout')
  // @ts-expect-error waitResult needs its timeout
  void queue.waitResult('id')
  // @ts-expect-error n is positional
  void queue.completeAndLeaseBatch([], { n: 1 })
  // @ts-expect-error an unknown option
  void queue.complete(lease, { keepResultFor: 1000 })
  // @ts-expect-error leaseFromParts returns the Lease itself
  void queue.leaseFromParts('id', 'token', 'incarnation', 1).then(() => undefined)
  // @ts-expect-error leases come from the queue
  void new Lease()
  // @ts-expect-error lease fields are read-only
  lease.token = 'forged'
  // @ts-expect-error a handler by name is a function
  void new Worker(queue, { sendEmail: 'mail' })
  // @ts-expect-error an item's name is a string
  void new Item('x', { name: 5 })
  // @ts-expect-error a schedule's missed policy is skip, once or all:<n>
  void queue.upsertSchedule('s', { everyMs: 1_000, missed: 'sometimes' })
  // @ts-expect-error a schedule's item has no id
  void queue.upsertSchedule('s', { everyMs: 1_000, id: 'x' })
  // @ts-expect-error a dependency policy is fail or run
  void queue.add('x', { dependsOn: ['a'], onDependencyFailure: 'retry' })
  // @ts-expect-error a follower is not a Promise
  void queue.events().then(() => undefined)
  // @ts-expect-error not a registry code
  const code: ErrorCode = 'NOT_A_CODE'
  void code
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
