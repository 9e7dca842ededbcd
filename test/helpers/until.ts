/**
 * Waiting for something the mock does to have happened (a request held, a rule hit), by asking
 * until it says so: the condition is the event, never the time that went by. Bounded in count, so
 * a condition that never comes fails the test naming what it waited for.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, tries = 2000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`gave up waiting for ${what} (asked ${tries} times)`)
}
