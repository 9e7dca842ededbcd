/**
 * GUIDs compare without regard to case: installations and their metadata databases write them
 * in either case (`A1B2C3D4-…` and `a1b2c3d4-…` name the same application). The mock keeps every
 * GUID of its fixture in lower case, as .NET writes them, and reads every GUID a request names
 * through this function.
 */
export function guidKey(id: string): string {
  return id.toLowerCase()
}

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * A Detail Relation Key as the store keys it: real installations' keys are GUIDs, which compare
 * without regard to case (kept in lower case); a key that is a name is kept as written.
 */
export function relationKeyOf(key: string): string {
  return GUID.test(key) ? key.toLowerCase() : key
}
