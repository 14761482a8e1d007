/**
 * A fuzz suite derived from the contract: for every operation of `generated/openapi.json`, invalid
 * requests generated from its parameters and body schema (fast-check, seeded and bounded), each
 * sent through the contract-checking fetch. For every request it asserts: no 5xx; the status is
 * one the operation declares (or 404/405 problem outside it) and the body validates against the
 * spec (both checked by the contract fetch); a problem's `status` equals the HTTP status; and, for
 * a write refused with a 4xx, that nothing changed (the posts and the activity log read the same).
 * An operation that takes a zip (importSite) gets damaged archives instead of damaged JSON, and
 * the one that takes an image (uploadMedia) gets garbage, truncated and bit-flipped images,
 * polyglots, images too large in pixels, SVG, broken forms and wrong content types; the media
 * library is part of what a refused write must leave alone.
 *
 * Two requests every operation gets as they are, not generated: its request target with raw
 * non-ASCII bytes, sent over a socket, must get the 400 `malformed-request` it declares (Node's
 * parser refuses it before any route sees it); and its path with a trailing slash, which names no
 * operation, is a 404 `not-found` problem (the spec's one rule for a trailing slash).
 *
 * Reproduce a failure with the seed and path fast-check prints: FUZZ_SEED=<seed> make test.
 * More runs: FUZZ_RUNS=<n> (default 30 per operation and kind of damage).
 */
import { connect, type AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import fc from 'fast-check';
import { strToU8, zipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { ContractViolation, createValidatingFetch } from '../support/contract-fetch.js';
import { testServer, url } from '../support/http.js';

type Json = Record<string, any>;

const SEED = Number(process.env.FUZZ_SEED ?? 20261203);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** The JSON schema of the body; undefined for an operation without one, with a zip or an image. */
  body: Json | undefined;
  takesZip: boolean;
  /** Whether the body is an image (its bytes with an image type, or a multipart form). */
  takesImage: boolean;
  protected: boolean;
}

/** What one generated request changes from the valid baseline of its operation. */
interface Damage {
  path?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
  body?: { text: string | Uint8Array; contentType: string | null };
}

type Server = Awaited<ReturnType<typeof testServer>>;

let server: Server;
let token: string;
/** The same app served on a socket, for requests a Fetch `Request` cannot carry. */
let listener: ServerType;
let port: number;
// The bundle the server validates against, read at collection time so that every operation gets
// tests of its own.
const document = (await import('../../generated/openapi.json', { with: { type: 'json' } })).default as Json;

function deref(value: Json): Json {
  let current = value;
  while (current && typeof current.$ref === 'string') {
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .reduce((node: Json, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return current;
}

function operationsOf(doc: Json): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, raw] of Object.entries(item as Json)) {
      const op = raw as Json;
      if (typeof op.operationId !== 'string') continue;
      const parameters = ((op.parameters ?? []) as Json[]).map((p) => {
        const parameter = deref(p);
        return {
          name: parameter.name,
          in: parameter.in,
          required: parameter.required === true,
          schema: deref(parameter.schema ?? {}),
        } as Parameter;
      });
      const content = op.requestBody ? (deref(op.requestBody).content as Json) : {};
      const body = content['application/json'] ? deref(content['application/json'].schema) : undefined;
      const security = (op.security ?? doc.security ?? []) as Json[];
      found.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        parameters,
        body,
        takesZip: content['application/zip'] !== undefined,
        takesImage: content['multipart/form-data'] !== undefined || Object.keys(content).some((type) => type.startsWith('image/')),
        protected: security.some((requirement) => Object.keys(requirement).length > 0),
      });
    }
  }
  return found;
}

