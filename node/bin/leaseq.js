#!/usr/bin/env node
'use strict'
// `npx leaseq`: the `leaseq` command of the Rust crate cli/, carried by the native addon. It runs
// on this thread until it ends and its exit code is the process's. SIGINT and SIGTERM reach the
// command's own handlers (the addon gives Node's back their default action first), so `clean`
// and `dashboard` stop gracefully.

const { cliMain } = require('../lib/native')

process.exitCode = cliMain(['leaseq', ...process.argv.slice(2)])
