/**
 * Iterm2Messages — plain TypeScript shapes of the subset of iTerm2's API messages TermPilot uses
 * (proto/iterm2.proto, transcribed from upstream api.proto). Field names are upstream's snake_case,
 * int64 is `number`, enums are their string names, and every proto2 field is optional: absent
 * stays absent, and consumers apply proto2 defaults (e.g. `status` → "OK", `continuation` →
 * "CONTINUATION_HARD_EOL", `num_code_points` → 1).
 */

// ---------------------------------------------------------------- shared small types

export interface Coord {
  readonly x?: number
  /** Absolute line number (int64). */
  readonly y?: number
}
/** Half-open: `end` is the first cell not included. */
export interface CoordRange {
  readonly start?: Coord
  readonly end?: Coord
}
export interface Range {
  readonly location?: number
  readonly length?: number
}
export interface WindowedCoordRange {
  readonly coord_range?: CoordRange
  /** `length` 0 means no column window. */
  readonly columns?: Range
}
export interface Size {
  readonly width?: number
  readonly height?: number
}
export interface Point {
  readonly x?: number
  readonly y?: number
}
export interface Frame {
  readonly origin?: Point
  readonly size?: Size
}

// ---------------------------------------------------------------- ListSessions

export type ListSessionsRequest = Readonly<Record<string, never>>
export interface SessionSummary {
  readonly unique_identifier?: string
  readonly frame?: Frame
  readonly grid_size?: Size
  readonly title?: string
}
export interface SplitTreeLink {
  readonly session?: SessionSummary
  readonly node?: SplitTreeNode
}
export interface SplitTreeNode {
  /** Direction of the divider: true means children side by side. */
  readonly vertical?: boolean
  readonly links?: ReadonlyArray<SplitTreeLink>
}
export interface ListSessionsTab {
  readonly tab_id?: string
  readonly root?: SplitTreeNode
  /** Always set by the server; "-1" for non-tmux tabs. */
  readonly tmux_window_id?: string
  readonly tmux_connection_id?: string
  readonly minimized_sessions?: ReadonlyArray<SessionSummary>
  /** Protocol ≥ 1.18 only. */
  readonly active_session_id?: string
}
export interface ListSessionsWindow {
  readonly tabs?: ReadonlyArray<ListSessionsTab>
  readonly window_id?: string
  readonly frame?: Frame
  readonly number?: number
  /** Protocol ≥ 1.18 only. */
  readonly selected_tab_id?: string
}
export interface ListSessionsResponse {
  readonly windows?: ReadonlyArray<ListSessionsWindow>
  readonly buried_sessions?: ReadonlyArray<SessionSummary>
}

// ---------------------------------------------------------------- GetBuffer

/** Set exactly one (presence matters: `screen_contents_only: false` still counts as set). */
export interface LineRange {
  readonly screen_contents_only?: boolean
  readonly trailing_lines?: number
  readonly windowed_coord_range?: WindowedCoordRange
}
export interface GetBufferRequest {
  readonly session?: string
  readonly line_range?: LineRange
  readonly include_styles?: boolean
}
export type Continuation = "CONTINUATION_HARD_EOL" | "CONTINUATION_SOFT_EOL"
export interface CodePointsPerCell {
  /** proto2 default 1; 0 marks an uninitialized cell. */
  readonly num_code_points?: number
  readonly repeats?: number
}
export interface RGBColor {
  readonly red?: number
  readonly green?: number
  readonly blue?: number
}
export type AlternateColor = "DEFAULT" | "REVERSED_DEFAULT" | "SYSTEM_MESSAGE"
export type ImagePlaceholderType = "NONE" | "ITERM2" | "KITTY"
export interface URL {
  readonly url?: string
  readonly identifier?: string
}
export interface CellStyle {
  readonly fgStandard?: number
  readonly fgAlternate?: AlternateColor
  readonly fgRgb?: RGBColor
  readonly fgAlternatePlacementX?: number
  readonly bgStandard?: number
  readonly bgAlternate?: AlternateColor
  readonly bgRgb?: RGBColor
  readonly bgAlternatePlacementY?: number
  readonly bold?: boolean
  readonly faint?: boolean
  readonly italic?: boolean
  readonly blink?: boolean
  readonly underline?: boolean
  readonly strikethrough?: boolean
  readonly invisible?: boolean
  readonly inverse?: boolean
  readonly guarded?: boolean
  readonly image?: ImagePlaceholderType
  readonly underlineColor?: RGBColor
  readonly blockID?: string
  readonly url?: URL
  readonly repeats?: number
}
export interface LineContents {
  readonly text?: string
  readonly code_points_per_cell?: ReadonlyArray<CodePointsPerCell>
  /** proto2 default "CONTINUATION_HARD_EOL". */
  readonly continuation?: Continuation
  readonly style?: ReadonlyArray<CellStyle>
}
export type GetBufferStatus = "OK" | "SESSION_NOT_FOUND" | "INVALID_LINE_RANGE" | "REQUEST_MALFORMED"
export interface GetBufferResponse {
  /** proto2 default "OK". */
  readonly status?: GetBufferStatus
  /** Deprecated, not set by current servers. */
  readonly range?: Range
  readonly contents?: ReadonlyArray<LineContents>
  /** Absolute coordinates. */
  readonly cursor?: Coord
  /** Deprecated, not set by current servers. */
  readonly num_lines_above_screen?: number
  readonly windowed_coord_range?: WindowedCoordRange
}

