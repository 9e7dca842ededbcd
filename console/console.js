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
  ['rules', 'Rules', rulesView],
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
  // Each showing of a tab draws into a pane of its own: a view still loading when another tab
  // opens draws into its pane, no longer on the page, instead of over the tab now shown.
  const pane = h('div', { class: 'pane' }, h('p', { class: 'muted' }, 'Loading…'))
  mount(view, pane)
  draw(pane).catch((error) => showError(error, pane))
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

/** A failure of a whole view, shown in its pane; a missing control token asks for it. */
function showError(error, pane) {
  if (error instanceof ApiError && error.code === 'CONTROL_TOKEN') {
    const input = h('input', { type: 'password', id: 'control-token', autocomplete: 'off', value: controlToken() })
    mount(
      pane,
      h(
        'form',
        {
          class: 'panel',
          onsubmit: (event) => {
            event.preventDefault()
            setControlToken(input.value)
            showTab(currentTab())
          },
        },
        h('p', {}, 'This mock guards its control plane with a token (--control-token).'),
        h('label', { for: 'control-token' }, 'Control token '),
        input,
        ' ',
        h('button', { type: 'submit' }, 'Use it'),
      ),
    )
    input.focus()
    return
  }
  mount(pane, h('p', { class: 'error', role: 'alert' }, errorText(error)))
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

const journalFilter = { operation: '', status: '', problem: '', own: false, refused: false }

async function requestsView(pane) {
  const list = h('div', { id: 'journal', 'aria-live': 'polite' })
  const counter = h('span', { class: 'muted' })
  const operations = h('datalist', { id: 'operations' })
  const field = (key, label, attributes = {}) =>
    h(
      'label',
      {},
      `${label} `,
      h('input', {
        ...attributes,
        name: key,
        value: journalFilter[key],
        oninput: (event) => {
          journalFilter[key] = event.target.value.trim()
          draw()
        },
      }),
    )
  let page = { entries: [] }
  // What the user opened survives the redraws: entries expanded, and the curl commands shown.
  const shown = { opened: new Set(), curls: new Set() }
  const draw = () => {
    const entries = page.entries.filter(matchesFilter).reverse()
    counter.textContent = `${entries.length} shown of ${page.recorded ?? 0} recorded${page.evicted ? ` (${page.evicted} evicted)` : ''}`
    mount(
      operations,
      [...new Set(page.entries.map((entry) => entry.operationId).filter(Boolean))].sort().map((id) => h('option', { value: id })),
    )
    if (entries.length === 0) {
      mount(
        list,
        h(
          'p',
          { class: 'empty' },
          page.entries.length === 0 ? 'No requests yet. Requests to the API appear here within a second.' : 'No request matches the filter.',
        ),
      )
      return
    }
    mount(
      list,
      entries.map((entry) => journalEntry(entry, shown)),
    )
  }
  mount(
    pane,
    h(
      'section',
      { 'aria-label': 'Requests' },
      h(
        'div',
        { class: 'toolbar' },
        field('operation', 'Operation', { list: 'operations', placeholder: 'saveItems' }),
        operations,
        field('status', 'Status', { placeholder: '4xx, 200', size: 6 }),
        field('problem', 'Problem code', { placeholder: 'BAD_FILTER, LOCKED', size: 14 }),
        h(
          'label',
          {},
          h('input', {
            type: 'checkbox',
            name: 'refused',
            checked: journalFilter.refused,
            onchange: (event) => {
              journalFilter.refused = event.target.checked
              draw()
            },
          }),
          ' refused saves and deletes only',
        ),
        h(
          'label',
          {},
          h('input', {
            type: 'checkbox',
            name: 'own',
            checked: journalFilter.own,
            onchange: (event) => {
              journalFilter.own = event.target.checked
              draw()
            },
          }),
          " the console's own",
        ),
        h(
          'button',
          {
            onclick: async () => {
              await control('DELETE', 'requests')
              await refresh()
            },
          },
          'Clear journal',
        ),
        counter,
      ),
      list,
    ),
  )
  // The journal changed: a new entry, an answer to one in flight, entries evicted or cleared.
  const show = drawWhenChanged(
    (read) => `${read.recorded} ${read.evicted} ${read.entries.map((entry) => `${entry.seq}:${entry.status}`).join(',')}`,
    (read) => {
      page = read
      draw()
    },
  )
  const refresh = async () => show(await control('GET', 'requests?bodies=true&limit=500'))
  await refresh()
  pollWhileShown(pane, refresh, (error) => {
    mount(list, inline(error))
    show.forget()
  })
}

/**
 * A view's drawing step that draws only what differs (`stateOf`) from what it drew last: a redraw
 * at every poll would undo a text selection, or a curl command the user opened. `forget()` once
 * something else took the drawing's place (an error): the next one draws, changed or not.
 */
function drawWhenChanged(stateOf, draw) {
  let drawn
  const show = (read) => {
    const state = stateOf(read)
    if (state === drawn) return
    drawn = state
    draw(read)
  }
  show.forget = () => {
    drawn = undefined
  }
  return show
}

/**
 * Calls `refresh` every POLL_MS while the view's pane is on the page, one call at a time (a slow
 * answer is not asked again before it comes); `failed` shows an error in the view. Leaving the
 * view stops it, and so does a pane another tab replaced before its view began to poll.
 */
function pollWhileShown(pane, refresh, failed) {
  let busy = false
  const timer = setInterval(async () => {
    if (!pane.isConnected) return clearInterval(timer)
    if (busy) return
    busy = true
    try {
      await refresh()
    } catch (error) {
      failed(error)
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

/**
 * A save or delete the installation refused: a 2xx answer whose result object says
 * `IsSaveSuccessfully: false` (`IsSaveSuccesfully` before 3.0), with its `ReturnStates` (each
 * entry's code, table, row, field and message). Undefined for anything else, and for an answer the
 * journal did not keep (over `--journal-body-limit`).
 */
export function refusalOf(entry) {
  const body = entry.response?.body
  if (entry.status === null || entry.status < 200 || entry.status > 299 || body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const flag = 'IsSaveSuccessfully' in body ? body.IsSaveSuccessfully : body.IsSaveSuccesfully
  if (flag !== false) return undefined
  const states = Array.isArray(body.ReturnStates) ? body.ReturnStates : []
  const codes = [...new Set(states.map((state) => state?.Code).filter((code) => typeof code === 'string'))]
  return { codes, states }
}

function matchesFilter(entry) {
  const { operation, status, problem, own, refused } = journalFilter
  if (!own && entry.request?.headers?.[CONSOLE_HEADER] !== undefined) return false
  if (operation !== '' && !(entry.operationId ?? '').toLowerCase().includes(operation.toLowerCase())) return false
  if (status !== '') {
    const wanted = status.split(/[\s,]+/).filter(Boolean)
    const text = String(entry.status ?? 'none')
    if (!wanted.some((pattern) => new RegExp(`^${pattern.replace(/x/gi, '\\d')}$`).test(text))) return false
  }
  const refusal = refusalOf(entry)
  if (refused && refusal === undefined) return false
  // A problem's code, or the codes of a refused save's ReturnStates (LOCKED, REQUIRED, CONCURRENCY, ...).
  const codes = [problemOf(entry)?.code ?? '', ...(refusal?.codes ?? [])].map((code) => code.toLowerCase())
  if (problem !== '' && !codes.some((code) => code !== '' && code.includes(problem.toLowerCase()))) return false
  return true
}

function journalEntry(entry, shown) {
  const problem = problemOf(entry)
  const refusal = refusalOf(entry)
  const status = entry.status ?? (entry.abandoned ? 'abandoned' : 'no answer')
  const { opened } = shown
  const details = h(
    'details',
    {
      class: 'entry',
      'data-seq': entry.seq,
      open: opened.has(entry.seq),
      ontoggle: (event) => (event.target.open ? opened.add(entry.seq) : opened.delete(entry.seq)),
    },
    h(
      'summary',
      {},
      // A refused save is a 200 like a success: told apart by its colour, its tooltip and the codes after it.
      h(
        'span',
        { class: `status s${String(status)[0]}${refusal ? ' refused' : ''}`, title: refusal ? 'IsSaveSuccessfully: false' : undefined },
        String(status),
      ),
      ' ',
      h('strong', {}, entry.method),
      ' ',
      h('code', {}, entry.url),
      ' ',
      h('span', { class: 'muted' }, entry.operationId ?? 'no operation'),
      problem ? h('span', { class: 'code' }, ` ${problem.code ?? ''}`) : null,
      refusal ? h('span', { class: 'refusal' }, ` refused${refusal.codes.length > 0 ? `: ${refusal.codes.join(', ')}` : ''}`) : null,
      entry.warnings.length > 0 ? h('span', { class: 'warn' }, ` ${entry.warnings.length} warning(s)`) : null,
      entry.fault ? h('span', { class: 'warn' }, ` fault: ${entry.fault}`) : null,
      entry.stub ? h('span', { class: 'stub' }, ` answered by rule ${entry.stub}`) : null,
      h('span', { class: 'muted' }, ` #${entry.seq} ${entry.time} ${entry.durationMs} ms`),
    ),
    h(
      'div',
      { class: 'grid' },
      h(
        'div',
        {},
        h('h3', {}, 'Request'),
        h(
          'pre',
          {},
          Object.entries(entry.request?.headers ?? {})
            .map(([name, value]) => `${name}: ${value}`)
            .join('\n'),
        ),
        h('pre', {}, pretty(entry.request?.body)),
      ),
      h(
        'div',
        {},
        h('h3', {}, `Answer ${status}`, entry.response?.contentType ? h('span', { class: 'muted' }, ` ${entry.response.contentType}`) : null),
        h('pre', { class: 'answer' }, pretty(entry.response?.body)),
      ),
    ),
    entry.warnings.length > 0
      ? h(
          'div',
          {},
          h('h3', {}, 'Warnings'),
          h(
            'ul',
            {},
            entry.warnings.map((warning) => h('li', {}, `${warning.code}: ${warning.message ?? warning.detail ?? ''}`)),
          ),
        )
      : null,
    problem ? h('div', {}, h('h3', {}, 'Problem'), h('p', { class: 'error' }, `${problem.code ?? problem.title}: ${problem.detail ?? ''}`)) : null,
    refusal
      ? h(
          'div',
          {},
          h('h3', {}, 'Refused (IsSaveSuccessfully: false)'),
          h(
            'ul',
            { class: 'refused-states' },
            refusal.states.map((state) =>
              h(
                'li',
                {},
                h('strong', {}, String(state?.Code ?? '')),
                ` ${[state?.Table, state?.Row ?? state?.Id, state?.Field].filter((part) => part !== undefined && part !== null).join(' ')}: ${state?.Message ?? ''}`,
              ),
            ),
          ),
        )
      : null,
    curlButton(entry, shown.curls),
  )
  return details
}

/**
 * "Copy as curl": the request as a command (secrets stay as the journal shows them, redacted),
 * shown until the view is left (`curls`: the entries whose command is shown).
 */
function curlButton(entry, curls) {
  const out = h('pre', { class: 'curl', hidden: !curls.has(entry.seq) }, curls.has(entry.seq) ? curlOf(entry) : '')
  return h(
    'div',
    {},
    h(
      'button',
      {
        onclick: async () => {
          out.textContent = curlOf(entry)
          out.hidden = false
          curls.add(entry.seq)
          await navigator.clipboard?.writeText(out.textContent).catch(() => {})
        },
      },
      'Copy as curl',
    ),
    ' ',
    answerAgainButton(entry),
    out,
  )
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

// ---------------------------------------------------------------- Rules

/** What the editor starts with: a rule that refuses saves of one customer the product's way. */
const RULE_TEMPLATE = {
  name: 'Refuse saves of Initech',
  operationId: 'saveItems',
  match: { body: { Rows: [{ Row: { Customer: 'Initech' } }] } },
  answer: {
    status: 200,
    body: {
      IsSaveSuccessfully: false,
      ReturnStates: [
        {
          Code: 'REQUIRED',
          Message: 'Amount is required: a new row must give it a value',
          RelationKey: null,
          Id: -1,
          Table: 'Orders',
          Row: -1,
          Field: 'Amount',
        },
      ],
      MasterToRecalculate: [],
      CreatedItems: 0,
      UpdatedItems: 0,
      DeletedItems: 0,
      LockedItems: 0,
      MasterRowLink: null,
      RowIdentifier: 'IdRow',
      StorageName: 'Orders',
      SavedItems: null,
      ReturnData: { PrimaryKeyData: {} },
    },
  },
  times: 1,
}

const ruleText = (rule) => JSON.stringify(rule, null, 2)

/** The editor's text, kept while other tabs are open; a rule made from a journal entry replaces it. */
const ruleEditor = { text: ruleText(RULE_TEMPLATE), note: null }

/** Whether a value holds a secret the journal replaced with `[redacted]`. */
function holdsRedacted(value) {
  if (value === '[redacted]') return true
  if (Array.isArray(value)) return value.some(holdsRedacted)
  return value !== null && typeof value === 'object' && Object.values(value).some(holdsRedacted)
}

/** The texts the journal shows in place of a body it did not keep (`[... not kept]`, `[N bytes ...]`). */
const NOT_KEPT = /^\[(\d+ (bytes|characters)\b|body of unknown size|streamed body|no answer)/

/**
 * "Answer this again": a rule that gives the answer a journal entry recorded (its status, its body, and
 * its media type when that is not plain JSON), for the same operation. Its match is the request's JSON
 * body (so it answers that request again, not every one) or, for a body that is not JSON or held
 * secrets, none: the user narrows or widens it in the editor before adding it.
 */
export function ruleFromEntry(entry) {
  const answer = { status: entry.status }
  const body = entry.response?.body
  if (body !== null && body !== undefined && body !== '') answer.body = body
  const contentType = entry.response?.contentType ?? null
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase()
  if (mediaType !== '' && mediaType !== 'application/json') answer.headers = { 'content-type': contentType }
  const requestBody = entry.request?.body
  const exact =
    requestBody !== null &&
    typeof requestBody === 'object' &&
    !Array.isArray(requestBody) &&
    !holdsRedacted(requestBody) &&
    !/urlencoded/.test(entry.request?.headers?.['content-type'] ?? '')
  return { name: `Answer of request #${entry.seq} again`, operationId: entry.operationId, match: exact ? { body: requestBody } : {}, answer }
}

function answerAgainButton(entry) {
  // Only an answer the journal kept can be given again.
  if (entry.operationId === null || entry.status === null || entry.response === undefined) return null
  const body = entry.response.body
  if (typeof body === 'string' && NOT_KEPT.test(body)) return null
  return h(
    'button',
    {
      onclick: () => {
        const rule = ruleFromEntry(entry)
        const notes = [`Made from request #${entry.seq} (${entry.operationId}, answered ${entry.status}): adjust the match, then Add rule.`]
        if (holdsRedacted(rule.answer)) notes.push('The journal redacted secrets in this answer ([redacted]): put values in their place.')
        ruleEditor.text = ruleText(rule)
        ruleEditor.note = notes.join(' ')
        showTab('rules')
      },
    },
    'Answer this again',
  )
}

/** A pattern or answer as one short line; the whole of it in the cell's title. */
function compact(value, empty) {
  if (value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0)) return h('span', { class: 'muted' }, empty)
  const text = JSON.stringify(value)
  return h('code', { title: JSON.stringify(value, null, 2) }, text.length > 90 ? `${text.slice(0, 89)}…` : text)
}

function answerKind(answer) {
  if (answer !== null && typeof answer === 'object' && 'patch' in answer) return h('span', { title: JSON.stringify(answer.patch, null, 2) }, 'merge patch')
  if (answer === undefined || Object.keys(answer).length === 0) return 'own answer'
  return h(
    'span',
    { title: answer.body === undefined ? '' : JSON.stringify(answer.body, null, 2) },
    `whole answer ${answer.status ?? 200}${answer.body === undefined ? '' : ' with body'}`,
  )
}

function rulesTable(list, remove) {
  if (list.rules.length === 0) return h('p', { class: 'empty' }, 'No answer rules: every request is answered by the mock itself.')
  const headings = ['Id', 'Name', 'Operation', 'Match', 'Answer', 'Delay', 'Times left', 'Priority', 'Scenario', 'Document', 'Hits', '']
  return [
    h(
      'table',
      { class: 'rules' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headings.map((text) => h('th', { scope: 'col' }, text)),
        ),
      ),
      h(
        'tbody',
        {},
        list.rules.map((rule) =>
          h(
            'tr',
            { 'data-rule-id': rule.id, class: rule.remaining === 0 ? 'spent' : undefined },
            h('td', {}, String(rule.id)),
            h('td', { class: 'name' }, rule.name ?? ''),
            h('td', {}, rule.operationId ?? h('span', { class: 'muted' }, 'every operation')),
            h('td', { class: 'match' }, compact(rule.match, 'any request')),
            h('td', { class: 'answer' }, answerKind(rule.answer)),
            h('td', {}, rule.delayMs ? `${rule.delayMs} ms` : ''),
            h(
              'td',
              { class: 'remaining' },
              rule.remaining === null || rule.remaining === undefined ? 'always' : `${rule.remaining}${rule.times ? ` of ${rule.times}` : ''}`,
            ),
            h('td', {}, String(rule.priority ?? '')),
            h('td', {}, rule.scenario ? `${rule.scenario}: ${rule.whenState ?? 'any state'} → ${rule.setState ?? 'unchanged'}` : ''),
            h(
              'td',
              {},
              rule.offDocument
                ? h('span', { class: 'warn', title: (rule.violations ?? []).map((v) => `${v.pointer} ${v.message}`).join('\n') }, 'off document')
                : '',
            ),
            h('td', { class: 'hits' }, String(rule.hits ?? 0)),
            h(
              'td',
              {},
              h(
                'button',
                { 'aria-label': `Remove rule ${rule.id} (${rule.name ?? rule.operationId ?? 'every operation'})`, onclick: () => remove(rule.id) },
                'Remove',
              ),
            ),
          ),
        ),
      ),
    ),
    Object.keys(list.scenarios ?? {}).length === 0
      ? null
      : h(
          'p',
          { class: 'scenarios' },
          'Scenario states: ',
          Object.entries(list.scenarios).map(([name, state], i) => [i > 0 ? ', ' : '', h('code', {}, name), ` ${state}`]),
        ),
  ]
}

/** A refusal of the mock, with each violation of a refused rule as pointer and message. */
function refusal(error) {
  const violations = error instanceof ApiError ? error.problem?.violations : undefined
  if (!Array.isArray(violations) || violations.length === 0) return inline(error)
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('p', {}, `${error.code ?? 'refused'}: the mock refused the rule (${violations.length} problem${violations.length === 1 ? '' : 's'}).`),
    h(
      'ul',
      { class: 'violations' },
      violations.map((violation) => h('li', {}, h('code', {}, violation.pointer ?? ''), ' ', violation.message ?? violation.keyword ?? '')),
    ),
  )
}

async function rulesView(pane) {
  let list
  try {
    list = await control('GET', 'stubs')
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error
    mount(pane, h('p', { class: 'empty' }, 'This mock has no answer rules (GET /__mock/stubs answered 404): it is older than the Rules tab.'))
    return
  }
  const table = h('div', { id: 'rules', 'aria-live': 'polite' })
  const message = h('div', { 'aria-live': 'polite' })
  const draw = drawWhenChanged(JSON.stringify, (read) => mount(table, rulesTable(read, remove)))
  const refresh = async () => draw(await control('GET', 'stubs'))
  const act = async (work) => {
    try {
      await work()
      await refresh()
    } catch (error) {
      mount(message, refusal(error))
    }
  }
  const remove = (id) =>
    act(async () => {
      await control('DELETE', `stubs/${id}`)
      mount(message, h('p', { class: 'ok' }, `Removed rule ${id}.`))
    })
  const editor = h('textarea', {
    id: 'rule-editor',
    name: 'rule',
    rows: 18,
    cols: 90,
    spellcheck: 'false',
    value: ruleEditor.text,
    oninput: (event) => {
      ruleEditor.text = event.target.value
    },
  })
  const note = h('p', { class: 'note' }, ruleEditor.note ?? '')
  note.hidden = ruleEditor.note === null
  mount(
    pane,
    h(
      'section',
      { 'aria-label': 'Rules' },
      h('h2', {}, 'Answer rules'),
      h(
        'div',
        { class: 'toolbar' },
        h(
          'button',
          {
            onclick: () =>
              act(async () => {
                const { cleared } = await control('DELETE', 'stubs')
                mount(message, h('p', { class: 'ok' }, `Removed ${cleared ?? 'every'} rule(s).`))
              }),
          },
          'Remove all rules',
        ),
        h('button', { onclick: () => act(async () => {}) }, 'Refresh'),
      ),
      table,
      h('h2', {}, 'Add a rule'),
      note,
      h(
        'form',
        {
          class: 'rule-form',
          onsubmit: (event) => {
            event.preventDefault()
            let rule
            try {
              rule = JSON.parse(editor.value)
            } catch (error) {
              return mount(message, inline(new Error(`The rule is not JSON: ${error.message}`)))
            }
            act(async () => {
              const added = await control('POST', 'stubs', rule)
              ruleEditor.note = null
              note.hidden = true
              mount(message, h('p', { class: 'ok' }, `Added rule ${added.id}${added.name ? ` (${added.name})` : ''}.`))
            })
          },
        },
        h('label', { for: 'rule-editor' }, 'Rule (JSON)'),
        editor,
        h(
          'div',
          { class: 'toolbar' },
          h('button', { type: 'submit' }, 'Add rule'),
          h(
            'button',
            {
              type: 'button',
              onclick: () => {
                ruleEditor.text = editor.value = ruleText(RULE_TEMPLATE)
                ruleEditor.note = null
                note.hidden = true
              },
            },
            'Start from the template',
          ),
        ),
      ),
      message,
    ),
  )
  draw(list)
  if (ruleEditor.note !== null) editor.focus()
  // Hit counts move with every request a rule answers: asked again while the tab shows.
  pollWhileShown(pane, refresh, (error) => {
    mount(table, inline(error))
    draw.forget()
  })
}

// ---------------------------------------------------------------- Data

/** The exported state (applications, users, workspaces), read once per Data view. */
async function dataView(pane) {
  const state = await control('GET', 'state')
  const applications = state.applications ?? []
  if (applications.length === 0) {
    mount(pane, h('p', { class: 'empty' }, 'The fixture has no applications.'))
    return
  }
  const body = h('div', {})
  const locks = LockSet.fromFixture(state.locks)
  mount(
    pane,
    h(
      'section',
      { 'aria-label': 'Data' },
      h(
        'div',
        { class: 'apps', role: 'list' },
        applications.map((application) =>
          h(
            'button',
            { role: 'listitem', class: 'app', 'data-app': application.id, onclick: () => openApplication(state, application, body, locks) },
            h('strong', {}, application.name),
            ' ',
            h(
              'span',
              { class: 'muted' },
              `${(state.data?.[application.id]?.masters ?? []).length} master rows; details: ${(application.details ?? []).map((d) => d.relationKey).join(', ') || 'none'}`,
            ),
          ),
        ),
      ),
      body,
    ),
  )
  await openApplication(state, applications[0], body, locks)
}

function workspaceOf(state, application) {
  return state.organization.workspaces.find((workspace) => (workspace.applicationIds ?? []).includes(application.id))?.id
}

/**
 * The locked rows, as a set of `applicationId table Id` keys: read from the state (its `locks`, in the
 * fixture's form) when the Data view opens, then from the list `POST`/`DELETE /__mock/locks` answer.
 * No request of its own, so a mock without locks is asked nothing more.
 */
class LockSet {
  #keys = new Set()

  static key(applicationId, relationKey, id) {
    // Application Ids and GUID relation keys compare without regard to case; `master` is the fixture's name for the master table.
    const table = relationKey === null || relationKey === undefined || relationKey === 'master' ? '' : String(relationKey).toLowerCase()
    return `${String(applicationId).toLowerCase()} ${table} ${id}`
  }

  /** From a fixture's `locks`: `{ APPLICATION_ID: { master: [Id...], RELATION_KEY: [Id...] } }`. */
  static fromFixture(locks) {
    const set = new LockSet()
    for (const [applicationId, tables] of Object.entries(locks ?? {}))
      for (const [relationKey, ids] of Object.entries(tables ?? {})) for (const id of ids ?? []) set.#keys.add(LockSet.key(applicationId, relationKey, id))
    return set
  }

  /** From the control plane's list: `[{ applicationId, relationKey, ids }]`. */
  replace(entries) {
    this.#keys.clear()
    for (const { applicationId, relationKey, ids } of entries ?? []) for (const id of ids ?? []) this.#keys.add(LockSet.key(applicationId, relationKey, id))
  }

  has(applicationId, relationKey, id) {
    return this.#keys.has(LockSet.key(applicationId, relationKey, id))
  }
}

async function openApplication(state, application, body, locks) {
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
  const table = h('div', { id: 'rows' })
  const pager = h('div', { class: 'pager' })
  let skip = 0
  let opened = null
  // One table's locks for rowsTable: which rows are locked, and the Lock / Unlock action.
  context.lockTable = (relationKey) => ({
    locked: (id) => locks.has(application.id, relationKey, id),
    toggle: (row, lock) => toggleLock(relationKey, row, lock),
  })
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
      mount(
        table,
        rowsTable(
          rows,
          (row) => {
            opened = row
            openRow(application, context, row)
          },
          context.lockTable(null),
        ),
      )
      mount(
        pager,
        h(
          'button',
          {
            disabled: skip === 0,
            onclick: () => {
              skip = Math.max(0, skip - PAGE_SIZE)
              load()
            },
          },
          'Previous',
        ),
        h('span', {}, total === 0 ? ' no rows ' : ` rows ${skip + 1}–${skip + rows.length} of ${total} `),
        h(
          'button',
          {
            disabled: skip + PAGE_SIZE >= total,
            onclick: () => {
              skip += PAGE_SIZE
              load()
            },
          },
          'Next',
        ),
      )
    } catch (error) {
      // A filter the mock refuses: its own message, beside the box.
      mount(message, inline(error))
    }
  }
  // Locks a row as another user would hold it (or lets it go), then shows the tables again.
  const toggleLock = async (relationKey, row, lock) => {
    try {
      const answer = await control(lock ? 'POST' : 'DELETE', 'locks', {
        applicationId: application.id,
        ...(relationKey === null ? {} : { relationKey }),
        ids: [row.Id],
      })
      locks.replace(answer.locks)
      await load()
      if (opened !== null) await openRow(application, context, opened, { focus: false })
    } catch (error) {
      mount(message, inline(error))
    }
  }
  mount(
    body,
    h('h2', {}, application.name),
    h('p', { class: 'muted' }, `Read through the API as ${session.user} (workspace ${workspaceId}).`),
    h(
      'form',
      {
        class: 'toolbar',
        onsubmit: (event) => {
          event.preventDefault()
          skip = 0
          load()
        },
      },
      h('label', {}, '$filter ', filterInput),
      h('button', { type: 'submit' }, 'Apply'),
    ),
    message,
    table,
    pager,
    h('div', { id: 'row' }),
  )
  await load()
}

const LOCKED_TITLE = 'Locked, as if another user had it open: a save or delete touching it is refused (LockedItems)'

/**
 * Rows as a table, each opening with a click or Enter when `onOpen` is given. With `locks`, a
 * locked row is marked, and with `locks.toggle` each row has a Lock / Unlock button.
 */
function rowsTable(rows, onOpen, locks) {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No rows.')
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))]
  const locked = (row) => locks?.locked(row.Id) ?? false
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        locks ? h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Lock')) : null,
        columns.map((column) => h('th', { scope: 'col' }, column)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {
            ...(onOpen
              ? {
                  tabindex: 0,
                  class: 'link',
                  onclick: () => onOpen(row),
                  onkeydown: (event) => {
                    if (event.key === 'Enter' && event.target === event.currentTarget) onOpen(row)
                  },
                }
              : {}),
            'data-id': row.Id,
            'data-locked': locks ? String(locked(row)) : undefined,
          },
          locks
            ? h(
                'td',
                { class: 'lock-cell' },
                locked(row) ? h('span', { class: 'badge locked', title: LOCKED_TITLE }, 'locked') : null,
                locks.toggle
                  ? h(
                      'button',
                      {
                        class: 'lock-toggle',
                        'aria-label': `${locked(row) ? 'Unlock' : 'Lock'} row ${row.Id}`,
                        onclick: (event) => {
                          event.stopPropagation()
                          locks.toggle(row, !locked(row))
                        },
                        onkeydown: (event) => event.stopPropagation(),
                      },
                      locked(row) ? 'Unlock' : 'Lock',
                    )
                  : null,
              )
            : null,
          columns.map((column) => h('td', {}, row[column] === null || row[column] === undefined ? '' : String(row[column]))),
        ),
      ),
    ),
  )
}

