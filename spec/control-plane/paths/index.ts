/** Every control-plane operation module, in the order the document lists them. */
import type { ControlOperationModule } from './common.ts'
import * as resetMock from './reset-mock.ts'
import * as loadFixture from './load-fixture.ts'
import * as exportState from './export-state.ts'
import * as uploadAttachments from './upload-attachments.ts'
import * as listEmails from './list-emails.ts'
import * as clearEmails from './clear-emails.ts'
import * as listRequests from './list-requests.ts'
import * as clearRequests from './clear-requests.ts'
import * as listNearMisses from './list-near-misses.ts'
import * as readUsage from './read-usage.ts'
import * as listFaults from './list-faults.ts'
import * as setFaults from './set-faults.ts'
import * as clearFaults from './clear-faults.ts'
import * as listStubs from './list-stubs.ts'
import * as addStub from './add-stub.ts'
import * as clearStubs from './clear-stubs.ts'
import * as removeStub from './remove-stub.ts'
import * as listLocks from './list-locks.ts'
import * as lockRows from './lock-rows.ts'
import * as unlockRows from './unlock-rows.ts'
import * as readClock from './read-clock.ts'
import * as advanceClock from './advance-clock.ts'
import * as getControlPlaneDocument from './get-control-plane-document.ts'
import * as getHealth from './get-health.ts'

export type { ControlOperationModule } from './common.ts'

export const operations: readonly ControlOperationModule[] = [
  resetMock,
  loadFixture,
  exportState,
  uploadAttachments,
  listEmails,
  clearEmails,
  listRequests,
  clearRequests,
  listNearMisses,
  readUsage,
  listFaults,
  setFaults,
  clearFaults,
  listStubs,
  addStub,
  clearStubs,
  removeStub,
  listLocks,
  lockRows,
  unlockRows,
  readClock,
  advanceClock,
  getControlPlaneDocument,
  getHealth,
]