/** Every property schema of a body, across `oneOf` branches, with the required names. */
function bodyShape(schema: Json): { properties: Record<string, Json>; required: Set<string> } {
  const branches = schema.oneOf ? (schema.oneOf as Json[]).map(deref) : [schema];
  const properties: Record<string, Json> = {};
  const required = new Set<string>();
  for (const branch of branches) {
    for (const [name, property] of Object.entries((branch.properties ?? {}) as Json)) properties[name] = deref(property);
    for (const name of (branch.required ?? []) as string[]) required.add(name);
  }
  return { properties, required };
}

// ---------------------------------------------------------------------------------------------
// Arbitraries: the kinds of damage.

/** Header-safe text: printable ASCII and tab (what a Fetch `Headers` accepts from any client). */
const headerText = (minLength: number, maxLength: number) =>
  fc.string({
    unit: fc.mapToConstant({ num: 95, build: (v) => String.fromCharCode(0x20 + v) }, { num: 1, build: () => '\t' }),
    minLength,
    maxLength,
  });

/** Integers as a hostile client writes them. */
const nonCanonicalInteger = fc.oneof(
  fc.constantFrom(
    '0x10',
    '+5',
    ' 5',
    '5 ',
    '0b11',
    '20\n',
    '05',
    '2e1',
    '1.0',
    '-0',
    '１',
    '',
    'NaN',
    'Infinity',
    '99999999999999999999',
    '-1',
  ),
  fc.integer().map((n) => `${n}.5`),
);

/** Path segments, raw (already percent-encoded as sent), malformed escapes included. */
const rawSegment = fc.oneof(
  fc.constantFrom('%E0%A4%A', '%', '%zz', '%00', '%2F', '..', '%2e%2e', '%C0%AF', '%FF%FE', 'a%20b', '%E2%9C%93'),
  nonCanonicalInteger.map(encodeURIComponent),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.string({ minLength: 300, maxLength: 600 }).map(encodeURIComponent),
);

const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', ''),
  fc.string({ maxLength: 20 }),
);

/** A query string of one to four entries: declared names with bad values, unknown and hostile keys. */
function queryDamage(op: Operation): fc.Arbitrary<string> {
  const declared = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const name = declared.length > 0 ? fc.oneof(fc.constantFrom(...declared), hostileKey) : hostileKey;
  const value = fc.oneof(
    nonCanonicalInteger,
    fc.string({ maxLength: 30 }),
    fc.string({ minLength: 2000, maxLength: 3000 }),
    fc.constantFrom('draft', '-title', 'published'),
  );
  const entry = fc.oneof(
    fc.tuple(name, value).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
    fc.tuple(name, fc.constantFrom('%E0%A4%A', '%', '%zz', '%00', '%FF')).map(([k, v]) => `${encodeURIComponent(k)}=${v}`),
    fc.constantFrom('%E0%A4%A=1', '&&&', '=x', 'limit', 'limit=1&limit=2', 'status=draft&status=', '__proto__[x]=1'),
  );
  return fc.array(entry, { minLength: 1, maxLength: 4 }).map((entries) => entries.join('&'));
}

const HEADER_SAMPLES = [
  '*',
  '"1"',
  'W/"1"',
  '"1", "2"',
  '"',
  '""',
  '"0"',
  '"-1"',
  '"99999999999999999999"',
  'Bearer',
  'Bearer ',
  'Basic YTpi',
  '"abc"',
];

function headerDamage(op: Operation): fc.Arbitrary<Record<string, string>> {
  const names = [...new Set(['authorization', ...op.parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase())])];
  const value = fc.oneof(fc.constantFrom(...HEADER_SAMPLES), headerText(0, 40), headerText(257, 400), fc.constant('x'.repeat(5000)));
  return fc.dictionary(fc.constantFrom(...names), value, { minKeys: 1, maxKeys: names.length });
}

/** A JSON value nested `depth` levels deep. */
const deeplyNested = fc.integer({ min: 50, max: 3000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));

