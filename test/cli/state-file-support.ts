import { join } from 'node:path'
import { createClient } from '../../src/client/client.ts'
import { IDS } from '../helpers/http.ts'
import { ROOT } from './processes.ts'

/** The compiled `npm start` entry the state-file tests run as processes. */
export const SERVER = join(ROOT, 'dist/src/mock/server.js')

/** The package's client for a started mock with the default fixture's ids. */
export function clientOf(url: string) {
  return createClient({ transport: url, organization: IDS.org, clientId: IDS.clientId, workspaceId: IDS.workspaceId, applicationId: IDS.applicationId })
}
