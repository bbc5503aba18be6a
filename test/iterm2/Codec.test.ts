/**
 * Codec: field numbers on the wire (expected bytes built by hand from the protocol reference),
 * proto2 presence (explicit defaults written, absent fields stay absent) and int64 handling.
 */
import { describe, expect, it } from "vitest"
import { iterm2Codec, protoPath } from "../../src/layers/backends/iterm2/Codec.js"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
const codec = iterm2Codec()

describe("Codec", () => {
  it("finds proto/iterm2.proto from the package root", () => {
    expect(protoPath()).toMatch(/\/proto\/iterm2\.proto$/)
  })

  it("writes an explicit subscribe:false (presence matters to iTerm2)", () => {
    // id=1 (08 01); notification_request=103 → tag (103<<3|2)=826 → ba 06; len 09;
    // session=1 "all" (0a 03 61 6c 6c); subscribe=2 false (10 00); notification_type=3 PROMPT=3 (18 03)
    const bytes = codec.encodeClient({
      id: 1,
      notification_request: { session: "all", subscribe: false, notification_type: "NOTIFY_ON_PROMPT" }
    })
    expect(hex(bytes)).toBe("0801ba06090a03616c6c10001803")
  })

  it("encodes screen_contents_only:false as set, and list_prompts at 133", () => {
    // get_buffer_request=100 → tag 802 → a2 06; line_range=2 { screen_contents_only=1 false }
    expect(
      hex(codec.encodeClient({ id: 2, get_buffer_request: { line_range: { screen_contents_only: false } } }))
    ).toBe("0802a206041202" + "0800")
    // list_prompts_request=133 → tag 1066 → aa 08; empty
    expect(hex(codec.encodeClient({ id: 3, list_prompts_request: {} }))).toBe("0803aa0800")
  })

  it("decodes without filling defaults; int64 and enums become numbers and names", () => {
    // id=7; get_buffer_response=100 { contents=3 [{text=1 "a"}, {text "b", continuation=3 SOFT(2)}], cursor=4 {x=1 3, y=2 2^40} }
    const cursorY = [0x80, 0x80, 0x80, 0x80, 0x80, 0x20] // 2^40 as varint
    const line1 = [0x0a, 0x01, 0x61]
    const line2 = [0x0a, 0x01, 0x62, 0x18, 0x02]
    const cursor = [0x08, 0x03, 0x10, ...cursorY]
    const body = [0x1a, line1.length, ...line1, 0x1a, line2.length, ...line2, 0x22, cursor.length, ...cursor]
    const bytes = Uint8Array.from([0x08, 0x07, 0xa2, 0x06, body.length, ...body])
    expect(codec.decodeServer(bytes)).toEqual({
      id: 7,
      get_buffer_response: {
        contents: [{ text: "a" }, { text: "b", continuation: "CONTINUATION_SOFT_EOL" }],
        cursor: { x: 3, y: 2 ** 40 }
      }
    })
  })

  it("decodes a notification (field 1000) without an id, and an id-only reply as empty", () => {
    // notification=1000 → tag 8002 → c2 3e; { terminate_session_notification=7 { session_id=1 "s" } }
    const bytes = Uint8Array.from([0xc2, 0x3e, 0x05, 0x3a, 0x03, 0x0a, 0x01, 0x73])
    expect(codec.decodeServer(bytes)).toEqual({
      notification: { terminate_session_notification: { session_id: "s" } }
    })
    expect(codec.decodeServer(Uint8Array.from([0x08, 0x05]))).toEqual({ id: 5 })
  })

  it("round-trips a prompt notification through the fake-server side", () => {
    const message = {
      notification: {
        prompt_notification: { session: "S", command_end: { status: 3 }, unique_prompt_id: "P" }
      }
    }
    expect(codec.decodeServer(codec.encodeServer(message))).toEqual(message)
    const request = { id: 9, get_prompt_request: { session: "S", unique_prompt_id: "P" } }
    expect(codec.decodeClient(codec.encodeClient(request))).toEqual(request)
  })

  it("throws on bytes that do not parse", () => {
    expect(() => codec.decodeServer(Uint8Array.from([0x0a, 0x05, 0x01]))).toThrow()
  })
})
