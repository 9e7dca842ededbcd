/**
 * Who may use the control plane: the boot decision (unit-tested, since binding 0.0.0.0 in a test
 * would open a port beyond this machine), the token check over HTTP on 127.0.0.1, and the switch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { controlPlaneAccess, controlTokenMatches, presentedControlToken } from '../../src/policy/control-access.ts'
import { isLoopbackHost } from '../../src/policy/hosts.ts'
import { startTestMock, type TestClient } from '../helpers/http.ts'

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.10.20.30', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['example.test', false],
    ['128.0.0.1', false],
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected)
  })
})

describe('controlPlaneAccess', () => {
  it('is on without a token on a loopback host', () => {
    expect(controlPlaneAccess({ controlPlane: true, controlToken: undefined, host: '127.0.0.1' })).toEqual({ enabled: true, token: undefined })
  })

  it('is off on a host other machines can reach when no token is given', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      const access = controlPlaneAccess({ controlPlane: true, controlToken: undefined, host })
      expect(access.enabled, host).toBe(false)
      if (!access.enabled) expect(access.reason).toContain('--control-token')
    }
  })

  it('is on with its token on any host, loopback included', () => {
    expect(controlPlaneAccess({ controlPlane: true, controlToken: 's3cret', host: '0.0.0.0' })).toEqual({ enabled: true, token: 's3cret' })
    expect(controlPlaneAccess({ controlPlane: true, controlToken: 's3cret', host: '127.0.0.1' })).toEqual({ enabled: true, token: 's3cret' })
  })

  it('is off with --no-control-plane, token or not', () => {
    expect(controlPlaneAccess({ controlPlane: false, controlToken: 's3cret', host: '127.0.0.1' }).enabled).toBe(false)
    expect(controlPlaneAccess({ controlPlane: false, controlToken: undefined, host: '127.0.0.1' }).enabled).toBe(false)
  })

  it('reads the token from either header and compares it exactly', () => {
    expect(presentedControlToken({ authorization: 'Bearer abc' })).toBe('abc')
    expect(presentedControlToken({ 'x-mock-control-token': 'abc' })).toBe('abc')
    expect(presentedControlToken({ authorization: 'Basic abc' })).toBeUndefined()
    expect(controlTokenMatches('abc', 'abc')).toBe(true)
    expect(controlTokenMatches('abd', 'abc')).toBe(false)
    expect(controlTokenMatches('ab', 'abc')).toBe(false)
    expect(controlTokenMatches(undefined, 'abc')).toBe(false)
  })
})

describe('a control token on 127.0.0.1', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ controlToken: 'ci-token-123' })
  })
  afterAll(() => mock.close())

  it('refuses a call without the token with a 401 CONTROL_TOKEN problem', async () => {
    const reply = await mock.request('GET', '/__mock/clock')
    expect(reply.status).toBe(401)
    expect(reply.body.code).toBe('CONTROL_TOKEN')
  })

  it('refuses a wrong token and the API session header', async () => {
    expect((await mock.request('POST', '/__mock/reset', { headers: { authorization: 'Bearer ci-token-124' } })).status).toBe(401)
    expect((await mock.request('GET', '/__mock/emails', { headers: { 'x-mock-control-token': 'ci-token-12' } })).status).toBe(401)
  })

  it('accepts the token as a bearer token or in X-Mock-Control-Token', async () => {
    expect((await mock.request('GET', '/__mock/clock', { headers: { authorization: 'Bearer ci-token-123' } })).status).toBe(200)
    expect((await mock.request('GET', '/__mock/clock', { headers: { 'x-mock-control-token': 'ci-token-123' } })).status).toBe(200)
  })

  it('checks the token before the body, so a refused call changes nothing', async () => {
    const reply = await mock.request('POST', '/__mock/clock', { json: { advanceMs: 1000 } })
    expect(reply.status).toBe(401)
    const clock = await mock.request('GET', '/__mock/clock', { headers: { authorization: 'Bearer ci-token-123' } })
    expect(clock.body.offsetMs).toBe(0)
  })

  it('serves its own document without the token', async () => {
    const reply = await mock.request('GET', '/__mock/openapi.json')
    expect(reply.status).toBe(200)
    expect(reply.body.info.title).toBe('appdata-kit mock control plane')
  })

  it('leaves the API alone', async () => {
    const token = await mock.signIn()
    expect((await mock.items(token, '$top=1')).status).toBe(200)
  })
})

describe('--no-control-plane', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ controlPlane: false })
  })
  afterAll(() => mock.close())

  it('answers 404 for every /__mock/ path, saying why', async () => {
    for (const [method, path] of [
      ['POST', '/__mock/reset'],
      ['GET', '/__mock/requests'],
      ['GET', '/__mock/openapi.json'],
      ['DELETE', '/__mock/faults'],
      ['GET', '/__mock'],
    ] as const) {
      const reply = await mock.request(method, path, { unchecked: true })
      expect(reply.status, `${method} ${path}`).toBe(404)
      expect(reply.body.code).toBe('NOT_FOUND')
      expect(reply.body.detail).toContain('--no-control-plane')
    }
  })

  it('still serves the API and keeps the in-process controls', async () => {
    const token = await mock.signIn()
    expect((await mock.items(token, '$top=1')).status).toBe(200)
    expect(mock.mock.requests({ operationId: 'queryItems' })).toHaveLength(1)
  })
})
