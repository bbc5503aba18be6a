/**
 * Osc133 — pure helpers for shell-integration escape sequences: OSC 133 (FinalTerm prompt marks)
 * with TermPilot's `tp=` token and `n=` prompt number, OSC 7 (cwd as a file:// URL) and iTerm2's
 * OSC 1337 CurrentDir/RemoteHost payloads, and the prompt-lifecycle step iTerm2 applies. Finding
 * the sequences in a stream is VtParser's job (src/domain/VtParser.ts).
 */

/** One OSC 133 mark. Letters as FinalTerm defines them. */
export type Osc133Mark =
  /** `A`: the prompt starts. */
  | { readonly _tag: "PromptStart" }
  /** `B`: the prompt ends, the command line starts. */
  | { readonly _tag: "CommandLineStart" }
  /** `C`: the command line was accepted; output starts here. */
  | { readonly _tag: "CommandExecuted" }
  /** `D[;status]`: the command finished (status absent when nothing ran). */
  | { readonly _tag: "CommandFinished"; readonly exitCode: number | null }

/** Parses the payload after `133;` (e.g. `"D;7"`, `"A;k=v"`); null when it is not a known mark. */
export const parseOsc133 = (payload: string): Osc133Mark | null => {
  const [letter, first] = payload.split(";")
  switch (letter) {
    case "A":
      return { _tag: "PromptStart" }
    case "B":
      return { _tag: "CommandLineStart" }
    case "C":
      return { _tag: "CommandExecuted" }
    case "D": {
      if (first === undefined || !/^-?\d+$/.test(first)) return { _tag: "CommandFinished", exitCode: null }
      return { _tag: "CommandFinished", exitCode: Number.parseInt(first, 10) }
    }
    default:
      return null
  }
}

/**
 * The `tp=<token>` parameter of an OSC 133 payload (TermPilot's snippet adds it to every mark);
 * null when absent or not ≥ 16 lowercase hex characters. Other `k=v` parameters are ignored.
 */
export const osc133Token = (payload: string): string | null => {
  for (const field of payload.split(";").slice(1)) {
    if (field.startsWith("tp=")) {
      const token = field.slice(3)
      return /^[0-9a-f]{16,128}$/.test(token) ? token : null
    }
  }
  return null
}

/**
 * The `n=<prompt number>` parameter of an OSC 133 payload (TermPilot's snippet numbers its prompts:
 * every mark of one prompt carries its number, and the numbers of a shell only move forward); null
 * when absent or not a decimal of at most 15 digits.
 */
export const osc133Seq = (payload: string): number | null => {
  for (const field of payload.split(";").slice(1)) {
    if (field.startsWith("n=")) {
      const digits = field.slice(2)
      return /^\d{1,15}$/.test(digits) ? Number(digits) : null
    }
  }
  return null
}

/** The longest percent-encoded command line a mark or record may carry (the snippets send none longer). */
export const MAX_ENCODED_COMMAND = 6 * 1024

/**
 * Text percent-encoded as the snippets encode it (every byte outside `A-Z a-z 0-9 / . _ ~ -` as
 * `%XX`), decoded as UTF-8 (an invalid sequence shows as U+FFFD); null when `raw` is anything else.
 */
