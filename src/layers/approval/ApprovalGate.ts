/**
 * ApprovalGate — the step before anything is typed that asks the person when the approval policy
 * says so: look the session up (for the protected check and the dialog), ask where `askIn` says
 * (AskPerson.ts: the call's Approver, i.e. the client's elicitation dialog, or the person's own
 * terminal) bounded by the approval timeout — not by the call deadline — with progress going on
 * and the client's cancel ending the wait, and audit the outcome, where it was asked and who answered. It only says whether to go on:
 * the caller's own re-verification and send come after an accept. Fails closed: anything but an
 * accept is a refusal, nothing sent.
 */
import { hostname } from "node:os"
import { Clock, Duration, Effect, Option, Result } from "effect"
import {
  type ApprovalAction,
  approvalReason,
  askWhere,
  DEFAULT_APPROVAL_CONFIG,
  mayNeedApproval
} from "../../domain/ApprovalPolicy.js"
import { approvalMessage, nameNonAscii } from "../../domain/ApprovalPrompt.js"
import { fail, type TermPilotError } from "../../domain/Errors.js"
import type { SessionInfo } from "../../domain/Session.js"
import { firstMatch } from "../../domain/SessionPolicy.js"
import { Approver } from "../../services/Approver.js"
import { type ApprovalOutcome, AuditLog } from "../../services/AuditLog.js"
import { waitForCommand } from "../../services/CallWaits.js"
import type { Terminal } from "../../services/Terminal.js"
import { currentToolSettings } from "../../services/ToolSettings.js"
import { subject } from "../config/SessionPolicyLive.js"
import { askInClient, askInTerminal } from "./AskPerson.js"

export interface GateRequest {
  readonly action: ApprovalAction
  /** The request the approval is for (named in progress reports and the audit line). */
  readonly requestId: string
  readonly sessionId: string
  /** What the action is called in the dialog ("Command", "Keys", "Interrupt"). */
  readonly label: string
  /** The action exactly as it will be sent (or in readable form, for keys). */
  readonly shown: string
  /** What will happen on accept. */
  readonly effect: string
  /** Refuse without asking when the session is not at an empty prompt (run_command). */
  readonly needsReady: boolean
}

/** Go on (approved or not needed), refused (nothing sent), or the client cancelled the call. */
export type GateVerdict =
  | { readonly _tag: "Go" }
  | { readonly _tag: "Refused"; readonly error: TermPilotError }
  | { readonly _tag: "Cancelled" }

const GO: GateVerdict = { _tag: "Go" }
const refused = (error: TermPilotError): GateVerdict => ({ _tag: "Refused", error })

const ASK_HINT =
  'or let the user answer in their own terminal (approval.askIn "auto" or "terminal", with their tmux client attached)'
const SETTING_HINT = `Change the approval setting (--approval, TERMPILOT_APPROVAL or "approval": {"policy": …} in the config file), use an MCP client that supports elicitation, ${ASK_HINT}.`
const KEYS_HINT = `send_keys always asks: use an MCP client that supports elicitation, ${ASK_HINT}, or (unsafe) set "approval": {"sendKeysWithoutApproval": true} in the config file.`

const protectedBy = (matchers: Parameters<typeof firstMatch>[0] | undefined, session: SessionInfo) =>
  matchers === undefined ? undefined : firstMatch(matchers, subject(session))

/** The refusal for each outcome other than an accept. */
const NOUNS = { run_command: "command", interrupt_command: "interrupt", send_keys: "keystroke" } as const

const refusal = (outcome: ApprovalOutcome, request: GateRequest, why: string): TermPilotError => {
  const target = `session '${request.sessionId}'`
  const noun = NOUNS[request.action.tool]
  switch (outcome) {
    case "declined":
      return fail(
        "declined_by_user",
        `The user declined this ${noun} for ${target}; nothing was sent. Do not retry it unless the user asks again.`
      )
    case "dismissed":
    case "timed_out":
      return fail(
        "approval_timed_out",
        `The user did not approve this ${noun} for ${target} (${why}); nothing was sent.`
      )
    case "input_required":
      // Never shown to the client (it gets the input_required result instead): the audit trail's and
      // the kept result's word for this round.
      return fail(
        "approval_unavailable",
        `This ${noun} for ${target} waits for the user's approval, asked in an input_required result (MCP 2026-07-28); nothing was sent in this round. The client's retry carries the answer.`
      )
    default:
      return fail(
        "approval_unavailable",
        `This ${noun} for ${target} needs the user's approval, but ${why}; nothing was sent. ${request.action.tool === "send_keys" ? KEYS_HINT : SETTING_HINT}`
      )
  }
}

