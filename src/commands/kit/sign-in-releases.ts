/**
 * The one map from the sign-in an installation serves to the release its surface is: the
 * organization in the path from 3.0.19, without it from 3.0.0, the legacy service below 3.0.
 * verify's detection (cli/detect.ts) probes the paths in this order, newest first, and the proxy
 * (proxy/views.ts) reads the release of the exchanges after a client's sign-in from it.
 */

/** A sign-in operation, the representative release of the surface it shows, and how to say it to people. */
export interface SignInRelease {
  operationId: 'signIn' | 'signInWithoutOrganization' | 'signInLegacy'
  release: string
  label: string
}

/** The sign-ins, newest first. */
export const SIGN_IN_RELEASES: readonly SignInRelease[] = [
  { operationId: 'signIn', release: '3.0.19', label: '3.0.19 or later (sign-in with the organization in the path)' },
  { operationId: 'signInWithoutOrganization', release: '3.0.18', label: '3.0.0 to 3.0.18 (sign-in without the organization)' },
  { operationId: 'signInLegacy', release: '2.9.0', label: 'below 3.0 (legacy sign-in)' },
]

/** The release a sign-in operation shows, or undefined for an operation that is no sign-in. */
export function releaseOfSignIn(operationId: string): string | undefined {
  return SIGN_IN_RELEASES.find((signIn) => signIn.operationId === operationId)?.release
}
