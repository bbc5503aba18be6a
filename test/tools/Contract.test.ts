/**
 * specs/tools.contract.json (and the prose in specs/) against what a real MCP client sees from
 * tools/list: names, annotations, input fields with type/default/bounds/required, output fields,
 * the error shape, and the enums. Docs and code cannot drift apart silently.
 */
import { readFileSync } from "node:fs"
import type { Tool } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { KEY_NAMES } from "../../src/domain/Keys.js"
import { CommandStatus, InterruptStatus } from "../../src/services/CommandRunner.js"
import { ErrorCode } from "../../src/services/Errors.js"
import { Readiness } from "../../src/services/Terminal.js"
import { ListedCommandStatus, RanBy } from "../../src/tools/ListCommands.js"
import { WaitStopped } from "../../src/tools/WaitForOutput.js"
import { type McpHarness, openMcpHarness } from "../support/McpHarness.js"
import { makeRecordingBackend } from "../support/RecordingBackend.js"

type Json = Record<string, unknown>
type FieldSpec = { type: string; enum?: string; items?: string }
type FieldMap = Record<string, FieldSpec>

interface Contract {
  server: { name: string }
  enums: Record<string, ReadonlyArray<string>>
  models: Record<string, FieldMap>
  tools: ReadonlyArray<{
    name: string
    annotations: Json
    input: Record<string, Json>
    output: string | FieldMap
  }>
}

const specs = new URL("../../specs/", import.meta.url)
const contract = JSON.parse(readFileSync(new URL("tools.contract.json", specs), "utf8")) as Contract

let harness: McpHarness
let tools: ReadonlyArray<Tool>
beforeAll(async () => {
  harness = await openMcpHarness(makeRecordingBackend().layer)
  tools = (await harness.client.listTools()).tools
})
afterAll(() => harness.close())

const typeOf = (schema: Json): string => {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as ReadonlyArray<Json>).map(typeOf).join(" | ")
  return String(schema.type)
}
const enumOf = (schema: Json): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(schema.enum)) return schema.enum
  if (Array.isArray(schema.anyOf))
    return (schema.anyOf as ReadonlyArray<Json>).map(enumOf).find((e) => e !== undefined)
  return undefined
}

/** Compare one object schema's properties with a contract field map (all fields required). */
const expectFields = (schema: Json, fields: FieldMap, where: string) => {
  const properties = (schema.properties ?? {}) as Record<string, Json>
  expect(Object.keys(properties), where).toEqual(Object.keys(fields))
  expect([...((schema.required ?? []) as ReadonlyArray<string>)].sort(), `${where} required`).toEqual(
    Object.keys(fields).sort()
  )
  expect(schema.additionalProperties, where).toBe(false)
  for (const [name, spec] of Object.entries(fields)) {
    const property = properties[name] ?? {}
    expect(typeOf(property), `${where}.${name} type`).toBe(spec.type)
    if (spec.enum !== undefined)
      expect(enumOf(property), `${where}.${name} enum`).toEqual(contract.enums[spec.enum])
    else expect(enumOf(property), `${where}.${name} has no enum`).toBeUndefined()
    if (spec.items !== undefined) {
      const model = contract.models[spec.items]
      if (model === undefined) throw new Error(`unknown model ${spec.items}`)
      expectFields(property.items as Json, model, `${where}.${name}[]`)
    }
  }
}

