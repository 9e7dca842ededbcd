/**
 * Product-version profiles: what differs between the releases the document describes, as data
 * that the mock, the client and the contracts share. A profile is resolved once from a release
 * number; nothing else compares versions.
 */
import { inRange, LATEST_VERSION, normalizeVersion, RANGES } from './versions.ts'

export interface Profile {
  /** The normalized release number (`3.0.19`, `2.9.0`). */
  version: string
  /** The sign-in operation of the release. */
  signIn: 'signIn' | 'signInWithoutOrganization' | 'signInLegacy'
  /** Get Items and Count: POST with a `query` body from 3.0, GET with URL parameters before. */
  itemsQuery: 'queryItems' | 'queryItemsLegacy'
  /** `IsSaveSuccessfully` from 3.0, `IsSaveSuccesfully` (sic) before. */
  saveFlag: 'IsSaveSuccessfully' | 'IsSaveSuccesfully'
  /** Detail rows and relation keys in queries: from 3.0 only. */
  detailsInQueries: boolean
  /** The delete body the release was shown with: the older one (`[{Rows: [{Row, Details}]}]`) below 3.0. */
  legacyDeleteBody: boolean
  /** Whether data calls must send `WorkspaceId` (releases below 3.0 may leave it out of reads). */
  workspaceHeaderRequired: boolean
}

/** The releases the mock emulates, one of each surface; the client and the contracts know the same three. */
export const PROFILE_RELEASES = [LATEST_VERSION, '3.0.18', '2.9.0'] as const

/** The behaviour switches of one release (already normalized, or anything `normalizeVersion` reads). */
export function resolveProfile(release: string): Profile {
  const version = normalizeVersion(release) ?? release
  const current = inRange(version, RANGES.current)
  return {
    version,
    signIn: inRange(version, RANGES.withOrganization) ? 'signIn' : current ? 'signInWithoutOrganization' : 'signInLegacy',
    itemsQuery: current ? 'queryItems' : 'queryItemsLegacy',
    saveFlag: current ? 'IsSaveSuccessfully' : 'IsSaveSuccesfully',
    detailsInQueries: current,
    legacyDeleteBody: !current,
    workspaceHeaderRequired: current,
  }
}
