import { normalizeVersion } from '../../spec/versions.ts'
import { resolveProfile } from '../../spec/profiles.ts'
import type { Transport } from '../client/transport.ts'
import { MOCK_HEADER } from '../mock-header.ts'

/** What probing the sign-in paths tells about an installation. */
export interface Detected {
  /** A representative release of the surface found: 3.0.19, 3.0.18 or 2.9.0. */
  release: string
  /** How to say it to people. */
  label: string
  /** Whether the answers came from an appdata-kit mock. */
  isMock: boolean
}

const PROBES = [
  { operation: 'signIn', release: '3.0.19', label: '3.0.19 or later (sign-in with the organization in the path)', path: (org: string) => `/identityprovider/${encodeURIComponent(org)}/connect/token`, form: true },
  { operation: 'signInWithoutOrganization', release: '3.0.18', label: '3.0.0 to 3.0.18 (sign-in without the organization)', path: () => '/identityprovider/connect/token', form: true },
  { operation: 'signInLegacy', release: '2.9.0', label: 'below 3.0 (legacy sign-in)', path: () => '/IntelligenceUserManagementService/UserManagementService.svc/Token', form: false },
] as const

/**
 * Finds which sign-in the installation serves, newest first, or checks the one of the release
 * given. A path that answers anything but 404 or 405 is there; a refused form still shows the path
 * exists. The probe sends no credentials, only a form every installation refuses, and changes nothing.
 * Undefined when no sign-in path answers (or, with a release given, not that release's).
 */
export async function detectRelease(transport: Transport, organization: string, given?: string): Promise<Detected | undefined> {
  const release = given === undefined ? undefined : normalizeVersion(given)
  const probes = release === undefined || release === null ? PROBES : PROBES.filter((probe) => probe.operation === resolveProfile(release).signIn)
  for (const probe of probes) {
    const answer = await transport.send({
      method: 'POST',
      path: probe.path(organization),
      headers: { 'content-type': probe.form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: probe.form ? 'grant_type=password' : '{}',
    })
    const isMock = answer.headers[MOCK_HEADER] !== undefined
    if (answer.status !== 404 && answer.status !== 405) {
      return release === undefined || release === null ? { release: probe.release, label: probe.label, isMock } : { release, label: release, isMock }
    }
  }
  return undefined
}
