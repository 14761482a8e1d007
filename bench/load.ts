/** The load scenarios and one autocannon run of them: warm-up, then the measured window. */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import type { LoadSettings } from './env.js';
import { postInput } from './text.js';

export const SCENARIOS = [
  'get-one',
  'list-20',
  'list-20-deep',
  'create',
  'mixed',
  'content-get',
  'content-list',
  'content-list-br',
  'content-list-gzip',
  'media-get',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Scenarios that add rows (the runner resets the data after them). */
export const WRITES: ReadonlySet<Scenario> = new Set(['create', 'mixed']);

export interface Target {
  baseUrl: string;
  token: string;
  ids: readonly string[];
  /** A cursor in this server's own format, about halfway through the posts. */
  deepCursor: string;
  /** Slugs of published posts, for the Content API. */
  slugs: readonly string[];
  /** The path of one stored media file (a variant of about 100 KB), for `media-get`. */
  mediaPath?: string;
}

export interface LoadResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** What came over the wire per answer, headers and body (autocannon's count of bytes read). */
  bytesPerReq: number;
  statusCodes: Record<string, number>;
}

type Req = autocannon.Request;

/** Pre-built create bodies (realistic content), each sent with a unique title. */
const CREATE_INPUTS = Array.from({ length: 200 }, (_, i) => postInput(i, 'load '));

/** `setupRequest` for a scenario: picks an id, a page or a new post for each request. */
function requestFor(scenario: Scenario, target: Target): (req: Req) => Req {
  const tag = randomBytes(3).toString('hex');
  let created = 0;
  const getOne = (req: Req): Req => ({
    ...req,
    method: 'GET',
    path: `/api/v1/posts/${target.ids[Math.floor(Math.random() * target.ids.length)]}`,
  });
  const firstPage = (req: Req): Req => ({ ...req, method: 'GET', path: '/api/v1/posts?limit=20' });
  const deepPage = (req: Req): Req => ({
    ...req,
    method: 'GET',
    path: `/api/v1/posts?limit=20&cursor=${encodeURIComponent(target.deepCursor)}`,
  });
  const create = (req: Req): Req => {
    created += 1;
    const input = CREATE_INPUTS[created % CREATE_INPUTS.length]!;
    return {
      ...req,
      method: 'POST',
      path: '/api/v1/posts',
      headers: { ...req.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ ...input, title: `${input.title} ${tag}-${created}` }),
    };
  };
  const contentGet = (req: Req): Req => ({
    ...req,
    method: 'GET',
    path: `/api/v1/content/posts/slug/${target.slugs[Math.floor(Math.random() * target.slugs.length)]}`,
  });
  const contentList = (req: Req): Req => ({ ...req, method: 'GET', path: '/api/v1/content/posts?limit=20' });
  // The same list for a client that accepts a coding, as browsers and CDNs do (#41 item 9).
  const contentListIn =
    (coding: string) =>
    (req: Req): Req => ({ ...contentList(req), headers: { ...req.headers, 'accept-encoding': coding } });
  const mediaGet = (req: Req): Req => ({ ...req, method: 'GET', path: target.mediaPath ?? '/api/v1/content/media/none/none' });
  switch (scenario) {
    case 'media-get':
      return mediaGet;
    case 'content-get':
      return contentGet;
    case 'content-list':
      return contentList;
    case 'content-list-br':
      return contentListIn('br, gzip');
    case 'content-list-gzip':
      return contentListIn('gzip');
    case 'get-one':
      return getOne;
    case 'list-20':
      return firstPage;
    case 'list-20-deep':
      return deepPage;
    case 'create':
      return create;
    case 'mixed':
      return (req) => {
        const r = Math.random();
        return r < 0.7 ? getOne(req) : r < 0.9 ? firstPage(req) : create(req);
      };
  }
}

function cannon(url: string, token: string, connections: number, seconds: number, setupRequest: (req: Req) => Req) {
  let instance!: autocannon.Instance;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      { url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` }, requests: [{ setupRequest }] },
      (error: unknown, result: autocannon.Result) => (error ? reject(error) : resolve(result)),
    );
  });
  return { instance, done };
}

function summarise(result: autocannon.Result): LoadResult {
  const ok = result['2xx'];
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = (stat as { count: number }).count;
  return {
    requests: result.requests.total,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    reqPerSec: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    bytesPerReq: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
    statusCodes,
  };
}

/**
 * Warms up for `warmupSeconds`, then calls `around.before()`, measures for `durationSeconds`
 * and calls `around.after()`: the caller samples /proc in the measured window only.
 */
export async function runLoad(
  scenario: Scenario,
  target: Target,
  settings: LoadSettings,
  around: { before(): void; after(): void },
): Promise<LoadResult> {
  const url = new URL(target.baseUrl).origin;
  const setup = requestFor(scenario, target);
  await cannon(url, target.token, settings.connections, settings.warmupSeconds, setup).done;
  around.before();
  const result = await cannon(url, target.token, settings.connections, settings.durationSeconds, setup).done;
  around.after();
  return summarise(result);
}

/** A long run that reports every response, for the soak test. */
export function startSoak(
  target: Target,
  connections: number,
  seconds: number,
  onResponse: (status: number) => void,
): { done: Promise<LoadResult> } {
  const { instance, done } = cannon(new URL(target.baseUrl).origin, target.token, connections, seconds, requestFor('mixed', target));
  instance.on('response', (_client, status) => onResponse(status));
  return { done: done.then(summarise) };
}
