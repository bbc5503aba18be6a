/**
 * End to end, the paths a user relies on every day: list_sessions over windows, tabs, split panes
 * and buried sessions; get_current_session following focus; read_terminal over screen and
 * scrollback with its bounds; run_command exit codes, the command's own output, tails, and cwd.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { hostname, tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  currentSession,
  listed,
  listSessions,
  numbered,
  readTerminal,
  runCommand
} from "../support/E2eHelpers.js"
import { type FakeIterm2Rig, openFakeIterm2Rig } from "../support/FakeIterm2Backend.js"

let rig: FakeIterm2Rig
let dirs: string

/** A fresh directory named `name` (the prompt shows `tp:<name>$` there). */
const dir = (name: string): string => {
  const path = join(dirs, name)
  mkdirSync(path)
  return path
}

beforeAll(async () => {
  dirs = mkdtempSync(join(tmpdir(), "tp-e2e-normal-"))
  rig = await openFakeIterm2Rig()
})

afterAll(async () => {
  await rig?.close()
  rmSync(dirs, { recursive: true, force: true })
})

describe("list_sessions and get_current_session", () => {
  it("lists every window, tab, split pane and buried session with exact ids, titles, cwd, tty and readiness", async () => {
    const { world, mcp } = rig
    const w1 = await world.createWindow({
      title: "alpha",
      cwd: dir("alpha"),
      windowTitle: "Main window",
      tabTitle: "Work tab"
    })
    const t2 = await world.createTab(w1.windowId!, { title: "beta", cwd: dir("beta") })
    const p3 = await world.splitPane(t2.sessionId, { title: "gamma", cwd: dir("gamma") })
    const w4 = await world.createWindow({ title: "delta", cwd: dir("delta") })
    const n5 = await world.createTab(w4.windowId!, { title: "plain", cwd: dir("plain"), integration: false })
    const b6 = await world.createBuriedSession({ title: "hidden", cwd: dir("hidden") })
    world.focus(p3.sessionId)

    const sessions = await listSessions(mcp)
    const created = [w1, t2, p3, w4, n5, b6]
    expect(sessions.map((s) => s.session_id).sort()).toEqual(created.map((c) => c.sessionId).sort())

    const expected = [
      { c: w1, title: "alpha", cwd: join(dirs, "alpha"), buried: false },
      { c: t2, title: "beta", cwd: join(dirs, "beta"), buried: false },
      { c: p3, title: "gamma", cwd: join(dirs, "gamma"), buried: false },
      { c: w4, title: "delta", cwd: join(dirs, "delta"), buried: false },
      { c: b6, title: "hidden", cwd: join(dirs, "hidden"), buried: true }
    ]
    for (const { c, title, cwd, buried } of expected) {
      const s = sessions.find((x) => x.session_id === c.sessionId)!
      expect(s).toMatchObject({
        backend: "iterm2",
        window_id: c.windowId,
        tab_id: c.tabId,
        session_title: title,
        cwd,
        tty: world.shell(c.sessionId).tty,
        hostname: hostname(),
        username: userInfo().username,
        buried,
        is_current: c === p3,
        execution_readiness: "ready"
      })
      expect(s.tty).toMatch(/^\/dev\/pts\/\d+$/)
    }
    // No shell integration: listed (iTerm2 still knows the shell's cwd), but never runnable.
    const plain = sessions.find((x) => x.session_id === n5.sessionId)!
    expect(plain).toMatchObject({
      window_id: w4.windowId,
      tab_id: n5.tabId,
      session_title: "plain",
      cwd: join(dirs, "plain"),
      tty: world.shell(n5.sessionId).tty,
      is_current: false,
      buried: false,
      execution_readiness: "shell_integration_required"
    })
    const main = sessions.find((x) => x.session_id === w1.sessionId)!
    expect(main).toMatchObject({ window_title: "Main window", tab_title: "Work tab" })
    const buried = sessions.find((x) => x.session_id === b6.sessionId)!
    expect(buried).toMatchObject({ window_number: null, window_title: null, tab_title: null })
    // Sessions of one window share its number; the two windows differ.
    const numberOf = (id: string) => sessions.find((x) => x.session_id === id)!.window_number
    expect(numberOf(t2.sessionId)).toBe(numberOf(w1.sessionId))
    expect(numberOf(p3.sessionId)).toBe(numberOf(w1.sessionId))
    expect(numberOf(n5.sessionId)).toBe(numberOf(w4.sessionId))
    expect(numberOf(w4.sessionId)).not.toBe(numberOf(w1.sessionId))
    expect(sessions.filter((s) => s.is_current)).toHaveLength(1)
  })

  it("get_current_session follows focus, and list_sessions agrees", async () => {
    const { world, mcp } = rig
    const a = await world.createWindow({ title: "focus-a", cwd: dir("focus-a") })
    const b = await world.createWindow({ title: "focus-b", cwd: dir("focus-b") })

    world.focus(a.sessionId)
    const first = await currentSession(mcp)
    expect(first.isError).toBe(false)
    expect(first.data).toMatchObject({
      session_id: a.sessionId,
      session_title: "focus-a",
      cwd: join(dirs, "focus-a"),
      is_current: true,
      execution_readiness: "ready"
    })

    world.focus(b.sessionId)
    const second = await currentSession(mcp)
    expect(second.data).toMatchObject({ session_id: b.sessionId, session_title: "focus-b", is_current: true })
    const sessions = await listSessions(mcp)
    expect(sessions.filter((s) => s.is_current).map((s) => s.session_id)).toEqual([b.sessionId])
    expect((await listed(mcp, a.sessionId)).is_current).toBe(false)
  })
})

