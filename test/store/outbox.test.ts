import { describe, expect, it } from 'vitest'
import { createOutbox, MAX_MAILS, MAX_OUTBOX_CHARS } from '../../src/store/outbox.ts'

/** The outbox keeps what a client queued, bounded in mails and in characters: the oldest leave first. */
describe('the outbox', () => {
  const mail = (subject: string, body = '') => ({
    queuedAt: '2026-11-01T09:00:00.000Z',
    workspaceId: 'w',
    providerId: 'p',
    from: 'f@x',
    to: ['a@x'],
    subject,
    body,
  })

  it(`keeps the last ${MAX_MAILS} mails`, () => {
    const outbox = createOutbox()
    for (let i = 0; i < MAX_MAILS + 5; i++) outbox.add(mail(`m${i}`))
    const kept = outbox.list()
    expect(kept).toHaveLength(MAX_MAILS)
    expect(kept[0]?.subject).toBe('m5')
    expect(kept.at(-1)?.id).toBe(MAX_MAILS + 5)
  })

  it(`keeps at most ${MAX_OUTBOX_CHARS} characters of mail, the newest always`, () => {
    const outbox = createOutbox()
    const big = 'x'.repeat(MAX_OUTBOX_CHARS / 4)
    for (let i = 0; i < 6; i++) outbox.add(mail(`m${i}`, big))
    // Four of a quarter each, with their subjects and addresses, are past the bound: three are kept.
    expect(outbox.list().map((m) => m.subject)).toEqual(['m3', 'm4', 'm5'])
    const huge = outbox.add(mail('huge', 'y'.repeat(MAX_OUTBOX_CHARS + 1)))
    expect(outbox.list()).toEqual([huge])
    expect(outbox.clear()).toBe(1)
    outbox.add(mail('after', big))
    expect(outbox.list().map((m) => m.subject)).toEqual(['after'])
  })
})
