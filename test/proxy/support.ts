/**
 * What the proxy's tests share: the built command line started as a process in front of a target,
 * stopped by SIGTERM as a CI job stops it, and a small target server of the test's own that plants
 * whatever answer a case needs (an off-document body, a cut, a reset, an interim status, an
 * encoding), chosen by a header the client sends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { expect } from 'vitest'
import { IDS } from '../helpers/http.ts'
import { ROOT, startInProcess, startProcess, underMutation, type Started } from '../cli/processes.ts'
import type { ProxyReport } from '../../src/commands/proxy/inspector.ts'
import type { Finding } from '../../src/commands/proxy/findings.ts'

export const BIN = join(ROOT, 'bin/appdata-kit.js')
export const ITEMS = '/ExplorerApi/api/items'

/**
 * The proxy started from the built bin, in front of `target`, on a free port. Under `npm run mutate`
 * (underMutation) it runs in this process instead, from the sources, judging on this
 * thread (judge-inline.ts): a mutant lives only in the thread that runs the tests.
 */
export async function proxy(target: string, flags: string[] = [], env: Record<string, string> = {}): Promise<Started & { url: string }> {
  const args = ['--target', target, '--port', '0', ...flags]
  const run = underMutation() ? await inThisProcess(args, env) : await startProcess(process.execPath, [BIN, 'proxy', ...args], { env })
  if (run.url === undefined) throw new Error(`the proxy did not start (exit ${run.code}): ${run.stdout}${run.stderr}`)
  return run as Started & { url: string }
}

async function inThisProcess(args: string[], env: Record<string, string>): Promise<Started> {
  const { runProxy } = await import('../../src/commands/cli/proxy.ts')
  const { startJudgeInline } = await import('../../src/commands/proxy/judge-inline.ts')
  return startInProcess((io, stop) => runProxy(args, io, stop, { startJudge: startJudgeInline }), env)
}

/** SIGTERM, as a CI job's end sends it; resolves with the exit code. */
export async function stop(run: Started): Promise<number | null> {
  run.child.kill('SIGTERM')
  return (await run.exited).code
}

/** The report so far (`GET /__proxy/report`). */
export async function report(run: { url: string }): Promise<ProxyReport> {
  const answer = await fetch(`${run.url}/__proxy/report`)
  expect(answer.status).toBe(200)
  return (await answer.json()) as ProxyReport
}

export const named = (findings: readonly Finding[], side: string, operationId: string | null, pointer: string) =>
  findings.filter((f) => f.side === side && f.operationId === operationId && f.pointer === pointer)

/** The headers of a Get Items request that keeps to the document (a token of the right form; the target is the test's, which checks none). */
export const CLIENT_HEADERS: Record<string, string> = {
  'content-type': 'application/json',
  SessionToken: 'tokentokentokentokentokentokentokentokento',
  ApplicationId: IDS.applicationId,
  WorkspaceId: IDS.workspaceId,
}

/** A page of Get Items that keeps to the document: its rows as the mock answers them. */
export function validRow(id: number): Record<string, unknown> {
  return {
    Id: id,
    TIMESTAMP: 'AAAAAAAAA+k=',
    ROW_ORDER: id,
    DT_CREATION: 20261101090000,
    DT_LAST_UPDATE: 20261101090000,
    USER_ID_CREATION: 1,
    USER_ID_LAST_UPDATE: 1,
    CT_ATTACHMENTS: 0,
    IdRow: id,
    Customer: 'Initech',
    Amount: 5,
    Status: 'Open',
  }
}

/** How a planted target answers one request (the request's body already read). */
export type Plant = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void

/** A target of the test's own: each request is answered by the plant its `x-plant` header names (`valid` when none). */
export async function plantedTarget(plants: Record<string, Plant>): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = []
  const all: Record<string, Plant> = { valid: (_request, response) => json(response, 200, [validRow(1)]), ...plants }
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const name = String(request.headers['x-plant'] ?? 'valid')
      seen.push(name)
      const plant = all[name]
      if (plant === undefined) return json(response, 500, { unknown: name })
      plant(request, response, Buffer.concat(chunks))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Answers JSON. */
export function json(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = Buffer.from(JSON.stringify(value))
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length), ...headers })
  response.end(body)
}

/** A Get Items request through the proxy that keeps to the document, planted with `plant`. */
export function getItems(base: string, plant: string, init: { body?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(`${base}${ITEMS}`, {
    method: 'POST',
    headers: { ...CLIENT_HEADERS, 'x-plant': plant, ...init.headers },
    body: init.body ?? JSON.stringify({ query: '$top=1' }),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  })
}