describe("read_terminal", () => {
  it("reads screen and scrollback, newest lines kept within max_lines and max_chars", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ cwd: dir("read") }) // 30 rows: 80 lines scroll 50+ off
    await world.runAsUser(s.sessionId, "for i in $(seq 1 80); do echo scroll-$i; done")

    const all = await readTerminal(mcp, { session_id: s.sessionId, max_lines: 200 })
    expect(all.isError).toBe(false)
    const lines = all.data.content.split("\n")
    const first = lines.indexOf("scroll-1")
    expect(first).toBeGreaterThan(0)
    expect(lines.slice(first)).toEqual([...numbered("scroll-", 1, 80), "tp:read$"])
    expect(lines[first - 1]).toBe("tp:read$ for i in $(seq 1 80); do echo scroll-$i; done")
    expect(all.data).toMatchObject({
      session_id: s.sessionId,
      line_count: lines.length,
      truncated: false,
      execution_readiness: "ready"
    })
    expect(Date.parse(all.data.captured_at)).not.toBeNaN()

    const five = await readTerminal(mcp, { session_id: s.sessionId, max_lines: 5 })
    expect(five.data).toMatchObject({
      content: [...numbered("scroll-", 77, 80), "tp:read$"].join("\n"),
      line_count: 5,
      truncated: true
    })

    // "scroll-80\ntp:read$" is 18 code points; one more whole line would make 28.
    const chars = await readTerminal(mcp, { session_id: s.sessionId, max_chars: 20 })
    expect(chars.data).toMatchObject({ content: "scroll-80\ntp:read$", line_count: 2, truncated: true })

    // The newest line alone is longer than max_chars: its end is kept.
    const cut = await readTerminal(mcp, { session_id: s.sessionId, max_chars: 5 })
    expect(cut.data).toMatchObject({ content: "read$", line_count: 1, truncated: true })
  })
})

