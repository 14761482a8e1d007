import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { StagedBytes } from '../../domain/index.js';
import { HttpProblem } from './problem.js';

/** Where and how much of an image upload is read (`createApp`'s `uploads`). */
export interface UploadLimits {
  /** The folder an upload is written to as it arrives, one temporary file each, removed once it is answered. */
  dir: string;
  /** The most bytes of an image: the raw body, or a form's file part (MEDIA_MAX_BYTES). */
  imageBytes: number;
  /** What a form may hold besides its image: boundaries, part headers and text parts, each text part at most this. */
  formAllowanceBytes: number;
}

/** The start of every staged upload's file name. */
const STAGED_UPLOAD_PREFIX = 'margin-upload-';

/** Parts a form may have: its three and a few unknown ones to name in the 422. */
const FORM_PARTS_MAX = 16;
/** A form's text parts. */
const TEXT_PARTS: ReadonlySet<string> = new Set(['alt', 'caption']);
const ONE_FILE = 'The form must have exactly one file part named "file" holding the image.';

/** An upload written to a temporary file as it arrived: its size and SHA-256, its bytes read back only when decoded. */
class StagedUpload implements StagedBytes {
  constructor(
    readonly path: string,
    readonly byteLength: number,
    readonly sha256: string,
  ) {}

  async read(): Promise<Uint8Array> {
    const bytes = await readFile(this.path);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Removes the file (the dispatch does, once the upload is answered). */
  remove(): Promise<void> {
    return rm(this.path, { force: true });
  }
}

/** An image upload as read: the staged image, and a form's text parts by name (unknown ones included, for the schema to refuse). */
export interface ReadUpload {
  file: StagedUpload;
  texts: Record<string, string>;
}

const tooLarge = (what: string, limit: number) =>
  new HttpProblem(413, 'payload-too-large', `${what} is larger than ${limit} bytes.`, {}, { connection: 'close' });
const malformed = (detail: string) => new HttpProblem(400, 'malformed-request', detail);

/**
 * The chunks of a request body as they arrive, until it ends or `stop` resolves (even while a
 * chunk is awaited: a client may stall). Leaving early releases the body without cancelling it: a
 * cancelled Node request body resets the connection before the answer (a 413) is written;
 * unread, it is closed after the answer (`Connection: close`).
 */
async function* chunksOf(body: ReadableStream<Uint8Array>, stop?: Promise<void>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const stopped = stop?.then(() => null);
  try {
    for (;;) {
      const read = reader.read();
      const next = stopped === undefined ? await read : await Promise.race([read, stopped]);
      if (next === null || next.done) return;
      yield next.value;
    }
  } finally {
    // A read still pending is rejected by the release (its rejection handled by the race).
    reader.releaseLock();
  }
}

/**
 * Writes `chunks` to a new file of `dir` (0600) as they come, hashing and counting them; past
 * `maxBytes` stops with a 413. On any failure (a refusal, a client gone) the file is removed.
 */
async function stage(chunks: AsyncIterable<Uint8Array>, dir: string, maxBytes: number): Promise<StagedUpload> {
  const path = join(dir, `${STAGED_UPLOAD_PREFIX}${randomUUID()}`);
  const file = await open(path, 'wx', 0o600);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    try {
      for await (const chunk of chunks) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) throw tooLarge('The image', maxBytes);
        hash.update(chunk);
        await file.writeFile(chunk);
      }
    } finally {
      await file.close();
    }
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return new StagedUpload(path, bytes, hash.digest('hex'));
}

/** A failure while reading a body, as its answer: a client that stopped sending is a 400 (nobody reads it). */
function asProblem(error: unknown): unknown {
  if (error instanceof HttpProblem) return error;
  return malformed(`The body was not received whole: ${error instanceof Error ? error.message : String(error)}.`);
}

/** A raw image body, staged. */
export async function stageImageBody(body: ReadableStream<Uint8Array> | null, limits: UploadLimits): Promise<ReadUpload> {
  if (body === null) throw malformed('The request body is empty; send the image.');
  try {
    return { file: await stage(chunksOf(body), limits.dir, limits.imageBytes), texts: {} };
  } catch (error) {
    throw asProblem(error);
  }
}

