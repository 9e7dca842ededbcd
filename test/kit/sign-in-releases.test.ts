/**
 * The one sign-in → release map (src/commands/kit/sign-in-releases.ts) agrees with the release profiles: the
 * release it names for each sign-in is one whose profile signs in that way, newest first, and an
 * operation that is no sign-in has none.
 */
import { describe, expect, it } from 'vitest'
import { releaseOfSignIn, SIGN_IN_RELEASES } from '../../src/commands/kit/sign-in-releases.ts'
import { resolveProfile } from '../../spec/profiles.ts'

describe('the sign-in → release map', () => {
  it.each(SIGN_IN_RELEASES.map((signIn) => [signIn.operationId, signIn.release]))('%s shows release %s, whose profile signs in so', (operationId, release) => {
    expect(resolveProfile(release).signIn).toBe(operationId)
    expect(releaseOfSignIn(operationId)).toBe(release)
  })

  it('lists the sign-ins newest first, and names no release for another operation', () => {
    const key = (release: string) =>
      release
        .split('.')
        .map((part) => part.padStart(4, '0'))
        .join('.')
    const releases = SIGN_IN_RELEASES.map((signIn) => signIn.release)
    expect([...releases].sort((a, b) => key(b).localeCompare(key(a)))).toEqual(releases)
    expect(releaseOfSignIn('queryItems')).toBeUndefined()
  })
})