describe("specs/tools.contract.json matches tools/list", () => {
  it("lists the same tools in the same order", () => {
    expect(tools.map((t) => t.name)).toEqual(contract.tools.map((t) => t.name))
    expect(harness.client.getServerVersion()?.name).toBe(contract.server.name)
  })

  for (const spec of contract.tools) {
    describe(spec.name, () => {
      const tool = () => {
        const found = tools.find((t) => t.name === spec.name)
        if (found === undefined) throw new Error(`${spec.name} is not listed`)
        return found
      }

      it("annotations", () => {
        const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool().annotations ?? {}
        expect({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint }).toEqual(spec.annotations)
      })

      it("input fields: type, required, default and bounds", () => {
        const schema = tool().inputSchema as Json
        const properties = (schema.properties ?? {}) as Record<string, Json>
        const required = (schema.required ?? []) as ReadonlyArray<string>
        expect(schema.additionalProperties).toBe(false)
        const actual = Object.fromEntries(
          Object.entries(properties).map(([name, property]) => {
            const keep: Json = { type: typeOf(property), required: required.includes(name) }
            for (const key of [
              "default",
              "minimum",
              "maximum",
              "exclusiveMinimum",
              "minLength",
              "maxLength"
            ]) {
              if (key in property) keep[key] = property[key]
            }
            return [name, keep]
          })
        )
        expect(actual).toEqual(spec.input)
        for (const property of Object.values(properties))
          expect(property.description).toEqual(expect.any(String))
      })

      it("output: the tool's result, or the {error_code, message} error", () => {
        const schema = tool().outputSchema as Json
        expect(schema.type).toBe("object")
        const [result, error] = schema.anyOf as ReadonlyArray<Json>
        const fields = typeof spec.output === "string" ? contract.models[spec.output] : spec.output
        if (fields === undefined) throw new Error(`unknown model ${String(spec.output)}`)
        expectFields(result ?? {}, fields, `${spec.name} output`)
        expectFields(error ?? {}, contract.models.ToolError ?? {}, `${spec.name} error`)
      })
    })
  }

  it("enums equal the code's literals", () => {
    expect(contract.enums.Readiness).toEqual(Readiness.literals)
    expect(contract.enums.CommandStatus).toEqual(CommandStatus.literals)
    expect(contract.enums.InterruptStatus).toEqual(InterruptStatus.literals)
    expect(contract.enums.WaitStopped).toEqual(WaitStopped.literals)
    expect(contract.enums.ListedCommandStatus).toEqual(ListedCommandStatus.literals)
    expect(contract.enums.RanBy).toEqual(RanBy.literals)
    expect(contract.enums.ErrorCode).toEqual(ErrorCode.literals)
    expect(contract.enums.KeyName).toEqual(KEY_NAMES)
  })

  it("send_keys' keys are items of {text: string} or {key: KeyName}, nothing else", () => {
    const tool = tools.find((t) => t.name === "send_keys")
    const keys = ((tool?.inputSchema.properties ?? {}) as Record<string, Json>).keys ?? {}
    const items = ((keys.items as Json | undefined)?.anyOf ?? []) as ReadonlyArray<Json>
    const shapes = items.map((item) => {
      expect(item.additionalProperties).toBe(false)
      const [[name, property]] = Object.entries((item.properties ?? {}) as Record<string, Json>) as [
        [string, Json]
      ]
      expect(item.required).toEqual([name])
      return name === "key" ? { key: enumOf(property) } : { [name]: property.type }
    })
    expect(shapes).toEqual([{ text: "string" }, { key: contract.enums.KeyName }])
    expect(keys).toMatchObject({ minItems: 1, maxItems: 64 })
  })
})

describe("the prose specs name everything in the contract", () => {
  const tools_md = readFileSync(new URL("tools.md", specs), "utf8")
  const errors_md = readFileSync(new URL("errors.md", specs), "utf8")

  it("tools.md documents every tool, input and output field, status and readiness value", () => {
    for (const tool of contract.tools) {
      expect(tools_md).toContain(`## \`${tool.name}\``)
      for (const field of Object.keys(tool.input))
        expect(tools_md, `${tool.name}.${field}`).toContain(`\`${field}\``)
      const output = typeof tool.output === "string" ? contract.models[tool.output] : tool.output
      for (const field of Object.keys(output ?? {}))
        expect(tools_md, `${tool.name} output ${field}`).toContain(`\`${field}\``)
    }
    for (const value of [
      ...(contract.enums.InterruptStatus ?? []),
      ...(contract.enums.CommandStatus ?? []),
      ...(contract.enums.Readiness ?? []),
      ...(contract.enums.ListedCommandStatus ?? []),
      ...(contract.enums.RanBy ?? [])
    ]) {
      expect(tools_md, value).toContain(`\`${value}\``)
    }
  })

  it("errors.md documents every error code", () => {
    for (const code of contract.enums.ErrorCode ?? []) expect(errors_md, code).toContain(`\`${code}\``)
  })
})
