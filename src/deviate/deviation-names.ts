/**
 * The names `--deviate` takes, apart from the deviations themselves (src/deviate/deviations.ts), so that
 * reading the flags loads none of them: a mock started without `--deviate` never loads that module.
 */
export const DEVIATION_NAMES = [
  'id-as-text',
  'ignore-top',
  'ignore-skip',
  'ignore-orderby',
  'ignore-filter',
  'ignore-relation-key',
  'count-as-text',
  'timestamp-hex',
  'version-unchanged',
  'accept-stale',
  'temp-ids-unmapped',
  'misspelled-flag',
  'delete-noop',
  'no-auth',
  'any-password',
  'expires-in-text',
  'drop-attachment-name',
  'wrong-media-type',
  'relative-row-link',
  'identity-stuck',
  'email-body',
  'quote-crash',
  'update-nulls-unsent',
  'update-ignored',
  'create-drops-number',
  'temp-ids-swapped',
  'accept-duplicate-identity',
  'orderby-id-only',
  'skip-past-end-repeats',
  'count-off-by-one',
  'delete-first-group-only',
  'ignore-folder-filter',
  'attachments-ignore-relation-key',
  'attachment-date-iso',
  'download-generic-name',
  'empty-folder-zip',
  'same-row-link',
  'identity-gaps',
  'reservation-not-held',
  'ignore-workspace',
  'ignore-application',
  'unknown-relation-key-reads-masters',
  'counters-zero',
  'attachments-unknown-relation-key',
  'download-unknown-relation-key',
] as const

export type DeviationName = (typeof DEVIATION_NAMES)[number]

export function isDeviationName(name: string): name is DeviationName {
  return (DEVIATION_NAMES as readonly string[]).includes(name)
}
