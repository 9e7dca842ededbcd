import { ProblemError } from '../../errors.ts'
import type { OrganizationDef, UserDef } from '../../store/model/types.ts'

/**
 * The user with this e-mail and password. E-mail compares case-insensitively, as mail
 * addresses do; the answer never says which of the two was wrong.
 */
export function checkCredentials(organization: OrganizationDef, email: string, password: string): UserDef {
  const wanted = email.trim().toLowerCase()
  const user = organization.users.find((u) => u.email.toLowerCase() === wanted)
  if (user === undefined || user.password !== password) {
    throw new ProblemError('INVALID_GRANT', 'The user name or password is not correct.', { error: 'invalid_grant' })
  }
  return user
}
