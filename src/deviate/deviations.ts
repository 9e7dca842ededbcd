import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { resultObject } from '../operations/results.ts'
import { relationKeyOf } from '../store/guid.ts'
import { parseQueryString } from '../wire/query-string.ts'
import type { DeviationName } from './deviation-names.ts'

/**
 * Faults the mock can be started with on purpose (`--deviate NAME`, left out of `--help`), each the
 * kind of change an upgrade of a real installation could bring. They exist to measure `verify`: a
 * contract names the deviation it must catch, and a test runs verify against each. Each deviation
 * is a hook around the normal handlers, so none of them touches the handlers themselves.
 */

type Json = unknown
type JsonEdit = (body: Json, request: FastifyRequest) => Json

const operationOf = (request: FastifyRequest): string | undefined => request.routeOptions.config?.operationId

/** Edits the JSON answers of some operations after the handler wrote them. */
function editAnswers(app: FastifyInstance, operations: readonly string[], edit: JsonEdit): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const operation = operationOf(request)
    if (operation === undefined || !operations.includes(operation) || reply.statusCode !== 200) return payload
    // Pages of rows go out as bytes, other answers as text.
    const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload
    if (typeof text !== 'string' || text === '') return payload
    return JSON.stringify(edit(JSON.parse(text), request))
  })
}

