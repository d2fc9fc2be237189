'use strict'
// The Node binding against the core's table of operations (`leaseq::operations`, given to JS by
// the addon's `operations()` and `events()`), the way errors.test.js holds the error codes to
// spec/errors.md. For every operation: `Queue` has the method of its Node name; index.d.ts
// declares it with the required arguments positional (Node names, in order) and every optional
// one positional or a key of its options type (read with the TypeScript compiler, options
// interfaces resolved); nothing public on `Queue` is missing from the table; and at runtime a
// missing argument, an unknown option and a value of no kind are each refused naming the
// argument. The Worker's events are the core's, in camelCase. `PartitionedQueue` is held to the
// core's table of a partitioned queue's operations (`partitionedOperations()`) the same way: a
// method per operation, one that shares its name with a queue operation declared with `Queue`'s
// parameters, and nothing public beyond a listed few.

const assert = require('node:assert/strict')
const path = require('node:path')
const { after, before, describe, test } = require('node:test')

const ts = require('typescript')

const { Client, Item, Lease, LeaseqError, PartitionedQueue, Queue } = require('..')
const native = require('../lib/native')
const { startRedis, uniquePrefix } = require('./helpers/redis')

const PACKAGE_ROOT = path.resolve(__dirname, '..')
const INDEX_DTS = path.join(PACKAGE_ROOT, 'index.d.ts')

/** Public members of `Queue` that are not operations, and why. */
const NON_OPERATIONS = {
  prefix: "the queue's key prefix, a property (nothing is sent)",
}

/**
 * Public members of `PartitionedQueue` that are not operations of the partitioned table, and
 * why: none sends anything, and none is an operation of another language's partitioned queue.
 */
const PARTITIONED_NON_OPERATIONS = {
  base: 'the base that names the logical queue, a property',
  partitions: "the partitions' prefixes, a property (Python's too)",
  partitionQueues: 'every partition as a Queue at once, as a Worker takes them; the table\'s `partition` gives one',
}

/**
 * Options a Node method takes beyond the table's arguments, and why: each is an idiom of its own
 * (the table's `block` is Python's alone; Node keeps `block` only as a deprecated alias of
 * `timeoutMs`).
 */
const EXTRA_OPTIONS = {
  lease: ['block'],
}

/**
 * Operations that return an object at once rather than a Promise, and why: `events` gives a
 * follower to iterate (`for await`) or listen to, so it throws for an argument of the wrong
 * type, and rejects its `ready` (and first read) with the core's refusal.
 */
const FOLLOWERS = new Set(['events'])

/**
 * Events the Worker emits under another name than the core's camelCase, and why: an
 * EventEmitter throws an `error` event nobody listens to, and a Redis outage the runner rides
 * through must not crash the process.
 */
const RENAMED_EVENTS = { error: 'outage' }

/**
 * Options a `PartitionedQueue` method takes beyond the table's arguments, and why: none (the
 * `block` of `Queue#lease` is a deprecated alias that a newer class need not carry).
 */
const PARTITIONED_EXTRA_OPTIONS = {}

const operations = native.operations()
const partitionedOperations = native.partitionedOperations()
const events = native.events()

/** The arguments Node has, of an operation of the table. */
function nodeArgs(op) {
  return op.args.filter((a) => a.inNode)
}

/** index.d.ts as the TypeScript compiler reads it (read once). */
function readDts() {
  readDts.read ??= readDtsNow()
  return readDts.read
}

function readDtsNow() {
  const program = ts.createProgram([INDEX_DTS], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    types: ['node'],
    typeRoots: [path.join(PACKAGE_ROOT, 'node_modules', '@types')],
  })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(INDEX_DTS)
  assert.ok(source, 'index.d.ts is read')
  const diagnostics = ts.getPreEmitDiagnostics(program, source)
  assert.deepEqual(
    diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    [],
    'index.d.ts type-checks',
  )
  /** The declared class `name`: its instance type's members, by name. */
  const classMembers = (name) => {
    const decl = source.statements.find((s) => ts.isClassDeclaration(s) && s.name?.text === name)
    assert.ok(decl, `index.d.ts declares class ${name}`)
    const type = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(decl.name))
    const members = new Map()
    for (const symbol of checker.getPropertiesOfType(type)) {
      const d = symbol.valueDeclaration ?? symbol.declarations?.[0]
      const isPrivate = d && ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Private
      if (!isPrivate) members.set(symbol.getName(), { symbol, type: checker.getTypeOfSymbolAtLocation(symbol, decl) })
    }
    return members
  }
  return { checker, classMembers }
}