function bodyDamage(op: Operation, valid: Json): fc.Arbitrary<Damage['body']> {
  const { properties, required } = bodyShape(op.body!);
  const names = Object.keys(properties);
  const asJson = (value: unknown) => ({ text: JSON.stringify(value), contentType: 'application/json' });
  const withProperty = (name: string, value: unknown) => asJson({ ...valid, [name]: value });

  const removed = fc.constantFrom(...(required.size > 0 ? [...required] : names)).map((name) => {
    const { [name]: _gone, ...rest } = valid;
    return asJson(rest);
  });
  const wrongType = fc.tuple(fc.constantFrom(...names), fc.jsonValue({ maxDepth: 3 })).map(([name, value]) => withProperty(name, value));
  const tooLong = fc.constantFrom(...names).chain((name) => {
    const schema = properties[name]!;
    if (typeof schema.maxLength === 'number') return fc.constant(withProperty(name, 'x'.repeat(schema.maxLength + 1)));
    if (typeof schema.maxItems === 'number')
      return fc.constant(
        withProperty(
          name,
          Array.from({ length: schema.maxItems + 1 }, (_, i) => `item-${i}`),
        ),
      );
    return fc.constant(withProperty(name, 'y'.repeat(100_000)));
  });
  const unknownKey = fc.tuple(hostileKey, fc.jsonValue({ maxDepth: 2 })).map(([key, value]) => ({
    // `__proto__` as an own JSON key, the way a hostile client sends it.
    text: JSON.stringify(valid).replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'},`),
    contentType: 'application/json',
  }));
  const enumNames = names.filter((n) => Array.isArray(properties[n]!.enum));
  const badEnum = enumNames.length > 0 ? fc.constantFrom(...enumNames).map((name) => withProperty(name, 'not-a-member')) : undefined;
  const wrongRoot = fc
    .jsonValue({ maxDepth: 2 })
    .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
    .map(asJson);
  const nested = deeplyNested.map((text) => ({ text, contentType: 'application/json' }));
  const nestedInProperty = fc.tuple(fc.constantFrom(...names), deeplyNested).map(([name, nest]) => ({
    text: JSON.stringify({ ...valid, [name]: '__NEST__' }).replace('"__NEST__"', nest),
    contentType: 'application/json',
  }));
  const malformed = fc
    .oneof(
      fc.constantFrom(
        '{',
        '{"title":',
        '{"title":"x",}',
        "{'title':'x'}",
        'null x',
        '\u0000',
        '{"title":"\\ud800"}',
        '[1,2',
        'NaN',
        '{"a":1}{"b":2}',
      ),
      fc.string({ maxLength: 50 }).filter((s) => {
        try {
          JSON.parse(s);
          return false;
        } catch {
          return true;
        }
      }),
    )
    .map((text) => ({ text, contentType: 'application/json' }));
  const contentType = fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/jsonx',
      'json',
      '',
    )
    .map((type) => ({ text: JSON.stringify(valid), contentType: type === '' ? null : type }));
  const kinds = [removed, wrongType, tooLong, unknownKey, wrongRoot, nested, nestedInProperty, malformed, contentType];
  return fc.oneof(...(badEnum ? [badEnum, ...kinds] : kinds));
}

/** A small valid import: one markdown post with front matter. */
const VALID_ZIP = zipSync({ 'posts/fuzzed.md': strToU8('---\ntitle: A fuzzed import\ntags: [fuzz]\n---\n# Hello\n') });