// ---------------------------------------------------------------- SendText

export interface SendTextRequest {
  readonly session?: string
  readonly text?: string
  readonly suppress_broadcast?: boolean
}
export type SendTextStatus = "OK" | "SESSION_NOT_FOUND"
export interface SendTextResponse {
  readonly status?: SendTextStatus
}

// ---------------------------------------------------------------- Prompts

export interface GetPromptRequest {
  readonly session?: string
  /** Absent → the last prompt. Never send an empty string. */
  readonly unique_prompt_id?: string
}
export type GetPromptStatus = "OK" | "SESSION_NOT_FOUND" | "REQUEST_MALFORMED" | "PROMPT_UNAVAILABLE"
/** On the wire FINISHED is 2 (Python's 3 is wrong). */
export type PromptState = "EDITING" | "RUNNING" | "FINISHED"
export interface GetPromptResponse {
  /** proto2 default "OK". */
  readonly status?: GetPromptStatus
  readonly prompt_range?: CoordRange
  readonly command_range?: CoordRange
  /** `end` is the current cursor position, for any prompt. */
  readonly output_range?: CoordRange
  readonly working_directory?: string
  readonly command?: string
  readonly prompt_state?: PromptState
  /** Only when FINISHED. */
  readonly exit_status?: number
  readonly unique_prompt_id?: string
  /** Protocol ≥ 1.15 only; not in notifications. */
  readonly excluded_subranges?: ReadonlyArray<CoordRange>
}
export interface ListPromptsRequest {
  readonly session?: string
  readonly first_unique_id?: string
  readonly last_unique_id?: string
}
export type ListPromptsStatus = "OK" | "SESSION_NOT_FOUND"
export interface ListPromptsResponse {
  readonly status?: ListPromptsStatus
  /** Oldest first. */
  readonly unique_prompt_id?: ReadonlyArray<string>
}

// ---------------------------------------------------------------- Notifications

export type NotificationType =
  | "NOTIFY_ON_KEYSTROKE"
  | "NOTIFY_ON_SCREEN_UPDATE"
  | "NOTIFY_ON_PROMPT"
  | "NOTIFY_ON_LOCATION_CHANGE"
  | "NOTIFY_ON_CUSTOM_ESCAPE_SEQUENCE"
  | "NOTIFY_ON_NEW_SESSION"
  | "NOTIFY_ON_TERMINATE_SESSION"
  | "NOTIFY_ON_LAYOUT_CHANGE"
  | "NOTIFY_ON_FOCUS_CHANGE"
  | "NOTIFY_ON_SERVER_ORIGINATED_RPC"
  | "NOTIFY_ON_BROADCAST_CHANGE"
  | "NOTIFY_ON_VARIABLE_CHANGE"
  | "NOTIFY_ON_PROFILE_CHANGE"
  | "KEYSTROKE_FILTER"
