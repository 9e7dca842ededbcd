// The console's only way to the data: the control plane's own routes (/__mock/...), and for rows
// and attachments the API itself, signed in as a fixture user. Nothing is kept here but the
// control token a guarded mock asks for (in this tab's sessionStorage) and the API session token.

const TOKEN_KEY = 'appdata-kit-console-control-token'
/** Marks the console's own API calls, so the Requests view can leave them out. */
export const CONSOLE_HEADER = 'x-appdata-kit-console'

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `answered ${status}`)
    this.status = status
    this.problem = problem
    this.code = problem?.code
    this.detail = problem?.detail ?? this.message
  }
}

export function controlToken() {
  return sessionStorage.getItem(TOKEN_KEY) ?? ''
}

export function setControlToken(token) {
  if (token === '') sessionStorage.removeItem(TOKEN_KEY)
  else sessionStorage.setItem(TOKEN_KEY, token)
}

async function answer(response) {
  const type = response.headers.get('content-type') ?? ''
  const body = /json/.test(type) ? await response.json() : await response.blob()
  if (!response.ok) throw new ApiError(response.status, /json/.test(type) ? body : undefined)
  return body
}

/** A control-plane call: JSON in, JSON out; a refusal throws ApiError with the problem. */
export async function control(method, path, body) {
  const headers = {}
  const token = controlToken()
  if (token !== '') headers['x-mock-control-token'] = token
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`/__mock/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' })
  return answer(response)
}

/** The API session of one fixture user, by workspace: signed in once, then reused. */
const sessions = new Map()

/**
 * Signs in as the first fixture user who may open the workspace, with the API's own sign-in (its
 * form body), and returns the session token. The password comes from the control plane's state
 * and is sent, never shown.
 */
export async function sessionFor(state, workspaceId) {
  const known = sessions.get(workspaceId)
  if (known !== undefined) return known
  const organization = state.organization
  const users = organization.users.filter((user) => (user.workspaceIds ?? []).includes(workspaceId))
  const user = users.find((candidate) => candidate.canWrite) ?? users[0]
  if (user === undefined) throw new Error(`no fixture user may open workspace ${workspaceId}`)
  const form = new URLSearchParams({
    client_id: organization.clientId,
    username: user.email,
    password: user.password,
    grant_type: 'password',
    scope: 'openid apiv1 nosession',
  })
  const response = await fetch(`/identityprovider/${encodeURIComponent(organization.physicalName)}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', [CONSOLE_HEADER]: '1' },
    body: form,
  })
  const body = await answer(response)
  const session = { token: body.access_token, user: user.email }
  sessions.set(workspaceId, session)
  return session
}

/** Forgets the sessions (after a reset or a fixture load, the users may have changed). */
export function forgetSessions() {
  sessions.clear()
}

/** An API call with the data headers of an application; JSON answers parsed, others as a Blob. */
export async function api(method, path, { session, workspaceId, applicationId, json }) {
  const headers = { ApplicationId: applicationId, WorkspaceId: workspaceId, SessionToken: session.token, [CONSOLE_HEADER]: '1' }
  if (json !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) })
  return answer(response)
}
