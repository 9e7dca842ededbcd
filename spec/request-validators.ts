import standaloneModule from 'ajv/dist/standalone/index.js'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import semver from 'semver'
import { checkedDocument } from '../src/document/modes.ts'
import { apiDocument, controlPlaneDocument, documentForVersion, listOperations, walk } from '../src/document/reader.ts'
import { documentAjv, documentDigest, PARTS, requestSchemas, schemaAtPointer } from '../src/document/validators.ts'
import { OWN_BODY_CHECK } from './control-plane/constants.ts'
import { gatherErrorsInPlace } from '../src/document/ajv-code.ts'
import { PRODUCT_VERSIONS } from './extensions.ts'
import { PROFILE_RELEASES } from './profiles.ts'

// ajv ships CommonJS; under NodeNext its default export types as the module object.
const standalone = standaloneModule as unknown as (ajv: Ajv2020, refs: Record<string, string>) => string

/** Where the precompiled request validators live, relative to the project. */
export const REQUEST_VALIDATORS_FILE = 'src/document/request-validators.generated.ts'

/** A document the mock checks requests against, and the operations whose handlers check their bodies themselves. */
interface ServedView {
  name: string
  document: OpenAPIObject
  skipBody: ReadonlySet<string>
}

/**
 * Releases that between them see every view of the document: the profiles' releases, then each
 * version an `x-product-versions` range starts or ends at (a view changes only there), so a range
 * added later does not leave the releases it splits off compiling at start.
 */
function releasesOf(document: OpenAPIObject): string[] {
  const bounds = new Set<string>()
  walk(document, '', (node) => {
    const range = node[PRODUCT_VERSIONS]
    if (typeof range !== 'string') return
    // `*` has no version of its own (an empty comparator): it splits nothing.
    for (const comparator of new semver.Range(range).set.flat()) if (comparator.value !== '') bounds.add(comparator.semver.version)
  })
  return [...new Set([...PROFILE_RELEASES, ...[...bounds].sort(semver.compare)])]
}

/**
 * Every document a mock asks request validators of at start: the API as each release sees it
 * (made as releaseDocument makes the mock's view; releases of one range share a view, kept once),
 * and the control plane's. Of the documents as spec/ builds them, or by default as the mock reads
 * them (the rendered files); the two give the same views, which the freshness test relies on.
 */
export function servedViews(
  documents: { api: OpenAPIObject; controlPlane: OpenAPIObject } = { api: apiDocument(), controlPlane: controlPlaneDocument() },
): ServedView[] {
  const checked = checkedDocument(documents.api)
  const views = new Map<string, ServedView>()
  for (const version of releasesOf(documents.api)) {
    const document = documentForVersion(checked, version)
    const digest = documentDigest(document)
    if (!views.has(digest)) views.set(digest, { name: `API document of release ${version}`, document, skipBody: new Set<string>() })
  }
  return [...views.values(), { name: 'control plane document', document: documents.controlPlane, skipBody: OWN_BODY_CHECK }]
}

/**
 * One document's request validators as a function that makes them: their code sits in a closure
 * per Ajv (coercing for parameters, strict for bodies, as at run time; each's names stand alone),
 * run only for the document a mock serves, so the others cost only their parse.
 */
function viewSource(view: ServedView): string {
  const coercing = documentAjv(view.document, true, { source: true })
  const strict = documentAjv(view.document, false, { source: true })
  const coercingRefs: Record<string, string> = {}
  const strictRefs: Record<string, string> = {}
  const parts: string[] = []
  const bodies = new Map<string, string>()
  for (const entry of listOperations(view.document)) {
    const schemas = requestSchemas(view.document, entry)
    const found: string[] = []
    for (const part of PARTS) {
      const schema = schemas.parts[part]
      if (schema === undefined) continue
      const name = `c${Object.keys(coercingRefs).length}`
      coercing.addSchema(schema, name)
      coercingRefs[name] = name
      found.push(`${part}: c.${name}`)
    }
    if (found.length > 0) parts.push(`      ${JSON.stringify(entry.pointer)}: { ${found.join(', ')} },`)
    const pointer = schemas.bodyPointer
    if (pointer !== undefined && !view.skipBody.has(entry.operationId) && !bodies.has(pointer)) {
      const name = `s${bodies.size}`
      strict.addSchema(schemaAtPointer(pointer), name)
      strictRefs[name] = name
      bodies.set(pointer, `      ${JSON.stringify(pointer)}: s.${name},`)
    }
  }
  const module = (ajv: Ajv2020, refs: Record<string, string>): string =>
    `((exports) => {\n${gatherErrorsInPlace(standalone(ajv, refs))}\nreturn exports\n})({})`
  return [
    `  // ${view.name}`,
    `  ${JSON.stringify(documentDigest(view.document))}: () => {`,
    `    const c = ${module(coercing, coercingRefs)}`,
    `    const s = ${module(strict, strictRefs)}`,
    '    return {',
    '      parts: {',
    ...parts.map((line) => `  ${line}`),
    '      },',
    '      bodies: {',
    ...[...bodies.values()].map((line) => `  ${line}`),
    '      },',
    '    }',
    '  },',
  ].join('\n')
}

/**
 * The request validators of every served document as standalone code (Ajv's standalone mode),
 * keyed by the document's digest, so the mock adds its routes without compiling them and a
 * document that changed since finds none and compiles its own. Written by `npm run spec`; a test
 * keeps it in step with the documents.
 */
export function requestValidatorsSource(views: ServedView[]): string {
  return [
    '// generated by npm run spec from the documents the mock serves (spec/request-validators.ts), do not edit',
    '// @ts-nocheck',
    // The generated code reaches Ajv's runtime helpers and ajv-formats through require, which an ES module makes for itself.
    "import { createRequire } from 'node:module'",
    'const require = createRequire(import.meta.url)',
    '',
    'type Validate = (data: unknown) => boolean',
    '',
    '/** Per document digest (documentDigest in validators.ts), what makes its request validators: by operation pointer and part, and by body schema pointer. */',
    'export const PRECOMPILED: Record<string, (() => { parts: Record<string, Record<string, Validate>>; bodies: Record<string, Validate> }) | undefined> = {',
    ...views.map(viewSource),
    '}',
    '',
  ].join('\n')
}
