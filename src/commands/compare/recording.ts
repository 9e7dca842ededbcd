import type { Transport, WireResponse } from '../../wire/transport.ts'

/** One request of a run and what came back, with the part of the run it belongs to. */
export interface Exchange {
  /** The contract that sent it (`cleanup` for the removal of the run's rows). */
  part: string
  method: string
  path: string
  status: number
  contentType: string
  body: Uint8Array
  /** What was sent besides the request line, for reports that show the exchange (`verify --html`); secrets are masked there. */
  requestHeaders?: Record<string, string>
  requestBody?: string | Uint8Array
}

/**
 * A transport that remembers every exchange, labelled with the part of the run under way
 * (`recording.part = 'save.stale-refused'` before a contract starts). Requests that get no
 * answer are remembered with status 0.
 */
export function recordingTransport(inner: Transport): Transport & { exchanges: Exchange[]; part: string } {
  const recording = {
    exchanges: [] as Exchange[],
    part: 'start',
    target: inner.target,
    close: () => inner.close(),
    async send(request: Parameters<Transport['send']>[0]): Promise<WireResponse> {
      const part = recording.part
      const remember = (status: number, contentType: string, body: Uint8Array) =>
        recording.exchanges.push({
          part,
          method: request.method,
          path: request.path,
          status,
          contentType,
          body,
          ...(request.headers === undefined ? {} : { requestHeaders: request.headers }),
          ...(request.body === undefined ? {} : { requestBody: request.body }),
        })
      try {
        const response = await inner.send(request)
        remember(response.status, response.headers['content-type'] ?? '', response.body)
        return response
      } catch (error) {
        remember(0, '', new Uint8Array(0))
        throw error
      }
    },
  }
  return recording
}
