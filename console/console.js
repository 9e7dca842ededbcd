// The mock console: one view per tab, each drawn from the control plane's own routes. Plain ES
// modules, no build step: what the browser runs is this file.
import { h, mount, pretty, errorText, download } from './dom.js'
import { ApiError, CONSOLE_HEADER, api, control, controlToken, forgetSessions, sessionFor, setControlToken } from './api.js'

const view = document.getElementById('view')
const PAGE_SIZE = 20
/** How often the Requests view asks for new entries (the issue asks for under a second). */
const POLL_MS = 700

const TABS = [
  ['requests', 'Requests', requestsView],
  ['data', 'Data', dataView],
  ['outbox', 'Outbox', outboxView],
  ['faults', 'Faults and clock', faultsView],
  ['state', 'State', stateView],
  ['coverage', 'Coverage', coverageView],
]

/** Stops the current view's timers when another tab opens. */
let stopView = () => {}

function showTab(id) {
  stopView()
  stopView = () => {}
  for (const button of document.querySelectorAll('#tabs [role=tab]')) {
    const selected = button.dataset.tab === id
    button.setAttribute('aria-selected', String(selected))
    button.tabIndex = selected ? 0 : -1
  }
  const [, , draw] = TABS.find(([tab]) => tab === id) ?? TABS[0]
  history.replaceState(null, '', `#${id}`)
  mount(view, h('p', { class: 'muted' }, 'Loading…'))
  draw().catch(showError)
}

