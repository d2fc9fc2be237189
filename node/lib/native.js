// @ts-check
'use strict'
// Loads the addon that scripts/build.js (or `napi build`) put next to package.json.

/** Built by cargo, so not a module TypeScript can see; its types are native.d.ts. */
const ADDON = '../leaseq.node'

/** @type {typeof import('../native')} */
let native
try {
  native = require(ADDON)
} catch (err) {
  if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'MODULE_NOT_FOUND') throw err
  throw new Error(
    'leaseq: the native addon leaseq.node is not built; run `npm run build` in the leaseq ' +
      'package directory (it needs Rust and cargo)',
    { cause: err },
  )
}

module.exports = native
