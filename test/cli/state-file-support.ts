import { join } from 'node:path'
import { createClient } from '../../src/client/client.ts'
import { SnapshotFile } from '../../src/state/snapshot-format.ts'
import { IDS } from '../helpers/http.ts'
import { ROOT } from './processes.ts'

/** The compiled `npm start` entry the state-file tests run as processes. */
export const SERVER = join(ROOT, 'dist/src/mock/server.js')

/** The package's client for a started mock with the default fixture's ids. */
export function clientOf(url: string) {
  return createClient({ transport: url, organization: IDS.org, clientId: IDS.clientId, workspaceId: IDS.workspaceId, applicationId: IDS.applicationId })
}

/** Reads a snapshot whole, every table's every chunk, as a start does; throws when it is not a whole snapshot. Its rows in all. */
export function readSnapshotWhole(path: string): number {
  const snapshot = SnapshotFile.open(path)
  try {
    let rows = 0
    for (const table of snapshot.header.tables) for (const chunk of snapshot.chunks(table.storageId, table.columns, table.kinds)) rows += chunk.count
    return rows
  } finally {
    snapshot.close()
  }
}
