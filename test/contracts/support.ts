import type { Target } from '../../contracts/types.ts'
import { runVerify } from '../../src/commands/cli/verify.ts'
import { runCapture } from '../../src/commands/cli/capture.ts'
import type { Transport } from '../../src/wire/transport.ts'
import { IDS } from '../helpers/http.ts'

/** The default fixture as a verify target: its users, ids, storage, actions and an e-mail address. */
export function mockTarget(transport: Transport, release: string, overrides: Partial<Target> = {}): Target {
  return {
    transport,
    release,
    holdTo: 'mock',
    credentials: IDS.admin,
    organization: IDS.org,
    clientId: IDS.clientId,
    legacyClientId: IDS.legacyClientId,
    workspaceId: IDS.workspaceId,
    applicationId: IDS.applicationId,
    relationKey: IDS.relationKey,
    storageId: IDS.masterStorageId,
    identityField: undefined,
    allowWrites: false,
    emailTo: 'ops@acme.test',
    actionIds: [IDS.actionOk, IDS.actionFails],
    fuzz: { runs: 10, seed: 1 },
    ...overrides,
  }
}

/** Verify's flags for the default fixture at a base URL, writes allowed and every optional part named. */
export function verifyFlags(url: string): string[] {
  return [
    '--base-url',
    url,
    '--org',
    IDS.org,
    '--username',
    IDS.admin.username,
    '--password',
    IDS.admin.password,
    '--workspace-id',
    IDS.workspaceId,
    '--application-id',
    IDS.applicationId,
    '--relation-key',
    IDS.relationKey,
    '--allow-writes',
    '--email-to',
    'ops@acme.test',
    '--action-id',
    IDS.actionFails,
    '--storage-id',
    IDS.masterStorageId,
    '--seed',
    '11',
    '--fuzz-runs',
    '40',
  ]
}

/** Runs verify in this process, over `io.transport` when given (the base URL still names the target); its exit code and what it printed. */
export function verify(argv: string[], io: { transport?: Transport } = {}): Promise<{ code: number; out: string; err: string }> {
  return inProcess(runVerify, argv, io)
}

/** Runs `appdata-kit capture` in this process; its exit code and what it printed. */
export function capture(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return inProcess(runCapture, argv)
}

async function inProcess(
  command: typeof runVerify | typeof runCapture,
  argv: string[],
  io: { transport?: Transport } = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await command(argv, { stdout: (text) => (out += text), stderr: (text) => (err += text), terminal: false, ...io })
  return { code, out, err }
}
