/**
 * `--state-sync`: when the change log is flushed to the disk. `never`: written before each answer,
 * left to the operating system (survives a killed process); `always`: flushed before each answer
 * too, and the folder after each snapshot (survives a power loss). A file of its own, with no
 * import, since the mock's configuration (a public type) names it.
 */
/** The modes `--state-sync` takes. */
export const STATE_SYNC_MODES = ['never', 'always'] as const
/** One of STATE_SYNC_MODES. */
export type StateSync = (typeof STATE_SYNC_MODES)[number]
