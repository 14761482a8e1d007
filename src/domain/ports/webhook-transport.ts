/** One delivery attempt as sent: a POST of `body` (JSON) with `headers` to `url`. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How an attempt went: the receiver answered (any status), or it failed before an answer. */
export type WebhookResponse =
  { kind: 'answered'; status: number; latencyMs: number } | { kind: 'failed'; error: string; latencyMs: number };

/**
 * Sends webhooks over the network, and says which URLs may receive them.
 * - `refusal(url)` answers why `url` may not be a subscription's target, in words for the user,
 *   or null when it may: not `http:`/`https:`, credentials or a fragment in it; and, while private
 *   networks are not allowed, a literal address that is not public, a `localhost` name, or a host
 *   name that, resolved now (within the timeout), does not resolve or has an address that is not
 *   public ("host hooks.internal resolves to 10.0.0.12, which is not a public address …", "host
 *   x.invalid was not found …"). It never throws. With private networks allowed, names are not
 *   resolved.
 * - `send(request)` POSTs the request: it resolves the host and refuses, before connecting, any
 *   address that is not public (loopback, private, link-local, metadata, …) unless private
 *   networks are allowed, connects to the address it checked, never follows a redirect, and gives
 *   up after its timeout. It never throws: every failure is `{ kind: 'failed', error }` in words
 *   ("timed out after 10 s", "connection refused", "address 10.0.0.1 is not public").
 */
export interface WebhookTransport {
  refusal(url: string): Promise<string | null>;
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com).
 * - `newSecret()` answers `whsec_` + base64 of 32 random bytes.
 * - `sign(secret, id, timestamp, body)` answers `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`
 *   keyed with the secret's base64-decoded bytes (after `whsec_`).
 */
export interface WebhookSigner {
  newSecret(): string;
  sign(secret: string, id: string, timestampSeconds: number, body: string): string;
}
