/**
 * Codec — loads proto/iterm2.proto with protobufjs (keepCase) and converts between bytes and the
 * plain message shapes of Iterm2Messages. Decoding keeps proto2 presence: absent fields stay
 * absent and no defaults are filled in, so consumers apply proto2 defaults themselves
 * (`status` → "OK", `continuation` → "CONTINUATION_HARD_EOL", `num_code_points` → 1).
 */
import { join } from "node:path"
import protobuf from "protobufjs"
import type { ClientOriginatedMessage, ServerOriginatedMessage } from "../../services/Iterm2Messages.js"
import { findPackageRoot } from "../PackageRoot.js"

/** Absolute path of proto/iterm2.proto (works from src/ under vitest and from dist/src/). */
export const protoPath = (): string => join(findPackageRoot(), "proto", "iterm2.proto")

export interface Iterm2Codec {
  /** Client side: ClientOriginatedMessage → bytes. Every field that is set is written, defaults included. */
  readonly encodeClient: (message: ClientOriginatedMessage) => Uint8Array
  /** Client side: bytes → ServerOriginatedMessage. Throws on bytes that do not parse. */
  readonly decodeServer: (bytes: Uint8Array) => ServerOriginatedMessage
  /** Fake-server side: bytes → ClientOriginatedMessage. Throws on bytes that do not parse. */
  readonly decodeClient: (bytes: Uint8Array) => ClientOriginatedMessage
  /** Fake-server side: ServerOriginatedMessage → bytes. */
  readonly encodeServer: (message: ServerOriginatedMessage) => Uint8Array
}

const toObjectOptions: protobuf.IConversionOptions = {
  longs: Number,
  enums: String,
  bytes: Array,
  defaults: false,
  arrays: false,
  objects: false,
  oneofs: false
}

const makeCodec = (path: string): Iterm2Codec => {
  const root = new protobuf.Root()
  root.loadSync(path, { keepCase: true })
  root.resolveAll()
  const client = root.lookupType("iterm2.ClientOriginatedMessage")
  const server = root.lookupType("iterm2.ServerOriginatedMessage")
  const encode = (type: protobuf.Type) => (message: object) =>
    type.encode(type.fromObject(message as Record<string, unknown>)).finish()
  const decode =
    <A>(type: protobuf.Type) =>
    (bytes: Uint8Array): A =>
      type.toObject(type.decode(bytes), toObjectOptions) as A
  return {
    encodeClient: encode(client),
    decodeServer: decode<ServerOriginatedMessage>(server),
    decodeClient: decode<ClientOriginatedMessage>(client),
    encodeServer: encode(server)
  }
}

let cached: Iterm2Codec | undefined

/** The codec for proto/iterm2.proto, loaded once per process. Throws if the file is missing. */
export const iterm2Codec = (): Iterm2Codec => {
  cached ??= makeCodec(protoPath())
  return cached
}
