/**
 * The typed errors of every contract: the stable error codes and `TermPilotError`, defined with
 * the pure rules in src/domain/Errors.ts (the domain reports them too) and re-exported here, so a
 * contract and its callers name them from one place.
 */
export {
  deadlineExceeded,
  ErrorCode,
  fail,
  outcomeUnknown,
  type SendError,
  SendOutcomeUnknown,
  sessionClaimed,
  sessionHostsClient,
  sessionNotFound,
  TermPilotError
} from "../domain/Errors.js"