function tabs() {
  const nav = document.getElementById('tabs')
  const buttons = TABS.map(([id, label]) => h('button', { role: 'tab', 'data-tab': id, 'aria-controls': 'view', onclick: () => showTab(id) }, label))
  // Arrow keys move between tabs, as in any tab list.
  nav.addEventListener('keydown', (event) => {
    const index = buttons.indexOf(document.activeElement)
    if (index < 0 || !['ArrowLeft', 'ArrowRight'].includes(event.key)) return
    const next = buttons[(index + (event.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length]
    next.focus()
    next.click()
  })
  mount(nav, buttons)
}

/** A failure of a whole view; a missing control token asks for it. */
function showError(error) {
  if (error instanceof ApiError && error.code === 'CONTROL_TOKEN') {
    const input = h('input', { type: 'password', id: 'control-token', autocomplete: 'off', value: controlToken() })
    mount(view, h('form', { class: 'panel', onsubmit: (event) => { event.preventDefault(); setControlToken(input.value); showTab(currentTab()) } },
      h('p', {}, 'This mock guards its control plane with a token (--control-token).'),
      h('label', { for: 'control-token' }, 'Control token '), input, ' ', h('button', { type: 'submit' }, 'Use it')))
    input.focus()
    return
  }
  mount(view, h('p', { class: 'error', role: 'alert' }, errorText(error)))
}

function currentTab() {
  const id = location.hash.slice(1)
  return TABS.some(([tab]) => tab === id) ? id : 'requests'
}

/** Something the user did went wrong: shown beside what they did, the view stays. */
function inline(error) {
  return h('p', { class: 'error', role: 'alert' }, errorText(error))
}

// ---------------------------------------------------------------- Requests

const journalFilter = { operation: '', status: '', problem: '', own: false }

async function requestsView() {
  const list = h('div', { id: 'journal', 'aria-live': 'polite' })
  const counter = h('span', { class: 'muted' })
  const operations = h('datalist', { id: 'operations' })
  const field = (key, label, attributes = {}) =>
    h('label', {}, `${label} `, h('input', { ...attributes, name: key, value: journalFilter[key], oninput: (event) => { journalFilter[key] = event.target.value.trim(); draw() } }))
  let page = { entries: [] }
  const opened = new Set()
  const draw = () => {
    const entries = page.entries.filter(matchesFilter).reverse()
    counter.textContent = `${entries.length} shown of ${page.recorded ?? 0} recorded${page.evicted ? ` (${page.evicted} evicted)` : ''}`
    mount(operations, [...new Set(page.entries.map((entry) => entry.operationId).filter(Boolean))].sort().map((id) => h('option', { value: id })))
    if (entries.length === 0) {
      mount(list, h('p', { class: 'empty' }, page.entries.length === 0 ? 'No requests yet. Requests to the API appear here within a second.' : 'No request matches the filter.'))
      return
    }
    mount(list, entries.map((entry) => journalEntry(entry, opened)))
  }
  mount(view,
    h('section', { 'aria-label': 'Requests' },
      h('div', { class: 'toolbar' },
        field('operation', 'Operation', { list: 'operations', placeholder: 'saveItems' }), operations,
        field('status', 'Status', { placeholder: '4xx, 200', size: 6 }),
        field('problem', 'Problem code', { placeholder: 'BAD_FILTER', size: 14 }),
        h('label', {}, h('input', { type: 'checkbox', name: 'own', checked: journalFilter.own, onchange: (event) => { journalFilter.own = event.target.checked; draw() } }), " the console's own"),
        h('button', { onclick: async () => { await control('DELETE', 'requests'); await refresh() } }, 'Clear journal'),
        counter),
      list))
  const refresh = async () => {
    page = await control('GET', 'requests?bodies=true&limit=500')
    draw()
  }
  await refresh()
  let busy = false
  const timer = setInterval(async () => {
    if (busy) return
    busy = true
    try {
      await refresh()
    } catch (error) {
      mount(list, inline(error))
    } finally {
      busy = false
    }
  }, POLL_MS)
  stopView = () => clearInterval(timer)
}

function problemOf(entry) {
  const body = entry.response?.body
  return entry.response?.contentType?.includes('problem') && body && typeof body === 'object' ? body : undefined
}

function matchesFilter(entry) {
  const { operation, status, problem, own } = journalFilter
  if (!own && entry.request?.headers?.[CONSOLE_HEADER] !== undefined) return false
  if (operation !== '' && !(entry.operationId ?? '').toLowerCase().includes(operation.toLowerCase())) return false
  if (status !== '') {
    const wanted = status.split(/[\s,]+/).filter(Boolean)
    const text = String(entry.status ?? 'none')
    if (!wanted.some((pattern) => new RegExp(`^${pattern.replace(/x/gi, '\\d')}$`).test(text))) return false
  }
  if (problem !== '' && !(problemOf(entry)?.code ?? '').toLowerCase().includes(problem.toLowerCase())) return false
  return true
}

function journalEntry(entry, opened) {
  const problem = problemOf(entry)
  const status = entry.status ?? 'no answer'
  const details = h('details', { class: 'entry', 'data-seq': entry.seq, open: opened.has(entry.seq), ontoggle: (event) => (event.target.open ? opened.add(entry.seq) : opened.delete(entry.seq)) },
    h('summary', {},
      h('span', { class: `status s${String(status)[0]}` }, String(status)), ' ',
      h('strong', {}, entry.method), ' ', h('code', {}, entry.url), ' ',
      h('span', { class: 'muted' }, entry.operationId ?? 'no operation'),
      problem ? h('span', { class: 'code' }, ` ${problem.code ?? ''}`) : null,
      entry.warnings.length > 0 ? h('span', { class: 'warn' }, ` ${entry.warnings.length} warning(s)`) : null,
      entry.fault ? h('span', { class: 'warn' }, ` fault: ${entry.fault}`) : null,
      h('span', { class: 'muted' }, ` #${entry.seq} ${entry.time} ${entry.durationMs} ms`)),
    h('div', { class: 'grid' },
      h('div', {}, h('h3', {}, 'Request'), h('pre', {}, Object.entries(entry.request?.headers ?? {}).map(([name, value]) => `${name}: ${value}`).join('\n')), h('pre', {}, pretty(entry.request?.body))),
      h('div', {}, h('h3', {}, `Answer ${status}`, entry.response?.contentType ? h('span', { class: 'muted' }, ` ${entry.response.contentType}`) : null), h('pre', { class: 'answer' }, pretty(entry.response?.body)))),
    entry.warnings.length > 0 ? h('div', {}, h('h3', {}, 'Warnings'), h('ul', {}, entry.warnings.map((warning) => h('li', {}, `${warning.code}: ${warning.message ?? warning.detail ?? ''}`)))) : null,
    problem ? h('div', {}, h('h3', {}, 'Problem'), h('p', { class: 'error' }, `${problem.code ?? problem.title}: ${problem.detail ?? ''}`)) : null,
    curlButton(entry))
  return details
}

/** "Copy as curl": the request as a command (secrets stay as the journal shows them, redacted). */
function curlButton(entry) {
  const out = h('pre', { class: 'curl', hidden: true })
  return h('div', {},
    h('button', { onclick: async () => {
      out.textContent = curlOf(entry)
      out.hidden = false
      await navigator.clipboard?.writeText(out.textContent).catch(() => {})
    } }, 'Copy as curl'), out)
}

const quote = (text) => `'${String(text).replaceAll("'", "'\\''")}'`
const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'accept-encoding', CONSOLE_HEADER])

