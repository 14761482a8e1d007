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
 * - `refusal(url)` answers why `url` may not be a subscription's target, without using the
 *   network (not `http:`/`https:`, credentials in it, a literal address that is not public while
 *   private networks are not allowed), or null when it may.
 * - `send(request)` POSTs the request: it resolves the host and refuses, before connecting, any
 *   address that is not public (loopback, private, link-local, metadata, …) unless private
 *   networks are allowed, connects to the address it checked, never follows a redirect, and gives
 *   up after its timeout. It never throws: every failure is `{ kind: 'failed', error }` in words
 *   ("timed out after 10 s", "connection refused", "address 10.0.0.1 is not public").
 */
export interface WebhookTransport {
  refusal(url: string): string | null;
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
