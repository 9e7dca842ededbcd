/** `npm run audit`: writes contracts/AUDIT.md from the audit's statements and the contracts' metadata. */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderAudit } from './audit.ts'
import { CONTRACTS } from './index.ts'

export const AUDIT_FILE = fileURLToPath(new URL('./AUDIT.md', import.meta.url))

writeFileSync(AUDIT_FILE, renderAudit(CONTRACTS))