async function openRow(application, context, row, { focus = true } = {}) {
  const target = view.querySelector('#row')
  mount(target, h('p', { class: 'muted' }, 'Loading…'))
  const lockedMaster = context.lockTable?.(null).locked(row.Id) ?? false
  const parts = [
    h('h2', {}, `${application.name} row ${row.Id}`, lockedMaster ? [' ', h('span', { class: 'badge locked', title: LOCKED_TITLE }, 'locked')] : null),
    h('p', {}, 'Row version: ', h('code', { class: 'row-version' }, String(row.TIMESTAMP ?? row.Timestamp ?? '(not shown)'))),
  ]
  for (const detail of application.details ?? []) {
    try {
      const lines = await api('POST', '/ExplorerApi/api/items', {
        ...context,
        json: {
          query: `$filter=${encodeURIComponent(`${detail.masterField} eq ${row.Id}`)}&$orderby=Id asc&relationKey=${encodeURIComponent(detail.relationKey)}`,
        },
      })
      parts.push(
        h(
          'section',
          { class: 'detail', 'data-relation': detail.relationKey },
          h('h3', {}, `${detail.relationKey} (${lines.length})`),
          rowsTable(lines, undefined, context.lockTable?.(detail.relationKey)),
        ),
      )
    } catch (error) {
      parts.push(h('h3', {}, detail.relationKey), inline(error))
    }
  }
  try {
    const files = await api('GET', `/ExplorerApi/api/attachments?$filter=${encodeURIComponent(`ParentId eq ${row.Id}`)}`, context)
    parts.push(
      h('h3', {}, `Attachments (${files.length})`),
      files.length === 0
        ? h('p', { class: 'empty' }, 'No attachments.')
        : h(
            'ul',
            {},
            files.map((file) =>
              h(
                'li',
                {},
                file.IsFolder
                  ? `${file.Name}/ (folder)`
                  : h(
                      'button',
                      {
                        class: 'linkish',
                        onclick: async () =>
                          download(file.Name, await api('POST', '/ExplorerApi/api/attachments/download', { ...context, json: { ids: [file.Id] } })),
                      },
                      file.Name,
                    ),
                h('span', { class: 'muted' }, ` ${file.TypeImage ?? ''} ${file.Description ?? ''}`),
              ),
            ),
          ),
    )
  } catch (error) {
    parts.push(h('h3', {}, 'Attachments'), inline(error))
  }
  mount(target, parts)
  if (!focus) return
  target.querySelector('h2').tabIndex = -1
  target.querySelector('h2').focus()
}

