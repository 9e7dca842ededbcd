/**
 * The response header by which the mock names itself and the release it emulates. Real
 * installations do not send it; `verify` reads it to know it may also check the mock's own
 * choices (the parts of the document marked `x-mock-defined`).
 */
export const MOCK_HEADER = 'x-appdata-kit-mock'
