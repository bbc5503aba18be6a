/**
 * Redaction corpora: FAKE secrets generated from a seeded PRNG in the shapes providers use (never a
 * real credential, and nothing secret-shaped is committed as a literal), each in a realistic
 * terminal context, plus look-alikes that must come through unchanged.
 */

export const seededRandom = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const LOWER = "abcdefghijklmnopqrstuvwxyz"
const DIGITS = "0123456789"
const ALNUM = UPPER + LOWER + DIGITS
const B64URL = `${ALNUM}_-`
const B64 = `${ALNUM}+/`
const HEX = "0123456789abcdef"

export interface SecretCase {
  readonly name: string
  /** The kind the marker must carry. */
  readonly kind: string
  /** The exact text that must disappear. */
  readonly secret: string
  /** The secret in context; the expected output is `text` with `secret` replaced by the marker. */
  readonly text: string
}

export const makeSecretCorpus = (seed: number): ReadonlyArray<SecretCase> => {
  const rnd = seededRandom(seed)
  const pick = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("")
  /** Random text over `alphabet` that has an upper, a lower and a digit (real keys always do). */
  const mixed = (alphabet: string, n: number) =>
    pick(UPPER, 1) + pick(DIGITS, 1) + pick(LOWER, 1) + pick(alphabet, n - 3)
  const b64url = (s: string) => Buffer.from(s).toString("base64url")
  const password = () => mixed(`${ALNUM}!%^*-_+~`, 10 + Math.floor(rnd() * 14))
  const pemBody = (lines: number) => Array.from({ length: lines }, () => pick(B64, 64)).join("\n")
  const pem = (label: string, lines: number) =>
    `-----BEGIN ${label}-----\n${pemBody(lines)}\n${pick(B64, 20)}==\n-----END ${label}-----`

  const akia = `AKIA${pick(UPPER + DIGITS, 16)}`
  const asia = `ASIA${pick(UPPER + DIGITS, 16)}`
  const awsSecret = mixed(B64, 40)
  const ghp = `ghp_${mixed(ALNUM, 36)}`
  const ghs = `ghs_${mixed(ALNUM, 36)}`
  const ghoGhuGhr = ["gho", "ghu", "ghr"].map((p) => `${p}_${mixed(ALNUM, 36)}`)
  const pat = `github_pat_${mixed(ALNUM, 22)}_${mixed(ALNUM, 59)}`
  const glpat = `glpat-${mixed(`${ALNUM}_-`, 20)}`
  const xoxb = `xoxb-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${mixed(ALNUM, 24)}`
  const xoxp = `xoxp-${pick(DIGITS, 12)}-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(HEX, 32)}`
  const webhook = `https://hooks.slack.com/services/T${pick(UPPER + DIGITS, 8)}/B${pick(UPPER + DIGITS, 10)}/${mixed(ALNUM, 24)}`
  const openai = `sk-${mixed(ALNUM, 48)}`
  const openaiProj = `sk-proj-${mixed(B64URL, 156)}`
  const anthropic = `sk-ant-api03-${mixed(B64URL, 93)}AA`
  const stripe = `sk_live_${mixed(ALNUM, 99)}`
  const stripeRestricted = `rk_live_${mixed(ALNUM, 99)}`
  const google = `AIza${mixed(B64URL, 35)}`
  const npm = `npm_${mixed(ALNUM, 36)}`
  const jwt = [
    b64url(JSON.stringify({ alg: "HS256", typ: "JWT" })),
    b64url(JSON.stringify({ sub: pick(DIGITS, 10), name: "Fake User", iat: 1_700_000_000 })),
    Buffer.from(Array.from({ length: 32 }, () => Math.floor(rnd() * 256))).toString("base64url")
  ].join(".")
  const opaque = mixed(B64URL, 40)
  const pw = Array.from({ length: 12 }, password)

  return [
    {
      name: "AKIA id in env",
      kind: "aws_access_key",
      secret: akia,
      text: `export AWS_ACCESS_KEY_ID=${akia}\n`
    },
    {
      name: "ASIA id in sts JSON",
      kind: "aws_access_key",
      secret: asia,
      text: `{\n    "Credentials": {\n        "AccessKeyId": "${asia}",\n`
    },
    {
      name: "aws credentials file",
      kind: "aws_secret_access_key",
      secret: awsSecret,
      text: `[default]\naws_secret_access_key = ${awsSecret}\nregion = eu-west-1\n`
    },
    {
      name: "aws sts SecretAccessKey",
      kind: "aws_secret_access_key",
      secret: awsSecret,
      text: `        "SecretAccessKey": "${awsSecret}",\n`
    },
    { name: "ghp token in prose", kind: "github_token", secret: ghp, text: `my token is ${ghp} ok` },
    {
      name: "ghs token in a remote URL",
      kind: "github_token",
      secret: ghs,
      text: `fatal: unable to access 'https://x-access-token:${ghs}@github.com/acme/app.git/'`
    },
    ...ghoGhuGhr.map((t) => ({
      name: `${t.slice(0, 3)} token`,
      kind: "github_token",
      secret: t,
      text: `- ${t}\n`
    })),
    { name: "fine-grained PAT", kind: "github_token", secret: pat, text: `GH_TOKEN=${pat} gh repo list` },
    { name: "gitlab PAT", kind: "gitlab_token", secret: glpat, text: `PRIVATE-TOKEN: ${glpat}` },
    { name: "slack bot token", kind: "slack_token", secret: xoxb, text: `SLACK_BOT=${xoxb}` },
    { name: "slack user token", kind: "slack_token", secret: xoxp, text: `token ${xoxp} revoked?` },
    {
      name: "slack webhook",
      kind: "slack_webhook",
      secret: webhook,
      text: `curl -X POST ${webhook} -d @msg.json`
    },
    { name: "openai key", kind: "openai_key", secret: openai, text: `OPENAI_API_KEY="${openai}"` },
    { name: "openai project key", kind: "openai_key", secret: openaiProj, text: `key: ${openaiProj}\n` },
    { name: "anthropic key", kind: "anthropic_key", secret: anthropic, text: `x-api-key: ${anthropic}` },
    { name: "stripe live key", kind: "stripe_key", secret: stripe, text: `stripe login --api-key ${stripe}` },
    {
      name: "stripe restricted key",
      kind: "stripe_key",
      secret: stripeRestricted,
      text: `(${stripeRestricted})`
    },
    { name: "google api key", kind: "google_api_key", secret: google, text: `"apiKey": "${google}",` },
    { name: "npm token", kind: "npm_token", secret: npm, text: `//registry.npmjs.org/:_authToken=${npm}` },
    {
      name: "jwt in a cookie",
      kind: "jwt",
      secret: jwt,
      text: `Set-Cookie: session=${jwt}; Path=/; HttpOnly`
    },
    {
      name: "Authorization Bearer header",
      kind: "authorization",
      secret: opaque,
      text: `curl -H "Authorization: Bearer ${opaque}" https://api.example.com/v1/me`
    },
    {
      name: "Authorization Basic header",
      kind: "authorization",
      secret: b64url(`admin:${pw[0]}`),
      text: `> authorization: Basic ${b64url(`admin:${pw[0]}`)}\n`
    },
    {
      name: "bare bearer token",
      kind: "bearer_token",
      secret: opaque,
      text: `using bearer ${opaque} for upload`
    },
    {
      name: "password=",
      kind: "password",
      secret: pw[1]!,
      text: `mysql --user=root --password=${pw[1]!} app`
    },
    { name: "passwd=", kind: "password", secret: pw[2]!, text: `passwd=${pw[2]!}` },
    {
      name: "quoted env password",
      kind: "password",
      secret: pw[3]!,
      text: `PGPASSWORD='${pw[3]!}' psql -h db`
    },
    {
      name: "JSON password",
      kind: "password",
      secret: pw[4]!,
      text: `{"user":"bob","password":"${pw[4]!}"}`
    },
    {
      name: "YAML password",
      kind: "password",
      secret: pw[5]!,
      text: `  DB_PASSWORD: ${pw[5]!}\n  DB_HOST: db`
    },
    { name: "secret=", kind: "secret", secret: pw[6]!, text: `client_secret := "${pw[6]!}"` },
    { name: "export X_TOKEN=", kind: "token", secret: opaque, text: `export API_TOKEN=${opaque}\n` },
    { name: "token: header", kind: "token", secret: pw[7]!, text: `token: ${pw[7]!}` },
    {
      name: "api_key query",
      kind: "api_key",
      secret: pw[8]!,
      text: `GET /v1/search?q=cats&api_key=${pw[8]!}&page=2`
    },
    { name: "apikey=", kind: "api_key", secret: pw[9]!, text: `apikey=${pw[9]!}` },
    {
      name: "postgres URL password",
      kind: "url_password",
      secret: pw[10]!.replace(/[^A-Za-z0-9]/g, "x"),
      text: `postgres://admin:${pw[10]!.replace(/[^A-Za-z0-9]/g, "x")}@db.internal:5432/app`
    },
    {
      name: "redis URL, empty user",
      kind: "url_password",
      secret: pw[11]!.replace(/[^A-Za-z0-9]/g, "x"),
      text: `REDIS_URL=redis://:${pw[11]!.replace(/[^A-Za-z0-9]/g, "x")}@cache:6379/0`
    },
    ...[
      "RSA PRIVATE KEY",
      "EC PRIVATE KEY",
      "OPENSSH PRIVATE KEY",
      "ENCRYPTED PRIVATE KEY",
      "PRIVATE KEY"
    ].map((label) => {
      const block = pem(label, 6)
      return { name: `PEM ${label}`, kind: "private_key", secret: block, text: `$ cat key.pem\n${block}\n$ ` }
    }),
    (() => {
      const block = `-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: fake\n\n${pemBody(5)}\n=${pick(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----`
      return { name: "PGP private key block", kind: "private_key", secret: block, text: `${block}\n` }
    })(),
    (() => {
      // A tail-bounded read: the BEGIN line scrolled away.
      const tail = `${pemBody(4)}\n${pick(B64, 30)}=\n-----END RSA PRIVATE KEY-----`
      return {
        name: "PEM tail without BEGIN",
        kind: "private_key",
        secret: tail,
        text: `$ cat id\n${tail}\n$ `
      }
    })(),
    (() => {
      // A head-bounded read: the END line never arrived.
      const head = `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody(3)}\n${pick(B64, 12)}`
      return {
        name: "PEM head without END",
        kind: "private_key",
        secret: head,
        text: `$ head -4 id\n${head}`
      }
    })()
  ]
}

