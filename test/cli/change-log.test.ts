/**
 * `--state-file`'s promise: every change the mock acknowledged is there after a `kill -9` and a
 * restart, and a change it never answered is there whole or not at all. The mock is a spawned
 * process, killed while it works.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient, rowVersion } from '../../src/client/client.ts'
import { mulberry32 } from '../../src/wire/prng.ts'
import { IDS } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { ROOT, startProcess, stopStarted, type Started } from './processes.ts'

const SERVER = join(ROOT, 'dist/src/mock/server.js')

afterEach(stopStarted)
/** A state file in a new folder, removed when the running test ends. */
const stateFile = () => join(tempDir('appdata-kit-log-'), 'sandbox.json')

type Client = ReturnType<typeof createClient>

async function start(file: string, extra: string[] = []): Promise<{ run: Started; client: Client }> {
  // A snapshot only at start and stop: what survives a kill comes from the change log.
  const run = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file, '--state-interval', '3600', ...extra])
  expect(run.url, run.stderr).toBeDefined()
  const client = createClient({
    transport: run.url as string,
    organization: IDS.org,
    clientId: IDS.clientId,
    workspaceId: IDS.workspaceId,
    applicationId: IDS.applicationId,
  })
  await client.signIn(IDS.admin)
  return { run, client }
}

async function kill(started: { run: Started; client: Client }): Promise<void> {
  process.kill(started.run.child.pid as number, 'SIGKILL')
  await started.run.exited
  await started.client.transport.close().catch(() => undefined)
}

const newOrder = (customer: string, details = 0) => ({
  Rows: [
    {
      Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 1, Status: 'New' },
      Details:
        details === 0
          ? []
          : [
              {
                RelationKey: IDS.relationKey,
                Rows: Array.from({ length: details }, (_, i) => ({
                  Id: -1 - i,
                  IdRow: null,
                  TIMESTAMP: null,
                  Product: `${customer} line ${i}`,
                  Quantity: 1,
                  UnitPrice: 1,
                })),
              },
            ],
    },
  ],
})

