#!/usr/bin/env node
/**
 * codegen — generates, from proto/iterm2.proto, the two files TermPilot's iTerm2 codec is made of:
 *
 *   src/generated/iterm2/Iterm2Messages.ts     the plain TypeScript shapes of the messages (what TermPilot
 *                                      code reads and writes: snake_case, int64 as number, enums as
 *                                      their string names, every proto2 field optional)
 *   src/generated/iterm2/Iterm2Static.ts  protobufjs static code (pbjs static-module: encode, decode,
 *                                      fromObject, toObject), so nothing parses .proto text at run time
 *
 * `node proto/codegen.mjs` writes them; `node proto/codegen.mjs --check` writes nothing and exits 1
 * naming every file that differs from what the .proto generates (the build runs the check, so a
 * .proto edited without regenerating fails the build). Output is deterministic: same inputs, same
 * bytes. Options for tests: --proto <file>, --root <dir> (where src/ is).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const require = createRequire(import.meta.url)
const protobuf = require("protobufjs")

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const option = (name, fallback) => {
  const i = args.indexOf(name)
  return i >= 0 && args[i + 1] !== undefined ? resolve(args[i + 1]) : fallback
}
const check = args.includes("--check")
const protoFile = option("--proto", join(here, "iterm2.proto"))
const root = option("--root", resolve(here, ".."))
const TYPES_OUT = "src/generated/iterm2/Iterm2Messages.ts"
const STATIC_OUT = "src/generated/iterm2/Iterm2Static.ts"

// ------------------------------------------------------------------ naming

/**
 * A nested type `Outer.Inner` is named after its outer message without its Request / Response /
 * Notification suffix, then its own name (`GetBufferResponse.Status` → `GetBufferStatus`,
 * `ListSessionsResponse.Tab` → `ListSessionsTab`). These keep their established shorter names.
 */
const RENAMED = {
  "iterm2.LineContents.Continuation": "Continuation",
  "iterm2.GetPromptResponse.State": "PromptState",
  "iterm2.SplitTreeNode.SplitTreeLink": "SplitTreeLink",
  "iterm2.FocusChangedNotification.Window.WindowStatus": "WindowStatus"
}

const fullName = (type) => type.fullName.replace(/^\./, "")

const tsName = (type) => {
  const full = fullName(type)
  if (RENAMED[full] !== undefined) return RENAMED[full]
  const parent = type.parent
  if (parent instanceof protobuf.Type)
    return tsName(parent).replace(/(Request|Response|Notification)$/, "") + type.name
  return type.name
}

// ------------------------------------------------------------------ the plain shapes

const SCALARS = {
  double: "number",
  float: "number",
  int32: "number",
  uint32: "number",
  sint32: "number",
  fixed32: "number",
  sfixed32: "number",
  int64: "number",
  uint64: "number",
  sint64: "number",
  fixed64: "number",
  sfixed64: "number",
  bool: "boolean",
  string: "string",
  bytes: "ReadonlyArray<number>"
}

const doc = (lines, indent = "") => {
  const text = lines
    .filter((l) => l !== undefined && l !== null && l !== "")
    .map((l) => l.replace(/\s*\n\s*/g, " "))
  if (text.length === 0) return ""
  return `${indent}/** ${text.join(" ")} */\n`
}

const fieldType = (field) => {
  const base = field.resolvedType ? tsName(field.resolvedType) : SCALARS[field.type]
  if (base === undefined) throw new Error(`codegen: no TypeScript type for ${field.fullName} (${field.type})`)
  return field.repeated ? `ReadonlyArray<${base}>` : base
}

const fieldDoc = (field) => {
  const notes = [field.comment]
  if (field.type.endsWith("64") && !field.repeated) notes.push("(int64)")
  if (field.options?.default !== undefined)
    notes.push(`proto2 default ${JSON.stringify(field.options.default)}.`)
  if (field.options?.deprecated === true) notes.push("Deprecated, not set by current servers.")
  return notes
}

const fieldsOf = (fields, indent = "  ") =>
  fields.map((f) => `${doc(fieldDoc(f), indent)}${indent}readonly ${f.name}?: ${fieldType(f)}\n`).join("")

const oneofNotes = (message) =>
  message.oneofsArray.map((o) => `oneof ${o.name}: ${o.fieldsArray.map((f) => f.name).join(" · ")}.`)

const emitEnum = (e) => {
  const names = Object.keys(e.values)
  const one = `export type ${tsName(e)} = ${names.map((n) => JSON.stringify(n)).join(" | ")}\n`
  const body =
    one.length <= 110
      ? one
      : `export type ${tsName(e)} =\n${names.map((n) => `  | ${JSON.stringify(n)}\n`).join("")}`
  return doc([e.comment]) + body
}

const emitMessage = (m) => {
  const head = doc([m.comment, ...oneofNotes(m)])
  if (m.fieldsArray.length === 0) return `${head}export type ${tsName(m)} = Readonly<Record<string, never>>\n`
  return `${head}export interface ${tsName(m)} {\n${fieldsOf(m.fieldsArray)}}\n`
}

