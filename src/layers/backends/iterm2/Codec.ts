/**
 * Codec — converts between bytes and the plain message shapes of Iterm2Messages with the protobufjs
 * static code generated from proto/iterm2.proto (Iterm2Static, keepCase): nothing parses .proto
 * text at run time. Decoding keeps proto2 presence: absent fields stay absent and no defaults are
 * filled in, so consumers apply proto2 defaults themselves (`status` → "OK", `continuation` →
 * "CONTINUATION_HARD_EOL", `num_code_points` → 1).
 */
import { join } from "node:path"
import type protobuf from "protobufjs"
import type {
  ClientOriginatedMessage,
  ServerOriginatedMessage
} from "../../../generated/iterm2/Iterm2Messages.js"
import { iterm2 } from "../../../generated/iterm2/Iterm2Static.js"
import { findPackageRoot } from "../../../installation/PackageRoot.js"

/** Absolute path of proto/iterm2.proto, the source of the generated code (from src/ or dist/src/). */
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

/** What the codec uses of a generated message class. */
interface StaticType {
  readonly fromObject: (object: object) => object
  readonly encode: (message: object) => protobuf.Writer
  readonly decode: (bytes: Uint8Array) => object
  readonly toObject: (message: object, options: protobuf.IConversionOptions) => object
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

const makeCodec = (): Iterm2Codec => {
  // The generated module is untyped JavaScript (@ts-nocheck); these are its two envelope classes.
  const types = iterm2 as unknown as Record<"ClientOriginatedMessage" | "ServerOriginatedMessage", StaticType>
  const client = types.ClientOriginatedMessage
  const server = types.ServerOriginatedMessage
  const encode = (type: StaticType) => (message: object) => type.encode(type.fromObject(message)).finish()
  const decode =
    <A>(type: StaticType) =>
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

/** The codec for proto/iterm2.proto (its generated static code), made once per process. */
export const iterm2Codec = (): Iterm2Codec => {
  cached ??= makeCodec()
  return cached
}
