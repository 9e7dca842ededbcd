/** The fixed seed of `npm test`'s property tests; any change to it is a change of the suite. */
const FIXED_SEED = 20_261_122

const fuzzing = process.env.FUZZ === '1'

/** The seed every property starts from: `FC_SEED`, else random when fuzzing, else the fixed one. */
export const FUZZ_SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : fuzzing ? Math.floor(Math.random() * 2 ** 31) : FIXED_SEED

/** How many times the usual number of runs: `FUZZ_SCALE`, else 10 when fuzzing, else 1. */
export const FUZZ_SCALE = Math.max(1, Number(process.env.FUZZ_SCALE ?? (fuzzing ? 10 : 1)) || 1)

/** A property's number of runs, scaled for `npm run fuzz`. */
export function runs(base: number): number {
  return base * FUZZ_SCALE
}
