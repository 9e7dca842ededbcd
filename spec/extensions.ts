/**
 * Names of the document's own extension fields. `spec/index.ts` re-exports them; they live here
 * so schema and path modules can use them without importing the document builder.
 */

/** Marks something the published description leaves open and the mock chose: `true`, or a short text naming the chosen part. */
export const MOCK_DEFINED = 'x-mock-defined'

/** Semver range of the product releases in which an operation, or a oneOf branch, exists. */
export const PRODUCT_VERSIONS = 'x-product-versions'
