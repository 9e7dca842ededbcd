/**
 * The one wait of the suite for something that has no event to await (a count a mock reports, a
 * file another process writes, a rule a request used up): it asks until the answer is yes, the
 * condition being the event, never the time that went by. Bounded in count, so a condition that
 * never comes fails the test naming what it waited for. Where there is an event (a process's
 * output, a socket's close, a journal entry), tests await it instead (`printed` in
 * test/cli/processes.ts); test/internals/sleeps.test.ts holds the suite to that.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, tries = 2000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`gave up waiting for ${what} (asked ${tries} times)`)
}
