/**
 * StreamCpu — run by StreamFigures in a Node of its own (`node dist/bench/StreamCpu.js <MB>`):
 * the CPU one tmux pane's stream costs TermPilot, in process, on what a command really prints:
 * `<MB>` MB of numbered log lines with colour (SGR) and a progress line redrawn with CR, fed to a
 * recording PaneStream in 64 KiB chunks between its C and D marks. Prints `{ cpuMs, lines }`.
 */
import { PaneStream } from "../src/domain/tmux/PaneStream.js"

const megabytes = Number(process.argv[2] ?? 5)
const token = "0123456789abcdef0123456789abcdef"
const mark = (body: string, n: number) => `\x1b]133;${body};tp=${token};n=${n}\x07`

const chunks: Array<Uint8Array> = []
let text = ""
let size = 0
for (let i = 0; size < megabytes * 1024 * 1024; i++) {
  const line =
    i % 10 === 0
      ? `\r\x1b[Kprogress ${i}%\r`
      : `\x1b[32m${String(i).padStart(8, "0")}\x1b[0m INFO request served in ${i % 97} ms, path /api/v1/items/${i}\r\n`
  text += line
  if (text.length >= 64 * 1024) {
    const bytes = Buffer.from(text, "utf8")
    chunks.push(bytes)
    size += bytes.length
    text = ""
  }
}

const stream = new PaneStream([`${token}:1`])
stream.record = true
stream.feed(Buffer.from(`${mark("A", 1)}$ ${mark("B", 1)}cmd\r\n${mark("C", 1)}`))
const before = process.cpuUsage()
for (const chunk of chunks) stream.feed(chunk, 0)
stream.feed(Buffer.from(`${mark("D;0", 1)}${mark("A", 2)}$ ${mark("B", 2)}`))
const used = process.cpuUsage(before)
const lines = stream.lineCount("1")
process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, lines })}\n`)
