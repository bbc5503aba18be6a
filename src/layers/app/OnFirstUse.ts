/**
 * OnFirstUse — a service shape whose implementation is built on its first use. Every member of the
 * returned shape awaits `real` (an Effect built once and shared, e.g. `Effect.cached`) and then
 * delegates to the same member of what it built. BackendLive uses it so that the iTerm2 backend's
 * code (ws, the protobuf messages: ~0.5 MB of the bundle, ~5 MB of idle RSS) is loaded only when
 * iTerm2 is used.
 */
import { Effect } from "effect"

/** For each member of a service: an Effect used as a value, or a function returning an Effect. */
export type Members<S> = { readonly [K in keyof S]-?: "effect" | "function" }

type AnEffect = Effect.Effect<unknown, unknown, unknown>
type AFunction = (...args: Array<unknown>) => AnEffect

export const onFirstUse = <S extends object>(real: Effect.Effect<S>, members: Members<S>): S => {
  const shape: Record<string, unknown> = {}
  const member = (s: S, key: string) => (s as Record<string, unknown>)[key]
  for (const [key, kind] of Object.entries(members)) {
    shape[key] =
      kind === "effect"
        ? Effect.flatMap(real, (s) => member(s, key) as AnEffect)
        : (...args: Array<unknown>) => Effect.flatMap(real, (s) => (member(s, key) as AFunction)(...args))
  }
  // Each member has the member's own type: the same Effect, after `real`, which cannot fail.
  return shape as S
}
