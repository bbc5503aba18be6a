/**
 * CommandCapture — the output of one tmux pane's commands as the pane's stream showed it between
 * a command's C and its end, pure: rendered and bounded (TextRender.ts) while the command runs,
 * then kept by prompt id for the last few commands (the runner reads its own right after its D).
 * Only commands that start while `record` is set (the pane is watched) are captured.
 */
import { type RenderedLines, TextRender } from "./TextRender.js"

/** Outputs of finished commands kept per pane. */
const KEPT_OUTPUTS = 8

export class CommandCapture {
  private readonly render = new TextRender()
  private readonly outputs = new Map<string, { readonly rendered: RenderedLines; readonly lines: number }>()
  private capturing = false
  /** Render the output of commands that start from now on (set while the pane is watched). */
  record = false

  /** Whether a command's output is being rendered now. */
  get active(): boolean {
    return this.capturing
  }

  /** A command started: its output is rendered from here when `record` is set. */
  start(): void {
    this.capturing = this.record
    this.render.clear()
  }

  /** The command being captured, typed at `promptId`, ended: its output is kept. */
  finish(promptId: string): void {
    this.capturing = false
    this.outputs.set(promptId, { rendered: this.render.result(), lines: this.render.lineCount })
    this.render.clear()
    if (this.outputs.size > KEPT_OUTPUTS) this.outputs.delete(this.outputs.keys().next().value!)
  }

  /** The kept output of the command typed at `promptId`. */
  kept(promptId: string): RenderedLines | undefined {
    return this.outputs.get(promptId)?.rendered
  }

  /** The lines the command typed at `promptId` wrote in all, when its output is kept. */
  keptLines(promptId: string): number | null {
    return this.outputs.get(promptId)?.lines ?? null
  }

  /** The output rendered so far of the command being captured. */
  get soFar(): RenderedLines {
    return this.render.result()
  }

  /** The lines the command being captured has written so far (dropped ones included). */
  get linesSoFar(): number {
    return this.render.lineCount
  }

  print(text: string): void {
    if (this.capturing) this.render.print(text)
  }

  control(code: number): void {
    if (this.capturing) this.render.control(code)
  }

  csi(params: string, final: number): void {
    if (this.capturing) this.render.csi(params, final)
  }

  /** A note in place of output that could not be rendered (an escape string cut off). */
  note(text: string): void {
    if (this.capturing) this.render.note(text)
  }
}
