/** What every module under spec/control-plane/paths exports. */
import type { OperationObject } from 'openapi3-ts/oas31'

/** Like spec/paths' OperationModule, with `delete`, which the clearing calls use. */
export interface ControlOperationModule {
  path: string
  method: 'get' | 'post' | 'delete'
  operation: OperationObject
}
