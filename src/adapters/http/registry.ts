import type { operations } from '../../../generated/api.js';
import type { StagedBytes } from '../../domain/index.js';
import type { RequestDefaults } from '../../../generated/defaults.js';
import type { BinaryBody } from './binary-body.js';
import type { JsonText } from './json-text.js';

/** Every operationId in the contract. */
export type OperationId = keyof operations;

type Op<K extends OperationId> = operations[K];
type Defined<T> = [T] extends [never] ? Record<never, never> : T;
type WithoutIndex<T> = { [P in keyof T as string extends P ? never : P]: T[P] };

type PathParams<K extends OperationId> = Defined<NonNullable<Op<K>['parameters']['path']>>;
type QueryParams<K extends OperationId> = Defined<NonNullable<Op<K>['parameters']['query']>>;
type HeaderParams<K extends OperationId> = Defined<NonNullable<Op<K>['parameters']['header']>>;
/**
 * An image upload as the dispatch reads it: the image's bytes (the raw body, or a form's `file`
 * part) staged as they arrived, and the form's `alt` and `caption` parts when it was a form.
 */
export interface ImageUpload {
  file: StagedBytes;
  alt?: string;
  caption?: string;
}

type RequestBody<K extends OperationId> =
  Op<K> extends { requestBody: { content: { 'application/zip': unknown } } }
    ? Uint8Array
    : Op<K> extends { requestBody: { content: { 'multipart/form-data': unknown } } }
      ? ImageUpload
      : Op<K> extends { requestBody: { content: { 'application/json': infer B } } }
        ? B
        : Op<K> extends { requestBody?: { content: { 'application/json': infer B } } }
          ? B | undefined
          : undefined;

/** `T` with the properties named by `D` present: validation has filled in their defaults. */
type WithDefaults<T, D extends PropertyKey> = [D] extends [never]
  ? T
  : T extends object
    ? Omit<T, D & keyof T> & { [P in D & keyof T]-?: Exclude<T[P], undefined> }
    : T;

/**
 * The body a handler answers with: a stream of bytes for a zip download, the bytes and their type
 * for an image, else the schema's type (for JSON, also that type already serialised: `JsonText`);
 * where a response may also be an HTML page (chosen by `Accept`), that page as bytes and type too.
 */
type BodyOf<C> = 'application/zip' extends keyof C
  ? ReadableStream<Uint8Array>
  : 'image/png' extends keyof C
    ? BinaryBody
    : 'text/html' extends keyof C
      ? BinaryBody | C[Exclude<keyof C, 'text/html'>] | JsonText<C[Exclude<keyof C, 'text/html'>]>
      : C[keyof C] | JsonText<C[keyof C]>;

type ReplyFor<S, R> = R extends { content: infer C }
  ? { status: S; body: BodyOf<C>; headers?: Partial<WithoutIndex<R extends { headers: infer H } ? H : never>> }
  : { status: S; body?: undefined; headers?: Partial<WithoutIndex<R extends { headers: infer H } ? H : never>> };

type Responses<K extends OperationId> = Op<K>['responses'];

/**
 * What a handler may answer: one of the operation's declared status codes with the body of that
 * response and its declared headers. Anything else fails `tsc`. Errors are thrown (domain errors,
 * or `HttpProblem`) and mapped to problem+json in one place.
 */
type Reply<K extends OperationId> = {
  [S in keyof Responses<K> & number]: ReplyFor<S, Responses<K>[S]>;
}[keyof Responses<K> & number];

/** The authenticated caller, set by the bearer security handler. */
export interface Principal {
  userId: string;
  name: string;
  tokenId: string;
}

/** A validated request: parameters coerced to their schema types, defaults applied. */
interface RequestOf<K extends OperationId> {
  operationId: K;
  params: PathParams<K>;
  query: WithDefaults<QueryParams<K>, RequestDefaults[K]['query']>;
  /** Declared header parameters, lowercase names. */
  headers: { [H in keyof HeaderParams<K> as Lowercase<H & string>]: HeaderParams<K>[H] };
  body: WithDefaults<RequestBody<K>, RequestDefaults[K]['body']>;
  principal: Principal | null;
  requestId: string;
  /** The client's address: with TRUST_PROXY, the last X-Forwarded-For entry (the one our proxy appended). */
  clientAddress: string;
  /** The origin the client asked this server by: with TRUST_PROXY, the last X-Forwarded-Proto and -Host (see `originOf`). */
  origin: string;
  /** The path of this request, e.g. `/api/v1/posts`. */
  path: string;
  /**
   * The one of `supported` (media types) the request's `Accept` prefers, by quality then by how
   * exactly it is named; `fallback` when it names none of them but by a wildcard (`*\/*`), or is absent.
   */
  prefers<T extends string>(supported: readonly T[], fallback: T): T;
}

type Handler<K extends OperationId> = (request: RequestOf<K>) => Promise<Reply<K>>;

/** One handler per operationId: a missing one, or one that drifts from the contract, fails `tsc`. */
export type HandlerRegistry = { [K in OperationId]: Handler<K> };
