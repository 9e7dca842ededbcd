import type { FastifyRequest } from 'fastify'
import { convertValue, TYPE_FORMS } from '../store/model/data-types.ts'
import { isSystemField } from '../store/model/system-fields.ts'
import { ownValue, setOwn } from '../store/model/field-values.ts'
import type { ApplicationDef, SaveCommand, StorageDef, WireRow } from '../store/model/types.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { runAtOnce } from '../http/json-slices.ts'

/** Masters whose values are converted between two chances for a slice to end. */
const CONVERTED_PER_PAUSE = 256

/**
 * A save's values in the forms of their fields' types (the product's reference, Data Types). A
 * value sent in another form that says one thing only (ISO 8601 text into a DateTime, `true` into
 * a Boolean, `"12.5"` into a Numeric) is converted, with one `VALUE_FORM_CONVERTED` warning per
 * field naming the field, its type and the form expected; strict mode refuses the save instead,
 * before anything is written. Values in no form of their type pass through unchanged, for the
 * store to refuse (INVALID_VALUE).
 */
export function convertSaveValues(request: FastifyRequest, application: ApplicationDef, command: SaveCommand): SaveCommand {
  return runAtOnce(convertingSaveValues(request, application, command))
}

/** `convertSaveValues` as work that may pause (a `yield` after every CONVERTED_PER_PAUSE masters): a big save has hundreds of thousands. */
export function* convertingSaveValues(request: FastifyRequest, application: ApplicationDef, command: SaveCommand): Generator<void, SaveCommand, void> {
  const timeZone = request.server.store.organization().timeZone
  const seen = new Map<string, { what: string; type: string; from: string; count: number }>()
  const convertRow = (row: WireRow, storage: StorageDef, table: string): WireRow => {
    let out: WireRow | undefined
    for (const field of storage.fields) {
      const value = ownValue(row, field.name)
      if (value === undefined || value === null || isSystemField(field.name, storage)) continue
      const conversion = convertValue(field.type, value, timeZone)
      if (conversion === undefined) continue
      out ??= { ...row }
      setOwn(out, field.name, conversion.value)
      const key = `${table}\u0000${field.name}`
      const known = seen.get(key)
      if (known === undefined) seen.set(key, { what: `${table} field ${field.name}`, type: field.type, from: conversion.from, count: 1 })
      else known.count++
    }
    return out ?? row
  }
  const storageOf = (relationKey: string) => application.details.find((d) => d.relationKey === relationKey)?.storage
  const masters: SaveCommand['masters'] = []
  for (const master of command.masters) {
    masters.push({
      row: convertRow(master.row, application.master, application.master.name),
      details: master.details.map((group) => {
        const storage = storageOf(group.relationKey)
        return storage === undefined ? group : { ...group, rows: group.rows.map((row) => convertRow(row, storage, group.relationKey)) }
      }),
    })
    if (masters.length % CONVERTED_PER_PAUSE === 0) yield
  }
  // Every value already in its form (the usual save): the command goes on as the client sent it.
  if (seen.size === 0) return command
  for (const { what, type, from, count } of seen.values()) {
    const times = count === 1 ? '' : ` (${count} rows)`
    warnOrRefuse(
      request,
      'VALUE_FORM_CONVERTED',
      `${what} is a ${type} field, whose values are ${TYPE_FORMS[type as keyof typeof TYPE_FORMS]}; ${from}${times} was converted.`,
    )
  }
  return { ...command, masters }
}
