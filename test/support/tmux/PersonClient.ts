/**
 * PersonClient — a person's own tmux client: a real `tmux attach` in a PTY (node-pty), its output
 * rendered by @xterm/headless so a test reads what the person's screen shows, and keys typed into
 * it as the person's keyboard would. `close` detaches it and ends the PTY (by its own pid).
 */
import xterm from "@xterm/headless"
import * as pty from "node-pty"
import { waitUntil } from "./Recorder.js"
import type { TmuxWorld } from "./TmuxWorld.js"

const { Terminal } = xterm

export class PersonClient {
  private readonly term: InstanceType<typeof Terminal>
  private pending = 0
  private closed = false
  /** The client's tty, as tmux names it (`#{client_tty}`). */
  tty = ""

  private constructor(
    private readonly world: TmuxWorld,
    private readonly child: pty.IPty,
    cols: number,
    rows: number
  ) {
    this.term = new Terminal({ cols, rows, allowProposedApi: true })
    child.onData((data) => {
      this.pending++
      this.term.write(data, () => {
        this.pending--
      })
    })
  }

  /** Attaches a person's client to `session` in a `cols`x`rows` terminal; resolves once tmux lists it. */
  static async attach(world: TmuxWorld, session: string, cols = 120, rows = 45): Promise<PersonClient> {
    const before = await PersonClient.ttys(world)
    const child = pty.spawn("tmux", ["-S", world.socket, "-f", "/dev/null", "attach", "-t", session], {
      name: "xterm-256color",
      cols,
      rows,
      env: world.env()
    })
    const client = new PersonClient(world, child, cols, rows)
    await waitUntil("the person's client to attach", async () => {
      const now = await PersonClient.ttys(world)
      client.tty = now.find((tty) => !before.includes(tty)) ?? ""
      return client.tty !== ""
    })
    return client
  }

  /** The ttys of the world's clients that are not control clients. */
  static async ttys(world: TmuxWorld): Promise<ReadonlyArray<string>> {
    const lines = await world
      .tmux("list-clients", "-F", "#{client_control_mode} #{client_tty}")
      .catch(() => "")
    return lines
      .split("\n")
      .filter((line) => line.startsWith("0 "))
      .map((line) => line.slice(2))
  }

  /** The screen as the person sees it, one string per row (trailing blanks trimmed), once all output is parsed. */
  async screen(): Promise<string> {
    await waitUntil("the person's screen to be parsed", () => this.pending === 0, 5_000, 10)
    const buffer = this.term.buffer.active
    const rows: Array<string> = []
    for (let y = 0; y < this.term.rows; y++)
      rows.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? "")
    return rows.join("\n")
  }

  /** Waits until the screen satisfies `check` (10 s bound). */
  async waitForScreen(what: string, check: (screen: string) => boolean, timeoutMs = 10_000): Promise<string> {
    let last = ""
    await waitUntil(
      what,
      async () => {
        last = await this.screen()
        return check(last)
      },
      timeoutMs,
      50
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nThe person's screen:\n${last}`)
    })
    return last
  }

  /** Types `text` on the person's keyboard. */
  press(text: string): void {
    this.child.write(text)
  }

  /** Detaches this client (`detach-client -t <its tty>`); resolves once tmux no longer lists it. */
  async detach(): Promise<void> {
    await this.world.tmux("detach-client", "-t", this.tty).catch(() => undefined)
    await waitUntil(
      "the person's client to detach",
      async () => !(await PersonClient.ttys(this.world)).includes(this.tty)
    )
  }

  /** Detaches the client and ends its PTY. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.detach()
    try {
      process.kill(this.child.pid, "SIGKILL")
    } catch {
      // already gone
    }
  }
}
