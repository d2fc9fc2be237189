'use strict'
// A TCP proxy in front of a test Redis that can stop forwarding (so calls time out) or cut
// every connection (so calls in flight fail): how the tests meet TIMEOUT and CONNECTION errors
// without waiting for a connect to be refused, which the core retries for seconds.

const net = require('node:net')

/** Resolves to `{ url, stall(), cut(), close() }` forwarding to the server at `targetUrl`. */
async function startProxy(targetUrl) {
  const target = new URL(targetUrl)
  const sockets = new Set()
  let stalled = false
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname)
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(from)
      from.on('data', (chunk) => {
        if (!stalled) to.write(chunk)
      })
      from.on('close', () => {
        sockets.delete(from)
        to.destroy()
      })
      from.on('error', () => to.destroy())
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `redis://127.0.0.1:${server.address().port}`,
    /** Drops every byte from now on, both ways: answers never come. */
    stall() {
      stalled = true
    },
    /** Closes every connection through the proxy and refuses new ones. */
    cut() {
      server.close()
      for (const socket of sockets) socket.destroy()
    },
    close() {
      server.close()
      for (const socket of sockets) socket.destroy()
    },
  }
}

module.exports = { startProxy }
