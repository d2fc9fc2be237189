'use strict'
// A minimal Redis client for test set-up that leaseq itself must not do (writing a key of the
// wrong type, creating an ACL user, listing clients). Commands are sent one at a time.

const net = require('node:net')

/** Parses one RESP reply at `offset`; returns [value, nextOffset] or undefined if incomplete. */
function parse(buf, offset) {
  const end = buf.indexOf('\r\n', offset)
  if (end < 0) return undefined
  const type = String.fromCharCode(buf[offset])
  const line = buf.toString('utf8', offset + 1, end)
  const next = end + 2
  switch (type) {
    case '+':
      return [line, next]
    case '-':
      return [new Error(line), next]
    case ':':
      return [Number(line), next]
    case '$': {
      const len = Number(line)
      if (len < 0) return [null, next]
      if (buf.length < next + len + 2) return undefined
      return [buf.toString('utf8', next, next + len), next + len + 2]
    }
    case '*': {
      const count = Number(line)
      if (count < 0) return [null, next]
      const items = []
      let at = next
      for (let i = 0; i < count; i++) {
        const parsed = parse(buf, at)
        if (!parsed) return undefined
        items.push(parsed[0])
        at = parsed[1]
      }
      return [items, at]
    }
    default:
      throw new Error(`unexpected RESP type ${JSON.stringify(type)}`)
  }
}

/** Connects to `url` (redis://host:port) and resolves to `{ command(...args), close() }`. */
function connect(url) {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  let buffer = Buffer.alloc(0)
  let waiting = null
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk])
    if (!waiting) return
    const parsed = parse(buffer, 0)
    if (!parsed) return
    buffer = buffer.subarray(parsed[1])
    const { resolve, reject } = waiting
    waiting = null
    if (parsed[0] instanceof Error) reject(parsed[0])
    else resolve(parsed[0])
  })
  const command = (...args) =>
    new Promise((resolve, reject) => {
      waiting = { resolve, reject }
      // Arguments are strings (sent as UTF-8) or Buffers (sent as they are).
      const parts = args.map((a) => (Buffer.isBuffer(a) ? a : Buffer.from(String(a), 'utf8')))
      const chunks = [Buffer.from(`*${parts.length}\r\n`)]
      for (const part of parts) chunks.push(Buffer.from(`$${part.length}\r\n`), part, Buffer.from('\r\n'))
      socket.write(Buffer.concat(chunks))
    })
  return new Promise((resolve, reject) => {
    socket.once('error', reject)
    socket.once('connect', () => resolve({ command, close: () => socket.end() }))
  })
}

module.exports = { connect }
