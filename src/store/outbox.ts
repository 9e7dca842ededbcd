/** An e-mail the mock accepted into its queue; nothing is ever sent. */
export interface QueuedEmail {
  id: number
  queuedAt: string
  workspaceId: string
  /** The configured provider used: the one named in the request, or the default. */
  providerId: string
  from: string
  to: string[]
  subject: string
  body: string
}

/** The e-mail outbox: what clients queued, readable and clearable through the control plane. */
export interface Outbox {
  add(mail: Omit<QueuedEmail, 'id'>): QueuedEmail
  list(): readonly QueuedEmail[]
  clear(): number
}

// Bounded so a client that queues mail in a loop cannot grow the mock without limit; oldest go first.
const MAX_MAILS = 10_000

export function createOutbox(): Outbox {
  let mails: QueuedEmail[] = []
  let nextId = 1
  return {
    add(mail) {
      const queued = { id: nextId++, ...mail }
      mails.push(queued)
      if (mails.length > MAX_MAILS) mails = mails.slice(-MAX_MAILS)
      return queued
    },
    list: () => mails,
    clear() {
      const count = mails.length
      mails = []
      return count
    },
  }
}