// ---------------------------------------------------------------- Outbox

async function outboxView(pane) {
  const { emails } = await control('GET', 'emails')
  mount(
    pane,
    h(
      'section',
      { 'aria-label': 'Outbox' },
      h(
        'div',
        { class: 'toolbar' },
        h('span', {}, `${emails.length} queued e-mail(s)`),
        h(
          'button',
          {
            onclick: async () => {
              await control('DELETE', 'emails')
              showTab('outbox')
            },
          },
          'Clear outbox',
        ),
      ),
      emails.length === 0
        ? h('p', { class: 'empty' }, 'No e-mails queued. Send Email puts them here.')
        : [...emails]
            .reverse()
            .map((email) =>
              h(
                'details',
                { class: 'entry email' },
                h(
                  'summary',
                  {},
                  h('strong', {}, email.subject ?? email.Subject ?? '(no subject)'),
                  h('span', { class: 'muted' }, ` to ${[].concat(email.to ?? email.To ?? []).join(', ')} ${email.queuedAt ?? ''}`),
                ),
                h('pre', {}, pretty(email)),
              ),
            ),
    ),
  )
}

// ---------------------------------------------------------------- Faults and clock

async function faultsView(pane) {
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
      const rules = edit(now.rules.filter((rule) => rule.remaining !== 0)).map(({ id, applied, remaining, ...rule }) => ({
        ...rule,
        ...(remaining === null ? {} : { times: remaining }),
      }))
      await control('POST', 'faults', { rules, seed: now.seed })
      showTab('faults')
    } catch (error) {
      mount(message, inline(error))
    }
  }
  const advance = h('input', { name: 'advanceSeconds', type: 'number', min: 0, value: 60, size: 8 })
  const operationIds = (await apiOperationIds().catch(() => [])).map((id) => h('option', { value: id }))
  mount(
    pane,
    h(
      'section',
      { 'aria-label': 'Faults' },
      h('h2', {}, 'Faults'),
      faults.rules.length === 0
        ? h('p', { class: 'empty' }, 'No fault rules: every request is answered normally.')
        : h(
            'table',
            { class: 'faults' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Operation', 'Effect', 'Rate', 'Remaining', 'Applied', ''].map((t) => h('th', { scope: 'col' }, t)),
              ),
            ),
            h(
              'tbody',
              {},
              faults.rules.map((rule) =>
                h(
                  'tr',
                  {},
                  h('td', {}, rule.operationId),
                  h(
                    'td',
                    {},
                    [
                      rule.status ? `status ${rule.status}` : '',
                      rule.latencyMs ? `latency ${rule.latencyMs} ms` : '',
                      rule.drop ? 'drop' : '',
                      rule.commitThenDrop ? 'commit then drop' : '',
                    ]
                      .filter(Boolean)
                      .join(', '),
                  ),
                  h('td', {}, String(rule.rate)),
                  h('td', {}, rule.remaining === null ? 'always' : String(rule.remaining)),
                  h('td', {}, String(rule.applied)),
                  h(
                    'td',
                    {},
                    h(
                      'button',
                      {
                        'aria-label': `Remove fault ${rule.id} (${rule.operationId})`,
                        onclick: () => change((rules) => rules.filter((other) => other.id !== rule.id)),
                      },
                      'Remove',
                    ),
                  ),
                ),
              ),
            ),
          ),
      h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (event) => {
            event.preventDefault()
            const rule = { operationId: operation.value.trim() }
            if (status.value !== '') rule.status = Number(status.value)
            if (times.value !== '') rule.times = Number(times.value)
            if (latency.value !== '') rule.latencyMs = Number(latency.value)
            change((rules) => [...rules, { ...rule, id: 0, applied: 0, remaining: null }])
          },
        },
        h('label', {}, 'Operation ', operation),
        h('datalist', { id: 'fault-operations' }, operationIds),
        h('label', {}, 'Status ', status),
        h('label', {}, 'Times ', times),
        h('label', {}, 'Latency ms ', latency),
        h('button', { type: 'submit' }, 'Add fault'),
        h('button', { type: 'button', onclick: () => showTab('faults') }, 'Refresh'),
        faults.rules.length > 0
          ? h(
              'button',
              {
                type: 'button',
                onclick: async () => {
                  await control('DELETE', 'faults')
                  showTab('faults')
                },
              },
              'Remove all',
            )
          : null,
      ),
      message,
    ),
    h(
      'section',
      { 'aria-label': 'Clock' },
      h('h2', {}, 'Clock'),
      h(
        'p',
        {},
        "The mock's time: ",
        h('code', { id: 'clock-now' }, clock.now ?? pretty(clock)),
        clock.offsetMs ? h('span', { class: 'muted' }, ` (${clock.offsetMs} ms ahead)`) : null,
      ),
      h(
        'form',
        {
          class: 'toolbar',
          onsubmit: async (event) => {
            event.preventDefault()
            try {
              await control('POST', 'clock', { advanceSeconds: Number(advance.value) })
              showTab('faults')
            } catch (error) {
              mount(message, inline(error))
            }
          },
        },
        h('label', {}, 'Advance by seconds ', advance),
        h('button', { type: 'submit' }, 'Advance clock'),
      ),
    ),
  )
  operation.focus()
}