export function curlOf(entry) {
  const parts = ['curl', '-X', entry.method, quote(`${location.origin}${entry.url}`)]
  const headers = entry.request?.headers ?? {}
  for (const [name, value] of Object.entries(headers)) if (!SKIPPED_HEADERS.has(name)) parts.push('-H', quote(`${name}: ${value}`))
  const body = entry.request?.body
  if (body !== null && body !== undefined && body !== '') {
    const form = /urlencoded/.test(headers['content-type'] ?? '')
    parts.push('--data-raw', quote(typeof body === 'string' ? body : form ? new URLSearchParams(body).toString() : JSON.stringify(body)))
  }
  return parts.join(' ')
}

// ---------------------------------------------------------------- Data

/** The exported state (applications, users, workspaces), read once per Data view. */
async function dataView() {
  const state = await control('GET', 'state')
  const applications = state.applications ?? []
  if (applications.length === 0) {
    mount(view, h('p', { class: 'empty' }, 'The fixture has no applications.'))
    return
  }
  const body = h('div', {})
  mount(view,
    h('section', { 'aria-label': 'Data' },
      h('div', { class: 'apps', role: 'list' }, applications.map((application) =>
        h('button', { role: 'listitem', class: 'app', 'data-app': application.id, onclick: () => openApplication(state, application, body) },
          h('strong', {}, application.name), ' ', h('span', { class: 'muted' }, `${(state.data?.[application.id]?.masters ?? []).length} master rows; details: ${(application.details ?? []).map((d) => d.relationKey).join(', ') || 'none'}`)))),
      body))
  await openApplication(state, applications[0], body)
}

function workspaceOf(state, application) {
  return state.organization.workspaces.find((workspace) => (workspace.applicationIds ?? []).includes(application.id))?.id
}

async function openApplication(state, application, body) {
  for (const button of view.querySelectorAll('.app')) button.classList.toggle('current', button.dataset.app === application.id)
  const workspaceId = workspaceOf(state, application)
  const context = { workspaceId, applicationId: application.id }
  let session
  try {
    session = await sessionFor(state, workspaceId)
  } catch (error) {
    mount(body, inline(error))
    return
  }
  context.session = session
  const filterInput = h('input', { name: 'filter', size: 40, placeholder: "Status eq 'Shipped' and Amount gt 100", 'aria-label': '$filter' })
  const message = h('div', {})
  const table = h('div', {})
  const pager = h('div', { class: 'pager' })
  let skip = 0
  const load = async () => {
    const filter = filterInput.value.trim()
    const filterPart = filter === '' ? '' : `&$filter=${encodeURIComponent(filter)}`
    try {
      const [rows, counted] = await Promise.all([
        api('POST', '/ExplorerApi/api/items', { ...context, json: { query: `$top=${PAGE_SIZE}&$skip=${skip}&$orderby=Id asc${filterPart}` } }),
        api('POST', '/ExplorerApi/api/items', { ...context, json: { query: `$inlinecount=allpages${filterPart}` } }),
      ])
      const total = counted.Items?.[0]?._FieldCount_ ?? rows.length
      mount(message)
      mount(table, rowsTable(rows, (row) => openRow(application, context, row)))
      mount(pager,
        h('button', { disabled: skip === 0, onclick: () => { skip = Math.max(0, skip - PAGE_SIZE); load() } }, 'Previous'),
        h('span', {}, total === 0 ? ' no rows ' : ` rows ${skip + 1}–${skip + rows.length} of ${total} `),
        h('button', { disabled: skip + PAGE_SIZE >= total, onclick: () => { skip += PAGE_SIZE; load() } }, 'Next'))
    } catch (error) {
      // A filter the mock refuses: its own message, beside the box.
      mount(message, inline(error))
    }
  }
  mount(body,
    h('h2', {}, application.name),
    h('p', { class: 'muted' }, `Read through the API as ${session.user} (workspace ${workspaceId}).`),
    h('form', { class: 'toolbar', onsubmit: (event) => { event.preventDefault(); skip = 0; load() } },
      h('label', {}, '$filter ', filterInput), h('button', { type: 'submit' }, 'Apply')),
    message, table, pager, h('div', { id: 'row' }))
  await load()
}

