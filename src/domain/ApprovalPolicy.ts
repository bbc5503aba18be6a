/**
 * The approval policy: when TermPilot asks the person (through the MCP client's elicitation dialog,
 * or in their own terminal: `askIn`) before it types into a terminal. `never` (default) asks nothing; `risky` asks before a command
 * matching the documented risky patterns (plus the user's own) and before anything on a protected
 * session; `always` asks before every run_command and interrupt_command. send_keys always asks,
 * unless `sendKeysWithoutApproval` (unsafe) is set. Pure: the config comes in, a reason comes out.
 */
import { Effect, Schema } from "effect"
import { SessionMatchers } from "./SessionPolicy.js"

export const ApprovalPolicyName = Schema.Literals(["never", "risky", "always"])
export type ApprovalPolicyName = typeof ApprovalPolicyName.Type

/**
 * Where the person is asked: `client` (the MCP client's elicitation dialog), `terminal` (a prompt
 * in the person's own terminal: an attached tmux client's menu, iTerm2's alert), or `auto` (default): the client's
 * dialog when the client declared elicitation, the terminal otherwise.
 */
export const ApprovalAskIn = Schema.Literals(["client", "terminal", "auto"])
export type ApprovalAskIn = typeof ApprovalAskIn.Type

/** Where one approval is asked, given the setting and whether the client declared elicitation. */
export const askWhere = (askIn: ApprovalAskIn, clientCanAsk: boolean): "client" | "terminal" =>
  askIn === "auto" ? (clientCanAsk ? "client" : "terminal") : askIn

export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 120
export const MAX_APPROVAL_TIMEOUT_SECONDS = 3600

/** A user-given risky pattern: a JavaScript regular expression (matched case-insensitively). */
const RiskyPattern = Schema.NonEmptyString.check(
  Schema.makeFilter(
    (source: string) => {
      try {
        new RegExp(source, "iu")
        return true
      } catch {
        return false
      }
    },
    { message: "must be a valid regular expression" }
  )
)

/** The config file's `approval` object. */
export const ApprovalConfig = Schema.Struct({
  policy: ApprovalPolicyName.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed("never" as const))),
  timeoutSeconds: Schema.Int.check(
    Schema.isBetween(
      { minimum: 1, maximum: MAX_APPROVAL_TIMEOUT_SECONDS },
      { message: `must be an integer number of seconds from 1 to ${MAX_APPROVAL_TIMEOUT_SECONDS}` }
    )
  ).pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(DEFAULT_APPROVAL_TIMEOUT_SECONDS))),
  /** More risky patterns, added to the built-in ones. */
  riskyPatterns: Schema.Array(RiskyPattern).pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed([]))),
  /** Sessions on which `risky` asks before every command (same globs as `policy`). */
  protectedSessions: Schema.optional(SessionMatchers),
  /** Where the person is asked (see ApprovalAskIn). */
  askIn: ApprovalAskIn.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed("auto" as const))),
  /** UNSAFE: let send_keys type without asking. */
  sendKeysWithoutApproval: Schema.Boolean.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(false)))
})
export type ApprovalConfig = typeof ApprovalConfig.Type

export const DEFAULT_APPROVAL_CONFIG: ApprovalConfig = Schema.decodeUnknownSync(ApprovalConfig)({})

/**
 * The built-in risky patterns, by name (specs/security.md lists them). Matched case-insensitively
 * anywhere in the command line, so `cd x && sudo y` and `(rm -rf z)` match too.
 */
