/**
 * The gateway statuses: answers that come from the infrastructure in front of an installation (a
 * reverse proxy, a load balancer, the web server's own error page), not from the API's logic.
 * The description shows no error status at all (Errors, 4), yet every client of a real
 * installation meets these, so the project treats them as one list everywhere:
 * - fault rules and answer rules may give them on any operation without `offDocument`, with an
 *   `INFRASTRUCTURE_ANSWER` warning;
 * - the proxy reports them on an installation's answer as warnings, not violations.
 */
export const GATEWAY_STATUSES: readonly number[] = Object.freeze([500, 502, 503, 504])

const gateway = new Set(GATEWAY_STATUSES)

/** Whether `status` is one the infrastructure may answer on any operation. */
export function isGatewayStatus(status: number): boolean {
  return gateway.has(status)
}