/** The names of an options parameter's type: the properties of its object members. */
function optionKeys(checker, type) {
  const members = type.isUnion() ? type.types : [type]
  const keys = new Set()
  for (const t of members) {
    if (!(t.flags & ts.TypeFlags.Object)) continue // `number` in `{ ttlMs } | number`, undefined
    for (const p of checker.getPropertiesOfType(t)) keys.add(p.getName())
  }
  return keys
}

/**
 * A signature's parameters in words, to compare two classes' declarations: each parameter's
 * name, whether it is optional, and its type; an options object by its keys (but `leaveOut`).
 */
function describeSignature(checker, signature, leaveOut = []) {
  return parameters(checker, signature)
    .map((p) => {
      const type =
        p.name === 'options'
          ? `{ ${[...optionKeys(checker, p.type)].filter((k) => !leaveOut.includes(k)).sort().join(', ')} }`
          : checker.typeToString(p.type)
      return `${p.rest ? '...' : ''}${p.name}${p.optional ? '?' : ''}: ${type}`
    })
    .join(', ')
}

/** A signature's parameters: { name, optional, type }. */
function parameters(checker, signature) {
  return signature.getParameters().map((p) => {
    const decl = /** @type {import('typescript').ParameterDeclaration} */ (p.valueDeclaration)
    return {
      name: p.getName(),
      optional: checker.isOptionalParameter(decl),
      rest: decl.dotDotDotToken !== undefined,
      type: checker.getTypeOfSymbolAtLocation(p, decl),
    }
  })
}

/**
 * Whether `signature` declares `op` as the table says; returns the way it takes the optional
 * arguments ({ positional, options: string | null }), or throws an AssertionError saying why not.
 */
function match(checker, op, signature, extraOptions = EXTRA_OPTIONS) {
  const args = nodeArgs(op)
  const required = args.filter((a) => a.required).map((a) => a.nodeName)
  const optional = args.filter((a) => !a.required).map((a) => a.nodeName)
  const params = parameters(checker, signature)
  const shown = `${op.nodeName}(${params.map((p) => p.name + (p.optional ? '?' : '')).join(', ')})`
  assert.ok(!params.some((p) => p.rest), `${shown}: no rest parameters`)
  assert.deepEqual(
    params.slice(0, required.length).map((p) => [p.name, p.optional]),
    required.map((name) => [name, false]),
    `${shown}: the required arguments come first, positional, in order`,
  )
  let rest = params.slice(required.length)
  // Optional arguments given positionally, in the table's order.
  const positional = []
  let next = 0
  while (rest.length > 0 && optional.indexOf(rest[0].name, next) >= 0) {
    const p = rest.shift()
    assert.ok(p.optional, `${shown}: \`${p.name}\` is optional`)
    next = optional.indexOf(p.name, next) + 1
    positional.push(p.name)
  }
  const left = optional.filter((name) => !positional.includes(name))
  if (rest.length === 0) {
    assert.deepEqual(left, [], `${shown}: takes every optional argument`)
    return { positional, options: null }
  }
  assert.equal(rest.length, 1, `${shown}: one options object after the positional arguments`)
  const [options] = rest
  assert.ok(options.optional, `${shown}: the options object may be left out`)
  const keys = optionKeys(checker, options.type)
  for (const name of left) {
    assert.ok(keys.has(name), `${shown}: option \`${name}\` is a key of ${checker.typeToString(options.type)}`)
  }
  const extra = [...keys].filter((k) => !left.includes(k))
  assert.deepEqual(
    extra,
    extraOptions[op.nodeName] ?? [],
    `${shown}: options the table lacks (add them to the core's table, or to EXTRA_OPTIONS with why)`,
  )
  return { positional, options: options.name }
}