/** Archives as a hostile client sends them: noise, cut or bit-flipped zips, unsafe names, wrong types. */
function zipDamage(): fc.Arbitrary<Damage['body']> {
  const asZip = (bytes: Uint8Array) => ({ text: bytes, contentType: 'application/zip' });
  const noise = fc.uint8Array({ minLength: 1, maxLength: 2000 }).map(asZip);
  const cut = fc.integer({ min: 1, max: VALID_ZIP.length - 1 }).map((end) => asZip(VALID_ZIP.slice(0, end)));
  const flipped = fc
    .array(fc.tuple(fc.nat({ max: VALID_ZIP.length - 1 }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 })
    .map((flips) => {
      const bytes = VALID_ZIP.slice();
      for (const [at, mask] of flips) bytes[at]! ^= mask;
      return asZip(bytes);
    });
  const unsafeName = fc
    .constantFrom('../escape.md', '/etc/passwd.md', 'C:\\evil.md', 'a/../../b.md', 'posts\\..\\..\\x.md', '\u0000.md', '')
    .map((name) => asZip(zipSync({ [name]: strToU8('---\ntitle: x\n---\n') })));
  const badFrontMatter = fc
    .string({ maxLength: 200 })
    .map((text) => asZip(zipSync({ 'posts/a.md': strToU8(`---\n${text}\n---\nbody`), 'posts/b.md': strToU8(text) })));
  const contentType = fc
    .constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/zipx', 'zip', '')
    .map((type) => ({ text: VALID_ZIP, contentType: type === '' ? null : type }));
  const empty = fc.constant(asZip(new Uint8Array(0)));
  return fc.oneof(noise, cut, flipped, unsafeName, badFrontMatter, contentType, empty);
}

/** A small valid image (noise, so that a cut or a flipped bit lands in real image data). */
const VALID_PNG = new Uint8Array(
  await sharp({ create: { width: 48, height: 32, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .png()
    .toBuffer(),
);
const PNG_SIGNATURE = VALID_PNG.slice(0, 8);

/** A PNG header declaring `side` × `side` pixels and a few bytes of data: a bomb's header. */
function hugePngHeader(side: number): Uint8Array {
  const bytes = VALID_PNG.slice(0, 33);
  new DataView(bytes.buffer).setUint32(16, side);
  new DataView(bytes.buffer).setUint32(20, side);
  return bytes;
}

const concat = (...parts: (Uint8Array | string)[]) =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? strToU8(p) : p))));

