/**
 * Names of the document's own extension fields. `spec/index.ts` re-exports them; they live here
 * so schema and path modules can use them without importing the document builder.
 */

/** Marks something the published description leaves open and the mock chose: `true`, or a short text naming the chosen part. */
export const MOCK_DEFINED = 'x-mock-defined'

/** The `x-mock-defined` text of a media type object whose label (not its schema) is the mock's choice. */
export const MEDIA_TYPE_MARK = 'media type'

/** Semver range of the product releases in which an operation, or a oneOf branch, exists. */
export const PRODUCT_VERSIONS = 'x-product-versions'

/**
 * On a response example: the name of the request example of the same operation that this is the
 * answer to, on a freshly started mock of each release the example applies to (its own
 * `x-product-versions`, else its operation's). For operations without a body, a request example
 * is the parameters' examples of that name. The test suite sends every request example and
 * compares the answer with the paired response example.
 */
export const REQUEST_EXAMPLE = 'x-request-example'

/**
 * On a response example, or a media type, of an attachment's content: the name of the default fixture's file whose
 * bytes it is (the package's fixtures/files/NAME). A name, not a reference, so the document stays self-contained wherever
 * it is written or served; the test suite compares it with what the mock sends.
 */
export const EXAMPLE_FILE = 'x-example-file'

/**
 * On a schema of the published document (which is the default, lenient mode's), or on a request body (sign-in's
 * `content`, which lists JSON beside the form only leniently): the keywords it has instead in strict mode (`--strict`), where the mock refuses what the published description does not promise.
 * `appdata-kit spec --strict` and a strict mock's /openapi.json apply them (src/document/modes.ts).
 */
export const STRICT_OVERLAY = 'x-mock-strict'
