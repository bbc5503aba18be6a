/**
 * Approval — `Terminal.askApproval` over tmux: a `display-menu` (src/domain/tmux/ApprovalMenu.ts)
 * on the person's own attached client that shows the pane (never a control client: TermPilot's
 * own are), run by a separate `tmux source-file -` client whose script arrives on its stdin, so
 * neither the menu's text nor its secret channel is in any process's arguments, and TermPilot's
 * control clients, whose command queues a menu would block, are never used for it. That client
 * exits 0 only when the person chose "Allow once"; any other closing of the menu (`n`, Escape, a
 * click outside) is a decline. Interrupted (the approval timeout, the call cancelled), the menu is
 * withdrawn with `display-popup -C` on that client and the script's client is ended: its unlock
 * then fails, so a late key answers nothing. One prompt at a time per process (tmux shows one
 * menu per client); a menu tmux did not show (the client has another menu or popup open: tmux then
 * returns at once) ends sooner than any person answers, and is reported as not asked.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { Effect, Semaphore } from "effect"
import { MAX_APPROVAL_TIMEOUT_SECONDS } from "../../../domain/ApprovalPolicy.js"
import {
  APPROVAL_CLIENTS_LINE,
  approvalPaneLine,
  approvalScript,
  chooseClient,
  parseApprovalPane,
  tmuxQuoted
} from "../../../domain/tmux/ApprovalMenu.js"
import { fail, sessionNotFound, type TermPilotError } from "../../../services/Errors.js"
import type { TerminalApprovalAnswer, TerminalApprovalRequest } from "../../../services/Terminal.js"
import { type ControlClient, childEnv } from "./Connection.js"
import type { TmuxRegistry } from "./Registry.js"
import type { TmuxServer } from "./Server.js"

/** How long the script's client may take to end once the menu is withdrawn, before it is killed. */
const WITHDRAW_GRACE_MS = 2_000
/** The script's client never outlives the longest approval timeout. */
const HARD_LIMIT_MS = (MAX_APPROVAL_TIMEOUT_SECONDS + 60) * 1000
const STDERR_KEPT = 2_000
/**
 * A menu that ends without an allow sooner than this after its script started was not shown (tmux
 * shows no menu on a client that has one open, and goes on at once): no person reads and answers
 * that fast.
 */
const NOT_SHOWN_MS = 150

const unavailable = (sessionId: string, why: string): TermPilotError =>
  fail("approval_unavailable", `TermPilot cannot ask in the terminal of session '${sessionId}': ${why}.`)

/** Runs `script` on a `tmux source-file -` client; its exit: 0 allowed, 1 with "not locked" declined. */
const runScript = (
  server: TmuxServer,
  control: ControlClient,
  tty: string,
  script: string,
  sessionId: string
): Effect.Effect<"accept" | "decline", TermPilotError> =>
  Effect.callback((resume) => {
    const { file, args } = server.transport.command(["source-file", "-"])
    const child = spawn(file, [...args], { stdio: ["pipe", "ignore", "pipe"], env: childEnv() })
    let stderr = ""
    let exited = false
    const started = Date.now()
    const hard = setTimeout(() => child.kill("SIGKILL"), HARD_LIMIT_MS)
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_KEPT)
    })
    child.stdin.on("error", () => undefined)
    child.once("error", (e) => {
      exited = true
      clearTimeout(hard)
      resume(Effect.fail(unavailable(sessionId, `tmux could not be started (${e.message})`)))
    })
    child.once("close", (code) => {
      exited = true
      clearTimeout(hard)
      const declined = code === 1 && /not locked/.test(stderr)
      if (code === 0) resume(Effect.succeed("accept"))
      else if (declined && Date.now() - started < NOT_SHOWN_MS)
        resume(
          Effect.fail(
            unavailable(
              sessionId,
              "tmux did not show the prompt: another menu or popup is open on the person's tmux client"
            )
          )
        )
      else if (declined) resume(Effect.succeed("decline"))
      else
        resume(
          Effect.fail(
            unavailable(sessionId, `tmux did not show the prompt (${stderr.trim() || `exit ${code}`})`)
          )
        )
    })
    child.stdin.end(script)
    // Interrupted: withdraw the menu from the person's screen, then end the script's client.
    return Effect.promise(
      () =>
        new Promise<void>((done) => {
          if (exited) return done()
          const kill = setTimeout(() => child.kill("SIGKILL"), WITHDRAW_GRACE_MS)
          child.once("close", () => {
            clearTimeout(kill)
            done()
          })
          control.request([`display-popup -C -c ${tmuxQuoted(tty)}`], false, [() => undefined])
        })
    )
  })

export const makeTmuxApproval = (registry: TmuxRegistry) => {
  const oneAtATime = Semaphore.makeUnsafe(1)
  return (
    sessionId: string,
    request: TerminalApprovalRequest
  ): Effect.Effect<TerminalApprovalAnswer, TermPilotError> =>
    Effect.gen(function* () {
      const { server, pane } = yield* registry.resolve(sessionId)
      const control = yield* server.clientFor(pane)
      const [described, clients] = yield* control.commands([approvalPaneLine(pane), APPROVAL_CLIENTS_LINE])
      const target = described?.ok === true ? parseApprovalPane(pane, described.lines[0] ?? "") : null
      if (target === null) return yield* sessionNotFound(sessionId)
      const client = clients?.ok === true ? chooseClient(clients.lines, target) : null
      if (client === null)
        return yield* unavailable(
          sessionId,
          "no person's tmux client is attached to its server (TermPilot's own clients cannot answer)"
        )
      const channel = `termpilot-approval-${randomBytes(16).toString("hex")}`
      const built = approvalScript({ ...request, pane, target, client, channel })
      if ("tooSmall" in built)
        return yield* unavailable(sessionId, `the prompt does not fit: ${built.tooSmall}`)
      const answer = yield* runScript(server, control, client.tty, built.script, sessionId)
      return { answer, answeredBy: `tmux client ${client.tty}` }
    }).pipe(oneAtATime.withPermits(1), Effect.withSpan("TmuxTerminal.askApproval"))
}