/** The two envelopes: their `submessage` oneof as optional fields, and a request as exactly one of them. */
const emitEnvelopes = (client, server) => {
  const clientSub = client.oneofs.submessage.fieldsArray
  const serverSub = server.oneofs.submessage.fieldsArray
  const notification = serverSub.filter((f) => f.name === "notification")
  const responses = serverSub.filter((f) => f.name !== "notification")
  const id = client.fields.id
  return [
    "/** The `submessage` oneof of ClientOriginatedMessage, as optional fields. */",
    `export interface ClientSubmessages {\n${fieldsOf(clientSub)}}`,
    "",
    "type ExactlyOne<T> = {",
    "  readonly [K in keyof T]-?: { readonly [P in K]-?: NonNullable<T[P]> } & {",
    "    readonly [P in Exclude<keyof T, K>]?: never",
    "  }",
    "}[keyof T]",
    "",
    "/** A request: ClientOriginatedMessage without `id`, with exactly one submessage set. */",
    "export type ClientRequest = ExactlyOne<ClientSubmessages>",
    "",
    "/** The `submessage` oneof of ServerOriginatedMessage (minus `notification`), as optional fields. */",
    `export interface ServerResponse {\n${fieldsOf(responses)}}`,
    "",
    "/** ClientOriginatedMessage as it crosses the wire (id is int64). */",
    `export interface ClientOriginatedMessage extends ClientSubmessages {\n${fieldsOf([id])}}`,
    "",
    "/** ServerOriginatedMessage as it crosses the wire: a reply (with id) or a notification (no id). */",
    `export interface ServerOriginatedMessage extends ServerResponse {\n${fieldsOf([server.fields.id, ...notification])}}`
  ].join("\n")
}

const allTypes = (namespace) => {
  const out = []
  const walk = (ns) => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type) {
        out.push(nested)
        walk(nested)
      } else if (nested instanceof protobuf.Enum) out.push(nested)
      else if (nested instanceof protobuf.Namespace) walk(nested)
    }
  }
  walk(namespace)
  return out
}

const HEADER = (what) =>
  [
    `// GENERATED by proto/codegen.mjs from proto/iterm2.proto: ${what}`,
    "// Do not edit: change the .proto, then run `npm run codegen` (the build fails while they differ)."
  ].join("\n")

const generateTypes = (parsedRoot) => {
  const pkg = parsedRoot.lookup("iterm2")
  const client = parsedRoot.lookupType("iterm2.ClientOriginatedMessage")
  const server = parsedRoot.lookupType("iterm2.ServerOriginatedMessage")
  const names = new Map()
  const parts = []
  for (const type of allTypes(pkg)) {
    const name = tsName(type)
    if (names.has(name))
      throw new Error(`codegen: ${fullName(type)} and ${names.get(name)} both map to ${name}`)
    names.set(name, fullName(type))
    if (type === client || type === server) continue
    parts.push(type instanceof protobuf.Enum ? emitEnum(type) : emitMessage(type))
  }
  return [
    HEADER("the plain TypeScript shapes of the messages."),
    "/**",
    " * Iterm2Messages — plain TypeScript shapes of the subset of iTerm2's API messages TermPilot uses.",
    " * Field names are upstream's snake_case, int64 is `number`, enums are their string names, and every",
    " * proto2 field is optional: absent stays absent, and consumers apply proto2 defaults themselves.",
    " */",
    "",
    parts.join("\n"),
    emitEnvelopes(client, server),
    ""
  ].join("\n")
}

// ------------------------------------------------------------------ the static code

const pbjs = (file) =>
  new Promise((resolvePromise, reject) => {
    const { pbjs: cli } = require("protobufjs-cli")
    cli.main(
      [
        "--target",
        "static-module",
        "--wrap",
        "es6",
        "--keep-case",
        "--no-comments",
        "--no-create",
        "--no-verify",
        "--no-delimited",
        "--no-typeurl",
        "--no-service",
        "--dependency",
        "protobufjs/minimal.js",
        file
      ],
      (error, output) => (error ? reject(error) : resolvePromise(output))
    )
  })

const generateStatic = async (file) => {
  const code = await pbjs(file)
  return [
    HEADER("protobufjs static code (pbjs static-module; encode, decode, fromObject, toObject)."),
    "// biome-ignore-all lint: generated code",
    "// biome-ignore-all format: generated code",
    "// @ts-nocheck",
    code.replace(/^\/\*eslint-disable[^\n]*\n/, "").trimEnd(),
    ""
  ].join("\n")
}

// ------------------------------------------------------------------ main

const main = async () => {
  const text = readFileSync(protoFile, "utf8")
  const parsed = protobuf.parse(text, { keepCase: true, alternateCommentMode: true }).root
  parsed.resolveAll()
  const outputs = [
    [TYPES_OUT, generateTypes(parsed)],
    [STATIC_OUT, await generateStatic(protoFile)]
  ]
  const stale = []
  for (const [path, content] of outputs) {
    const target = join(root, path)
    let current
    try {
      current = readFileSync(target, "utf8")
    } catch {
      current = undefined
    }
    if (current === content) continue
    if (check) stale.push(relative(process.cwd(), target) || target)
    else writeFileSync(target, content)
  }
  if (stale.length > 0) {
    process.stderr.write(
      `codegen: ${stale.join(", ")} differ from what ${relative(process.cwd(), protoFile)} generates; run \`npm run codegen\`\n`
    )
    process.exit(1)
  }
}

main().catch((error) => {
  process.stderr.write(`codegen: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
})
