/**
 * Issue 22, end to end: several MCP clients, each with its own `termpilot` process (the published
 * bin, `node dist/termpilot.js`, over stdio, as a user's client starts it), asking for the same
 * tmux pane at once. Exactly one process may type into a pane at a time across processes: every
 * round, the pane's input recorder (what the shell read, not TermPilot's account) holds exactly one
 * typed line, the one `completed` answer carries its own output, and every other answer says
 * nothing was sent — for run_command from all four at once, and for run_command racing another
 * process's (approved) send_keys while two more call interrupt_command. Also: a pane another
 * process's command holds is listed busy and refused with `session_claimed`; a claim left by a
 * process killed with SIGKILL is taken over once its command's prompt is back, and no claim stays
 * on an idle pane. Totals are printed at the end.
 * Needs the build (`npm run build`; `npm test` builds first).
 */
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { McpHarness } from "../support/McpHarness.js"
import { stdioTransport, tmuxWorldEnv } from "../support/StdioServer.js"
import { FENCE, waitUntil } from "../support/tmux/Recorder.js"
import { type RigPane, settle } from "../support/tmux/TmuxRig.js"
import { TmuxWorld } from "../support/tmux/TmuxWorld.js"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "dist/termpilot.js")

const PROCESSES = 4
const RACE_ROUNDS = 20
const MIXED_ROUNDS = 10
const BACK_TO_BACK_ROUNDS = 10
/** A tool call never waits longer than this for its answer. */
const CALL_TIMEOUT_MS = 30_000

interface Proc {
  readonly name: string
  readonly client: Client
  readonly transport: StdioClientTransport
  pid: number
  readonly stderr: () => string
  /** request_ids of this process's run_command calls that completed (for interrupt_command). */
  readonly finished: Array<string>
  elicitations: number
  /** Runs once when this process's next approval is answered (just before it types). */
  onApproval: (() => void) | null
}

interface Answer {
  readonly isError: boolean
  readonly data: Record<string, unknown>
}

let world: TmuxWorld
let pane: RigPane
const procs: Array<Proc> = []
const started: Array<Proc> = []

const tally = {
  rounds: { race: 0, backToBack: 0, mixed: 0, held: 0, takeover: 0 },
  /** Command lines (CR) the pane's recorder shows during the scenarios. */
  linesTyped: 0,
  completed: 0,
  sendKeysSent: 0,
  interrupts: 0,
  refusals: new Map<string, number>(),
  cleanups: 0,
  takeoverMs: null as number | null
}

