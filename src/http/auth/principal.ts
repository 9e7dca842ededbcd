import type { Session } from './tokens.ts'
import type { UserDef } from '../../store/model/types.ts'

/** Who is calling, set by the authentication step of a route that needs a token. */
export interface Principal {
  user: UserDef
  session: Session
}

/** The fields a user may not see in one application's rows (default fixture: `Amount` for the viewer). */
export function hiddenFieldsFor(user: UserDef, applicationId: string): readonly string[] {
  return user.hiddenFields[applicationId] ?? []
}