export type PromptMonitorMode = "PROMPT" | "COMMAND_START" | "COMMAND_END"
export interface PromptMonitorRequest {
  readonly modes?: ReadonlyArray<PromptMonitorMode>
}
export type VariableScope = "SESSION" | "TAB" | "WINDOW" | "APP"
export interface VariableMonitorRequest {
  readonly name?: string
  readonly scope?: VariableScope
  readonly identifier?: string
}
export interface NotificationRequest {
  /** Session id, "all" or "active". */
  readonly session?: string
  /** Must be present: encode `false` explicitly to unsubscribe. */
  readonly subscribe?: boolean
  readonly notification_type?: NotificationType
  readonly variable_monitor_request?: VariableMonitorRequest
  readonly prompt_monitor_request?: PromptMonitorRequest
}
export type NotificationStatus =
  | "OK"
  | "SESSION_NOT_FOUND"
  | "REQUEST_MALFORMED"
  | "NOT_SUBSCRIBED"
  | "ALREADY_SUBSCRIBED"
  | "DUPLICATE_SERVER_ORIGINATED_RPC"
  | "INVALID_IDENTIFIER"
export interface NotificationResponse {
  readonly status?: NotificationStatus
}

export interface PromptNotificationPrompt {
  readonly placeholder?: string
  /** From iTerm2 3.5.0 on; without `excluded_subranges`. */
  readonly prompt?: GetPromptResponse
}
export interface PromptNotificationCommandStart {
  readonly command?: string
}
export interface PromptNotificationCommandEnd {
  /** The exit status. */
  readonly status?: number
}
export interface PromptNotification {
  readonly session?: string
  /** oneof event; none set (servers < 1.1) means PROMPT. */
  readonly prompt?: PromptNotificationPrompt
  readonly command_start?: PromptNotificationCommandStart
  readonly command_end?: PromptNotificationCommandEnd
  readonly unique_prompt_id?: string
}
export interface ScreenUpdateNotification {
  readonly session?: string
}
export interface NewSessionNotification {
  readonly session_id?: string
}
/** May arrive twice for one session. */
export interface TerminateSessionNotification {
  readonly session_id?: string
}
export interface LayoutChangedNotification {
  readonly list_sessions_response?: ListSessionsResponse
}
export type WindowStatus =
  | "TERMINAL_WINDOW_BECAME_KEY"
  | "TERMINAL_WINDOW_IS_CURRENT"
  | "TERMINAL_WINDOW_RESIGNED_KEY"
export interface FocusChangedWindow {
  readonly window_status?: WindowStatus
  readonly window_id?: string
}
/** oneof event: exactly one of these is set. */
export interface FocusChangedNotification {
  readonly application_active?: boolean
  readonly window?: FocusChangedWindow
  readonly selected_tab?: string
  readonly session?: string
}
export interface VariableChangedNotification {
  readonly scope?: VariableScope
  readonly identifier?: string
  readonly name?: string
  /** JSON; "null" when unset. */
  readonly json_new_value?: string
}
/** Plain optional fields (not a oneof); the server sets one. */
export interface Notification {
  readonly screen_update_notification?: ScreenUpdateNotification
  readonly prompt_notification?: PromptNotification
  readonly new_session_notification?: NewSessionNotification
  readonly terminate_session_notification?: TerminateSessionNotification
  readonly layout_changed_notification?: LayoutChangedNotification
  readonly focus_changed_notification?: FocusChangedNotification
  readonly variable_changed_notification?: VariableChangedNotification
}

// ---------------------------------------------------------------- Variables, focus, transactions

export interface VariableSet {
  readonly name?: string
  /** JSON; the literal `null` unsets. */
  readonly value?: string
}
/** oneof scope: session_id · tab_id · app · window_id. */
export interface VariableRequest {
  readonly session_id?: string
  readonly tab_id?: string
  readonly app?: boolean
  readonly window_id?: string
  readonly set?: ReadonlyArray<VariableSet>
  readonly get?: ReadonlyArray<string>
}
export type VariableStatus =
  | "OK"
  | "SESSION_NOT_FOUND"
  | "INVALID_NAME"
  | "MISSING_SCOPE"
  | "TAB_NOT_FOUND"
  | "MULTI_GET_DISALLOWED"
  | "WINDOW_NOT_FOUND"