export const RISKY_PATTERNS: ReadonlyArray<readonly [name: string, pattern: RegExp]> = [
  ["recursive delete", /\brm\s+(?:-\S+\s+)*-[a-z]*[rR][a-z]*\b|\brm\s+(?:-\S+\s+)*--recursive\b/iu],
  ["sudo / doas / su", /(?:^|[\s;&|(`$])(?:sudo|doas|su)(?:\s|$)/iu],
  ["git force push", /\bgit\b.*\bpush\b.*(?:\s--force\b|\s--force-with-lease\b|\s-[a-z]*f[a-z]*\b|\s\+\S)/iu],
  ["git history rewrite", /\bgit\b.*\b(?:reset\s+--hard|clean\s+-[a-z]*f|filter-branch|filter-repo)\b/iu],
  ["kubectl delete", /\bkubectl\b.*\b(?:delete|drain|replace\s+--force)\b/iu],
  ["terraform apply / destroy", /\b(?:terraform|tofu)\b.*\b(?:apply|destroy)\b/iu],
  ["SQL DROP / TRUNCATE / DELETE", /\b(?:drop\s+(?:table|database|schema)|truncate\b|delete\s+from)\b/iu],
  ["mkfs / disk format", /\b(?:mkfs(?:\.\w+)?|mke2fs|wipefs|fdisk|parted|diskutil\s+erase\w*)\b/iu],
  ["dd of=", /\bdd\b.*\bof=/iu],
  ["shutdown / reboot / halt", /(?:^|[\s;&|(])(?:shutdown|reboot|halt|poweroff|init\s+[06])\b/iu],
  ["download piped to a shell", /\b(?:curl|wget|fetch)\b.*\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b/iu],
  ["chmod / chown recursive", /\b(?:chmod|chown|chgrp)\s+(?:-\S+\s+)*-[a-z]*R/u],
  ["kill all processes", /\b(?:killall|pkill)\b|\bkill\s+-9\s+-1\b/iu],
  ["overwrite a device", />\s*\/dev\/(?:sd|nvme|disk|hd|mmcblk)/iu],
  ["fork bomb", /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/u]
]

/** What a tool is about to do, as far as the policy looks at it. */
export type ApprovalAction =
  | { readonly tool: "run_command"; readonly command: string }
  | { readonly tool: "interrupt_command"; readonly command: string }
  | { readonly tool: "send_keys" }

/** The first risky pattern `command` matches (built-in, then the user's), or undefined. */
export const riskyMatch = (command: string, extra: ReadonlyArray<string>): string | undefined => {
  for (const [name, pattern] of RISKY_PATTERNS) if (pattern.test(command)) return name
  for (const source of extra) if (new RegExp(source, "iu").test(command)) return `pattern ${source}`
  return undefined
}

/**
 * Why the person must be asked before `action`, or undefined when the policy lets it go unasked.
 * `protectedBy` says why the target session is protected (undefined when it is not).
 */
export const approvalReason = (
  config: ApprovalConfig,
  action: ApprovalAction,
  protectedBy: string | undefined
): string | undefined => {
  if (action.tool === "send_keys") {
    return config.sendKeysWithoutApproval ? undefined : "send_keys always needs approval"
  }
  switch (config.policy) {
    case "never":
      return undefined
    case "always":
      return "approval policy 'always'"
    case "risky": {
      if (protectedBy !== undefined) return `approval policy 'risky': protected session (${protectedBy})`
      if (action.tool !== "run_command") return undefined
      const risky = riskyMatch(action.command, config.riskyPatterns)
      return risky === undefined ? undefined : `approval policy 'risky': ${risky}`
    }
  }
}

/** Whether asking about `action` can ever be needed, before anything is looked up. */
export const mayNeedApproval = (config: ApprovalConfig, action: ApprovalAction): boolean =>
  action.tool === "send_keys" ? !config.sendKeysWithoutApproval : config.policy !== "never"

const ASKED_IN: Record<ApprovalAskIn, string> = {
  client: "asked in the MCP client's dialog only",
  terminal: "asked in the person's own terminal (an attached tmux client, or iTerm2's alert)",
  auto: "asked in the MCP client's dialog, or in the person's own terminal when the client has none"
}

/** One line for doctor and the server's instructions. */
export const describeApprovalPolicy = (config: ApprovalConfig): string => {
  const keys = `${
    config.sendKeysWithoutApproval
      ? "send_keys types WITHOUT asking (sendKeysWithoutApproval: unsafe)"
      : "send_keys always asks"
  }; ${ASKED_IN[config.askIn]}`
  switch (config.policy) {
    case "never":
      return `approval policy 'never': run_command and interrupt_command do not ask; ${keys}`
    case "risky":
      return `approval policy 'risky': asks before risky commands and anything on protected sessions (waits up to ${config.timeoutSeconds} s); ${keys}`
    case "always":
      return `approval policy 'always': asks before every run_command and interrupt_command (waits up to ${config.timeoutSeconds} s); ${keys}`
  }
}
