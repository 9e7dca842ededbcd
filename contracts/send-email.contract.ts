/** Send Email: queued with an empty 200, to the address --email-to names only. */
import type { Contract, ContractContext } from './types.ts'

export const queued: Contract = {
  id: 'email.queued',
  title: 'An e-mail is queued: 200 with an empty body',
  severity: 'medium',
  holdsTo: 'description',
  writes: true,
  needs: ['writes', 'email-to'],
  deviation: 'email-body',
  statements: ['email.queue', 'auth.bearer', 'versioning.email-path'],
  data: 'one e-mail to the --email-to address, without providerId',
  async run(ctx: ContractContext) {
    const answer = await ctx.client.call('sendEmail', {
      body: {
        to: [ctx.target.emailTo as string],
        subject: 'appdata-kit verify',
        body: 'A check of this installation by appdata-kit verify queued this e-mail.',
      },
    })
    ctx.check(answer.status === 200 && answer.raw.length === 0, {
      expected: '200 with an empty body',
      received: `${answer.status} with ${answer.raw.length} bytes`,
    })
  },
}

export const contracts = [queued]
