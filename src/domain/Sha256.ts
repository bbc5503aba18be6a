/**
 * Sha256 — SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as lowercase hex: the digest the domain's
 * rules are defined with (a read cursor's row and session digests, tmux's history anchors, a nested
 * shell's proof of its pane's secret). Computed by `@noble/hashes` (audited, pure JavaScript, no
 * dependencies) rather than node:crypto, so that src/domain stays free of I/O and of Node's modules;
 * it gives exactly what `createHash("sha256").update(text, "utf8").digest("hex")` gives
 * (test/domain/Sha256.test.ts checks it against node:crypto). Unkeyed digests only: a keyed MAC is
 * the caller's (src/tools/Cursors.ts).
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"

export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)))
