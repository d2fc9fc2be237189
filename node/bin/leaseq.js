#!/usr/bin/env node
'use strict'
// `npx leaseq`: the `leaseq` command of the Rust crate cli/, carried by the native addon. It runs
// on this thread until it ends and its exit code is the process's. Known gap: SIGINT and SIGTERM
// do not stop `clean` or `dashboard` here yet (SIGKILL does); the cargo and pip installs handle
// them.

const { cliMain } = require('../lib/native')

process.exitCode = cliMain(['leaseq', ...process.argv.slice(2)])
