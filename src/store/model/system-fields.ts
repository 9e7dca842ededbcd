import type { FieldType, StorageDef } from './types.ts'

/**
 * Fields the store keeps on every row (the description, "Application row"), with the types filters and
 * orders use. The storage's Identity field (for example `IdRow`) is one more, named per storage.
 */
export const SYSTEM_FIELDS: Readonly<Record<string, FieldType>> = {
  Id: 'Identity',
  CT_ATTACHMENTS: 'Identity',
  // DateTime numbers in the installation's time zone (the product's reference, Data Types).
  DT_CREATION: 'DateTime',
  DT_LAST_UPDATE: 'DateTime',
  ROW_ORDER: 'Identity',
  TIMESTAMP: 'Identity',
  USER_ID_CREATION: 'Identity',
  USER_ID_LAST_UPDATE: 'Identity',
}

/** System fields a fixture may set on its rows; the others are the store's to compute. */
export const FIXTURE_SETTABLE_SYSTEM_FIELDS: readonly string[] = ['DT_CREATION', 'DT_LAST_UPDATE', 'USER_ID_CREATION', 'USER_ID_LAST_UPDATE']

/** True for a name the store manages itself on this storage (system fields and the Identity field). */
export function isSystemField(name: string, storage: StorageDef): boolean {
  return name === storage.identityField || Object.hasOwn(SYSTEM_FIELDS, name)
}

/**
 * The order of a row's fields, in objects and in JSON: Id, the Identity field, the user fields as
 * the storage declares them, then the other system fields alphabetically, as the description lists them.
 */
export function columnsOf(storage: StorageDef): string[] {
  const system = Object.keys(SYSTEM_FIELDS).filter((name) => name !== 'Id')
  return ['Id', storage.identityField, ...storage.fields.map((f) => f.name), ...system]
}

/** Every field a filter or an order may name on this storage, with its type. */
export function fieldLookupOf(storage: StorageDef): Map<string, FieldType> {
  const lookup = new Map<string, FieldType>()
  for (const [name, type] of Object.entries(SYSTEM_FIELDS)) lookup.set(name, type)
  lookup.set(storage.identityField, 'Identity')
  for (const field of storage.fields) lookup.set(field.name, field.type)
  return lookup
}