// ---------------------------------------------------------------- State

async function stateView(pane) {
  const message = h('div', { 'aria-live': 'polite' })
  const done = (text) => mount(message, h('p', { class: 'ok' }, text))
  const file = h('input', { type: 'file', name: 'fixture', accept: 'application/json,.json' })
  mount(
    pane,
    h(
      'section',
      { 'aria-label': 'State' },
      h('h2', {}, 'State'),
      h(
        'div',
        { class: 'toolbar' },
        h(
          'button',
          {
            id: 'reset',
            onclick: async () => {
              try {
                const result = await control('POST', 'reset')
                forgetSessions()
                done(`Reset: data back to the start fixture${result && typeof result === 'object' ? ` (${pretty(result).replace(/\s+/g, ' ')})` : ''}.`)
              } catch (error) {
                mount(message, inline(error))
              }
            },
          },
          'Reset',
        ),
        h(
          'button',
          {
            onclick: async () => {
              try {
                const state = await control('GET', 'state')
                download('appdata-kit-state.json', new Blob([`${JSON.stringify(state, null, 2)}\n`], { type: 'application/json' }))
                done("The current state is downloaded as a fixture (it holds the fixture users' passwords).")
              } catch (error) {
                mount(message, inline(error))
              }
            },
          },
          'Download state',
        ),
      ),
      h(
        'form',
        {
          class: 'toolbar',
          onsubmit: async (event) => {
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
          },
        },
        h('label', {}, 'Load a fixture file ', file),
        h('button', { type: 'submit' }, 'Load'),
      ),
      message,
    ),
  )
}

