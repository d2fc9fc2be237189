// @ts-check
'use strict'
// Loads the native addon, in this order:
//   1. NAPI_RS_NATIVE_LIBRARY_PATH, when set (napi-rs's convention): a leaseq.node built elsewhere;
//   2. the prebuilt addon of this platform's package, e.g. leaseq-linux-x64-gnu, which npm
//      installs as an optional dependency of `leaseq` (napi-rs's layout);
//   3. leaseq.node next to package.json, built from a checkout by `npm run build`
//      (scripts/build.js or `napi build`); the repository's own tests use this one.

const path = require('node:path')

const LOCAL = path.join(__dirname, '..', 'leaseq.node')

/** napi-rs's name for this platform: linux-x64-gnu, linux-arm64-musl, darwin-arm64, ... */
function platformTriple() {
  const { platform, arch } = process
  if (platform === 'linux') {
    const libc = isMusl() ? 'musl' : 'gnu'
    return arch === 'arm' ? `linux-arm-${libc}eabihf` : `linux-${arch}-${libc}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform === 'darwin') return `darwin-${arch}`
  return `${platform}-${arch}`
}

/** Whether this Linux runs on musl: glibc reports its version in the process report. */
function isMusl() {
  /** @type {any} */
  const report = process.report && process.report.getReport()
  return !(report && report.header && report.header.glibcVersionRuntime)
}

/**
 * Whether `err` says that `request` itself (not something it requires) was not found.
 * @param {unknown} err
 * @param {string} request
 */
function notFound(err, request) {
  const e = /** @type {NodeJS.ErrnoException} */ (err)
  return e.code === 'MODULE_NOT_FOUND' && String(e.message).includes(`'${request}'`)
}

const PLATFORM_PACKAGE = `leaseq-${platformTriple()}`

/** @returns {typeof import('../native')} */
function load() {
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) return require(override)
  for (const request of [PLATFORM_PACKAGE, LOCAL]) {
    try {
      return require(request)
    } catch (err) {
      if (!notFound(err, request)) throw err
    }
  }
  throw new Error(
    `leaseq: no native addon for this platform (${process.platform}-${process.arch}): the ` +
      `package ${PLATFORM_PACKAGE} is not installed. npm installs it with leaseq, as an optional ` +
      'dependency, where one is published for this platform (and unless optional dependencies ' +
      'are omitted). To build from source instead (needs Rust and cargo): in a clone of the ' +
      'leaseq repository, run `npm run build` in node/ and install that directory ' +
      '(`npm install /path/to/leaseq/node`), or set NAPI_RS_NATIVE_LIBRARY_PATH to the built ' +
      'leaseq.node.',
  )
}

/** @type {typeof import('../native')} */
const native = load()

module.exports = native
