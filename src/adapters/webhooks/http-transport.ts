import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WEBHOOK_URL_MAX, type WebhookRequest, type WebhookResponse, type WebhookTransport } from '../../domain/index.js';
import { addressProblem } from './public-address.js';

export interface HttpWebhookTransportOptions {
  /** Allow loopback, private and every other non-public address (WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
  /** One deadline for resolving, connecting, sending and the response's headers (WEBHOOK_TIMEOUT_MS; default 10 s). */
  timeoutMs?: number;
  /** Resolves a host name to all its addresses (default: `dns.lookup` with `all`, as the system resolves). */
  resolve?: Resolve;
}

type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const WEBHOOK_USER_AGENT = 'MarginCMS-Webhooks/1';
/** The most bytes of a response body read (and discarded); then the connection is closed. */
const RESPONSE_BODY_MAX = 64 * 1024;

/** A failure worded for the delivery log (see `wordsFor`). */
class DeliveryError extends Error {}

function systemResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/** The URL's host as an address literal (no IPv6 brackets), or null when it is a name. */
function literalAddressOf(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? null : host;
}

/** A failure before any answer, in words without the request's headers or body. */
function wordsFor(error: unknown, host: string, timeoutMs: number): string {
  if (error instanceof DeliveryError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset before an answer';
    case 'ENOTFOUND':
      return `host ${host} not found`;
    case 'EAI_AGAIN':
      return `host ${host} could not be resolved (temporary DNS failure)`;
    case 'EHOSTUNREACH':
      return `host ${host} unreachable`;
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'ETIMEDOUT':
      return `timed out after ${formatSeconds(timeoutMs)}`;
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_STATUS':
    case 'HPE_INVALID_HEADER_TOKEN':
      return 'the answer was not valid HTTP';
  }
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && /CERT|TLS|SSL/.test(code)) return `TLS failed: ${message}`;
  return typeof code === 'string' ? `${message} (${code})` : message;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Why a host name may not receive webhooks, resolved now (within the timeout), or null when every address is public. */
async function nameRefusal(hostname: string, resolve: Resolve, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeliveryError(`host ${hostname} could not be resolved within ${formatSeconds(timeoutMs)}`)),
      timeoutMs,
    );
  });
  try {
    const addresses = await Promise.race([resolve(hostname), deadline]);
    if (addresses.length === 0) return `host ${hostname} was not found (it has no address)`;
    const refused = addresses.find((a) => addressProblem(a.address) !== null);
    if (refused === undefined) return null;
    return `host ${hostname} resolves to ${refused.address}, which is not a public address (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows private targets)`;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return `host ${hostname} was not found (it has no address)`;
    if (code === 'EAI_AGAIN') return `host ${hostname} could not be resolved (temporary DNS failure): try again`;
    return error instanceof DeliveryError
      ? error.message
      : `host ${hostname} could not be resolved: ${wordsFor(error, hostname, timeoutMs)}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Webhooks over node:http and node:https (see `WebhookTransport`). Unless private networks are
 * allowed, a host name is resolved by a `lookup` of our own that refuses when any of its
 * addresses is not public, and the connection goes to the addresses it checked (no second
 * resolution that could answer otherwise); a literal address is checked as it stands. One
 * connection per request (no agent), no redirects followed, at most 64 KiB of the answer read.
 */
export function createHttpWebhookTransport(options: HttpWebhookTransportOptions): WebhookTransport {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const resolve = options.resolve ?? systemResolve;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const checked = resolve(hostname).then((addresses) => {
      if (addresses.length === 0) throw new DeliveryError(`host ${hostname} has no address`);
      const problem = addresses.map((a) => addressProblem(a.address)).find((p) => p !== null);
      if (problem !== undefined) throw new DeliveryError(problem);
      return addresses;
    });
    checked.then(
      (addresses) =>
        lookupOptions.all
          ? callback(null, addresses)
          : callback(
              null,
              addresses.find((a) => !lookupOptions.family || a.family === lookupOptions.family)?.address ?? addresses[0]!.address,
              addresses[0]!.family,
            ),
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  /** `refusal` without the network: the URL's form, and a literal address or a localhost name. */
  function formRefusal(url: string): string | null {
    if (url.length > WEBHOOK_URL_MAX) return `the URL is longer than ${WEBHOOK_URL_MAX} characters`;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'not an absolute URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'only http: and https: URLs may receive webhooks';
    if (parsed.username !== '' || parsed.password !== '') return 'a URL with a user name or password is not allowed';
    if (options.allowPrivateNetworks) return null;
    const literal = literalAddressOf(parsed);
    if (literal !== null) return addressProblem(literal);
    // RFC 6761: names under localhost are loopback, whatever a resolver says; other names are checked when resolved.
    if (/(^|\.)localhost\.?$/i.test(parsed.hostname)) return `host ${parsed.hostname} is not public`;
    return null;
  }

  async function refusal(url: string): Promise<string | null> {
    // A fragment is never sent (it is not part of an HTTP request): a URL with one is not the URL called.
    if (url.includes('#')) return 'a URL with a fragment (#…) is not allowed: a fragment is never sent to the receiver';
    const form = formRefusal(url);
    if (form !== null || options.allowPrivateNetworks) return form;
    const parsed = new URL(url);
    return literalAddressOf(parsed) === null ? nameRefusal(parsed.hostname, resolve, timeoutMs) : null;
  }

  function send(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    const refused = formRefusal(request.url);
    if (refused !== null) return Promise.resolve({ kind: 'failed', error: refused, latencyMs: latencyMs() });
    const url = new URL(request.url);
    const body = Buffer.from(request.body, 'utf8');
    const requestOptions: RequestOptions = {
      method: 'POST',
      agent: false,
      headers: {
        ...request.headers,
        'user-agent': WEBHOOK_USER_AGENT,
        'content-type': 'application/json',
        'content-length': String(body.length),
      },
      ...(options.allowPrivateNetworks ? {} : { lookup }),
    };
    const failed = (error: unknown): WebhookResponse => ({
      kind: 'failed',
      error: wordsFor(error, url.hostname, timeoutMs),
      latencyMs: latencyMs(),
    });
    return new Promise<WebhookResponse>((settle) => {
      let settled = false;
      const finish = (response: WebhookResponse) => {
        clearTimeout(deadline);
        if (settled) return;
        settled = true;
        settle(response);
      };
      let req: ClientRequest;
      try {
        req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, requestOptions, (response) => {
          finish({ kind: 'answered', status: response.statusCode ?? 0, latencyMs: latencyMs() });
          discard(response, timeoutMs);
        });
      } catch (error) {
        // Invalid header values (a caller's bug) throw before anything is sent.
        settle(failed(error));
        return;
      }
      const deadline = setTimeout(() => req.destroy(new DeliveryError(`timed out after ${formatSeconds(timeoutMs)}`)), timeoutMs);
      req.on('error', (error) => finish(failed(error)));
      req.end(body);
    });
  }

  return { refusal, send };
}

/** Reads and drops at most `RESPONSE_BODY_MAX` bytes of an answer, within `timeoutMs`; then closes it. */
function discard(response: IncomingMessage, timeoutMs: number): void {
  let read = 0;
  const timer = setTimeout(() => response.destroy(), timeoutMs);
  timer.unref();
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > RESPONSE_BODY_MAX) response.destroy();
  });
  response.on('error', () => undefined);
  response.on('close', () => clearTimeout(timer));
  response.resume();
}
