import { normalizeVersion } from '../../../spec/versions.ts'
import { resolveProfile } from '../../../spec/profiles.ts'
import type { Transport, WireResponse } from '../../wire/transport.ts'
import { MOCK_HEADER } from '../../wire/mock-header.ts'
import { SIGN_IN_RELEASES, type SignInRelease } from '../kit/sign-in-releases.ts'

/** What probing the sign-in paths tells about an installation. */
export interface Detected {
  /** A representative release of the surface found: 3.0.19, 3.0.18 or 2.9.0. */
  release: string
  /** How to say it to people. */
  label: string
  /** Whether the answers came from an appdata-kit mock. */
  isMock: boolean
}

/** Why no release was found, said for people. */
export interface NotDetected {
  reason: string
}

/** How each sign-in is probed: its path and whether it takes a form. */
const HOW: Record<SignInRelease['operationId'], { path: (org: string) => string; form: boolean }> = {
  signIn: { path: (org) => `/identityprovider/${encodeURIComponent(org)}/connect/token`, form: true },
  signInWithoutOrganization: { path: () => '/identityprovider/connect/token', form: true },
  signInLegacy: { path: () => '/IntelligenceUserManagementService/UserManagementService.svc/Token', form: false },
}

/** The sign-ins newest first, with the release each shows (the one map the proxy reads too) and how to probe it. */
const PROBES = SIGN_IN_RELEASES.map((signIn) => ({ operation: signIn.operationId, release: signIn.release, label: signIn.label, ...HOW[signIn.operationId] }))

const isRedirect = (answer: WireResponse) => answer.status >= 300 && answer.status < 400
const isMissing = (answer: WireResponse) => answer.status === 404 || answer.status === 405

/**
 * Whether an answer comes from the API's sign-in rather than from something in front of it: a
 * gateway's redirect to its sign-in page, a proxy's HTML page or bare 401. The API answers JSON
 * ("Responses are JSON objects", What the service does, 3), a refusal of the empty form included;
 * the legacy WCF service may answer a fault in XML.
 */
function fromTheApi(answer: WireResponse): boolean {
  return !isRedirect(answer) && !isMissing(answer) && /[/+](json|xml)\b/i.test(answer.headers['content-type'] ?? '')
}

/**
 * Finds which sign-in the installation serves, newest first, or checks the one of the release
 * given. A path is there when it answers as the API does, a refused form included. The probe
 * sends no credentials, only a form every installation refuses, and changes nothing. With a
 * release given, any answer but a missing path or a redirect will do: the user said which it is.
 */
export async function detectRelease(transport: Transport, organization: string, given?: string): Promise<Detected | NotDetected> {
  const release = given === undefined ? null : normalizeVersion(given)
  const probes = release === null ? PROBES : PROBES.filter((probe) => probe.operation === resolveProfile(release).signIn)
  let organizationMissing = false
  for (const probe of probes) {
    const answer = await transport.send({
      method: 'POST',
      path: probe.path(organization),
      headers: { 'content-type': probe.form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: probe.form ? 'grant_type=password' : '{}',
    })
    const isMock = answer.headers[MOCK_HEADER] !== undefined
    if (release === null ? fromTheApi(answer) : !isRedirect(answer) && !isMissing(answer)) {
      return release === null ? { release: probe.release, label: probe.label, isMock } : { release, label: release, isMock }
    }
    // The API's own 404 on the path with the organization: most likely an organization it does not know.
    if (probe.operation === 'signIn' && answer.status === 404 && /[/+]json\b/i.test(answer.headers['content-type'] ?? '')) organizationMissing = true
  }
  if (organizationMissing)
    return { reason: `organization "${organization}" not found? The sign-in path with it answered 404; check --org (the Organization physical name)` }
  return {
    reason: `answers no sign-in path of the API${release === null ? '' : ` of release ${given}`} (a redirect, an HTML page or nothing); is it an installation of the Application Data Web API, and --base-url its address?`,
  }
}