describe("run_command", () => {
  it.each([0, 1, 7])("reports exit code %i and only the command's own output", async (code) => {
    const { world, mcp } = rig
    const s = await world.createWindow({ cwd: dir(`exit-${code}`) })
    const command = `printf 'first-%s\\nsecond-%s\\n' ${code} ${code}; (exit ${code})`
    const before = world.ledger.size

    const result = await runCommand(mcp, { session_id: s.sessionId, command })
    expect(result.isError).toBe(false)
    expect(result.data).toMatchObject({
      session_id: s.sessionId,
      command,
      status: "completed",
      sent: true,
      exit_code: code,
      output: `first-${code}\nsecond-${code}`,
      truncated: false,
      output_line_count: 2,
      error_code: null
    })
    expect(result.data.request_id).toMatch(/\S/)
    expect(result.data.duration_ms).toBe(
      Date.parse(result.data.finished_at!) - Date.parse(result.data.started_at)
    )
    // Exactly one send, to exactly this session: the command and Enter, broadcast suppressed.
    expect(world.ledger.all().slice(before)).toEqual([
      expect.objectContaining({ session: s.sessionId, text: `${command}\r`, suppress_broadcast: true })
    ])
  })

  it("reports a failing command's exit status with its output (false → 1)", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ cwd: dir("false") })
    const result = await runCommand(mcp, { session_id: s.sessionId, command: "echo before-false; false" })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 1, output: "before-false" })
  })

  it("runs in a buried session and in a split pane by their exact ids", async () => {
    const { world, mcp } = rig
    const buried = await world.createBuriedSession({ cwd: dir("buried-run") })
    const window = await world.createWindow({ cwd: dir("split-left") })
    const pane = await world.splitPane(window.sessionId, { cwd: dir("split-right") })
    const before = world.ledger.size
    const inBuried = await runCommand(mcp, {
      session_id: buried.sessionId,
      command: "basename $PWD; (exit 2)"
    })
    expect(inBuried.data).toMatchObject({ status: "completed", exit_code: 2, output: "buried-run" })
    const inPane = await runCommand(mcp, { session_id: pane.sessionId, command: "basename $PWD" })
    expect(inPane.data).toMatchObject({ status: "completed", exit_code: 0, output: "split-right" })
    expect(
      world.ledger
        .all()
        .slice(before)
        .map((e) => e.session)
    ).toEqual([buried.sessionId, pane.sessionId])
    expect(world.ledger.forSession(window.sessionId)).toEqual([])
  })

  it("keeps the tail of output longer than max_output_chars and reads long output across scrollback", async () => {
    const { world, mcp } = rig
    const s = await world.createWindow({ cwd: dir("tail") })

    const cut = await runCommand(mcp, { session_id: s.sessionId, command: "seq 1 500", max_output_chars: 20 })
    // "496\n…\n500" is 19 code points; one more line would make 23.
    expect(cut.data).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: "496\n497\n498\n499\n500",
      truncated: true,
      output_line_count: 5,
      total_output_lines: 500
    })
    const few = await runCommand(mcp, { session_id: s.sessionId, command: "seq 1 300", max_output_lines: 2 })
    expect(few.data).toMatchObject({
      output: "299\n300",
      truncated: true,
      output_line_count: 2,
      total_output_lines: 300
    })

    const whole = await runCommand(mcp, { session_id: s.sessionId, command: "seq 101 400" })
    expect(whole.data).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: numbered("", 101, 400).join("\n"),
      truncated: false,
      output_line_count: 300,
      total_output_lines: 300
    })
  })

  it("a cd shows as the new cwd in list_sessions and get_current_session", async () => {
    const { world, mcp } = rig
    const home = dir("before-cd")
    const target = dir("after-cd")
    const s = await world.createWindow({ cwd: home })
    world.focus(s.sessionId)
    expect((await listed(mcp, s.sessionId)).cwd).toBe(home)

    const result = await runCommand(mcp, { session_id: s.sessionId, command: `cd ${target}` })
    expect(result.data).toMatchObject({ status: "completed", exit_code: 0, output: "" })
    expect((await listed(mcp, s.sessionId)).cwd).toBe(target)
    const current = await currentSession(mcp)
    expect(current.data).toMatchObject({ session_id: s.sessionId, cwd: target })

    const tmp = await runCommand(mcp, { session_id: s.sessionId, command: "cd /tmp && pwd" })
    expect(tmp.data).toMatchObject({ status: "completed", exit_code: 0, output: "/tmp" })
    expect((await currentSession(mcp)).data).toMatchObject({ session_id: s.sessionId, cwd: "/tmp" })
  })
})