describe('the operation table', () => {
  test('the addon gives the core table, with Node names', () => {
    assert.ok(operations.length > 30, `${operations.length} operations`)
    const names = operations.map((o) => o.nodeName)
    assert.equal(new Set(names).size, names.length, 'node names are unique')
    const complete = operations.find((o) => o.name === 'complete_and_lease_batch')
    assert.equal(complete.nodeName, 'completeAndLeaseBatch')
    const keep = operations.find((o) => o.name === 'complete').args.find((a) => a.name === 'keep_result_for')
    assert.equal(keep.nodeName, 'keepResultForMs')
    assert.equal(keep.kind, 'Duration')
    const parts = operations.find((o) => o.name === 'lease_from_parts')
    assert.equal(parts.roundTrips, 0)
    const block = operations.find((o) => o.name === 'lease').args.find((a) => a.name === 'block')
    assert.deepEqual([block.only, block.inNode], ['python', false])
    assert.deepEqual(
      events.map((e) => e.nodeName),
      ['completed', 'retrying', 'dead', 'released', 'leaseLost', 'timedOut', 'error', 'recovered'],
    )
  })

  test('Queue.prototype has every operation, and no other method', () => {
    for (const op of operations) {
      const method = Queue.prototype[op.nodeName]
      assert.equal(typeof method, 'function', `Queue#${op.nodeName} (${op.name}) is missing`)
      const required = nodeArgs(op).filter((a) => a.required).length
      assert.ok(method.length >= required, `Queue#${op.nodeName} takes ${required} arguments`)
    }
    const names = new Set(operations.map((o) => o.nodeName))
    for (const name of Object.getOwnPropertyNames(Queue.prototype)) {
      if (name === 'constructor') continue
      assert.ok(
        names.has(name) || name in NON_OPERATIONS,
        `Queue#${name} is not in the core's table (leaseq::operations), nor a listed non-operation`,
      )
    }
  })

  test('index.d.ts declares every operation on Queue as the table says, and nothing else', () => {
    const { checker, classMembers } = readDts()
    const members = classMembers('Queue')
    const problems = []
    for (const op of operations) {
      const member = members.get(op.nodeName)
      if (!member) {
        problems.push(`Queue#${op.nodeName} (${op.name}) is not declared`)
        continue
      }
      const signatures = member.type.getCallSignatures()
      const why = []
      const ok = signatures.filter((s) => {
        try {
          match(checker, op, s)
          return true
        } catch (err) {
          if (!(err instanceof assert.AssertionError)) throw err
          why.push(err.message.split('\n')[0])
          return false
        }
      })
      if (ok.length === 0) problems.push(...(why.length ? why : [`Queue#${op.nodeName} is not a method`]))
      // Promise-returning exactly when it talks to Redis (a follower: its `ready` is the Promise).
      for (const s of signatures) {
        const returns = checker.typeToString(s.getReturnType())
        const promised = FOLLOWERS.has(op.nodeName)
          ? returns === 'EventFollower' && s.getReturnType().getProperty('ready') !== undefined
          : returns.startsWith('Promise<')
        if (promised !== op.roundTrips > 0) {
          problems.push(`Queue#${op.nodeName} returns ${returns} but has ${op.roundTrips} round trips`)
        }
      }
    }
    const names = new Set(operations.map((o) => o.nodeName))
    for (const name of members.keys()) {
      if (!names.has(name) && !(name in NON_OPERATIONS)) {
        problems.push(`Queue#${name} is declared but not in the core's table, nor a listed non-operation`)
      }
    }
    assert.deepEqual(problems, [])
  })

  test('the addon gives the partitioned table, with Node names', () => {
    assert.ok(partitionedOperations.length > 15, `${partitionedOperations.length} operations`)
    const names = partitionedOperations.map((o) => o.nodeName)
    assert.equal(new Set(names).size, names.length, 'node names are unique')
    const byName = new Map(partitionedOperations.map((o) => [o.name, o]))
    assert.equal(byName.get('dead_requeue_oldest').nodeName, 'deadRequeueOldest')
    assert.deepEqual(byName.get('count').rust, ['count_in'])
    assert.deepEqual(byName.get('add_flow').rust, ['add_flow'])
    for (const o of partitionedOperations) {
      const shared = operations.some((q) => q.name === o.name)
      assert.equal(o.queue, shared, `${o.name}: queue says whether a queue operation of that name exists`)
    }
    // The partitioned queue's own: they send nothing.
    const own = partitionedOperations.filter((o) => !o.queue)
    assert.deepEqual(own.map((o) => o.nodeName), ['partition', 'partitionOf', 'queueOf'])
    assert.ok(own.every((o) => o.route.startsWith('sends nothing')))
  })

  test('PartitionedQueue.prototype has every partitioned operation, and no other method', () => {
    const proto = PartitionedQueue.prototype
    for (const op of partitionedOperations) {
      const method = proto[op.nodeName]
      assert.equal(typeof method, 'function', `PartitionedQueue#${op.nodeName} (${op.name}) is missing`)
      const queueOp = operations.find((o) => o.name === op.name)
      if (queueOp) {
        assert.equal(
          method.length,
          Queue.prototype[op.nodeName].length,
          `PartitionedQueue#${op.nodeName} takes as many parameters as Queue#${op.nodeName}`,
        )
      }
    }
    const names = new Set(partitionedOperations.map((o) => o.nodeName))
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue
      assert.ok(
        names.has(name) || name in PARTITIONED_NON_OPERATIONS,
        `PartitionedQueue#${name} is not in the core's table (leaseq::operations::PARTITIONED), nor a listed non-operation`,
      )
    }
  })

  test("index.d.ts declares every partitioned operation on PartitionedQueue, with Queue's parameters", () => {
    const { checker, classMembers } = readDts()
    const members = classMembers('PartitionedQueue')
    const queueMembers = classMembers('Queue')
    const problems = []
    for (const op of partitionedOperations) {
      const member = members.get(op.nodeName)
      if (!member) {
        problems.push(`PartitionedQueue#${op.nodeName} (${op.name}) is not declared`)
        continue
      }
      const signatures = member.type.getCallSignatures()
      if (signatures.length === 0) {
        problems.push(`PartitionedQueue#${op.nodeName} is not a method`)
        continue
      }
      const queueOp = operations.find((o) => o.name === op.name)
      // One that sends nothing (the table's route says so) returns at once; the others a Promise.
      const sends = queueOp ? queueOp.roundTrips > 0 : !op.route.startsWith('sends nothing')
      for (const s of signatures) {
        const returns = checker.typeToString(s.getReturnType())
        const promised = FOLLOWERS.has(op.nodeName)
          ? returns === 'EventFollower' && s.getReturnType().getProperty('ready') !== undefined
          : returns.startsWith('Promise<')
        if (promised !== sends) {
          problems.push(`PartitionedQueue#${op.nodeName} returns ${returns}, yet it ${sends ? 'sends' : 'sends nothing'}`)
        }
      }
      if (!queueOp) continue
      // The table's arguments, in the shape Node gives them...
      const why = []
      const ok = signatures.some((s) => {
        try {
          match(checker, queueOp, s, PARTITIONED_EXTRA_OPTIONS)
          return true
        } catch (err) {
          if (!(err instanceof assert.AssertionError)) throw err
          why.push(err.message.split('\n')[0])
          return false
        }
      })
      if (!ok) problems.push(...why.map((w) => `PartitionedQueue#${w}`))
      // ...and exactly Queue's parameters, overload by overload.
      const queueMember = queueMembers.get(op.nodeName)
      const ours = signatures.map((s) => describeSignature(checker, s)).sort()
      const theirs = queueMember.type
        .getCallSignatures()
        .map((s) => describeSignature(checker, s, EXTRA_OPTIONS[op.nodeName]))
        .sort()
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
        problems.push(
          `PartitionedQueue#${op.nodeName}(${ours.join(' | ')}) takes other parameters than Queue#${op.nodeName}(${theirs.join(' | ')})`,
        )
      }
    }
    const names = new Set(partitionedOperations.map((o) => o.nodeName))
    for (const name of members.keys()) {
      if (!names.has(name) && !(name in PARTITIONED_NON_OPERATIONS)) {
        problems.push(`PartitionedQueue#${name} is declared but not in the core's partitioned table, nor a listed non-operation`)
      }
    }
    assert.deepEqual(problems, [])
  })

  test("the Worker's events are the core's, in camelCase", () => {
    const { checker, classMembers } = readDts()
    const on = classMembers('Worker').get('on')
    assert.ok(on, 'Worker#on is declared')
    // The string literals of the first parameter of each `on` overload.
    const declared = new Set()
    for (const s of on.type.getCallSignatures()) {
      const [event] = s.getParameters()
      const type = checker.getTypeOfSymbolAtLocation(event, /** @type {any} */ (event.valueDeclaration))
      for (const member of type.isUnion() ? type.types : [type]) {
        if (member.isStringLiteral()) declared.add(member.value)
      }
    }
    const expected = events.map((e) => RENAMED_EVENTS[e.nodeName] ?? e.nodeName)
    assert.deepEqual([...declared].sort(), [...expected].sort())
  })
})

