/**
 * GUIDs compare without regard to case: installations and their metadata databases write them
 * in either case (`A1B2C3D4-…` and `a1b2c3d4-…` name the same application). The mock keeps every
 * GUID of its fixture in lower case, as .NET writes them, and reads every GUID a request names
 * through this function.
 */
export function guidKey(id: string): string {
  return id.toLowerCase()
}
