#!/usr/bin/env node
'use strict'
// `npx leaseq`: the `leaseq` command of the Rust crate cli/, carried by the native addon. The
// command runs on a worker thread, so that this thread's event loop stays free to receive
// Ctrl-C: the first SIGINT is passed on to the command as SIGTERM (`clean` and `dashboard` stop
// their work), a second one exits at once. Known gap: after the first, the process does not yet
// exit by itself. The command's exit code is the process's.

const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads')

if (isMainThread) {
  const worker = new Worker(__filename, { workerData: ['leaseq', ...process.argv.slice(2)] })
  let interrupted = false
  process.on('SIGINT', () => {
    if (interrupted) process.exit(130)
    interrupted = true
    process.kill(process.pid, 'SIGTERM')
  })
  // Exit as soon as the command returns its code (the worker's own teardown is not waited for).
  worker.on('message', (code) => process.exit(code))
  worker.on('error', (err) => {
    console.error(err)
    process.exit(1)
  })
} else {
  const { cliMain } = require('../lib/native')
  parentPort.postMessage(cliMain(workerData))
}