/** A value of each kind of argument, that the JS layer accepts. */
function sampleOf(kind, lease) {
  const samples = {
    Item: () => new Item('parity'),
    Items: () => [],
    Lease: () => lease,
    Leases: () => [],
    Completions: () => [],
    Failures: () => [],
    Id: () => 'parity',
    Ids: () => [],
    Bytes: () => 'parity',
    Text: () => 'parity',
    Duration: () => 1000,
    Count: () => 1,
    Flag: () => true,
    State: () => 'waiting',
    Retry: () => 'never',
    Config: () => ({}),
    Schedule: () => ({ everyMs: 1000 }),
    Flows: () => [],
  }
  assert.ok(kind in samples, `parity.test.js needs a sample value of kind ${kind}`)
  return samples[kind]()
}

/**
 * What a call was refused with: thrown (an operation that sends nothing) or rejected. `owner`
 * names the class in the messages.
 */
async function refusal(op, call, owner = 'Queue') {
  let returned
  try {
    returned = call()
  } catch (err) {
    assert.ok(
      op.roundTrips === 0 || FOLLOWERS.has(op.nodeName),
      `${owner}#${op.nodeName} rejects, rather than throws: ${err}`,
    )
    return err
  }
  if (FOLLOWERS.has(op.nodeName)) {
    try {
      await returned.ready
    } catch (err) {
      return err
    } finally {
      returned.close()
    }
    return assert.fail(`${owner}#${op.nodeName} was not refused`)
  }
  assert.ok(returned instanceof Promise, `${owner}#${op.nodeName} returns a Promise`)
  try {
    await returned
  } catch (err) {
    return err
  }
  return assert.fail(`${owner}#${op.nodeName} was not refused`)
}