/** Images as a hostile client sends them: noise, cut or bit-flipped, polyglots, SVG, bombs, broken forms, wrong types. */
function imageDamage(): fc.Arbitrary<Damage['body']> {
  const imageType = fc.constantFrom('image/png', 'image/jpeg', 'image/webp', 'image/avif', 'image/gif');
  const asImage = (bytes: Uint8Array, type = 'image/png') => ({ text: bytes, contentType: type });
  const noise = fc.tuple(fc.uint8Array({ minLength: 0, maxLength: 2000 }), imageType).map(([bytes, type]) => asImage(bytes, type));
  const cut = fc.integer({ min: 0, max: VALID_PNG.length - 1 }).map((end) => asImage(VALID_PNG.slice(0, end)));
  const flipped = fc
    .array(fc.tuple(fc.nat({ max: VALID_PNG.length - 1 }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 })
    .map((flips) => {
      const bytes = VALID_PNG.slice();
      for (const [at, mask] of flips) bytes[at]! ^= mask;
      return asImage(bytes);
    });
  const polyglot = fc
    .constantFrom(
      concat(VALID_PNG, '<html><script>alert(1)</script></html>'),
      concat(VALID_PNG, zipSync({ 'a.md': strToU8('---\ntitle: x\n---\n') })),
      concat('GIF89a/*', new Uint8Array(8), '*/=alert(1)//'),
      concat(PNG_SIGNATURE, '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
      concat('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      concat('%PDF-1.4\n', VALID_PNG),
      concat(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), '<script>alert(1)</script>'),
    )
    .chain((bytes) => imageType.map((type) => asImage(bytes, type)));
  const bomb = fc.constantFrom(10_000, 65_535, 2 ** 31 - 1, 0).map((side) => asImage(hugePngHeader(side)));
  const svg = fc.constant({ text: strToU8('<svg xmlns="http://www.w3.org/2000/svg"/>'), contentType: 'image/svg+xml' });
  const contentType = fc
    .constantFrom(
      'application/json',
      'text/plain',
      'application/octet-stream',
      'image/svg+xml',
      'image/x-icon',
      'image/png; boundary=x',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
      'multipart/mixed; boundary=x',
      'application/x-www-form-urlencoded',
      '',
    )
    .map((type) => ({ text: VALID_PNG, contentType: type === '' ? null : type }));
  const form = (parts: string[], boundary = 'fuzz') => ({
    text: concat(...parts.map((part) => `--${boundary}\r\n${part}\r\n`), `--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  });
  const brokenForm = fc.oneof(
    fc.constant(form(['Content-Disposition: form-data; name="alt"\r\n\r\nno file'])),
    fc.constant(form(['Content-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nnot an image'])),
    fc.constant(form(['Content-Disposition: form-data; name="file"\r\n\r\ntext, not a file'])),
    fc.constant({
      text: strToU8('--fuzz\r\nContent-Disposition: form-data; name="file"'),
      contentType: 'multipart/form-data; boundary=fuzz',
    }),
    fc.string({ maxLength: 200 }).map((text) => ({ text: strToU8(text), contentType: 'multipart/form-data; boundary=fuzz' })),
    fc
      .string({ minLength: 1001, maxLength: 1200 })
      .map((alt) =>
        form([
          `Content-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nx`,
          `Content-Disposition: form-data; name="alt"\r\n\r\n${alt}`,
        ]),
      ),
  );
  return fc.oneof(noise, cut, flipped, polyglot, bomb, svg, contentType, brokenForm);
}

// ---------------------------------------------------------------------------------------------
// Sending and checking.

interface Baseline {
  path: Record<string, string>;
  headers: Record<string, string>;
  body: Json | Uint8Array | undefined;
  /** The Content-Type a binary body is sent with. */
  bodyType?: string;
}

async function createPost(title = 'Fuzz target'): Promise<string> {
  const response = await server.app.fetch(
    new Request(url('/posts'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title, tags: ['fuzz'] }),
    }),
  );
  if (response.status !== 201) throw new Error(`could not create the fuzz target: ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

/** A media to fuzz the media operations on (an identical upload answers the same one, until it is deleted). */
async function createMedia(): Promise<string> {
  const response = await server.app.fetch(
    new Request(url('/media'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: VALID_PNG,
    }),
  );
  if (response.status !== 201 && response.status !== 200) throw new Error(`could not upload the fuzz target: ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

const isMediaPath = (path: string) => path.startsWith('/media/') || path.startsWith('/content/media/');

/** A valid request of the operation, on a post (or a media) of its own (writes may delete or change it). */
async function baseline(op: Operation): Promise<Baseline> {
  const id = isMediaPath(op.path) ? await createMedia() : await createPost();
  const headers: Record<string, string> = {};
  if (op.protected) headers.authorization = `Bearer ${token}`;
  if (op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'if-match')) headers['if-match'] = '*';
  const bodies: Record<string, Json> = {
    login: { email: 'ada@example.com', password: 'not the password' },
    refreshTokens: { refreshToken: 'a'.repeat(43) },
    logout: { refreshToken: 'a'.repeat(43) },
    createPost: { title: 'A fuzzed post', body: '# Hello', tags: ['fuzz'] },
    bulkPosts: { ids: [id], action: 'publish' },
    updatePost: { title: 'Edited by the fuzzer' },
    renderPreview: { body: '# Hello *preview*' },
    updateMedia: { alt: 'Edited by the fuzzer' },
    createWebhook: { url: 'https://hooks.example.com/fuzz', events: ['post.published'] },
    updateWebhook: { enabled: false },
    createPreviewLink: {},
  };
  if (op.takesZip) return { path: { id, version: '1' }, headers, body: VALID_ZIP, bodyType: 'application/zip' };
  if (op.takesImage) return { path: { id }, headers, body: VALID_PNG, bodyType: 'image/png' };
  const body = op.body ? bodies[op.operationId] : undefined;
  return { path: { id, version: '1', file: 'original.png' }, headers, body };
}

/** What a write must leave alone when it is refused: the posts, the activity log and the media library. */
async function snapshot(): Promise<string> {
  const read = async (path: string) =>
    (await server.app.fetch(new Request(url(path), { headers: { authorization: `Bearer ${token}` } }))).text();
  return JSON.stringify([
    await read('/posts?limit=100&sort=-updatedAt'),
    await read('/activity?limit=100'),
    await read('/media?limit=100'),
  ]);
}

async function sendDamaged(op: Operation, base: Baseline, damage: Damage): Promise<Response> {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => damage.path?.[name] ?? encodeURIComponent(base.path[name]!));
  const headers: Record<string, string> = { ...base.headers, ...damage.headers };
  let body: string | Uint8Array | undefined;
  if (damage.body) {
    body = damage.body.text;
    if (damage.body.contentType !== null) headers['content-type'] = damage.body.contentType;
  } else if (base.body instanceof Uint8Array) {
    body = base.body;
    headers['content-type'] = base.bodyType!;
  } else if (base.body !== undefined) {
    body = JSON.stringify(base.body);
    headers['content-type'] = 'application/json';
  }
  const target = url(path) + (damage.query ? `?${damage.query}` : '');
  return server.fetch(target, { method: op.method, headers, ...(body === undefined ? {} : { body }) });
}

async function check(op: Operation, damage: Damage): Promise<void> {
  const base = await baseline(op);
  const isWrite = op.method !== 'GET';
  const before = isWrite ? await snapshot() : '';
  let response: Response;
  try {
    response = await sendDamaged(op, base, damage);
  } catch (error) {
    if (error instanceof ContractViolation) throw new Error(`${op.operationId}: ${error.message}\n${JSON.stringify(damage).slice(0, 600)}`);
    throw error;
  }
  // A logoutAll that succeeded ended the session of the token every request is sent with.
  if (op.operationId === 'logoutAll' && response.status === 204) token = (await server.authedClient()).accessToken;
  const label = `${op.operationId} ${response.status} ${JSON.stringify(damage).slice(0, 300)}`;
  expect(response.status, label).toBeLessThan(500);
  const text = await response.text();
  if (response.headers.get('content-type') === 'application/problem+json') {
    expect((JSON.parse(text) as { status: number }).status, label).toBe(response.status);
  }
  if (isWrite && response.status >= 400) expect(await snapshot(), label).toBe(before);
}

/** The operation's path under the API root, its parameters filled from the baseline. */
function concretePath(op: Operation, base: Baseline): string {
  return `/api/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(base.path[name]!))}`;
}

/** Writes `raw` on a fresh connection and reads the answer until the server closes it. */
function sendRaw(raw: Buffer): Promise<Response> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = new Headers(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
      const status = Number(statusLine.split(' ')[1]);
      resolve(new Response(Buffer.from(text.slice(split + 4), 'latin1'), { status, headers }));
    });
    socket.write(raw);
  });
}

function property(op: Operation, damage: fc.Arbitrary<Damage>) {
  return fc.assert(
    fc.asyncProperty(damage, (d) => check(op, d)),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
}

const operations = operationsOf(document);

beforeAll(async () => {
  // The login fuzzing fails many logins from one address; logoutAll's successes need new ones.
  server = await testServer({ store: createMemoryStore(), loginThrottle: { maxFailures: 1000, maxFailuresPerAddress: 100_000 } });
  token = (await server.authedClient()).accessToken;
  listener = serveApp(server.app.fetch, { hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => listener.once('listening', resolve));
  port = (listener.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
});

describe('fuzzing every operation of the contract', () => {
  it('covers all 49 operations of the bundle the server runs, the one that takes a zip and the one that takes an image included', () => {
    expect(operations).toHaveLength(49);
    expect(operations.filter((op) => op.takesZip).map((op) => op.operationId)).toEqual(['importSite']);
    expect(operations.filter((op) => op.takesImage).map((op) => op.operationId)).toEqual(['uploadMedia']);
    expect(server.contract.document).toEqual(document);
  });

  for (const op of operations) {
    describe(`${op.operationId} (${op.method} ${op.path})`, () => {
      const find = () => op;

      it('answers the reproduced cases with a declared 4xx or its success: ?__proto__=x, and a malformed escape in each path parameter', async () => {
        await check(find(), { query: '__proto__=x' });
        await check(find(), { query: '__proto__[polluted]=1&constructor=x' });
        for (const parameter of op.parameters.filter((p) => p.in === 'path')) {
          await check(find(), { path: { [parameter.name]: '%E0%A4%A' } });
          await check(find(), { path: { [parameter.name]: '+1' } });
        }
      });

      it('answers its request target with raw non-ASCII bytes with the 400 malformed-request problem it declares', async () => {
        const path = concretePath(find(), await baseline(find()));
        const target = Buffer.concat([Buffer.from(`${path}/`), Buffer.from('é?q=é', 'utf8')]);
        const raw = Buffer.concat([Buffer.from(`${op.method} `), target, Buffer.from(' HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n')]);
        const answer = await sendRaw(raw);
        // Checked as the contract fetch checks every answer: a declared status, type and schema.
        const declared = createValidatingFetch(document, () => answer);
        const response = await declared(`http://localhost${path}`, { method: op.method });
        expect(response.status).toBe(400);
        // Word for word the spec's example of it.
        expect(await response.json()).toEqual(document.components.examples.InvalidRequestTarget.value);
      });

      it('answers its path with a trailing slash 404 not-found problem, never as its path without one', async () => {
        const base = await baseline(find());
        const isWrite = op.method !== 'GET';
        const before = isWrite ? await snapshot() : '';
        const path = `${concretePath(find(), base)}/`;
        const body = base.body instanceof Uint8Array ? base.body : base.body === undefined ? undefined : JSON.stringify(base.body);
        const headers = {
          ...base.headers,
          ...(body === undefined ? {} : { 'content-type': base.body instanceof Uint8Array ? base.bodyType! : 'application/json' }),
        };
        const response = await server.fetch(`http://localhost${path}`, {
          method: op.method,
          headers,
          ...(body === undefined ? {} : { body }),
        });
        // A logout-all answered as its path without the slash ended the session every request is sent with.
        if (response.status !== 404) token = (await server.authedClient()).accessToken;
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ type: 'https://margincms.dev/problems/not-found', status: 404, instance: path });
        if (isWrite) expect(await snapshot()).toBe(before);
      });

      if (op.parameters.some((p) => p.in === 'path')) {
        it('survives damaged path parameters', async () => {
          const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
          await property(
            find(),
            fc.dictionary(fc.constantFrom(...names), rawSegment, { minKeys: 1 }).map((path) => ({ path })),
          );
        });
      }

      it('survives hostile query strings', async () => {
        await property(
          find(),
          queryDamage(op).map((query) => ({ query })),
        );
      });

      it('survives garbage in every header it reads, Authorization included', async () => {
        await property(
          find(),
          headerDamage(op).map((headers) => ({ headers })),
        );
      });

      if (op.body) {
        it('survives bodies that break its schema, malformed JSON and wrong content types', async () => {
          const valid = (await baseline(find())).body as Json;
          await property(
            find(),
            bodyDamage(op, valid).map((body) => ({ body })),
          );
        });
      }

      if (op.takesZip) {
        it('survives damaged archives, unsafe entry names, broken front matter and wrong content types', async () => {
          await property(
            find(),
            zipDamage().map((body) => ({ body })),
          );
        });
      }

      if (op.takesImage) {
        it('survives garbage, truncated and bit-flipped images, polyglots, bombs, SVG, broken forms and wrong content types', async () => {
          await property(
            find(),
            imageDamage().map((body) => ({ body })),
          );
        });
      }
    });
  }
});