/** Text that resembles secrets but is not; redaction must return it unchanged. */
export const makeLookAlikes = (seed: number): ReadonlyArray<string> => {
  const rnd = seededRandom(seed)
  const pick = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("")
  const sha = pick(HEX, 40)
  const uuid = `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`
  const prose = "The quick brown fox jumps over the lazy dog, then asks for the tokenizer settings."
  return [
    `commit ${sha}\nAuthor: Dev <dev@example.com>\n\n    Fix tokenizer edge case`,
    `HEAD is now at ${sha.slice(0, 7)} Merge pull request #42 from acme/feature`,
    `request ${uuid} completed in 12ms`,
    `docker pull ghcr.io/acme/app@sha256:${pick(HEX, 64)}`,
    Buffer.from(prose).toString("base64"),
    Buffer.from(JSON.stringify({ note: prose })).toString("base64url"),
    "password=",
    "password= ",
    'password=""',
    "password=$DB_PASSWORD",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference, not a JS template
    'password="${DB_PASSWORD}"',
    "export GITHUB_TOKEN=$(gh auth token)",
    "token: null\nsecret: false\napi_key: <your-api-key>\npassword: ********",
    "Enter password:",
    "[sudo] password for dev: ",
    "from transformers import AutoTokenizer\ntokenizer = AutoTokenizer.from_pretrained('bert')",
    "max_tokens=256 temperature=0.2 token_count: 17",
    "PWD=/home/dev/src/app\nOLDPWD=/home/dev",
    "/home/dev/.ssh/id_rsa ~/.aws/credentials src/auth/TokenStore.ts secrets/README.md",
    "pip install scikit-learn  # aka sk-learn",
    "sk-learn-tutorial-for-beginners-with-pipelines",
    "ids: sk-1 ghp_abc AKIA123 AIzaShort xoxb-1 glpat-x eyJhbGci",
    "git@github.com:acme/app.git https://github.com/acme/app.git ssh://git@github.com:22/acme/app",
    "postgres://localhost:5432/app http://user@example.com/ https://example.com:8443/path?q=1",
    'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
    "Bearer authentication is described in RFC 6750.",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUfake\n-----END CERTIFICATE-----",
    "Version 1.2.3-beta.4 released on 2026-11-29 at 12:30:45 UTC (build 0x1f2e)",
    "kind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\nsecretName: db-creds",
    `eyJub3RlIjoiaGVsbG8ifQ is base64 for a JSON object`
  ]
}
