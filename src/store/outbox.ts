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

// Bounded so a client that queues mail in a loop cannot grow the mock without limit, in mails and in
// characters (a mail may be as large as a request body, 60 MB); the oldest go first.
export const MAX_MAILS = 10_000
export const MAX_OUTBOX_CHARS = 64 * 1024 * 1024

/** What a mail costs the outbox: its texts' characters. */
function charsOf(mail: QueuedEmail): number {
  let chars = mail.subject.length + mail.body.length + mail.from.length
  for (const address of mail.to) chars += address.length
  return chars
}

export function createOutbox(): Outbox {
  let mails: QueuedEmail[] = []
  let chars = 0
  let nextId = 1
  return {
    add(mail) {
      const queued = { id: nextId++, ...mail }
      mails.push(queued)
      chars += charsOf(queued)
      // The newest is always kept, whatever its size; the oldest leave until both bounds hold.
      let drop = 0
      while (mails.length - drop > 1 && (mails.length - drop > MAX_MAILS || chars > MAX_OUTBOX_CHARS)) chars -= charsOf(mails[drop++] as QueuedEmail)
      if (drop > 0) mails = mails.slice(drop)
      return queued
    },
    list: () => mails,
    clear() {
      const count = mails.length
      mails = []
      chars = 0
      return count
    },
  }
}
