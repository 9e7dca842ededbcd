import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { createClient } from '../../src/client/client.ts'
import { IDS } from '../helpers/http.ts'
import { ROOT } from './processes.ts'

/** The compiled `npm start` entry the state-file tests run as processes. */
export const SERVER = join(ROOT, 'dist/src/mock/server.js')

/**
 * A maker of fresh temporary folders, all removed after the calling file (state files of a large
 * mock take tens of MB, so they do not outlive their tests).
 */
export function tempFolders(prefix: string): () => string {
  const folders: string[] = []
  afterAll(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    folders.push(dir)
    return dir
  }
}

/** The package's client for a started mock with the default fixture's ids. */
export function clientOf(url: string) {
  return createClient({ transport: url, organization: IDS.org, clientId: IDS.clientId, workspaceId: IDS.workspaceId, applicationId: IDS.applicationId })
}
