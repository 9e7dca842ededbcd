import type { operations as ApiOperations } from '../../spec/wire/api.ts'
import type { operations as ControlOperations } from '../../spec/wire/control-plane.ts'

/**
 * The request and answer types of each operation, read from the types `npm run spec` generates
 * from the documents (spec/wire/). Handlers, the client and the contracts take their shapes from
 * here, so none of them repeats a schema. Nothing here names Fastify's or Node's types: the client's
 * public types are built from these (the handlers' types are in operations.ts).
 */

export type { ApiOperations, ControlOperations }
export type { components as ApiComponents } from '../../spec/wire/api.ts'

type Content<T> = T extends { content: infer C } ? C[keyof C] : undefined
type Part<T, P extends string> = T extends { parameters: infer Params } ? (P extends keyof Params ? NonNullable<Params[P]> : never) : never
type OrEmpty<T> = [T] extends [never] ? Record<string, never> : T

/** The request body of operation `K` of an operations map (undefined when it takes none). */
export type BodyOf<Ops, K extends keyof Ops> = Ops[K] extends { requestBody: infer B }
  ? Content<B>
  : Ops[K] extends { requestBody?: infer B }
    ? Content<NonNullable<B>> | undefined
    : undefined

/** The query parameters of operation `K`. */
export type QueryOf<Ops, K extends keyof Ops> = OrEmpty<Part<Ops[K], 'query'>>

/** The path parameters of operation `K`. */
export type PathOf<Ops, K extends keyof Ops> = OrEmpty<Part<Ops[K], 'path'>>

/** The body of operation `K`'s answer with status `S` (200 by default). */
export type ResultOf<Ops, K extends keyof Ops, S extends number = 200> = Ops[K] extends { responses: infer R }
  ? S extends keyof R
    ? Content<R[S]>
    : never
  : never

export type OperationId = keyof ApiOperations & string
/** What operation `K` of the API answers with status `S`. */
export type ApiResult<K extends OperationId, S extends number = 200> = ResultOf<ApiOperations, K, S>
/** What operation `K` of the API takes as its body. */
export type ApiBody<K extends OperationId> = BodyOf<ApiOperations, K>