export const approvalGate = (
  terminal: Terminal["Service"],
  request: GateRequest
): Effect.Effect<GateVerdict> =>
  Effect.gen(function* () {
    const settings = yield* currentToolSettings
    const config = settings.approval ?? DEFAULT_APPROVAL_CONFIG
    if (!mayNeedApproval(config, request.action)) return GO
    const looked = yield* Effect.result(
      terminal.getSession(request.sessionId).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(settings.deadlineMs),
          orElse: () =>
            Effect.fail(
              fail(
                "session_not_found",
                `Session '${request.sessionId}' could not be looked up in time; nothing was sent.`
              )
            )
        })
      )
    )
    if (Result.isFailure(looked)) return refused(looked.failure)
    const session = looked.success
    const reason = approvalReason(config, request.action, protectedBy(config.protectedSessions, session))
    if (reason === undefined) return GO
    if (request.needsReady && session.execution_readiness !== "ready") {
      return refused(
        fail(
          "session_not_ready",
          `Session '${request.sessionId}' is not at an empty shell prompt (execution_readiness '${session.execution_readiness}'); TermPilot did not ask for approval and sent nothing.`
        )
      )
    }
    const started = yield* Clock.currentTimeMillis
    const approver = yield* Effect.serviceOption(Approver)
    const client = Option.match(approver, { onNone: () => null, onSome: (a) => a.clientName })
    const clientCanAsk = Option.isSome(approver) && approver.value.supported
    const askedIn = askWhere(config.askIn, clientCanAsk)
    const audit = (outcome: ApprovalOutcome, answeredBy: string | null = null) =>
      Effect.gen(function* () {
        const log = yield* Effect.serviceOption(AuditLog)
        if (Option.isNone(log)) return
        const waitedMs = (yield* Clock.currentTimeMillis) - started
        const { tool } = request.action
        const { requestId, sessionId, shown } = request
        yield* log.value.record({
          _tag: "Approval",
          ...{ tool, requestId, sessionId, shown, reason, outcome, client, waitedMs, askedIn, answeredBy }
        })
      })
    const end = (outcome: ApprovalOutcome, why: string, answeredBy: string | null = null) =>
      Effect.as(audit(outcome, answeredBy), refused(refusal(outcome, request, why)))

    const name = client === null ? "the MCP client" : `the MCP client ${JSON.stringify(client)}`
    if (askedIn === "client" && !clientCanAsk) {
      return yield* end(
        "unavailable",
        `${name} did not declare the elicitation capability, so TermPilot cannot ask (approval.askIn is 'client')`
      )
    }
    const spec = {
      label: request.label,
      shown: request.shown,
      effect: request.effect,
      reason,
      target: session,
      localHost: hostname(),
      timeoutSeconds: config.timeoutSeconds
    }
    const asking =
      askedIn === "client" && Option.isSome(approver)
        ? askInClient(approver.value, approvalMessage(spec))
        : askInTerminal(terminal, request.sessionId, client, approvalMessage(spec, nameNonAscii))
    const waited = yield* waitForCommand({
      requestId: request.requestId,
      until: asking,
      timeoutMs: config.timeoutSeconds * 1000,
      outputLines: Effect.succeed(null),
      awaiting: "approval"
    })
    switch (waited._tag) {
      case "Cancelled":
        return yield* Effect.as(audit("call_cancelled"), { _tag: "Cancelled" } as const)
      case "TimedOut":
        return yield* end("timed_out", `no answer within ${config.timeoutSeconds} s`)
      case "Done": {
        const asked = waited.value
        if (Result.isFailure(asked)) {
          if (asked.failure.inputRequired) return yield* end("input_required", asked.failure.reason)
          const noDialog = config.askIn === "auto" ? `${name} has no approval dialog (elicitation), and ` : ""
          return yield* end("unavailable", `${noDialog}${asked.failure.reason}`)
        }
        const { answer, answeredBy } = asked.success
        if (answer === "accept") return yield* Effect.as(audit("accepted", answeredBy), GO)
        if (answer === "decline") return yield* end("declined", "declined", answeredBy)
        if (answer === "expired")
          return yield* end(
            "timed_out",
            `the answer came after the ${config.timeoutSeconds} s approval timeout`,
            answeredBy
          )
        return yield* end("dismissed", "the dialog was dismissed without an answer", answeredBy)
      }
    }
  })