describe('--state-file change log', () => {
  it('keeps 200 acknowledged creates through a kill -9 right after the last answer', async () => {
    const file = stateFile()
    const first = await start(file)
    expect(first.run.stdout).toContain(`every change written to ${file}.log before it is answered`)
    // Ten clients at a time, as a team sandbox gets them.
    for (let batch = 0; batch < 20; batch++) {
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => first.client.save(newOrder(`Acknowledged ${batch * 10 + i}`))))
      for (const outcome of outcomes) expect(outcome.ok).toBe(true)
    }
    await kill(first)

    const second = await start(file)
    try {
      const rows = await second.client.rows({ filter: "startswith(Customer, 'Acknowledged')" })
      expect(rows.map((row) => row.Customer).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `Acknowledged ${i}`).sort())
      expect(await second.client.count()).toBe(225)
    } finally {
      await kill(second)
    }
  })

  it('keeps every acknowledged create, update and delete, and no half of an unanswered one, when killed at seeded random moments', async () => {
    const seed = Number(process.env.CHANGE_LOG_SEED ?? 20261125)
    const random = mulberry32(seed)
    const pick = (n: number) => Math.floor(random() * n)
    const file = stateFile()
    /** The masters as the mock acknowledged them, by Id, with how many detail rows each has. */
    type Model = Map<number, { customer: string; amount: number; status: string; details: number }>
    const read = async (client: Client): Promise<Model> => {
      const lines = await client.rows({ relationKey: IDS.relationKey })
      const masters = await client.rows({ orderBy: 'Id asc' })
      return new Map(
        masters.map((row) => [
          row.Id as number,
          {
            customer: String(row.Customer),
            amount: Number(row.Amount),
            status: String(row.Status),
            details: lines.filter((line) => line.MasterId === row.Id).length,
          },
        ]),
      )
    }
    let model: Model | undefined
    let made = 0
    for (let round = 0; round < 4; round++) {
      const running = await start(file, round % 2 === 1 ? ['--state-sync', 'always'] : [])
      const context = `seed ${seed} (CHANGE_LOG_SEED), round ${round}`
      const current = await read(running.client)
      if (model === undefined) model = current
      expect(current, context).toEqual(model)
      const state = model

      /** One change, decided and its rows read before it is sent; `apply` writes it into the model (a create with the Id it got). */
      const prepare = async (): Promise<{ customer?: string; send: () => Promise<number | undefined>; apply: (id: number | undefined) => void }> => {
        const ids = [...state.keys()]
        const kind = ids.length < 5 ? 0 : pick(3)
        if (kind === 0) {
          const customer = `Made ${made++}`
          const details = 1 + pick(3)
          return {
            customer,
            send: async () => {
              const outcome = await running.client.save(newOrder(customer, details))
              expect(outcome.ok, context).toBe(true)
              return Number(
                (outcome.result as { ReturnData: { PrimaryKeyData: Record<string, { newKeys: Record<string, string> }> } }).ReturnData.PrimaryKeyData['-1']
                  ?.newKeys.Id,
              )
            },
            apply: (id) => {
              if (id !== undefined) state.set(id, { customer, amount: 1, status: 'New', details })
            },
          }
        }
        // Two rows changed in one save, or deleted in one request: all or nothing.
        const a = ids[pick(ids.length)] as number
        const b = ids.filter((id) => id !== a)[pick(ids.length - 1)] as number
        const rows = await running.client.rows({ filter: `Id eq ${a} or Id eq ${b}` })
        const version = (id: number) => rowVersion(String(rows.find((row) => row.Id === id)?.TIMESTAMP))
        if (kind === 1) {
          const amount = 1000 + pick(1000)
          const status = `Round ${round}`
          return {
            send: async () => {
              const outcome = await running.client.save({
                Rows: [a, b].map((id) => ({ Row: { Id: id, TIMESTAMP: version(id), Amount: amount, Status: status }, Details: [] })),
              })
              expect(outcome.ok, context).toBe(true)
              return undefined
            },
            apply: () => {
              for (const id of [a, b]) Object.assign(state.get(id) as object, { amount, status })
            },
          }
        }
        return {
          send: async () => {
            const outcome = await running.client.delete([{ relationKey: null, rows: [a, b].map((id) => ({ Id: id, TIMESTAMP: version(id) })) }])
            expect(outcome.ok, context).toBe(true)
            return undefined
          },
          apply: () => {
            state.delete(a)
            state.delete(b)
          },
        }
      }

      const acknowledged = 3 + pick(25)
      for (let i = 0; i < acknowledged; i++) {
        const change = await prepare()
        change.apply(await change.send())
      }
      // The next change is under way when the kill comes, from 0 to 8 ms after it was sent.
      const change = await prepare()
      const sent = change.send().then(
        (id) => ({ id }),
        () => undefined,
      )
      await new Promise((resolve) => setTimeout(resolve, pick(9)))
      await kill(running)
      const answer = await sent

      const restarted = await start(file)
      const found = await read(restarted.client)
      await kill(restarted)
      const before = structuredClone(state)
      // An unanswered create, if it is there, has the Id it was given: the model after it uses that.
      change.apply(answer?.id ?? [...found].find(([, row]) => row.customer === change.customer)?.[0])
      if (answer !== undefined) expect(found, `${context}: an acknowledged change is missing`).toEqual(state)
      else expect([before, state], `${context}: the unanswered change is half there`).toContainEqual(found)
      model = found
    }
    expect(made).toBeGreaterThan(0)
  }, 120_000)

  it('starts with a torn last line of the log ignored and a warning, the whole lines before it replayed', async () => {
    const file = stateFile()
    const first = await start(file)
    for (const name of ['Kept 1', 'Kept 2', 'Kept 3']) expect((await first.client.save(newOrder(name, 1))).ok).toBe(true)
    await kill(first)
    // A write a power loss cut short: part of a line, no newline.
    appendFileSync(`${file}.log`, '{"v":9999,"t":[{"s":"5e7d0c1a-1111-4111-8111-0000000')
    const second = await start(file)
    try {
      expect(second.run.stdout).toMatch(
        /change log .*sandbox\.json\.log: last line ignored \(not a whole JSON line; a write cut short by a crash, never answered\): 3 changes replayed/,
      )
      expect((await second.client.rows({ filter: "startswith(Customer, 'Kept')" })).map((row) => row.Customer)).toEqual(['Kept 1', 'Kept 2', 'Kept 3'])
      // The restart wrote a new snapshot and began the log again: the torn line is gone.
      expect(
        readFileSync(`${file}.log`, 'utf8')
          .split('\n')
          .filter((line) => line !== ''),
      ).toHaveLength(1)
      expect(readFileSync(file, 'utf8')).toContain('Kept 3')
      // A reset goes back to the data the mock started with: the replayed changes included.
      expect((await fetch(`${second.run.url}/__mock/reset`, { method: 'POST' })).status).toBe(200)
      expect(await second.client.count({ filter: "startswith(Customer, 'Kept')" })).toBe(3)
    } finally {
      await kill(second)
    }
    expect(existsSync(`${file}.log`)).toBe(true)
  })
})