export interface VariableResponse {
  readonly status?: VariableStatus
  /** 1:1 with `get`, each JSON-encoded ("null" when unset). */
  readonly values?: ReadonlyArray<string>
}

export type FocusRequest = Readonly<Record<string, never>>
export interface FocusResponse {
  readonly notifications?: ReadonlyArray<FocusChangedNotification>
}

export interface TransactionRequest {
  /** true begins; false (or absent) ends. */
  readonly begin?: boolean
}
export type TransactionStatus = "OK" | "NO_TRANSACTION" | "ALREADY_IN_TRANSACTION"
export interface TransactionResponse {
  readonly status?: TransactionStatus
}

// ---------------------------------------------------------------- Activate, GetProperty

export interface ActivateApp {
  readonly raise_all_windows?: boolean
  readonly ignoring_other_apps?: boolean
}
/** oneof identifier: window_id · tab_id · session_id (omit all to only activate the app). */
export interface ActivateRequest {
  readonly window_id?: string
  readonly tab_id?: string
  readonly session_id?: string
  readonly order_window_front?: boolean
  readonly select_tab?: boolean
  readonly select_session?: boolean
  readonly activate_app?: ActivateApp
}
export type ActivateStatus = "OK" | "BAD_IDENTIFIER" | "INVALID_OPTION"
export interface ActivateResponse {
  readonly status?: ActivateStatus
}

/** oneof identifier: window_id · session_id. */
export interface GetPropertyRequest {
  readonly window_id?: string
  readonly session_id?: string
  readonly name?: string
}
export type GetPropertyStatus = "OK" | "UNRECOGNIZED_NAME" | "INVALID_TARGET"
export interface GetPropertyResponse {
  readonly status?: GetPropertyStatus
  readonly json_value?: string
}

// ---------------------------------------------------------------- envelopes

/** The `submessage` oneof of ClientOriginatedMessage, as optional fields. */
export interface ClientSubmessages {
  readonly get_buffer_request?: GetBufferRequest
  readonly get_prompt_request?: GetPromptRequest
  readonly transaction_request?: TransactionRequest
  readonly notification_request?: NotificationRequest
  readonly list_sessions_request?: ListSessionsRequest
  readonly send_text_request?: SendTextRequest
  readonly get_property_request?: GetPropertyRequest
  readonly activate_request?: ActivateRequest
  readonly variable_request?: VariableRequest
  readonly focus_request?: FocusRequest
  readonly list_prompts_request?: ListPromptsRequest
}

type ExactlyOne<T> = {
  readonly [K in keyof T]-?: { readonly [P in K]-?: NonNullable<T[P]> } & {
    readonly [P in Exclude<keyof T, K>]?: never
  }
}[keyof T]

/** A request: ClientOriginatedMessage without `id`, with exactly one submessage set. */
export type ClientRequest = ExactlyOne<ClientSubmessages>

/** The `submessage` oneof of ServerOriginatedMessage (minus `notification`), as optional fields. */
export interface ServerResponse {
  readonly error?: string
  readonly get_buffer_response?: GetBufferResponse
  readonly get_prompt_response?: GetPromptResponse
  readonly transaction_response?: TransactionResponse
  readonly notification_response?: NotificationResponse
  readonly list_sessions_response?: ListSessionsResponse
  readonly send_text_response?: SendTextResponse
  readonly get_property_response?: GetPropertyResponse
  readonly activate_response?: ActivateResponse
  readonly variable_response?: VariableResponse
  readonly focus_response?: FocusResponse
  readonly list_prompts_response?: ListPromptsResponse
}

/** ClientOriginatedMessage as it crosses the wire (id is int64). */
export interface ClientOriginatedMessage extends ClientSubmessages {
  readonly id?: number
}

/** ServerOriginatedMessage as it crosses the wire: a reply (with id) or a notification (no id). */
export interface ServerOriginatedMessage extends ServerResponse {
  readonly id?: number
  readonly notification?: Notification
}
