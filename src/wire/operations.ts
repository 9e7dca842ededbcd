import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ApiOperations, BodyOf, OperationId, PathOf, QueryOf } from './operation-types.ts'

/** The operations' types (operation-types.ts), and the Fastify handlers typed with them. */
export type * from './operation-types.ts'

/** Fastify's route generics for operation `K`: its body, query and path parameters, as validated. */
export interface RouteOf<Ops, K extends keyof Ops> {
  Body: BodyOf<Ops, K>
  Querystring: QueryOf<Ops, K>
  Params: PathOf<Ops, K>
}

/** A handler of operation `K`: its request is typed with what the document says the operation takes. */
export type Handler<Ops, K extends keyof Ops> = (request: FastifyRequest<RouteOf<Ops, K>>, reply: FastifyReply) => Promise<unknown> | unknown

/** One handler per operation of a document, each typed for its own operation. */
export type Handlers<Ops> = { [K in keyof Ops]: Handler<Ops, K> }

/** A handler of an operation of the API document. */
export type OperationHandler<K extends OperationId> = Handler<ApiOperations, K>
