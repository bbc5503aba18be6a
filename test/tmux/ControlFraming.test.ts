/**
 * Control-mode framing against tmux 3.3a's wire form (reference/tmux.md §2): lines split anywhere
 * between chunks, `%begin/%end` matched on the same triple even when reply lines start with `%`,
 * `%output` octal unescaping with raw UTF-8, `%extended-output`, notifications and `%exit`.
 */
import { describe, expect, it } from "vitest"
import {
  type ControlEvent,
  ControlFramer,
  isNotificationLine,
  unescapeOutput
} from "../../src/domain/tmux/ControlFraming.js"

const bytes = (s: string) => Buffer.from(s, "latin1")
const feedAll = (framer: ControlFramer, chunks: ReadonlyArray<string | Buffer>): Array<ControlEvent> =>
  chunks.flatMap((c) => framer.feed(typeof c === "string" ? Buffer.from(c, "utf8") : c))

describe("ControlFraming", () => {
  it("undoes tmux's octal escapes and leaves other bytes alone", () => {
    expect(
      Buffer.from(unescapeOutput(bytes("a\\033]133;D;1\\007b\\134c\\015\\012"))).toString("latin1")
    ).toBe("a\x1b]133;D;1\x07b\\c\r\n")
    expect(Buffer.from(unescapeOutput(bytes("no escapes"))).toString()).toBe("no escapes")
    // A backslash not followed by three octal digits is kept as is (tmux never sends one).
    expect(Buffer.from(unescapeOutput(bytes("\\08x\\7"))).toString()).toBe("\\08x\\7")
  })

  it("frames the attach block, a reply, output and a notification split at arbitrary points", () => {
    const wire =
      "%begin 1795943191 278 0\n%end 1795943191 278 0\n%session-changed $0 S\n" +
      "%begin 1795943191 289 1\n%0 bash\n%end 1795943191 289 1\n" +
      "%output %0 h\\303\\251 \xc3\xa9\\007\n%exit\n"
    const whole = feedAll(new ControlFramer(), [Buffer.from(wire, "latin1")])
    for (let cut = 1; cut < wire.length; cut += 7) {
      const split = feedAll(new ControlFramer(), [
        Buffer.from(wire.slice(0, cut), "latin1"),
        Buffer.from(wire.slice(cut), "latin1")
      ])
      expect(split).toEqual(whole)
    }
    expect(whole).toEqual([
      { _tag: "Reply", ok: true, ours: false, lines: [] },
      { _tag: "Notification", name: "%session-changed", args: "$0 S" },
      { _tag: "Reply", ok: true, ours: true, lines: ["%0 bash"] },
      { _tag: "Output", pane: 0, bytes: new Uint8Array(Buffer.from("hé é\x07", "utf8")) },
      { _tag: "Exit", reason: "" }
    ])
  })

  it("ends a block only at %end or %error with the same triple", () => {
    const events = feedAll(new ControlFramer(), [
      "%begin 1 7 1\n",
      "%end 1 8 1\n",
      "%output %3 fake\n",
      "%error 2 7 1\n",
      "%end 1 7 1\n",
      "%begin 1 9 1\nparse error: unknown command: x\n%error 1 9 1\n"
    ])
    expect(events).toEqual([
      { _tag: "Reply", ok: true, ours: true, lines: ["%end 1 8 1", "%output %3 fake", "%error 2 7 1"] },
      { _tag: "Reply", ok: false, ours: true, lines: ["parse error: unknown command: x"] }
    ])
  })

  it("reads %extended-output values after ' : ' and skips malformed output lines", () => {
    expect(
      feedAll(new ControlFramer(), ["%extended-output %12 40 : a\\012b\n", "%output %x y\n", "%output %4\n"])
    ).toEqual([{ _tag: "Output", pane: 12, bytes: new Uint8Array(Buffer.from("a\nb")) }])
  })

  it("names the notifications 3.3a can misplace inside a reply block, and nothing else", () => {
    expect(isNotificationLine("%pause %0")).toBe(true)
    expect(isNotificationLine("%window-renamed @1 vim")).toBe(true)
    expect(isNotificationLine("%sessions-changed")).toBe(true)
    expect(isNotificationLine("%0|bash")).toBe(false)
    expect(isNotificationLine("%output %0 x")).toBe(false)
    expect(isNotificationLine("%pauses")).toBe(false)
  })

  it("keeps reply text as UTF-8 and strips a CR before LF", () => {
    expect(feedAll(new ControlFramer(), ["%begin 1 2 1\r\nwide 漢字 ✓\r\n%end 1 2 1\r\n"])).toEqual([
      { _tag: "Reply", ok: true, ours: true, lines: ["wide 漢字 ✓"] }
    ])
  })
})
