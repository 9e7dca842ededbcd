import { fieldsOf } from '../../store/filter-ast.ts'
import { SYSTEM_FIELDS } from '../../store/model/system-fields.ts'
import type { ApplicationDef, AttachmentDef, Fixture, Row } from '../../store/model/types.ts'
import type { UsageFile } from '../../usage-file/file.ts'
import type { Shape } from '../../usage-file/shape.ts'
import { parseTemplate } from '../usage/template.ts'

/**
 * What a replay fills into the recorded shapes from the fixture the usage was recorded with: the
 * organization, a user who may write, the workspace and the application the client used, and the
 * fixture's own actions, e-mail provider and attachments. A usage file keeps no value (no Id, no
 * user), so the application is the one whose fields the recorded shapes name.
 */
export interface ReplayIds {
  organization: string
  clientId: string
  legacyClientId: string
  user: { email: string; password: string }
  workspaceId: string
  application: ApplicationDef
  /** The fixture's custom action for the application (the first one), if any. */
  action?: { id: string; procedureName: string }
  providerId?: string
  attachments: AttachmentDef[]
  /**
   * A row of each table as the fixture holds it (by relation key, `''` for the master table): the
   * values a new row takes where the release being replayed cannot read its rows (detail rows below 3.0).
   */
  templates: Record<string, Row | undefined>
}

/** Member names of the rows in an answer's shape (an array of objects). */
function rowFields(shape: Shape | undefined): string[] {
  if (shape === undefined || typeof shape === 'string' || shape.items === undefined || typeof shape.items === 'string') return []
  return Object.keys(shape.items.fields ?? {})
}

/** Every field name the recorded shapes name: filters, orders, saved rows, rows received. */
export function usedFields(usage: UsageFile): Set<string> {
  const names = new Set<string>()
  // A usage repeats its filters (one per page size, order or table it reads with them): each is parsed once.
  const filters = new Set<string>()
  for (const interaction of usage.interactions) {
    const { query, rows } = interaction.request
    const tree = query?.filter === undefined || filters.has(query.filter) ? undefined : parseTemplate(query.filter)
    if (query?.filter !== undefined) filters.add(query.filter)
    if (tree !== undefined) for (const field of fieldsOf(tree)) names.add(field)
    for (const item of (query?.orderBy ?? '').split(',')) if (item.trim() !== '') names.add(item.trim().split(/\s+/)[0] as string)
    for (const kind of rows ?? []) for (const field of Object.keys(kind.fields)) names.add(field)
    if (interaction.operation === 'queryItems' || interaction.operation === 'queryItemsLegacy')
      for (const field of rowFields(interaction.answers['200']?.body)) names.add(field)
  }
  for (const system of Object.keys(SYSTEM_FIELDS)) names.delete(system)
  return names
}

/** How many of the names an application's tables have (its identity fields and the detail links count). */
function score(application: ApplicationDef, names: ReadonlySet<string>): number {
  const own = new Set<string>()
  for (const storage of [application.master, ...application.details.map((detail) => detail.storage)]) {
    own.add(storage.identityField)
    for (const field of storage.fields) own.add(field.name)
  }
  for (const detail of application.details) own.add(detail.masterField)
  return [...names].filter((name) => own.has(name)).length
}

/**
 * The ids a replay of `usage` uses on `fixture`. The application is the one whose fields the usage
 * names most (the fixture's first on a tie); the user one who may write and open its workspace.
 * Undefined when the fixture has no application or no user for it.
 */
export function replayIds(fixture: Fixture, usage: UsageFile): ReplayIds | undefined {
  const names = usedFields(usage)
  const workspaceOf = (application: ApplicationDef) => fixture.organization.workspaces.find((workspace) => workspace.applicationIds.includes(application.id))
  const candidates = fixture.applications.filter((application) => workspaceOf(application) !== undefined)
  const application = candidates.reduce<ApplicationDef | undefined>(
    (best, next) => (best === undefined || score(next, names) > score(best, names) ? next : best),
    undefined,
  )
  if (application === undefined) return undefined
  const workspace = workspaceOf(application)
  const users = fixture.organization.users.filter((user) => workspace !== undefined && user.workspaceIds.includes(workspace.id))
  const user = users.find((candidate) => candidate.canWrite) ?? users[0]
  if (workspace === undefined || user === undefined) return undefined
  const action = fixture.actions.find((candidate) => candidate.applicationId === undefined || candidate.applicationId === application.id)
  const provider = fixture.emailProviders.find((candidate) => candidate.isDefault) ?? fixture.emailProviders[0]
  return {
    organization: fixture.organization.physicalName,
    clientId: fixture.organization.clientId,
    legacyClientId: fixture.organization.legacyClientId,
    user: { email: user.email, password: user.password },
    workspaceId: workspace.id,
    application,
    ...(action === undefined ? {} : { action: { id: action.id, procedureName: action.procedureName } }),
    ...(provider === undefined ? {} : { providerId: provider.id }),
    attachments: fixture.attachments.filter((attachment) => attachment.applicationId === application.id),
    templates: Object.fromEntries([
      ['', fixture.data[application.id]?.masters[0]],
      ...application.details.map((detail) => [detail.relationKey, fixture.data[application.id]?.details[detail.relationKey]?.[0]]),
    ]),
  }
}
