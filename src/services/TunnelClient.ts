/**
 * TunnelClient — the only door to OpenAI's `tunnel-client` executable (`runtimes --json
 * connect|status|stop`, `--version`). Payloads are Schema-decoded; every failure is a
 * `TunnelClientError` whose reason says which step broke and which carries tunnel-client's own
 * JSON payload (error, repair actions, next steps) when it printed one.
 */
import { Context, type Effect, Schema } from "effect"
import type { TunnelId } from "../domain/TunnelInputs.js"

const OptionalString = Schema.optional(Schema.NullOr(Schema.String))
const OptionalBoolean = Schema.optional(Schema.NullOr(Schema.Boolean))

/** One suggested repair: tunnel-client prints `{ id, command, reason }`; a bare string is tolerated. */
export const RepairAction = Schema.Union([
  Schema.Struct({ id: OptionalString, command: OptionalString, reason: OptionalString }),
  Schema.String
])
export type RepairAction = typeof RepairAction.Type

/**
 * The fields TermPilot reads from a `runtimes` payload (connect, status and stop share them).
 * Unknown fields are ignored; a known field of the wrong type fails the decode (fail closed).
 */
export const RuntimePayload = Schema.Struct({
  alias: OptionalString,
  tunnel_id: OptionalString,
  tunnel: Schema.optional(Schema.NullOr(Schema.Struct({ id: OptionalString }))),
  runtime_state: OptionalString,
  process_running: OptionalBoolean,
  healthy: OptionalBoolean,
  ready: OptionalBoolean,
  ui_url: OptionalString,
  mode: OptionalString,
  log_path: OptionalString,
  error: OptionalString,
  remote_error: OptionalString,
  stop_error: OptionalString,
  stopped: OptionalBoolean,
  already_stopped: OptionalBoolean,
  repair_actions: Schema.optional(Schema.NullOr(Schema.Array(RepairAction))),
  next_steps: Schema.optional(Schema.NullOr(Schema.Array(Schema.String)))
})
export type RuntimePayload = typeof RuntimePayload.Type

export const TunnelClientFailure = Schema.Literals([
  /** No executable at the given path or on PATH. */
  "not_found",
  /** The executable exists but could not be spawned. */
  "failed_to_start",
  /** No answer within the time bound; the process was killed. */
  "timeout",
  /** Exit 0 but stdout was not the expected JSON (or was empty). */
  "bad_output",
  /** Non-zero exit; `payload` holds its JSON answer when it printed one. */
  "exited_nonzero"
])
export type TunnelClientFailure = typeof TunnelClientFailure.Type

export class TunnelClientError extends Schema.TaggedError<TunnelClientError>()("TunnelClientError", {
  reason: TunnelClientFailure,
  /** One sentence a person can act on; never contains a secret value. */
  detail: Schema.String,
  exitCode: Schema.optional(Schema.Number),
  payload: Schema.optional(RuntimePayload),
  cause: Schema.optional(Schema.Defect())
}) {
  override get message() {
    return this.detail
  }
}

export interface ConnectRequest {
  readonly alias: string
  readonly tunnelId: TunnelId
  /** Name of the variable holding the runtime key; only `env:<name>` is ever passed on. */
  readonly runtimeKeyEnv: string
  /** The already-quoted stdio command tunnel-client will split and exec. */
  readonly mcpCommand: string
}

export class TunnelClient extends Context.Service<
  TunnelClient,
  {
    /** Absolute path of the executable that will be run (explicit path, else PATH lookup). */
    readonly executable: Effect.Effect<string, TunnelClientError>
    /** First line of `tunnel-client --version`. */
    readonly version: Effect.Effect<string, TunnelClientError>
    /** `runtimes --json connect --alias A --tunnel-id T --runtime-api-key env:NAME --mcp-command C`. */
    readonly connect: (request: ConnectRequest) => Effect.Effect<RuntimePayload, TunnelClientError>
    /** `runtimes --json status A`. */
    readonly status: (alias: string) => Effect.Effect<RuntimePayload, TunnelClientError>
    /** `runtimes --json stop A` (local runtime only; the remote tunnel is kept). */
    readonly stop: (alias: string) => Effect.Effect<RuntimePayload, TunnelClientError>
  }
>()("termpilot/TunnelClient") {}