function rowsTable(rows, onOpen) {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No rows.')
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))]
  return h('table', {},
    h('thead', {}, h('tr', {}, columns.map((column) => h('th', { scope: 'col' }, column)))),
    h('tbody', {}, rows.map((row) => h('tr', onOpen ? { tabindex: 0, class: 'link', 'data-id': row.Id, onclick: () => onOpen(row), onkeydown: (event) => { if (event.key === 'Enter') onOpen(row) } } : {},
      columns.map((column) => h('td', {}, row[column] === null || row[column] === undefined ? '' : String(row[column])))))))
}

async function openRow(application, context, row) {
  const target = view.querySelector('#row')
  mount(target, h('p', { class: 'muted' }, 'Loading…'))
  const parts = [h('h2', {}, `${application.name} row ${row.Id}`), h('p', {}, 'Row version: ', h('code', { class: 'row-version' }, String(row.TIMESTAMP ?? row.Timestamp ?? '(not shown)')))]
  for (const detail of application.details ?? []) {
    try {
      const lines = await api('POST', '/ExplorerApi/api/items', { ...context, json: { query: `$filter=${encodeURIComponent(`${detail.masterField} eq ${row.Id}`)}&$orderby=Id asc&relationKey=${encodeURIComponent(detail.relationKey)}` } })
      parts.push(h('section', { class: 'detail', 'data-relation': detail.relationKey }, h('h3', {}, `${detail.relationKey} (${lines.length})`), rowsTable(lines)))
    } catch (error) {
      parts.push(h('h3', {}, detail.relationKey), inline(error))
    }
  }
  try {
    const files = await api('GET', `/ExplorerApi/api/attachments?$filter=${encodeURIComponent(`ParentId eq ${row.Id}`)}`, context)
    parts.push(h('h3', {}, `Attachments (${files.length})`), files.length === 0 ? h('p', { class: 'empty' }, 'No attachments.') : h('ul', {}, files.map((file) => h('li', {},
      file.IsFolder ? `${file.Name}/ (folder)` : h('button', { class: 'linkish', onclick: async () => download(file.Name, await api('POST', '/ExplorerApi/api/attachments/download', { ...context, json: { ids: [file.Id] } })) }, file.Name),
      h('span', { class: 'muted' }, ` ${file.TypeImage ?? ''} ${file.Description ?? ''}`)))))
  } catch (error) {
    parts.push(h('h3', {}, 'Attachments'), inline(error))
  }
  mount(target, parts)
  target.querySelector('h2').tabIndex = -1
  target.querySelector('h2').focus()
}

// ---------------------------------------------------------------- Outbox

async function outboxView() {
  const { emails } = await control('GET', 'emails')
  mount(view,
    h('section', { 'aria-label': 'Outbox' },
      h('div', { class: 'toolbar' }, h('span', {}, `${emails.length} queued e-mail(s)`), h('button', { onclick: async () => { await control('DELETE', 'emails'); showTab('outbox') } }, 'Clear outbox')),
      emails.length === 0 ? h('p', { class: 'empty' }, 'No e-mails queued. Send Email puts them here.') :
        [...emails].reverse().map((email) => h('details', { class: 'entry email' },
          h('summary', {}, h('strong', {}, email.subject ?? email.Subject ?? '(no subject)'), h('span', { class: 'muted' }, ` to ${[].concat(email.to ?? email.To ?? []).join(', ')} ${email.queuedAt ?? ''}`)),
          h('pre', {}, pretty(email))))))
}