/**
 * The arguments of a call to `op`, declared in `shape` (what `match` returns): the required
 * ones, the positional optional ones and the options object as `values` gives them (a value
 * left out of `values` is left out).
 */
function argsOf(op, shape, values) {
  const args = nodeArgs(op)
  const out = args.filter((a) => a.required).map((a) => values[a.nodeName])
  for (const name of shape.positional) out.push(values[name])
  if (shape.options !== null) {
    const options = {}
    for (const a of args) {
      if (!a.required && !shape.positional.includes(a.nodeName) && a.nodeName in values) {
        options[a.nodeName] = values[a.nodeName]
      }
    }
    out.push('options' in values ? values.options : options)
  }
  while (out.length > 0 && out[out.length - 1] === undefined) out.pop()
  return out
}

/** A sample value for each required argument of `op` (`lease` for a Lease). */
function samplesOf(op, lease) {
  const values = {}
  for (const a of nodeArgs(op).filter((x) => x.required)) values[a.nodeName] = sampleOf(a.kind, lease)
  return values
}

/** Asserts `err` is the project's invalid-argument error naming `argument`. */
function assertNames(err, argument, context) {
  assert.ok(err instanceof LeaseqError, `${context}: expected a LeaseqError, got ${err && err.stack}`)
  assert.equal(err.code, 'INVALID_ARGUMENT', `${context}: ${err.message}`)
  assert.equal(err.argument, argument, `${context}: ${err.message}`)
  assert.ok(err.message.includes(`\`${argument}\``), `${context}: the message names it: ${err.message}`)
}

