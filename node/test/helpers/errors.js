'use strict'
// Assertions on the errors the binding raises, for `assert.throws` / `assert.rejects`.

const assert = require('node:assert/strict')

const { LeaseqError } = require('../..')

/** A LeaseqError with code `code`. */
function isCode(code) {
  return (err) => {
    assert.ok(err instanceof LeaseqError, `expected a LeaseqError, got ${err && err.stack}`)
    assert.equal(err.code, code, err.message)
    return true
  }
}

/** An INVALID_ARGUMENT error whose message and `argument` name `argument`. */
function invalid(argument) {
  return (err) => {
    isCode('INVALID_ARGUMENT')(err)
    assert.ok(
      err.message.includes(`\`${argument}\``),
      `the message should name \`${argument}\`: ${err.message}`,
    )
    assert.equal(err.argument, argument, err.message)
    return true
  }
}

module.exports = { invalid, isCode }
