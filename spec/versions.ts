import semver from 'semver'

/**
 * Product releases as the mock emulates them. A release is written loosely by users
 * (`2.9`, `3.0.18`, `latest`); ranges in the document (`x-product-versions`) use semver syntax.
 */
export const LATEST_VERSION = '3.0.19'

/** Ranges used by the document; one name per surface so the spec and the mock agree. */
export const RANGES = {
  all: '*',
  current: '>=3.0.0',
  withOrganization: '>=3.0.19',
  withoutOrganization: '>=3.0.0 <3.0.19',
  legacy: '<3.0.0',
} as const

export type RangeName = keyof typeof RANGES

/** Turns `latest`, `2.9`, `3.0.18` into a full semver version, or null when it is not a release number. */
export function normalizeVersion(input: string): string | null {
  const text = input.trim()
  if (text === '' || text === 'latest') return LATEST_VERSION
  // Written out here rather than by `semver.coerce`, whose first call costs some 10 ms of a mock's start.
  // Parts of at most 16 digits without leading zeros, as semver reads them.
  if (!/^(0|[1-9]\d{0,15})(\.(0|[1-9]\d{0,15})){0,2}$/.test(text)) return null
  const [major = 0, minor = 0, patch = 0] = text.split('.').map(Number)
  return [major, minor, patch].every(Number.isSafeInteger) ? `${major}.${minor}.${patch}` : null
}

/** True when `version` (already normalized) lies in the document's range text. */
export function inRange(version: string, range: string | undefined): boolean {
  if (range === undefined) return true
  return semver.satisfies(version, range, { includePrerelease: true })
}