describe('the table at runtime', { timeout: 30_000 }, () => {
  let redis
  let client
  let queue
  let lease
  /** How each operation takes its optional arguments, as index.d.ts declares it. */
  const shapes = new Map()
  before(async () => {
    const { checker, classMembers } = readDts()
    const members = classMembers('Queue')
    for (const op of operations) {
      const member = members.get(op.nodeName)
      for (const s of member ? member.type.getCallSignatures() : []) {
        try {
          shapes.set(op.nodeName, match(checker, op, s))
          break
        } catch (err) {
          if (!(err instanceof assert.AssertionError)) throw err
        }
      }
    }
    redis = await startRedis()
    client = await Client.connect(redis.url)
    queue = client.queue(uniquePrefix('parity'))
    lease = queue.leaseFromParts('parity', 'token', 'incarnation', 1)
  })
  after(async () => {
    // Every call was refused before anything was sent: the queue is as empty as it began.
    const stats = await queue.stats()
    assert.deepEqual([stats.waiting, stats.delayed, stats.leased, stats.dead], [0, 0, 0, 0])
    assert.deepEqual(await queue.config(), {})
    await client.close()
    await redis.stop()
  })

  /** The arguments of a call to `op` (`argsOf`), as index.d.ts declares it on Queue. */
  function callArgs(op, values) {
    const shape = shapes.get(op.nodeName)
    assert.ok(shape, `index.d.ts declares Queue#${op.nodeName} as the table says`)
    return argsOf(op, shape, values)
  }

  /** Calls `op` with `values`; resolves to its refusal. */
  function refused(op, values) {
    const args = callArgs(op, values)
    return refusal(op, () => queue[op.nodeName](...args))
  }

  /** A sample value for each required argument of `op`. */
  function requiredSamples(op) {
    return samplesOf(op, lease)
  }

  test('a missing required argument is refused, naming it', async () => {
    for (const op of operations) {
      const required = nodeArgs(op).filter((a) => a.required)
      const samples = requiredSamples(op)
      for (const [i, missing] of required.entries()) {
        const values = {}
        for (const a of required.slice(0, i)) values[a.nodeName] = samples[a.nodeName]
        // Positional arguments stop at the missing one.
        const err = await refusal(op, () =>
          queue[op.nodeName](...required.slice(0, i).map((a) => values[a.nodeName])),
        )
        assertNames(err, missing.nodeName, `Queue#${op.nodeName} without ${missing.nodeName}`)
      }
    }
  })

  test('an unknown option is refused, naming it', async () => {
    let checked = 0
    for (const op of operations) {
      const shape = shapes.get(op.nodeName)
      if (!shape || shape.options === null) continue
      const err = await refused(op, { ...requiredSamples(op), options: { parityUnknownMs: 1 } })
      assertNames(err, 'parityUnknownMs', `Queue#${op.nodeName} with an unknown option`)
      assert.match(err.message, /not an option/)
      checked += 1
    }
    assert.ok(checked >= 10, `${checked} operations take options`)
  })

  test('each argument, given a value of no kind, is refused naming it: its name is known', async () => {
    for (const op of operations) {
      for (const arg of nodeArgs(op)) {
        const err = await refused(op, { ...requiredSamples(op), [arg.nodeName]: Symbol('parity') })
        const context = `Queue#${op.nodeName} with a Symbol as ${arg.nodeName}`
        assertNames(err, arg.nodeName, context)
        assert.doesNotMatch(err.message, /not an option/, `${context}: an option the method knows`)
      }
    }
  })

  test('leaseFromParts rebuilds a lease that finishes the item', async () => {
    const q = client.queue(uniquePrefix('parts'))
    await q.add(new Item('work', { id: 'job-1', maxAttempts: 3 }))
    const leased = await q.lease({ ttlMs: 60_000 })
    assert.ok(leased)
    // Another process kept the parts; this one finishes the item with them.
    const rebuilt = q.leaseFromParts(leased.id, leased.token, leased.incarnation, leased.attempt)
    assert.ok(rebuilt instanceof Lease)
    assert.deepEqual(
      [rebuilt.id, rebuilt.token, rebuilt.incarnation, rebuilt.attempt],
      [leased.id, leased.token, leased.incarnation, leased.attempt],
    )
    assert.deepEqual(rebuilt.idBytes, Buffer.from('job-1'))
    assert.equal(rebuilt.data.length, 0, 'parts carry no data')
    assert.equal(await q.renew(rebuilt, { ttlMs: 60_000 }), true)
    assert.equal(await q.progress(rebuilt, 'half'), true)
    assert.equal(await q.complete(rebuilt, { result: 'done' }), true)
    assert.equal((await q.result('job-1')).data.toString(), 'done')
    // The original lease's holder finds it done; a wrong token holds nothing.
    assert.equal(await q.complete(leased), false)
    await q.add(new Item('again', 'job-2'))
    const second = await q.lease()
    const forged = q.leaseFromParts('job-2', 'not-the-token', second.incarnation, second.attempt)
    assert.equal(await q.renewOutcome(forged), 'taken')
    assert.equal(await q.fail(forged, 'nope'), 'taken')
    assert.equal(await q.fail(q.leaseFromParts('job-2', second.token, second.incarnation, 1), 'real'), 'retrying')
    assert.equal((await q.get('job-2')).error, 'real')
  })

  test('leaseFromParts refuses bad parts, naming them', () => {
    const cases = [
      [['', 't', 'i', 1], 'id'],
      [['x', '', 'i', 1], 'token'],
      [['x', 't', '', 1], 'incarnation'],
      [['x', 't', 'i', 1.5], 'attempt'],
      [['x', 't', 'i', -1], 'attempt'],
      [[Buffer.from('x'), 't', 'i', 1], 'id'],
    ]
    for (const [parts, argument] of cases) {
      assert.throws(
        () => queue.leaseFromParts(...parts),
        (err) => {
          assertNames(err, argument, `leaseFromParts(${parts.map(String).join(', ')})`)
          return true
        },
      )
    }
  })
})

