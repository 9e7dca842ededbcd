/** Locked rows: rows the mock treats as open in another user's hands (the save result's `LockedItems`). */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'
import { count } from './common.ts'

const applicationId: SchemaObject = { type: 'string', minLength: 1, description: 'Application Id of the rows (a GUID, in any case).' }
const relationKey: SchemaObject = {
  type: ['string', 'null'],
  minLength: 1,
  description: 'Detail Relation Key of the rows; null or left out for master rows.',
}
const ids: SchemaObject = {
  type: 'array',
  minItems: 1,
  maxItems: 10000,
  items: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
  description: 'Ids of the rows (the database `Id`, not the Identity value).',
}

export const LockRequest: SchemaObject = {
  type: 'object',
  title: 'Rows to lock or unlock',
  description: 'Rows of one table of one application.',
  required: ['applicationId', 'ids'],
  properties: { applicationId, relationKey, ids },
  additionalProperties: false,
}

export const LockEntry: SchemaObject = {
  type: 'object',
  title: 'Locked rows of one table',
  required: ['applicationId', 'relationKey', 'ids'],
  properties: {
    applicationId,
    relationKey: { type: ['string', 'null'], description: 'Detail Relation Key; null for master rows.' },
    ids: { ...ids, minItems: 1, description: 'Ids of the locked rows, ascending.' },
  },
  additionalProperties: false,
}

const locks: SchemaObject = { type: 'array', items: schemaRef('LockEntry'), description: 'Every locked row, table by table.' }

export const HeldLocks: SchemaObject = {
  type: 'object',
  title: 'Locked rows',
  description: "The locks the mock holds now, table by table (`startMock()`'s `locks()` answers the same object).",
  required: ['locks'],
  properties: { locks },
  additionalProperties: false,
}

export const LockList: SchemaObject = {
  type: 'object',
  title: 'Locked rows after a lock or unlock',
  description: 'Every locked row, table by table, after the call; `changed` says how many rows it locked or unlocked.',
  required: ['changed', 'locks'],
  properties: {
    changed: count('Rows this call locked (not locked before) or unlocked (locked before).'),
    locks,
  },
  additionalProperties: false,
}