const refused = (tool: string, code: unknown) => {
  const key = `${tool}:${String(code)}`
  tally.refusals.set(key, (tally.refusals.get(key) ?? 0) + 1)
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

/** One `node dist/termpilot.js` over stdio with its own SDK client (accepting every approval). */
const startProc = async (name: string): Promise<Proc> => {
  const { transport, stderr } = stdioTransport(bin, tmuxWorldEnv(world))
  const client = new Client(
    { name: `termpilot-multi-${name}`, version: "0" },
    { capabilities: { elicitation: {} } }
  )
  const proc: Proc = {
    name,
    client,
    transport,
    pid: 0,
    stderr,
    finished: [],
    elicitations: 0,
    onApproval: null
  }
  client.setRequestHandler("elicitation/create", async () => {
    proc.elicitations++
    const hook = proc.onApproval
    proc.onApproval = null
    hook?.()
    return { action: "accept" }
  })
  await client.connect(transport)
  if (transport.pid === null) throw new Error(`${name}: termpilot has no pid`)
  proc.pid = transport.pid
  started.push(proc)
  return proc
}

const call = async (proc: Proc, name: string, args: Record<string, unknown>): Promise<Answer> => {
  const result = await proc.client.callTool(
    { name, arguments: args },
    {
      timeout: CALL_TIMEOUT_MS
    }
  )
  return {
    isError: result.isError === true,
    data: (result.structuredContent ?? {}) as Record<string, unknown>
  }
}

const runCommand = async (proc: Proc, command: string): Promise<Answer> => {
  const answer = await call(proc, "run_command", { session_id: pane.id, command, timeout_seconds: 20 })
  if (answer.data.status === "completed") {
    tally.completed++
    if (typeof answer.data.request_id === "string") proc.finished.push(answer.data.request_id)
  } else if (answer.data.sent !== true) refused("run_command", answer.data.error_code)
  return answer
}

/** The pane's execution_readiness as `proc`'s list_sessions reports it. */
const readiness = async (proc: Proc): Promise<string> => {
  const listed = await call(proc, "list_sessions", {})
  const sessions = (listed.data.sessions ?? []) as ReadonlyArray<{
    session_id: string
    execution_readiness: string
  }>
  return sessions.find((s) => s.session_id === pane.id)?.execution_readiness ?? "(not listed)"
}

/**
 * Waits (10 s at most) until every process lists the pane `ready`. Text left at the prompt
 * (input_pending: a command typed over another, as issue 22 saw) is cleared with C-u, counted.
 */
const allReady = async (): Promise<void> => {
  let seen: Array<string> = []
  let cleared = 0
  await waitUntil(
    "every termpilot to list the pane ready",
    async () => {
      seen = await Promise.all(procs.map(readiness))
      if (seen.every((r) => r === "ready")) return true
      if (seen[0] === "input_pending" && cleared < 3) {
        cleared++
        tally.cleanups++
        await world.press(pane, "C-u")
        await sleep(300)
      }
      return false
    },
    10_000,
    100
  ).catch((error: Error) => {
    throw new Error(`${error.message}; readiness per process: ${seen.join(", ")}`)
  })
}

/** Everything the pane received since `mark` (fenced: whatever tmux wrote before is in the log). */
const receivedSince = async (mark: number): Promise<string> => {
  await world.fence([pane], [mark])
  return pane.files.recorder.textSince(mark).split(FENCE).join("")
}

const linesIn = (text: string): number => text.split("\r").length - 1

/** A short account of answers (each by its process's name) for failure messages. */
const brief = (answers: ReadonlyArray<readonly [Proc, Answer]>): string =>
  answers
    .map(
      ([p, a]) =>
        `${p.name}: status=${String(a.data.status)} isError=${a.isError} sent=${String(a.data.sent)} code=${String(a.data.error_code ?? "-")} output=${JSON.stringify(a.data.output ?? null)} started=${String(a.data.started_at ?? "-")} finished=${String(a.data.finished_at ?? "-")}${a.data.status === "error" ? ` message=${JSON.stringify(a.data.message)}` : ""}`
    )
    .join(" | ")

/** Stop a scenario after this many failed rounds (the failures are all reported). */
const MAX_FAILED_ROUNDS = 3

/** The pane's `@termpilot_claim` as tmux holds it ("" when unset). */
const claimOption = async (): Promise<string> =>
  (await world.tmux("show", "-p", "-v", "-t", pane.paneId, "@termpilot_claim").catch(() => "")).trim()

/** Whether a process is still running (a zombie waiting for its reaper has ended). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first`)
  world = TmuxWorld.create()
  const created = await world.newSession("multi")
  pane = { ...created, id: await world.sessionId(created) }
  procs.push(
    ...(await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => startProc(String.fromCharCode(65 + i)))
    ))
  )
  // Every process looks at the pane; the first prompt was drawn before any of them watched it
  // (unknown by design), so settle presses Enter once and each sees the new prompt.
  await Promise.all(procs.map(readiness))
  for (const proc of procs) await settle({ client: proc.client } as unknown as McpHarness, pane, "ready")
}, 60_000)

afterAll(async () => {
  for (const proc of started) await proc.client.close().catch(() => undefined)
  for (const proc of started) {
    await waitUntil(`termpilot ${proc.name} (${proc.pid}) to exit`, () => !alive(proc.pid), 5_000).catch(
      () => {
        if (alive(proc.pid)) process.kill(proc.pid, "SIGKILL")
      }
    )
  }
  await world?.close()
  const refusals = [...tally.refusals.entries()].map(([k, n]) => `${k} ×${n}`).join(", ") || "none"
  console.log(
    [
      "issue 22 multi-process totals:",
      `  rounds: ${tally.rounds.race} same-moment run_command, ${tally.rounds.backToBack} back-to-back quick commands, ${tally.rounds.mixed} mixed (run_command + send_keys + interrupt_command), ${tally.rounds.held} held-pane, ${tally.rounds.takeover} SIGKILL takeover`,
      `  termpilot processes: ${started.length} (${PROCESSES} racing + ${started.length - PROCESSES} killed with SIGKILL)`,
      `  command lines typed (pane recorder): ${tally.linesTyped}`,
      `  run_command completed: ${tally.completed}; send_keys sent: ${tally.sendKeysSent}; interrupt_command calls: ${tally.interrupts} (approvals asked: ${started.reduce((n, p) => n + p.elicitations, 0)})`,
      `  refusals (tool:error_code): ${refusals}`,
      `  prompt clean-ups needed (text left at the prompt): ${tally.cleanups}`,
      `  takeover after the killed holder's prompt returned: ${tally.takeoverMs === null ? "n/a" : `${tally.takeoverMs} ms`}`
    ].join("\n")
  )
}, 60_000)

describe(`${PROCESSES} termpilot processes, one tmux pane`, () => {
  it(`${RACE_ROUNDS} rounds of run_command from every process at once: one line typed, one completed with its own output, the rest sent nothing`, async () => {
    const failed: Array<string> = []
    for (let round = 0; round < RACE_ROUNDS && failed.length < MAX_FAILED_ROUNDS; round++) {
      await allReady()
      const executedBefore = pane.files.executed().length
      const mark = pane.files.recorder.mark()
      // Long enough (0.3 s) that every call arrives while the winner's command holds the pane: a
      // bare echo ends within ~10 ms, and a call that comes after its prompt returned may rightly
      // type next (that is back to back, not at the same moment).
      const commands = procs.map((p) => `sleep 0.3; echo MARK-${round}-${p.name}`)
      const answers = await Promise.all(procs.map((p, i) => runCommand(p, commands[i]!)))
      // Back at an idle prompt first: the fence byte must not reach a running command's terminal.
      await allReady()
      const received = await receivedSince(mark)
      tally.rounds.race++
      tally.linesTyped += linesIn(received)
      const wrong: Array<string> = []

      const completed = answers.flatMap((a, i) => (a.data.status === "completed" ? [i] : []))
      if (linesIn(received) !== 1) wrong.push(`${linesIn(received)} command lines typed, not 1`)
      if (completed.length !== 1) wrong.push(`${completed.length} answers completed, not 1`)
      answers.forEach((a, i) => {
        const name = procs[i]!.name
        if (a.data.status === "completed") {
          if (a.data.output !== `MARK-${round}-${name}`)
            wrong.push(`${name} answered completed with output ${JSON.stringify(a.data.output)}, not its own`)
        } else if (a.data.sent !== false || a.data.status !== "rejected")
          wrong.push(`${name} answered status=${String(a.data.status)} sent=${String(a.data.sent)}`)
      })
      const winner = completed.length === 1 ? completed[0] : undefined
      if (winner !== undefined) {
        if (answers[winner]!.data.exit_code !== 0) wrong.push(`${procs[winner]!.name}'s exit code is not 0`)
        if (received !== `${commands[winner]}\r`)
          wrong.push(`the pane did not receive exactly ${procs[winner]!.name}'s line`)
      }
      const ran = pane.files.executed().slice(executedBefore)
      if (winner !== undefined && JSON.stringify(ran) !== JSON.stringify([commands[winner]]))
        wrong.push(`the shell ran ${JSON.stringify(ran)}`)
      if (wrong.length > 0)
        failed.push(
          `round ${round}: ${wrong.join("; ")}\n  received ${JSON.stringify(received)}\n  ${brief(procs.map((p, i) => [p, answers[i]!] as const))}`
        )
    }
    expect(failed, failed.join("\n")).toEqual([])
  }, 120_000)

  it(`${BACK_TO_BACK_ROUNDS} rounds of a quick command from every process at once: those typed back to back each answer their own output; every other sent nothing`, async () => {
    const failed: Array<string> = []
    for (let round = 0; round < BACK_TO_BACK_ROUNDS && failed.length < MAX_FAILED_ROUNDS; round++) {
      await allReady()
      const executedBefore = pane.files.executed().length
      const mark = pane.files.recorder.mark()
      // A bare echo ends within milliseconds: a call that comes after the winner's prompt returned
      // rightly types next, at the new prompt; its watch, subscribed before, still holds the events
      // of the command before it, which must not be taken for its own.
      const commands = procs.map((p) => `echo B2B-${round}-${p.name}`)
      const answers = await Promise.all(procs.map((p, i) => runCommand(p, commands[i]!)))
      await allReady()
      const received = await receivedSince(mark)
      tally.rounds.backToBack++
      tally.linesTyped += linesIn(received)
      const wrong: Array<string> = []
      const completed = answers.flatMap((a, i) => (a.data.status === "completed" ? [i] : []))
      if (completed.length === 0) wrong.push("no answer completed")
      if (linesIn(received) !== completed.length)
        wrong.push(`${linesIn(received)} command lines typed, ${completed.length} answers completed`)
      answers.forEach((a, i) => {
        const name = procs[i]!.name
        if (a.data.status === "completed") {
          if (a.data.output !== `B2B-${round}-${name}` || a.data.exit_code !== 0)
            wrong.push(`${name} answered completed with output ${JSON.stringify(a.data.output)}, not its own`)
        } else if (a.data.sent !== false || a.data.status !== "rejected")
          wrong.push(
            `${name} answered status=${String(a.data.status)} sent=${String(a.data.sent)} code=${String(a.data.error_code)}`
          )
      })
      const ran = pane.files.executed().slice(executedBefore)
      const expected = completed.map((i) => commands[i]!)
      if (JSON.stringify([...ran].sort()) !== JSON.stringify([...expected].sort()))
        wrong.push(`the shell ran ${JSON.stringify(ran)}, not the completed ${JSON.stringify(expected)}`)
      if (wrong.length > 0)
        failed.push(
          `round ${round}: ${wrong.join("; ")}\n  received ${JSON.stringify(received)}\n  ${brief(procs.map((p, i) => [p, answers[i]!] as const))}`
        )
    }
    expect(failed, failed.join("\n")).toEqual([])
  }, 120_000)

  it(`${MIXED_ROUNDS} mixed rounds: run_command, send_keys (accepted) and interrupt_command from different processes at once type exactly one line`, async () => {
    const failed: Array<string> = []
    for (let round = 0; round < MIXED_ROUNDS && failed.length < MAX_FAILED_ROUNDS; round++) {
      await allReady()
      const runner = procs[round % PROCESSES]!
      const keyer = procs[(round + 1) % PROCESSES]!
      const interrupters = [procs[(round + 2) % PROCESSES]!, procs[(round + 3) % PROCESSES]!]
      const command = `sleep 0.4; echo MIX-${round}-${runner.name}`
      const keysLine = `sleep 0.4; echo KEYS-${round}-${keyer.name}`
      const mark = pane.files.recorder.mark()
      // Even rounds: all at once (send_keys' approval round trip lets run_command claim first).
      // Odd rounds: run_command starts as send_keys' approval is answered, racing its typing.
      let running: Promise<Answer> | undefined
      if (round % 2 === 1) keyer.onApproval = () => (running = runCommand(runner, command))
      else running = runCommand(runner, command)
      const [keyed, ...stopped] = await Promise.all([
        call(keyer, "send_keys", { session_id: pane.id, keys: [{ text: keysLine }, { key: "Enter" }] }),
        ...interrupters.map((p) =>
          call(p, "interrupt_command", {
            // A command this process itself started earlier (finished), or one it never started.
            request_id: p.finished.at(-1) ?? "0123456789abcdef0123456789abcdef",
            wait_seconds: 0
          })
        )
      ])
      keyer.onApproval = null
      if (running === undefined) throw new Error(`mixed round ${round}: send_keys asked no approval`)
      const ran = await running
      await allReady()
      const received = await receivedSince(mark)
      tally.rounds.mixed++
      tally.linesTyped += linesIn(received)
      tally.interrupts += stopped.length
      const wrong: Array<string> = []

      const keysSent = keyed!.data.sent === true
      if (keysSent) tally.sendKeysSent++
      else refused("send_keys", keyed!.data.error_code)
      stopped.forEach((s, i) => {
        if (s.data.interrupt_sent === true)
          wrong.push(`${interrupters[i]!.name}'s interrupt_command sent an ETX`)
        if (s.isError) refused("interrupt_command", s.data.error_code)
      })
      if (linesIn(received) !== 1) wrong.push(`${linesIn(received)} command lines typed, not 1`)
      if (received.includes("\u0003")) wrong.push("an ETX reached the pane")
      const runCompleted = ran!.data.status === "completed"
      if (runCompleted === keysSent)
        wrong.push(`run_command completed=${runCompleted} and send_keys sent=${keysSent}: not exactly one`)
      if (runCompleted) {
        if (ran!.data.output !== `MIX-${round}-${runner.name}`)
          wrong.push("run_command's output is not its own")
        if (received !== `${command}\r`) wrong.push("the pane did not receive exactly run_command's line")
      } else {
        if (ran!.data.sent !== false) wrong.push("run_command did not complete but sent its command")
        if (keysSent && received !== `${keysLine}\r`)
          wrong.push("the pane did not receive exactly send_keys' line")
      }
      if (wrong.length > 0)
        failed.push(
          `mixed round ${round}: ${wrong.join("; ")}\n  received ${JSON.stringify(received)}\n  run_command ${brief([[runner, ran!]])}\n  send_keys ${brief([[keyer, keyed!]])}\n  interrupt_command ${brief(stopped.map((s, i) => [interrupters[i]!, s] as const))}`
        )
    }
    expect(failed, failed.join("\n")).toEqual([])
  }, 90_000)

  it("while one process's command runs, the others list the pane busy and are refused with session_claimed; nothing of theirs reaches the pane", async () => {
    await allReady()
    const [holder, ...others] = procs as [Proc, ...Array<Proc>]
    const mark = pane.files.recorder.mark()
    const holding = runCommand(holder, "sleep 3; echo A-DONE")
    await waitUntil(
      "the holder's command to be typed and running",
      () => pane.files.foreground() === "sleep",
      10_000
    )
    tally.rounds.held++
    const executedBefore = pane.files.executed().length
    const listedAs = await Promise.all(others.map(readiness))
    const answers = await Promise.all(others.map((p) => runCommand(p, `echo MUST-NOT-RUN-${p.name}`)))
    const listedAfter = await Promise.all(others.map(readiness))
    const stillRunning = pane.files.foreground() === "sleep"
    const done = await holding
    // Fenced only at the idle prompt (a fence byte would be echoed into the running command's output).
    await allReady()
    const received = await receivedSince(mark)
    tally.linesTyped += linesIn(received)

    expect(stillRunning, "the holder's sleep outlasted the others' attempts").toBe(true)
    expect(listedAs).toEqual(others.map(() => "busy"))
    expect(listedAfter).toEqual(others.map(() => "busy"))
    answers.forEach((a, i) => {
      expect(a.data, `${others[i]!.name}: ${JSON.stringify(a.data)}`).toMatchObject({
        status: "rejected",
        sent: false,
        error_code: "session_claimed",
        output: null
      })
    })
    expect(done.data).toMatchObject({ status: "completed", sent: true, exit_code: 0, output: "A-DONE" })
    // Nothing of the refused processes reached the pane, nor did the shell run any of it.
    expect(received).toBe("sleep 3; echo A-DONE\r")
    expect(pane.files.executed().slice(executedBefore)).toEqual(["sleep 3; echo A-DONE"])
  }, 30_000)

  it("a holder killed with SIGKILL mid-command: once its prompt is back, another process takes the pane over within seconds; the claim is not held forever", async () => {
    await allReady()
    const victim = await startProc("killed")
    await settle({ client: victim.client } as unknown as McpHarness, pane, "ready")
    const mark = pane.files.recorder.mark()
    const pending = call(victim, "run_command", {
      session_id: pane.id,
      command: "sleep 2",
      timeout_seconds: 20
    }).then(
      (a) => `answered ${JSON.stringify(a.data)}`,
      (e: Error) => `no answer: ${e.message}`
    )
    await waitUntil("the victim's sleep 2 to run", () => pane.files.foreground() === "sleep", 10_000)
    const heldBy = await claimOption()
    const prompts = pane.files.prompts()
    process.kill(victim.pid, "SIGKILL")
    await waitUntil(`the killed termpilot ${victim.pid} to be gone`, () => !alive(victim.pid), 5_000)
    expect(await pending).toMatch(/^no answer/)
    tally.rounds.takeover++
    // The claim it took names it (tp1.<host>.<pid>.…), and the others see the pane busy.
    expect(heldBy.split(".")[2], `@termpilot_claim while ${victim.pid} held the pane: '${heldBy}'`).toBe(
      String(victim.pid)
    )
    const [survivor, third] = [procs[1]!, procs[2]!]
    if (pane.files.foreground() === "sleep") expect(await readiness(survivor)).toBe("busy")

    // The killed holder's command ends by itself and its prompt comes back; the survivor sees it.
    await waitUntil("sleep 2 to end and the prompt to return", () => pane.files.prompts() > prompts, 10_000)
    const back = Date.now()
    const attempts: Array<Answer> = []
    let survivorSaw = ""
    await waitUntil(
      "a surviving process's run_command to complete",
      async () => {
        survivorSaw = await readiness(survivor)
        if (survivorSaw !== "ready") return false
        const answer = await runCommand(survivor, "echo TAKEN-OVER")
        attempts.push(answer)
        if (answer.data.status === "completed") return true
        if (answer.data.sent !== false)
          throw new Error(`sent and not completed: ${JSON.stringify(answer.data)}`)
        return false
      },
      8_000,
      200
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}; the survivor lists the pane ${survivorSaw}; attempts: ${brief(attempts.map((a) => [survivor, a] as const))}; claim: ${heldBy}`
      )
    })
    tally.takeoverMs = Date.now() - back
    expect(attempts.at(-1)!.data).toMatchObject({ status: "completed", exit_code: 0, output: "TAKEN-OVER" })

    // Released after the survivor's command: a third process gets the pane at once, and once every
    // command has ended no claim is left on the pane.
    await allReady()
    const after = await runCommand(third, "echo AFTER-TAKEOVER")
    expect(after.data).toMatchObject({ status: "completed", exit_code: 0, output: "AFTER-TAKEOVER" })
    const received = await receivedSince(mark)
    tally.linesTyped += linesIn(received)
    expect(received).toBe("sleep 2\recho TAKEN-OVER\recho AFTER-TAKEOVER\r")
    let left = "?"
    await waitUntil(
      "no claim left on the idle pane",
      async () => {
        left = await claimOption()
        return left === ""
      },
      3_000,
      100
    ).catch((error: Error) => {
      throw new Error(`${error.message}: @termpilot_claim is '${left}' (killed holder pid ${victim.pid})`)
    })
    console.log(
      `takeover: claim while the killed process held the pane: ${heldBy || "(none)"}; ${attempts.length} attempt(s), completed ${tally.takeoverMs} ms after its prompt returned; claim afterwards: ${left || "(none)"}`
    )
    expect(tally.takeoverMs).toBeLessThan(5_000)
  }, 45_000)
})