describe('the partitioned table at runtime', { timeout: 30_000 }, () => {
  let redis
  let client
  let queue
  let lease
  /** The queue operations a partitioned queue shares, and how index.d.ts declares each. */
  const shared = []
  before(async () => {
    const { checker, classMembers } = readDts()
    const members = classMembers('PartitionedQueue')
    for (const p of partitionedOperations.filter((o) => o.queue)) {
      const op = operations.find((o) => o.name === p.name)
      for (const s of members.get(op.nodeName)?.type.getCallSignatures() ?? []) {
        try {
          shared.push({ op, shape: match(checker, op, s, PARTITIONED_EXTRA_OPTIONS) })
          break
        } catch (err) {
          if (!(err instanceof assert.AssertionError)) throw err
        }
      }
    }
    redis = await startRedis()
    client = await Client.connect(redis.url)
    queue = await client.createPartitioned(uniquePrefix('parity'), 2)
    lease = queue.partition(1).leaseFromParts('parity', 'token', 'incarnation', 1)
  })
  after(async () => {
    // Every call was refused before anything was sent.
    const { total } = await queue.stats()
    assert.deepEqual([total.waiting, total.delayed, total.leased, total.dead], [0, 0, 0, 0])
    for (const i of queue.partitions.keys()) assert.deepEqual(await queue.partition(i).config(), {})
    await client.close()
    await redis.stop()
  })

  test('the shared operations are declared as the table says', () => {
    assert.deepEqual(
      shared.map(({ op }) => op.nodeName),
      partitionedOperations.filter((o) => o.queue).map((o) => o.nodeName),
    )
  })

  test('a missing required argument is refused, naming it', async () => {
    for (const { op } of shared) {
      const required = nodeArgs(op).filter((a) => a.required)
      const samples = samplesOf(op, lease)
      for (const [i, missing] of required.entries()) {
        const given = required.slice(0, i).map((a) => samples[a.nodeName])
        const err = await refusal(op, () => queue[op.nodeName](...given), 'PartitionedQueue')
        assertNames(err, missing.nodeName, `PartitionedQueue#${op.nodeName} without ${missing.nodeName}`)
      }
    }
    // The partitioned queue's own operations send nothing: they throw.
    const own = [
      [() => queue.partition(), 'partition'],
      [() => queue.partitionOf(), 'item'],
      [() => queue.queueOf(), 'lease'],
    ]
    for (const [call, argument] of own) {
      assert.throws(call, (err) => {
        assertNames(err, argument, `without ${argument}`)
        return true
      })
    }
  })

  test('an unknown option is refused, naming it', async () => {
    for (const { op, shape } of shared.filter((x) => x.shape.options !== null)) {
      const args = argsOf(op, shape, { ...samplesOf(op, lease), options: { parityUnknownMs: 1 } })
      const err = await refusal(op, () => queue[op.nodeName](...args), 'PartitionedQueue')
      assertNames(err, 'parityUnknownMs', `PartitionedQueue#${op.nodeName} with an unknown option`)
    }
  })

  test('each argument, given a value of no kind, is refused naming it', async () => {
    for (const { op, shape } of shared) {
      for (const arg of nodeArgs(op)) {
        const args = argsOf(op, shape, { ...samplesOf(op, lease), [arg.nodeName]: Symbol('parity') })
        const err = await refusal(op, () => queue[op.nodeName](...args), 'PartitionedQueue')
        assertNames(err, arg.nodeName, `PartitionedQueue#${op.nodeName} with a Symbol as ${arg.nodeName}`)
      }
    }
  })
})
