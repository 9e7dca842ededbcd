import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { X509Certificate } from 'node:crypto'
import { join } from 'node:path'
import { hostname } from 'node:os'
import type { MockConfig } from './config.ts'
import { ConfigError } from '../cli-base/exit.ts'

/** A certificate and key the mock serves HTTPS with, and the certificate's SHA-256 fingerprint. */
export interface ServerTls {
  cert: string
  key: string
  fingerprint256: string
  /** Whether the mock made it at start (`--https`). */
  selfSigned: boolean
}

/**
 * The TLS material of the configuration: read from `--tls-cert`/`--tls-key`, or, with `--https`,
 * a self-signed certificate made now (selfsigned: an EC P-256 key, valid 30 days, for localhost,
 * the machine's hostname, 127.0.0.1, ::1 and the host the mock binds), written to `--tls-out` when asked so clients can
 * trust it. Undefined for plain HTTP.
 */
export async function serverTls(config: Pick<MockConfig, 'tls' | 'tlsOut' | 'host'>): Promise<ServerTls | undefined> {
  if (config.tls === undefined) return undefined
  let cert: string
  let key: string
  if (config.tls === 'self-signed') {
    // The machine's own name too, so a mock in a container is trusted at its hostname.
    const names = new Set(['localhost', hostname(), config.host].filter((host) => host !== '' && !/^[\d.:]+$/.test(host)))
    const ips = new Set(['127.0.0.1', '::1', ...(/^[\d.:]+$/.test(config.host) && !['0.0.0.0', '::'].includes(config.host) ? [config.host] : [])])
    const notAfter = new Date(Date.now() + 30 * 24 * 3600 * 1000)
    // Loaded only for --https: the X.509 library it brings is a good part of a start's module loading.
    const { default: selfsigned } = await import('selfsigned')
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'appdata-kit mock' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notAfterDate: notAfter,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [...[...names].map((value) => ({ type: 2 as const, value })), ...[...ips].map((ip) => ({ type: 7 as const, ip }))],
        },
      ],
    })
    cert = pems.cert
    key = pems.private
  } else {
    try {
      cert = readFileSync(config.tls.cert, 'utf8')
      key = readFileSync(config.tls.key, 'utf8')
    } catch (error) {
      throw new ConfigError(`--tls-cert / --tls-key cannot be read: ${(error as Error).message}`)
    }
  }
  let fingerprint256: string
  try {
    fingerprint256 = new X509Certificate(cert).fingerprint256
  } catch (error) {
    throw new ConfigError(`--tls-cert is not a PEM certificate: ${(error as Error).message}`)
  }
  if (config.tlsOut !== undefined) {
    mkdirSync(config.tlsOut, { recursive: true })
    writeFileSync(join(config.tlsOut, 'cert.pem'), cert)
  }
  return { cert, key, fingerprint256, selfSigned: config.tls === 'self-signed' }
}
