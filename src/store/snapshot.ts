import { FIXTURE_SETTABLE_SYSTEM_FIELDS } from './system-fields.ts'
import type { StoreState } from './state.ts'
import type { Table } from './table.ts'
import type { Fixture, Row } from './types.ts'

/** Fields a snapshot keeps of a row: what a fixture may give, the version included. */
function keptFields(table: Table): string[] {
  return ['Id', table.storage.identityField, ...table.storage.fields.map((field) => field.name), ...FIXTURE_SETTABLE_SYSTEM_FIELDS, 'ROW_ORDER', 'TIMESTAMP']
}

function rowsOf(table: Table): Row[] {
  const fields = keptFields(table)
  const rows: Row[] = []
  table.forEachRow((row) => {
    const kept: Record<string, unknown> = {}
    for (const field of fields) if (row[field] !== null && row[field] !== undefined) kept[field] = row[field]
    rows.push(kept as Row)
  })
  return rows.sort((a, b) => a.Id - b.Id)
}

/**
 * The store's data as it is now, as a fixture that loads back into the same data: every row
 * with its version, creation and update fields, every attachment with its bytes, the
 * definitions unchanged. Left out: identity reservations and the store's counters (the next Id
 * of a table follows its largest row after a load), and everything outside the store (outbox,
 * sessions, journal). Reads only.
 */
export function snapshotOf(state: StoreState): Fixture {
  const data: Fixture['data'] = {}
  for (const [applicationId, app] of state.apps) {
    data[applicationId] = {
      masters: rowsOf(app.master),
      details: Object.fromEntries([...app.details].map(([relationKey, table]) => [relationKey, rowsOf(table)])),
    }
  }
  const { generated: _generated, ...definitions } = state.fixture
  return {
    ...definitions,
    // Generated rows are in the tables like any other: the snapshot holds them as rows.
    data,
    attachments: state.attachments.all().map((attachment) => {
      const { file: _file, ...rest } = attachment
      return rest
    }),
  }
}
