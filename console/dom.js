// A few lines of DOM building, so the views read as the markup they make. Text is always set as
// text (never as HTML), so nothing a request carried can run in the page.

/** h('button', { onclick, class: 'x' }, 'text', child): an element with attributes, handlers and children. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value)
    else if (name === 'value') element.value = value
    else if (name === 'checked') element.checked = value
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  append(element, children)
  return element
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    element.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

/** Replaces the children of an element. */
export function mount(element, ...children) {
  element.replaceChildren()
  append(element, children)
  return element
}

/** A value as indented JSON (texts as they are). */
export function pretty(value) {
  if (value === undefined || value === null) return '(none)'
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}

/** A problem or an error as one line for an error banner. */
export function errorText(error) {
  if (error && typeof error === 'object' && 'detail' in error) return `${error.code ?? error.title ?? 'error'}: ${error.detail}`
  return error instanceof Error ? error.message : String(error)
}

/** Offers bytes as a file download (an anchor with `download`, clicked, then released). */
export function download(name, blob) {
  const url = URL.createObjectURL(blob)
  const anchor = h('a', { href: url, download: name })
  document.body.append(anchor)
  anchor.click()
  anchor.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