/**
 * A `multipart/form-data` upload, parsed as it arrives (busboy): its `file` part staged (a file
 * part, with a file name), its text parts kept (each cut to `formAllowanceBytes`:
 * longer than any allowed value, so the schema still refuses it), and every other part's name kept
 * with an empty value for the schema to refuse. Past the image limit or the whole body's (the
 * image plus `formAllowanceBytes`), a 413 at once, with the rest of the body unread.
 */
export async function stageImageForm(request: Request, limits: UploadLimits): Promise<ReadUpload> {
  let form: BusboyInstance;
  try {
    form = Busboy({
      headers: { 'content-type': request.headers.get('content-type') ?? '' },
      limits: { fieldSize: limits.formAllowanceBytes, parts: FORM_PARTS_MAX },
    });
  } catch (error) {
    throw malformed(`The multipart/form-data body does not parse: ${(error as Error).message}.`);
  }
  const reading = new FormReading(form, limits);
  try {
    await reading.feed(request.body, limits.imageBytes + limits.formAllowanceBytes);
    const file = await reading.staged();
    if (file === null) throw malformed(ONE_FILE);
    return { file, texts: reading.texts };
  } catch (error) {
    await reading.discard();
    throw asProblem(error);
  }
}

/** One form being read: what its parts held so far, and its first failure. */
class FormReading {
  readonly texts: Record<string, string> = Object.create(null) as Record<string, string>;
  #staging: Promise<StagedUpload> | null = null;
  #fileStream: Readable | null = null;
  #failure: unknown = null;
  readonly #failed: Promise<void>;
  #fail!: () => void;

  constructor(
    private readonly form: BusboyInstance,
    limits: UploadLimits,
  ) {
    this.#failed = new Promise((resolve) => (this.#fail = resolve));
    form.on('file', (name, stream) => {
      if (name === 'file' && this.#staging === null) {
        this.#fileStream = stream;
        this.#staging = stage(stream, limits.dir, limits.imageBytes);
        this.#staging.catch((error: unknown) => this.failWith(error));
        return;
      }
      stream.resume();
      if (name === 'file') this.failWith(malformed(ONE_FILE));
      else if (TEXT_PARTS.has(name)) this.failWith(malformed(`The form's "${name}" must be one text part.`));
      else this.texts[name] = '';
    });
    form.on('field', (name, value) => {
      if (name === 'file') this.failWith(malformed(ONE_FILE));
      else if (TEXT_PARTS.has(name) && name in this.texts) this.failWith(malformed(`The form's "${name}" must be one text part.`));
      else this.texts[name] = value;
    });
    form.on('partsLimit', () =>
      this.failWith(malformed(`The form has more than ${FORM_PARTS_MAX} parts; it takes file, alt and caption.`)),
    );
    form.on('error', (error) => this.failWith(malformed(`The multipart/form-data body does not parse: ${(error as Error).message}.`)));
  }

  failWith(error: unknown): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    this.#fail();
  }

  /**
   * Writes the body to the parser as it arrives, waiting while the parser is full (until the file
   * part's writes catch up), then waits for the parser to finish; stops at the first failure.
   */
  async feed(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<void> {
    let total = 0;
    if (body !== null) {
      for await (const chunk of chunksOf(body, this.#failed)) {
        total += chunk.byteLength;
        if (total > maxBytes) this.failWith(tooLarge('The request body', maxBytes));
        if (this.#failure !== null) break;
        if (!this.form.write(chunk)) await this.until(once(this.form as unknown as Readable, 'drain'));
        if (this.#failure !== null) break;
      }
    }
    if (this.#failure === null) {
      this.form.end();
      await this.until(once(this.form as unknown as Readable, 'finish'));
    }
    if (this.#failure !== null) throw this.#failure;
  }

  /** The staged file part, once written whole; null when the form had none. */
  async staged(): Promise<StagedUpload | null> {
    const file = await this.#staging;
    if (this.#failure !== null) throw this.#failure;
    return file ?? null;
  }

  /** Removes the staged file part of a failed form, when one was written. */
  async discard(): Promise<void> {
    // The file part ends here (its staging removes what it wrote), whatever the parser does.
    this.#fileStream?.destroy();
    this.form.destroy();
    const file = await this.#staging?.catch(() => null);
    await file?.remove();
  }

  /** `event`, or the first failure, whichever comes first. */
  private async until(event: Promise<unknown>): Promise<void> {
    event.catch(() => undefined);
    await Promise.race([event, this.#failed]);
  }
}