/** Changes requests of some operations before they are checked and handled. */
function editRequests(app: FastifyInstance, operations: readonly string[], edit: (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>): void {
  app.addHook('preHandler', async (request, reply) => {
    const operation = operationOf(request)
    if (operation !== undefined && operations.includes(operation)) await edit(request, reply)
  })
}

const ITEMS = ['queryItems', 'queryItemsLegacy']
const isRows = (body: Json): body is Array<Record<string, unknown>> => Array.isArray(body)

/** Drops one option (`$top`, `relationKey`, ...) from a Get Items request, in either form. */
function dropOption(app: FastifyInstance, option: string): void {
  const names = [option, option.replace(/^\$/, '%24')].map((name) => `${name.toLowerCase()}=`)
  editRequests(app, ITEMS, (request) => {
    const body = request.body as { query?: unknown } | undefined
    if (typeof body?.query === 'string')
      body.query = body.query
        .split('&')
        .filter((part) => !names.some((name) => part.toLowerCase().startsWith(name)))
        .join('&')
    const query = request.query as Record<string, unknown>
    if (query !== null && typeof query === 'object') delete query[option]
  })
}

type SentRow = Record<string, unknown>

/** The master rows of a save request (`Rows[].Row`), with the application's master storage. */
function saveMasters(app: FastifyInstance, request: FastifyRequest): { rows: SentRow[]; fields: string[]; identity: string } | undefined {
  const application = app.store.application(String(request.headers.applicationid ?? '').toLowerCase())
  const body = request.body as { Rows?: Array<{ Row?: SentRow }> } | undefined
  if (application === undefined || !Array.isArray(body?.Rows)) return undefined
  const rows = body.Rows.flatMap((master) => (master.Row === undefined || master.Row === null ? [] : [master.Row]))
  return { rows, fields: application.master.fields.map((field) => field.name), identity: application.master.identityField }
}

/** Changes the master rows of saves, new (`Id` below 0) or updated (`Id` above 0). */
function editSavedMasters(app: FastifyInstance, which: 'new' | 'updated', edit: (row: SentRow, fields: string[], identity: string) => void): void {
  editRequests(app, ['saveItems'], (request) => {
    const masters = saveMasters(app, request)
    for (const row of masters?.rows ?? [])
      if (typeof row.Id === 'number' && (which === 'new' ? row.Id < 0 : row.Id > 0)) edit(row, masters?.fields ?? [], masters?.identity ?? '')
  })
}

/** Whether the application a request names has a detail table of that relation key (true for an unknown application: nothing to change). */
function knownRelationKey(app: FastifyInstance, request: FastifyRequest, key: string): boolean {
  const application = app.store.application(String(request.headers.applicationid ?? '').toLowerCase())
  return application === undefined || application.details.some((detail) => relationKeyOf(detail.relationKey) === relationKeyOf(key))
}

/** Changes the download answers: `edit` may set headers and return another payload. */
function editDownloads(app: FastifyInstance, edit: (reply: FastifyReply, payload: unknown) => unknown): void {
  app.addHook('onSend', async (request, reply, payload) =>
    operationOf(request) === 'downloadAttachment' && reply.statusCode === 200 ? edit(reply, payload) : payload,
  )
}

/** An empty zip archive: only the end-of-central-directory record. */
const EMPTY_ZIP = Buffer.concat([Buffer.from('504b0506', 'hex'), Buffer.alloc(18)])

interface Deviation {
  breaks: string
  install(app: FastifyInstance): void
}

/** Every deviation: what it breaks, for people, and how; exactly the names `--deviate` takes. */
export const DEVIATIONS: Record<string, Deviation> = {
  'id-as-text': {
    breaks: 'read rows carry Id as a text',
    install: (app) => editAnswers(app, ITEMS, (body) => (isRows(body) ? body.map((row) => ({ ...row, Id: String(row.Id) })) : body)),
  },
  'ignore-top': { breaks: 'Get Items ignores $top', install: (app) => dropOption(app, '$top') },
  'ignore-skip': { breaks: 'Get Items ignores $skip', install: (app) => dropOption(app, '$skip') },
  'ignore-orderby': { breaks: 'Get Items ignores $orderby', install: (app) => dropOption(app, '$orderby') },
  'ignore-filter': { breaks: 'Get Items ignores $filter', install: (app) => dropOption(app, '$filter') },
  'ignore-relation-key': {
    breaks: 'Get Items answers the master rows when a relation key names a detail table',
    install: (app) => dropOption(app, 'relationKey'),
  },
  'count-as-text': {
    breaks: 'Get Items Count answers the count as a text',
    install: (app) =>
      editAnswers(app, ITEMS, (body) => {
        const count = body as { Items?: Array<{ _FieldCount_: unknown }> }
        return Array.isArray(count.Items) ? { ...count, Items: count.Items.map((item) => ({ _FieldCount_: String(item._FieldCount_) })) } : body
      }),
  },
  'timestamp-hex': {
    breaks: 'read rows carry TIMESTAMP as hexadecimal text instead of base64',
    install: (app) =>
      editAnswers(app, ITEMS, (body) =>
        isRows(body) ? body.map((row) => ({ ...row, TIMESTAMP: Buffer.from(String(row.TIMESTAMP), 'base64').toString('hex') })) : body,
      ),
  },
  'version-unchanged': {
    breaks: 'a row keeps the TIMESTAMP it was first read with, whatever is saved',
    install: (app) => {
      const first = new Map<string, unknown>()
      editAnswers(app, ITEMS, (body, request) =>
        isRows(body)
          ? body.map((row) => {
              const key = `${(request.body as { query?: string } | undefined)?.query?.includes('relationKey') === true ? 'detail' : 'master'}:${String(row.Id)}`
              if (!first.has(key)) first.set(key, row.TIMESTAMP)
              return { ...row, TIMESTAMP: first.get(key) }
            })
          : body,
      )
    },
  },
  'accept-stale': {
    breaks: 'saves and deletes accept a stale TIMESTAMP',
    install: (app) =>
      editRequests(app, ['saveItems', 'deleteItems'], (request) => {
        const applicationId = String(request.headers.applicationid ?? '').toLowerCase()
        const current = (id: number, relationKey: string | null) => {
          const found = app.store.getRow(applicationId, relationKey, id)
          return found === null ? undefined : found.row.TIMESTAMP
        }
        const body = request.body as Json
        const fix = (row: { Id?: unknown; TIMESTAMP?: unknown }, relationKey: string | null) => {
          const version = typeof row.Id === 'number' && row.Id > 0 ? current(row.Id, relationKey) : undefined
          if (version !== undefined && row.TIMESTAMP !== null) row.TIMESTAMP = version
        }
        if (Array.isArray(body)) {
          for (const group of body as Array<{ RelationKey?: string | null; Rows?: Array<{ Row?: { Id?: unknown; TIMESTAMP?: unknown } }> }>) {
            for (const ref of group.Rows ?? []) if (ref.Row !== undefined) fix(ref.Row, group.RelationKey ?? null)
          }
        } else {
          for (const master of (body as { Rows?: Array<{ Row?: { Id?: unknown; TIMESTAMP?: unknown } }> } | undefined)?.Rows ?? [])
            if (master.Row !== undefined) fix(master.Row, null)
        }
      }),
  },
  'temp-ids-unmapped': {
    breaks: 'a save answers no keys for the rows it created (PrimaryKeyData empty)',
    install: (app) => editAnswers(app, ['saveItems'], (body) => ({ ...(body as object), ReturnData: { PrimaryKeyData: {} } })),
  },
  'misspelled-flag': {
    breaks: 'a current release spells the success flag IsSaveSuccesfully',
    install: (app) =>
      editAnswers(app, ['saveItems', 'deleteItems'], (body) => {
        const { IsSaveSuccessfully: flag, ...rest } = body as { IsSaveSuccessfully?: unknown }
        return flag === undefined ? body : { IsSaveSuccesfully: flag, ...rest }
      }),
  },
  'delete-noop': {
    breaks: 'a delete reports success and deletes nothing',
    install: (app) =>
      editRequests(app, ['deleteItems'], async (request, reply) => {
        // Only for a caller the mock would let delete: the hook runs before authentication.
        const token = request.headers.sessiontoken
        const application = app.store.application(String(request.headers.applicationid ?? '').toLowerCase())
        const groups = Array.isArray(request.body) ? (request.body as Array<{ Rows?: unknown[] }>) : []
        if (application === undefined || typeof token !== 'string' || !app.tokens.check(token).ok) return
        const deleted = groups.reduce((n, group) => n + (group.Rows?.length ?? 0), 0)
        await reply.send(
          resultObject(app.profile, application, { ok: true, returnStates: [], counters: { created: 0, updated: 0, deleted }, masterRowLink: null }),
        )
      }),
  },
  'no-auth': {
    breaks: 'data calls answer without a valid session token',
    install: (app) => {
      let token: string | undefined
      app.addHook('onRequest', async (request) => {
        const admin = app.store.organization().users.find((user) => user.canWrite)
        if (admin === undefined) return
        if (token === undefined || !app.tokens.check(token).ok) token = app.tokens.issue(admin).token
        const sent = request.headers.sessiontoken
        if (typeof sent !== 'string' || !app.tokens.check(sent).ok) request.headers.sessiontoken = token
        const bearer = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1]
        if (bearer === undefined || !app.tokens.check(bearer).ok) request.headers.authorization = `Bearer ${token}`
      })
    },
  },
  'any-password': {
    breaks: 'sign-in accepts any password',
    install: (app) =>
      editRequests(app, ['signIn', 'signInWithoutOrganization', 'signInLegacy'], (request) => {
        const body = request.body as { username?: unknown; userName?: unknown; password?: unknown } | undefined
        const name = String(body?.username ?? body?.userName ?? '').toLowerCase()
        const user = app.store.organization().users.find((u) => u.email.toLowerCase() === name)
        if (body !== undefined && user !== undefined) body.password = user.password
      }),
  },
  'expires-in-text': {
    breaks: 'sign-in answers expires_in as a text',
    install: (app) =>
      editAnswers(app, ['signIn', 'signInWithoutOrganization'], (body) => ({
        ...(body as object),
        expires_in: String((body as { expires_in?: unknown }).expires_in),
      })),
  },
  'drop-attachment-name': {
    breaks: 'attachment records lack their Name',
    install: (app) => editAnswers(app, ['listAttachments'], (body) => (isRows(body) ? body.map(({ Name: _name, ...record }) => record) : body)),
  },
  'wrong-media-type': {
    breaks: 'a downloaded file comes as application/octet-stream, not its own media type',
    install: (app) =>
      app.addHook('onSend', async (request, reply, payload) => {
        if (operationOf(request) === 'downloadAttachment' && reply.statusCode === 200 && reply.getHeader('content-type') !== 'application/zip')
          reply.type('application/octet-stream')
        return payload
      }),
  },
  'relative-row-link': {
    breaks: 'Generate Row Link answers a link without scheme and host',
    install: (app) => editAnswers(app, ['generateRowLink'], (body) => (typeof body === 'string' ? body.replace(/^https?:\/\/[^/]+/, '') : body)),
  },
  'identity-stuck': {
    breaks: 'Get Identities hands out the same values again',
    install: (app) => {
      const first = new Map<string, Json>()
      editAnswers(app, ['getIdentities'], (body, request) => {
        const key = request.url.toLowerCase()
        if (!first.has(key)) first.set(key, body)
        return first.get(key)
      })
    },
  },
  'email-body': {
    breaks: 'Send Email answers a body',
    install: (app) =>
      app.addHook('onSend', async (request, reply, payload) => {
        if (operationOf(request) !== 'sendEmail' || reply.statusCode !== 200) return payload
        reply.type('application/json; charset=utf-8')
        return '{"queued":true}'
      }),
  },
  'quote-crash': {
    breaks: "a $filter with a doubled quote ('') fails with a server error",
    install: (app) =>
      editRequests(app, ITEMS, (request) => {
        const text = (request.body as { query?: unknown } | undefined)?.query ?? (request.query as { $filter?: unknown } | undefined)?.$filter
        if (typeof text === 'string' && decodeURIComponent(text.replace(/%(?![0-9a-f]{2})/gi, '%25')).includes("''")) throw new Error('deviation quote-crash')
      }),
  },
  'update-nulls-unsent': {
    breaks: 'an update sets every field it did not send to null',
    install: (app) =>
      editSavedMasters(app, 'updated', (row, fields) => {
        for (const name of fields) if (!(name in row)) row[name] = null
      }),
  },
  'update-ignored': {
    breaks: 'an update is reported saved, gives the row a new TIMESTAMP and changes none of its fields',
    install: (app) =>
      editSavedMasters(app, 'updated', (row, fields) => {
        for (const name of fields) delete row[name]
      }),
  },
  'create-drops-number': {
    breaks: 'a new row loses the numbers sent for it (its numeric fields are saved empty)',
    install: (app) =>
      editSavedMasters(app, 'new', (row, fields, identity) => {
        for (const name of fields) if (name !== identity && typeof row[name] === 'number') row[name] = null
      }),
  },
  'temp-ids-swapped': {
    breaks: "a save of two new rows names each one's Id under the other's temporary Id",
    install: (app) =>
      editAnswers(app, ['saveItems'], (body) => {
        const data = (body as { ReturnData?: { PrimaryKeyData?: Record<string, unknown> } }).ReturnData?.PrimaryKeyData
        const keys = Object.keys(data ?? {})
        if (data === undefined || keys.length < 2) return body
        const [a, b] = keys as [string, string]
        return { ...(body as object), ReturnData: { PrimaryKeyData: { ...data, [a]: data[b], [b]: data[a] } } }
      }),
  },
  'accept-duplicate-identity': {
    breaks: 'a new row sent with an Identity value already taken is saved (with another value) instead of a duplicate key error',
    install: (app) =>
      editSavedMasters(app, 'new', (row, _fields, identity) => {
        if (identity !== '' && row[identity] !== null && row[identity] !== undefined) row[identity] = null
      }),
  },
  'orderby-id-only': {
    breaks: 'Get Items orders by Id whatever field $orderby names',
    install: (app) =>
      editRequests(app, ITEMS, (request) => {
        const body = request.body as { query?: unknown } | undefined
        if (typeof body?.query === 'string') body.query = body.query.replace(/((?:\$|%24)orderby=)[^&\s+%]+/i, '$1Id')
      }),
  },
  'skip-past-end-repeats': {
    breaks: 'a page that starts at or past the count answers the last row again instead of no rows',
    install: (app) =>
      editRequests(app, ['queryItems'], (request) => {
        const body = request.body as { query?: unknown } | undefined
        if (typeof body?.query !== 'string') return
        const parsed = parseQueryString(body.query)
        if ('error' in parsed || parsed.inlineCount || parsed.skip === 0) return
        const counted = app.store.countRows(String(request.headers.applicationid ?? '').toLowerCase(), parsed.relationKey, parsed, [])
        if ('error' in counted || parsed.skip < counted.count || counted.count === 0) return
        body.query = body.query.replace(/((?:\$|%24)skip=)\d+/i, `$1${counted.count - 1}`)
      }),
  },
  'count-off-by-one': {
    breaks: 'Get Items Count answers one more than the rows there are',
    install: (app) =>
      editAnswers(app, ITEMS, (body) => {
        const count = body as { Items?: Array<{ _FieldCount_: unknown }> }
        return Array.isArray(count.Items) ? { ...count, Items: count.Items.map((item) => ({ _FieldCount_: Number(item._FieldCount_) + 1 })) } : body
      }),
  },
  'delete-first-group-only': {
    breaks: 'a delete whose body holds a master group and a detail group deletes only the rows of the first group',
    install: (app) =>
      editRequests(app, ['deleteItems'], (request) => {
        if (Array.isArray(request.body) && request.body.length > 1) request.body.splice(1)
      }),
  },
  'ignore-folder-filter': {
    breaks: "the attachments list ignores the FolderId condition and answers the row's top level",
    install: (app) =>
      editRequests(app, ['listAttachments'], (request) => {
        const query = request.query as { $filter?: unknown }
        if (typeof query.$filter === 'string') query.$filter = query.$filter.replace(/\s+and\s+FolderId\s+eq\s+\S+/i, '')
      }),
  },
  'attachments-ignore-relation-key': {
    breaks: "the attachments list ignores relationKey and answers the master row's attachments",
    install: (app) =>
      editRequests(app, ['listAttachments'], (request) => {
        delete (request.query as { relationKey?: unknown }).relationKey
      }),
  },
  'attachment-date-iso': {
    breaks: 'attachment records carry DT_CREATION as ISO text instead of a yyyymmddhhmmss number',
    install: (app) =>
      editAnswers(app, ['listAttachments'], (body) =>
        isRows(body)
          ? body.map((record) => {
              const digits = String(record.DT_CREATION ?? '')
              return /^\d{14}$/.test(digits)
                ? {
                    ...record,
                    DT_CREATION: `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)}T${digits.slice(8, 10)}:${digits.slice(10, 12)}:${digits.slice(12)}Z`,
                  }
                : record
            })
          : body,
      ),
  },
  'download-generic-name': {
    breaks: 'a downloaded file is named "download" in Content-Disposition, not by its own name',
    install: (app) =>
      editDownloads(app, (reply, payload) => {
        if (reply.getHeader('content-type') !== 'application/zip') reply.header('content-disposition', 'attachment; filename=download')
        return payload
      }),
  },
  'empty-folder-zip': {
    breaks: 'a folder downloads as a valid but empty zip archive',
    install: (app) =>
      editDownloads(app, (reply, payload) => {
        if (!String(reply.getHeader('content-type')).startsWith('application/zip')) return payload
        reply.removeHeader('content-length')
        return EMPTY_ZIP
      }),
  },
  'same-row-link': {
    breaks: 'Generate Row Link answers the same link whichever row it is asked for',
    install: (app) => {
      let first: Json
      editAnswers(app, ['generateRowLink'], (body) => {
        if (first === undefined) first = body
        return first
      })
    },
  },
  'identity-gaps': {
    breaks: 'Get Identities answers values with gaps between them, not sequential ones',
    install: (app) =>
      editAnswers(app, ['getIdentities'], (body) => (Array.isArray(body) ? body.map((value, i) => (typeof value === 'number' ? value + i : value)) : body)),
  },
  'reservation-not-held': {
    breaks: 'a save assigns a new row an Identity value Get Identities reserved',
    install: (app) => {
      // The values of the latest reservation, handed to the next new rows as if nobody had reserved them.
      let reserved: number[] = []
      editAnswers(app, ['getIdentities'], (body) => {
        if (Array.isArray(body)) reserved = body.filter((value): value is number => typeof value === 'number')
        return body
      })
      editSavedMasters(app, 'new', (row, _fields, identity) => {
        const value = reserved.shift()
        if (identity !== '' && row[identity] === null && value !== undefined) row[identity] = value
      })
    },
  },
  'ignore-workspace': {
    breaks: "data calls answer the application's rows whatever WorkspaceId they name",
    install: (app) =>
      app.addHook('onRequest', async (request) => {
        const applicationId = String(request.headers.applicationid ?? '').toLowerCase()
        const home = app.store.organization().workspaces.find((workspace) => workspace.applicationIds.some((id) => id.toLowerCase() === applicationId))
        if (home !== undefined && request.headers.workspaceid !== undefined) request.headers.workspaceid = home.id
      }),
  },
  'ignore-application': {
    breaks: 'data calls that name an ApplicationId the installation does not have answer the rows of the application named last before',
    install: (app) => {
      let last: string | undefined
      app.addHook('onRequest', async (request) => {
        const sent = request.headers.applicationid
        if (typeof sent !== 'string') return
        if (app.store.application(sent.toLowerCase()) !== undefined) last = sent
        else if (last !== undefined) request.headers.applicationid = last
      })
    },
  },
  'unknown-relation-key-reads-masters': {
    breaks: 'Get Items with a relationKey the application does not have answers its master rows',
    install: (app) =>
      editRequests(app, ['queryItems'], (request) => {
        const body = request.body as { query?: unknown } | undefined
        if (typeof body?.query !== 'string') return
        body.query = body.query
          .split('&')
          .filter((part) => {
            const [name = '', value = ''] = part.split('=')
            return name.toLowerCase() !== 'relationkey' || knownRelationKey(app, request, decodeURIComponent(value))
          })
          .join('&')
      }),
  },
  'attachments-unknown-relation-key': {
    breaks: "the attachments list with a relationKey the application does not have answers the master row's attachments",
    install: (app) =>
      editRequests(app, ['listAttachments'], (request) => {
        const query = request.query as { relationKey?: unknown }
        if (typeof query.relationKey === 'string' && !knownRelationKey(app, request, query.relationKey)) delete query.relationKey
      }),
  },
  'download-unknown-relation-key': {
    breaks: "a download with an rk the application does not have answers the master row's file with that Id",
    install: (app) =>
      editRequests(app, ['downloadAttachment'], (request) => {
        const body = request.body as { rk?: unknown } | undefined
        if (typeof body?.rk === 'string' && !knownRelationKey(app, request, body.rk)) delete body.rk
      }),
  },
  'counters-zero': {
    breaks: 'save and delete results report CreatedItems, UpdatedItems and DeletedItems as 0 whatever they wrote',
    install: (app) =>
      editAnswers(app, ['saveItems', 'deleteItems'], (body) =>
        body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, CreatedItems: 0, UpdatedItems: 0, DeletedItems: 0 } : body,
      ),
  },
} satisfies Record<DeviationName, Deviation>

/** Installs the named deviations on a mock; call before the routes are registered. */
export function installDeviations(app: FastifyInstance, names: readonly string[]): void {
  for (const name of names) {
    const deviation = DEVIATIONS[name]
    if (deviation === undefined) throw new Error(`unknown deviation ${name}`)
    deviation.install(app)
  }
}
