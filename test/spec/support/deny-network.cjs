// Preloaded (NODE_OPTIONS=--require) into child processes that must stay offline. Every outgoing
// connection or name lookup is refused and reported on stderr with a marker the test looks for.
'use strict'
const net = require('node:net')
const dns = require('node:dns')

const MARKER = '[deny-network]'

function describe(target) {
  if (target === null || typeof target !== 'object') return String(target)
  return `${target.host ?? target.servername ?? target.path ?? '?'}:${target.port ?? ''}`
}

net.Socket.prototype.connect = function connect(target) {
  process.stderr.write(`${MARKER} refused connection to ${describe(target)}\n`)
  process.nextTick(() => this.destroy(new Error('network access is disabled here')))
  return this
}

dns.lookup = function lookup(host, options, callback) {
  process.stderr.write(`${MARKER} refused lookup of ${host}\n`)
  const done = typeof options === 'function' ? options : callback
  const error = Object.assign(new Error(`lookup of ${host} refused`), { code: 'ENOTFOUND' })
  process.nextTick(() => done(error))
}