// ---------------------------------------------------------------- Faults and clock

async function faultsView() {
  const [faults, clock] = await Promise.all([control('GET', 'faults'), control('GET', 'clock')])
  const message = h('div', {})
  const operation = h('input', { name: 'operationId', required: true, placeholder: 'saveItems or *', list: 'fault-operations' })
  const status = h('input', { name: 'status', type: 'number', min: 100, max: 599, value: 503, size: 5 })
  const times = h('input', { name: 'times', type: 'number', min: 1, placeholder: 'always', size: 6 })
  const latency = h('input', { name: 'latencyMs', type: 'number', min: 0, placeholder: '0', size: 6 })
  // setFaults replaces the whole list: each change starts from the rules as they are now (a rule may have run out since the view was drawn).
  const change = async (edit) => {
    try {
      const now = await control('GET', 'faults')
      const rules = edit(now.rules.filter((rule) => rule.remaining !== 0)).map(({ id, applied, remaining, ...rule }) => ({ ...rule, ...(remaining === null ? {} : { times: remaining }) }))
      await control('POST', 'faults', { rules, seed: now.seed })
      showTab('faults')
    } catch (error) {
      mount(message, inline(error))
    }
  }
  const advance = h('input', { name: 'advanceSeconds', type: 'number', min: 0, value: 60, size: 8 })
  const operationIds = (await apiOperationIds().catch(() => [])).map((id) => h('option', { value: id }))
  mount(view,
    h('section', { 'aria-label': 'Faults' },
      h('h2', {}, 'Faults'),
      faults.rules.length === 0 ? h('p', { class: 'empty' }, 'No fault rules: every request is answered normally.') :
        h('table', { class: 'faults' }, h('thead', {}, h('tr', {}, ['Operation', 'Effect', 'Rate', 'Remaining', 'Applied', ''].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, faults.rules.map((rule) => h('tr', {},
            h('td', {}, rule.operationId),
            h('td', {}, [rule.status ? `status ${rule.status}` : '', rule.latencyMs ? `latency ${rule.latencyMs} ms` : '', rule.drop ? 'drop' : '', rule.commitThenDrop ? 'commit then drop' : ''].filter(Boolean).join(', ')),
            h('td', {}, String(rule.rate)), h('td', {}, rule.remaining === null ? 'always' : String(rule.remaining)), h('td', {}, String(rule.applied)),
            h('td', {}, h('button', { 'aria-label': `Remove fault ${rule.id} (${rule.operationId})`, onclick: () => change((rules) => rules.filter((other) => other.id !== rule.id)) }, 'Remove')))))),
      h('form', { class: 'toolbar', onsubmit: (event) => {
        event.preventDefault()
        const rule = { operationId: operation.value.trim() }
        if (status.value !== '') rule.status = Number(status.value)
        if (times.value !== '') rule.times = Number(times.value)
        if (latency.value !== '') rule.latencyMs = Number(latency.value)
        change((rules) => [...rules, { ...rule, id: 0, applied: 0, remaining: null }])
      } }, h('label', {}, 'Operation ', operation), h('datalist', { id: 'fault-operations' }, operationIds), h('label', {}, 'Status ', status), h('label', {}, 'Times ', times), h('label', {}, 'Latency ms ', latency), h('button', { type: 'submit' }, 'Add fault'), h('button', { type: 'button', onclick: () => showTab('faults') }, 'Refresh'),
        faults.rules.length > 0 ? h('button', { type: 'button', onclick: async () => { await control('DELETE', 'faults'); showTab('faults') } }, 'Remove all') : null),
      message),
    h('section', { 'aria-label': 'Clock' },
      h('h2', {}, 'Clock'),
      h('p', {}, 'The mock\'s time: ', h('code', { id: 'clock-now' }, clock.now ?? pretty(clock)), clock.offsetMs ? h('span', { class: 'muted' }, ` (${clock.offsetMs} ms ahead)`) : null),
      h('form', { class: 'toolbar', onsubmit: async (event) => {
        event.preventDefault()
        try {
          await control('POST', 'clock', { advanceSeconds: Number(advance.value) })
          showTab('faults')
        } catch (error) {
          mount(message, inline(error))
        }
      } }, h('label', {}, 'Advance by seconds ', advance), h('button', { type: 'submit' }, 'Advance clock'))))
  operation.focus()
}

// ---------------------------------------------------------------- State

async function stateView() {
  const message = h('div', { 'aria-live': 'polite' })
  const done = (text) => mount(message, h('p', { class: 'ok' }, text))
  const file = h('input', { type: 'file', name: 'fixture', accept: 'application/json,.json' })
  mount(view,
    h('section', { 'aria-label': 'State' },
      h('h2', {}, 'State'),
      h('div', { class: 'toolbar' },
        h('button', { id: 'reset', onclick: async () => {
          try {
            const result = await control('POST', 'reset')
            forgetSessions()
            done(`Reset: data back to the start fixture${result && typeof result === 'object' ? ` (${pretty(result).replace(/\s+/g, ' ')})` : ''}.`)
          } catch (error) {
            mount(message, inline(error))
          }
        } }, 'Reset'),
        h('button', { onclick: async () => {
          try {
            const state = await control('GET', 'state')
            download('appdata-kit-state.json', new Blob([`${JSON.stringify(state, null, 2)}\n`], { type: 'application/json' }))
            done('The current state is downloaded as a fixture (it holds the fixture users\' passwords).')
          } catch (error) {
            mount(message, inline(error))
          }
        } }, 'Download state')),
      h('form', { class: 'toolbar', onsubmit: async (event) => {
        event.preventDefault()
        const chosen = file.files?.[0]
        if (chosen === undefined) return mount(message, inline(new Error('Choose a fixture file first.')))
        try {
          const fixture = JSON.parse(await chosen.text())
          const result = await control('POST', 'fixture', fixture)
          forgetSessions()
          done(`Loaded ${chosen.name}: ${pretty(result).replace(/\s+/g, ' ')}`)
        } catch (error) {
          mount(message, inline(error instanceof SyntaxError ? new Error(`${chosen.name} is not JSON: ${error.message}`) : error))
        }
      } }, h('label', {}, 'Load a fixture file ', file), h('button', { type: 'submit' }, 'Load')),
      message))
}

// ---------------------------------------------------------------- Coverage

/** The API's operationIds, from the document this mock serves. */
async function apiOperationIds() {
  const document = await fetch('/openapi.json').then((response) => response.json())
  const ids = Object.values(document.paths ?? {}).flatMap((item) => Object.values(item).map((operation) => operation?.operationId))
  return [...new Set(ids.filter(Boolean))].sort()
}

async function coverageView() {
  let usage
  try {
    usage = await control('GET', 'usage')
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      mount(view, h('p', { class: 'empty' }, 'This mock does not record usage. Start it with --record-usage FILE to see which operations your client used.'))
      return
    }
    throw error
  }
  const all = await apiOperationIds()
  const counts = new Map()
  for (const interaction of usage.interactions ?? []) counts.set(interaction.operation, (counts.get(interaction.operation) ?? 0) + (interaction.count ?? 1))
  const unused = all.filter((id) => !counts.has(id)).sort()
  mount(view,
    h('section', { 'aria-label': 'Coverage' },
      h('h2', {}, `Used (${counts.size})`),
      counts.size === 0 ? h('p', { class: 'empty' }, 'No API request recorded yet.') : h('ul', {}, [...counts].sort().map(([id, count]) => h('li', {}, h('code', {}, id), ` ${count} request(s)`))),
      h('h2', {}, `Not used (${unused.length})`),
      h('ul', {}, unused.map((id) => h('li', {}, h('code', {}, id))))))
}

// ---------------------------------------------------------------- start

async function start() {
  tabs()
  control('GET', 'health').then((health) => { document.getElementById('health').textContent = `appdata-kit ${health.version}, release ${health.productVersion}` }, () => {})
  window.addEventListener('hashchange', () => showTab(currentTab()))
  showTab(currentTab())
}

start()