export const decodeUrlText = (raw: string): string | null => {
  if (!/^(?:[A-Za-z0-9/._~-]|%[0-9A-Fa-f]{2})*$/.test(raw)) return null
  const bytes: Array<number> = []
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === "%") {
      bytes.push(Number.parseInt(raw.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(raw.charCodeAt(i))
  }
  return new TextDecoder("utf-8").decode(new Uint8Array(bytes))
}

/**
 * The `cmd=<command line>` parameter of a mark (the snippets send the line the shell runs,
 * percent-encoded, at most MAX_ENCODED_COMMAND characters: zsh and fish in its `C`, bash in its `D`);
 * null when absent, empty (the snippet did not know it, or left out a longer line) or malformed.
 * Only as trusted as the mark that carries it.
 */
export const osc133Command = (payload: string): string | null => {
  for (const field of payload.split(";").slice(1)) {
    if (field.startsWith("cmd=")) {
      const raw = field.slice(4)
      return raw === "" || raw.length > MAX_ENCODED_COMMAND ? null : decodeUrlText(raw)
    }
  }
  return null
}

/**
 * The `sh=<shell id>` parameter of an OSC 133 payload (a shell marking with its pane's nested
 * secret names itself with a random id); null when absent or not 8 to 32 lowercase hex characters.
 */
export const osc133Shell = (payload: string): string | null => {
  for (const field of payload.split(";").slice(1)) {
    if (field.startsWith("sh=")) {
      const id = field.slice(3)
      return /^[0-9a-f]{8,32}$/.test(id) ? id : null
    }
  }
  return null
}

/**
 * One entry in `@termpilot_tokens`: a shell's token and, when it said, its process id; or, with
 * `nested`, the secret that shell exported (`LC_TERMPILOT`) for the shells started under it that
 * cannot reach tmux (over ssh, in a container).
 */
export interface TokenAnnouncement {
  readonly token: string
  readonly pid: number | null
  readonly nested: boolean
}

/** Parses one `@termpilot_tokens` entry, `<token>`, `<token>:<pid>` or `<secret>:<pid>:nested`; null when malformed. */
export const parseAnnouncement = (entry: string): TokenAnnouncement | null => {
  const match = /^([0-9a-f]{16,128})(?::([1-9]\d{0,9})(:nested)?)?$/.exec(entry)
  if (match === null) return null
  return {
    token: match[1]!,
    pid: match[2] === undefined ? null : Number(match[2]),
    nested: match[3] !== undefined
  }
}

/** What a shell reported about where it is. */
export type LocationReport =
  | { readonly _tag: "Directory"; readonly path: string; readonly host: string | null }
  | { readonly _tag: "RemoteHost"; readonly user: string | null; readonly host: string }

const decodePath = (raw: string): string => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** Parses an OSC 7 payload `file://host/path` (percent-decoded); null if it is not a file URL. */
export const parseOsc7 = (payload: string): LocationReport | null => {
  const match = /^file:\/\/([^/]*)(\/.*)?$/.exec(payload)
  if (match === null) return null
  const host = match[1] === undefined || match[1] === "" ? null : match[1]
  return { _tag: "Directory", path: decodePath(match[2] ?? "/"), host }
}

/** Parses the OSC 1337 payloads `CurrentDir=<path>` and `RemoteHost=[user@]host`; null otherwise. */
export const parseOsc1337 = (payload: string): LocationReport | null => {
  const eq = payload.indexOf("=")
  if (eq < 0) return null
  const key = payload.slice(0, eq)
  const value = payload.slice(eq + 1)
  if (key === "CurrentDir") return value === "" ? null : { _tag: "Directory", path: value, host: null }
  if (key === "RemoteHost") {
    const at = value.lastIndexOf("@")
    const host = at < 0 ? value : value.slice(at + 1)
    if (host === "") return null
    return { _tag: "RemoteHost", user: at < 0 ? null : value.slice(0, at), host }
  }
  return null
}

/** Where a prompt is in its life, as iTerm2 derives `prompt_state`. */
export type PromptPhase = "none" | "prompt" | "editing" | "running" | "finished"

/** What a mark means for the prompt it applies to (iTerm2's notification semantics). */
export type PromptStep =
  | { readonly _tag: "NewPrompt" }
  | { readonly _tag: "PromptDrawn" }
  | { readonly _tag: "CommandStarted" }
  | { readonly _tag: "CommandEnded"; readonly exitCode: number }
  /** D while the command line was being edited (no C): the command was abandoned. */
  | { readonly _tag: "Aborted" }
  | { readonly _tag: "Ignored" }

/**
 * One step of the prompt lifecycle as iTerm2's VT100Terminal applies it: A opens a new prompt,
 * B ends its prompt text, C starts the command, D with a status after C ends it, D between B and C
 * aborts, and D without a status after C changes nothing.
 */
export const stepPrompt = (
  phase: PromptPhase,
  mark: Osc133Mark
): { phase: PromptPhase; step: PromptStep } => {
  switch (mark._tag) {
    case "PromptStart":
      return { phase: "prompt", step: { _tag: "NewPrompt" } }
    case "CommandLineStart":
      return { phase: "editing", step: { _tag: "PromptDrawn" } }
    case "CommandExecuted":
      return phase === "editing"
        ? { phase: "running", step: { _tag: "CommandStarted" } }
        : { phase, step: { _tag: "Ignored" } }
    case "CommandFinished":
      if (phase === "editing") return { phase: "editing", step: { _tag: "Aborted" } }
      if (phase === "running" && mark.exitCode !== null) {
        return { phase: "finished", step: { _tag: "CommandEnded", exitCode: mark.exitCode } }
      }
      return { phase, step: { _tag: "Ignored" } }
  }
}
