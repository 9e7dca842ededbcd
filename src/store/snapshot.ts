import { FIXTURE_SETTABLE_SYSTEM_FIELDS } from './model/system-fields.ts'
import { setOwn } from './model/field-values.ts'
import type { StoreState } from './state.ts'
import type { Table } from './engine/table.ts'
import type { Fixture, Row, Sequences } from './model/types.ts'

/** Fields a snapshot keeps of a row: what a fixture may give, the version included. */
function keptFields(table: Table): string[] {
  return ['Id', table.storage.identityField, ...table.storage.fields.map((field) => field.name), ...FIXTURE_SETTABLE_SYSTEM_FIELDS, 'ROW_ORDER', 'TIMESTAMP']
}

function rowsOf(table: Table): Row[] {
  const fields = keptFields(table)
  const rows: Row[] = []
  table.forEachRow((row) => {
    const kept: Record<string, unknown> = {}
    for (const field of fields) if (row[field] !== null && row[field] !== undefined) setOwn(kept, field, row[field])
    rows.push(kept as Row)
  })
  return rows.sort((a, b) => a.Id - b.Id)
}

/**
 * The store's data as it is now, as a fixture that loads back into the same data: every row
 * with its version, creation and update fields, every attachment with its bytes, where each
 * storage's sequences stand (so no Id or Identity value is handed out twice, reserved ones
 * included), the definitions unchanged. Left out: everything outside the store (outbox,
 * sessions, journal). Locks are kept as they are now. Reads only.
 */
export function snapshotOf(state: StoreState): Fixture {
  const data: Fixture['data'] = {}
  const sequences: Sequences = {}
  for (const table of state.storages.values()) sequences[table.storage.id] = { nextId: table.nextId, nextIdentity: table.nextIdentity }
  for (const [applicationId, app] of state.apps) {
    data[applicationId] = {
      masters: rowsOf(app.master),
      details: Object.fromEntries([...app.details].map(([relationKey, table]) => [relationKey, rowsOf(table)])),
    }
  }
  // Generated and stored rows are in the tables like any other: the snapshot holds them as rows.
  const { generated: _generated, stored: _stored, locks: _locks, ...definitions } = state.fixture
  const locks = state.locks.toLocks()
  return {
    ...definitions,
    // The locks as they are now (the control plane may have changed the fixture's), so a state file keeps them.
    ...(locks === undefined ? {} : { locks }),
    data,
    sequences,
    attachments: state.attachments.all().map((attachment) => {
      const { file: _file, ...rest } = attachment
      return rest
    }),
  }
}