// ---------------------------------------------------------------- Coverage

/** The API's operationIds, from the document this mock serves. */
async function apiOperationIds() {
  const document = await fetch('/openapi.json').then((response) => response.json())
  const ids = Object.values(document.paths ?? {}).flatMap((item) => Object.values(item).map((operation) => operation?.operationId))
  return [...new Set(ids.filter(Boolean))].sort()
}

async function coverageView(pane) {
  let usage
  try {
    usage = await control('GET', 'usage')
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      mount(pane, h('p', { class: 'empty' }, 'This mock does not record usage. Start it with --record-usage FILE to see which operations your client used.'))
      return
    }
    throw error
  }
  const all = await apiOperationIds()
  const counts = new Map()
  for (const interaction of usage.interactions ?? []) counts.set(interaction.operation, (counts.get(interaction.operation) ?? 0) + (interaction.count ?? 1))
  const unused = all.filter((id) => !counts.has(id)).sort()
  mount(
    pane,
    h(
      'section',
      { 'aria-label': 'Coverage' },
      h('h2', {}, `Used (${counts.size})`),
      counts.size === 0
        ? h('p', { class: 'empty' }, 'No API request recorded yet.')
        : h(
            'ul',
            {},
            [...counts].sort().map(([id, count]) => h('li', {}, h('code', {}, id), ` ${count} request(s)`)),
          ),
      h('h2', {}, `Not used (${unused.length})`),
      h(
        'ul',
        {},
        unused.map((id) => h('li', {}, h('code', {}, id))),
      ),
    ),
  )
}

// ---------------------------------------------------------------- start

async function start() {
  tabs()
  control('GET', 'health').then(
    (health) => {
      document.getElementById('health').textContent = `appdata-kit ${health.version}, release ${health.productVersion}`
    },
    () => {},
  )
  window.addEventListener('hashchange', () => showTab(currentTab()))
  showTab(currentTab())
}

start()
