/**
 * End to end on the fake iTerm2 (real bash in PTYs), through the real MCP SDK client WITHOUT the
 * elicitation capability (approval.askIn 'auto', policy 'always'): the approval is asked in
 * iTerm2's own modal alert (`iterm2.alert` through InvokeFunctionRequest, answered by the fake as
 * iTerm2 does: the pressed button's index + 1000). "Allow once" types the command once; "Decline",
 * no answer (a later click included) and a buried session without a window send nothing, as the
 * fake's SendText ledger proves; the audit trail says where it was asked and who answered.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_APPROVAL_CONFIG } from "../../src/domain/ApprovalPolicy.js"
import { awaitAuditLines, expectNothingSent, expectRejected, runCommand } from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

const TIMEOUT_SECONDS = 2
let dir: string
let rig: FakeIterm2Rig
const auditPath = () => join(dir, "audit.jsonl")
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tp-e2e-alert-"))
  rig = await openFakeIterm2Rig({
    auditPath: auditPath(),
    config: {
      approval: { ...DEFAULT_APPROVAL_CONFIG, policy: "always", timeoutSeconds: TIMEOUT_SECONDS },
      audit: { enabled: true, maxBytes: 1 << 20 }
    }
  })
})

afterAll(async () => {
  await rig?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

describe("approvals asked in iTerm2's own alert (a client without elicitation, askIn auto)", () => {
  it("the alert on the session's window names who asks and the exact command; Allow once types it once", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ title: "alert-me" })
    const ran = runCommand(mcp, { session_id: s.sessionId, command: 'echo "allowed \\(x)" \u0430' })
    const alert = await world.alerts.next()
    expect(alert.title).toBe("TermPilot asks for your approval")
    expect(alert.buttons).toEqual(["Decline", "Allow once"])
    expect(alert.windowId).toBe(s.windowId)
    expect(alert.subtitle).toContain('The MCP client "termpilot-test-client" asks, through TermPilot:')
    expect(alert.subtitle).toContain('»echo "allowed \\(x)" <U+0430>«')
    expect(alert.subtitle).toContain("U+0430 at position 20")
    expect(alert.subtitle).toContain(`session_id ${JSON.stringify(s.sessionId)}`)
    const before = world.ledger.size
    alert.press("Allow once")
    const result = await ran
    expect(result.data).toMatchObject({ status: "completed", exit_code: 0, sent: true })
    expect(result.data.output).toBe("allowed \\(x) \u0430")
    expect(
      world.ledger
        .forSession(s.sessionId)
        .slice(-1)
        .map((e) => e.text)
    ).toEqual(['echo "allowed \\(x)" \u0430\r'])
    expect(world.ledger.size).toBe(before + 1)
    const [line] = await awaitAuditLines(auditPath(), String(result.data.request_id), 2)
    expect(line).toMatchObject({
      kind: "approval",
      outcome: "accepted",
      asked_in: "terminal",
      answered_by: `iTerm2 alert in window ${s.windowId}`
    })
  })

  it("Decline: declined_by_user, nothing typed", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    const ran = await expectNothingSent(world, async () => {
      const pending = runCommand(mcp, { session_id: s.sessionId, command: "echo declined" })
      ;(await world.alerts.next()).press("Decline")
      return pending
    })
    expectRejected(ran, "declined_by_user")
  })

  it("no answer: approval_timed_out, nothing typed; a click afterwards types nothing either", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow()
    let alert: Awaited<ReturnType<typeof world.alerts.next>> | undefined
    const ran = await expectNothingSent(world, async () => {
      const pending = runCommand(mcp, { session_id: s.sessionId, command: "echo too-late" })
      alert = await world.alerts.next()
      return pending
    })
    expectRejected(ran, "approval_timed_out")
    // No API closes an alert: it is still shown; the person's late click answers nothing.
    expect(alert?.shown).toBe(true)
    await expectNothingSent(world, async () => {
      alert?.press("Allow once")
      await sleep(500)
    })
  })

  it("a buried session (no window to attach the alert to): approval_unavailable, nothing shown or typed", async () => {
    const { world, mcp } = rig
    const s = await world.createBuriedSession()
    const shown = world.alerts.shown.length
    const ran = await expectNothingSent(world, () =>
      runCommand(mcp, { session_id: s.sessionId, command: "echo buried" })
    )
    expectRejected(ran, "approval_unavailable")
    expect(ran.data.message).toContain("no iTerm2 window shows it")
    expect(world.alerts.shown.length).toBe(shown)
  })
})
