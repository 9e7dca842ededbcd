/**
 * Property tests run from one fixed seed in `npm test`, so a red run replays exactly, and from a
 * random one in `npm run fuzz` (FUZZ=1), which also multiplies the runs. fast-check prints the
 * seed and path of a failure; `FC_SEED=<seed> npm test` replays it. Loaded by vitest for every file.
 */
import fc from 'fast-check'
import { FUZZ_SCALE, FUZZ_SEED, runs } from './property-runs.ts'

fc.configureGlobal({ seed: FUZZ_SEED, numRuns: runs(100) })
if (process.env.FUZZ === '1')
  console.log(`fast-check seed ${FUZZ_SEED}, ${FUZZ_SCALE}x runs (replay: FC_SEED=${FUZZ_SEED} FUZZ_SCALE=${FUZZ_SCALE} npm run fuzz)`)

// verify draws its random inputs from --seed, else APPDATA_SEED, else a random one: tests that run
// it (in-process or as a process, which inherits the variable) draw from the same fixed seed.
process.env.APPDATA_SEED ??= String(FUZZ_SEED)
